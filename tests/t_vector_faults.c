/* Faults 1-9 (vector.md §9): each provoked by a program (or, F_CUDATA, by an
 * inbound burst) and reported as a FAULT completion whose arg is the code;
 * what ran before the fault stays done and the next RUN is clean. */
#include "vec_kit.h"

/* Load p at 0 and a lone VHALT at 300, RUN 0 then RUN 300. */
static kh_ubench *run_two(const vk_prog *p)
{
    kh_ubench *b = vk_bench(0);
    vk_load(b, 0, p);
    vk_imem(b, 300, vk_vhalt());
    vk_desc1(b, 1, 0x1000, 32, 1);
    vk_run(b, 0);
    vk_run(b, 300);
    vk_go(b);
    return b;
}

/* The RUN of p faults with `code`; the following RUN retires cleanly. */
static void expect_fault(const vk_prog *p, unsigned code)
{
    kh_ubench *b = run_two(p);
    unsigned n = vk_ncompletions(b);
    vk_comp c;
    CHECK(n >= 2);
    vk_completion(b, n - 2, &c);
    CHECK_EQ(c.code, 4); /* SIG_FAULT (flits.md §5) */
    CHECK_EQ(c.arg, code);
    CHECK_EQ(c.txn, VK_TXN);
    vk_completion(b, n - 1, &c);
    CHECK_EQ(c.code, 0);
    CHECK_EQ(c.arg, 5); /* a lone VHALT: F2 DEC EXEC WAITP HALT */
    kh_ubench_free(b);
}

static void f_dtype_vld_vst_vcvt(void)
{
    static const unsigned dts[] = {0, 3, 7};
    for (unsigned i = 0; i < 3; i++) {
        vk_prog p = {.n = 0};
        vk_emit(&p, vk_vld(0, 1, 0, dts[i]));
        vk_emit(&p, vk_vhalt());
        expect_fault(&p, 1);
        p.n = 0;
        vk_emit(&p, vk_vst(0, 1, 0, dts[i]));
        vk_emit(&p, vk_vhalt());
        expect_fault(&p, 1);
        p.n = 0;
        vk_emit(&p, vk_vcvt(0, 1, dts[i]));
        vk_emit(&p, vk_vhalt());
        expect_fault(&p, 1);
    }
}

static uint32_t alu_sel(unsigned op, unsigned sa, unsigned sb, unsigned sc)
{
    vk_alu a = {op, 1, 2, 3, 4, sa, sb, sc, 0, 0};
    return vk_word_alu(a);
}

/* A later chain stage must not name V, even on an operand it ignores. */
static void f_vsrc_in_a_chain_stage(void)
{
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vsetmode(1));
    vk_emit(&p, alu_sel(KH_VINNER_OP_VMUL, 0, 0, 1));
    vk_emit(&p, alu_sel(KH_VINNER_OP_VADD, 2, 0, 1)); /* VADD ignores b, sb = V still faults */
    vk_emit(&p, vk_vhalt());
    expect_fault(&p, 2);
    p.n = 0; /* D4: the fourth stage */
    vk_emit(&p, vk_vsetmode(2));
    vk_emit(&p, alu_sel(KH_VINNER_OP_VMUL, 0, 0, 1));
    vk_emit(&p, alu_sel(KH_VINNER_OP_VNEG, 2, 1, 1));
    vk_emit(&p, alu_sel(KH_VINNER_OP_VABS, 2, 1, 1));
    vk_emit(&p, alu_sel(KH_VINNER_OP_VMOV, 2, 1, 0));
    vk_emit(&p, vk_vhalt());
    expect_fault(&p, 2);
}

/* A chain head (every FLAT ALU op) must not name C. */
static void f_chain_in_a_head(void)
{
    vk_prog p = {.n = 0};
    vk_emit(&p, alu_sel(KH_VINNER_OP_VMOV, 0, 0, 2)); /* MOV ignores c, sc = C still faults */
    vk_emit(&p, vk_vhalt());
    expect_fault(&p, 3);
    p.n = 0;
    vk_emit(&p, vk_vsetmode(1));
    vk_emit(&p, alu_sel(KH_VINNER_OP_VADD, 2, 0, 0));
    vk_emit(&p, alu_sel(KH_VINNER_OP_VADD, 2, 1, 1));
    vk_emit(&p, vk_vhalt());
    expect_fault(&p, 3);
}

/* VRED kinds 0-5 outside TREE; and (our choice, Open point 5) an ALU op in TREE. */
static void f_opcode_vred_outside_tree_and_alu_in_tree(void)
{
    for (unsigned kind = 0; kind < 6; kind++) {
        vk_prog p = {.n = 0};
        vk_emit(&p, vk_vred(kind, 1, 0, 1, 0));
        vk_emit(&p, vk_vhalt());
        expect_fault(&p, 4);
    }
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vsetmode(3));
    for (int i = 0; i < 4; i++) vk_emit(&p, alu_sel(KH_VINNER_OP_VADD, i ? 2 : 0, i ? 1 : 0, i ? 1 : 0));
    vk_emit(&p, vk_vhalt());
    expect_fault(&p, 4);
}

