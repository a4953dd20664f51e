/* The node complex on a bench (docs/rv64.md §7): the host window loads the
 * instruction window (addresses below 0x8000) and the scratchpad
 * (0x1_0000-0x1_7FFF) one access a cycle; node memory (0x1000_0000 and up)
 * is behind a node-port slave that takes one read and one write at a time
 * and answers each `latency` cycles after it saw it; the core boots through
 * HR_BOOT at PC 0 (a three-instruction stub there jumps to an entry
 * elsewhere). The run ends at the exit store, at riscv-tests' tohost (the
 * store is snooped where it commits; a syscall block is served into node
 * memory and any L1 line holding it), or when the core halts. Cycles count
 * from the edge that releases the core's reset. The same conventions as the
 * Verilator bench the comparison uses, so the counts compare directly. */
#include <stdlib.h>
#include <string.h>

#include "rv64/sys_int.h"
#include "util/pages.h"

typedef struct bench {
    kh_pages node;          /* node memory behind the port */
    kh_pages shadow;        /* the architectural view (stores at commit) */
    rv6_sys *s;
    unsigned lat;
    int r_wait, w_wait, got_aw, got_w;
    uint64_t r_addr, w_addr, wdata[4];
    uint32_t wstrb;
    FILE *out;
    uint64_t reads, writes;
    /* the image as the host window will write it */
    uint32_t iw[R6_IMEM_WORDS];
    uint8_t iwv[R6_IMEM_WORDS];
    uint64_t sw[R6_SPAD_WORDS];
    uint8_t swv[R6_SPAD_WORDS];
} bench;

static uint64_t rd(const kh_pages *p, uint64_t a)
{
    uint8_t b[8];
    kh_pages_read(p, a & ~UINT64_C(7), b, 8);
    uint64_t v = 0;
    for (unsigned i = 8; i-- > 0;) v = v << 8 | b[i];
    return v;
}

static void merge(kh_pages *p, uint64_t a, uint64_t v, uint8_t be)
{
    for (unsigned i = 0; i < 8; i++)
        if (be >> i & 1) {
            uint8_t b = (uint8_t)(v >> (8 * i));
            kh_pages_write(p, (a & ~UINT64_C(7)) + i, &b, 1);
        }
}

/* the node-port slave, once a cycle from the master's registered outputs */
static void bench_axi(void *ctx, const rv6_axi_out *o, rv6_axi_in *in)
{
    bench *b = ctx;
    in->arready = b->r_wait < 0;
    if (o->arvalid && b->r_wait < 0) {
        b->r_addr = o->araddr;
        b->r_wait = (int)b->lat;
        b->reads++;
    }
    if (b->r_wait == 0) {
        for (unsigned l = 0; l < 4; l++) in->rdata[l] = rd(&b->node, b->r_addr + 8 * l);
        in->rvalid = 1;
        b->r_wait = -1;
    } else if (b->r_wait > 0) {
        b->r_wait--;
    }
    in->awready = in->wready = b->w_wait < 0;
    if (o->awvalid && b->w_wait < 0 && !b->got_aw) {
        b->w_addr = o->awaddr;
        b->got_aw = 1;
    }
    if (o->wvalid && b->w_wait < 0 && !b->got_w) {
        memcpy(b->wdata, o->wdata, sizeof b->wdata);
        b->wstrb = o->wstrb;
        b->got_w = 1;
    }
    if (b->got_aw && b->got_w && b->w_wait < 0) {
        b->w_wait = (int)b->lat;
        b->writes++;
    }
    if (b->w_wait == 0) {
        for (unsigned l = 0; l < 4; l++) merge(&b->node, b->w_addr + 8 * l, b->wdata[l], (uint8_t)(b->wstrb >> (8 * l)));
        in->bvalid = 1;
        b->w_wait = -1;
        b->got_aw = b->got_w = 0;
    } else if (b->w_wait > 0) {
        b->w_wait--;
    }
}

static void bench_console(void *ctx, uint8_t byte)
{
    bench *b = ctx;
    if (b->out) fputc(byte, b->out);
}

/* the bench's network takes every flit the mailbox offers, and sends none */
static int bench_tx(void *ctx, const kh_flit *f)
{
    (void)ctx;
    (void)f;
    return 1;
}

static void poke(bench *b, uint64_t a, uint64_t v)
{
    merge(&b->node, a, v, 0xFF);
    merge(&b->shadow, a, v, 0xFF);
    kh_rv6_sys_l1_poke(b->s, a & ((UINT64_C(1) << 40) - 1), v);
}

/* tohost written: 1 ends the run (code in *code) */
static int htif(bench *b, uint64_t tohost, uint64_t fromhost, int have_fromhost, uint64_t *code)
{
    uint64_t v = rd(&b->shadow, tohost);
    if (v & 1) {
        *code = v >> 1;
        return 1;
    }
    if (!v) return 0;
    uint64_t which = rd(&b->shadow, v), a0 = rd(&b->shadow, v + 8), a1 = rd(&b->shadow, v + 16),
             a2 = rd(&b->shadow, v + 24), ret = (uint64_t)-38;
    if (which == 64 && (a0 == 1 || a0 == 2)) {
        for (uint64_t k = 0; k < a2 && k < (UINT64_C(1) << 24); k++) {
            uint8_t c = (uint8_t)(rd(&b->shadow, a1 + k) >> (8 * ((a1 + k) & 7)));
            if (b->out) fputc(c, b->out);
        }
        ret = a2;
    } else if (which == 93) {
        *code = a0;
        return 1;
    }
    poke(b, v, ret);
    poke(b, tohost, 0);
    if (have_fromhost) poke(b, fromhost, 1);
    return 0;
}

static void tick(bench *b) { kh_rv6_sys_cycle(b->s); }

