/* The flat harness (docs/rv64.md §7; upstream's rv64_core_main.cpp): one
 * sparse memory that answers the instruction and data ports in the next
 * cycle, the console and exit stores at 0x1000_0000 / 0x1000_0008, and
 * riscv-tests' HTIF: a store to `tohost` of an odd value ends the run with
 * code value >> 1; an even value is a syscall block (SYS_write proxied to
 * the output, then `fromhost` = 1); device 1 command 1 is a console byte.
 *
 * Upstream's bare core has no MMU. So that programs which turn Sv39 on
 * (riscv-tests' v environment) run here too, the harness carries the node
 * wrapper's MMU and fetch page register (mmu.c) while satp.MODE is Sv39;
 * its walks read the flat memory in the next cycle. With MODE 0 nothing of
 * it is in the path and the timing is the bare core's exactly. */
#include <stdlib.h>
#include <string.h>

#include "rv64/mmu.h"
#include "rv64/rv64_int.h"
#include "util/pages.h"

#define SYS_WRITE 64

struct kh_rv64_flat {
    kh_pages mem;
    kh_rv64 *core;
    FILE *out;
    int have_tohost, have_fromhost;
    uint64_t tohost, fromhost;
    int done;
    kh_rv64_end end;
    uint64_t code;
    uint64_t fetch_page;      /* the page the fetch cache holds, + 1; 0 none */
    const uint8_t *fetch_bytes;
    /* Sv39 (only while satp.MODE is 8) and this cycle's answers */
    rv6_mmu mmu;
    rv6_ifetch ifp;
    int bare;                 /* no MMU at all (KH_RV64_FLAT_BARE) */
    int armed;                /* satp.MODE was Sv39 this cycle */
    int xlate;                /* ... and the level was below M: data is translated */
    rv6_mmu_out mo;
    int dstall;
    int dstarted;             /* a translated data access has had its first cycle */
    uint64_t fetch_pa;
    int fetch_bad;
};

static uint64_t rd64(const kh_rv64_flat *f, uint64_t a)
{
    const uint8_t *p = kh_pages_find(&f->mem, a);
    if (!p) return 0;
    unsigned o = (unsigned)(a & (KH_PAGE_BYTES - 1)) & ~7u;
    uint64_t v = 0;
    for (unsigned i = 8; i-- > 0;) v = v << 8 | p[o + i];
    return v;
}

static void wr64(kh_rv64_flat *f, uint64_t a, uint64_t v, uint8_t strb)
{
    uint8_t *p = kh_pages_get(&f->mem, a);
    if (!p) return; /* out of memory: the store is lost (the run reports nothing else) */
    unsigned o = (unsigned)(a & (KH_PAGE_BYTES - 1)) & ~7u;
    for (unsigned i = 0; i < 8; i++)
        if (strb >> i & 1) p[o + i] = (uint8_t)(v >> (8 * i));
}

uint64_t kh_rv64_flat_read64(const kh_rv64_flat *f, uint64_t addr) { return rd64(f, addr); }
void kh_rv64_flat_write64(kh_rv64_flat *f, uint64_t addr, uint64_t v) { wr64(f, addr, v, 0xFF); }

static int sv39(uint64_t satp) { return (satp >> 60) == 8; }

static rv6_mmu_in mmu_in(const kh_rv64_flat *f, const kh_rv64_early *e, uint64_t va, int sfence)
{
    int dreq = e->dmem_req;
    return (rv6_mmu_in){
        .satp = e->satp, .priv = e->priv, .sum = e->sum, .mxr = e->mxr, .sfence = sfence,
        .req = dreq || kh_rv6_ifetch_mmu_req(&f->ifp), .is_store = dreq && e->dmem_st, .is_fetch = !dreq,
        .va = va, .w_ack = f->mmu.w_req, /* a walk read answers in the next cycle */
        .w_data = f->mmu.w_req ? rd64(f, f->mmu.w_addr) : 0,
    };
}

