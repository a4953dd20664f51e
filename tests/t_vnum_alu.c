/* The vector ALU (numerics.md §9-§10): compares, operand substitution, the
 * FMA with its three non-IEEE behaviours, the seeds and their tables. The
 * FMA is checked against an exactly rounded reference (128-bit integers)
 * that allows only the deviations the text names. */
#include <math.h>
#include <string.h>

#include "kohaku/vnum.h"
#include "support/test.h"

typedef unsigned __int128 u128;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static kh_e8 alu(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c) { return kh_valu(op, a, b, c, NULL, 0); }

/* E8M15 of a double that is exactly representable (test constants). */
static kh_e8 e8(double x)
{
    if (x == 0) return signbit(x) ? 0x800000 : 0;
    int ex;
    double m = frexp(fabs(x), &ex);
    uint32_t sig = (uint32_t)ldexp(m, 16);
    return (uint32_t)(x < 0) << 23 | (uint32_t)(ex - 1 + 127) << 15 | (sig - 0x8000);
}

static double val(kh_e8 v)
{
    unsigned e = (v >> 15) & 0xFF;
    double m = e ? ldexp((double)(0x8000 | (v & 0x7FFF)), (int)e - 127 - 15) : 0;
    return v >> 23 & 1 ? -m : m;
}

/* ---- worked examples (numerics §9.3, §9.4) ------------------------------- */

static void valu_fma_worked_examples(void)
{
    CHECK_EQ(alu(KH_VALU_FMA, e8(1.5), e8(2.0), e8(0.25)), 0x405000);
    CHECK_EQ(alu(KH_VALU_ADD, e8(1.0), 0, e8(ldexp(1, -20))), 0x3F8000);
    CHECK_EQ(alu(KH_VALU_SUB, e8(1.0), 0, e8(1.0)), 0x000000);
    CHECK_EQ(alu(KH_VALU_MUL, e8(ldexp(1, 100)), e8(ldexp(1, 100)), 0), 0x7F8000);
    CHECK_EQ(alu(KH_VALU_MUL, e8(ldexp(1, -100)), e8(ldexp(1, -100)), 0), 0x000000);
    CHECK_EQ(alu(KH_VALU_ADD, KH_E8_POS_INF, 0, KH_E8_NEG_INF), KH_E8_QNAN);
    CHECK_EQ(alu(KH_VALU_MUL, 0, KH_E8_POS_INF, 0), KH_E8_QNAN);
}

/* Non-IEEE 1: a zero addend sets the sticky, a halfway product rounds away. */
static void valu_zero_addend_rounds_ties_away(void)
{
    CHECK_EQ(alu(KH_VALU_MUL, 0x3FD600, 0x3FBCC0, 0), 0x401DC9); /* IEEE: 0x401DC8 */
    CHECK_EQ(alu(KH_VALU_FMA, 0x3FD600, 0x3FBCC0, 0x800000), 0x401DC9);
    CHECK_EQ(alu(KH_VALU_FMA, 0x3FD600, 0x3FBCC0, 0x000000), 0x401DC9);
    CHECK_EQ(alu(KH_VALU_FNMA, 0x3FD600, 0x3FBCC0, 0), 0xC01DC9);
}

/* Non-IEEE 2: a zero sum takes the addend's sign when the signs differ. */
static void valu_signed_zero_of_zero_sum(void)
{
    CHECK_EQ(alu(KH_VALU_ADD, 0x000000, 0, 0x800000), 0x800000); /* (+0) + (-0) = -0 */
    CHECK_EQ(alu(KH_VALU_ADD, 0x800000, 0, 0x000000), 0x000000); /* (-0) + (+0) = +0 */
    CHECK_EQ(alu(KH_VALU_ADD, 0x800000, 0, 0x800000), 0x800000);
    CHECK_EQ(alu(KH_VALU_SUB, e8(-2.5), 0, e8(-2.5)), 0x000000);  /* x - x = +0 */
    CHECK_EQ(alu(KH_VALU_MOV, 0x800000, 0, 0), 0x000000);         /* -0 * 1 + 0 */
    CHECK_EQ(alu(KH_VALU_NEG, 0x000000, 0, 0), 0x000000);
}

