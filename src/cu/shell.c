/* The compute-unit shell, noc_cu_base (control.md §5): instruction, receive
 * and completion FIFOs, one instruction in flight, completions built from
 * exec_done / exec_fault / exec_result, the CU_CTRL block with its quirks,
 * and one output register with strict priority. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu/shell_int.h"
#include "kohaku/ckpt.h"
#include "kohaku/bufcat.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"

/* ---- unit wake requests: a tiny min-heap of cycles ---- */

static void uw_push(kh_cu *cu, kh_cycle t)
{
    for (unsigned i = 0; i < cu->nuw; i++)
        if (cu->uw[i] == t) return; /* already pending */
    if (cu->nuw == cu->capuw) {
        unsigned cap = cu->capuw ? 2 * cu->capuw : 8;
        kh_cycle *v = realloc(cu->uw, cap * sizeof *v);
        if (!v) abort();
        cu->uw = v;
        cu->capuw = cap;
    }
    unsigned i = cu->nuw++;
    while (i > 0 && cu->uw[(i - 1) / 2] > t) {
        cu->uw[i] = cu->uw[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    cu->uw[i] = t;
}

static void uw_pop(kh_cu *cu)
{
    kh_cycle last = cu->uw[--cu->nuw];
    unsigned i = 0, n = cu->nuw;
    for (;;) {
        unsigned c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && cu->uw[c + 1] < cu->uw[c]) c++;
        if (cu->uw[c] >= last) break;
        cu->uw[i] = cu->uw[c];
        i = c;
    }
    if (n) cu->uw[i] = last;
}

/* ---- the CU_CTRL register block (control.md §5.6) ---- */

static int shell_busy(const kh_cu *cu)
{
    return cu->in_flight || !kh_fifo_empty(&cu->inst_q) || !kh_fifo_empty(&cu->sig_q);
}

/* Busy cycles are counted lazily: accumulate the interval since the last
 * update. Called before anything the busy state depends on changes
 * (in_flight, the instruction and completion FIFOs, whether rd_owed is 0,
 * compute_until): that state was constant since the last call, and
 * splitting an interval in two gives the same sums. */
static void account_busy(kh_cu *cu, kh_cycle now)
{
    if (now <= cu->busy_mark) return;
    kh_cycle from = cu->busy_mark;
    cu->busy_mark = now;
    if (shell_busy(cu)) {
        cu->busy_cycles += (uint32_t)(now - from);
        cu->busy_total += now - from;
    }
    /* the datapath's own compute time first (kh_cu_computing) */
    if (cu->compute_until > from) {
        kh_cycle c = cu->compute_until < now ? cu->compute_until : now;
        cu->compute_cycles += c - from;
        cu->busy_end = c;
        cu->ever_busy = 1;
        from = c;
    }
    if (from == now) return;
    if (shell_busy(cu)) {
        if (cu->rd_owed) cu->mem_wait_cycles += now - from;
        else cu->compute_cycles += now - from;
        cu->busy_end = now;
        cu->ever_busy = 1;
    } else if (cu->ever_busy) {
        cu->gap_cycles += now - from;
    }
}

/* Read-response flits a MEM_RD_REQ makes its port owe the requester
 * (flits.md §9 V37); peers' shares are not counted here. */
static unsigned rd_flits_owed(const uint64_t *w)
{
    if (!kh_mem_rd_req_flag_stream(w)) return (unsigned)kh_mem_rd_req_len(w) + 1;
    unsigned count = (unsigned)kh_mem_rd_req_count(w), ew = (unsigned)kh_mem_rd_req_entry_words(w);
    return (count ? count : 1) * (ew == 0 || ew > 4 ? 4 : ew);
}

static void trace_fifo(kh_cu *cu, const char *name, const kh_fifo *q, kh_cycle now)
{
    if (kh_comp_tracing(&cu->base)) kh_trace_counter(&cu->base, name, now, q->count);
}

static kh_cu_ctrl_view ctrl_view_now(const kh_cu *cu)
{
    kh_cu_ctrl_view v = {shell_busy(cu), cu->inst_occupancy, cu->retired,
                         cu->kind->dbg ? cu->kind->dbg(cu->unit) : 0};
    return v;
}

/* Before anything the view shows changes: once the shell has stepped in
 * cycle now, the first change keeps the state the step began with. */
static void view_keep(kh_cu *cu, kh_cycle now)
{
    if (cu->view_cycle == now && !cu->view_taken) {
        cu->view = ctrl_view_now(cu);
        cu->view_taken = 1;
    }
}

void kh_cu_dbg_moves(kh_cu *cu, kh_cycle now) { view_keep(cu, now); }

/* The value of CU_CTRL register `index` now (control.md §5.6). */
static uint64_t kh_cu_ctrl_reg(kh_cu *cu, unsigned index, kh_cycle now)
{
    uint64_t v = 0;
    account_busy(cu, now);
    /* start-of-cycle state, whichever of the sender and the shell stepped
     * first (nothing changed since the step began if the view was not taken) */
    kh_cu_ctrl_view s = cu->view_cycle == now && cu->view_taken ? cu->view : ctrl_view_now(cu);
    switch (index) {
    case KH_CU_CTRL_INDEX_CU_CAPS:
        kh_cu_caps_set_cu_type(&v, cu->kind->cu_type);
        kh_cu_caps_set_cu_version(&v, cu->version);
        kh_cu_caps_set_n_buffers(&v, cu->kind->n_buffers);
        kh_cu_caps_set_inst_depth(&v, cu->inst_depth);
        break;
    case KH_CU_CTRL_INDEX_CU_STATUS:
        kh_cu_status_set_busy(&v, (uint64_t)s.busy);
        kh_cu_status_set_inst_space(&v, cu->inst_depth - s.occupancy);
        break;
    case KH_CU_CTRL_INDEX_CU_COUNTERS:
        kh_cu_counters_set_retired(&v, s.retired);
        kh_cu_counters_set_busy_cycles(&v, cu->busy_cycles);
        break;
    case KH_CU_CTRL_INDEX_CU_DBG: /* the unit's own counter */
        v = s.dbg;
        break;
    default: /* indices 4..255 read 0 */
        break;
    }
    return v;
}

/* ---- inbound (control.md §5.2) ---- */

/* The two framework types, out of the receive path (most flits are read
 * responses): the hot accept then needs no frame for their flits and logs. */
static __attribute__((noinline)) void accept_inst(kh_cu *cu, const kh_flit *f, kh_cycle now)
{
    account_busy(cu, now); /* the instruction FIFO fills */
    /* The shell does not read rsvd, so the word runs; but no CU_INST may
     * carry it (flits.md §2.4, §9 V2, V5): say so, with or without --check. */
    if (kh_hdr_rsvd(f->w) && !cu->warned_inst_rsvd) {
        cu->warned_inst_rsvd = 1;
        kh_cu_log(cu, KH_LOG_WARN,
                  "CU_INST from (%u,%u) txn 0x%02x has rsvd=%u: a CU_INST carries rsvd = 0 (flits.md §2.4, "
                  "§9 V2, V5); the unit runs it as if 0 (warned once)",
                  (unsigned)kh_hdr_src_x(f->w), (unsigned)kh_hdr_src_y(f->w), (unsigned)kh_hdr_txn(f->w),
                  (unsigned)kh_hdr_rsvd(f->w));
    }
    view_keep(cu, now);
    kh_fifo_push(&cu->inst_q, f, now);
    cu->inst_occupancy = (cu->inst_occupancy + 1) & 0xFFFF;
    kh_comp_wake(&cu->base, now + cu->inst_q.latency);
    trace_fifo(cu, "inst fifo", &cu->inst_q, now);
}

static __attribute__((noinline)) void accept_ctrl(kh_cu *cu, const kh_flit *f, kh_cycle now)
{
    if (cu->ctrl_pending) {
        /* seed-era shell: a second request while a reply is pending is
         * consumed and never answered (control.md §5.6, Open point 1) */
        cu->ctrl_discarded++;
        kh_cu_log(cu, KH_LOG_WARN,
                  "CU_CTRL from (%u,%u) discarded: a reply is still pending "
                  "(control.md §5.6: one request outstanding per unit)",
                  (unsigned)kh_hdr_src_x(f->w), (unsigned)kh_hdr_src_y(f->w));
        return;
    }
    /* op is not read: a write performs a read and returns the old value */
    unsigned index = (unsigned)kh_cu_ctrl_index(f->w);
    kh_flit r;
    kh_flit_clear(&r);
    kh_flit_set_hdr(&r, &(kh_flit_hdr){.dst_x = (unsigned)kh_hdr_src_x(f->w),
                                       .dst_y = (unsigned)kh_hdr_src_y(f->w),
                                       .src_x = cu->place.x, .src_y = cu->place.y,
                                       .type = KH_T_CU_CTRL, .txn = (unsigned)kh_hdr_txn(f->w),
                                       .last = 1}); /* flits.md §4.8 */
    kh_cu_ctrl_reply_set_op(r.w, KH_CU_CTRL_REPLY_OP_READ_RESP);
    kh_cu_ctrl_reply_set_index(r.w, index);
    kh_cu_ctrl_reply_set_value(r.w, kh_cu_ctrl_reg(cu, index, now));
    cu->ctrl_reply = r;
    cu->ctrl_pending = 1;
    cu->ctrl_ready = now + 1;
    kh_comp_wake(&cu->base, now + 1);
}

int kh_cu_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    kh_cu *cu = (kh_cu *)dst;
    (void)port;
    /* busy never depends on the arriving flit */
    unsigned recv_used = kh_fifo_used(&cu->recv_q, now);
    if (kh_fifo_full(&cu->inst_q, now) || recv_used >= cu->recv_q.cap) return 0;
    if (cu->params.l_ctrl_hold && cu->ctrl_pending) return 0; /* profile L */
    unsigned type = (unsigned)kh_hdr_type(f->w);
    if (type == KH_T_CU_INST) {
        accept_inst(cu, f, now);
        return 1;
    }
    if (type == KH_T_CU_CTRL) {
        accept_ctrl(cu, f, now);
        return 1;
    }
    /* the accounting reads rd_owed only as zero or not: only the last
     * response owed changes it (most responses come with more owed) */
    if (type == KH_T_MEM_RD_RESP && cu->rd_owed) {
        if (cu->rd_owed == 1) account_busy(cu, now);
        cu->rd_owed--;
    }
    kh_fifo_push_below(&cu->recv_q, f, now, recv_used);
    if (cu->recv_timed && kh_comp_fast(dst)) {
        /* the unit takes it in the cycle it is visible, by a timer */
        kh_timer *t = &cu->recv_tm[cu->recv_tm_next++ % KH_CU_RECV_TIMERS].tm;
        kh_timer_arm(dst->sim, t, now + cu->recv_q.latency);
    } else {
        kh_comp_wake(dst, now + cu->recv_q.latency);
    }
    trace_fifo(cu, "recv fifo", &cu->recv_q, now);
    return 1;
}

