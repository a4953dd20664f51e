/* The processor as a compute unit at (0,0) (cpu.md §1, §7, §8): its shell
 * parameters, the kick machine, the CU_DATA loader, the completion queue,
 * the flit requester's sends, retirement, and the hub client through which
 * it meets the node's memory ports. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/gen/rv32.h"
#include "sysnode/cpu/rv32_int.h"

void kh_rv_wake(kh_rv32 *r, kh_cycle at) { kh_cu_wake(r->cu, at); }

void kh_rv_log(kh_rv32 *r, kh_log_level lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kh_cu_vlog(r->cu, lvl, fmt, ap);
    va_end(ap);
}

/* ---- the CU_DATA loader (§8.1) and the completion queue (§4.3) ---- */

static void loader_data(kh_rv32 *r, const kh_flit *f, kh_cycle now)
{
    unsigned base = 8 * (r->b_off + r->b_j);
    if (r->b_buf == 0 || r->b_buf == 1) {
        uint32_t *mem = r->b_buf ? r->imem : r->spad;
        uint64_t d[4];
        kh_cu_data_data_data_get(f->w, d);
        for (unsigned i = 0; i < 8; i++) mem[base + i] = (uint32_t)(d[i / 2] >> (32 * (i % 2)));
        r->loader_busy_until = now + 8; /* one word per cycle; the receive path waits */
    } else {
        unsigned s = (unsigned)kh_rv32_word_data_ws(f->w), be = (unsigned)kh_rv32_word_data_be(f->w);
        uint32_t v = (uint32_t)kh_rv32_word_data_data(f->w);
        if (r->b_buf == 5) {
            r->imem[base + s] = v; /* byte enables ignored */
        } else {
            uint32_t *w = &r->spad[base + s];
            for (unsigned i = 0; i < 4; i++)
                if (be >> i & 1) *w = (*w & ~(0xFFu << (8 * i))) | (v & (0xFFu << (8 * i)));
        }
    }
    if ((r->b_buf == 0 || r->b_buf == 4) && kh_rv_exec_reading(r) && !r->collide_logged) {
        r->collide_logged = 1; /* Open point 13: reported, not emulated */
        kh_rv_log(r, KH_LOG_ERROR,
                  "CU_DATA from (%u,%u) writes the scratchpad while the descriptor executor reads it "
                  "through the same port A: on the RTL the write lands at the executor's address "
                  "(cpu.md §6.2, Open point 13)", r->b_sx, r->b_sy);
    }
}

static void loader(kh_rv32 *r, const kh_flit *f, kh_cycle now)
{
    unsigned sx = (unsigned)kh_hdr_src_x(f->w), sy = (unsigned)kh_hdr_src_y(f->w);
    if (!r->burst_open) {
        r->b_sx = sx;
        r->b_sy = sy;
        r->b_buf = (unsigned)kh_cu_data_buf_id(f->w);
        r->b_off = (unsigned)kh_cu_data_offset(f->w);
        r->b_len = (unsigned)kh_cu_data_len(f->w);
        r->b_j = 0;
        r->burst_open = 1;
        int buf_ok = r->b_buf == 0 || r->b_buf == 1 || r->b_buf == 4 || r->b_buf == 5;
        r->burst_reject = !buf_ok || r->b_off + r->b_len >= 256; /* granules of the 2048-word window */
        if (r->burst_reject) {
            r->bursts_rejected++;
            kh_rv_log(r, KH_LOG_WARN,
                      "CU_DATA burst from (%u,%u) buf_id %u offset %u len %u rejected: %s; its data flits "
                      "are consumed and dropped, no signal (cpu.md §8.1, Open point 12)",
                      sx, sy, r->b_buf, r->b_off, r->b_len,
                      buf_ok ? "offset + len must be below 256 granules" : "buf_id must be 0, 1, 4 or 5");
        }
        return;
    }
    if (sx != r->b_sx || sy != r->b_sy) {
        r->flits_discarded++; /* not a new descriptor (§8.1) */
        kh_rv_log(r, KH_LOG_WARN,
                  "CU_DATA from (%u,%u) while a burst from (%u,%u) is open: discarded (cpu.md §8.1)", sx, sy,
                  r->b_sx, r->b_sy);
        return;
    }
    if (!r->burst_reject) loader_data(r, f, now);
    if (r->b_j++ == r->b_len) r->burst_open = 0;
}

