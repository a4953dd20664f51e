/* The control-program engine (control.md §3): WR / POLL / DONE, the status
 * registers, err on unknown opcodes and unmapped targets, the reference
 * timing, GO rules. The engine drives an orchestrator through the card. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/card.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "support/test.h"

/* Injects CU_SIGNALs into the orchestrator on schedule. */
typedef struct drv {
    kh_comp base;
    kh_orch *o;
    kh_cycle at[16];
    unsigned n;
} drv;

static void drv_step(kh_comp *c, kh_cycle now)
{
    drv *d = (drv *)c;
    for (unsigned i = 0; i < d->n; i++) {
        if (d->at[i] != now) continue;
        kh_flit f;
        kh_flit_clear(&f);
        kh_hdr_set_src_x(f.w, 1);
        kh_hdr_set_type(f.w, KH_T_CU_SIGNAL);
        kh_hdr_set_last(f.w, 1);
        kh_orch_agent_accept(d->o, 0, &f, now);
    }
}

static const kh_comp_ops drv_ops = {.kind = "drv", .step = drv_step};

typedef struct bench {
    kh_sim *sim;
    kh_card *card;
    kh_orch *orch;
    drv *d;
} bench;

static bench make_lat(unsigned lat)
{
    bench b;
    kh_params p;
    kh_params_default(&p);
    p.engine_xbar_lat = lat;
    /* the engine's timing, probed by host reads that take no time */
    p.host_write_cycles = p.host_read_cycles = p.host_beat_cycles = 0;
    b.sim = kh_sim_new(&p);
    char err[256];
    kh_orch_cfg cfg = {.x = 0, .y = 1, .grid_lo = 1, .grid_hi = 2};
    b.orch = kh_orch_new(b.sim, &cfg, NULL, err, sizeof err);
    b.card = kh_card_new(b.sim, err, sizeof err);
    kh_card_attach_mesh(b.card, 0, b.orch, NULL, err, sizeof err);
    b.d = calloc(1, sizeof *b.d);
    b.d->o = b.orch;
    kh_sim_add(b.sim, &b.d->base, &drv_ops, "drv");
    return b;
}

static bench make(void) { return make_lat(0); }

static void done(bench *b)
{
    kh_card_free(b->card);
    kh_sim_destroy(b->sim);
    free(b->d);
}

static void signal_at(bench *b, kh_cycle at)
{
    b->d->at[b->d->n++] = at;
    kh_comp_wake(&b->d->base, at);
}

static void wr(bench *b, uint64_t addr, uint64_t v)
{
    char err[256];
    if (kh_card_write64(b->card, addr, v, err, sizeof err)) printf("write: %s\n", err);
}

static uint64_t rd(bench *b, uint64_t addr)
{
    char err[256];
    uint64_t v = 0;
    if (kh_card_read64(b->card, addr, &v, err, sizeof err)) printf("read: %s\n", err);
    return v;
}

/* Command n, fields: opcode, address, data, mask (control.md §3). */
static void cmd(bench *b, unsigned n, uint64_t op, uint64_t addr, uint64_t data, uint64_t mask)
{
    uint64_t base = KH_ENG_CMD + 32 * n;
    wr(b, base, op);
    wr(b, base + 8, addr);
    wr(b, base + 16, data);
    wr(b, base + 24, mask);
}

static uint64_t ctrl(bench *b) { return rd(b, KH_ENG_CTRL); }