/* A walk longer than 256 words, VFILL and VDRAIN. */
static void f_len_walk_over_256(void)
{
    kh_ubench *b = vk_bench(0);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vfill(2, 0));
    vk_emit(&p, vk_vhalt());
    vk_emit(&p, vk_vdrain(3, 0)); /* pc 2 */
    vk_emit(&p, vk_vhalt());
    vk_emit(&p, vk_vfill(4, 0)); /* pc 4: exactly 256 is fine */
    vk_emit(&p, vk_vbar());
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_desc1(b, 2, 0x10000, 32, 17);
    vk_desc_dim(b, 2, 1, 1024, 16); /* 17 x 16 = 272 */
    vk_desc1(b, 3, 0x10000, 32, 257);
    vk_desc1(b, 4, 0x10000, 32, 16);
    vk_desc_dim(b, 4, 1, 1024, 16); /* 256 */
    vk_run(b, 0);
    vk_run(b, 2);
    vk_run(b, 4);
    vk_go(b);
    unsigned n = vk_ncompletions(b);
    vk_comp c;
    vk_completion(b, n - 3, &c);
    CHECK_EQ(c.code, 4);
    CHECK_EQ(c.arg, 5);
    vk_completion(b, n - 2, &c);
    CHECK_EQ(c.code, 4);
    CHECK_EQ(c.arg, 5);
    vk_completion(b, n - 1, &c);
    CHECK_EQ(c.code, 0);
    CHECK_EQ(kh_ubench_nreq(b), 256);
    kh_ubench_free(b);
}

static void f_loop_nested(void)
{
    vk_prog p = {.n = 0};
    vk_seti(&p, 1, 2);
    vk_emit(&p, vk_vloop(1, 2));
    vk_emit(&p, vk_vloop(1, 1));
    vk_emit(&p, vk_vhalt());
    vk_emit(&p, vk_vhalt());
    expect_fault(&p, 6);
}

static void f_vl_zero_and_over_128(void)
{
    static const uint32_t bad[] = {0, 129, 0xFFFFFF};
    for (unsigned i = 0; i < 3; i++) {
        vk_prog p = {.n = 0};
        vk_seti(&p, 1, bad[i]);
        vk_emit(&p, vk_vsetvl(1));
        vk_emit(&p, vk_vhalt());
        expect_fault(&p, 7);
    }
}

static void f_redvl_in_tree(void)
{
    vk_prog p = {.n = 0};
    vk_seti(&p, 1, 20);
    vk_emit(&p, vk_vsetvl(1));
    vk_emit(&p, vk_vsetmode(3));
    vk_emit(&p, vk_vred(1, 2, 0, 0, 0));
    vk_emit(&p, vk_vhalt());
    expect_fault(&p, 8);
}

/* What ran before a fault stays done (§9). */
static void work_before_a_fault_stays_done(void)
{
    kh_ubench *b = vk_bench(0);
    vk_prog p = {.n = 0};
    vk_seti(&p, 5, 0x123456);
    vk_seti(&p, 1, 0);
    vk_emit(&p, vk_vsetvl(1));
    vk_seti(&p, 6, 0x654321); /* not reached */
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(vk_last(b).arg, 7);
    CHECK_EQ(vk_core(b)->st.s[5], 0x123456u);
    CHECK_EQ(vk_core(b)->st.s[6], 0u);
    kh_ubench_free(b);
}

/* F_CUDATA: a rejected burst before a RUN faults that RUN at its start; one
 * arriving while a kernel runs faults it at the next fetch (§1.4). */
static void f_cudata_at_run_start(void)
{
    kh_ubench *b = vk_bench(0);
    kh_flit d = vk_cudata_desc(1, 0, 1, 0, 2), w0 = vk_cudata_word(0, 2, 5, 0), w1 = vk_cudata_word(0, 2, 6, 1);
    kh_ubench_inject(b, &d, 0);
    kh_ubench_inject(b, &w0, 0);
    kh_ubench_inject(b, &w1, 0);
    vk_prog p = {.n = 0};
    vk_emit(&p, alu_sel(KH_VINNER_OP_VMOV, 0, 0, 0));
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_run(b, 1);
    vk_go(b);
    unsigned n = vk_ncompletions(b);
    vk_comp c;
    vk_completion(b, n - 2, &c);
    CHECK_EQ(c.code, 4);
    CHECK_EQ(c.arg, 9);
    vk_completion(b, n - 1, &c);
    CHECK_EQ(c.code, 0); /* reported once, then clear */
    CHECK_EQ(vk_core(b)->st.l1[0][0], 0u); /* nothing written */
    kh_ubench_free(b);
}

static void f_cudata_while_running(void)
{
    kh_ubench *b = vk_bench(0);
    kh_flit d = vk_cudata_desc(0, 510, 2, 0, 2); /* 510 + 2 >= 512: rejected */
    kh_ubench_inject(b, &d, 100);
    for (int i = 0; i < 3; i++) {
        kh_flit w = vk_cudata_word(0, 2, 7, i == 2);
        kh_ubench_inject(b, &w, 100);
    }
    vk_prog p = {.n = 0};
    vk_seti(&p, 1, 200);
    vk_emit(&p, vk_vloop(1, 1));
    vk_emit(&p, vk_vsetmode(0)); /* 200 x 4 cycles: the burst lands meanwhile */
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(vk_last(b).code, 4);
    CHECK_EQ(vk_last(b).arg, 9);
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(f_dtype_vld_vst_vcvt);
    KH_RUN(f_vsrc_in_a_chain_stage);
    KH_RUN(f_chain_in_a_head);
    KH_RUN(f_opcode_vred_outside_tree_and_alu_in_tree);
    KH_RUN(f_len_walk_over_256);
    KH_RUN(f_loop_nested);
    KH_RUN(f_vl_zero_and_over_128);
    KH_RUN(f_redvl_in_tree);
    KH_RUN(work_before_a_fault_stays_done);
    KH_RUN(f_cudata_at_run_start);
    KH_RUN(f_cudata_while_running);
    return kh_test_end("t_vector_faults");
}