static void trace_line(void *ctx, uint64_t cycle, uint64_t pc, uint32_t word, int trapped)
{
    if (!trapped) fprintf(ctx, "%llu %016llx %08x\n", (unsigned long long)cycle, (unsigned long long)pc, word);
}

int kh_rv64_sysbench_run(const kh_rv64_elf *elf, unsigned latency, uint64_t max_cycles, FILE *out, FILE *trace,
                         kh_rv64_result *res, char *err, size_t errlen)
{
    bench *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    kh_pages_init(&b->node);
    kh_pages_init(&b->shadow);
    b->lat = latency;
    b->r_wait = b->w_wait = -1;
    b->out = out;
    rv6_sys_env env = {.ctx = b, .axi = bench_axi, .console = bench_console, .tx = bench_tx};
    b->s = kh_rv6_sys_new(&env, 2, 0, 0);
    int rc = -1;
    if (!b->s) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    if (trace) kh_rv64_set_trace(kh_rv6_sys_core(b->s), trace_line, trace);
    for (int i = 0; i < 8; i++) tick(b);
    /* the image: window words and scratchpad words through the host window */
    uint32_t *iw = b->iw;
    uint64_t *sw = b->sw;
    uint8_t *iwv = b->iwv, *swv = b->swv;
    for (unsigned i = 0; i < elf->nseg; i++) {
        const kh_rv64_seg *sg = &elf->seg[i];
        for (uint64_t k = 0; k < sg->memsz; k++) {
            uint64_t a = sg->vaddr + k;
            uint8_t byte = k < sg->filesz ? sg->bytes[k] : 0;
            if (a < 0x8000) {
                iw[a >> 2] |= (uint32_t)byte << (8 * (a & 3));
                iwv[a >> 2] = 1;
            } else if (a >= 0x10000 && a < 0x18000) {
                sw[(a - 0x10000) >> 3] |= (uint64_t)byte << (8 * (a & 7));
                swv[(a - 0x10000) >> 3] = 1;
            } else if (a >= UINT64_C(0x10000000)) {
                kh_pages_write(&b->node, a, &byte, 1);
            } else {
                snprintf(err, errlen, "the byte at 0x%llx is in no region the node loads", (unsigned long long)a);
                goto done;
            }
            if (a >= 0x10000) kh_pages_write(&b->shadow, a, &byte, 1);
        }
    }
    if (elf->entry && !iwv[0]) { /* a stub at 0 jumps to the entry */
        uint64_t e = elf->entry;
        if (e == UINT64_C(0x80000000)) {
            iw[0] = 0x00100293u; /* addi t0, x0, 1 */
            iw[1] = 0x01f29293u; /* slli t0, t0, 31 */
        } else if (e < UINT64_C(0x80000000)) {
            iw[0] = (uint32_t)(((e + 0x800) >> 12) & 0xFFFFF) << 12 | 0x2b7u; /* lui t0 */
            iw[1] = (uint32_t)(e & 0xFFF) << 20 | 0x28293u;                   /* addi t0, t0 */
        } else {
            snprintf(err, errlen, "entry 0x%llx is out of the stub's reach", (unsigned long long)e);
            goto done;
        }
        iw[2] = 0x00028067u; /* jalr x0, 0(t0) */
        iwv[0] = iwv[1] = iwv[2] = 1;
    }
    for (unsigned i = 0; i < R6_IMEM_WORDS; i++)
        if (iwv[i]) {
            kh_rv6_sys_host_write(b->s, 4 * i, iw[i], 0xFF);
            tick(b);
        }
    for (unsigned i = 0; i < R6_SPAD_WORDS; i++)
        if (swv[i]) {
            kh_rv6_sys_host_write(b->s, 0x10000000u | (8 * i), sw[i], 0xFF);
            tick(b);
        }
    kh_rv6_sys_host_write(b->s, 0x20000000u, 1, 0xFF); /* HR_BOOT */
    tick(b);
    rv6_sys_view v;
    for (kh_rv6_sys_view(b->s, &v); !v.core_rstn; kh_rv6_sys_view(b->s, &v)) tick(b);
    memset(res, 0, sizeof *res);
    res->end = KH_RV64_END_LIMIT;
    uint64_t cycles = 0, instret = 0, tohost = elf->tohost & ~UINT64_C(7), fromhost = elf->fromhost & ~UINT64_C(7);
    while (cycles < max_cycles) {
        tick(b);
        cycles++;
        kh_rv6_sys_view(b->s, &v);
        instret += (uint64_t)v.retire;
        if (v.commit) {
            uint64_t a = v.commit_pa & ~UINT64_C(7);
            if (a >= UINT64_C(0x10000000) || (a >= 0x10000 && a < 0x18000)) merge(&b->shadow, a, v.commit_wd, v.commit_be);
            if (elf->have_tohost && a == tohost && htif(b, tohost, fromhost, elf->have_fromhost, &res->code)) {
                res->end = KH_RV64_END_TOHOST;
                break;
            }
        }
        if (v.exited) {
            res->end = KH_RV64_END_EXIT;
            res->code = v.exit_word;
            break;
        }
        if (v.halted) {
            kh_rv64_status st;
            kh_rv64_status_get(kh_rv6_sys_core(b->s), &st);
            res->end = KH_RV64_END_HALT;
            res->code = kh_rv64_reg(kh_rv6_sys_core(b->s), 10);
            res->halt_cause = st.halt_cause;
            res->halt_pc = st.halt_pc;
            break;
        }
    }
    res->cycles = cycles;
    res->instret = instret;
    rc = 0;
done:
    kh_rv6_sys_free(b->s);
    kh_pages_free(&b->node);
    kh_pages_free(&b->shadow);
    free(b);
    return rc;
}
