/* The RV64 core as a mesh compute unit (upstream's rv64_sys_pe, revision
 * e9de8c0; docs/rv64.md §11): map token `r64`. The image arrives as
 * CU_DATA (granules spooled one word a cycle, or single words), a CU_INST
 * with opcode 1 boots the core at PC 0 once the receive path is quiet, and
 * the run ends when the core halts: the completion carries the 32-bit word
 * of the last exit store, with the fault flag for a halt by EBREAK or a
 * trap with no handler. Harvard and local: fetch reads the 16 KB
 * instruction memory, loads and stores reach the 16 KB scratchpad at
 * 0x1_0000 and the control region at 0x2_0000, nothing else. Memory never
 * stalls, so the core's timing is the bare core's (the flat harness's). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu/units/units.h"
#include "kohaku/ckpt.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/rv64.h"
#include "rv64/rv64_int.h"

#define PE_IMEM_WORDS 4096 /* 32-bit */
#define PE_SPAD_WORDS 2048 /* 64-bit */
#define PE_SPAD_BASE UINT64_C(0x10000)
#define PE_CTRL_BASE UINT64_C(0x20000)
#define PE_CTRL_BYTES 256
#define PE_R_EXIT 0x00
#define PE_R_CONSOLE 0x08
#define PE_R_DBELL 0x10
#define PE_CON 120 /* console bytes gathered into one log line */

enum { K_IDLE, K_START, K_RUN, K_DONE };

typedef struct rv6_pe {
    kh_cu *cu;
    kh_rv64 *core;
    uint32_t imem[PE_IMEM_WORDS];
    uint64_t spad[PE_SPAD_WORDS];
    /* the kick machine */
    int kst;
    unsigned k_op;
    int boot_v, core_rstn;
    kh_cycle kick_at;
    int done_pending, done_fault;
    kh_cycle done_at;
    uint32_t done_word;
    /* the control region */
    int exit_hit, dbell;
    uint32_t exit_word;
    uint32_t cyc, ret;            /* CU_DBG */
    /* the CU_DATA loader */
    int burst_open, burst_drop;
    unsigned b_buf, b_off, b_left, b_sx, b_sy;
    kh_cycle loader_busy_until;
    char con[PE_CON + 1];
    unsigned con_n;
    uint64_t runs, bursts_rejected, flits_dropped;
} rv6_pe;

static int in_spad(uint64_t a) { return a >= PE_SPAD_BASE && a < PE_SPAD_BASE + 8 * PE_SPAD_WORDS; }
static int in_ctrl(uint64_t a) { return a >= PE_CTRL_BASE && a < PE_CTRL_BASE + PE_CTRL_BYTES; }

/* ---- the core's bus ---- */

static void pe_comb(void *ctx, const kh_rv64_early *e, kh_rv64_in *in)
{
    rv6_pe *u = ctx;
    (void)e;
    memset(in, 0, sizeof *in); /* nothing stalls, translates or faults */
    in->irq_soft = u->dbell;
    in->ext_halt = u->exit_hit;
}

static uint32_t pe_fetch(void *ctx, uint64_t pc, int *fault)
{
    rv6_pe *u = ctx;
    *fault = 0;
    return u->imem[(pc >> 2) & (PE_IMEM_WORDS - 1)];
}

static uint64_t pe_read(void *ctx, uint64_t addr)
{
    rv6_pe *u = ctx;
    if (in_ctrl(addr)) return (uint64_t)u->dbell; /* every control load reads the doorbell */
    return u->spad[(addr >> 3) & (PE_SPAD_WORDS - 1)];
}

static void console(rv6_pe *u, uint8_t c)
{
    if (c != '\n') u->con[u->con_n++] = (char)c;
    if (c == '\n' || u->con_n == PE_CON) {
        u->con[u->con_n] = 0;
        kh_cu_log(u->cu, KH_LOG_INFO, "console: %s", u->con);
        u->con_n = 0;
    }
}

