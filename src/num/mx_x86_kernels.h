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
 * horizontally at the end: out[0] = c[0][0..3], c[1][0..3]; out[1] = rows 2, 3
 * (AVX-512 gathers the operands so that no horizontal sum is left). */
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
/* With 512-bit registers the sixteen dot products need no horizontal sums:
 * step k gathers dword k (elements 4k..4k+3) of A row i and of B column j
 * into lane 4i + j, so eight vpdpbusd leave each lane's total in place (the
 * same integer sum, grouped otherwise: exact). The bias correction is
 * summed the same way from B's gathered dwords. */
static inline __attribute__((always_inline)) KH_T_AVX512VNNI __m512i kh_product16_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b)
{
    const __m512i bias = _mm512_set1_epi8(64);
    const __m256i bias8 = _mm256_set1_epi8(64); /* byte adds on 256 bits: no AVX512BW needed */
    __m256i ua[4];
    KH_UNROLL for (int i = 0; i < 4; i++) ua[i] = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)a->q[i]), bias8);
    const __m512i a01 = _mm512_inserti64x4(_mm512_castsi256_si512(ua[0]), ua[1], 1);
    const __m512i a23 = _mm512_inserti64x4(_mm512_castsi256_si512(ua[2]), ua[3], 1);
    const __m512i b01 = _mm512_loadu_si512(b->q[0]), b23 = _mm512_loadu_si512(b->q[2]);
    /* dword 8r + k of the pair (q[0..1], q[2..3]) is element group k of lane r */
    const __m512i rows = _mm512_setr_epi32(0, 0, 0, 0, 8, 8, 8, 8, 16, 16, 16, 16, 24, 24, 24, 24);
    const __m512i cols = _mm512_setr_epi32(0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24);
    /* four chains, so the vpdpbusd latencies overlap */
    __m512i acc[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()}, corr[2] = {acc[0], acc[0]};
    KH_UNROLL for (int k = 0; k < 8; k++) {
        const __m512i step = _mm512_set1_epi32(k);
        __m512i ak = _mm512_permutex2var_epi32(a01, _mm512_add_epi32(rows, step), a23);
        __m512i bk = _mm512_permutex2var_epi32(b01, _mm512_add_epi32(cols, step), b23);
        acc[k & 1] = _mm512_dpbusd_epi32(acc[k & 1], ak, bk);
        corr[k & 1] = _mm512_dpbusd_epi32(corr[k & 1], bias, bk);
    }
    return _mm512_sub_epi32(_mm512_add_epi32(acc[0], acc[1]), _mm512_add_epi32(corr[0], corr[1]));
}

static inline KH_T_AVX512VNNI void kh_product_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, __m256i out[2])
{
    __m512i c = kh_product16_avx512vnni(a, b);
    out[0] = _mm512_castsi512_si256(c);
    out[1] = _mm512_extracti64x4_epi64(c, 1);
}

#ifdef KH_MX_HAVE_AVXVNNI
#define KH_T_AVXVNNI __attribute__((target("avx2,avxvnni")))
static inline KH_T_AVXVNNI void kh_product_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, __m256i out[2])
{
    KH_PRODUCT_VNNI_BODY(_mm256_dpbusd_avx_epi32)
}
#endif

#endif