static void completion(kh_rv32 *r, const kh_flit *f)
{
    if (r->sig_n == RV_SIGQ) {
        if (!r->sig_ovf)
            kh_rv_log(r, KH_LOG_WARN,
                      "completion from (%u,%u) dropped: the completion queue holds 8; overflow set until reset "
                      "(cpu.md §4.3)", (unsigned)kh_hdr_src_x(f->w), (unsigned)kh_hdr_src_y(f->w));
        r->sig_ovf = 1;
        return;
    }
    rv_sig *s = &r->sigq[(r->sig_head + r->sig_n++) % RV_SIGQ];
    s->code = (uint8_t)kh_cu_signal_code(f->w);
    s->arg = (uint32_t)kh_cu_signal_arg(f->w);
    s->txn = (uint8_t)kh_hdr_txn(f->w);
}

static int unit_recv(void *u, const kh_flit *f, kh_cycle now)
{
    kh_rv32 *r = u;
    if (now < r->loader_busy_until) return 0; /* a granule is being written */
    switch (kh_hdr_type(f->w)) {
    case KH_T_CU_DATA: loader(r, f, now); break;
    case KH_T_CU_SIGNAL: completion(r, f); break;
    default: break; /* MEM_RD_RESP, MEM_WR_ACK, anything else: consumed and dropped (§7.2) */
    }
    if (r->loader_busy_until > now) kh_rv_wake(r, r->loader_busy_until);
    return 1;
}

/* ---- the kick machine (§7.3, §9.4) ---- */

static int unit_inst(void *u, const kh_flit *f, kh_cycle now)
{
    kh_rv32 *r = u;
    /* a kick never overtakes the image staged ahead of it */
    if (r->burst_open || now < r->loader_busy_until || !kh_cu_recv_empty(r->cu, now)) return 0;
    unsigned op = (unsigned)kh_rv32_kick_op(f->w);
    r->in_flight = 1;
    r->kick_at = now;
    r->kick_last = (int)kh_hdr_last(f->w);
    if (op != 1) {
        r->retire_at = now + 3; /* reports the last halt, stale */
        kh_rv_wake(r, r->retire_at);
        return 1;
    }
    if (r->kick_last)
        kh_rv_log(r, KH_LOG_WARN,
                  "kick txn 0x%02x with last = 1: its completion is BATCH_COMPLETE carrying the txn, and a0 is "
                  "lost; kick with last = 0 to read a0 (cpu.md §7.3, Open point 9)", (unsigned)kh_hdr_txn(f->w));
    kh_rv_kick(r, (uint32_t)kh_rv32_kick_pc(f->w), (uint32_t)kh_rv32_kick_arg(f->w), now + 2);
    return 1;
}

/* §7.3: halted, pipeline empty, flit requester idle, L1 adapter idle, no
 * write-back unacknowledged. */
static int drained(const kh_rv32 *r, kh_cycle now)
{
    return r->halted && now >= r->drain_from && r->outn == 0 && r->wait == RW_NONE && r->wrout == 0;
}

static void unit_step(void *u, kh_cycle now)
{
    kh_rv32 *r = u;
    if (r->wrout) kh_rv_l1_acks(r, now);
    kh_rv_exec_step(r, now);
    if (r->wait != RW_NONE && now > r->wait_e) {
        kh_cycle c = kh_rv_wait_step(r, now);
        if (c != KH_NEVER) {
            r->stall_mem += c - (r->wait_e + 1);
            r->wait = RW_NONE;
            r->t_ex = r->wait_next > c ? r->wait_next : c;
            kh_rv_wake(r, r->t_ex);
        }
    }
    kh_rv_core_step(r, now);
    if (r->outn && r->outq_at[0] <= now && kh_cu_send(r->cu, &r->outq[0], now)) {
        memmove(r->outq, r->outq + 1, (r->outn - 1) * sizeof r->outq[0]);
        memmove(r->outq_kind, r->outq_kind + 1, r->outn - 1);
        memmove(r->outq_at, r->outq_at + 1, (r->outn - 1) * sizeof r->outq_at[0]);
        r->outn--;
    }
    if (r->in_flight && r->retire_at == KH_NEVER && drained(r, now)) {
        r->last_word = r->halt_word;
        r->last_fault = r->cause == 2 || r->cause == 3;
        r->retire_at = now + 2; /* the shell sees exec_done two cycles later */
    }
    if (r->retire_at <= now) {
        r->retire_at = KH_NEVER;
        r->in_flight = 0;
        kh_cu_done(r->cu, r->last_fault, r->last_word, now);
        if (kh_sim_trace(r->sim)) {
            char args[160];
            snprintf(args, sizeof args, "\"cause\": %u, \"word\": %u, \"cycles\": %u, \"instret\": %u", r->cause,
                     r->last_word, r->cycles, r->instret);
            kh_trace_span(kh_cu_comp(r->cu), "rv32", r->kick_at, now + 1, args);
        }
    }
    /* what moves next */
    if (r->wait != RW_NONE || r->outn || r->wrout) kh_rv_wake(r, now + 1);
    if (r->in_flight && r->halted && r->retire_at == KH_NEVER)
        kh_rv_wake(r, r->drain_from > now ? r->drain_from : now + 1);
    if (r->retire_at != KH_NEVER) kh_rv_wake(r, r->retire_at);
    kh_cycle t = kh_rv_exec_next(r, now);
    if (t != KH_NEVER) kh_rv_wake(r, t);
}