/* The event engine's receive (recv_takes_all): the head, visible from this
 * cycle, to the unit at the start of the cycle, as run_unit offers it
 * first in the shell's step of the cycle. */
static void recv_due(kh_timer *t, kh_cycle now)
{
    kh_cu *cu = ((struct kh_cu_rtimer *)(void *)t)->cu;
    const kh_flit *rf = kh_fifo_head(&cu->recv_q, now);
    if (!rf || !cu->kind->recv(cu->unit, rf, now)) abort(); /* a unit breaking recv_takes_all: a bug */
    kh_fifo_pop_done(&cu->recv_q, now);
    kh_comp_space(&cu->base, KH_ALL_PORTS, now);
    trace_fifo(cu, "recv fifo", &cu->recv_q, now);
}

/* ---- services for units ---- */

int kh_cu_send(kh_cu *cu, const kh_flit *f, kh_cycle now)
{
    if (!cu->in_step || now != cu->step_now || !cu->send_ready) {
        cu->unit_send_blocked = 1;
        return 0;
    }
    cu->out = *f;
    cu->out_valid = 1;
    cu->out_fw = 0;
    cu->out_placed = now;
    cu->send_ready = 0;
    cu->unit_flits++;
    if (kh_hdr_type(f->w) == KH_T_MEM_RD_REQ) {
        if (!cu->rd_owed) account_busy(cu, now); /* read as zero or not, see kh_cu_accept */
        cu->rd_owed += rd_flits_owed(f->w);
    }
    kh_comp_wake_next(&cu->base, now); /* inside the step of now, checked above */
    return 1;
}

