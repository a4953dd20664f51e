/* The accumulator float (numerics.md §5-§7): scale application, the add of
 * the accumulate stage, the FP16 drain. Worked examples from the text, then
 * slow references written from the definitions (exact integer arithmetic,
 * doubles only where every value is exact). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/num.h"
#include "num/mx_block_int.h"
#include "support/test.h"

typedef unsigned __int128 u128;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* ---- worked examples ----------------------------------------------------- */

/* numerics §5: C = 798, bytes 0x7D / 0x71, anchor 40 -> 0x0F9B2E. */
static void acc_from_product_worked_example(void)
{
    CHECK_EQ(kh_acc_from_product(798, 0x7D, 0x71, 40, 14), 0x0F9B2E);
    CHECK_EQ(kh_acc_from_product(-798, 0x7D, 0x71, 40, 14), 0x2F9B2E); /* sign at [21] */
    CHECK_EQ(kh_acc_from_product(0, 0x7D, 0x71, 40, 14), 0);            /* all-zero word */
}

/* numerics §6.2: the second block, the add, its FP16, and saturation. */
static void acc_add_worked_example_and_saturation(void)
{
    /* C = -123, A byte E 16 M 0, B byte E 14 M 1 */
    uint32_t chain = kh_acc_from_product(-123, 16 << 3 | 0, 14 << 3 | 1, 40, 14);
    CHECK_EQ(chain, 0x2F0530);
    uint32_t sum = kh_acc_add(0x0F9B2E, 0, chain, 0, 14);
    CHECK_EQ(sum, 0x0F89E2);
    CHECK_EQ(kh_acc_to_f16(sum, 14), 0x389E);
    CHECK_EQ(kh_acc_add(0x1FFFFF, 0, 0x1FFFFF, 0, 14), 0x1FFFFF);
    CHECK_EQ(kh_acc_add(0x3FFFFF, 0, 0x3FFFFF, 0, 14), 0x3FFFFF); /* negative side */
}

/* numerics §6.1 steps 1 and 5, §6.2 LOAD / EMIT. */
static void acc_add_zero_rules(void)
{
    CHECK_EQ(kh_acc_add(0, 0, 0, 0, 14), 0);
    CHECK_EQ(kh_acc_add(0x0F9B2E, 1, 0x2F0530, 1, 14), 0);        /* both forced */
    CHECK_EQ(kh_acc_add(0x0F9B2E, 1, 0x2F0530, 0, 14), 0x2F0530); /* LOAD: chain verbatim */
    CHECK_EQ(kh_acc_add(0x0F9B2E, 0, 0x2F0530, 1, 14), 0x0F9B2E); /* EMIT: tile verbatim */
    CHECK_EQ(kh_acc_add(0x203FFF, 0, 0x0F9B2E, 0, 14), 0x0F9B2E); /* E = 0 is zero, whatever else */
    CHECK_EQ(kh_acc_add(0x0F9B2E, 0, 0x003FFF, 0, 14), 0x0F9B2E);
    CHECK_EQ(kh_acc_add(0x0F9B2E, 1, 0x003FFF, 0, 14), 0); /* LOAD of an E = 0 chain gives 0 */
    CHECK_EQ(kh_acc_add(0x0F9B2E, 0, 0x2F9B2E, 0, 14), 0);        /* exact cancellation: +0 */
    CHECK_EQ(kh_acc_add(0x2F9B2E, 0, 0x0F9B2E, 0, 14), 0);
    /* the smallest exponent minus a little flushes to +0 */
    CHECK_EQ(kh_acc_add(0x004000 | 1, 0, 0x204000, 0, 14), 0);
}

/* LOAD on 16 lanes is add(forced zero, chain) of §6.1 lane by lane: the
 * examples above (0x2F0530 kept, an E = 0 chain gives 0), signs, extremes. */
