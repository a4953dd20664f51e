/* Run one program on a machine's RV64 complex as a host does (docs/rv64.md
 * §10, §14): the instruction window and the scratchpad streamed through the
 * host-load window at control +0x8000 (LOADC once, then LOADD word after
 * word), node memory through the card's memory window, HR_BOOT, then
 * HR_STATUS polled until the program exits or the core halts; the answer
 * comes from HR_EXIT, HR_RETIRED and HR_CYCLES. Every access is a host
 * access of the card, with its link time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/card.h"
#include "kohaku/gen/rv64.h"
#include "kohaku/machine.h"
#include "kohaku/orch.h"
#include "kohaku/rv64.h"

#define WIN(off) (KH_ORCH_SLOT + (off))
#define HR_BOOT 0x00
#define HR_STATUS 0x18
#define HR_EXIT 0x20
#define HR_HALTPC 0x28
#define HR_CYCLES 0x30
#define HR_RETIRED 0x38
#define LOADC 0x80
#define LOADD 0x88

#define IMEM_BYTES 0x8000u
#define SPAD_LO 0x10000u
#define SPAD_HI 0x18000u
#define NODE_LO UINT64_C(0x10000000)

typedef struct runner {
    kh_card *card;
    unsigned mesh;
    char *err;
    size_t errlen;
} runner;

static int wr(runner *r, unsigned off, uint64_t v)
{
    return kh_card_write64(r->card, kh_host_ctrl(r->mesh, WIN(off)), v, r->err, r->errlen);
}
static int rd(runner *r, unsigned off, uint64_t *v)
{
    return kh_card_read64(r->card, kh_host_ctrl(r->mesh, WIN(off)), v, r->err, r->errlen);
}

/* The window and scratchpad images: words present, in address order. */
typedef struct image {
    uint32_t iw[IMEM_BYTES / 4];
    uint8_t iwv[IMEM_BYTES / 4];
    uint64_t sw[(SPAD_HI - SPAD_LO) / 8];
    uint8_t swv[(SPAD_HI - SPAD_LO) / 8];
} image;

static uint64_t loadc(unsigned region, unsigned off)
{
    uint64_t v = 0;
    kh_rv64_loadc_set_region(&v, region);
    kh_rv64_loadc_set_off(&v, off);
    return v;
}

static int stream(runner *r, const image *im)
{
    int open = 0; /* the load pointer is at the next word */
    for (unsigned i = 0; i < IMEM_BYTES / 4; i++) {
        if (!im->iwv[i]) {
            open = 0;
            continue;
        }
        if (!open && wr(r, LOADC, loadc(KH_RV64_LOADC_REGION_IMEM, 4 * i))) return -1;
        open = 1;
        if (wr(r, LOADD, im->iw[i])) return -1;
    }
    open = 0;
    for (unsigned i = 0; i < (SPAD_HI - SPAD_LO) / 8; i++) {
        if (!im->swv[i]) {
            open = 0;
            continue;
        }
        if (!open && wr(r, LOADC, loadc(KH_RV64_LOADC_REGION_SPAD, 8 * i))) return -1;
        open = 1;
        if (wr(r, LOADD, im->sw[i])) return -1;
    }
    return 0;
}

/* node memory: DRAM (bit 38, the uncached alias, is the same DRAM) or staging (bit 39) */
static int node_bytes(runner *r, uint64_t a, const uint8_t *b, size_t n)
{
    uint64_t host = (a >> 39) & 1 ? kh_host_staging(r->mesh, a & UINT64_C(0xFFFFFFFF))
                                  : kh_host_dram(r->mesh, a & UINT64_C(0xFFFFFFFFF));
    return kh_card_write_block(r->card, host, b, n, r->err, r->errlen);
}