void kh_cu_done(kh_cu *cu, int fault, uint32_t result, kh_cycle now)
{
    view_keep(cu, now);
    cu->retired++; /* CU_COUNTERS counts every exec_done */
    if (!cu->in_flight) {
        kh_cu_log(cu, KH_LOG_WARN, "exec_done with no instruction in flight is ignored (control.md §5.4)");
        return;
    }
    if (cu->done_cycle == now) {
        kh_cu_log(cu, KH_LOG_ERROR, "unit signalled exec_done twice in cycle %llu", (unsigned long long)now);
        return;
    }
    account_busy(cu, now);
    kh_flit s;
    kh_flit_clear(&s);
    kh_flit_set_hdr(&s, &(kh_flit_hdr){.dst_x = cu->lat_src_x, .dst_y = cu->lat_src_y, .src_x = cu->place.x,
                                       .src_y = cu->place.y, .type = KH_T_CU_SIGNAL, .txn = cu->lat_txn,
                                       .last = 1}); /* control.md §5.4 */
    if (fault) { /* control.md §5.4 table */
        kh_cu_signal_set_code(s.w, KH_SIG_FAULT);
        kh_cu_signal_set_arg(s.w, result);
    } else if (cu->lat_last) {
        kh_cu_signal_set_code(s.w, KH_SIG_BATCH_COMPLETE);
        kh_cu_signal_set_arg(s.w, cu->lat_txn); /* {24'd0, txn}; exec_result discarded */
    } else {
        kh_cu_signal_set_code(s.w, KH_SIG_INST_COMPLETE);
        kh_cu_signal_set_arg(s.w, result);
    }
    /* inst_valid requires room, so the queue cannot be full here */
    kh_fifo_push(&cu->sig_q, &s, now);
    if (kh_comp_tracing(&cu->base) && cu->accept_cycle <= now) {
        char args[64];
        snprintf(args, sizeof args, "\"txn\":%u,\"fault\":%d", cu->lat_txn, fault);
        kh_trace_span(&cu->base, cu->inst_name ? cu->inst_name : "inst", cu->accept_cycle, now + 1, args);
    }
    cu->in_flight = 0;
    cu->done_cycle = now;
    cu->completions++;
    kh_comp_wake(&cu->base, now + cu->sig_q.latency);
    kh_comp_wake(&cu->base, now + 1); /* the next instruction may issue */
}

