/* Chains, tails, predication and control (vector.md §5.1-§5.2, §5.6, §7):
 * D2/D4 chains with C/S/K selectors, the last stage's vd/pm/pr, compares in
 * chains, the VL tail, VSETI into S and K3, VSETMODE, and VLOOP's exact
 * mechanism including the armed-loop side effects. */
#include "vec_kit.h"

static vk_io K;

static double D0(unsigned e) { return ((int)(e % 13) - 6) / 4.0; }
static double D1(unsigned e) { return ((int)(e % 7) - 3) / 2.0; }
static double D2(unsigned e) { return ((int)(e % 5) + 1) / 8.0; }
static double D3(unsigned e) { return 100.0 + e; }

static void inputs(void)
{
    memset(&K, 0, sizeof K);
    for (unsigned e = 0; e < 128; e++) {
        K.in[0][e] = vk_e8(D0(e));
        K.in[1][e] = vk_e8(D1(e));
        K.in[2][e] = vk_e8(D2(e));
        K.in[3][e] = vk_e8(D3(e));
    }
}

static vk_alu A(unsigned op, unsigned vd, unsigned sa, unsigned va, unsigned sb, unsigned vb,
                unsigned sc, unsigned vc)
{
    vk_alu a = {op, vd, va, vb, vc, sa, sb, sc, 0, 0};
    return a;
}

/* D2: head MUL v0*v1 (vd ignored), stage ADD C + S5 -> the stage's vd. */
static void d2_chain_feeds_c_and_writes_the_last_vd(void)
{
    inputs();
    vk_seti(&K.body, 5, vk_e8(0.25));
    vk_emit(&K.body, vk_vsetmode(1));
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VMUL, 3, 0, 0, 0, 1, 0, 0)));
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VADD, 4, 2, 0, 1, 0, 1, 5)));
    vk_emit(&K.body, vk_vsetmode(0));
    K.out_reg = 4;
    vk_run_io(&K);
    CHECK_EQ(K.done.code, 0);
    for (unsigned e = 0; e < 128; e++) CHECK_EQ(K.out[e], vk_e8(D0(e) * D1(e) + 0.25));
}

/* The head's vd is not written (only the last stage's). */
static void chain_head_vd_is_ignored(void)
{
    inputs();
    vk_emit(&K.body, vk_vsetmode(1));
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VMUL, 3, 0, 0, 0, 1, 0, 0)));
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VNEG, 4, 2, 0, 1, 0, 1, 0)));
    vk_emit(&K.body, vk_vsetmode(0));
    K.out_reg = 3;
    vk_run_io(&K);
    for (unsigned e = 0; e < 128; e++) CHECK_EQ(K.out[e], K.in[3][e]);
}

/* D4: ((v0*v1 + K1) * S6) then NEG; every stage rounds (exact here). */
static void d4_chain_runs_four_stages(void)
{
    inputs();
    vk_seti(&K.body, 6, vk_e8(3.0));
    vk_emit(&K.body, vk_vsetmode(2));
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VMUL, 0, 0, 0, 0, 1, 0, 0)));
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VADD, 0, 2, 0, 1, 0, 3, 1)));  /* C + K1 */
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VMUL, 0, 2, 0, 1, 6, 1, 0)));  /* C * S6 */
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VNEG, 5, 2, 0, 1, 0, 1, 0)));  /* -C -> v5 */
    vk_emit(&K.body, vk_vsetmode(0));
    K.out_reg = 5;
    vk_run_io(&K);
    CHECK_EQ(K.done.code, 0);
    for (unsigned e = 0; e < 128; e++) {
        double x = (D0(e) * D1(e) + 1.0) * 3.0;
        /* NEG(+0) = +0: the product -0 takes the +0 addend's sign (numerics §9.3 item 2) */
        CHECK_EQ(K.out[e], x == 0 ? 0u : vk_e8(-x));
    }
}

/* A compare in an earlier stage passes 1.0 / +0 on as C; a compare in the
 * last stage writes P[pr_last]; the last stage's pm/pr predicate the write. */