/* Non-IEEE 3: a far addend on subtraction is only a sticky: one ulp high. */
static void valu_far_subtraction_can_be_one_ulp_high(void)
{
    /* 1 + 2^-15 (odd last bit) ... as a halfway product: (1 + 2^-15)(1 + 2^-16)
     * is not representable; use the tie 1.0000305 = 1 + 2^-15 + 2^-16 made by
     * (1 + 2^-15) * (1 + 2^-16) ~ tie + 2^-31; subtracting a far tiny addend
     * must round down under IEEE when it lands exactly on a tie. */
    kh_e8 a = 0x3F8001, b = e8(1.5);             /* a*b = 1.5 + 1.5*2^-15: tie at 16 bits */
    kh_e8 c = e8(-ldexp(1, -60));                /* far below: s >= 33 */
    kh_e8 got = alu(KH_VALU_FMA, a, b, c);
    /* exact: 1.5 * (1 + 2^-15) - 2^-60, just under the tie -> IEEE rounds to
     * even below (0x3FC001); the RTL sees only a sticky and rounds up */
    CHECK_EQ(got, 0x3FC002);
}

/* An addend bit that falls just off the 48-bit window (s = 33) still
 * counts as sticky: 1 + 2^-16 + 2^-31 is above the tie, rounds up. */
static void valu_addend_bit_off_the_window_is_sticky(void)
{
    CHECK_EQ(alu(KH_VALU_FMA, KH_E8_ONE, KH_E8_ONE, 0x378001), 0x3F8001);
    CHECK_EQ(alu(KH_VALU_ADD, KH_E8_ONE, 0, 0x378000), 0x3F8000); /* exact tie: to even */
}

static void valu_seed_worked_examples(void)
{
    CHECK_EQ(alu(KH_VALU_EXP2, e8(0.5), 0, 0), 0x3FB505);
    CHECK_EQ(alu(KH_VALU_EXP2, e8(-1), 0, 0), 0x3F0000);
    CHECK_EQ(alu(KH_VALU_LOG2, e8(10), 0, 0), 0x40549A);
    CHECK_EQ(alu(KH_VALU_LOG2, e8(0.5), 0, 0), 0xBF8000);
    CHECK_EQ(alu(KH_VALU_INV, e8(3), 0, 0), 0x3EAAAB);
    CHECK_EQ(alu(KH_VALU_RSQRT, e8(2), 0, 0), 0x3F3505);
    CHECK_EQ(alu(KH_VALU_RSQRT, e8(4), 0, 0), 0x3F0000);
    CHECK_EQ(alu(KH_VALU_RSQRT, e8(8), 0, 0), 0x3EB505);
    CHECK_EQ(alu(KH_VALU_INV, 0, 0, 0), 0x7F8000);
    CHECK_EQ(alu(KH_VALU_LOG2, e8(-1), 0, 0), 0x7FC000);
    CHECK_EQ(alu(KH_VALU_EXP2, 0, 0, 0), KH_E8_ONE);
}

/* The EXP2 argument register is 25-bit signed: 128 <= |x| < 256 wraps. */
static void valu_exp2_argument_wraps(void)
{
    CHECK_EQ(alu(KH_VALU_EXP2, e8(128), 0, 0), 0x000000);
    CHECK_EQ(alu(KH_VALU_EXP2, e8(200), 0, 0), 0x238000);  /* 2^-56 */
    CHECK_EQ(alu(KH_VALU_EXP2, e8(-200), 0, 0), 0x5B8000); /* 2^56 */
    CHECK_EQ(alu(KH_VALU_EXP2, e8(256), 0, 0), KH_E8_POS_INF);
    CHECK_EQ(alu(KH_VALU_EXP2, e8(-256), 0, 0), 0x000000);
    CHECK_EQ(alu(KH_VALU_EXP2, e8(127), 0, 0), 0x7F0000);  /* 2^127, no wrap yet */
    CHECK_EQ(alu(KH_VALU_EXP2, e8(-126), 0, 0), 0x008000); /* 2^-126 */
    CHECK_EQ(alu(KH_VALU_EXP2, e8(-127), 0, 0), 0x000000); /* flushes */
}