static void acc_load16_is_add_with_forced_zero(void)
{
    static const uint32_t w[] = {0x2F0530, 0x003FFF, 0, 0x200000, 0x0F9B2E, 0x1FFFFF, 0x004000, 0x204000};
    const unsigned mws[] = {KH_ACC_MW_MIN, 14, KH_ACC_MW_MAX, 0, 40};
    for (unsigned m = 0; m < sizeof mws / sizeof mws[0]; m++) {
        uint32_t chain[16], out[16];
        for (unsigned l = 0; l < 16; l++) chain[l] = w[l % 8] ^ (l >= 8 ? 0x155u << (l % 5) : 0);
        kh_acc_load16(chain, mws[m], out);
        for (unsigned l = 0; l < 16; l++) CHECK_EQ(out[l], kh_acc_add(0x0F9B2E, 1, chain[l], 0, mws[m]));
    }
    uint32_t c2[16] = {0x2F0530, 0x003FFF}, o2[16];
    kh_acc_load16(c2, 14, o2);
    CHECK_EQ(o2[0], 0x2F0530);
    CHECK_EQ(o2[1], 0);
}

/* The sub-tile's FP16 word: lane e is kh_acc_to_f16 of lane e at bits
 * [16e+15:16e], for FP22 and the other widths. */
static void acc_to_f16_word_places_every_lane(void)
{
    uint64_t s = 0x9E3779B97F4A7C15ull;
    for (unsigned mw = KH_ACC_MW_MIN; mw <= KH_ACC_MW_MAX + 1; mw++)
        for (int r = 0; r < 200; r++) {
            uint32_t v[16];
            uint64_t w[4];
            for (unsigned e = 0; e < 16; e++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                v[e] = (uint32_t)s & ((1u << (mw + 8 > 31 ? 31 : mw + 8)) - 1);
            }
            if (r < 16) /* edges: E 0, the flush and saturation bounds, a fraction that rounds up */
                for (unsigned e = 0; e < 16; e++) {
                    static const unsigned ex[8] = {0, 1, 47, 48, 49, 77, 78, 127};
                    const unsigned cm = mw > KH_ACC_MW_MAX ? KH_ACC_MW_MAX : mw; /* the width used */
                    uint32_t fr = e % 2 ? (1u << cm) - 1 : (uint32_t)(s >> 20) & ((1u << cm) - 1);
                    v[e] = (uint32_t)(r % 2) << (cm + 7) | ex[(e + r) % 8] << cm | fr;
                }
            kh_acc_to_f16_word(v, mw, w);
            for (unsigned e = 0; e < 16; e++)
                CHECK_EQ((w[e / 4] >> (16 * (e % 4))) & 0xFFFF, kh_acc_to_f16(v[e], mw));
        }
}

/* The AVX2 FP22 drain word (what a CPU without AVX-512 runs), where this
 * CPU has AVX2: lane e is kh_acc_to_f16 of lane e, on random words and on
 * the exponents and fractions at the flush, saturation and rounding bounds. */
static void acc_to_f16_word_avx2_places_every_lane(void)
{
#ifndef KH_MX_HAVE_X86
    kh_test_skip("an x86-64 CPU with AVX2", "not x86-64: no AVX2 path");
#else
    uint64_t s = 0x1234567887654321ull;
    const unsigned mw = KH_ACC_MW_DEFAULT;
    for (int r = 0; r < 4000; r++) {
        uint32_t v[16];
        uint64_t w[4];
        for (unsigned e = 0; e < 16; e++) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            v[e] = (uint32_t)s & ((1u << (mw + 8)) - 1);
            if (r % 2) { /* edges: E 0, 47..49, 77, 78, 127; fractions that tie, round up, carry */
                static const unsigned ex[8] = {0, 1, 47, 48, 49, 77, 78, 127};
                static const uint32_t fr[6] = {0, 0x8, 0x18, 0x7, 0x3FF8, 0x3FFF};
                v[e] = (uint32_t)((s >> 30) & 1) << (mw + 7) | ex[(s >> 40) % 8] << mw | fr[(s >> 50) % 6];
            }
        }
        if (!kh_acc_to_f16_word_fp22_avx2(v, w)) {
            kh_test_skip("an x86-64 CPU with AVX2", "no AVX2 here (or KOHAKU_SIMD=portable): not tested");
            return;
        }
        for (unsigned e = 0; e < 16; e++)
            if (((w[e / 4] >> (16 * (e % 4))) & 0xFFFF) != kh_acc_to_f16(v[e], mw)) {
                kh_test_fail(__FILE__, __LINE__, "lane %u: 0x%x gives 0x%x want 0x%x", e, v[e],
                             (unsigned)((w[e / 4] >> (16 * (e % 4))) & 0xFFFF), kh_acc_to_f16(v[e], mw));
                return;
            }
    }
