/* Run one program on an rv64_sys_pe unit of a machine as a host does
 * (docs/rv64.md §11): the instruction and scratchpad segments as CU_DATA
 * granule bursts and the kick CU_INST {op 1} with last = 0, staged in the
 * orchestrator and dispatched to the unit's coordinate in chunks; then the
 * unit's entry of the orchestrator's status mirror polled until its
 * completion arrives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/card.h"
#include "kohaku/cu.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/gen/rv64.h"
#include "kohaku/machine.h"
#include "kohaku/orch.h"
#include "kohaku/rv64.h"

#define PE_IMEM_BYTES 0x4000u
#define PE_SPAD_BASE 0x10000u
#define PE_SPAD_BYTES 0x4000u
#define CHUNK 64 /* flits staged per dispatch */
#define MAX_BURST 256 /* CU_DATA len is 8 bits */

typedef struct pe_loader {
    kh_card *card;
    unsigned mesh;
    uint64_t dst;
    kh_flit f[CHUNK];
    unsigned n;
    char *err;
    size_t errlen;
} pe_loader;

static int wr(pe_loader *l, uint32_t off, uint64_t v)
{
    return kh_card_write64(l->card, kh_host_ctrl(l->mesh, off), v, l->err, l->errlen);
}

static int flush(pe_loader *l)
{
    if (!l->n) return 0;
    for (unsigned s = 0; s < l->n; s++)
        for (unsigned k = 0; k < KH_FLIT_WORDS; k++)
            if (wr(l, KH_ORCH_STAGE + 40 * s + 8 * k, l->f[s].w[k])) return -1;
    if (wr(l, KH_ORCH_PROG_DST, l->dst) || wr(l, KH_ORCH_PROG_BASE, 0) || wr(l, KH_ORCH_PROG_LEN, l->n) ||
        wr(l, KH_ORCH_PROG_CRED, l->n) || wr(l, KH_ORCH_PROG_KICK, 1))
        return -1;
    for (unsigned tries = 0;; tries++) {
        uint64_t st;
        if (kh_card_read64(l->card, kh_host_ctrl(l->mesh, KH_ORCH_PROG_STAT), &st, l->err, l->errlen)) return -1;
        if (!kh_orch_prog_stat_run(&st)) break;
        if (tries > 1000000) {
            snprintf(l->err, l->errlen, "loading rv64_sys_pe: the dispatch of %u flits never finished", l->n);
            return -1;
        }
    }
    l->n = 0;
    return 0;
}

static int add(pe_loader *l, const kh_flit *f)
{
    if (l->n == CHUNK && flush(l)) return -1;
    l->f[l->n++] = *f;
    return 0;
}

/* granules [g, g + count) of bytes as bursts of buf_id buf (a burst and its
 * data flits in one chunk: the unit takes data only from the burst's source) */
static int bursts(pe_loader *l, unsigned buf, const uint8_t *bytes, unsigned g, unsigned count)
{
    while (count) {
        if (l->n > CHUNK - 2 && flush(l)) return -1;
        unsigned k = CHUNK - 1 - l->n;
        if (k > count) k = count;
        if (k > MAX_BURST) k = MAX_BURST;
        kh_flit d;
        kh_flit_clear(&d);
        kh_hdr_set_type(d.w, KH_T_CU_DATA);
        kh_cu_data_set_buf_id(d.w, buf);
        kh_cu_data_set_offset(d.w, g);
        kh_cu_data_set_len(d.w, k - 1);
        if (add(l, &d)) return -1;
        for (unsigned j = 0; j < k; j++) {
            kh_flit x;
            kh_flit_clear(&x);
            kh_hdr_set_type(x.w, KH_T_CU_DATA);
            kh_hdr_set_last(x.w, j + 1 == k);
            uint64_t data[4] = {0};
            for (unsigned i = 0; i < 32; i++) data[i / 8] |= (uint64_t)bytes[32 * (g + j) + i] << (8 * (i % 8));
            kh_cu_data_data_set_data(x.w, data);
            if (add(l, &x)) return -1;
        }
        g += k;
        count -= k;
    }
    return 0;
}

static kh_cu *unit_of(kh_machine *m, unsigned mesh, unsigned x, unsigned y, char *err, size_t errlen)
{
    kh_cu *cu = kh_machine_unit_at(m, mesh, x, y);
    if (!cu || strcmp(kh_cu_kind(cu)->name, "rv64_sys_pe")) {
        snprintf(err, errlen, "mesh %u has no rv64_sys_pe unit at (%u,%u) (map token r64)", mesh, x, y);
        return NULL;
    }
    return cu;
}

static uint32_t status_off(unsigned x, unsigned y) { return KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(x, y); }