static int load(runner *r, const kh_rv64_elf *elf, image *im)
{
    for (unsigned s = 0; s < elf->nseg; s++) {
        const kh_rv64_seg *sg = &elf->seg[s];
        if (sg->vaddr >= NODE_LO) {
            uint8_t *buf = calloc(1, sg->memsz ? sg->memsz : 1);
            if (!buf) {
                snprintf(r->err, r->errlen, "out of memory loading a segment");
                return -1;
            }
            memcpy(buf, sg->bytes, sg->filesz);
            int rc = sg->memsz ? node_bytes(r, sg->vaddr, buf, sg->memsz) : 0;
            free(buf);
            if (rc) return -1;
            continue;
        }
        for (uint64_t k = 0; k < sg->memsz; k++) {
            uint64_t a = sg->vaddr + k;
            uint8_t byte = k < sg->filesz ? sg->bytes[k] : 0;
            if (a < IMEM_BYTES) {
                im->iw[a >> 2] |= (uint32_t)byte << (8 * (a & 3));
                im->iwv[a >> 2] = 1;
            } else if (a >= SPAD_LO && a < SPAD_HI) {
                im->sw[(a - SPAD_LO) >> 3] |= (uint64_t)byte << (8 * (a & 7));
                im->swv[(a - SPAD_LO) >> 3] = 1;
            } else {
                snprintf(r->err, r->errlen,
                         "the byte at 0x%llx is in no region the host loads (instruction window 0x0-0x7fff, "
                         "scratchpad 0x10000-0x17fff, node memory from 0x10000000; docs/rv64.md §7)",
                         (unsigned long long)a);
                return -1;
            }
        }
    }
    if (elf->entry && !im->iwv[0]) { /* the core starts at 0: a stub there jumps to the entry */
        uint64_t e = elf->entry;
        if (e >= UINT64_C(0x80000000) && e != UINT64_C(0x80000000)) {
            snprintf(r->err, r->errlen, "entry 0x%llx: the core starts at 0 and the start stub reaches only "
                     "0x80000000 or below; link the program at 0 (examples/rv64/node.ld)", (unsigned long long)e);
            return -1;
        }
        if (e == UINT64_C(0x80000000)) {
            im->iw[0] = 0x00100293u; /* addi t0, x0, 1 */
            im->iw[1] = 0x01f29293u; /* slli t0, t0, 31 */
        } else {
            im->iw[0] = (uint32_t)(((e + 0x800) >> 12) & 0xFFFFF) << 12 | 0x2b7u; /* lui t0 */
            im->iw[1] = (uint32_t)(e & 0xFFF) << 20 | 0x28293u;                   /* addi t0, t0 */
        }
        im->iw[2] = 0x00028067u; /* jalr x0, 0(t0) */
        im->iwv[0] = im->iwv[1] = im->iwv[2] = 1;
    }
    return stream(r, im);
}

static kh_rv64_node *complex_of(kh_machine *m, unsigned mesh, char *err, size_t errlen)
{
    kh_rv64_node *cpu = kh_machine_cpu64_at(m, mesh);
    if (!cpu) snprintf(err, errlen, "mesh %u has no RV64 complex (machine parameter cpu_rv64 = 1 builds it)", mesh);
    return cpu;
}

int kh_rv64_node_start(kh_machine *m, unsigned mesh, const kh_rv64_elf *elf, char *err, size_t errlen)
{
    if (!complex_of(m, mesh, err, errlen)) return -1;
    runner r = {.card = kh_machine_card(m), .mesh = mesh, .err = err, .errlen = errlen};
    image *im = calloc(1, sizeof *im);
    if (!im) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = load(&r, elf, im);
    free(im);
    if (rc) return -1;
    return wr(&r, HR_BOOT, 1);
}

int kh_rv64_node_wait(kh_machine *m, unsigned mesh, uint64_t limit, kh_rv64_pause_fn pause, void *ctx,
                      kh_rv64_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    kh_rv64_node *cpu = complex_of(m, mesh, err, errlen);
    if (!cpu) return -1;
    runner r = {.card = kh_machine_card(m), .mesh = mesh, .err = err, .errlen = errlen};
    kh_sim *sim = kh_machine_sim(m);
    kh_cycle end = kh_sim_now(sim) + limit;
    uint64_t st = 0;
    for (;;) {
        if (rd(&r, HR_STATUS, &st)) return -1;
        if (kh_rv64_host_status_exited(&st) || kh_rv64_host_status_halted(&st)) break;
        if (kh_sim_now(sim) >= end) {
            res->end = KH_RV64_END_LIMIT;
            break;
        }
        kh_sim_run(sim, 1024);
        if (pause && pause(ctx, m)) {
            snprintf(err, errlen, "the run was stopped between two polls");
            return -1;
        }
    }
    uint64_t v;
    if (rd(&r, HR_RETIRED, &res->instret) || rd(&r, HR_CYCLES, &res->cycles)) return -1;
    if (res->end == KH_RV64_END_LIMIT) return 0;
    if (kh_rv64_host_status_exited(&st)) {
        if (rd(&r, HR_EXIT, &v)) return -1;
        res->end = KH_RV64_END_EXIT;
        res->code = v;
        return 0;
    }
    if (rd(&r, HR_HALTPC, &res->halt_pc)) return -1;
    res->end = KH_RV64_END_HALT;
    res->halt_cause = (unsigned)kh_rv64_host_status_cause(&st);
    res->code = kh_rv64_reg(kh_rv64_node_core(cpu), 10); /* a0: a look inside, no register shows it */
    return 0;
}

int kh_rv64_node_run(kh_machine *m, unsigned mesh, const kh_rv64_elf *elf, uint64_t limit, kh_rv64_result *res,
                     char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (kh_rv64_node_start(m, mesh, elf, err, errlen)) return -1;
    return kh_rv64_node_wait(m, mesh, limit, NULL, NULL, res, err, errlen);
}
