/* The orchestrator alone (control.md §2): register access and strobe rules,
 * the staging RAM, dispatch timing, credits, the status mirror, SIG_DONE,
 * the mailbox and the AUX windows. A stand-in for the node takes the flits
 * the orchestrator offers and injects flits on schedule. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/orch.h"
#include "support/test.h"

#define ORC_X 0 /* the orchestrator answers at memory port 0's coordinate */
#define ORC_Y 1

/* ---- a stand-in for the node ------------------------------------------- */

typedef struct inj {
    kh_cycle at;
    kh_flit f;
    int taken; /* what accept answered */
} inj;

typedef struct node {
    kh_comp base;
    kh_orch *o;
    int take;            /* take offered flits */
    unsigned got;
    kh_cycle got_at[64];
    kh_flit got_f[64];
    inj in[64];
    unsigned nin;
    kh_flit burst;       /* one copy per cycle from burst_at, burst_left times */
    kh_cycle burst_at;
    unsigned burst_left;
    unsigned aux_writes;
    unsigned aux_reg[16];
    uint64_t aux_val[16];
    kh_cycle aux_at[16];
} node;

static void node_step(kh_comp *c, kh_cycle now)
{
    node *n = (node *)c;
    for (unsigned i = 0; i < n->nin; i++)
        if (n->in[i].at == now) n->in[i].taken = kh_orch_agent_accept(n->o, 0, &n->in[i].f, now);
    if (n->burst_left && now >= n->burst_at) {
        kh_orch_agent_accept(n->o, 0, &n->burst, now);
        if (--n->burst_left) kh_comp_wake(c, now + 1);
    }
    if (n->take) {
        const kh_flit *f = kh_orch_agent_peek(n->o, now);
        if (f) {
            n->got_at[n->got] = now;
            n->got_f[n->got++] = *f;
            kh_orch_agent_take(n->o, now);
        }
    }
}

static const kh_comp_ops node_ops = {.kind = "node", .step = node_step};

static void env_ready(void *ctx, kh_cycle at) { kh_comp_wake(&((node *)ctx)->base, at); }
static uint64_t env_aux_stat(void *ctx, kh_cycle now)
{
    (void)ctx;
    (void)now;
    return 0x123456789ABCDEF0u;
}
static void env_aux_write(void *ctx, unsigned reg, uint64_t value, kh_cycle now)
{
    node *n = ctx;
    if (n->aux_writes < 16) {
        n->aux_reg[n->aux_writes] = reg;
        n->aux_val[n->aux_writes] = value;
        n->aux_at[n->aux_writes] = now;
    }
    n->aux_writes++;
}

typedef struct bench {
    kh_sim *sim;
    kh_orch *o;
    node *n;
} bench;

static bench make_with(unsigned grid_hi, int older_rtl)
{
    kh_params p;
    kh_params_default(&p);
    p.dispatch_older_rtl = (uint64_t)older_rtl;
    bench b;
    b.sim = kh_sim_new(&p);
    b.n = calloc(1, sizeof *b.n);
    b.n->take = 1;
    kh_sim_add(b.sim, &b.n->base, &node_ops, "node");
    kh_orch_cfg cfg = {.x = ORC_X, .y = ORC_Y, .grid_lo = 1, .grid_hi = (uint8_t)grid_hi};
    kh_orch_env env = {.ctx = b.n, .ready = env_ready, .aux_stat = env_aux_stat, .aux_write = env_aux_write};
    char err[256];
    b.o = kh_orch_new(b.sim, &cfg, &env, err, sizeof err);
    if (!b.o) printf("orch: %s\n", err);
    b.n->o = b.o;
    return b;
}

static bench make(unsigned grid_hi) { return make_with(grid_hi, 0); }

static void done(bench *b)
{
    kh_sim_destroy(b->sim); /* the node stand-in has no destroy: free it here */
    free(b->n);
}

static kh_cycle now_of(bench *b) { return kh_sim_now(b->sim); }
static void wr(bench *b, uint32_t off, uint64_t v) { kh_orch_write(b->o, off, v, 0xFF, now_of(b)); }
static uint64_t rd(bench *b, uint32_t off) { return kh_orch_read(b->o, off, now_of(b)); }
static void run(bench *b, kh_cycle n) { kh_sim_run(b->sim, n); }

/* Stage a CU_INST in slot s: five words, header in word 4 (flits.md §8). */
static void stage(bench *b, unsigned s, unsigned txn, unsigned last, uint64_t tag)
{
    kh_flit f;
    kh_flit_clear(&f);
    f.w[0] = tag;
    f.w[3] = 0xAA00000000000000u | tag;
    kh_hdr_set_type(f.w, KH_T_CU_INST);
    kh_hdr_set_txn(f.w, txn);
    kh_hdr_set_last(f.w, last);
    kh_hdr_set_dst_x(f.w, 9); /* don't-care: overwritten by the dispatcher */
    kh_hdr_set_src_x(f.w, 7);
    for (unsigned k = 0; k < 5; k++) wr(b, KH_ORCH_STAGE + 40 * s + 8 * k, f.w[k]);
}

static void program(bench *b, unsigned base, unsigned len, unsigned x, unsigned y, unsigned cred)
{
    wr(b, KH_ORCH_PROG_BASE, base);
    wr(b, KH_ORCH_PROG_LEN, len);
    wr(b, KH_ORCH_PROG_DST, kh_orch_node_index(x, y));
    wr(b, KH_ORCH_PROG_CRED, cred);
}