#endif
}

/* numerics §7 and the §9.5 drains. */
static void acc_to_f16_worked_examples(void)
{
    CHECK_EQ(kh_acc_to_f16(0x0F9B2E, 14), 0x39B3);
    CHECK_EQ(kh_acc_to_f16(0x142000, 14), 0x7BFF); /* 196608 saturates */
    CHECK_EQ(kh_acc_to_f16(0x284100, 14), 0x8000); /* -9.46e-10 flushes to -0 */
    CHECK_EQ(kh_acc_to_f16(0x1026DA, 14), 0x426E);
    CHECK_EQ(kh_acc_to_f16(0x2FE010, 14), 0xBE01);
    CHECK_EQ(kh_acc_to_f16(0x200000, 14), 0x8000); /* E = 0: signed zero */
    CHECK_EQ(kh_acc_to_f16(0x3FFFFF, 14), 0xFBFF);
}

/* Other anchors wrap the exponent modulo 128 (numerics §5, open point 2). */
static void acc_from_product_exponent_wraps(void)
{
    /* C = 1, both bytes 0: mm 64, mag 64 (msb 6), exp_in = -anchor - 6 */
    CHECK_EQ(kh_acc_from_product(1, 0, 0, 40, 14), (uint32_t)(6 - 46 + 63) << 14);
    /* anchor 255: e = 6 - 261 + 63 = -192 -> -192 mod 128 = 64 */
    CHECK_EQ(kh_acc_from_product(1, 0, 0, 255, 14), 64u << 14);
    /* anchor 0, largest bytes: e = 29ish + 31 + 31 - 6 + 63 > 127 wraps */
    uint32_t w = kh_acc_from_product(131072, 0xFF, 0xFF, 0, 14);
    unsigned msb = 31 - (unsigned)__builtin_clz(131072u * 225u);
    CHECK_EQ((w >> 14) & 127, (msb + 31 + 31 - 6 + 63 + 0) % 128);
}

/* mw outside [11, 24] is clamped, so every input is defined. */
static void acc_mw_is_clamped(void)
{
    CHECK_EQ(kh_acc_add(0x0F9B2E, 0, 0x2F0530, 0, 99), kh_acc_add(0x0F9B2E, 0, 0x2F0530, 0, 24));
    CHECK_EQ(kh_acc_to_f16(0x0F9B2E, 0), kh_acc_to_f16(0x0F9B2E, 11));
    CHECK_EQ(kh_acc_from_product(5, 1, 2, 40, 3), kh_acc_from_product(5, 1, 2, 40, 11));
}

/* ---- references ---------------------------------------------------------- */

/* Round the positive integer x to nb significant bits, nearest-even.
 * Returns the significand (nb bits, or 2^nb after a carry -> renormalised)
 * and adds to *exp the weight of its last bit relative to x's unit. */
static uint64_t ref_round(u128 x, unsigned nb, int *exp)
{
    int msb = 0;
    for (u128 t = x; t > 1; t >>= 1) msb++;
    int drop = msb + 1 - (int)nb;
    uint64_t q;
    if (drop <= 0) {
        q = (uint64_t)(x << -drop);
    } else {
        u128 unit = (u128)1 << drop, rem = x % unit, half = unit / 2;
        q = (uint64_t)(x / unit);
        if (rem > half || (rem == half && (q & 1))) q++;
    }
    *exp += drop;
    if (q >> nb) { /* carried into a new bit */
        q >>= 1;
        *exp += 1;
    }
    return q;
}