void kh_cu_wake(kh_cu *cu, kh_cycle at)
{
    /* inside the step the kernel's clock is step_now */
    if (cu->in_step) {
        if (at <= cu->step_now) at = cu->step_now + 1;
    } else {
        kh_cycle now = kh_sim_now(cu->base.sim);
        if (at < now) at = now;
    }
    if (at == cu->uw_soon) return; /* asked for already, the kernel too */
    if (cu->uw_soon == KH_NEVER)
        cu->uw_soon = at;
    else
        uw_push(cu, at);
    if (cu->in_step && at == cu->step_now + 1)
        kh_comp_wake_next(&cu->base, cu->step_now); /* the most frequent: sx_step asks for it */
    else
        kh_comp_wake(&cu->base, at);
}

void kh_cu_computing(kh_cu *cu, const char *name, kh_cycle now, kh_cycle until)
{
    account_busy(cu, now);
    if (until <= now) return;
    if (until > cu->compute_until) cu->compute_until = until;
    kh_trace_sub_span(&cu->base, "datapath", name, now, until, NULL);
}

const kh_cu_place *kh_cu_where(const kh_cu *cu) { return &cu->place; }
kh_sim *kh_cu_sim(const kh_cu *cu) { return cu->base.sim; }
void *kh_cu_unit(const kh_cu *cu) { return cu->unit; }
kh_comp *kh_cu_comp(kh_cu *cu) { return &cu->base; }
void kh_cu_set_out(kh_cu *cu, kh_link *out) { cu->out_link = out; }
const kh_unit_kind *kh_cu_kind(const kh_cu *cu) { return cu->kind; }
int kh_cu_out_framework(const kh_cu *cu) { return cu->out_fw; }
int kh_cu_recv_empty(const kh_cu *cu, kh_cycle now)
{
    (void)now;
    return kh_fifo_empty(&cu->recv_q);
}

void kh_cu_vlog(kh_cu *cu, kh_log_level lvl, const char *fmt, va_list ap)
{
    char msg[900];
    vsnprintf(msg, sizeof msg, fmt, ap);
    kh_comp_log(&cu->base, lvl, "%s", msg);
}

void kh_cu_log(kh_cu *cu, kh_log_level lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kh_cu_vlog(cu, lvl, fmt, ap);
    va_end(ap);
}

/* ---- the cycle ---- */