static void wr_poll_done_runs_to_done(void)
{
    bench b = make();
    cmd(&b, 0, KH_ENG_OP_WR, 0x800048, 5, 0);      /* PROG_LEN = 5 */
    cmd(&b, 1, KH_ENG_OP_POLL, 0x800070, 2, 0xFFFF); /* SIG_DONE == 2 */
    cmd(&b, 2, KH_ENG_OP_DONE, 0, 0xC0DE, 0);
    kh_cycle t = kh_sim_now(b.sim);
    signal_at(&b, t + 3);
    signal_at(&b, t + 4);
    wr(&b, KH_ENG_CTRL, 1);
    /* GO beat t, start t+1, FETCH t+2, WR t+3 (beat t+4, B t+5), FETCH
     * t+6, AR t+7, sample t+8 (SIG_DONE = 2 from t+5), R t+9, FETCH DONE
     * t+10: done from t+11. */
    kh_sim_run(b.sim, 10);
    uint64_t w = ctrl(&b);
    CHECK_EQ(kh_eng_ctrl_busy(&w), 1);
    kh_sim_run(b.sim, 1);
    w = ctrl(&b);
    CHECK_EQ(kh_eng_ctrl_busy(&w), 0);
    CHECK_EQ(kh_eng_ctrl_done(&w), 1);
    CHECK_EQ(kh_eng_ctrl_err(&w), 0);
    CHECK_EQ(rd(&b, KH_ENG_CODE), 0xC0DE);
    CHECK_EQ(rd(&b, KH_ENG_PC), 2);
    CHECK_EQ(rd(&b, KH_ENG_POLLS), 1);
    CHECK_EQ(rd(&b, 0x800048), 5);
    done(&b);
}

static void failed_poll_reads_again_32_cycles_later(void)
{
    bench b = make();
    cmd(&b, 0, KH_ENG_OP_POLL, 0x10000070, 1, 0xFFFF); /* through the alias */
    cmd(&b, 1, KH_ENG_OP_DONE, 0, 7, 0);
    kh_cycle t = kh_sim_now(b.sim);
    signal_at(&b, t + 20);
    wr(&b, KH_ENG_CTRL, 1);
    /* FETCH t+2, AR t+3, sample t+4 (0), R t+5: mismatch; AR again at
     * t+5+32 = t+37, sample t+38 (1), R t+39, FETCH DONE t+40. */
    kh_sim_run(b.sim, 40);
    CHECK_EQ(kh_eng_ctrl_done(&(uint64_t){ctrl(&b)}), 0);
    kh_sim_run(b.sim, 1);
    CHECK_EQ(kh_eng_ctrl_done(&(uint64_t){ctrl(&b)}), 1);
    CHECK_EQ(rd(&b, KH_ENG_POLLS), 2);
    CHECK_EQ(rd(&b, KH_ENG_CODE), 7);
    done(&b);
}

static void poll_compares_against_data_unmasked(void)
{
    /* data has a bit outside the mask: (rdata & mask) can never equal it. */
    bench b = make();
    cmd(&b, 0, KH_ENG_OP_POLL, 0x800008, 0x104, 0xFF); /* STATUS = 4 */
    cmd(&b, 1, KH_ENG_OP_DONE, 0, 0, 0);
    wr(&b, KH_ENG_CTRL, 1);
    kh_sim_run(b.sim, 200);
    uint64_t w = ctrl(&b);
    CHECK_EQ(kh_eng_ctrl_busy(&w), 1);
    CHECK(rd(&b, KH_ENG_POLLS) >= 5);
    done(&b);
}

static void unknown_opcodes_stop_with_err(void)
{
    unsigned ops[] = {0, 4, 15};
    for (unsigned i = 0; i < 3; i++) {
        bench b = make();
        cmd(&b, 0, KH_ENG_OP_WR, 0x800048, 3, 0);
        cmd(&b, 1, ops[i], 0, 0, 0);
        wr(&b, KH_ENG_CTRL, 1);
        kh_sim_run(b.sim, 50);
        uint64_t w = ctrl(&b);
        CHECK_EQ(kh_eng_ctrl_busy(&w), 0);
        CHECK_EQ(kh_eng_ctrl_done(&w), 1);
        CHECK_EQ(kh_eng_ctrl_err(&w), 1);
        CHECK_EQ(rd(&b, KH_ENG_PC), 1);
        done(&b);
    }
}

