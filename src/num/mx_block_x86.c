/* x86-64 paths of the block product (numerics.md §4), each compiled for its
 * own instruction set with a target attribute and run only where
 * kh_mx_path_fn() found the CPU able to (the same binary runs anywhere).
 *
 * Each lane of 32 elements is one 256-bit register. The int8 dot-product
 * instructions multiply an unsigned byte by a signed one, so:
 *   AVX2  |a| * (b with a's sign), pairs summed to int16 (at most 2 * 64 * 64,
 *         no saturation), then to int32;
 *   VNNI  (a + 64) * b summed four at a time into int32, minus 64 * sum(b).
 * Either way the eight int32 partial sums of the 16 dot products are added
 * horizontally at the end. */
#include "mx_block_int.h"

#ifdef KH_MX_HAVE_X86
#include <immintrin.h>

#define T_AVX2 __attribute__((target("avx2")))

/* Eight vectors of eight int32 partial sums -> one vector of their eight
 * totals, in order. */
static inline T_AVX2 __m256i reduce8(const __m256i v[8])
{
    __m256i h01 = _mm256_hadd_epi32(v[0], v[1]), h23 = _mm256_hadd_epi32(v[2], v[3]);
    __m256i h45 = _mm256_hadd_epi32(v[4], v[5]), h67 = _mm256_hadd_epi32(v[6], v[7]);
    __m256i q0 = _mm256_hadd_epi32(h01, h23), q1 = _mm256_hadd_epi32(h45, h67);
    /* q0 = [v0..v3 low halves | v0..v3 high halves], q1 likewise for v4..v7 */
    __m256i lo = _mm256_permute2x128_si256(q0, q1, 0x20);
    __m256i hi = _mm256_permute2x128_si256(q0, q1, 0x31);
    return _mm256_add_epi32(lo, hi);
}

static inline T_AVX2 void store16(const __m256i p[16], int32_t c[4][4])
{
    _mm256_storeu_si256((__m256i *)&c[0][0], reduce8(p));
    _mm256_storeu_si256((__m256i *)&c[2][0], reduce8(p + 8));
}

T_AVX2 void kh_mx_block_avx2(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i av[4], ua[4], bv[4], p[16];
    for (int i = 0; i < 4; i++) {
        av[i] = _mm256_loadu_si256((const __m256i *)a->q[i]);
        ua[i] = _mm256_abs_epi8(av[i]); /* |-64| = 64 still fits */
        bv[i] = _mm256_loadu_si256((const __m256i *)b->q[i]);
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            __m256i t = _mm256_maddubs_epi16(ua[i], _mm256_sign_epi8(bv[j], av[i]));
            p[4 * i + j] = _mm256_madd_epi16(t, ones);
        }
    store16(p, c);
}

/* The VNNI body, for the EVEX and VEX spellings of vpdpbusd. */
#define VNNI_BODY(DPBUSD)                                                        \
    const __m256i bias = _mm256_set1_epi8(64), zero = _mm256_setzero_si256();    \
    __m256i ua[4], bv[4], ncorr[4], p[16];                                       \
    for (int i = 0; i < 4; i++) {                                                \
        ua[i] = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)a->q[i]), bias); \
        bv[i] = _mm256_loadu_si256((const __m256i *)b->q[i]);                    \
        ncorr[i] = _mm256_sub_epi32(zero, DPBUSD(zero, bias, bv[i]));            \
    }                                                                            \
    for (int i = 0; i < 4; i++)                                                  \
        for (int j = 0; j < 4; j++) p[4 * i + j] = DPBUSD(ncorr[j], ua[i], bv[j]); \
    store16(p, c);

__attribute__((target("avx2,avx512f,avx512vl,avx512vnni"))) void
kh_mx_block_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    VNNI_BODY(_mm256_dpbusd_epi32)
}

#ifdef KH_MX_HAVE_AVXVNNI
__attribute__((target("avx2,avxvnni"))) void kh_mx_block_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b,
                                                                  int32_t c[4][4])
{
    VNNI_BODY(_mm256_dpbusd_avx_epi32)
}
#endif

#else
/* Not x86-64 (or not GCC/Clang): only the portable path exists. ISO C
 * wants at least one declaration in a translation unit. */
typedef int kh_mx_block_x86_unused;
#endif