/* The instruction FIFO pops one cycle after the accept (§5.3, §5.11). */
static void pop_accepted_inst(kh_cu *cu, kh_cycle now)
{
    if (cu->pop_at != now) return;
    account_busy(cu, now);
    view_keep(cu, now);
    kh_fifo_pop_done(&cu->inst_q, now); /* the copy was taken at issue */
    cu->inst_occupancy = (cu->inst_occupancy - 1) & 0xFFFF;
    cu->pop_at = KH_NEVER;
    trace_fifo(cu, "inst fifo", &cu->inst_q, now);
    kh_comp_space(&cu->base, KH_ALL_PORTS, now);
}

/* The output register (§5.5): offer what was placed before this cycle, then
 * refill by strict priority: completion, CU_CTRL reply; the unit's own flit
 * comes through kh_cu_send while send_ready is up. */
static void drive_output(kh_cu *cu, kh_cycle now)
{
    if (cu->out_valid && cu->out_placed < now && cu->out_link) {
        if (kh_link_send(cu->out_link, &cu->out, now)) cu->out_valid = 0;
    }
    if (!cu->out_valid) {
        const kh_flit *sig = kh_fifo_head(&cu->sig_q, now);
        if (sig) {
            account_busy(cu, now);
            view_keep(cu, now);
            cu->out = *sig;
            cu->out_valid = 1;
            cu->out_fw = 1;
            cu->out_placed = now;
            kh_fifo_pop_done(&cu->sig_q, now); /* copied out above */
        } else if (cu->ctrl_pending && cu->ctrl_ready <= now && kh_fifo_empty(&cu->sig_q)) {
            cu->out = cu->ctrl_reply;
            cu->out_valid = 1;
            cu->out_fw = 1;
            cu->out_placed = now;
            cu->ctrl_pending = 0;
        }
    }
    cu->send_ready = !cu->out_valid && kh_fifo_empty(&cu->sig_q) && !cu->ctrl_pending;
}

/* The unit's side of the cycle: the receive FIFO head (§5.7), the
 * instruction offer when issue_ok (§5.3), then its datapath step. */
static void run_unit(kh_cu *cu, int issue_ok, kh_cycle now)
{
    const kh_flit *rf = kh_fifo_head(&cu->recv_q, now);
    if (rf && cu->kind->recv) {
        /* the head itself: nothing the unit can call pops the receive FIFO
         * or writes its head slot (a push goes to the tail) */
        if (cu->kind->recv(cu->unit, rf, now)) {
            /* the unit is done with the flit: a ring as deep as recv_depth
             * (512) then keeps to its first entries, in cache */
            kh_fifo_pop_done(&cu->recv_q, now);
            kh_comp_space(&cu->base, KH_ALL_PORTS, now);
            trace_fifo(cu, "recv fifo", &cu->recv_q, now);
        } else {
            cu->recv_refused = now;
        }
    }
    const kh_flit *inst = issue_ok ? kh_fifo_head(&cu->inst_q, now) : NULL;
    if (inst && cu->kind->inst) {
        kh_flit copy = *inst;
        account_busy(cu, now);
        view_keep(cu, now);
        cu->in_flight = 1; /* visible to kh_cu_done during the call */
        cu->lat_src_x = (uint8_t)kh_hdr_src_x(copy.w);
        cu->lat_src_y = (uint8_t)kh_hdr_src_y(copy.w);
        cu->lat_txn = (uint8_t)kh_hdr_txn(copy.w);
        cu->lat_last = (uint8_t)kh_hdr_last(copy.w);
        if (cu->kind->inst(cu->unit, &copy, now)) {
            cu->accepted++;
            if (cu->first_accept == KH_NEVER) cu->first_accept = now;
            cu->accept_cycle = now;
            cu->pop_at = now + 1;
            if (kh_comp_tracing(&cu->base)) cu->inst_name = cu->kind->inst_name ? cu->kind->inst_name(&copy) : NULL;
            kh_comp_wake_next(&cu->base, now);
        } else if (cu->done_cycle != now) {
            cu->in_flight = 0;
        }
    }
    int unit_due = cu->unit_send_blocked && cu->send_ready;
    if (cu->uw_soon <= now) {
        unit_due = 1;
        cu->uw_soon = KH_NEVER;
    }
    if (cu->nuw && cu->uw[0] <= now) {
        unit_due = 1;
        do uw_pop(cu);
        while (cu->nuw && cu->uw[0] <= now);
    }
    if (unit_due && cu->kind->step) {
        cu->unit_send_blocked = 0;
        cu->kind->step(cu->unit, now);
    }
}

