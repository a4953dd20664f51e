/* The vector core's sequencer (vector.md §1.1, §5.6, §10.1): RUN start,
 * instruction fetch with the VLOOP end test, dispatch through the opcode
 * table, the waiting phases, faults and retirement. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cu/units/vector/vec.h"
#include "kohaku/bufcat.h"

static void vec_state_reset(vec_state *st)
{
    for (int d = 0; d < VEC_NDESC; d++) kh_vec_desc_reset(&st->desc[d]);
    st->k3 = 0;             /* K3 = 0 (§2) */
    st->vl = VEC_MAXVL;     /* VL 128 */
    st->vmode = VEC_FLAT;
    st->loop_active = 0;
    st->last_pm = 0;
    st->last_pr = 0;
}

/* zeros, then reset */
static void vec_state_power_on(vec_state *st)
{
    memset(st, 0, sizeof *st); /* the recordings' power-on zeros (parameters.md §2.4) */
    vec_state_reset(st);
}

kh_e8 kh_vec_kreg(const vec_state *st, unsigned idx)
{
    static const kh_e8 k[3] = {0x000000u, KH_E8_ONE, KH_E8_NEG_ONE}; /* K0..K2 (§2) */
    idx &= 3;
    return idx == 3 ? st->k3 : k[idx];
}

int kh_vec_wr_ok(const vec_state *st, unsigned e, unsigned pm, unsigned pr)
{
    if (e >= st->vl) return 0;
    if (pm == 0) return 1;
    int bit = vec_pbit(st, pr, e);
    return pm == 1 ? bit : !bit; /* pm 3 behaves as 2 (§4.1) */
}

void kh_vec_core_init(vec_core *c, const vec_port *port)
{
    memset(c, 0, sizeof *c);
    c->port = *port;
    vec_state_power_on(&c->st);
    kh_vec_lanes_reset(&c->lanes);
    c->alat = 14;
    c->tree_lat = 8;
    c->phase = VP_IDLE;
}

void kh_vec_core_log(vec_core *c, kh_log_level lvl, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->port.log) c->port.log(c->port.ctx, lvl, msg);
}

int kh_vec_core_busy(const vec_core *c) { return c->phase != VP_IDLE; }

static void retire_at(vec_core *c, kh_cycle state, int fault, uint32_t result)
{
    c->phase = VP_RETIRE;
    c->t = state + VEC_T_DONE;
    c->retire_fault = fault;
    c->retire_result = result;
    if (fault) c->stats.faults++;
}

/* The FAULT state is at cycle f (§9: EXEC then FAULT). */
static void fault_at(vec_core *c, kh_cycle f, unsigned code)
{
    kh_vec_core_log(c, KH_LOG_DEBUG, "kernel fault %u at pc %u", code, c->cur_pc);
    retire_at(c, f, 1, code); /* exec_result = {24'b0, code} */
}

void kh_vec_core_run(vec_core *c, unsigned pc, kh_cycle first_state)
{
    c->st.pc = pc % VEC_IMEM;
    c->st.loop_active = 0; /* RUN start disarms the loop (§5.6) */
    c->t0 = first_state;
    c->t = first_state;
    c->first = 1;
    c->phase = VP_FETCH;
    memset(c->hazard_pc_seen, 0, sizeof c->hazard_pc_seen);
    c->stats.runs++;
}

uint32_t kh_vec_fetch_extra(vec_core *c, const char *why)
{
    vec_state *st = &c->st;
    if (st->loop_active && st->pc == st->loop_end) {
        c->stats.loop_warnings++;
        kh_vec_core_log(c, KH_LOG_WARN,
                     "VLOOP end %u falls on the %s of the instruction at pc %u: the end test "
                     "is skipped, the body runs once and the loop stays armed for the rest of "
                     "the RUN (vector.md §5.6)",
                     st->loop_end, why, c->cur_pc);
    }
    uint32_t w = st->imem[st->pc];
    st->pc = (st->pc + 1) % VEC_IMEM;
    return w;
}

/* One instruction: fetch states from t (F1 F2 DEC, the RUN's first skips
 * F1), EXEC, then whatever the body says. */