static kh_flit signal_flit(unsigned x, unsigned y, unsigned code, uint32_t arg)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, ORC_X);
    kh_hdr_set_dst_y(f.w, ORC_Y);
    kh_hdr_set_src_x(f.w, x);
    kh_hdr_set_src_y(f.w, y);
    kh_hdr_set_type(f.w, KH_T_CU_SIGNAL);
    kh_hdr_set_last(f.w, 1);
    kh_cu_signal_set_code(f.w, code);
    kh_cu_signal_set_arg(f.w, arg);
    return f;
}

static void inject(bench *b, kh_cycle at, const kh_flit *f)
{
    b->n->in[b->n->nin].at = at;
    b->n->in[b->n->nin++].f = *f;
    kh_comp_wake(&b->n->base, at);
}

static void inject_signal(bench *b, kh_cycle at, unsigned x, unsigned y, unsigned code, uint32_t arg)
{
    kh_flit f = signal_flit(x, y, code, arg);
    inject(b, at, &f);
}

static unsigned credit(bench *b)
{
    uint64_t w = rd(b, KH_ORCH_PROG_STAT);
    return (unsigned)kh_orch_prog_stat_credit(&w);
}

/* ---- §2.2 register map ------------------------------------------------- */

static void caps_example_for_a_2x2_mesh(void)
{
    bench b = make(2);
    CHECK_EQ(rd(&b, KH_ORCH_CAPS), 0x0000000201040120u); /* control.md §2.2 example */
    done(&b);
}

static void status_reads_mesh_ready_when_idle(void)
{
    bench b = make(2);
    CHECK_EQ(rd(&b, KH_ORCH_STATUS), 4); /* [2] mesh_ready = 1, busy 0, error 0 */
    done(&b);
}

static void write_is_visible_the_cycle_after_the_beat(void)
{
    bench b = make(2);
    run(&b, 5);
    wr(&b, KH_ORCH_PROG_LEN, 7);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_LEN), 0); /* same boundary: the beat is in the next cycle */
    run(&b, 1);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_LEN), 7);
    done(&b);
}

static void beat_without_strobes_has_no_effect(void)
{
    bench b = make(2);
    wr(&b, KH_ORCH_PROG_LEN, 3);
    inject_signal(&b, 1, 2, 2, 0x40, 1);
    run(&b, 3);
    kh_cycle t = now_of(&b);
    kh_orch_write(b.o, KH_ORCH_PROG_LEN, 9, 0x00, t);
    kh_orch_write(b.o, KH_ORCH_SIG_DONE, 0, 0x00, t);   /* no clear */
    kh_orch_write(b.o, KH_ORCH_CTRL, ~0ull, 0x00, t);
    run(&b, 3);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_LEN), 3);
    CHECK_EQ(rd(&b, KH_ORCH_SIG_DONE), 1);
    CHECK_EQ(rd(&b, KH_ORCH_CTRL), 0);
    done(&b);
}

static void prog_registers_need_a_strobe_in_byte_0_or_1(void)
{
    bench b = make(2);
    kh_orch_write(b.o, KH_ORCH_PROG_LEN, 0x1234, 0x04, now_of(&b)); /* byte 2 only: ignored */
    run(&b, 2);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_LEN), 0);
    kh_orch_write(b.o, KH_ORCH_PROG_LEN, 0xFFFF1234, 0x02, now_of(&b)); /* byte 1: takes [15:0] */
    kh_orch_write(b.o, KH_ORCH_PROG_BASE, 0x5678, 0x01, now_of(&b));
    kh_orch_write(b.o, KH_ORCH_PROG_DST, 0xABCD, 0x03, now_of(&b)); /* PROG_DST keeps [7:0] */
    run(&b, 2);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_LEN), 0x1234);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_BASE), 0x5678);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_DST), 0xCD);
    done(&b);
}

static void ctrl_and_irq_en_merge_bytes_under_strobes(void)
{
    bench b = make(2);
    wr(&b, KH_ORCH_CTRL, 0x1122334455667788u);
    wr(&b, KH_ORCH_IRQ_EN, 0x1122334455667788u);
    run(&b, 1);
    kh_orch_write(b.o, KH_ORCH_CTRL, 0xFFFFFFFFFFFFFFFFu, 0x81, now_of(&b));
    kh_orch_write(b.o, KH_ORCH_IRQ_EN, 0, 0x0F, now_of(&b));
    run(&b, 1);
    CHECK_EQ(rd(&b, KH_ORCH_CTRL), 0xFF223344556677FFu);
    CHECK_EQ(rd(&b, KH_ORCH_IRQ_EN), 0x1122334400000000u);
    done(&b);
}

static void irq_stat_is_never_set(void)
{
    bench b = make(2);
    wr(&b, KH_ORCH_IRQ_STAT, ~0ull);
    run(&b, 2);
    CHECK_EQ(rd(&b, KH_ORCH_IRQ_STAT), 0);
    done(&b);
}

static void unlisted_offsets_read_zero_and_ignore_writes(void)
{
    bench b = make(2);
    wr(&b, 0x0030, 5);
    wr(&b, 0x0600, 5);
    run(&b, 2);
    CHECK_EQ(rd(&b, 0x0030), 0);
    CHECK_EQ(rd(&b, 0x0600), 0);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_KICK), 0); /* write-only */
    CHECK_EQ(rd(&b, KH_ORCH_TX_KICK), 0);
    done(&b);
}