/* numerics §5 from the definition: value = c * mm * 2^exp_in, rounded to
 * MW + 1 bits, exponent biased by 63 and wrapped into 7 bits. */
static uint32_t ref_from_product(int32_t c, uint8_t sa, uint8_t sb, unsigned anchor, unsigned mw)
{
    if (c == 0) return 0;
    uint64_t mag = (uint64_t)llabs(c) * ((8 + (sa & 7)) * (8 + (sb & 7)));
    int e = (sa >> 3) + (sb >> 3) - (int)anchor - 6; /* weight of mag's unit */
    int pos = 0;
    uint64_t sig = ref_round(mag, mw + 1, &pos); /* value = sig * 2^(e + pos) */
    int biased = e + pos + (int)mw + 63;
    unsigned stored = (unsigned)(((biased % 128) + 128) % 128);
    return (uint32_t)(c < 0) << (mw + 7) | stored << mw | (uint32_t)(sig - (UINT64_C(1) << mw));
}

/* The exact sum of two accumulator words rounded once to MW + 1 bits, with
 * the format's flush (exponent <= 0) and saturation (>= 127) rules. */
static uint32_t ref_add_exact(uint32_t a, uint32_t b, unsigned mw)
{
    unsigned ea = (a >> mw) & 127, eb = (b >> mw) & 127;
    int sa = (a >> (mw + 7)) & 1, sb = (b >> (mw + 7)) & 1;
    uint64_t ma = (1u << mw) | (a & ((1u << mw) - 1)), mb = (1u << mw) | (b & ((1u << mw) - 1));
    unsigned emin = ea < eb ? ea : eb;
    unsigned da = ea - emin, db = eb - emin;
    /* an operand more than 100 binades below the other is only a sticky:
     * moving it up to 100 below keeps it far under the rounding point */
    if (da > 100) da = 100;
    if (db > 100) db = 100;
    u128 xa = (u128)ma << da, xb = (u128)mb << db;
    int sign;
    u128 mag;
    if (sa == sb) mag = xa + xb, sign = sa;
    else if (xa >= xb) mag = xa - xb, sign = sa;
    else mag = xb - xa, sign = sb;
    if (mag == 0) return 0;
    int unit_e = (int)(ea > eb ? ea - da : eb - db) - 63 - (int)mw; /* weight of mag's unit */
    int pos = 0;
    uint64_t sig = ref_round(mag, mw + 1, &pos);
    int biased = unit_e + pos + (int)mw + 63;
    if (biased <= 0) return 0;
    if (biased >= 127) return (uint32_t)sign << (mw + 7) | 127u << mw | ((1u << mw) - 1);
    return (uint32_t)sign << (mw + 7) | (uint32_t)biased << mw | (uint32_t)(sig - (UINT64_C(1) << mw));
}

/* The word one ulp larger in magnitude (same rules at the top). */
static uint32_t ulp_up(uint32_t w, unsigned mw)
{
    uint32_t mag = w & ((1u << (mw + 7)) - 1), sign = w & (1u << (mw + 7));
    if (mag == 0 || mag == ((127u << mw) | ((1u << mw) - 1))) return w;
    return sign | (mag + 1);
}

/* kh_acc_from_product agrees with the definition for every scale pair and
 * many C, all anchors near 40, several widths. */