/* Ask the kernel for the next cycle anything here can move. */
static void request_wakes(kh_cu *cu, kh_cycle now)
{
    kh_comp *c = &cu->base;
    if (cu->out_valid) {
        /* placed this cycle: offer next cycle; blocked: kh_link_space wakes us */
        if (cu->out_placed == now || !cu->out_link || cu->out_link->blocked_since == KH_NEVER)
            kh_comp_wake_next(c, now);
    } else if (!kh_fifo_empty(&cu->sig_q)) {
        kh_cycle t = kh_fifo_head_ready(&cu->sig_q);
        kh_comp_wake(c, t > now ? t : now + 1);
    } else if (cu->ctrl_pending) {
        kh_comp_wake(c, cu->ctrl_ready > now ? cu->ctrl_ready : now + 1);
    }
    if (cu->unit_send_blocked && !cu->out_valid) kh_comp_wake_next(c, now);
    /* a receive FIFO a timer hands to the unit needs no step */
    if (!kh_fifo_empty(&cu->recv_q) && cu->recv_refused != now && !(cu->recv_timed && kh_comp_fast(c))) {
        kh_cycle t = kh_fifo_head_ready(&cu->recv_q);
        kh_comp_wake(c, t > now ? t : now + 1);
    }
    if (!cu->in_flight && !kh_fifo_empty(&cu->inst_q)) {
        kh_cycle t = kh_fifo_head_ready(&cu->inst_q);
        kh_comp_wake(c, t > now ? t : now + 1);
    }
}

static void shell_step(kh_comp *c, kh_cycle now)
{
    kh_cu *cu = (kh_cu *)c;
    cu->step_now = now;
    cu->in_step = 1;
    cu->view_cycle = now; /* what a CU_CTRL accepted later in this cycle reads */
    cu->view_taken = 0;
    if (!cu->view_lazy) view_keep(cu, now);
    /* Start-of-cycle state decides instruction issue (control.md §5.3). */
    int issue_ok = !cu->in_flight && !kh_fifo_full(&cu->sig_q, now) && cu->pop_at != now;
    pop_accepted_inst(cu, now);
    drive_output(cu, now);
    run_unit(cu, issue_ok, now);
    cu->in_step = 0;
    request_wakes(cu, now);
}

static int shell_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_cu *cu = (kh_cu *)c;
    size_t used = 0;
    int stuck = 0;
    if (len) buf[0] = '\0';
#define SAY(...) (kh_bufcat(buf, len, &used, __VA_ARGS__), stuck = 1)
    if (cu->in_flight) {
        SAY("instruction txn 0x%02x from (%u,%u) accepted at cycle %llu has not retired "
            "(control.md §5.4: the unit must raise exec_done once per instruction)",
            cu->lat_txn, cu->lat_src_x, cu->lat_src_y, (unsigned long long)cu->accept_cycle);
        char ub[600];
        if (cu->kind->describe_stuck && cu->kind->describe_stuck(cu->unit, ub, sizeof ub))
            SAY("; unit: %s", ub);
    } else if (cu->kind->describe_stuck) {
        char ub[600];
        if (cu->kind->describe_stuck(cu->unit, ub, sizeof ub)) SAY("unit: %s", ub);
    }
    if (!kh_fifo_empty(&cu->recv_q) && !cu->in_flight) {
        SAY("%sreceive FIFO holds %u flits the unit does not take (head type 0x%x; control.md §5.7: "
            "a unit must accept and drop what it does not use)",
            stuck ? "; " : "", cu->recv_q.count, (unsigned)kh_hdr_type(kh_fifo_peek(&cu->recv_q)->w));
    }
    if (cu->out_valid || !kh_fifo_empty(&cu->sig_q))
        SAY("%soutput blocked: the link out of the unit does not take flits", stuck ? "; " : "");
    return stuck;
#undef SAY
}