/* numerics §9.4 specials table, row by row. */
static void valu_seed_specials(void)
{
    kh_e8 nan = 0x7F8001, neg_nan = 0xFFC123;
    unsigned ops[4] = {KH_VALU_EXP2, KH_VALU_LOG2, KH_VALU_INV, KH_VALU_RSQRT};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(alu(ops[i], nan, 0, 0), KH_E8_QNAN);
        CHECK_EQ(alu(ops[i], neg_nan, 0, 0), KH_E8_QNAN);
    }
    CHECK_EQ(alu(KH_VALU_EXP2, KH_E8_POS_INF, 0, 0), KH_E8_POS_INF);
    CHECK_EQ(alu(KH_VALU_EXP2, KH_E8_NEG_INF, 0, 0), 0);
    CHECK_EQ(alu(KH_VALU_LOG2, 0x000000, 0, 0), KH_E8_NEG_INF);
    CHECK_EQ(alu(KH_VALU_LOG2, 0x800000, 0, 0), KH_E8_NEG_INF);
    CHECK_EQ(alu(KH_VALU_LOG2, 0x007FFF, 0, 0), KH_E8_NEG_INF); /* E = 0 is zero */
    CHECK_EQ(alu(KH_VALU_LOG2, KH_E8_POS_INF, 0, 0), KH_E8_POS_INF);
    CHECK_EQ(alu(KH_VALU_LOG2, KH_E8_NEG_INF, 0, 0), KH_E8_QNAN);
    CHECK_EQ(alu(KH_VALU_LOG2, e8(1), 0, 0), 0);
    CHECK_EQ(alu(KH_VALU_INV, 0x800000, 0, 0), KH_E8_NEG_INF);
    CHECK_EQ(alu(KH_VALU_INV, KH_E8_POS_INF, 0, 0), 0x000000);
    CHECK_EQ(alu(KH_VALU_INV, KH_E8_NEG_INF, 0, 0), 0x800000);
    CHECK_EQ(alu(KH_VALU_INV, e8(-4), 0, 0), e8(-0.25));
    CHECK_EQ(alu(KH_VALU_RSQRT, 0x000000, 0, 0), KH_E8_POS_INF);
    CHECK_EQ(alu(KH_VALU_RSQRT, 0x800000, 0, 0), KH_E8_NEG_INF); /* S and L */
    CHECK_EQ(kh_valu(KH_VALU_RSQRT, 0x800000, 0, 0, NULL, KH_VALU_OLD_RSQRT_NEG_ZERO), KH_E8_POS_INF);
    CHECK_EQ(kh_valu(KH_VALU_RSQRT, 0x000000, 0, 0, NULL, KH_VALU_OLD_RSQRT_NEG_ZERO), KH_E8_POS_INF);
    CHECK_EQ(alu(KH_VALU_RSQRT, KH_E8_POS_INF, 0, 0), 0);
    CHECK_EQ(alu(KH_VALU_RSQRT, e8(-1), 0, 0), KH_E8_QNAN);
    CHECK_EQ(alu(KH_VALU_RSQRT, KH_E8_NEG_INF, 0, 0), KH_E8_QNAN);
    /* INV of the largest values flushes, of the smallest overflows */
    CHECK_EQ(alu(KH_VALU_INV, 0x7F7FFF, 0, 0), 0);
    CHECK_EQ(alu(KH_VALU_INV, 0x008000, 0, 0), 0x7E8000); /* 1 / 2^-126 = 2^126 */
}

/* numerics §9.1 compares and the predicate output. */
static void valu_compare_rules(void)
{
    int p;
    kh_e8 one = KH_E8_ONE, two = e8(2), m1 = KH_E8_NEG_ONE, m2 = e8(-2), nan = 0x7FC000;
    static const struct {
        kh_e8 a, b;
        int lt, gt, eq;
    } cases[] = {
        {0x3F8000, 0x400000, 1, 0, 0}, {0x400000, 0x3F8000, 0, 1, 0}, {0xBF8000, 0xC00000, 0, 1, 0},
        {0xC00000, 0xBF8000, 1, 0, 0}, {0xBF8000, 0x3F8000, 1, 0, 0}, {0x3F8000, 0x3F8000, 0, 0, 1},
        {0xBF8000, 0xBF8000, 0, 0, 1}, {0x000000, 0x800000, 0, 0, 1}, /* +0 == -0 */
        {0x000001, 0x800001, 0, 1, 0}, /* non-canonical zeros compare by raw bits and sign */
        {0x000001, 0x000000, 0, 1, 0}, {0x7FC000, 0x3F8000, 0, 0, 0}, {0x3F8000, 0xFF8001, 0, 0, 0},
        {0x7F8000, 0x7F7FFF, 0, 1, 0}, {0xFF8000, 0x7F8000, 1, 0, 0},
    };
    (void)one, (void)two, (void)m1, (void)m2, (void)nan;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int want[3] = {cases[i].lt, cases[i].gt, cases[i].eq};
        unsigned ops[3] = {KH_VALU_CMPLT, KH_VALU_CMPGT, KH_VALU_CMPEQ};
        for (int k = 0; k < 3; k++) {
            kh_e8 r = kh_valu(ops[k], cases[i].a, cases[i].b, 0x123456, &p, 0);
            if (p != want[k] || r != (want[k] ? KH_E8_ONE : 0))
                kh_test_fail(__FILE__, __LINE__, "case %zu op %u: pred %d result 0x%06x", i, ops[k], p, r);
        }
    }
    kh_valu(KH_VALU_ADD, 0x3F8000, 0x400000, 0, &p, 0);
    CHECK_EQ(p, 0); /* non-compare ops report 0 */
}

