/* E8M15 conversions (numerics.md §8.2): the worked examples, exhaustive
 * FP16 round trips, and references built on the compiler's IEEE
 * conversions (_Float16 / float / double), adjusted only where the text
 * says the hardware is not IEEE (saturation, flushing). */
#include <math.h>
#include <string.h>

#include "kohaku/vnum.h"
#include "support/test.h"

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void cvt_worked_examples(void)
{
    CHECK_EQ(kh_e8_to_f16(0x477FE0), 0x7BFF); /* 65504 */
    CHECK_EQ(kh_e8_to_f16(0x477FF0), 0x7BFF); /* 65520: IEEE would give Inf */
    CHECK_EQ(kh_e8_to_f16(kh_e8_from_f32(f32_bits(1e6f))), 0x7BFF);
    CHECK_EQ(kh_e8_to_f16(0x338000), 0x0001); /* 2^-24 */
    CHECK_EQ(kh_e8_to_f16(0x330000), 0x0000); /* 2^-25: tie to even */
    CHECK_EQ(kh_e8_from_f16(0x0001), 0x338000);
    CHECK_EQ(kh_e8_from_f32(0x3F80FFFF), 0x3F8100);
    CHECK_EQ(kh_e8_from_f32(0x7F7FFFFF), 0x7F8000); /* rounds to Inf */
    CHECK_EQ(kh_e8_from_f16(0x3C00), KH_E8_ONE);
    CHECK_EQ(kh_e8_from_f16(0xBC00), KH_E8_NEG_ONE);
}

static void cvt_specials(void)
{
    CHECK_EQ(kh_e8_from_f16(0x7C00), KH_E8_POS_INF);
    CHECK_EQ(kh_e8_from_f16(0xFC00), KH_E8_NEG_INF);
    CHECK_EQ(kh_e8_from_f16(0x7C01), 0x7F8020);    /* NaN payload kept */
    CHECK_EQ(kh_e8_from_f16(0x8000), 0x800000);    /* -0 */
    CHECK_EQ(kh_e8_to_f16(KH_E8_POS_INF), 0x7C00); /* Inf passes through */
    CHECK_EQ(kh_e8_to_f16(KH_E8_NEG_INF), 0xFC00);
    CHECK_EQ(kh_e8_to_f16(0xFF8001), 0xFE00);      /* payload bits [13:5] only: quiet */
    CHECK_EQ(kh_e8_to_f16(0x7FFFFF), 0x7FFF);
    CHECK_EQ(kh_e8_to_f16(0x807FFF), 0x8000);      /* E = 0: signed zero whatever f */
    CHECK_EQ(kh_e8_from_f32(0x80000001), 0x800000); /* FP32 subnormal flushes */
    CHECK_EQ(kh_e8_from_f32(0x7F800000), KH_E8_POS_INF);
    CHECK_EQ(kh_e8_from_f32(0xFFC00001), 0xFFC000); /* NaN: quiet bit, m[21:8] */
    CHECK_EQ(kh_e8_from_f32(0x7F800100), 0x7FC001);
    CHECK_EQ(kh_e8_to_f32(0x807FFF), 0x80000000);
    CHECK_EQ(kh_e8_to_f32(0x7FC001), 0x7FC00100);
    CHECK_EQ(kh_e8_to_f32(0x1FF8000), 0xFF800000); /* bits above 23 ignored */
}

/* Every FP16 pattern survives FP16 -> E8M15 -> FP16 (NaN comes back quiet). */
static void cvt_f16_round_trip_exhaustive(void)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        int nan = (h & 0x7C00) == 0x7C00 && (h & 0x3FF);
        uint16_t want = (uint16_t)(nan ? h | 0x200 : h);
        uint16_t got = kh_e8_to_f16(kh_e8_from_f16((uint16_t)h));
        if (got != want) {
            kh_test_fail(__FILE__, __LINE__, "0x%04x -> 0x%04x", h, got);
            return;
        }
    }
}

#ifdef __FLT16_MAX__
/* FP16 -> E8M15 is exact: as FP32 it is the IEEE widening of the FP16. */
static void cvt_from_f16_matches_ieee_widening(void)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue; /* NaN payloads differ in form */
        _Float16 x;
        uint16_t hb = (uint16_t)h;
        memcpy(&x, &hb, 2);
        uint32_t want = f32_bits((float)x);
        uint32_t got = kh_e8_to_f32(kh_e8_from_f16(hb));
        if (got != want) {
            kh_test_fail(__FILE__, __LINE__, "0x%04x: 0x%08x, IEEE 0x%08x", h, got, want);
            return;
        }
    }
}

/* E8M15 -> FP16 is IEEE narrowing (RNE, subnormals) except that a finite
 * value that would round to Inf saturates to +-65504. Every pattern with
 * exponent 90..160 (the whole FP16 range and beyond), both signs. */
static void cvt_to_f16_matches_ieee_narrowing(void)
{
    for (uint32_t e = 90; e <= 160; e++)
        for (uint32_t s = 0; s < 2; s++)
            for (uint32_t f = 0; f < 0x8000; f++) {
                kh_e8 v = s << 23 | e << 15 | f;
                _Float16 y = (_Float16)f32_of(kh_e8_to_f32(v));
                uint16_t want;
                memcpy(&want, &y, 2);
                if ((want & 0x7FFF) == 0x7C00) want = (uint16_t)((want & 0x8000) | 0x7BFF);
                uint16_t got = kh_e8_to_f16(v);
                if (got != want) {
                    kh_test_fail(__FILE__, __LINE__, "0x%06x: 0x%04x, want 0x%04x", v, got, want);
                    return;
                }
            }
}
#endif