static void opcode_field_decodes_bits_3_0_only(void)
{
    bench b = make();
    cmd(&b, 0, 0xF0 | KH_ENG_OP_DONE, 0, 9, 0);
    wr(&b, KH_ENG_CTRL, 1);
    kh_sim_run(b.sim, 10);
    uint64_t w = ctrl(&b);
    CHECK_EQ(kh_eng_ctrl_err(&w), 0);
    CHECK_EQ(rd(&b, KH_ENG_CODE), 9);
    done(&b);
}

static void unmapped_target_stops_with_err(void)
{
    bench b = make();
    cmd(&b, 0, KH_ENG_OP_WR, 0x40000000, 3, 0);
    cmd(&b, 1, KH_ENG_OP_DONE, 0, 0, 0);
    wr(&b, KH_ENG_CTRL, 1);
    kh_sim_run(b.sim, 20);
    uint64_t w = ctrl(&b);
    CHECK_EQ(kh_eng_ctrl_err(&w), 1);
    CHECK(kh_engine_error(kh_card_engine(b.card)) != NULL);
    CHECK(strstr(kh_engine_error(kh_card_engine(b.card)), "0x40000000") != NULL);
    done(&b);
}

static void go_needs_bit_0_and_is_ignored_while_running(void)
{
    bench b = make();
    cmd(&b, 0, KH_ENG_OP_POLL, 0x800070, 1, 0xFFFF);
    cmd(&b, 1, KH_ENG_OP_DONE, 0, 0, 0);
    wr(&b, KH_ENG_CTRL, 2); /* bit 0 clear: nothing */
    kh_sim_run(b.sim, 10);
    CHECK_EQ(ctrl(&b), 0);
    wr(&b, KH_ENG_CTRL, 1);
    kh_sim_run(b.sim, 100);
    CHECK_EQ(kh_eng_ctrl_busy(&(uint64_t){ctrl(&b)}), 1);
    uint64_t polls = rd(&b, KH_ENG_POLLS);
    wr(&b, KH_ENG_CTRL, 1); /* while running: ignored (POLLS not reset) */
    kh_sim_run(b.sim, 40);
    CHECK(rd(&b, KH_ENG_POLLS) >= polls);
    signal_at(&b, kh_sim_now(b.sim));
    kh_sim_run(b.sim, 100);
    uint64_t w = ctrl(&b);
    CHECK_EQ(kh_eng_ctrl_done(&w), 1);
    CHECK_EQ(kh_eng_ctrl_err(&w), 0);
    done(&b);
}

static void command_ram_is_not_readable(void)
{
    bench b = make();
    cmd(&b, 3, KH_ENG_OP_WR, 0x800048, 5, 0);
    CHECK_EQ(rd(&b, KH_ENG_CMD + 32 * 3 + 16), 0);
    CHECK_EQ(rd(&b, 0x0020), 0);
    done(&b);
}

static void host_write_goes_after_an_engine_write_in_flight(void)
{
    /* Interconnect latency 3: the engine raises AW+W at t+3, its beat lands
     * at t+7. A host write to the same window made at t+5 is serialised
     * after that transaction (control.md §9.3, Open point 15), so it wins. */
    bench b = make_lat(3);
    cmd(&b, 0, KH_ENG_OP_WR, 0x800048, 5, 0);
    cmd(&b, 1, KH_ENG_OP_DONE, 0, 0, 0);
    wr(&b, KH_ENG_CTRL, 1);
    kh_sim_run(b.sim, 5);
    wr(&b, 0x800048, 7);
    kh_sim_run(b.sim, 30);
    CHECK_EQ(rd(&b, 0x800048), 7);
    done(&b);
}