/* numerics §9.2 operand substitution, op by op. */
static void valu_operand_substitution(void)
{
    kh_e8 a = e8(1.5), b = e8(-2.25), c = e8(0.75), nan = 0x7FC123;
    CHECK_EQ(alu(KH_VALU_MOV, a, b, c), a);
    CHECK_EQ(alu(KH_VALU_NEG, a, b, c), e8(-1.5));
    CHECK_EQ(alu(KH_VALU_ABS, b, a, c), e8(2.25));
    CHECK_EQ(alu(KH_VALU_ADD, a, b, c), e8(2.25));   /* a + c, b unused */
    CHECK_EQ(alu(KH_VALU_SUB, a, b, c), e8(0.75));   /* a - c */
    CHECK_EQ(alu(KH_VALU_MUL, a, b, c), e8(-3.375)); /* c unused */
    CHECK_EQ(alu(KH_VALU_FMA, a, b, c), e8(-2.625));
    CHECK_EQ(alu(KH_VALU_FNMA, a, b, c), e8(4.125)); /* -a * b + c */
    CHECK_EQ(alu(KH_VALU_MAX, a, b, c), a);
    CHECK_EQ(alu(KH_VALU_MIN, a, b, c), b);
    CHECK_EQ(alu(KH_VALU_MAX, a, nan, c), a);          /* MAX(x, NaN) = x */
    CHECK_EQ(alu(KH_VALU_MAX, nan, a, c), KH_E8_QNAN); /* MAX(NaN, x) = NaN */
    CHECK_EQ(alu(KH_VALU_MIN, a, nan, c), a);
    CHECK_EQ(alu(KH_VALU_SEL, a, b, c), a);
    CHECK_EQ(alu(KH_VALU_SEL, a, b, 0x800000), b);      /* -0: magnitude bits zero */
    CHECK_EQ(alu(KH_VALU_SEL, a, b, 0x000001), a);      /* raw bits, not value */
    CHECK_EQ(alu(KH_VALU_SEL, a, b, KH_E8_NEG_INF), a); /* Inf selects a */
    CHECK_EQ(alu(KH_VALU_NEG, nan, 0, 0), KH_E8_QNAN);  /* through the FMA: canonical */
    CHECK_EQ(alu(KH_VALU_MOV, 0x002BCD, 0, 0), 0);      /* non-canonical zero -> +0 */
    CHECK_EQ(alu(KH_VALU_MOV, KH_E8_NEG_INF, 0, 0), KH_E8_NEG_INF);
    /* an op outside the list takes the default operands: MOV */
    CHECK_EQ(alu(14, a, b, c), a);
    CHECK_EQ(alu(31, b, a, c), b);
    /* bits above 23 of the inputs are ignored */
    CHECK_EQ(alu(KH_VALU_ADD, a | 0xFF000000u, 0, c | 0x01000000u), e8(2.25));
}

/* ---- reference FMA ------------------------------------------------------- */

typedef struct ref_num {
    int sign;
    u128 mag; /* value = mag * 2^unit */
    int unit;
} ref_num;

/* E8M15 of sign * mag * 2^unit rounded to 16 bits: nearest-even, or with a
 * forced sticky (ties go up); overflow to Inf, exponent <= 0 to signed 0. */