static void only_addr_15_0_is_decoded(void)
{
    bench b = make(2);
    kh_orch_write(b.o, 0x12340000 + KH_ORCH_PROG_LEN, 6, 0xFF, now_of(&b));
    run(&b, 1);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_LEN), 6);
    CHECK_EQ(kh_orch_read(b.o, 0xFFFF0000u + KH_ORCH_PROG_LEN, now_of(&b)), 6);
    done(&b);
}

/* ---- §2.3 staging RAM --------------------------------------------------- */

static void staging_ram_is_write_only(void)
{
    bench b = make(2);
    wr(&b, KH_ORCH_STAGE, 0x1111);
    run(&b, 2);
    CHECK_EQ(rd(&b, KH_ORCH_STAGE), 0);
    done(&b);
}

static void staging_window_runs_to_0x33ff(void)
{
    /* Slot 127 ends at 0x2000 + 640*8 - 1 = 0x33FF (control.md §2.3): write
     * slot 127 and dispatch it. */
    bench b = make(2);
    stage(&b, 127, 0x2A, 1, 0x77);
    program(&b, 127, 1, 3, 2, 1);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 20);
    CHECK_EQ(b.n->got, 1);
    CHECK_EQ(b.n->got_f[0].w[0], 0x77);
    CHECK(kh_orch_error(b.o) == NULL);
    done(&b);
}

static void staging_writes_honour_strobes(void)
{
    bench b = make(2);
    stage(&b, 0, 1, 1, 0x1122334455667788u);
    kh_orch_write(b.o, KH_ORCH_STAGE, 0xFFFFFFFFFFFFFFFFu, 0x01, now_of(&b));
    program(&b, 0, 1, 1, 1, 1);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 20);
    CHECK_EQ(b.n->got, 1);
    CHECK_EQ(b.n->got_f[0].w[0], 0x11223344556677FFu);
    done(&b);
}

/* ---- §2.4 dispatch ---------------------------------------------------- */

/* Three flits: the first pushed `push` cycles after the kick beat t, then
 * one flit per 5 cycles; the node sees each after the FIFO fall-through. */
static void pushes_after_the_kick(int older, kh_cycle push)
{
    bench b = make_with(2, older);
    for (unsigned s = 0; s < 3; s++) stage(&b, s, 0x10 + s, s == 2, s);
    program(&b, 0, 3, 1, 0, 4);
    run(&b, 3);
    kh_cycle t = now_of(&b);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 40);
    kh_cycle f = kh_sim_params(b.sim)->fifo_latency;
    CHECK_EQ(b.n->got, 3);
    for (unsigned i = 0; i < 3; i++) CHECK_EQ(b.n->got_at[i], t + push + 5 * i + f);
    done(&b);
}

/* Kick beat t; start t+1; word 0 at t+2, words 1-4 at t+3..t+6; push two
 * cycles after word 4 = t+8 (§2.4). */
static void dispatch_pushes_8_cycles_after_the_kick_beat_then_every_5(void) { pushes_after_the_kick(0, 8); }

static void dispatch_stamps_dst_and_src_and_passes_the_rest(void)
{
    bench b = make(2);
    stage(&b, 0, 0x2A, 1, 0xDEADBEEF);
    /* rsvd is passed through unchanged as well */
    uint64_t w4 = 0;
    {
        kh_flit f;
        kh_flit_clear(&f);
        kh_hdr_set_type(f.w, KH_T_CU_INST);
        kh_hdr_set_txn(f.w, 0x2A);
        kh_hdr_set_last(f.w, 1);
        kh_hdr_set_rsvd(f.w, 5);
        kh_hdr_set_dst_y(f.w, 0xF);
        kh_hdr_set_src_y(f.w, 0xE);
        w4 = f.w[4] | 0xFFFFFFFF00000000u; /* bits [63:32] of word 4 are ignored */
    }
    wr(&b, KH_ORCH_STAGE + 32, w4);
    program(&b, 0, 1, 3, 2, 4);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 20);
    CHECK_EQ(b.n->got, 1);
    const kh_flit *f = &b.n->got_f[0];
    CHECK_EQ(kh_hdr_dst_x(f->w), 3);
    CHECK_EQ(kh_hdr_dst_y(f->w), 2);
    CHECK_EQ(kh_hdr_src_x(f->w), ORC_X);
    CHECK_EQ(kh_hdr_src_y(f->w), ORC_Y);
    CHECK_EQ(kh_hdr_type(f->w), KH_T_CU_INST);
    CHECK_EQ(kh_hdr_txn(f->w), 0x2A);
    CHECK_EQ(kh_hdr_last(f->w), 1);
    CHECK_EQ(kh_hdr_rsvd(f->w), 5);
    CHECK_EQ(f->w[0], 0xDEADBEEF);
    CHECK_EQ(f->w[3], 0xAA000000DEADBEEFu);
    CHECK_EQ(f->w[4] >> 32, 0);
    done(&b);
}

static void prog_dst_is_sampled_at_the_push(void)
{
    /* Flit 0 pushes at t+8, flit 1 at t+13: a PROG_DST write landing in
     * between redirects only the second (control.md §2.4 step 3). */
    bench b = make(2);
    stage(&b, 0, 1, 0, 0);
    stage(&b, 1, 1, 1, 1);
    program(&b, 0, 2, 1, 0, 4);
    run(&b, 1);
    kh_cycle t = now_of(&b);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 9); /* now = t+9: flit 0 pushed at t+8 */
    wr(&b, KH_ORCH_PROG_DST, kh_orch_node_index(1, 2)); /* beat t+9, lands before t+13 */
    run(&b, 20);
    (void)t;
    CHECK_EQ(b.n->got, 2);
    CHECK_EQ(kh_hdr_dst_y(b.n->got_f[0].w), 0);
    CHECK_EQ(kh_hdr_dst_y(b.n->got_f[1].w), 2);
    done(&b);
}