static void chain_compares_and_predication(void)
{
    inputs();
    vk_emit(&K.body, vk_vsetmode(1));
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VCMPLT, 0, 0, 0, 0, 1, 0, 0))); /* C = v0<v1 ? 1 : 0 */
    vk_alu st = A(KH_VINNER_OP_VCMPEQ, 0, 2, 0, 3, 1, 1, 0);                      /* P2 = (C == K1) */
    st.pr = 2;
    vk_emit(&K.body, vk_word_alu(st));
    vk_emit(&K.body, vk_vsetmode(0));
    vk_alu mv = A(KH_VINNER_OP_VMOV, 3, 0, 2, 0, 0, 0, 0); /* v3 = v2 where !P2 */
    mv.pm = 2;
    mv.pr = 2;
    vk_emit(&K.body, vk_word_alu(mv));
    K.out_reg = 3;
    vk_run_io(&K);
    for (unsigned e = 0; e < 128; e++) CHECK_EQ(K.out[e], D0(e) < D1(e) ? K.in[3][e] : K.in[2][e]);
}

/* §5.1: ALU writes stop at VL; the destination keeps its tail. */
static void alu_writes_stop_at_vl(void)
{
    inputs();
    vk_seti(&K.body, 13, 37);
    vk_emit(&K.body, vk_vsetvl(13));
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VADD, 3, 0, 0, 0, 0, 0, 1)));
    vk_seti(&K.body, 13, 128);
    vk_emit(&K.body, vk_vsetvl(13));
    K.out_reg = 3;
    vk_run_io(&K);
    for (unsigned e = 0; e < 128; e++) CHECK_EQ(K.out[e], e < 37 ? vk_e8(D0(e) + D1(e)) : K.in[3][e]);
}

/* VSETI writes S[vd] raw, or K3 when sa = 3; selector K reads K[idx & 3]. */
static void vseti_writes_s_and_k3(void)
{
    inputs();
    vk_emit(&K.body, vk_vseti(0, 1));       /* K3 = 2.5 */
    vk_emit(&K.body, vk_imm(vk_e8(2.5)));
    vk_seti(&K.body, 9, vk_e8(-1.5));       /* S9 */
    vk_emit(&K.body, vk_word_alu(A(KH_VINNER_OP_VFMA, 3, 3, 7, 1, 9, 3, 2)));  /* K3 * S9 + K2 */
    K.out_reg = 3;
    vk_run_io(&K);
    for (unsigned e = 0; e < 128; e++) CHECK_EQ(K.out[e], vk_e8(2.5 * -1.5 - 1.0));
}

/* VSETMODE takes bits [14:13]. */
static void vsetmode_sets_the_mode(void)
{
    inputs();
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VSETMODE);
    kh_vinner_set_va(&w, 0xA); /* va = 0b1010: [14:13] = 2 (D4), [16:15] ignored */
    vk_emit(&K.body, (uint32_t)w);
    K.out_reg = 0;
    K.keep = 1;
    vk_run_io(&K);
    CHECK_EQ(vk_core(K.b)->st.vmode, 2);
    kh_ubench_free(K.b);
}

/* ---- VLOOP ---- */

/* v1 counts how often the body ran: VADD v1 = v1 + K1 at VL 16. */
static kh_ubench *loop_kernel(const vk_prog *p)
{
    kh_ubench *b = vk_bench(0);
    vk_load(b, 0, p);
    vk_run(b, 0);
    vk_go(b);
    return b;
}
static uint32_t vinc(void) { return vk_word_alu(A(KH_VINNER_OP_VADD, 1, 0, 1, 0, 0, 3, 1)); }
static void prologue(vk_prog *p, uint32_t count)
{
    vk_seti(p, 13, 16);
    vk_emit(p, vk_vsetvl(13));
    vk_seti(p, 2, count);
}