static kh_e8 ref_pack(ref_num x, int forced_sticky)
{
    if (x.mag == 0) return (kh_e8)x.sign << 23;
    int msb = 0;
    for (u128 t = x.mag; t > 1; t >>= 1) msb++;
    int drop = msb + 1 - 16;
    uint64_t q;
    if (drop <= 0) {
        q = (uint64_t)(x.mag << -drop);
        /* a forced sticky below an exact value never reaches the guard */
    } else {
        u128 unit = (u128)1 << drop, rem = x.mag % unit, half = unit / 2;
        q = (uint64_t)(x.mag / unit);
        if (rem > half || (rem == half && ((q & 1) || forced_sticky))) q++;
    }
    int e = x.unit + drop + 15 + 127; /* q = 1.xxx * 2^15 */
    if (q >> 16) q >>= 1, e++;
    if (e >= 255) return (kh_e8)x.sign << 23 | 0xFFu << 15;
    if (e <= 0) return (kh_e8)x.sign << 23;
    return (kh_e8)x.sign << 23 | (kh_e8)e << 15 | (kh_e8)(q & 0x7FFF);
}

static ref_num ref_of(kh_e8 v)
{
    unsigned e = (v >> 15) & 0xFF;
    ref_num r = {(int)(v >> 23 & 1), e ? 0x8000u | (v & 0x7FFF) : 0, (int)e - 127 - 15};
    return r;
}

/* a * b + c for finite operands, exactly, then one rounding. Reports in
 * *far_sub whether the addend is far below the product on an effective
 * subtraction (the case allowed to come out one ulp high). */
static kh_e8 ref_fma(kh_e8 a, kh_e8 b, kh_e8 c, int *far_sub, int *zero_addend)
{
    ref_num x = ref_of(a), y = ref_of(b), z = ref_of(c);
    ref_num p = {x.sign ^ y.sign, x.mag * y.mag, x.unit + y.unit};
    *far_sub = 0;
    *zero_addend = z.mag == 0;
    if (p.mag == 0 && z.mag == 0) return (kh_e8)(p.sign == z.sign ? p.sign : z.sign) << 23;
    if (p.mag == 0) return c; /* exact */
    if (z.mag == 0) return ref_pack(p, 1);
    /* the RTL's addend bits fall off the 48-bit window (s >= 33) exactly
     * when the addend's last bit weighs less than the product's */
    *far_sub = p.sign != z.sign && z.unit < p.unit;
    /* keep the two terms within 90 binades: the far one is only a sticky */
    int hi = p.unit + 32 > z.unit + 16 ? p.unit : z.unit;
    if (p.unit < hi - 90) p.unit = hi - 90;
    if (z.unit < hi - 90) z.unit = hi - 90;
    int u = p.unit < z.unit ? p.unit : z.unit;
    u128 pm = p.mag << (p.unit - u), zm = z.mag << (z.unit - u);
    ref_num s;
    s.unit = u;
    if (p.sign == z.sign) s.mag = pm + zm, s.sign = p.sign;
    else if (pm >= zm) s.mag = pm - zm, s.sign = p.sign;
    else s.mag = zm - pm, s.sign = z.sign;
    if (s.mag == 0) return 0; /* exact cancellation: +0 */
    return ref_pack(s, 0);
}

static kh_e8 ulp_up(kh_e8 v)
{
    kh_e8 mag = v & 0x7FFFFF;
    return mag >= 0x7F8000 ? v : (v & 0x800000) | (mag + 1);
}

static kh_e8 random_operand(uint64_t *s, int center, int spread)
{
    uint64_t r = rng_next(s);
    int e = center + (int)(r % (unsigned)(2 * spread + 1)) - spread;
    if (e < 1) e = 1;
    if (e > 254) e = 254;
    kh_e8 f = (kh_e8)(r >> 20) & 0x7FFF;
    if ((r >> 40) % 8 == 0) f &= 0x7F00; /* short significands: exact ties */
    if ((r >> 44) % 16 == 0) return (kh_e8)(r >> 50 & 1) << 23; /* a zero */
    return (kh_e8)(r >> 48 & 1) << 23 | (kh_e8)e << 15 | f;
}

/* MUL, ADD, SUB, FMA, FNMA equal the exact rounding, except: a zero addend
 * rounds ties away (non-IEEE 1, modelled in the reference), and an
 * effective subtraction with the addend far below may be one ulp high. */