static uint64_t unit_dbg(void *u)
{
    kh_rv32 *r = u;
    uint32_t cycles = r->run ? (uint32_t)(kh_sim_now(r->sim) - r->start) : r->cycles;
    return (uint64_t)r->instret << 32 | cycles; /* CU_DBG {instret, cycles} (§7.1) */
}

static int unit_stuck(void *u, char *buf, size_t len)
{
    kh_rv32 *r = u;
    size_t used = 0;
    if (len) buf[0] = '\0';
    if (r->run) {
        static const char *const waits[] = {"", "the push register to empty", "the dispatch holding register to empty",
                                            "an L1 miss to be served on the converged path",
                                            "CTL_FLUSH: L1 write-backs to be acknowledged", "CTL_INVAL"};
        kh_node_say(buf, len, &used, "core running at pc 0x%08x (%u instructions retired since the kick)", r->pc,
                    r->instret);
        if (r->wait != RW_NONE) kh_node_say(buf, len, &used, "its MEM stage waits for %s", waits[r->wait]);
    } else if (r->in_flight && r->halted) {
        kh_node_say(buf, len, &used, "halted (cause %u) but not retired: %u write-backs unacknowledged, %u flits "
                    "to send (cpu.md §7.3)", r->cause, r->wrout, r->outn);
    }
    if (r->ex == EX_NO_GO)
        kh_node_say(buf, len, &used, "the descriptor executor is busy forever: the descriptor at scratchpad word "
                    "%u wrote no GO (cpu.md §6.2, Open point 6)", r->ex_p);
    else if (r->ex == EX_RISE || r->ex == EX_FALL)
        kh_node_say(buf, len, &used, "the descriptor executor waits for the mover's move (cpu.md §6.2)");
    if (r->mvgo_lost)
        kh_node_say(buf, len, &used, "%llu MVGO lost: issued while the executor or mover was busy (cpu.md §6.2, "
                    "Open point 5)", (unsigned long long)r->mvgo_lost);
    if (r->dirty_at_halt && r->halted)
        kh_node_say(buf, len, &used, "the last halt left dirty L1 lines: a completion without CTL_FLUSH "
                    "(cpu.md §5.2, Open point 8)");
    if (r->burst_open)
        kh_node_say(buf, len, &used, "CU_DATA burst from (%u,%u) open: %u of %u data flits arrived; a kick waits "
                    "for it (cpu.md §7.3)", r->b_sx, r->b_sy, r->b_j, r->b_len + 1);
    if (r->ctrl_replies_in)
        kh_node_say(buf, len, &used, "%llu CU_CTRL replies addressed to (0,0) reached the processor's shell, "
                    "which answers every CU_CTRL: it and the unit that replied answer each other forever "
                    "(cpu_mode cpu-exact; cpu routes replies to the agent; control.md Open point 16)",
                    (unsigned long long)r->ctrl_replies_in);
    if (r->sig_ovf)
        kh_node_say(buf, len, &used, "the completion queue overflowed: a completion was lost (cpu.md §4.3)");
    if (r->unreachable && used)
        kh_node_say(buf, len, &used, "the map has no memory port at (0,1): nothing reaches (0,0) (control.md "
                    "Open point 11)");
    return used > 0;
}