static void a_zero_cost_polling_loop_progresses_event_by_event(void)
{
    /* Reading the same register again in the same cycle lets the machine
     * run through its next event: the loop sees SIG_DONE change at the
     * boundary right after the cycle the signal was absorbed. */
    bench b = make();
    signal_at(&b, 50);
    uint64_t v = 0;
    unsigned reads = 0;
    do {
        v = rd(&b, 0x800070);
        reads++;
    } while (v != 1 && reads < 1000);
    CHECK_EQ(v, 1);
    CHECK_EQ(kh_sim_now(b.sim), 51);
    /* nothing pending: further reads take no time */
    kh_sim_run_until_idle(b.sim, 100);
    kh_cycle t = kh_sim_now(b.sim);
    rd(&b, 0x800070);
    rd(&b, 0x800070);
    CHECK_EQ(kh_sim_now(b.sim), t);
    done(&b);
}

/* kh_engine_writes_ahead (lane promises, docs/mpi.md): whether any WR lies
 * ahead of the engine before a DONE or a stop, reading the command RAM
 * from the current command on, the PC wrapping at NCMD (control.md §3). */
static void writes_ahead_reads_the_commands_from_the_current_one(void)
{
    bench b = make();
    kh_engine *e = kh_card_engine(b.card);
    cmd(&b, 0, KH_ENG_OP_WR, 0x800048, 5, 0);        /* PROG_LEN = 5 */
    cmd(&b, 1, KH_ENG_OP_POLL, 0x800070, 1, 0xFFFF); /* SIG_DONE == 1: no signal comes */
    cmd(&b, 2, KH_ENG_OP_DONE, 0, 0, 0);
    cmd(&b, 3, KH_ENG_OP_WR, 0x800048, 6, 0);        /* past the DONE: never reached */
    CHECK_EQ(kh_engine_writes_ahead(e), 0);          /* idle, no GO */
    wr(&b, KH_ENG_CTRL, 1);
    CHECK_EQ(kh_engine_writes_ahead(e), 1);          /* a GO starts at command 0, a WR */
    kh_sim_run(b.sim, 30);                           /* the WR is done; the POLL goes on */
    CHECK_EQ(rd(&b, KH_ENG_PC), 1);
    CHECK_EQ(rd(&b, 0x800048), 5);
    CHECK_EQ(kh_engine_writes_ahead(e), 0);
    done(&b);

    /* WR at 0, then POLLs that match at once in every other slot: from
     * any of them the PC wraps round to the WR */
    b = make();
    e = kh_card_engine(b.card);
    kh_params p;
    kh_params_default(&p);
    unsigned n = (unsigned)p.ncmd;
    cmd(&b, 0, KH_ENG_OP_WR, 0x800048, 5, 0);
    for (unsigned i = 1; i < n; i++) cmd(&b, i, KH_ENG_OP_POLL, 0x800048, 0, 0);
    wr(&b, KH_ENG_CTRL, 1);
    int last = 0;
    for (unsigned c = 0; c < 12 * n; c++) {
        kh_sim_run(b.sim, 1);
        last |= rd(&b, KH_ENG_PC) == n - 1;
        CHECK_EQ(kh_engine_writes_ahead(e), 1);
    }
    CHECK_EQ(last, 1); /* the last slot was reached, and still a WR lay ahead */
    done(&b);
}

int main(void)
{
    KH_RUN(wr_poll_done_runs_to_done);
    KH_RUN(failed_poll_reads_again_32_cycles_later);
    KH_RUN(poll_compares_against_data_unmasked);
    KH_RUN(unknown_opcodes_stop_with_err);
    KH_RUN(opcode_field_decodes_bits_3_0_only);
    KH_RUN(unmapped_target_stops_with_err);
    KH_RUN(go_needs_bit_0_and_is_ignored_while_running);
    KH_RUN(command_ram_is_not_readable);
    KH_RUN(host_write_goes_after_an_engine_write_in_flight);
    KH_RUN(a_zero_cost_polling_loop_progresses_event_by_event);
    KH_RUN(writes_ahead_reads_the_commands_from_the_current_one);
    return kh_test_end("t_engine");
}