static void vloop_runs_the_body_count_times(void)
{
    static const uint32_t counts[] = {5, 1, 0, 3};
    static const double runs[] = {5, 1, 1, 3};
    for (unsigned i = 0; i < 4; i++) {
        vk_prog p = {.n = 0};
        prologue(&p, counts[i]);
        vk_emit(&p, vk_vloop(2, 3)); /* body: VSETI (two words) and VADD */
        vk_seti(&p, 4, 7);
        vk_emit(&p, vinc());
        vk_emit(&p, vk_vloop(2, 1)); /* a second loop after the first ended is fine */
        vk_emit(&p, vinc());
        vk_emit(&p, vk_vhalt());
        kh_ubench *b = loop_kernel(&p);
        CHECK_EQ(vk_last(b).code, 0);
        CHECK_EQ(vk_core(b)->st.v[1][0], vk_e8(2 * runs[i]));
        kh_ubench_free(b);
    }
}

/* vb = 0 runs nothing; with count > 1 the loop stays armed (§5.6). */
static void vloop_empty_body_stays_armed(void)
{
    vk_prog p = {.n = 0};
    prologue(&p, 3);
    vk_emit(&p, vk_vloop(2, 0));
    vk_emit(&p, vinc());         /* runs once, as ordinary code */
    vk_emit(&p, vk_vloop(2, 1)); /* F_LOOP: the first loop is still armed */
    vk_emit(&p, vk_vhalt());
    kh_ubench *b = loop_kernel(&p);
    CHECK_EQ(vk_last(b).code, 4);
    CHECK_EQ(vk_last(b).arg, 6);
    CHECK_EQ(vk_core(b)->st.v[1][0], vk_e8(1));
    CHECK_EQ(vk_core(b)->stats.loop_warnings, 1);
    kh_ubench_free(b);
}

/* An end that falls inside a chain group is stepped over: the body runs
 * once and the loop stays armed (§5.6). */
static void vloop_end_inside_a_chain_group(void)
{
    vk_prog p = {.n = 0};
    prologue(&p, 4);
    vk_emit(&p, vk_vsetmode(1));
    vk_emit(&p, vk_vloop(2, 1)); /* end = the chain's second word */
    vk_emit(&p, vk_word_alu(A(KH_VINNER_OP_VADD, 0, 0, 1, 0, 0, 3, 1)));
    vk_emit(&p, vk_word_alu(A(KH_VINNER_OP_VMOV, 1, 2, 0, 1, 0, 1, 0)));
    vk_emit(&p, vk_vsetmode(0));
    vk_emit(&p, vk_vloop(2, 1));
    vk_emit(&p, vk_vhalt());
    kh_ubench *b = loop_kernel(&p);
    CHECK_EQ(vk_last(b).arg, 6); /* F_LOOP */
    CHECK_EQ(vk_core(b)->st.v[1][0], vk_e8(1)); /* once */
    CHECK(vk_core(b)->stats.loop_warnings >= 1);
    kh_ubench_free(b);
}

/* A RUN disarms a loop left armed by the previous RUN. */
static void run_start_disarms_the_loop(void)
{
    vk_prog p = {.n = 0};
    prologue(&p, 3);
    vk_emit(&p, vk_vloop(2, 0));
    vk_emit(&p, vk_vhalt());
    vk_emit(&p, vk_vloop(2, 1)); /* pc 7: a second RUN starts here */
    vk_emit(&p, vinc());
    vk_emit(&p, vk_vhalt());
    kh_ubench *b = vk_bench(0);
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_run(b, 7);
    vk_go(b);
    CHECK_EQ(vk_last(b).code, 0);
    CHECK_EQ(vk_core(b)->st.v[1][0], vk_e8(3));
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(d2_chain_feeds_c_and_writes_the_last_vd);
    KH_RUN(chain_head_vd_is_ignored);
    KH_RUN(d4_chain_runs_four_stages);
    KH_RUN(chain_compares_and_predication);
    KH_RUN(alu_writes_stop_at_vl);
    KH_RUN(vseti_writes_s_and_k3);
    KH_RUN(vsetmode_sets_the_mode);
    KH_RUN(vloop_runs_the_body_count_times);
    KH_RUN(vloop_empty_body_stays_armed);
    KH_RUN(vloop_end_inside_a_chain_group);
    KH_RUN(run_start_disarms_the_loop);
    return kh_test_end("t_vector_ctl");
}