static void acc_from_product_matches_reference(void)
{
    static const unsigned mws[] = {12, 14, 16};
    uint64_t s = 99;
    for (unsigned m = 0; m < 3; m++)
        for (unsigned sa = 0; sa < 256; sa += 3)
            for (unsigned sb = 0; sb < 256; sb += 5)
                for (int r = 0; r < 8; r++) {
                    int32_t c = (int32_t)(rng_next(&s) % 262145) - 131072;
                    if (r == 0) c = 131072;
                    if (r == 1) c = -131072;
                    unsigned anchor = 30 + (unsigned)(rng_next(&s) % 21);
                    uint32_t got = kh_acc_from_product(c, (uint8_t)sa, (uint8_t)sb, anchor, mws[m]);
                    uint32_t want = ref_from_product(c, (uint8_t)sa, (uint8_t)sb, anchor, mws[m]);
                    if (got != want) {
                        kh_test_fail(__FILE__, __LINE__, "c %d sa %02x sb %02x anchor %u mw %u: 0x%x, want 0x%x", c, sa, sb,
                                     anchor, mws[m], got, want);
                        return;
                    }
                }
}

/* kh_acc_add is the exactly rounded sum, except that an effective
 * subtraction whose smaller operand lost bits may come out one ulp high
 * (numerics §6.1 step 4). Commutative. Random words, exponents close
 * together half of the time so cancellation and carries happen. */
static void acc_add_matches_exact_reference(void)
{
    static const unsigned mws[] = {12, 14, 16};
    uint64_t s = 0xC0FFEE;
    long one_high = 0;
    for (unsigned m = 0; m < 3; m++) {
        unsigned mw = mws[m];
        uint32_t fmask = (1u << mw) - 1;
        for (int r = 0; r < 300000; r++) {
            uint64_t x = rng_next(&s), y = rng_next(&s);
            unsigned ea = 1 + (unsigned)(x % 127);
            unsigned eb = r % 2 ? 1 + (unsigned)(y % 127) : (unsigned)((ea + (y % 29) + 113) % 127) + 1;
            if (r % 7 == 0) eb = ea;
            uint32_t a = (uint32_t)((x >> 8) & 1) << (mw + 7) | ea << mw | ((uint32_t)(x >> 16) & fmask);
            uint32_t b = (uint32_t)((y >> 8) & 1) << (mw + 7) | eb << mw | ((uint32_t)(y >> 16) & fmask);
            if (r % 5 == 0) b = (b & ~fmask) | ((a & fmask) ^ (uint32_t)(y >> 40 & 7)); /* near-cancel */
            uint32_t got = kh_acc_add(a, 0, b, 0, mw);
            uint32_t want = ref_add_exact(a, b, mw);
            /* did the smaller operand lose bits off the 8 guard bits? */
            uint32_t ma = a & ((1u << (mw + 7)) - 1), mb = b & ((1u << (mw + 7)) - 1);
            uint32_t sm = ma >= mb ? b : a;
            unsigned d = ea > eb ? ea - eb : eb - ea;
            uint64_t smsig = (uint64_t)((1u << mw) | (sm & fmask)) << 8;
            int lost = d > 0 && (d >= 64 || (smsig & ((UINT64_C(1) << d) - 1)) != 0);
            int subtract = ((a ^ b) >> (mw + 7)) & 1;
            int ok = got == want || (subtract && lost && got == ulp_up(want, mw));
            if (got != want && ok) one_high++;
            if (!ok || got != kh_acc_add(b, 0, a, 0, mw)) {
                kh_test_fail(__FILE__, __LINE__, "mw %u: add(0x%x, 0x%x) = 0x%x, exact 0x%x", mw, a, b, got, want);
                return;
            }
        }
    }
    CHECK(one_high > 0); /* the RTL property does occur */
}

/* Drain reference: round to 11 significant bits (nearest-even) at the
 * value's own binade, then flush below 2^-14 and saturate at 2^16. Doubles
 * hold every accumulator value exactly (MW <= 24, exponents within +-64). */