static void valu_fma_matches_exact_reference(void)
{
    uint64_t s = 0xFEEDFACE;
    long far_high = 0;
    for (int r = 0; r < 600000; r++) {
        int center = (int)(rng_next(&s) % 254) + 1, spread = r % 3 == 0 ? 2 : r % 3 == 1 ? 20 : 127;
        kh_e8 a = random_operand(&s, center, spread), b = random_operand(&s, 127, r % 2 ? 3 : 60);
        kh_e8 c = random_operand(&s, center, spread);
        if (r % 11 == 0) c = (((a ^ b) & 0x800000) ^ 0x800000) | (a & 0x7FFFFF); /* cancel-ish */
        unsigned op = (unsigned[]){KH_VALU_MUL, KH_VALU_ADD, KH_VALU_SUB, KH_VALU_FMA, KH_VALU_FNMA}[r % 5];
        kh_e8 va = op == KH_VALU_FNMA ? a ^ 0x800000 : a;
        kh_e8 vb = op == KH_VALU_ADD || op == KH_VALU_SUB ? KH_E8_ONE : b;
        kh_e8 vc = op == KH_VALU_MUL ? 0 : op == KH_VALU_SUB ? c ^ 0x800000 : c;
        int far_sub, zero_addend;
        kh_e8 want = ref_fma(va, vb, vc, &far_sub, &zero_addend);
        kh_e8 got = alu(op, a, b, c);
        int ok = got == want || (far_sub && got == ulp_up(want) && (got & 0x7F8000) != 0x7F8000);
        if (got != want && ok) far_high++;
        if (!ok) {
            kh_test_fail(__FILE__, __LINE__, "op %u a 0x%06x b 0x%06x c 0x%06x: 0x%06x, reference 0x%06x", op, a, b, c, got,
                         want);
            return;
        }
    }
    CHECK(far_high > 0);
}

/* ---- seeds against libm ---------------------------------------------------- */

/* Largest relative error over a dense sweep of every table interval; a
 * mistyped coefficient shows up as an interval far off the others. */
static void valu_seeds_approximate_their_functions(void)
{
    double worst[4] = {0, 0, 0, 0};
    unsigned ops[4] = {KH_VALU_EXP2, KH_VALU_LOG2, KH_VALU_INV, KH_VALU_RSQRT};
    for (int k = 0; k < 4; k++) {
        uint32_t elo = k == 0 ? 110 : 100, ehi = k == 0 ? 132 : 150; /* exp2: keep 2^x in range */
        for (uint32_t e = elo; e <= ehi; e++)
            for (uint32_t f = 0; f < 0x8000; f += 3) {
                kh_e8 a = (k == 0 ? (f & 1) << 23 : 0) | e << 15 | f;
                double x = val(a), want;
                if (k == 0) want = exp2(x);
                else if (k == 1) want = log2(x);
                else if (k == 2) want = 1 / x;
                else want = 1 / sqrt(x);
                double got = val(alu(ops[k], a, 0, 0));
                /* log2 near 1 has tiny values: measure against an absolute floor */
                double err = fabs(got - want) / fmax(fabs(want), k == 1 ? 1.0 : 0.0);
                if (err > worst[k]) worst[k] = err;
            }
    }
    printf("# note: seed relative errors exp2 %.2e log2 %.2e inv %.2e rsqrt %.2e\n", worst[0], worst[1], worst[2],
           worst[3]);
    for (int k = 0; k < 4; k++) CHECK(worst[k] < ldexp(1, -15));
}

/* A lane value biased towards the edges: exponent 0 and 255, fraction 0,
 * ones above bit 23 (ignored), near-equal exponents for cancellation. */
static kh_e8 edgy(uint64_t *st, kh_e8 near)
{
    uint64_t r = rng_next(st);
    kh_e8 v = (kh_e8)r;
    switch ((r >> 32) % 8) {
    case 0: v &= 0xFF807FFFu; break;                       /* exponent 0 */
    case 1: v |= 0xFFu << 15; break;                        /* Inf / NaN */
    case 2: v &= ~0x7FFFu; break;                           /* fraction 0 */
    case 3: v = (near & 0xFFFFFFu) ^ (kh_e8)((r >> 40) & 0x80000Fu); break; /* near the other operand */
    default: break;
    }
    return v;
}

/* kh_valu_n (any length, any op, whichever path this CPU takes) gives lane
 * for lane what kh_valu gives, compare bits included. */