static void shell_stats(kh_comp *c, char *buf, size_t len)
{
    kh_cu *cu = (kh_cu *)c;
    kh_cycle now = kh_sim_now(c->sim);
    account_busy(cu, now);
    /* the stretch since the unit was last busy is idle, not a wait */
    uint64_t trailing = cu->ever_busy && !shell_busy(cu) ? now - cu->busy_end : 0;
    uint64_t wait_inst = cu->gap_cycles - trailing;
    uint64_t busy = cu->compute_cycles;
    int w = snprintf(buf, len,
                     "\"instructions\": %llu, \"completions\": %llu, \"retired\": %u, \"busy_cycles\": %u, "
                     "\"unit_flits\": %llu, \"ctrl_discarded\": %llu, \"inst_fifo_high\": %u, "
                     "\"recv_fifo_high\": %u, \"cycles\": {\"busy\": %llu, \"wait_memory\": %llu, "
                     "\"wait_instructions\": %llu, \"idle\": %llu}",
                     (unsigned long long)cu->accepted, (unsigned long long)cu->completions, cu->retired,
                     cu->busy_cycles, (unsigned long long)cu->unit_flits,
                     (unsigned long long)cu->ctrl_discarded, cu->inst_q.high_water, cu->recv_q.high_water,
                     (unsigned long long)busy, (unsigned long long)cu->mem_wait_cycles,
                     (unsigned long long)wait_inst,
                     (unsigned long long)(now - busy - cu->mem_wait_cycles - wait_inst));
    if (cu->kind->stats_json && w > 0 && (size_t)w + 2 < len) {
        buf[w] = ',';
        buf[w + 1] = ' ';
        cu->kind->stats_json(cu->unit, buf + w + 2, len - (size_t)w - 2);
    }
}

static void shell_destroy(kh_comp *c)
{
    kh_cu *cu = (kh_cu *)c;
    if (cu->unit && cu->kind->destroy) cu->kind->destroy(cu->unit);
    kh_fifo_free(&cu->inst_q);
    kh_fifo_free(&cu->recv_q);
    kh_fifo_free(&cu->sig_q);
    free(cu->uw);
    free(cu);
}

/* Checkpoints (docs/checkpoint.md): the shell's FIFOs, registers and
 * counters, its receive timers (the event engine's), then the unit's own
 * state through its kind. */
static void shell_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_cu *cu = (kh_cu *)c;
    if (!cu->kind->ckpt) {
        kh_ck_fail(ck, "unit '%s' (kind %s) has no checkpoint state yet: refused rather than a partial "
                       "checkpoint (docs/checkpoint.md lists what is covered)", c->name, cu->kind->name);
        return;
    }
    kh_ck_fifo(ck, &cu->inst_q);
    kh_ck_fifo(ck, &cu->recv_q);
    kh_ck_fifo(ck, &cu->sig_q);
    KH_CK(ck, cu->inst_occupancy);
    KH_CK(ck, cu->pop_at);
    KH_CK(ck, cu->in_flight);
    KH_CK(ck, cu->lat_src_x);
    KH_CK(ck, cu->lat_src_y);
    KH_CK(ck, cu->lat_txn);
    KH_CK(ck, cu->lat_last);
    KH_CK(ck, cu->accept_cycle);
    KH_CK(ck, cu->first_accept);
    KH_CK(ck, cu->done_cycle);
    KH_CK(ck, cu->view_cycle);
    KH_CK(ck, cu->view.busy);
    KH_CK(ck, cu->view.occupancy);
    KH_CK(ck, cu->view.retired);
    KH_CK(ck, cu->view.dbg);
    KH_CK(ck, cu->view_taken);
    KH_CK(ck, cu->ctrl_pending);
    kh_ck_flit(ck, &cu->ctrl_reply);
    KH_CK(ck, cu->ctrl_ready);
    kh_ck_flit(ck, &cu->out);
    KH_CK(ck, cu->out_valid);
    KH_CK(ck, cu->out_fw);
    KH_CK(ck, cu->out_placed);
    KH_CK(ck, cu->send_ready);
    KH_CK(ck, cu->unit_send_blocked);
    KH_CK(ck, cu->uw_soon);
    unsigned n = (unsigned)kh_ck_count(ck, cu->nuw, kh_ck_loading(ck) ? kh_ck_left(ck) : cu->nuw, "unit wakes");
    if (kh_ck_loading(ck) && n > cu->capuw) {
        kh_cycle *v = realloc(cu->uw, n * sizeof *v);
        if (!v) {
            kh_ck_fail(ck, "out of memory restoring %u wakes", n);
            return;
        }
        cu->uw = v;
        cu->capuw = n;
    }
    KH_CK_ARR(ck, cu->uw, n);
    if (kh_ck_loading(ck)) cu->nuw = n;
    KH_CK(ck, cu->step_now);
    KH_CK(ck, cu->recv_refused);
    for (unsigned i = 0; i < KH_CU_RECV_TIMERS; i++) kh_ck_timer(ck, c->sim, &cu->recv_tm[i].tm);
    KH_CK(ck, cu->recv_tm_next);
    KH_CK(ck, cu->retired);
    KH_CK(ck, cu->busy_cycles);
    KH_CK(ck, cu->busy_mark);
    KH_CK(ck, cu->busy_total);
    KH_CK(ck, cu->rd_owed);
    KH_CK(ck, cu->compute_cycles);
    KH_CK(ck, cu->mem_wait_cycles);
    KH_CK(ck, cu->gap_cycles);
    KH_CK(ck, cu->busy_end);
    KH_CK(ck, cu->compute_until);
    KH_CK(ck, cu->ever_busy);
    if (kh_ck_loading(ck)) cu->inst_name = NULL; /* a trace's slice name only */
    KH_CK(ck, cu->accepted);
    KH_CK(ck, cu->completions);
    KH_CK(ck, cu->unit_flits);
    KH_CK(ck, cu->ctrl_discarded);
    KH_CK(ck, cu->warned_inst_rsvd);
    cu->kind->ckpt(cu->unit, ck);
}

