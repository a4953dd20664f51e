/* The processor's pipeline costs (cpu.md §9, the only reference: there are
 * no recordings of it): the kick latency, load-use stalls, forwarding, the
 * branch predictor and its 3-cycle redirect, the multiply's stall, L1 hits
 * and misses against the DRAM latency, the push register. Cycles are the
 * core's own count: from the start pulse (kick + 2) to the halting
 * instruction's EX. */
#include "kohaku/gen/regs.h"
#include "kohaku/node.h"
#include "rv32_kit.h"

static uint32_t cycles_of(const uint32_t *c, unsigned n, const kh_params *p)
{
    rv_run r;
    rv_exec(&r, p, c, n, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    uint32_t cy = r.st.cycles;
    rv_done(&r);
    return cy;
}

/* §9.4: the first instruction is in EX at A + 5, three cycles after the
 * start pulse; then one instruction per cycle. */
static void kick_and_straight_line(void)
{
    uint32_t c[16];
    c[0] = RV_ECALL;
    CHECK_EQ(cycles_of(c, 1, NULL), 3);
    for (unsigned i = 0; i < 10; i++) c[i] = RV_ADDI(5, 5, 1); /* dependent chain: forwarded */
    c[10] = RV_ECALL;
    CHECK_EQ(cycles_of(c, 11, NULL), 13);
}

/* §9.1: load -> use by the next instruction 2 stalls, two later 1, three later 0. */
static void load_use(void)
{
    uint32_t c[16];
    unsigned n = rv_li(c, 1, 0x10000000);
    unsigned base = n;
    for (unsigned gap = 0; gap < 4; gap++) {
        n = base;
        c[n++] = RV_LW(5, 1, 0);
        for (unsigned g = 0; g < gap; g++) c[n++] = RV_NOP;
        c[n++] = RV_ADD(6, 5, 5);
        c[n++] = RV_ECALL;
        uint32_t stall = gap == 0 ? 2 : gap == 1 ? 1 : 0;
        CHECK_EQ(cycles_of(c, n, NULL), 3 + (n - 1) + stall);
    }
    /* a load's value used only as a store's address base also waits */
    n = base;
    c[n++] = RV_LW(5, 1, 0);
    c[n++] = RV_SW(1, 5, 4); /* uses x5 as data */
    c[n++] = RV_ECALL;
    CHECK_EQ(cycles_of(c, n, NULL), 3 + (n - 1) + 2);
}

/* §9.2: a taken branch the BTB does not predict costs 3; once trained
 * (counter 2) it costs 0; the loop exit is then a mispredict: 3. */
static void loop_branch_costs(void)
{
    for (unsigned iters = 1; iters <= 6; iters++) {
        uint32_t c[8];
        unsigned n = 0;
        c[n++] = RV_ADDI(5, 0, (int32_t)iters);
        c[n++] = RV_ADDI(5, 5, -1);      /* loop: */
        c[n++] = rv_b(1, 5, 0, -4);      /* bne x5, x0, loop */
        c[n++] = RV_ECALL;
        uint32_t insns = 1 + 2 * iters;
        /* one pass: not taken, not predicted: 0. More: the first taken pass is not predicted (3),
         * the later taken ones are (0), and the exit is predicted taken: a mispredict (3) */
        uint32_t penalty = iters == 1 ? 0 : 6;
        CHECK_EQ(cycles_of(c, n, NULL), 3 + insns + penalty);
    }
}

/* JAL and JALR: a taken jump the BTB does not predict costs 3. */
static void jump_cost(void)
{
    uint32_t c[8] = {rv_j(0, 8), RV_NOP, RV_ECALL};
    CHECK_EQ(cycles_of(c, 3, NULL), 3 + 1 + 3);
    uint32_t d[8];
    unsigned n = rv_li(d, 5, 0x10);
    d[n++] = rv_i(KH_RV32_OP_JALR, 0, 0, 5, 4); /* 0x08 -> 0x14 */
    d[n++] = RV_NOP;
    d[n++] = RV_NOP;
    d[n++] = RV_ECALL; /* 0x14 */
    CHECK_EQ(cycles_of(d, n, NULL), 3 + 3 + 3);
}

/* The multiply's 3 stall cycles (profile L). */
static void multiply_stall(void)
{
    kh_params p;
    kh_params_default(&p);
    p.l_rv32_mul = 1;
    uint32_t c[] = {rv_r(KH_RV32_OP_OP_REG, 0, 1, 5, 0, 0), RV_ECALL};
    CHECK_EQ(cycles_of(c, 2, &p), 3 + 1 + 3);
}

/* L1 (§9.3): a miss costs the converged path's latency plus fixed cycles;
 * a hit afterwards costs nothing extra. Raising dram_lat by 10 raises the
 * miss by exactly 10. A dirty victim adds its read-out and write. */
static void l1_miss_and_hit(void)
{
    uint32_t c[16];
    unsigned n = rv_li(c, 1, 0x80000000);
    c[n++] = RV_LW(5, 1, 0);
    c[n++] = RV_ECALL;
    uint32_t base = 3 + (n - 1);
    kh_params p;
    kh_params_default(&p);
    uint32_t miss = cycles_of(c, n, &p) - base;
    p.dram_lat += 10;
    uint32_t miss10 = cycles_of(c, n, &p) - base;
    CHECK_EQ(miss10, miss + 10);
    CHECK(miss > p.dram_lat - 10);
    /* the same line twice: the second is a hit */
    kh_params_default(&p);
    n = rv_li(c, 1, 0x80000000);
    c[n++] = RV_LW(5, 1, 0);
    c[n++] = RV_LW(6, 1, 4);
    c[n++] = RV_ECALL;
    CHECK_EQ(cycles_of(c, n, &p), 3 + (n - 1) + miss);
    /* a store dirties line 0; a load 4 KiB above (same index) evicts it; the
     * same with a load first (a clean victim) */
    n = rv_li(c, 1, 0x80000000);
    unsigned k = n;
    c[n++] = RV_SW(1, 0, 0);
    n += rv_li(c + n, 2, 0x80001000);
    c[n++] = RV_LW(6, 2, 0);
    c[n++] = RV_ECALL;
    uint32_t dirty = cycles_of(c, n, &p);
    c[k] = RV_LW(7, 1, 0);
    uint32_t clean = cycles_of(c, n, &p);
    CHECK(dirty >= clean + 10);
    CHECK(dirty <= clean + 10 + p.dram_wr_lat + 20);
}

/* A push store takes one cycle; a second while the one-entry push register
 * is full stalls until its two flits have left. */
static void push_register(void)
{
    uint32_t c[16];
    unsigned n = rv_li(c, 1, 0x30000000); /* (0,0), scratchpad, granule 0: a push to itself */
    c[n++] = RV_SW(1, 0, 0x40);
    c[n++] = RV_ECALL;
    uint32_t one = cycles_of(c, n, NULL);
    CHECK_EQ(one, 3 + (n - 1));
    n--;
    c[n++] = RV_SW(1, 0, 0x44);
    c[n++] = RV_ECALL;
    uint32_t two = cycles_of(c, n, NULL);
    CHECK(two >= one + 1 + 1); /* MEM waits for the first push's data flit to leave */
}

/* The BTB keeps its training across kicks (§10: not reset), so a
 * non-branch at a trained PC is "predicted taken" and pays 3. */
static void btb_alias_across_kicks(void)
{
    char err[512];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    static kh_rv32_image img;
    memset(&img, 0, sizeof img);
    img.imem[0] = RV_ADDI(5, 0, 3);
    img.imem[1] = RV_ADDI(5, 5, -1);
    img.imem[2] = rv_b(1, 5, 0, -4);
    img.imem[3] = RV_ECALL;
    img.imem_granules = 1;
    kh_rv32_result res;
    CHECK_EQ(kh_rv32_run(m, 0, &img, 0, 100000, &res, err, sizeof err), 0);
    /* the branch at 0x08 ended with counter 1? taken twice (1->2->3), not taken once (3->2): still taken */
    img.imem[2] = RV_NOP;
    CHECK_EQ(kh_rv32_run(m, 0, &img, 0, 100000, &res, err, sizeof err), 0);
    /* three instructions before the ECALL, and the NOP at the trained PC mispredicts */
    CHECK_EQ(res.cycles, 3 + 3 + 3);
    kh_machine_free(m);
}

/* §6.3: the k-th descriptor write reaches the mover in T + 3 + 6k (T: the
 * MVGO's MEM cycle), and a write acts one cycle later (memory.md §11.1): a
 * descriptor of n writes ending with GO makes the mover busy from
 * T + 3 + 6n + 1. The ECALL after the MVGO is in EX in cycle T. */
static void executor_write_times(void)
{
    for (unsigned n = 1; n <= 4; n++) {
        char err[512];
        kh_params p;
        kh_params_default(&p);
        /* a zero-time host: the load returns before the program has run */
        CHECK_EQ(kh_params_profile(&p, "host-zero", err, sizeof err), 0);
        kh_machine *m = kh_machine_new(NULL, &p, err, sizeof err);
        static kh_rv32_image img;
        memset(&img, 0, sizeof img);
        unsigned k = rv_li(img.imem, 1, 0xF0000000);
        img.imem[k++] = RV_ADDI(2, 0, 64);
        img.imem[k++] = RV_SW(1, 2, 0); /* MVGO 64 */
        img.imem[k++] = RV_ECALL;
        img.imem_granules = 1;
        /* n - 1 writes of the fill value, then GO of a one-word FILL (walkers at reset: 1 element) */
        uint32_t *d = &img.spad[64];
        d[0] = n;
        for (unsigned i = 0; i + 1 < n; i++) {
            d[1 + 3 * i] = 0x40;
            d[2 + 3 * i] = i;
        }
        d[1 + 3 * (n - 1)] = 0x00;
        d[2 + 3 * (n - 1)] = (uint32_t)rv_mover_ctrl(4, 2, 1);
        img.spad_lo = 8;
        img.spad_hi = 10; /* words 64..79 */
        CHECK_EQ(kh_rv32_host_load(kh_machine_card(m), 0, &img, 0, 1, 0, err, sizeof err), 0);
        kh_sim *sim = kh_machine_sim(m);
        kh_rv32 *cpu = kh_machine_cpu_at(m, 0);
        kh_cycle t = KH_NEVER, rise = KH_NEVER;
        for (unsigned c = 0; c < 5000 && rise == KH_NEVER; c++) {
            kh_cycle now = kh_sim_now(sim);
            uint64_t aux = kh_node_aux_stat(kh_machine_node(m), now);
            if (kh_orch_aux_stat_mover_busy(&aux)) rise = now;
            kh_sim_run(sim, 1);
            kh_rv32_state st;
            kh_rv32_get_state(cpu, &st);
            if (st.halted && t == KH_NEVER) t = now;
        }
        CHECK(t != KH_NEVER && rise != KH_NEVER);
        CHECK_EQ(rise - t, 3 + 6 * n + 1);
        kh_machine_free(m);
    }
}

int main(void)
{
    KH_RUN(kick_and_straight_line);
    KH_RUN(load_use);
    KH_RUN(loop_branch_costs);
    KH_RUN(jump_cost);
    KH_RUN(multiply_stall);
    KH_RUN(l1_miss_and_hit);
    KH_RUN(push_register);
    KH_RUN(btb_alias_across_kicks);
    KH_RUN(executor_write_times);
    return kh_test_end("t_rv32_timing");
}
