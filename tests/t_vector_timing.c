/* RUN's busy-cycle count (vector.md §10.1): the sequencer state costs, each
 * instruction's total computed here from the §10.1 table, for kernels whose
 * wait terms are zero; and one kernel whose only wait is the lane drain at
 * VHALT, from the documented lane model (ALAT, the fitted lane tail). */
#include "vec_kit.h"

static uint32_t run_cycles(const vk_prog *p)
{
    kh_ubench *b = vk_bench(0);
    vk_desc1(b, 5, 0, 1, 512);
    vk_load(b, 0, p);
    vk_run(b, 0);
    vk_go(b);
    vk_comp c = vk_last(b);
    CHECK_EQ(c.code, 0);
    kh_ubench_free(b);
    return c.arg;
}

/* Not the first instruction: F1 F2 DEC EXEC = 4, then per §10.1. The first
 * skips F1. nc = ceil(VL/16). */
static void state_costs_without_waits(void)
{
    const unsigned nc = 8; /* VL 128 */
    vk_prog p = {.n = 0};
    unsigned want = 0;
    vk_emit(&p, vk_vsetmode(0));       want += 3;               /* first: F2 DEC EXEC */
    vk_emit(&p, vk_vld(0, 5, 0, 1));   want += 5 + 4 * nc;      /* AGW + LDA LDW LDQ LDD */
    vk_emit(&p, vk_vld(1, 5, 8, 2));   want += 5 + 8 * nc;
    vk_emit(&p, vk_vst(0, 5, 40, 1));  want += 5 + 3 * nc;      /* AGW + STR STW STD */
    vk_emit(&p, vk_vst(1, 5, 60, 2));  want += 5 + 4 * nc;      /* STD twice */
    vk_emit(&p, vk_vcvt(2, 0, 1));     want += 5 + 3 * nc;
    vk_emit(&p, vk_vshuf(3, 0, 4));    want += 5 + 3 * nc;
    vk_emit(&p, vk_vbcast_v(4, 4));    want += 5 + 3 * nc;
    vk_emit(&p, vk_vbcast_s(4, 0));    want += 8;               /* one chunk */
    vk_seti(&p, 6, 3);                 want += 6;               /* SETI SETI2 */
    vk_emit(&p, vk_vloop(6, 1));       want += 4;
    vk_emit(&p, vk_vsetvl(6));         want += 3 * 4;           /* the body, three times */
    vk_emit(&p, vk_vred(6, 7, 0, 0, 0)); want += 4;             /* ANY */
    vk_emit(&p, vk_vbar());            want += 5;               /* BAR 1, nothing in flight */
    vk_emit(&p, vk_vhalt());           want += 6;               /* WAITP 1, HALT 1 */
    CHECK_EQ(run_cycles(&p), want);
}

/* The lone VHALT of the recordings: F2 DEC EXEC WAITP HALT. */
static void lone_vhalt_is_five(void)
{
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vhalt());
    CHECK_EQ(run_cycles(&p), 5);
}

/* FLAT: ALU state = nc beats + 1; D2: 4 gather cycles, 2 nc beats + 1. The
 * VHALT then waits until the lanes are empty: ALAT·D after the last chunk's
 * first beat, then the lane tail (vec.h VEC_T_LANE_TAIL). */
static void alu_issue_and_lane_drain(void)
{
    kh_params prm;
    kh_params_default(&prm);
    const unsigned alat = (unsigned)prm.vec_alat, nc = 8;
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vsetmode(1)); /* 3 */
    vk_alu h = {KH_VINNER_OP_VMUL, 0, 1, 2, 0, 0, 0, 0, 0, 0};
    vk_alu s = {KH_VINNER_OP_VNEG, 3, 0, 0, 0, 2, 1, 1, 0, 0};
    vk_emit(&p, vk_word_alu(h));
    vk_emit(&p, vk_word_alu(s));
    vk_emit(&p, vk_vhalt());
    /* chain: F1 F2 DEC EXEC at 3..6, gather 7..10, beats 11..26, +1 -> VHALT at 28 */
    unsigned b0 = 3 + 4 + 4, last_wb = b0 + (nc - 1) * 2 + alat * 2;
    unsigned idle = last_wb + 1 + VEC_T_LANE_TAIL;
    unsigned waitp = idle;                    /* WAITP ends when the lanes are empty */
    unsigned exec = b0 + 2 * nc + 1 + 3;      /* VHALT's EXEC */
    if (waitp < exec + 1) waitp = exec + 1;
    CHECK_EQ(run_cycles(&p), waitp + 1 + 1);  /* + HALT, counted from 0 */
}

/* A RUN that faults: cycles from the completion before it (the last DESC
 * write) to the fault's completion, the case of vectors/vector.jsonl case 40
 * with its first word replaced. Upstream 7703ee8 in the recording bench:
 * a decode fault (VLD dt 3, F_DTYPE) 8 cycles after, a walk over 256 words
 * (VFILL or VDRAIN of 512, F_LEN) 13: the length is checked in S_MEM0,
 * after S_AGW and S_MEMW1-3 (docs/timing.md "Vector"). */
static kh_cycle fault_after_desc(uint32_t first)
{
    kh_ubench *b = vk_bench(1);
    vk_prog p = {.n = 0};
    vk_emit(&p, first);
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_desc1(b, 3, 0, 1, 512);
    vk_run(b, 0);
    vk_go(b);
    kh_cycle at[2] = {0, 0};
    unsigned n = 0;
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) != KH_T_CU_SIGNAL) continue;
        at[0] = at[1];
        at[1] = r->cycle;
        n++;
    }
    CHECK_EQ(n, 5);
    CHECK_EQ(vk_last(b).code, 4);
    kh_ubench_free(b);
    return at[1] - at[0];
}

static void walk_length_fault_comes_after_the_walk_setup(void)
{
    CHECK_EQ(fault_after_desc(vk_vld(0, 3, 0, 3)), 8);
    CHECK_EQ(fault_after_desc(vk_vfill(3, 0)), 13);
    CHECK_EQ(fault_after_desc(vk_vdrain(3, 0)), 13);
}

int main(void)
{
    KH_RUN(walk_length_fault_comes_after_the_walk_setup);
    KH_RUN(state_costs_without_waits);
    KH_RUN(lone_vhalt_is_five);
    KH_RUN(alu_issue_and_lane_drain);
    return kh_test_end("t_vector_timing");
}