static void unit_stats(void *u, char *buf, size_t len)
{
    kh_rv32 *r = u;
    snprintf(buf, len,
             "\"rv32_retired\": %llu, \"rv32_load_stall_cycles\": %llu, \"rv32_branch_stall_cycles\": %llu, "
             "\"rv32_mem_stall_cycles\": %llu, \"rv32_mispredicts\": %llu, \"rv32_mvgo_lost\": %llu, "
             "\"rv32_bursts_rejected\": %llu",
             (unsigned long long)r->retired_total, (unsigned long long)r->stall_load,
             (unsigned long long)r->stall_branch, (unsigned long long)r->stall_mem,
             (unsigned long long)r->mispredicts, (unsigned long long)r->mvgo_lost,
             (unsigned long long)r->bursts_rejected);
}

static void *unit_create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    kh_rv32 *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory building the control processor");
        return NULL;
    }
    r->cu = shell;
    r->sim = kh_cu_sim(shell);
    r->p = p;
    r->retire_at = KH_NEVER;
    kh_rv_btb_reset(r);
    return r;
}

static void unit_destroy(void *u) { free(u); }

/* cpu.md §7.1: fixed by the wrapper, not the generated-mesh depths */
static const kh_unit_kind kh_unit_rv32 = {
    .token = NULL, /* structural: no map places it */
    .name = "rv_mag_pe",
    .cu_type = KH_RV32_CU_TYPE,
    .cu_version = 0x01,
    .n_buffers = 4, /* published; buf_ids 0, 1, 4, 5 accepted (Open point 11) */
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
    .ckpt = kh_rv32_ckpt,
};

/* ---- the hub client: the shell's output meets the node's ports ---- */

static kh_rv32 *of_hub(kh_comp *c) { return (kh_rv32 *)((char *)c - offsetof(kh_rv32, hub)); }

static int hub_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    kh_rv32 *r = of_hub(dst);
    (void)port;
    if (r->hub_valid) return 0;
    r->hub_flit = *f;
    r->hub_valid = 1;
    r->hub_fw = kh_cu_out_framework(r->cu);
    kh_node_cpu_ready(r->n, now + 1);
    return 1;
}

static const kh_flit *hub_peek(void *ctx, kh_cycle now)
{
    kh_rv32 *r = ctx;
    (void)now;
    return r->hub_valid ? &r->hub_flit : NULL;
}

static void hub_take(void *ctx, kh_cycle now)
{
    kh_rv32 *r = ctx;
    r->hub_valid = 0;
    kh_link_space(r->out, now);
}

static kh_flit_origin hub_origin(void *ctx, kh_cycle now)
{
    (void)now;
    return ((kh_rv32 *)ctx)->hub_fw ? KH_ORIGIN_CPU_SHELL : KH_ORIGIN_CPU;
}

static int cpu_accept(void *ctx, const kh_flit *f, kh_cycle now)
{
    kh_rv32 *r = ctx;
    int is_reply = kh_hdr_type(f->w) == KH_T_CU_CTRL && kh_cu_ctrl_reply_op(f->w) == KH_CU_CTRL_REPLY_OP_READ_RESP;
    if (!kh_cu_accept(kh_cu_comp(r->cu), 0, f, now)) return 0;
    if (is_reply && !r->ctrl_replies_in++)
        kh_rv_log(r, KH_LOG_WARN,
                  "CU_CTRL reply from (%u,%u) to (0,0) reached the processor's shell, which answers it: the two "
                  "will answer each other forever (cpu_mode cpu-exact; control.md Open point 16)",
                  (unsigned)kh_hdr_src_x(f->w), (unsigned)kh_hdr_src_y(f->w));
    return 1;
}

static void hub_step(kh_comp *c, kh_cycle now)
{
    (void)c;
    (void)now;
}

static int hub_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_rv32 *r = of_hub(c);
    if (!r->hub_valid) return 0;
    snprintf(buf, len, "holds a type 0x%x flit from the processor for (%u,%u) that no memory port takes",
             (unsigned)kh_hdr_type(r->hub_flit.w), (unsigned)kh_hdr_dst_x(r->hub_flit.w),
             (unsigned)kh_hdr_dst_y(r->hub_flit.w));
    return 1;
}

static void hub_ckpt(kh_comp *c, struct kh_ck *ck) { kh_rv32_hub_ckpt(of_hub(c), ck); }

static const kh_comp_ops hub_ops = {
    .kind = "rv32_hub", .step = hub_step, .describe_stuck = hub_stuck, .ckpt = hub_ckpt};

