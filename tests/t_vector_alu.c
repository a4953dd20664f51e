/* vec_cu ALU opcodes, one kernel each (vector.md §5.1, §4.2 operand roles;
 * numerics §9): FP32 operands are filled from memory, loaded, operated on,
 * stored as FP32 and drained; the expected element values are computed here
 * in double from exact inputs, or are the worked examples of numerics §9. */
#include "vec_kit.h"

/* Exact inputs: multiples of 1/8 in [-8, 8) so every product, sum and FMA
 * here is exact in 16 significant bits. */
static double val(unsigned r, unsigned e)
{
    int k = (int)((e * 37 + r * 101 + e * e * 7 + 11) % 128) - 64;
    if (k == 0) k = 3;
    return k / 8.0;
}

static double D[4][128]; /* the inputs as numbers */

static void fill_inputs(vk_io *k)
{
    for (unsigned r = 0; r < 4; r++)
        for (unsigned e = 0; e < 128; e++) {
            D[r][e] = val(r, e);
            k->in[r][e] = vk_e8(D[r][e]);
        }
}

static vk_alu alu(unsigned op, unsigned vd, unsigned va, unsigned vb, unsigned vc)
{
    vk_alu a = {op, vd, va, vb, vc, 0, 0, 0, 0, 0};
    return a;
}

static vk_io K;

static void check_binary(unsigned op, double (*f)(double, double, double))
{
    memset(&K, 0, sizeof K);
    fill_inputs(&K);
    vk_emit(&K.body, vk_word_alu(alu(op, 4, 0, 1, 2)));
    K.out_reg = 4;
    vk_run_io(&K);
    CHECK_EQ(K.done.code, 0);
    for (unsigned e = 0; e < 128; e++) {
        uint32_t want = vk_e8(f(D[0][e], D[1][e], D[2][e]));
        if (K.out[e] != want) {
            kh_test_fail(__FILE__, __LINE__, "op %u element %u: got 0x%06x want 0x%06x", op, e,
                         K.out[e], want);
            return;
        }
    }
}

static double f_mov(double a, double b, double c) { (void)b; (void)c; return a; }
static double f_neg(double a, double b, double c) { (void)b; (void)c; return -a; }
static double f_abs(double a, double b, double c) { (void)b; (void)c; return fabs(a); }
static double f_add(double a, double b, double c) { (void)b; return a + c; }
static double f_sub(double a, double b, double c) { (void)b; return a - c; }
static double f_mul(double a, double b, double c) { (void)c; return a * b; }
static double f_fma(double a, double b, double c) { return a * b + c; }
static double f_fnma(double a, double b, double c) { return -a * b + c; }
static double f_max(double a, double b, double c) { (void)c; return a > b ? a : b; }
static double f_min(double a, double b, double c) { (void)c; return a < b ? a : b; }

static void vmov_copies_a(void) { check_binary(KH_VINNER_OP_VMOV, f_mov); }
static void vneg_flips_the_sign(void) { check_binary(KH_VINNER_OP_VNEG, f_neg); }
static void vabs_clears_the_sign(void) { check_binary(KH_VINNER_OP_VABS, f_abs); }
static void vadd_adds_a_and_c(void) { check_binary(KH_VINNER_OP_VADD, f_add); }
static void vsub_subtracts_c_from_a(void) { check_binary(KH_VINNER_OP_VSUB, f_sub); }
static void vmul_multiplies_a_and_b(void) { check_binary(KH_VINNER_OP_VMUL, f_mul); }
static void vfma_is_a_times_b_plus_c(void) { check_binary(KH_VINNER_OP_VFMA, f_fma); }
static void vfnma_is_minus_a_times_b_plus_c(void) { check_binary(KH_VINNER_OP_VFNMA, f_fnma); }
static void vmax_takes_the_larger(void) { check_binary(KH_VINNER_OP_VMAX, f_max); }
static void vmin_takes_the_smaller(void) { check_binary(KH_VINNER_OP_VMIN, f_min); }

/* SEL: c's magnitude bits nonzero selects a, else b (numerics §9.2). */
static void vsel_tests_the_raw_bits_of_c(void)
{
    memset(&K, 0, sizeof K);
    fill_inputs(&K);
    for (unsigned e = 0; e < 128; e++) {
        static const uint32_t cond[4] = {0x000000, 0x800000, 0x7FC000, 0x7F8000};
        K.in[2][e] = cond[e % 4]; /* +0, -0 select b; NaN and +Inf select a */
    }
    vk_emit(&K.body, vk_word_alu(alu(KH_VINNER_OP_VSEL, 4, 0, 1, 2)));
    K.out_reg = 4;
    vk_run_io(&K);
    for (unsigned e = 0; e < 128; e++) {
        uint32_t want = (e % 4) >= 2 ? K.in[0][e] : K.in[1][e];
        if (K.out[e] != want) {
            kh_test_fail(__FILE__, __LINE__, "element %u: got 0x%06x want 0x%06x", e, K.out[e], want);
            return;
        }
    }
}

/* A compare writes P[pr] (pm ignored); a predicated VMOV then copies v0 into
 * v3 where the bit is set (pm 1) and keeps v3 elsewhere. A VSETMODE between
 * them drains the lanes, so the predicate hazard of §11.1 is not in play. */