static const kh_comp_ops shell_ops = {
    .ckpt = shell_ckpt,
    .kind = "cu", .step = shell_step, .describe_stuck = shell_stuck, .stats_json = shell_stats, .destroy = shell_destroy};

kh_cu *kh_cu_new(kh_sim *sim, const kh_unit_kind *kind, const kh_cu_place *place, char *err,
                 size_t errlen)
{
    const kh_params *p = kh_sim_params(sim);
    /* the kind's own rows and rules, whoever filled the parameters */
    if (kh_param_rows_check(p, kind->params, kind->nparams, err, errlen) ||
        (kind->check_params && kind->check_params(p, err, errlen)))
        return NULL;
    kh_cu *cu = calloc(1, sizeof *cu);
    if (!cu) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    cu->kind = kind;
    cu->place = *place;
    cu->params = *p;
    cu->inst_depth = kind->inst_depth ? kind->inst_depth : (unsigned)p->inst_depth;
    unsigned recv_depth = kind->recv_depth ? kind->recv_depth : (unsigned)p->recv_depth;
    cu->version = p->cu_version ? (uint8_t)p->cu_version : kind->cu_version;
    unsigned extra = (unsigned)p->fifo_extra_cap, lat = (unsigned)p->fifo_latency;
    if (kh_fifo_init(&cu->inst_q, cu->inst_depth + extra, lat) ||
        kh_fifo_init(&cu->recv_q, recv_depth + extra, lat) ||
        kh_fifo_init(&cu->sig_q, (unsigned)p->sig_depth, lat)) {
        snprintf(err, errlen, "out of memory for the shell FIFOs");
        kh_fifo_free(&cu->inst_q);
        kh_fifo_free(&cu->recv_q);
        kh_fifo_free(&cu->sig_q);
        free(cu);
        return NULL;
    }
    cu->first_accept = KH_NEVER;
    cu->uw_soon = KH_NEVER;
    cu->accept_cycle = KH_NEVER;
    cu->pop_at = KH_NEVER;
    cu->done_cycle = KH_NEVER;
    cu->recv_refused = KH_NEVER;
    cu->view_cycle = KH_NEVER;
    cu->view_lazy = !kind->dbg || kind->dbg_announced;
    cu->recv_timed = kind->recv_takes_all && kind->recv && lat < KH_CU_RECV_TIMERS && lat < KH_WHEEL;
    for (unsigned k = 0; k < KH_CU_RECV_TIMERS; k++) {
        cu->recv_tm[k].tm.fn = recv_due;
        cu->recv_tm[k].cu = cu;
    }
    char name[48];
    snprintf(name, sizeof name, "%s(%u,%u)", kind->token ? kind->token : kind->name, place->x, place->y);
    kh_sim_add(sim, &cu->base, &shell_ops, name);
    if (kind->create) cu->unit = kind->create(cu, p, err, errlen);
    if (!cu->unit) {
        /* the simulation owns the component now: it is freed with the sim,
         * but a machine with a unit that cannot be built is refused */
        if (!kind->create) snprintf(err, errlen, "unit %s has no datapath", kind->name);
        return NULL;
    }
    return cu;
}

kh_cycle kh_cu_first_accept(const kh_cu *cu) { return cu->first_accept; }