static void pe_edge(void *ctx, const kh_rv64_early *e, const kh_rv64_late *l)
{
    rv6_pe *u = ctx;
    (void)e;
    if (!l->wstrb) return;
    if (in_spad(l->daddr)) {
        uint64_t *w = &u->spad[(l->daddr >> 3) & (PE_SPAD_WORDS - 1)];
        for (unsigned i = 0; i < 8; i++)
            if (l->wstrb >> i & 1) *w = (*w & ~(UINT64_C(0xFF) << (8 * i))) | (l->wdata & (UINT64_C(0xFF) << (8 * i)));
    } else if (in_ctrl(l->daddr)) {
        switch (l->daddr & 0xFF) {
        case PE_R_EXIT:
            u->exit_hit = 1;
            u->exit_word = (uint32_t)l->wdata;
            break;
        case PE_R_CONSOLE: console(u, (uint8_t)l->wdata); break;
        case PE_R_DBELL: u->dbell = (int)(l->wdata & 1); break;
        default: break;
        }
    } /* anything else is dropped */
}

/* ---- the CU_DATA loader ---- */

static void loader(rv6_pe *u, const kh_flit *f, kh_cycle now)
{
    unsigned sx = (unsigned)kh_hdr_src_x(f->w), sy = (unsigned)kh_hdr_src_y(f->w);
    if (!u->burst_open) {
        unsigned buf = (unsigned)kh_cu_data_buf_id(f->w), off = (unsigned)kh_cu_data_offset(f->w);
        unsigned len = (unsigned)kh_cu_data_len(f->w);
        int imem = buf == 1 || buf == 5, known = buf == 0 || buf == 1 || buf == 4 || buf == 5;
        /* bounds in granules for every form (rv64_sys_pe compares off + len) */
        int fits = off + len < (imem ? PE_IMEM_WORDS / 8 : PE_SPAD_WORDS / 4);
        u->b_buf = buf;
        u->b_off = off;
        u->b_left = len + 1;
        u->b_sx = sx;
        u->b_sy = sy;
        u->burst_open = 1;
        u->burst_drop = !(known && fits);
        if (u->burst_drop) {
            u->bursts_rejected++;
            kh_cu_log(u->cu, KH_LOG_WARN,
                      "CU_DATA burst from (%u,%u) buf_id %u offset %u len %u dropped: %s (docs/rv64.md §11)", sx, sy,
                      buf, off, len, known ? "offset + len reaches past the memory" : "buf_id must be 0, 1, 4 or 5");
        }
        return;
    }
    if (sx != u->b_sx || sy != u->b_sy) {
        u->flits_dropped++; /* taken, not counted */
        return;
    }
    unsigned off = u->b_off++;
    if (!u->burst_drop) {
        if (u->b_buf == 0 || u->b_buf == 1) {
            uint64_t d[4];
            kh_cu_data_data_data_get(f->w, d);
            if (u->b_buf == 1)
                for (unsigned i = 0; i < 8; i++)
                    u->imem[(8 * off + i) & (PE_IMEM_WORDS - 1)] = (uint32_t)(d[i / 2] >> (32 * (i % 2)));
            else
                for (unsigned i = 0; i < 4; i++) u->spad[(4 * off + i) & (PE_SPAD_WORDS - 1)] = d[i];
            u->loader_busy_until = now + 8; /* spooled one word a cycle; the receive path waits */
        } else {
            uint64_t v = kh_rv64_pe_word_data(f->w);
            if (u->b_buf == 5)
                u->imem[off & (PE_IMEM_WORDS - 1)] = (uint32_t)v;
            else
                u->spad[off & (PE_SPAD_WORDS - 1)] = v;
        }
    }
    if (--u->b_left == 0) u->burst_open = 0;
}