static void fetch_and_execute(vec_core *c, kh_cycle t)
{
    vec_state *st = &c->st;
    if (c->cudata_fault) { /* reported at a RUN start or a fetch boundary (§1.4) */
        c->cudata_fault = 0;
        c->cur_pc = st->pc;
        fault_at(c, t, VEC_F_CUDATA);
        return;
    }
    unsigned flen = c->first ? 2 : 3;
    c->first = 0;
    if (st->loop_active && st->pc == st->loop_end) { /* the end test (§5.6) */
        if (st->loop_count > 1) {
            st->loop_count--;
            st->pc = st->loop_top;
        } else {
            st->loop_active = 0;
        }
    }
    c->cur_pc = st->pc;
    uint32_t word = st->imem[st->pc];
    st->pc = (st->pc + 1) % VEC_IMEM;
    vec_insn in;
    kh_vec_decode(word, &in);
    vec_exec x = {.e = t + flen, .next = 0, .fault = 0};
    c->stats.insns++;
    switch (kh_vec_opdef_of(in.op)->body(c, &in, &x)) {
    case VX_NEXT:
        c->phase = VP_FETCH;
        c->t = x.next;
        break;
    case VX_FAULT:
        fault_at(c, x.next, x.fault);
        break;
    default: /* VX_PHASE: the body set phase and t */
        break;
    }
}

/* VFILL's EXEC stall, VBAR's BAR and VHALT's WAITP (§10.1). */
static void wait_step(vec_core *c, kh_cycle now)
{
    if (c->fill_out) return; /* a landing fill response wakes us */
    kh_cycle x = c->t;
    if (c->fill_landed + 1 > x) x = c->fill_landed + 1;
    if (c->wait_kind == VW_HALT && c->lanes.idle > x) x = c->lanes.idle;
    if (x > now) {
        c->t = x;
        return;
    }
    switch (c->wait_kind) {
    case VW_VFILL: /* x = the EXEC that proceeds; AGW, MEMW1-3, MEM0, then FILL */
        c->phase = VP_FILL;
        c->t = x + 6;
        break;
    case VW_BAR:
        c->phase = VP_FETCH;
        c->t = x + 1;
        break;
    default: { /* VW_HALT: WAITP ends at x, HALT at x + 1 (counted) */
        kh_cycle halt = x + 1;
        retire_at(c, halt, 0, (uint32_t)(halt - c->t0 + 1));
        break;
    }
    }
}

void kh_vec_core_step(vec_core *c, kh_cycle now)
{
    kh_vec_outq_pump(c, now);
    for (;;) {
        int before = c->phase;
        kh_cycle tb = c->t;
        switch (c->phase) {
        case VP_FETCH:
            if (c->t <= now) fetch_and_execute(c, c->t);
            break;
        case VP_WAIT_FILL:
            if (c->t <= now) wait_step(c, now);
            break;
        case VP_FILL:
            if (c->t <= now) kh_vec_fill_step(c, now);
            break;
        case VP_DRAIN:
            if (c->t <= now) kh_vec_drain_step(c, now);
            break;
        case VP_RETIRE:
            if (c->t <= now) {
                c->phase = VP_IDLE;
                if (c->port.done) c->port.done(c->port.ctx, c->retire_fault, c->retire_result, now);
            }
            break;
        default:
            break;
        }
        if (c->phase == before && c->t == tb) break; /* nothing more due now */
    }
}

int kh_vec_core_describe(const vec_core *c, char *buf, size_t len)
{
    static const char *const names[] = {"idle", "fetch", "wait for fills", "issuing VFILL reads",
                                        "sending VDRAIN words", "retiring"};
    if (c->phase == VP_IDLE && c->q.n == 0 && !c->rx.open) return 0;
    size_t n = 0;
    if (c->phase != VP_IDLE)
        n += (size_t)snprintf(buf + n, len - n,
                              "vec_cu: RUN at pc %u %s (state cycle %llu); %u fill word(s) "
                              "outstanding (vector.md §5.6, §5.7)\n",
                              c->cur_pc, names[c->phase], (unsigned long long)c->t, c->fill_out);
    if (n < len && c->q.n)
        n += (size_t)snprintf(buf + n, len - n,
                              "vec_cu: %u outbound flit(s) wait for the shell's send port "
                              "(control.md §5.5)\n",
                              c->q.n);
    if (n < len && c->rx.open)
        snprintf(buf + n, len - n,
                 "vec_cu: CU_DATA burst from (%u,%u) open, %u data flit(s) still due "
                 "(vector.md §1.4)\n",
                 c->rx.src_x, c->rx.src_y, c->rx.remaining);
    return 1;
}

static kh_cycle at_least(kh_cycle t, kh_cycle now) { return t > now ? t : now + 1; }

kh_cycle kh_vec_core_next_wake(const vec_core *c, kh_cycle now)
{
    kh_cycle w = KH_NEVER, p = KH_NEVER;
    if (c->q.n && !c->q_blocked) w = at_least(c->q.ready[c->q.head], now);
    switch (c->phase) {
    case VP_FETCH:
    case VP_RETIRE:
        p = at_least(c->t, now);
        break;
    case VP_WAIT_FILL:
        if (!c->fill_out) p = at_least(c->t, now);
        break;
    case VP_FILL:
    case VP_DRAIN:
        if (!c->job.pending) p = at_least(c->t, now);
        break;
    default:
        break;
    }
    return p < w ? p : w;
}
