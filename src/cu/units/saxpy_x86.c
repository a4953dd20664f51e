/* saxpy_cu's element step (saxpy.c, matmul_saxpy.md §2.4) on a whole 8-element
 * line at once with AVX2: f2i's two shifts are vpsllvd / vpsrlvd, which give
 * 0 for a count of 32 or more just as the RTL's shifts do, and i2f of the
 * low 24 bits is the exact int-to-float conversion. Same results bit for
 * bit as the scalar datapath; kh_sx_lines_x86 declines (0) where the CPU
 * has no AVX2. */
#include "cu/units/units.h"
#include "kohaku/num.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define T2 __attribute__((target("avx2")))

static inline T2 __m256i k32(uint32_t v) { return _mm256_set1_epi32((int)v); }

static inline T2 __m256i f2i8(__m256i w)
{
    __m256i e = _mm256_and_si256(_mm256_srli_epi32(w, 23), k32(0xFF));
    __m256i m = _mm256_or_si256(_mm256_and_si256(w, k32(0x7FFFFF)), k32(0x800000));
    /* e >= 150: m << (e - 150); e < 150: m >> (150 - e); the other count
     * wraps to a huge one and that shift gives 0 */
    __m256i mag = _mm256_or_si256(_mm256_sllv_epi32(m, _mm256_sub_epi32(e, k32(150))),
                                  _mm256_srlv_epi32(m, _mm256_sub_epi32(k32(150), e)));
    mag = _mm256_andnot_si256(_mm256_cmpeq_epi32(e, _mm256_setzero_si256()), mag);
    __m256i neg = _mm256_srai_epi32(w, 31);
    return _mm256_sub_epi32(_mm256_xor_si256(mag, neg), neg);
}

static inline T2 __m256i i2f8(__m256i v)
{
    __m256i sign = _mm256_srai_epi32(v, 31);
    __m256i mag = _mm256_sub_epi32(_mm256_xor_si256(v, sign), sign);
    __m256i low = _mm256_and_si256(mag, k32(0xFFFFFF));
    /* exponent 127 + p and the bits below p: the float of low, exact */
    __m256i r = _mm256_castps_si256(_mm256_cvtepi32_ps(low));
    /* no bit among 0..23 but some above: p = 0, fraction 0 */
    __m256i zero = _mm256_setzero_si256();
    __m256i only_high = _mm256_andnot_si256(_mm256_cmpeq_epi32(mag, zero), _mm256_cmpeq_epi32(low, zero));
    r = _mm256_or_si256(r, _mm256_and_si256(only_high, k32(127u << 23)));
    return _mm256_or_si256(r, _mm256_and_si256(sign, k32(0x80000000u)));
}

static T2 void line8(__m256i ia, const kh_flit *x, kh_flit *y)
{
    __m256i xv = _mm256_loadu_si256((const __m256i *)(const void *)x->w);
    __m256i yv = _mm256_loadu_si256((const __m256i *)(const void *)y->w);
    __m256i r = _mm256_add_epi32(_mm256_mullo_epi32(ia, f2i8(xv)), f2i8(yv)); /* 32-bit wrap */
    _mm256_storeu_si256((__m256i *)(void *)y->w, i2f8(r));
}

static T2 void lines8(int32_t ia, const kh_flit *x, kh_flit *y, unsigned nlines)
{
    __m256i a = _mm256_set1_epi32(ia);
    for (unsigned l = 0; l < nlines; l++) line8(a, &x[l], &y[l]);
}

int kh_sx_lines_x86(int32_t ia, const kh_flit *x, kh_flit *y, unsigned nlines)
{
    /* element j at payload bits [32j+31:32j]: the low-to-high 32-bit lanes of
     * the line's first four words on this little-endian host */
    if (!kh_simd_allows(KH_SIMD_AVX2) || !__builtin_cpu_supports("avx2")) return 0;
    lines8(ia, x, y, nlines);
    return 1;
}
#else
int kh_sx_lines_x86(int32_t ia, const kh_flit *x, kh_flit *y, unsigned nlines)
{
    (void)ia, (void)x, (void)y, (void)nlines;
    return 0;
}
#endif