/* FP32 -> E8M15 from the definition: RNE to 16 significant bits (done in
 * double with nearbyint), Inf past the top, FP32 subnormals to signed zero. */
static kh_e8 ref_from_f32(uint32_t x)
{
    uint32_t s = x >> 31;
    unsigned e = (x >> 23) & 0xFF;
    if (e == 0) return s << 23;
    if (e == 255) return kh_e8_from_f32(x); /* specials are checked by cvt_specials */
    double v = fabs((double)f32_of(x));
    int ex;
    double m = frexp(v, &ex);
    double r = ldexp(nearbyint(ldexp(m, 16)), ex - 16); /* 16 significant bits */
    m = frexp(r, &ex);
    int be = ex - 1 + 127;
    if (be >= 255) return s << 23 | 0xFFu << 15;
    uint32_t sig = (uint32_t)ldexp(m, 16);
    return s << 23 | (uint32_t)be << 15 | (sig - 0x8000);
}

static void cvt_from_f32_matches_reference(void)
{
    uint64_t st = 31337;
    for (int r = 0; r < 2000000; r++) {
        uint32_t x = (uint32_t)rng_next(&st);
        if (r % 4 == 0) x = (x & 0xFFFF01FF) | 0x80; /* guard set, sticky mostly clear: ties */
        if (r % 4 == 1) x = (x & 0x807FFFFF) | (uint32_t)(250 + r % 5) << 23; /* near overflow */
        if (((x >> 23) & 0xFF) == 255) continue;
        kh_e8 got = kh_e8_from_f32(x), want = ref_from_f32(x);
        if (got != want) {
            kh_test_fail(__FILE__, __LINE__, "0x%08x: 0x%06x, want 0x%06x", x, got, want);
            return;
        }
    }
}

/* E8M15 -> FP32 is exact: back to E8M15 is the identity (zeros become
 * canonical, NaN comes back quiet). */
static void cvt_to_f32_is_exact(void)
{
    for (uint32_t v = 0; v < (1u << 24); v += 7) {
        unsigned e = (v >> 15) & 0xFF;
        kh_e8 want = e == 0 ? v & 0x800000 : e == 255 && (v & 0x7FFF) ? v | 0x4000 : v;
        if (kh_e8_from_f32(kh_e8_to_f32(v)) != want) {
            kh_test_fail(__FILE__, __LINE__, "0x%06x", v);
            return;
        }
    }
}

/* The word batches (the V2 unpack and pack converters, whichever path this
 * CPU takes) give element for element what the one-element functions give:
 * every FP16 input, every E8M15 input, and word counts that leave a tail. */
static void cvt_word_batches_equal_single_elements(void)
{
    enum { NW = 6 };
    uint64_t w[NW], back[NW];
    kh_e8 e8[4 * NW];
    unsigned bad = 0;
    for (uint32_t h0 = 0; h0 < 65536 && bad < 5; h0 += 4 * NW) {
        for (unsigned i = 0; i < NW; i++) {
            w[i] = 0;
            for (unsigned e = 0; e < 4; e++) w[i] |= (uint64_t)((h0 + 4 * i + e) & 0xFFFF) << (16 * e);
        }
        kh_e8_from_f16_words(w, e8, NW);
        for (unsigned k = 0; k < 4 * NW; k++) {
            kh_e8 want = kh_e8_from_f16((uint16_t)(h0 + k));
            if (e8[k] != want && bad++ < 5)
                kh_test_fail(__FILE__, __LINE__, "from FP16 0x%04x: 0x%06x, one element 0x%06x", (h0 + k) & 0xFFFF,
                             e8[k], want);
        }
    }
    for (uint32_t v0 = 0; v0 < (1u << 24) && bad < 5; v0 += 4 * NW) {
        for (unsigned k = 0; k < 4 * NW; k++) e8[k] = (v0 + k) & 0xFFFFFF;
        kh_e8_to_f16_words(e8, back, NW);
        for (unsigned k = 0; k < 4 * NW; k++) {
            uint16_t want = kh_e8_to_f16(e8[k]), got = (uint16_t)(back[k / 4] >> (16 * (k % 4)));
            if (got != want && bad++ < 5)
                kh_test_fail(__FILE__, __LINE__, "to FP16 0x%06x: 0x%04x, one element 0x%04x", e8[k], got, want);
        }
    }
    for (unsigned n = 1; n <= 3; n++) { /* an odd word last: the one-element path */
        for (unsigned i = 0; i < n; i++) w[i] = UINT64_C(0x3C00BC0004017BFF) - i * UINT64_C(0x0001000100010001);
        kh_e8_from_f16_words(w, e8, n);
        kh_e8_to_f16_words(e8, back, n);
        for (unsigned i = 0; i < n; i++)
            CHECK_EQ(back[i], w[i]); /* normal and subnormal FP16 round-trip exactly */
    }
}

int main(void)
{
    KH_RUN(cvt_worked_examples);
    KH_RUN(cvt_specials);
    KH_RUN(cvt_f16_round_trip_exhaustive);
#ifdef __FLT16_MAX__
    KH_RUN(cvt_from_f16_matches_ieee_widening);
    KH_RUN(cvt_to_f16_matches_ieee_narrowing);
#else
    kh_test_skip_unbuilt("cvt_from_f16_matches_ieee_widening", "a compiler with _Float16");
    kh_test_skip_unbuilt("cvt_to_f16_matches_ieee_narrowing", "a compiler with _Float16");
#endif
    KH_RUN(cvt_from_f32_matches_reference);
    KH_RUN(cvt_to_f32_is_exact);
    KH_RUN(cvt_word_batches_equal_single_elements);
    return kh_test_end("t_vnum_cvt");
}