static uint16_t ref_to_f16(uint32_t v, unsigned mw)
{
    unsigned e = (v >> mw) & 127;
    uint16_t s = (uint16_t)(((v >> (mw + 7)) & 1) << 15);
    if (e == 0) return s;
    double x = ldexp((double)((1u << mw) | (v & ((1u << mw) - 1))), (int)e - 63 - (int)mw);
    int ex;
    double m = frexp(x, &ex);            /* x = m * 2^ex, m in [0.5, 1) */
    double r = nearbyint(ldexp(m, 11));  /* 1024 .. 2048, ties to even */
    double y = ldexp(r, ex - 11);
    if (y < ldexp(1, -14)) return s;
    if (y >= 65536.0) return s | 0x7BFF;
    m = frexp(y, &ex);
    unsigned sig = (unsigned)ldexp(m, 11); /* exact */
    return (uint16_t)(s | (unsigned)(ex - 1 + 15) << 10 | (sig - 1024));
}

/* Every word of FP20 and FP22 (exhaustive), FP24 sampled. */
static void acc_to_f16_exhaustive(void)
{
    static const unsigned mws[] = {12, 14};
    for (unsigned m = 0; m < 2; m++) {
        unsigned mw = mws[m];
        for (uint32_t v = 0; v < (1u << (mw + 8)); v++) {
            uint16_t got = kh_acc_to_f16(v, mw), want = ref_to_f16(v, mw);
            if (got != want) {
                kh_test_fail(__FILE__, __LINE__, "mw %u: 0x%x -> 0x%04x, want 0x%04x", mw, v, got, want);
                return;
            }
        }
    }
    uint64_t s = 5;
    for (int r = 0; r < 1000000; r++) {
        uint32_t v = (uint32_t)rng_next(&s) & ((1u << 24) - 1);
        if (kh_acc_to_f16(v, 16) != ref_to_f16(v, 16)) {
            kh_test_fail(__FILE__, __LINE__, "mw 16: 0x%x", v);
            return;
        }
    }
}

/* Every FP16 bit pattern in every lane of a word, the other lanes from a
 * fixed-seed generator, counted against the rule lane by lane: +-65504
 * (0x7BFF or 0xFBFF) saturated, exponent 31 (Inf, NaN) non-finite. */
static void f16_word_extremes_count_every_pattern(void)
{
    uint64_t seed = 0x9E3779B97F4A7C15u, bad = 0;
    for (unsigned lane = 0; lane < 16; lane++)
        for (unsigned h = 0; h < 65536; h++) {
            uint64_t word[4];
            for (unsigned w = 0; w < 4; w++) {
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                word[w] = seed;
            }
            word[lane / 4] = (word[lane / 4] & ~(UINT64_C(0xFFFF) << 16 * (lane % 4))) | (uint64_t)h << 16 * (lane % 4);
            uint64_t want_sat = 0, want_inf = 0;
            for (unsigned e = 0; e < 16; e++) {
                unsigned v = (unsigned)(word[e / 4] >> 16 * (e % 4)) & 0xFFFFu;
                want_sat += v == 0x7BFFu || v == 0xFBFFu;
                want_inf += (v & 0x7C00u) == 0x7C00u;
            }
            uint64_t sat = 7, inf = 11; /* added to, not set */
            kh_f16_word_extremes(word, &sat, &inf);
            bad += sat != 7 + want_sat || inf != 11 + want_inf;
        }
    CHECK_EQ(bad, 0);
}

int main(void)
{
    KH_RUN(acc_from_product_worked_example);
    KH_RUN(acc_add_worked_example_and_saturation);
    KH_RUN(acc_add_zero_rules);
    KH_RUN(acc_load16_is_add_with_forced_zero);
    KH_RUN(acc_to_f16_word_places_every_lane);
    KH_RUN(acc_to_f16_word_avx2_places_every_lane);
    KH_RUN(acc_to_f16_worked_examples);
    KH_RUN(acc_from_product_exponent_wraps);
    KH_RUN(acc_mw_is_clamped);
    KH_RUN(acc_from_product_matches_reference);
    KH_RUN(acc_add_matches_exact_reference);
    KH_RUN(acc_to_f16_exhaustive);
    KH_RUN(f16_word_extremes_count_every_pattern);
    return kh_test_end("t_num_acc");
}