int kh_rv64_pe_start(kh_machine *m, unsigned mesh, unsigned x, unsigned y, const kh_rv64_elf *elf, uint64_t *mark,
                     char *err, size_t errlen)
{
    if (!unit_of(m, mesh, x, y, err, errlen)) return -1;
    if (elf->entry != 0) {
        snprintf(err, errlen, "entry 0x%llx: the unit boots at PC 0; link with examples/rv64/pe.ld",
                 (unsigned long long)elf->entry);
        return -1;
    }
    uint8_t *imem = calloc(1, PE_IMEM_BYTES), *spad = calloc(1, PE_SPAD_BYTES);
    unsigned ig = 0, slo = PE_SPAD_BYTES / 32, shi = 0;
    int rc = -1;
    if (!imem || !spad) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    for (unsigned s = 0; s < elf->nseg; s++) {
        const kh_rv64_seg *sg = &elf->seg[s];
        int in_imem = sg->vaddr + sg->memsz <= PE_IMEM_BYTES;
        int in_spad = sg->vaddr >= PE_SPAD_BASE && sg->vaddr + sg->memsz <= PE_SPAD_BASE + PE_SPAD_BYTES;
        if (!sg->memsz) continue;
        if (!in_imem && !in_spad) {
            snprintf(err, errlen,
                     "segment at 0x%llx, %llu bytes: a segment must lie in the instruction memory (0x0-0x3fff) or "
                     "the scratchpad (0x10000-0x13fff) (docs/rv64.md §11)",
                     (unsigned long long)sg->vaddr, (unsigned long long)sg->memsz);
            goto done;
        }
        uint64_t off = in_imem ? sg->vaddr : sg->vaddr - PE_SPAD_BASE;
        memcpy((in_imem ? imem : spad) + off, sg->bytes, sg->filesz);
        unsigned lo = (unsigned)(off / 32), hi = (unsigned)((off + sg->memsz + 31) / 32);
        if (in_imem) {
            if (hi > ig) ig = hi;
        } else {
            if (lo < slo) slo = lo;
            if (hi > shi) shi = hi;
        }
    }
    pe_loader l = {.card = kh_machine_card(m), .mesh = mesh, .err = err, .errlen = errlen};
    kh_orch_prog_dst_set_x(&l.dst, x);
    kh_orch_prog_dst_set_y(&l.dst, y);
    if (kh_card_read64(l.card, kh_host_ctrl(mesh, status_off(x, y)), mark, err, errlen)) goto done;
    if (bursts(&l, 1, imem, 0, ig) || (shi > slo && bursts(&l, 0, spad, slo, shi - slo))) goto done;
    kh_flit k;
    kh_flit_clear(&k);
    kh_hdr_set_type(k.w, KH_T_CU_INST);
    kh_hdr_set_txn(k.w, 1);
    kh_rv64_pe_kick_set_op(k.w, 1);
    if (add(&l, &k) || flush(&l)) goto done;
    rc = 0;
done:
    free(imem);
    free(spad);
    return rc;
}

int kh_rv64_pe_wait(kh_machine *m, unsigned mesh, unsigned x, unsigned y, uint64_t mark, uint64_t limit,
                    kh_rv64_pause_fn pause, void *ctx, kh_rv64_pe_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    kh_cu *cu = unit_of(m, mesh, x, y, err, errlen);
    if (!cu) return -1;
    kh_card *card = kh_machine_card(m);
    kh_sim *sim = kh_machine_sim(m);
    kh_cycle end = kh_sim_now(sim) + limit;
    uint64_t now;
    for (;;) {
        int idle = kh_sim_idle(sim);
        if (kh_card_read64(card, kh_host_ctrl(mesh, status_off(x, y)), &now, err, errlen)) return -1;
        if (kh_orch_node_status_count(&now) != kh_orch_node_status_count(&mark)) break;
        if (idle || kh_sim_now(sim) >= end) {
            snprintf(err, errlen, "no completion from (%u,%u) %s after cycle %llu", x, y,
                     idle ? "and nothing left to run" : "within the cycle limit", (unsigned long long)kh_sim_now(sim));
            return -1;
        }
        kh_sim_run_until_idle(sim, 1024);
        if (pause && pause(ctx, m)) {
            snprintf(err, errlen, "the run was stopped between two polls");
            return -1;
        }
    }
    res->code = (unsigned)kh_orch_node_status_code(&now);
    res->word = (uint32_t)kh_orch_node_status_arg(&now);
    uint64_t dbg = kh_cu_kind(cu)->dbg(kh_cu_unit(cu));
    res->cycles = (uint32_t)dbg;
    res->instret = (uint32_t)(dbg >> 32);
    return 0;
}

int kh_rv64_pe_run(kh_machine *m, unsigned mesh, unsigned x, unsigned y, const kh_rv64_elf *elf, uint64_t limit,
                   kh_rv64_pe_result *res, char *err, size_t errlen)
{
    uint64_t mark = 0;
    memset(res, 0, sizeof *res);
    if (kh_rv64_pe_start(m, mesh, x, y, elf, &mark, err, errlen)) return -1;
    return kh_rv64_pe_wait(m, mesh, x, y, mark, limit, NULL, NULL, res, err, errlen);
}
