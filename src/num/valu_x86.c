/* The vector ALU's FMA (numerics.md §9.3) on eight lanes at once with
 * AVX-512: kh_valu_fma_inline (vnum_int.h) step by step, every branch a
 * lane mask, every intermediate in a 64-bit lane (the aligned addend is 48
 * bits wide). Same results bit for bit; kh_valu_n takes it where the CPU
 * has AVX-512F and CD (vplzcntq), else the scalar body. */
#include "kohaku/num.h"
#include "vnum_int.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(KH_NUM_PORTABLE_ONLY)
#include <immintrin.h>

#define T512 __attribute__((target("avx2,avx512f,avx512cd")))

static inline T512 __m512i k64(uint64_t x) { return _mm512_set1_epi64((long long)x); }

static inline T512 __m512i load8(const kh_e8 *p)
{
    return _mm512_cvtepu32_epi64(_mm256_loadu_si256((const __m256i *)(const void *)p));
}

static T512 void fma8(const kh_e8 *A, const kh_e8 *B, const kh_e8 *C, kh_e8 *out)
{
    const __m512i zero = _mm512_setzero_si512(), one = k64(1), ff = k64(255), f15 = k64(0x7FFF);
    const __m512i mask48 = k64((UINT64_C(1) << 48) - 1);
    __m512i a = load8(A), b = load8(B), c = load8(C);
    __m512i sa = _mm512_and_si512(_mm512_srli_epi64(a, 23), one), sb = _mm512_and_si512(_mm512_srli_epi64(b, 23), one),
            sc = _mm512_and_si512(_mm512_srli_epi64(c, 23), one);
    __m512i ea = _mm512_and_si512(_mm512_srli_epi64(a, 15), ff), eb = _mm512_and_si512(_mm512_srli_epi64(b, 15), ff),
            ec = _mm512_and_si512(_mm512_srli_epi64(c, 15), ff);
    __m512i fa = _mm512_and_si512(a, f15), fb = _mm512_and_si512(b, f15), fc = _mm512_and_si512(c, f15);
    __mmask8 za = _mm512_cmpeq_epi64_mask(ea, zero), zb = _mm512_cmpeq_epi64_mask(eb, zero),
             zc = _mm512_cmpeq_epi64_mask(ec, zero), pz = za | zb;
    __m512i sab = _mm512_xor_si512(sa, sb);
    __mmask8 neg = _mm512_cmpneq_epi64_mask(sab, sc);
    __mmask8 cancels = neg & (__mmask8)~pz & (__mmask8)~zc;

    /* specials, in priority order */
    __mmask8 a_top = _mm512_cmpeq_epi64_mask(ea, ff), b_top = _mm512_cmpeq_epi64_mask(eb, ff),
             c_top = _mm512_cmpeq_epi64_mask(ec, ff);
    __mmask8 a_f0 = _mm512_cmpeq_epi64_mask(fa, zero), b_f0 = _mm512_cmpeq_epi64_mask(fb, zero),
             c_f0 = _mm512_cmpeq_epi64_mask(fc, zero);
    __mmask8 a_inf = a_top & a_f0, b_inf = b_top & b_f0, c_inf = c_top & c_f0;
    __mmask8 a_nan = a_top & (__mmask8)~a_f0, b_nan = b_top & (__mmask8)~b_f0, c_nan = c_top & (__mmask8)~c_f0;
    __mmask8 p_nan = a_nan | b_nan | (a_inf & zb) | (za & b_inf);
    __mmask8 p_inf = (a_inf | b_inf) & (__mmask8)~p_nan;
    __mmask8 ret_nan = p_nan | c_nan | (p_inf & c_inf & neg); /* sab != sc is neg */
    __mmask8 ret_inf = (p_inf | c_inf) & (__mmask8)~ret_nan;
    __m512i inf_val = _mm512_or_si512(_mm512_slli_epi64(_mm512_mask_blend_epi64(p_inf, sc, sab), 23), k64(0xFFu << 15));

    /* a zero factor pins both exponents low, so the addend dominates */
    __m512i eap = _mm512_mask_mov_epi64(ea, pz, one), ebp = _mm512_mask_mov_epi64(eb, pz, one);
    __m512i e2 = _mm512_add_epi64(eap, ebp);
    __m512i s_raw = _mm512_sub_epi64(_mm512_sub_epi64(e2, ec), k64(110));
    __mmask8 byp = _mm512_cmplt_epi64_mask(s_raw, zero) & (__mmask8)~zc;
    __m512i s = _mm512_min_epi64(s_raw, k64(48));
    s = _mm512_mask_mov_epi64(s, byp, zero);
    s = _mm512_mask_mov_epi64(s, zc, k64(48));
    __m512i ebase = _mm512_mask_blend_epi64(byp, _mm512_sub_epi64(e2, k64(157)), _mm512_sub_epi64(ec, k64(47)));
    __m512i gc = _mm512_or_si512(fc, k64(0x8000));
    __m512i algn = _mm512_and_si512(_mm512_srlv_epi64(_mm512_slli_epi64(gc, 32), s), mask48);
    __m512i low = _mm512_sub_epi64(_mm512_sllv_epi64(one, _mm512_sub_epi64(s, k64(32))), one);
    __mmask8 stk = _mm512_cmpge_epi64_mask(s, k64(33)) & _mm512_test_epi64_mask(gc, low);
    __m512i m = _mm512_mul_epu32(_mm512_or_si512(fa, k64(0x8000)), _mm512_or_si512(fb, k64(0x8000)));
    m = _mm512_maskz_mov_epi64((__mmask8)~(byp | pz), m);
    __m512i p = _mm512_and_si512(_mm512_mask_blend_epi64(neg, _mm512_add_epi64(algn, m), _mm512_sub_epi64(algn, m)),
                                 mask48);
    __mmask8 rneg = neg & _mm512_cmpneq_epi64_mask(s, zero) & _mm512_test_epi64_mask(p, k64(UINT64_C(1) << 47));
    __m512i mag = _mm512_mask_mov_epi64(
        p, rneg, _mm512_and_si512(_mm512_sub_epi64(zero, p), k64((UINT64_C(1) << 33) - 1)));
    __m512i sign = _mm512_mask_blend_epi64(neg, sab, _mm512_mask_blend_epi64(rneg, sc, sab));
    __mmask8 mag0 = _mm512_cmpeq_epi64_mask(mag, zero);
    __m512i sign23 = _mm512_slli_epi64(sign, 23);
    __m512i zero_val = _mm512_maskz_mov_epi64((__mmask8)~cancels, sign23); /* x - x = +0 */

    /* kh_valu_round_pack */
    __m512i pos = _mm512_sub_epi64(k64(63), _mm512_lzcnt_epi64(mag));
    __m512i n = _mm512_and_si512(_mm512_sllv_epi64(mag, _mm512_sub_epi64(k64(47), pos)), mask48);
    __m512i sig = _mm512_srli_epi64(n, 32);
    __m512i guard = _mm512_and_si512(_mm512_srli_epi64(n, 31), one);
    __mmask8 sticky = _mm512_test_epi64_mask(n, k64(0x7FFFFFFFu)) | stk;
    __m512i odd_or_sticky = _mm512_mask_mov_epi64(_mm512_and_si512(sig, one), sticky, one);
    sig = _mm512_add_epi64(sig, _mm512_and_si512(guard, odd_or_sticky));
    __m512i carry = _mm512_srli_epi64(sig, 16);
    __m512i e = _mm512_add_epi64(_mm512_add_epi64(pos, ebase), carry);
    __m512i frac = _mm512_maskz_mov_epi64(_mm512_cmpeq_epi64_mask(carry, zero), _mm512_and_si512(sig, f15));
    __m512i r = _mm512_or_si512(_mm512_or_si512(sign23, _mm512_slli_epi64(e, 15)), frac);
    r = _mm512_mask_mov_epi64(r, _mm512_cmpge_epi64_mask(e, ff), _mm512_or_si512(sign23, k64(0xFFu << 15)));
    r = _mm512_mask_mov_epi64(r, _mm512_cmple_epi64_mask(e, zero), sign23);
    r = _mm512_mask_mov_epi64(r, mag0, zero_val);
    r = _mm512_mask_mov_epi64(r, ret_inf, inf_val);
    r = _mm512_mask_mov_epi64(r, ret_nan, k64(KH_E8_QNAN));
    _mm256_storeu_si256((__m256i *)(void *)out, _mm512_cvtepi64_epi32(r));
}

int kh_valu_fma_n_x86(const kh_e8 *va, const kh_e8 *vb, const kh_e8 *vc, kh_e8 *out, unsigned n)
{
    if (!kh_simd_allows(KH_SIMD_AVX512) || !__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512cd")) return 0;
    unsigned i = 0;
    for (; i + 8 <= n; i += 8) fma8(va + i, vb + i, vc + i, out + i);
    for (; i < n; i++) out[i] = kh_valu_fma_inline(va[i], vb[i], vc[i]);
    return 1;
}
#else
int kh_valu_fma_n_x86(const kh_e8 *va, const kh_e8 *vb, const kh_e8 *vc, kh_e8 *out, unsigned n)
{
    (void)va, (void)vb, (void)vc, (void)out, (void)n;
    return 0;
}
#endif
