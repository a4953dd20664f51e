/* Private to src/num, x86-64 only: the block product kernels as inline
 * functions that leave the 16 sums in registers, shared by the plain block
 * product (mx_block_x86.c) and the fused pipelines (acc_x86.c). Include
 * only inside #ifdef KH_MX_HAVE_X86.
 *
 * Each lane of 32 elements is one 256-bit register. The int8 dot-product
 * instructions multiply an unsigned byte by a signed one, so:
 *   AVX2  |a| * (b with a's sign), pairs summed to int16 (at most 2 * 64 * 64,
 *         no saturation), then to int32;
 *   VNNI  (a + 64) * b summed four at a time into int32, minus 64 * sum(b).
 * Either way the eight int32 partial sums of each dot product are added
 * horizontally at the end: out[0] = c[0][0..3], c[1][0..3]; out[1] = rows 2, 3. */
#ifndef KOHAKU_NUM_MX_X86_KERNELS_H
#define KOHAKU_NUM_MX_X86_KERNELS_H

#include <immintrin.h>

#include "kohaku/num.h"

#define KH_T_AVX2 __attribute__((target("avx2")))
/* The 4 x 4 loops unrolled whole: then the sixteen sums stay in registers
 * instead of an array on the stack (-O2 does not unroll them by itself). */
#define KH_UNROLL _Pragma("GCC unroll 16")

/* Eight vectors of eight int32 partial sums -> their eight totals, in order. */
static inline KH_T_AVX2 __m256i kh_reduce8(const __m256i v[8])
{
    __m256i h01 = _mm256_hadd_epi32(v[0], v[1]), h23 = _mm256_hadd_epi32(v[2], v[3]);
    __m256i h45 = _mm256_hadd_epi32(v[4], v[5]), h67 = _mm256_hadd_epi32(v[6], v[7]);
    __m256i q0 = _mm256_hadd_epi32(h01, h23), q1 = _mm256_hadd_epi32(h45, h67);
    /* q0 = [v0..v3 low halves | v0..v3 high halves], q1 likewise for v4..v7 */
    __m256i lo = _mm256_permute2x128_si256(q0, q1, 0x20);
    __m256i hi = _mm256_permute2x128_si256(q0, q1, 0x31);
    return _mm256_add_epi32(lo, hi);
}

static inline KH_T_AVX2 void kh_product_avx2(const kh_mx_entry *a, const kh_mx_entry *b, __m256i out[2])
{
    const __m256i ones = _mm256_set1_epi16(1);
    __m256i av[4], ua[4], bv[4], p[16];
    KH_UNROLL for (int i = 0; i < 4; i++) {
        av[i] = _mm256_loadu_si256((const __m256i *)a->q[i]);
        ua[i] = _mm256_abs_epi8(av[i]); /* |-64| = 64 still fits */
        bv[i] = _mm256_loadu_si256((const __m256i *)b->q[i]);
    }
    KH_UNROLL for (int i = 0; i < 4; i++)
        KH_UNROLL for (int j = 0; j < 4; j++) {
            __m256i t = _mm256_maddubs_epi16(ua[i], _mm256_sign_epi8(bv[j], av[i]));
            p[4 * i + j] = _mm256_madd_epi16(t, ones);
        }
    out[0] = kh_reduce8(p);
    out[1] = kh_reduce8(p + 8);
}

/* The VNNI kernel for the EVEX and VEX spellings of vpdpbusd. */
#define KH_PRODUCT_VNNI_BODY(DPBUSD)                                                   \
    const __m256i bias = _mm256_set1_epi8(64), zero = _mm256_setzero_si256();          \
    __m256i ua[4], bv[4], ncorr[4], p[16];                                             \
    KH_UNROLL for (int i = 0; i < 4; i++) {                                            \
        ua[i] = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)a->q[i]), bias);   \
        bv[i] = _mm256_loadu_si256((const __m256i *)b->q[i]);                          \
        ncorr[i] = _mm256_sub_epi32(zero, DPBUSD(zero, bias, bv[i]));                  \
    }                                                                                  \
    KH_UNROLL for (int i = 0; i < 4; i++)                                              \
        KH_UNROLL for (int j = 0; j < 4; j++) p[4 * i + j] = DPBUSD(ncorr[j], ua[i], bv[j]);     \
    out[0] = kh_reduce8(p);                                                            \
    out[1] = kh_reduce8(p + 8);

#define KH_T_AVX512VNNI __attribute__((target("avx2,avx512f,avx512cd,avx512vl,avx512vnni")))
static inline KH_T_AVX512VNNI void kh_product_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, __m256i out[2])
{
    KH_PRODUCT_VNNI_BODY(_mm256_dpbusd_epi32)
}

#ifdef KH_MX_HAVE_AVXVNNI
#define KH_T_AVXVNNI __attribute__((target("avx2,avxvnni")))
static inline KH_T_AVXVNNI void kh_product_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, __m256i out[2])
{
    KH_PRODUCT_VNNI_BODY(_mm256_dpbusd_avx_epi32)
}
#endif

#endif