static void check_compare(unsigned op, int (*f)(double, double), int half_equal)
{
    memset(&K, 0, sizeof K);
    fill_inputs(&K);
    for (unsigned e = 0; half_equal && e < 128; e += 2) {
        D[1][e] = D[0][e];
        K.in[1][e] = K.in[0][e];
    }
    vk_alu c = alu(op, 9, 0, 1, 0);
    c.pr = 2;
    c.pm = 2; /* ignored by compares */
    vk_emit(&K.body, vk_word_alu(c));
    vk_emit(&K.body, vk_vsetmode(0));
    vk_alu m = alu(KH_VINNER_OP_VMOV, 3, 0, 0, 0);
    m.pm = 1;
    m.pr = 2;
    vk_emit(&K.body, vk_word_alu(m));
    K.out_reg = 3;
    vk_run_io(&K);
    for (unsigned e = 0; e < 128; e++) {
        uint32_t want = f(D[0][e], D[1][e]) ? K.in[0][e] : K.in[3][e];
        if (K.out[e] != want) {
            kh_test_fail(__FILE__, __LINE__, "op %u element %u: got 0x%06x want 0x%06x", op, e,
                         K.out[e], want);
            return;
        }
    }
}
static int c_lt(double a, double b) { return a < b; }
static int c_gt(double a, double b) { return a > b; }
static int c_eq(double a, double b) { return a == b; }
static void vcmplt_sets_p_where_a_lt_b(void) { check_compare(KH_VINNER_OP_VCMPLT, c_lt, 1); }
static void vcmpgt_sets_p_where_a_gt_b(void) { check_compare(KH_VINNER_OP_VCMPGT, c_gt, 1); }
static void vcmpeq_sets_p_where_a_eq_b(void) { check_compare(KH_VINNER_OP_VCMPEQ, c_eq, 1); }

/* The seeds, on the worked examples of numerics §9.4. */
static void check_seed(unsigned op, const uint32_t *in, const uint32_t *want, unsigned n)
{
    memset(&K, 0, sizeof K);
    fill_inputs(&K);
    for (unsigned e = 0; e < 128; e++) K.in[0][e] = in[e % n];
    vk_emit(&K.body, vk_word_alu(alu(op, 4, 0, 1, 2)));
    K.out_reg = 4;
    vk_run_io(&K);
    for (unsigned e = 0; e < 128; e++)
        if (K.out[e] != want[e % n]) {
            kh_test_fail(__FILE__, __LINE__, "op %u input 0x%06x: got 0x%06x want 0x%06x", op,
                         in[e % n], K.out[e], want[e % n]);
            return;
        }
}
static void vexp2_worked_examples(void)
{
    /* EXP2(0.5) = 0x3FB505, EXP2(-1) = 0x3F0000; the wrap: exp2(128) = +0,
     * exp2(200) = 2^-56, exp2(-200) = 2^56 */
    const uint32_t in[] = {vk_e8(0.5), vk_e8(-1), vk_e8(128), vk_e8(200), vk_e8(-200)};
    const uint32_t want[] = {0x3FB505, 0x3F0000, 0x000000, 0x238000, 0x5B8000};
    check_seed(KH_VINNER_OP_VEXP2, in, want, 5);
}
static void vlog2_worked_examples(void)
{
    const uint32_t in[] = {vk_e8(10), vk_e8(0.5), vk_e8(-1)};
    const uint32_t want[] = {0x40549A, 0xBF8000, 0x7FC000};
    check_seed(KH_VINNER_OP_VLOG2, in, want, 3);
}
static void vinv_worked_examples(void)
{
    const uint32_t in[] = {vk_e8(3), 0x000000};
    const uint32_t want[] = {0x3EAAAB, 0x7F8000};
    check_seed(KH_VINNER_OP_VINV, in, want, 2);
}
static void vrsqrt_worked_examples(void)
{
    /* rsqrt(-0) = -Inf on the seed-era core (numerics §9.4) */
    const uint32_t in[] = {vk_e8(2), vk_e8(4), vk_e8(8), 0x800000};
    const uint32_t want[] = {0x3F3505, 0x3F0000, 0x3EB505, 0xFF8000};
    check_seed(KH_VINNER_OP_VRSQRT, in, want, 4);
}

int main(void)
{
    KH_RUN(vmov_copies_a);
    KH_RUN(vneg_flips_the_sign);
    KH_RUN(vabs_clears_the_sign);
    KH_RUN(vadd_adds_a_and_c);
    KH_RUN(vsub_subtracts_c_from_a);
    KH_RUN(vmul_multiplies_a_and_b);
    KH_RUN(vfma_is_a_times_b_plus_c);
    KH_RUN(vfnma_is_minus_a_times_b_plus_c);
    KH_RUN(vmax_takes_the_larger);
    KH_RUN(vmin_takes_the_smaller);
    KH_RUN(vsel_tests_the_raw_bits_of_c);
    KH_RUN(vcmplt_sets_p_where_a_lt_b);
    KH_RUN(vcmpgt_sets_p_where_a_gt_b);
    KH_RUN(vcmpeq_sets_p_where_a_eq_b);
    KH_RUN(vexp2_worked_examples);
    KH_RUN(vlog2_worked_examples);
    KH_RUN(vinv_worked_examples);
    KH_RUN(vrsqrt_worked_examples);
    return kh_test_end("t_vector_alu");
}