static void valu_batch_equals_single_lanes(void)
{
    static const unsigned ops[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 31};
    static const unsigned lens[] = {1, 7, 8, 9, 16, 128, 300}; /* 16: a V2 beat (valu_x86.c alu16) */
    uint64_t st = 0x243F6A8885A308D3ull;
    kh_e8 a[300], b[300], c[300], out[300];
    int pred[300];
    for (unsigned oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
        for (unsigned li = 0; li < sizeof lens / sizeof lens[0]; li++)
            for (unsigned round = 0; round < 8; round++) {
                unsigned n = lens[li];
                for (unsigned i = 0; i < n; i++) {
                    a[i] = edgy(&st, 0);
                    b[i] = edgy(&st, a[i]);
                    c[i] = edgy(&st, a[i]);
                }
                kh_valu_n(ops[oi], a, b, c, out, pred, n, round & 1 ? KH_VALU_OLD_RSQRT_NEG_ZERO : 0);
                for (unsigned i = 0; i < n; i++) {
                    int p1 = -1;
                    kh_e8 want = kh_valu(ops[oi], a[i], b[i], c[i], &p1, round & 1 ? KH_VALU_OLD_RSQRT_NEG_ZERO : 0);
                    if (out[i] != want || pred[i] != p1)
                        kh_test_fail(__FILE__, __LINE__, "op %u lane %u of %u: a 0x%06x b 0x%06x c 0x%06x: 0x%06x pred %d, "
                                     "single lane 0x%06x pred %d", ops[oi], i, n, a[i], b[i], c[i], out[i], pred[i], want, p1);
                }
            }
}

/* A beat of 16 lanes (a V2 beat), by kh_valu_n and by kh_valu_16 (the
 * compare bits as a mask): valu_x86.c's alu16 for MOV to CMPEQ, with
 * AVX-512 or AVX2 where the CPU has it (KOHAKU_SIMD=avx2 for the second),
 * the scalar batch for the rest. Lane for lane what kh_valu gives, on 4096
 * beats of edge-biased operands per op (NaN, Inf, zeros, equal and
 * near-equal magnitudes, bits above 23 set), seeds and unknown ops beside. */
static void valu_beat16_equals_single_lanes(void)
{
    static const unsigned ops[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16, 19, 31};
    uint64_t st = 0x13198A2E03707344ull;
    kh_e8 a[16], b[16], c[16], out[16], out16[16];
    int pred[16];
    for (unsigned oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
        unsigned bad = 0;
        for (unsigned beat = 0; beat < 4096 && bad < 5; beat++) {
            for (unsigned i = 0; i < 16; i++) {
                a[i] = edgy(&st, 0);
                b[i] = (beat & 3) == 0 ? a[i] ^ (kh_e8)(edgy(&st, 0) & 0xFF800000u) : edgy(&st, a[i]);
                c[i] = edgy(&st, a[i]);
            }
            /* every other beat with the older rsqrt option, and the result
             * written over a copy of a (v1 chains its stages that way) */
            unsigned opts = beat & 1 ? KH_VALU_OLD_RSQRT_NEG_ZERO : 0;
            kh_e8 over[16];
            memcpy(over, a, sizeof over);
            for (unsigned i = 0; i < 16; i++) pred[i] = -1;
            kh_valu_n(ops[oi], a, b, c, out, pred, 16, opts);
            unsigned pm = kh_valu_16(ops[oi], a, b, c, out16, opts);
            int pover[16];
            kh_valu_n(ops[oi], over, b, c, over, pover, 16, opts);
            for (unsigned i = 0; i < 16; i++) {
                int p1 = -1;
                kh_e8 want = kh_valu(ops[oi], a[i], b[i], c[i], &p1, opts);
                if (out[i] != want || pred[i] != p1 || out16[i] != want || (int)((pm >> i) & 1) != p1 ||
                    over[i] != want || pover[i] != p1) {
                    bad++;
                    kh_test_fail(__FILE__, __LINE__, "op %u lane %u: a 0x%06x b 0x%06x c 0x%06x: 0x%06x pred %d, "
                                 "kh_valu_16 0x%06x pred %u, over a 0x%06x pred %d, single lane 0x%06x pred %d",
                                 ops[oi], i, a[i], b[i], c[i], out[i], pred[i], out16[i], (pm >> i) & 1, over[i],
                                 pover[i], want, p1);
                }
            }
        }
    }
}

/* kh_valu_exp2d_n and kh_valu_exp2d_16 (whichever path this CPU takes)
 * give lane for lane what kh_valu_exp2d gives, sticky bit included (the
 * second's as a mask): every a of 24 bits, each beside
 * a b from a set that reaches every arm of floor(b) (zero, |b| < 1, the
 * integer range with and without a fraction, both clamps, Inf and NaN),
 * under thresholds from 0 to 128. */
static void valu_exp2d_batch_equals_single_lanes(void)
{
    static const kh_e8 bs[] = {0x000000, 0x800000, 0x3F0000, 0xBF0000, 0x3F8000, 0xBF8000, 0x3FC000, 0xBFC000,
                               0x40A000, 0xC0A123, 0x434000, 0xC33FFF, 0x437FFF, 0xC37FFF, 0x438000, 0xC38000,
                               0x7F8000, 0xFF8000, 0x7FC000, 0x000001, 0x42F801, 0xC2F801, 0x430001, 0x3F7FFF};
    static const unsigned taus[] = {0, 1, 8, 16, 100, 127, 128};
    enum { N = 16 };
    unsigned nb = sizeof bs / sizeof bs[0], bad = 0;
    kh_e8 a[N], b[N], out[N], out16[N];
    int ovf[N];
    for (uint32_t base = 0; base < (1u << 24) && bad < 5; base += N) {
        unsigned tau = taus[(base / N) % (sizeof taus / sizeof taus[0])];
        for (unsigned i = 0; i < N; i++) {
            a[i] = base + i;
            b[i] = bs[(base / N + i) % nb] ^ (kh_e8)((base >> 8) & 0x0F); /* low fraction bits vary */
        }
        kh_valu_exp2d_n(a, b, tau, out, ovf, N);
        unsigned om = kh_valu_exp2d_16(a, b, tau, out16);
        for (unsigned i = 0; i < N; i++) {
            int o1 = -1;
            kh_e8 want = kh_valu_exp2d(a[i], b[i], tau, &o1);
            if (out[i] != want || ovf[i] != o1) {
                bad++;
                kh_test_fail(__FILE__, __LINE__, "a 0x%06x b 0x%06x tau %u: 0x%06x ovf %d, single lane 0x%06x ovf %d",
                             a[i], b[i], tau, out[i], ovf[i], want, o1);
            }
            if (out16[i] != want || (int)((om >> i) & 1) != o1) {
                bad++;
                kh_test_fail(__FILE__, __LINE__, "a 0x%06x b 0x%06x tau %u: exp2d_16 0x%06x ovf %u, single lane 0x%06x "
                             "ovf %d", a[i], b[i], tau, out16[i], (om >> i) & 1, want, o1);
            }
        }
    }
    /* lengths that leave a tail past the four-lane steps */
    for (unsigned n = 1; n < N; n++) {
        for (unsigned i = 0; i < n; i++) {
            a[i] = 0x3F8000u + i * 0x1357u;
            b[i] = bs[i % nb];
        }
        kh_valu_exp2d_n(a, b, 8, out, ovf, n);
        for (unsigned i = 0; i < n; i++) {
            int o1 = -1;
            kh_e8 want = kh_valu_exp2d(a[i], b[i], 8, &o1);
            if (out[i] != want || ovf[i] != o1)
                kh_test_fail(__FILE__, __LINE__, "n %u lane %u: 0x%06x, single lane 0x%06x", n, i, out[i], want);
        }
    }
}

int main(void)
{
    KH_RUN(valu_fma_worked_examples);
    KH_RUN(valu_zero_addend_rounds_ties_away);
    KH_RUN(valu_signed_zero_of_zero_sum);
    KH_RUN(valu_far_subtraction_can_be_one_ulp_high);
    KH_RUN(valu_addend_bit_off_the_window_is_sticky);
    KH_RUN(valu_seed_worked_examples);
    KH_RUN(valu_exp2_argument_wraps);
    KH_RUN(valu_seed_specials);
    KH_RUN(valu_compare_rules);
    KH_RUN(valu_operand_substitution);
    KH_RUN(valu_fma_matches_exact_reference);
    KH_RUN(valu_seeds_approximate_their_functions);
    KH_RUN(valu_batch_equals_single_lanes);
    KH_RUN(valu_beat16_equals_single_lanes);
    KH_RUN(valu_exp2d_batch_equals_single_lanes);
    return kh_test_end("t_vnum_alu");
}