static void kick_is_ignored_while_running_or_with_len_0(void)
{
    bench b = make(2);
    stage(&b, 0, 1, 1, 0);
    wr(&b, KH_ORCH_PROG_CRED, 4);
    wr(&b, KH_ORCH_PROG_KICK, 1); /* PROG_LEN = 0: ignored */
    run(&b, 20);
    CHECK_EQ(b.n->got, 0);
    program(&b, 0, 2, 1, 0, 4);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 3);
    wr(&b, KH_ORCH_PROG_KICK, 1); /* while running: ignored */
    run(&b, 40);
    CHECK_EQ(b.n->got, 2);
    done(&b);
}

static void prog_stat_shows_run_left_and_credit(void)
{
    bench b = make(2);
    for (unsigned s = 0; s < 3; s++) stage(&b, s, 1, s == 2, s);
    program(&b, 0, 3, 1, 0, 1);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 12); /* one flit sent, credit 0, two left */
    uint64_t w = rd(&b, KH_ORCH_PROG_STAT);
    CHECK_EQ(kh_orch_prog_stat_run(&w), 1);
    CHECK_EQ(kh_orch_prog_stat_left(&w), 2);
    CHECK_EQ(kh_orch_prog_stat_credit(&w), 0);
    CHECK_EQ(rd(&b, KH_ORCH_PROG_CRED), 0);
    w = rd(&b, KH_ORCH_STATUS);
    CHECK_EQ(kh_orch_status_busy(&w), 1);
    done(&b);
}

static void word_0_needs_room_for_two_more_flits(void)
{
    /* The node takes nothing: the dispatcher stops once its next word 0
     * would find more than TX_DEPTH-2 = 14 flits queued; with one flit
     * always in assembly the FIFO ends full (16) and TX_STATUS[16] = 1. */
    bench b = make(2);
    b.n->take = 0;
    for (unsigned s = 0; s < 20; s++) stage(&b, s, 1, s == 19, s);
    program(&b, 0, 20, 1, 0, 100);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 200);
    uint64_t w = rd(&b, KH_ORCH_PROG_STAT);
    CHECK_EQ(kh_orch_prog_stat_left(&w), 4);
    CHECK_EQ(kh_orch_prog_stat_credit(&w), 84);
    w = rd(&b, KH_ORCH_TX_STATUS);
    CHECK_EQ(kh_orch_tx_status_full(&w), 1);
    b.n->take = 1; /* drain: the rest follows */
    kh_comp_wake(&b.n->base, now_of(&b));
    for (int i = 0; i < 100; i++) {
        kh_comp_wake(&b.n->base, now_of(&b));
        run(&b, 1);
    }
    CHECK_EQ(b.n->got, 20);
    done(&b);
}

static void kick_past_the_staging_ram_is_refused(void)
{
    bench b = make(2);
    program(&b, 126, 3, 1, 0, 4);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 30);
    CHECK_EQ(b.n->got, 0);
    CHECK(kh_orch_error(b.o) != NULL);
    CHECK(strstr(kh_orch_error(b.o), "PROG_BASE 126 + PROG_LEN 3") != NULL);
    done(&b);
}

/* ---- the older RTL's dispatcher (dispatch_older_rtl, docs/timing.md) ---- */

/* 7703ee8 noc_orchestrator: kick beat t, kick_req t+1, words t+2..t+6,
 * disp_push (a register) at t+7: the RTL trace of saxpy.jsonl case 0 has
 * the beat at 94 and disp_push at 101. */
static void older_dispatch_pushes_7_cycles_after_the_kick_beat_then_every_5(void) { pushes_after_the_kick(1, 7); }

/* PROG_STAT's credit drops the cycle after word 0 (control.md §2.5), in the
 * older RTL the cycle after the push (prog_credit decremented on
 * disp_push); run drops the cycle after word 4 in both, so the flit is
 * pushed in the cycle run first reads 0 (older) or the one after. */
static void credit_and_run_fall(int older, kh_cycle credit_from, kh_cycle push_at)
{
    bench b = make_with(2, older);
    stage(&b, 0, 1, 1, 0);
    program(&b, 0, 1, 1, 0, 4);
    run(&b, 2);
    kh_cycle t = now_of(&b);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    for (kh_cycle c = t + 1; c <= t + 10; c++) {
        run(&b, 1);
        CHECK_EQ(now_of(&b), c);
        uint64_t w = rd(&b, KH_ORCH_PROG_STAT);
        CHECK_EQ(kh_orch_prog_stat_credit(&w), c >= t + credit_from ? 3u : 4u);
        CHECK_EQ(kh_orch_prog_stat_run(&w), c >= t + 2 && c < t + 7);
    }
    run(&b, 10);
    CHECK_EQ(b.n->got, 1);
    CHECK_EQ(b.n->got_at[0], t + push_at + kh_sim_params(b.sim)->fifo_latency);
    done(&b);
}

static void credit_drops_after_word_0_push_two_after_word_4(void) { credit_and_run_fall(0, 3, 8); }
static void older_credit_drops_after_the_push_in_the_cycle_run_reads_0(void) { credit_and_run_fall(1, 8, 7); }