static void flat_comb(void *ctx, const kh_rv64_early *e, kh_rv64_in *in)
{
    kh_rv64_flat *f = ctx;
    memset(in, 0, sizeof *in); /* memory never stalls; no interrupt lines */
    f->armed = !f->bare && sv39(e->satp);
    f->xlate = f->armed && e->priv != 3;
    f->dstall = 0;
    f->fetch_pa = e->pc;
    f->fetch_bad = 0;
    if (!f->armed) return;
    rv6_mmu_in mi = mmu_in(f, e, 0, 0);
    kh_rv6_mmu_comb(&f->mmu, &mi, &f->mo);
    in->imem_stall = kh_rv6_ifetch_stall(&f->ifp, e->pc, e->settle);
    /* A translated access waits one cycle for the MMU to register it before
     * the MMU's answer can be its own (the node wrapper takes the address on
     * that first cycle, docs/rv64.md §13). */
    int first = f->xlate && e->dmem_req && !f->dstarted;
    in->dmem_stall = f->dstall = first || f->mo.busy;
    in->dmem_fault = f->mo.fault && !f->mo.fault_fetch;
    in->fault_cause = f->mo.cause;
    f->fetch_pa = kh_rv6_ifetch_pa(&f->ifp, e->pc, &f->fetch_bad);
}

/* the physical address of this cycle's data access: the TLB's answer
 * while translation is on (it is valid once the MMU is not busy) */
static uint64_t data_pa(const kh_rv64_flat *f, uint64_t va) { return f->xlate ? f->mo.pa : va; }