kh_rv32 *kh_rv32_attach(kh_node *n, char *err, size_t errlen)
{
    kh_cu_place pl = {.x = 0, .y = 0, .mem_x = n->cfg.port[0].x, .mem_y = n->cfg.port[0].y,
                      .mesh_id = (uint8_t)n->cfg.mesh_id};
    kh_cu *cu = kh_cu_new(n->sim, &kh_unit_rv32, &pl, err, errlen);
    if (!cu) return NULL;
    kh_rv32 *r = kh_cu_unit(cu);
    r->n = n;
    /* routing delivers (0,0) to whatever sits west of router (1,1): a warning, not a refusal */
    r->unreachable = 1;
    for (unsigned i = 0; i < n->cfg.nports; i++)
        if (n->cfg.port[i].x == 0 && n->cfg.port[i].y == 1) r->unreachable = 0;
    if (r->unreachable)
        kh_rv_log(r, KH_LOG_WARN,
                  "mesh %u has no memory port at (0,1): flits for (0,0) are routed to whatever sits west of "
                  "router (1,1), so the control processor is unreachable (control.md Open point 11, cpu.md §1)",
                  n->cfg.mesh_id);
    /* CP = PORTS + 2 + ILINK (§5.3, mag.v requester order) */
    r->rq = kh_conv_requester(n->conv, n->cfg.nports + 2 + (n->cfg.interlink ? 1 : 0), kh_cu_comp(cu), "rv32_l1");
    if (!r->rq) {
        snprintf(err, errlen, "no converged-path channel left for the control processor");
        return NULL;
    }
    kh_conv_set_lat(r->rq, 1, 0); /* the beat reaches the L1 a cycle after it arrives; AW and W together */
    kh_sim_add(n->sim, &r->hub, &hub_ops, "rv32_hub(0,0)");
    r->out = kh_link_new(n->sim, kh_cu_comp(cu), &r->hub, 0, hub_accept, "rv32(0,0)->hub");
    kh_cu_set_out(cu, r->out);
    kh_node_cpu h = {.ctx = r, .accept = cpu_accept, .peek = hub_peek, .take = hub_take, .origin = hub_origin};
    kh_node_set_cpu(n, &h);
    return r;
}

kh_cu *kh_rv32_shell(kh_rv32 *r) { return r->cu; }
const kh_link *kh_rv32_out_link(const kh_rv32 *r) { return r->out; }
uint32_t kh_rv32_spad_word(const kh_rv32 *r, unsigned i) { return r->spad[i % RV_SPAD_WORDS]; }
uint32_t kh_rv32_imem_word(const kh_rv32 *r, unsigned i) { return r->imem[i % RV_IMEM_WORDS]; }

void kh_rv32_get_state(kh_rv32 *r, kh_rv32_state *out)
{
    kh_cycle now = kh_sim_now(r->sim);
    memset(out, 0, sizeof *out);
    memcpy(out->x, r->x, sizeof r->x);
    out->pc = r->pc;
    out->running = r->run;
    out->halted = r->halted;
    out->cause = r->cause;
    out->halt_word = r->halt_word;
    out->cycles = r->run ? (uint32_t)(now - r->start) : r->cycles;
    out->instret = r->instret;
    out->sig_count = r->sig_n;
    out->sig_overflow = r->sig_ovf;
    out->dirty_lines = kh_rv_l1_dirty(r);
    out->unreachable = r->unreachable;
    out->mvgo_lost = (unsigned)r->mvgo_lost;
    uint64_t aux = kh_node_aux_stat(r->n, now), v = 0;
    kh_rv32_pe_status_set_unit_busy(&v, (unsigned)(r->in_flight || r->run));
    kh_rv32_pe_status_set_running(&v, (unsigned)r->run);
    kh_rv32_pe_status_set_halted(&v, (unsigned)r->halted);
    kh_rv32_pe_status_set_mover_busy(&v, kh_orch_aux_stat_mover_busy(&aux));
    kh_rv32_pe_status_set_exec_busy(&v, (unsigned)kh_rv_exec_busy(r, now));
    kh_rv32_pe_status_set_cause(&v, r->cause);
    kh_rv32_pe_status_set_mover_fault(&v, kh_orch_aux_stat_mover_fault(&aux));
    kh_rv32_pe_status_set_instret(&v, r->instret & 0xFF);
    out->pe_status = v;
}