static int unit_recv(void *p, const kh_flit *f, kh_cycle now)
{
    rv6_pe *u = p;
    if (now < u->loader_busy_until) return 0;
    if (kh_hdr_type(f->w) == KH_T_CU_DATA)
        loader(u, f, now);
    else
        u->flits_dropped++; /* anything else is consumed and dropped */
    if (u->loader_busy_until > now) kh_cu_wake(u->cu, u->loader_busy_until);
    return 1;
}

/* ---- the kick machine ---- */

static int unit_inst(void *p, const kh_flit *f, kh_cycle now)
{
    rv6_pe *u = p;
    /* the kick waits for the receive path to be quiet: it never overtakes its image */
    if (u->kst != K_IDLE || u->burst_open || now < u->loader_busy_until || !kh_cu_recv_empty(u->cu, now)) return 0;
    u->k_op = (unsigned)kh_rv64_pe_kick_op(f->w);
    u->kst = K_START;
    u->kick_at = now;
    kh_cu_wake(u->cu, now + 1);
    return 1;
}

static void unit_step(void *p, kh_cycle now)
{
    rv6_pe *u = p;
    if (u->done_pending && u->done_at <= now) { /* exec_done is high in this cycle */
        u->done_pending = 0;
        kh_cu_done(u->cu, u->done_fault, u->done_word, now);
    }
    /* the registers as they stand at the cycle's start (a kick accepted in
     * this very cycle moves the machine from the next one) */
    const int kst = u->kst == K_START && now <= u->kick_at ? K_IDLE : u->kst;
    const int boot_v = u->boot_v, rstn = u->core_rstn, halted = rstn && u->core->halted;
    u->boot_v = 0;
    if (rstn) {
        if (u->core->retire_q) u->ret++;
        kh_rv64_cycle(u->core);
        u->cyc++;
    }
    switch (kst) {
    case K_START:
        if (u->k_op == 1) {
            u->boot_v = 1;
            u->kst = K_RUN;
        } else {
            u->kst = K_DONE;
        }
        break;
    case K_RUN:
        if (halted) u->kst = K_DONE;
        break;
    case K_DONE: {
        kh_rv64_status st;
        kh_rv64_status_get(u->core, &st);
        u->done_pending = 1;
        u->done_at = now + 1;
        u->done_word = u->exit_word;
        u->done_fault = halted && (st.halt_cause == 2 || st.halt_cause == 3);
        u->kst = K_IDLE;
        u->core_rstn = 0;
        break;
    }
    default: break;
    }
    if (boot_v) { /* the core leaves reset at this edge; the counters and the exit latch clear */
        kh_rv64_reset(u->core, 0);
        u->core_rstn = 1;
        u->cyc = u->ret = 0;
        u->exit_hit = 0;
        u->runs++;
    }
    if (u->kst != K_IDLE || u->core_rstn || u->boot_v) kh_cu_wake(u->cu, now + 1);
    if (u->done_pending) kh_cu_wake(u->cu, u->done_at);
}

static uint64_t unit_dbg(void *p)
{
    rv6_pe *u = p;
    return (uint64_t)u->ret << 32 | u->cyc; /* CU_DBG {retired, cycles} */
}

static int unit_stuck(void *p, char *buf, size_t len)
{
    rv6_pe *u = p;
    if (u->kst == K_RUN) {
        kh_rv64_status st;
        kh_rv64_status_get(u->core, &st);
        snprintf(buf, len, "RV64 core running at pc 0x%llx (%u instructions retired since the kick)",
                 (unsigned long long)st.pc_e, u->ret);
        return 1;
    }
    if (u->burst_open) {
        snprintf(buf, len, "CU_DATA burst from (%u,%u) open, %u data flits to come; a kick waits for it", u->b_sx,
                 u->b_sy, u->b_left);
        return 1;
    }
    return 0;
}