static void older_dispatch_stalls_at_any_word_without_credit(void)
{
    /* Credit 1, two flits: flit 0's push at t+7 takes the credit at the end
     * of t+7, where flit 1's word 0 is read; word 1 then waits. An
     * INST_COMPLETE at s refills at the end of s: words 1-4 at s+1..s+4,
     * the push at s+5. */
    bench b = make_with(2, 1);
    stage(&b, 0, 1, 0, 0);
    stage(&b, 1, 1, 1, 1);
    program(&b, 0, 2, 1, 0, 1);
    run(&b, 1);
    kh_cycle t = now_of(&b);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 60);
    CHECK_EQ(b.n->got, 1);
    CHECK_EQ(credit(&b), 0);
    uint64_t w = rd(&b, KH_ORCH_PROG_STAT);
    CHECK_EQ(kh_orch_prog_stat_run(&w), 1);
    CHECK_EQ(kh_orch_prog_stat_left(&w), 1);
    kh_cycle s = now_of(&b);
    inject_signal(&b, s, 1, 0, 0x00, 0);
    run(&b, 40);
    CHECK_EQ(b.n->got, 2);
    CHECK_EQ(b.n->got_at[1], s + 5 + kh_sim_params(b.sim)->fifo_latency);
    CHECK(t < s);
    done(&b);
}

/* ---- §2.5 credits --------------------------------------------------------- */

static void program_longer_than_its_credit_stalls_until_inst_complete(void)
{
    bench b = make(2);
    for (unsigned s = 0; s < 4; s++) stage(&b, s, 1, s == 3, s);
    program(&b, 0, 4, 1, 0, 2);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 100);
    CHECK_EQ(b.n->got, 2);
    CHECK_EQ(credit(&b), 0);
    kh_cycle t = now_of(&b);
    inject_signal(&b, t, 1, 0, 0x01, 0); /* BATCH_COMPLETE refills nothing */
    inject_signal(&b, t + 1, 1, 0, 0x04, 0xBAD); /* FAULT refills nothing */
    inject_signal(&b, t + 2, 1, 0, 0x03, 0); /* DATA_RECEIVED refills nothing */
    inject_signal(&b, t + 3, 1, 0, 0x40, 0); /* unit code refills nothing */
    run(&b, 100);
    CHECK_EQ(b.n->got, 2);
    CHECK_EQ(credit(&b), 0);
    inject_signal(&b, now_of(&b), 1, 0, 0x00, 0); /* INST_COMPLETE: one more flit */
    run(&b, 100);
    CHECK_EQ(b.n->got, 3);
    inject_signal(&b, now_of(&b), 3, 3, 0x00, 0); /* from any node (Open point 3) */
    run(&b, 100);
    CHECK_EQ(b.n->got, 4);
    done(&b);
}

static void word_0_and_inst_complete_in_one_cycle_leave_credit_unchanged(void)
{
    /* Credit 1, two flits: word 0 of flit 0 at t+2 and an INST_COMPLETE in
     * that same cycle leave credit 1, so flit 1 goes at t+7 unstalled. */
    bench b = make(2);
    stage(&b, 0, 1, 0, 0);
    stage(&b, 1, 1, 1, 1);
    program(&b, 0, 2, 1, 0, 1);
    run(&b, 1);
    kh_cycle t = now_of(&b);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    inject_signal(&b, t + 2, 2, 2, 0x00, 0);
    run(&b, 40);
    CHECK_EQ(b.n->got, 2);
    CHECK_EQ(b.n->got_at[1], t + 15);
    CHECK_EQ(credit(&b), 0);
    done(&b);
}

static void prog_cred_write_overrides_a_same_cycle_refill(void)
{
    bench b = make(2);
    wr(&b, KH_ORCH_PROG_CRED, 3);
    run(&b, 2);
    kh_cycle t = now_of(&b);
    wr(&b, KH_ORCH_PROG_CRED, 7);        /* beat t: the seed acts at t+1 */
    inject_signal(&b, t + 1, 1, 0, 0x00, 0); /* refill in the same cycle: lost */
    run(&b, 5);
    CHECK_EQ(credit(&b), 7);
    inject_signal(&b, now_of(&b), 1, 0, 0x00, 0); /* a later refill counts */
    run(&b, 3);
    CHECK_EQ(credit(&b), 8);
    done(&b);
}

static void credit_wraps_at_16_bits(void)
{
    bench b = make(2);
    wr(&b, KH_ORCH_PROG_CRED, 0xFFFF);
    run(&b, 2);
    inject_signal(&b, now_of(&b), 1, 0, 0x00, 0);
    run(&b, 3);
    CHECK_EQ(credit(&b), 0);
    done(&b);
}

static void reseeding_credit_restarts_a_stalled_dispatch(void)
{
    bench b = make(2);
    for (unsigned s = 0; s < 3; s++) stage(&b, s, 1, s == 2, s);
    program(&b, 0, 3, 1, 0, 1);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 50);
    CHECK_EQ(b.n->got, 1);
    char buf[2048];
    CHECK(kh_sim_describe_stuck(b.sim, buf, sizeof buf) >= 1);
    CHECK(strstr(buf, "orch(0,1): dispatch to (1,0) stalled") != NULL);
    CHECK(strstr(buf, "PROG_CRED is 0") != NULL);
    wr(&b, KH_ORCH_PROG_CRED, 4);
    run(&b, 50);
    CHECK_EQ(b.n->got, 3);
    CHECK_EQ(credit(&b), 2);
    done(&b);
}

