/* FP16 <-> E8M15 a word pair at a time (eight elements) with AVX2: the
 * steps of kh_e8_from_f16 and kh_e8_to_f16 (e8_cvt.c), every branch a lane
 * mask, every element a 32-bit lane. The batch entries below take this path
 * where the CPU has AVX2, else the one-element functions; same bits either
 * way (t_vnum_cvt compares them on every input). */

#include "kohaku/num.h"
#include "kohaku/vnum.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(KH_NUM_PORTABLE_ONLY)
#include <immintrin.h>

#define T256 __attribute__((target("avx2")))

static inline T256 __m256i d32(uint32_t x) { return _mm256_set1_epi32((int)x); }
/* lanes of m all ones or all zeros: m ? y : x */
static inline T256 __m256i sel(__m256i m, __m256i x, __m256i y) { return _mm256_blendv_epi8(x, y, m); }
static inline T256 __m256i eq(__m256i x, uint32_t k) { return _mm256_cmpeq_epi32(x, d32(k)); }
static inline T256 __m256i nz(__m256i x) { return _mm256_xor_si256(eq(x, 0), d32(0xFFFFFFFFu)); }

/* eight FP16 elements (two words) to E8M15 */
static T256 void from_f16_8(const uint64_t *w, kh_e8 *out)
{
    __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)w));
    __m256i s = _mm256_slli_epi32(_mm256_srli_epi32(h, 15), 23);
    __m256i f = _mm256_and_si256(_mm256_srli_epi32(h, 10), d32(31)), m = _mm256_and_si256(h, d32(0x3FF));
    __m256i normal = _mm256_or_si256(_mm256_slli_epi32(_mm256_add_epi32(f, d32(112)), 15), _mm256_slli_epi32(m, 5));
    __m256i special = _mm256_or_si256(d32(255u << 15), _mm256_slli_epi32(m, 5));
    /* a subnormal normalised exactly: m < 2^10 converts exactly, so the
     * float's exponent field is 127 + the leading one's position */
    __m256i p = _mm256_sub_epi32(_mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtepi32_ps(m)), 23), d32(127));
    __m256i sub = _mm256_or_si256(_mm256_slli_epi32(_mm256_add_epi32(p, d32(103)), 15),
                                  _mm256_and_si256(_mm256_sllv_epi32(m, _mm256_sub_epi32(d32(15), p)), d32(0x7FFF)));
    __m256i r = sel(eq(f, 31), normal, special);
    r = sel(eq(f, 0), r, _mm256_and_si256(nz(m), sub));
    _mm256_storeu_si256((__m256i *)(void *)out, _mm256_or_si256(s, r));
}

/* eight E8M15 elements to FP16 (two words) */
static T256 void to_f16_8(const kh_e8 *in, uint64_t *w)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)in);
    __m256i s = _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(v, 23), d32(1)), 15);
    __m256i e = _mm256_and_si256(_mm256_srli_epi32(v, 15), d32(0xFF)), f = _mm256_and_si256(v, d32(0x7FFF));
    __m256i one = d32(1);
    /* Inf and NaN */
    __m256i top = sel(eq(f, 0), _mm256_or_si256(d32(0x7E00), _mm256_and_si256(_mm256_srli_epi32(f, 5), d32(0x1FF))),
                      d32(0x7C00));
    /* normal: round the 16-bit significand to 11 bits */
    __m256i sig = _mm256_or_si256(f, d32(0x8000));
    __m256i keep = _mm256_srli_epi32(sig, 5);
    __m256i guard = _mm256_and_si256(_mm256_srli_epi32(f, 4), one);
    __m256i sticky = _mm256_and_si256(nz(_mm256_and_si256(f, d32(0xF))), one);
    keep = _mm256_add_epi32(keep, _mm256_and_si256(guard, _mm256_or_si256(sticky, _mm256_and_si256(keep, one))));
    __m256i e5 = _mm256_add_epi32(_mm256_sub_epi32(e, d32(112)), _mm256_srli_epi32(keep, 11));
    __m256i normal = _mm256_or_si256(_mm256_slli_epi32(e5, 10), _mm256_and_si256(keep, d32(0x3FF)));
    /* FP16 subnormal (e <= 112 there): the significand shifted right by
     * sh = min(118 - e, 31) >= 6, rounded to nearest even */
    __m256i t = _mm256_sub_epi32(d32(118), e);
    __m256i sh = sel(_mm256_cmpgt_epi32(t, d32(31)), t, d32(31));
    __m256i k = _mm256_srlv_epi32(sig, sh);
    __m256i shm1 = _mm256_sub_epi32(sh, one);
    __m256i g = _mm256_and_si256(_mm256_srlv_epi32(sig, shm1), one);
    __m256i st = _mm256_and_si256(nz(_mm256_and_si256(sig, _mm256_sub_epi32(_mm256_sllv_epi32(one, shm1), one))), one);
    k = _mm256_add_epi32(k, _mm256_and_si256(g, _mm256_or_si256(st, _mm256_and_si256(k, one))));
    __m256i r = normal;
    r = sel(_mm256_cmpgt_epi32(one, e5), r, k);          /* e5 <= 0 */
    r = sel(_mm256_cmpgt_epi32(e5, d32(30)), r, d32(0x7BFF)); /* e5 >= 31: saturate */
    r = sel(eq(e, 255), r, top);
    r = _mm256_andnot_si256(eq(e, 0), r);
    r = _mm256_or_si256(s, r);
    __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
    _mm_storeu_si128((__m128i *)(void *)w, _mm256_castsi256_si128(packed));
}

static int have_avx2(void) { return kh_simd_allows(KH_SIMD_AVX2) && __builtin_cpu_supports("avx2"); }
#else
static int have_avx2(void) { return 0; }
static void from_f16_8(const uint64_t *w, kh_e8 *out) { (void)w, (void)out; }
static void to_f16_8(const kh_e8 *in, uint64_t *w) { (void)in, (void)w; }
#endif

void kh_e8_from_f16_words(const uint64_t *w, kh_e8 *out, unsigned nwords)
{
    unsigned i = 0;
    if (have_avx2())
        for (; i + 2 <= nwords; i += 2) from_f16_8(w + i, out + 4 * i);
    for (; i < nwords; i++)
        for (unsigned e = 0; e < 4; e++) out[4 * i + e] = kh_e8_from_f16((uint16_t)(w[i] >> (16 * e)));
}

void kh_e8_to_f16_words(const kh_e8 *in, uint64_t *w, unsigned nwords)
{
    unsigned i = 0;
    if (have_avx2())
        for (; i + 2 <= nwords; i += 2) to_f16_8(in + 4 * i, w + i);
    for (; i < nwords; i++) {
        uint64_t v = 0;
        for (unsigned e = 0; e < 4; e++) v |= (uint64_t)kh_e8_to_f16(in[4 * i + e]) << (16 * e);
        w[i] = v;
    }
}