static uint32_t flat_fetch(void *ctx, uint64_t pc, int *fault)
{
    kh_rv64_flat *f = ctx;
    *fault = f->fetch_bad;
    pc = f->fetch_pa;
    uint64_t page = pc / KH_PAGE_BYTES + 1;
    if (page != f->fetch_page) {
        f->fetch_bytes = kh_pages_find(&f->mem, pc);
        f->fetch_page = f->fetch_bytes ? page : 0; /* an unwritten page may be written later */
        if (!f->fetch_bytes) return 0;
    }
    const uint8_t *p = f->fetch_bytes + ((unsigned)pc & (KH_PAGE_BYTES - 1) & ~3u);
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t flat_read(void *ctx, uint64_t addr) { return rd64(ctx, data_pa(ctx, addr)); }

static uint64_t lanes(uint64_t v, uint8_t strb)
{
    uint64_t m = 0;
    for (unsigned i = 0; i < 8; i++)
        if (strb >> i & 1) m |= UINT64_C(0xFF) << (8 * i);
    v &= m;
    while (strb && !(strb & 1)) { /* the datum from its lowest lane */
        v >>= 8;
        strb >>= 1;
    }
    return v;
}

static void proxy_syscall(kh_rv64_flat *f, uint64_t block)
{
    uint64_t which = rd64(f, block), fd = rd64(f, block + 8), buf = rd64(f, block + 16), len = rd64(f, block + 24);
    uint64_t ret = (uint64_t)-1;
    if (which == SYS_WRITE && (fd == 1 || fd == 2) && len <= (UINT64_C(1) << 24)) {
        for (uint64_t i = 0; i < len; i++) {
            uint8_t byte = (uint8_t)(rd64(f, (buf + i) & ~UINT64_C(7)) >> (8 * ((buf + i) & 7)));
            if (f->out) fputc(byte, f->out);
        }
        ret = len;
    }
    wr64(f, block, ret, 0xFF);
}

static void htif(kh_rv64_flat *f)
{
    uint64_t v = rd64(f, f->tohost);
    if (!v) return;
    unsigned dev = (unsigned)(v >> 56), cmd = (unsigned)(v >> 48) & 0xFF;
    uint64_t payload = v & UINT64_C(0xFFFFFFFFFFFF);
    if (dev == 0 && (payload & 1)) {
        f->done = 1;
        f->end = KH_RV64_END_TOHOST;
        f->code = payload >> 1;
        return;
    }
    if (dev == 0) {
        proxy_syscall(f, payload);
        if (f->have_fromhost) wr64(f, f->fromhost, 1, 0xFF);
    } else if (dev == 1 && cmd == 1 && f->out) {
        fputc((int)(payload & 0xFF), f->out);
    }
    wr64(f, f->tohost, 0, 0xFF);
}

static void flat_edge(void *ctx, const kh_rv64_early *e, const kh_rv64_late *l)
{
    kh_rv64_flat *f = ctx;
    if (!f->bare && (f->armed || f->mmu.sweeping || f->ifp.ok)) {
        rv6_mmu_in mi = mmu_in(f, e, e->dmem_req ? l->daddr : e->pc, l->sfence);
        kh_rv6_mmu_edge(&f->mmu, &mi);
        kh_rv6_ifetch_edge(&f->ifp, e->pc, e->satp, e->priv, e->settle, e->dmem_req, l->sfence, &f->mo);
    }
    f->dstarted = e->dmem_req && f->dstall;
    if (!l->wstrb || f->dstall || (f->armed && f->mo.fault && !f->mo.fault_fetch)) return;
    uint64_t pa = data_pa(f, l->daddr);
    if (pa == KH_RV64_FLAT_CONSOLE) {
        if (f->out) fputc((int)(l->wdata & 0xFF), f->out);
        return;
    }
    if (pa == KH_RV64_FLAT_EXIT) {
        f->done = 1;
        f->end = KH_RV64_END_EXIT;
        f->code = lanes(l->wdata, l->wstrb);
        return;
    }
    wr64(f, pa, l->wdata, l->wstrb);
    if (f->have_tohost && pa == (f->tohost & ~UINT64_C(7))) htif(f);
}

kh_rv64_flat *kh_rv64_flat_new(const kh_rv64_elf *elf, unsigned fetch_lat, unsigned flags, FILE *out, char *err,
                               size_t errlen)
{
    kh_rv64_flat *f = calloc(1, sizeof *f);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    kh_pages_init(&f->mem);
    kh_rv6_mmu_reset(&f->mmu);
    kh_rv6_ifetch_reset(&f->ifp);
    f->out = out;
    f->bare = (flags & KH_RV64_FLAT_BARE) != 0;
    f->have_tohost = elf->have_tohost;
    f->tohost = elf->tohost & ~UINT64_C(7);
    f->have_fromhost = elf->have_fromhost;
    f->fromhost = elf->fromhost & ~UINT64_C(7);
    for (unsigned i = 0; i < elf->nseg; i++) {
        const kh_rv64_seg *s = &elf->seg[i];
        int rc = kh_pages_write(&f->mem, s->vaddr, s->bytes, (size_t)s->filesz);
        for (uint64_t z = s->filesz; rc == 0 && z < s->memsz; z++) {
            uint8_t zero = 0;
            rc = kh_pages_write(&f->mem, s->vaddr + z, &zero, 1);
        }
        if (rc) {
            snprintf(err, errlen, "out of memory loading the segment at 0x%llx", (unsigned long long)s->vaddr);
            kh_rv64_flat_free(f);
            return NULL;
        }
    }
    kh_rv64_bus bus = {.ctx = f, .comb = flat_comb, .fetch = flat_fetch, .read = flat_read, .edge = flat_edge};
    kh_rv64_config cfg = {.fetch_lat = fetch_lat, .reset_pc = elf->entry};
    f->core = kh_rv64_new(&cfg, &bus);
    if (!f->core) {
        snprintf(err, errlen, "out of memory");
        kh_rv64_flat_free(f);
        return NULL;
    }
    return f;
}

void kh_rv64_flat_free(kh_rv64_flat *f)
{
    if (!f) return;
    kh_rv64_free(f->core);
    kh_pages_free(&f->mem);
    free(f);
}

kh_rv64 *kh_rv64_flat_core(kh_rv64_flat *f) { return f->core; }

void kh_rv64_flat_run(kh_rv64_flat *f, uint64_t max_cycles, kh_rv64_result *res)
{
    kh_rv64 *c = f->core;
    uint64_t cycles = 0, instret = 0;
    memset(res, 0, sizeof *res);
    res->end = KH_RV64_END_LIMIT;
    while (cycles < max_cycles && !f->done && !c->halted) {
        instret += (uint64_t)c->retire_q; /* the pulse as the harness samples it, before the edge */
        kh_rv64_cycle(c);
        cycles++;
    }
    res->cycles = cycles;
    res->instret = instret;
    if (f->done) {
        res->end = f->end;
        res->code = f->code;
    } else if (c->halted) {
        res->end = KH_RV64_END_HALT;
        res->code = c->x[10];
        res->halt_cause = c->halt_cause;
        res->halt_pc = c->halt_pc;
    }
}