/* ---- §2.6 status mirror and SIG_DONE ------------------------------------ */

static void node_status_records_code_arg_count_valid(void)
{
    bench b = make(2);
    inject_signal(&b, 1, 2, 1, 0x00, 0x12345678);
    inject_signal(&b, 3, 2, 1, 0x01, 0x2A);
    run(&b, 10);
    unsigned idx = kh_orch_node_index(2, 1);
    uint64_t w = rd(&b, KH_ORCH_NODE_STATUS + 8 * idx);
    /* {code 0x01, arg 0x2A, count 2, 7'b0, valid 1} */
    CHECK_EQ(w, 0x010000002A000201u);
    CHECK_EQ(rd(&b, 0x1800 + 8 * idx), w); /* 0x1800-0x1FFF alias 0x1000-0x17FF */
    CHECK_EQ(rd(&b, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 2)), 0);
    CHECK_EQ(rd(&b, KH_ORCH_SIG_DONE), 2);
    done(&b);
}

static void node_status_is_visible_the_cycle_after_the_signal(void)
{
    bench b = make(2);
    inject_signal(&b, 4, 1, 0, 0x00, 9);
    run(&b, 4); /* cycles 0..3 */
    unsigned idx = kh_orch_node_index(1, 0);
    CHECK_EQ(rd(&b, KH_ORCH_NODE_STATUS + 8 * idx), 0);
    run(&b, 1); /* cycle 4 absorbs it */
    uint64_t w = rd(&b, KH_ORCH_NODE_STATUS + 8 * idx);
    CHECK_EQ(kh_orch_node_status_valid(&w), 1);
    CHECK_EQ(kh_orch_node_status_arg(&w), 9);
    done(&b);
}

static void node_status_writes_are_ignored(void)
{
    bench b = make(2);
    inject_signal(&b, 1, 1, 0, 0x00, 9);
    run(&b, 3);
    unsigned idx = kh_orch_node_index(1, 0);
    uint64_t w = rd(&b, KH_ORCH_NODE_STATUS + 8 * idx);
    wr(&b, KH_ORCH_NODE_STATUS + 8 * idx, 0);
    run(&b, 3);
    CHECK_EQ(rd(&b, KH_ORCH_NODE_STATUS + 8 * idx), w);
    done(&b);
}

static void sig_done_counts_every_code_and_clears_on_write(void)
{
    bench b = make(2);
    unsigned codes[] = {0x00, 0x01, 0x03, 0x04, 0x40, 0xFF};
    for (unsigned i = 0; i < 6; i++) inject_signal(&b, 1 + i, 1, 0, codes[i], i);
    run(&b, 10);
    CHECK_EQ(rd(&b, KH_ORCH_SIG_DONE), 6);
    wr(&b, KH_ORCH_SIG_DONE, 0x1234); /* any strobed write clears */
    run(&b, 2);
    CHECK_EQ(rd(&b, KH_ORCH_SIG_DONE), 0);
    done(&b);
}

static void sig_done_clear_and_increment_in_one_cycle_leave_0(void)
{
    bench b = make(2);
    inject_signal(&b, 1, 1, 0, 0x00, 0);
    run(&b, 3);
    kh_cycle t = now_of(&b);
    wr(&b, KH_ORCH_SIG_DONE, 0);             /* clear acts at t+1 */
    inject_signal(&b, t + 1, 1, 0, 0x00, 0); /* not counted */
    run(&b, 4);
    CHECK_EQ(rd(&b, KH_ORCH_SIG_DONE), 0);
    /* ... but the mirror still counts it */
    uint64_t w = rd(&b, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 0));
    CHECK_EQ(kh_orch_node_status_count(&w), 2);
    done(&b);
}

static void node_status_count_wraps_at_16_bits(void)
{
    bench b = make(2);
    b.n->burst = signal_flit(1, 0, 0x40, 0);
    b.n->burst_at = 1;
    b.n->burst_left = 65537;
    kh_comp_wake(&b.n->base, 1);
    run(&b, 65540);
    uint64_t w = rd(&b, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 0));
    CHECK_EQ(kh_orch_node_status_count(&w), 1);
    CHECK_EQ(rd(&b, KH_ORCH_SIG_DONE), 1);
    done(&b);
}

/* ---- §2.7 mailbox -------------------------------------------------------- */

static kh_flit some_flit(void)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, 2);
    kh_hdr_set_dst_y(f.w, 2);
    kh_hdr_set_src_x(f.w, 5); /* the mailbox stamps nothing */
    kh_hdr_set_src_y(f.w, 6);
    kh_hdr_set_type(f.w, KH_T_CU_CTRL);
    kh_hdr_set_txn(f.w, 0x77);
    kh_hdr_set_last(f.w, 1);
    f.w[0] = 1;
    f.w[1] = 2;
    f.w[2] = 3;
    f.w[3] = 4;
    return f;
}

static void tx_kick_sends_the_mailbox_verbatim(void)
{
    bench b = make(2);
    kh_flit f = some_flit();
    for (unsigned k = 0; k < 5; k++) wr(&b, KH_ORCH_TX_FLIT + 8 * k, f.w[k]);
    wr(&b, KH_ORCH_TX_KICK, 0);
    run(&b, 10);
    CHECK_EQ(b.n->got, 1);
    CHECK(!memcmp(&b.n->got_f[0], &f, sizeof f));
    CHECK_EQ(rd(&b, KH_ORCH_TX_FLIT), 0); /* not read back */
    done(&b);
}