static void unit_stats(void *p, char *buf, size_t len)
{
    rv6_pe *u = p;
    snprintf(buf, len, "\"rv64_runs\": %llu, \"rv64_bursts_rejected\": %llu, \"rv64_flits_dropped\": %llu",
             (unsigned long long)u->runs, (unsigned long long)u->bursts_rejected,
             (unsigned long long)u->flits_dropped);
}

/* Checkpoints (docs/checkpoint.md): the memories, the kick machine, the
 * control region's latches, the loader, the console line being gathered,
 * the counters and the core (ckpt.c). */
static void unit_ckpt(void *p, kh_ck *ck)
{
    rv6_pe *u = p;
    KH_CK_ARR(ck, u->imem, PE_IMEM_WORDS);
    KH_CK_ARR(ck, u->spad, PE_SPAD_WORDS);
    KH_CK(ck, u->kst);
    KH_CK(ck, u->k_op);
    KH_CK(ck, u->boot_v);
    KH_CK(ck, u->core_rstn);
    KH_CK(ck, u->kick_at);
    KH_CK(ck, u->done_pending);
    KH_CK(ck, u->done_fault);
    KH_CK(ck, u->done_at);
    KH_CK(ck, u->done_word);
    KH_CK(ck, u->exit_hit);
    KH_CK(ck, u->dbell);
    KH_CK(ck, u->exit_word);
    KH_CK(ck, u->cyc);
    KH_CK(ck, u->ret);
    KH_CK(ck, u->burst_open);
    KH_CK(ck, u->burst_drop);
    KH_CK(ck, u->b_buf);
    KH_CK(ck, u->b_off);
    KH_CK(ck, u->b_left);
    KH_CK(ck, u->b_sx);
    KH_CK(ck, u->b_sy);
    KH_CK(ck, u->loader_busy_until);
    /* the console line gathered so far (a full one is logged at once) */
    unsigned n = (unsigned)kh_ck_count(ck, u->con_n, PE_CON - 1, "rv64_sys_pe's console bytes");
    if (kh_ck_loading(ck)) u->con_n = n;
    kh_ck_bytes(ck, u->con, n);
    KH_CK(ck, u->runs);
    KH_CK(ck, u->bursts_rejected);
    KH_CK(ck, u->flits_dropped);
    kh_rv6_ckpt(u->core, ck);
    kh_ck_below(ck, (unsigned)u->kst, K_DONE + 1, "rv64_sys_pe's kick state");
}

static void *unit_create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    (void)p;
    rv6_pe *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "out of memory building rv64_sys_pe");
        return NULL;
    }
    u->cu = shell;
    kh_rv64_bus bus = {.ctx = u, .comb = pe_comb, .fetch = pe_fetch, .read = pe_read, .edge = pe_edge};
    kh_rv64_config cfg = {.fetch_lat = 2, .reset_pc = 0};
    u->core = kh_rv64_new(&cfg, &bus);
    if (!u->core) {
        free(u);
        snprintf(err, errlen, "out of memory building rv64_sys_pe");
        return NULL;
    }
    return u;
}

static void unit_destroy(void *p)
{
    rv6_pe *u = p;
    kh_rv64_free(u->core);
    free(u);
}

static const char *unit_inst_name(const kh_flit *f) { return kh_rv64_pe_kick_op(f->w) == 1 ? "BOOT" : "op"; }

/* docs/rv64.md §11: fixed by the wrapper, not the generated-mesh depths */
const kh_unit_kind kh_unit_rv64_sys_pe = {
    .token = "r64",
    .name = "rv64_sys_pe",
    .cu_type = 0x5236,
    .cu_version = 0x01,
    .n_buffers = 4,
    .inst_depth = 16,
    .recv_depth = 32,
    .create = unit_create,
    .destroy = unit_destroy,
    .inst = unit_inst,
    .recv = unit_recv,
    .step = unit_step,
    .dbg = unit_dbg,
    .describe_stuck = unit_stuck,
    .stats_json = unit_stats,
    .inst_name = unit_inst_name,
    .ckpt = unit_ckpt,
};