static void tx_kick_is_ignored_while_a_dispatch_runs(void)
{
    bench b = make(2);
    stage(&b, 0, 1, 1, 0);
    program(&b, 0, 1, 1, 0, 4);
    kh_flit f = some_flit();
    for (unsigned k = 0; k < 5; k++) wr(&b, KH_ORCH_TX_FLIT + 8 * k, f.w[k]);
    run(&b, 1);
    wr(&b, KH_ORCH_PROG_KICK, 1); /* beat t: run from t+1 to t+6 */
    run(&b, 3);
    wr(&b, KH_ORCH_TX_KICK, 1);   /* acts while running: ignored */
    run(&b, 30);
    CHECK_EQ(b.n->got, 1);
    done(&b);
}

static void tx_kick_in_the_end_of_dispatch_window_is_lost(void)
{
    /* Kick beat t: run is 1 during t+2..t+6 and drops after word 4; the push
     * is at t+8 (Open point 5). A TX_KICK judges run and TX-full in its beat
     * cycle and pushes one cycle later: a beat at t+6 is ignored (running),
     * one at t+7 pushes at t+8 with the dispatcher and is lost, one at t+8
     * goes out after the dispatched flit. */
    for (unsigned d = 6; d <= 8; d++) {
        bench b = make(2);
        stage(&b, 0, 1, 1, 0);
        program(&b, 0, 1, 1, 0, 4);
        kh_flit f = some_flit();
        for (unsigned k = 0; k < 5; k++) wr(&b, KH_ORCH_TX_FLIT + 8 * k, f.w[k]);
        run(&b, 1);
        wr(&b, KH_ORCH_PROG_KICK, 1);
        run(&b, d);
        uint64_t st = rd(&b, KH_ORCH_STATUS);
        if (d == 7) CHECK_EQ(kh_orch_status_busy(&st), 0); /* busy reads 0 in the window */
        wr(&b, KH_ORCH_TX_KICK, 1);
        run(&b, 30);
        CHECK_EQ(b.n->got, d == 8 ? 2u : 1u);
        CHECK_EQ(kh_hdr_type(b.n->got_f[0].w), KH_T_CU_INST);
        if (d == 8) CHECK_EQ(kh_hdr_type(b.n->got_f[1].w), KH_T_CU_CTRL);
        done(&b);
    }
}

static void rx_holds_non_signal_flits_until_popped(void)
{
    bench b = make(2);
    kh_flit f = some_flit();
    inject(&b, 1, &f);
    run(&b, 1);
    uint64_t w = rd(&b, KH_ORCH_RX_STATUS);
    CHECK_EQ(kh_orch_rx_status_empty(&w), 1);
    run(&b, 5);
    w = rd(&b, KH_ORCH_RX_STATUS);
    CHECK_EQ(kh_orch_rx_status_empty(&w), 0);
    for (unsigned k = 0; k < 5; k++) CHECK_EQ(rd(&b, KH_ORCH_RX_FLIT + 8 * k), f.w[k]);
    wr(&b, KH_ORCH_RX_POP, 1);
    run(&b, 2);
    w = rd(&b, KH_ORCH_RX_STATUS);
    CHECK_EQ(kh_orch_rx_status_empty(&w), 1);
    CHECK_EQ(kh_orch_rx_status_overflow(&w), 0);
    done(&b);
}

static void rx_overflow_drops_and_sticks_and_signals_set_it_too(void)
{
    bench b = make(2);
    kh_flit f = some_flit();
    for (unsigned i = 0; i < 17; i++) inject(&b, 1 + i, &f);
    run(&b, 20);
    for (unsigned i = 0; i < 16; i++) CHECK_EQ(b.n->in[i].taken, 1);
    CHECK_EQ(b.n->in[16].taken, 0); /* the hub drops it */
    uint64_t w = rd(&b, KH_ORCH_RX_STATUS);
    CHECK_EQ(kh_orch_rx_status_overflow(&w), 1);

    /* Open point 9: a CU_SIGNAL arriving with RX full is still absorbed but
     * sets the overflow bit. */
    bench c = make(2);
    for (unsigned i = 0; i < 16; i++) inject(&c, 1 + i, &f);
    inject_signal(&c, 20, 1, 0, 0, 0);
    run(&c, 25);
    CHECK_EQ(c.n->in[16].taken, 1);
    w = rd(&c, KH_ORCH_RX_STATUS);
    CHECK_EQ(kh_orch_rx_status_overflow(&w), 1);
    CHECK_EQ(rd(&c, KH_ORCH_SIG_DONE), 1);
    done(&b);
    done(&c);
}

/* ---- §2.8 AUX windows ---------------------------------------------------- */

static void aux_cfg_merges_with_the_shadow_of_the_same_address(void)
{
    bench b = make(2);
    wr(&b, KH_ORCH_AUX_CFG + 0x08, 0x1122334455667788u);
    run(&b, 1);
    kh_orch_write(b.o, KH_ORCH_AUX_CFG + 0x08, 0xAA, 0x01, now_of(&b));
    run(&b, 1);
    kh_orch_write(b.o, KH_ORCH_AUX_CFG + 0x10, 0xBB, 0x01, now_of(&b));
    run(&b, 1);
    kh_orch_write(b.o, KH_ORCH_AUX_CFG + 0x08, 0xCC00, 0x02, now_of(&b)); /* shadow was for 0x10: base 0 */
    run(&b, 3);
    CHECK_EQ(b.n->aux_writes, 4);
    CHECK_EQ(b.n->aux_reg[0], 0x08);
    CHECK_EQ(b.n->aux_val[0], 0x1122334455667788u);
    CHECK_EQ(b.n->aux_val[1], 0x11223344556677AAu);
    CHECK_EQ(b.n->aux_reg[2], 0x10);
    CHECK_EQ(b.n->aux_val[2], 0xBB);
    CHECK_EQ(b.n->aux_val[3], 0xCC00);
    CHECK_EQ(rd(&b, KH_ORCH_AUX_CFG + 8), 0); /* write-only */
    done(&b);
}

static void aux_cfg_acts_one_cycle_after_the_beat(void)
{
    bench b = make(2);
    run(&b, 4);
    kh_cycle t = now_of(&b);
    wr(&b, KH_ORCH_AUX_CFG + 0x88, 5); /* the interlink half goes to the same client hook */
    run(&b, 3);
    CHECK_EQ(b.n->aux_writes, 1);
    CHECK_EQ(b.n->aux_reg[0], 0x88);
    CHECK_EQ(b.n->aux_at[0], t + 1);
    done(&b);
}

static void aux_stat_and_statw_read_the_clients(void)
{
    bench b = make(2);
    CHECK_EQ(rd(&b, KH_ORCH_AUX_STAT), 0x123456789ABCDEF0u);
    CHECK_EQ(rd(&b, KH_ORCH_AUX_STATW), 0); /* no interlink */
    done(&b);
}

/* ---- hints ----------------------------------------------------------------- */

static void explain_names_a_program_without_last(void)
{
    bench b = make(2);
    stage(&b, 0, 0x33, 0, 0);
    program(&b, 0, 1, 1, 0, 4);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 20);
    inject_signal(&b, now_of(&b), 1, 0, 0x00, 0);
    run(&b, 5);
    char buf[1024];
    CHECK_EQ(kh_orch_explain(b.o, buf, sizeof buf), 1);
    CHECK(strstr(buf, "node (1,0)") != NULL);
    CHECK(strstr(buf, "last = 0") != NULL);
    done(&b);
}

int main(void)
{
    KH_RUN(caps_example_for_a_2x2_mesh);
    KH_RUN(status_reads_mesh_ready_when_idle);
    KH_RUN(write_is_visible_the_cycle_after_the_beat);
    KH_RUN(beat_without_strobes_has_no_effect);
    KH_RUN(prog_registers_need_a_strobe_in_byte_0_or_1);
    KH_RUN(ctrl_and_irq_en_merge_bytes_under_strobes);
    KH_RUN(irq_stat_is_never_set);
    KH_RUN(unlisted_offsets_read_zero_and_ignore_writes);
    KH_RUN(only_addr_15_0_is_decoded);
    KH_RUN(staging_ram_is_write_only);
    KH_RUN(staging_window_runs_to_0x33ff);
    KH_RUN(staging_writes_honour_strobes);
    KH_RUN(dispatch_pushes_8_cycles_after_the_kick_beat_then_every_5);
    KH_RUN(dispatch_stamps_dst_and_src_and_passes_the_rest);
    KH_RUN(prog_dst_is_sampled_at_the_push);
    KH_RUN(kick_is_ignored_while_running_or_with_len_0);
    KH_RUN(prog_stat_shows_run_left_and_credit);
    KH_RUN(word_0_needs_room_for_two_more_flits);
    KH_RUN(kick_past_the_staging_ram_is_refused);
    KH_RUN(older_dispatch_pushes_7_cycles_after_the_kick_beat_then_every_5);
    KH_RUN(credit_drops_after_word_0_push_two_after_word_4);
    KH_RUN(older_credit_drops_after_the_push_in_the_cycle_run_reads_0);
    KH_RUN(older_dispatch_stalls_at_any_word_without_credit);
    KH_RUN(program_longer_than_its_credit_stalls_until_inst_complete);
    KH_RUN(word_0_and_inst_complete_in_one_cycle_leave_credit_unchanged);
    KH_RUN(prog_cred_write_overrides_a_same_cycle_refill);
    KH_RUN(credit_wraps_at_16_bits);
    KH_RUN(reseeding_credit_restarts_a_stalled_dispatch);
    KH_RUN(node_status_records_code_arg_count_valid);
    KH_RUN(node_status_is_visible_the_cycle_after_the_signal);
    KH_RUN(node_status_writes_are_ignored);
    KH_RUN(sig_done_counts_every_code_and_clears_on_write);
    KH_RUN(sig_done_clear_and_increment_in_one_cycle_leave_0);
    KH_RUN(node_status_count_wraps_at_16_bits);
    KH_RUN(tx_kick_sends_the_mailbox_verbatim);
    KH_RUN(tx_kick_is_ignored_while_a_dispatch_runs);
    KH_RUN(tx_kick_in_the_end_of_dispatch_window_is_lost);
    KH_RUN(rx_holds_non_signal_flits_until_popped);
    KH_RUN(rx_overflow_drops_and_sticks_and_signals_set_it_too);
    KH_RUN(aux_cfg_merges_with_the_shadow_of_the_same_address);
    KH_RUN(aux_cfg_acts_one_cycle_after_the_beat);
    KH_RUN(aux_stat_and_statw_read_the_clients);
    KH_RUN(explain_names_a_program_without_last);
    return kh_test_end("t_orch");
}
