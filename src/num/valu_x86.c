/* The vector ALU's FMA (numerics.md §9.3) on eight lanes at once with
 * AVX-512, or four with AVX2: kh_valu_fma_inline (vnum_int.h) step by step,
 * every branch a lane mask, every intermediate in a 64-bit lane (the aligned
 * addend is 48 bits wide). Same results bit for bit; kh_valu_n takes
 * AVX-512 where the CPU has AVX-512F and CD (vplzcntq), else AVX2 (the
 * leading one from an exact int -> double conversion), else the scalar body. */
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

/* fma8's steps on operands already in registers: its body, and alu16's. */
static inline __attribute__((always_inline)) T512 __m512i fma8v(__m512i a, __m512i b, __m512i c)
{
    const __m512i zero = _mm512_setzero_si512(), one = k64(1), ff = k64(255), f15 = k64(0x7FFF);
    const __m512i mask48 = k64((UINT64_C(1) << 48) - 1);
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
    return r;
}

static T512 void fma8(const kh_e8 *A, const kh_e8 *B, const kh_e8 *C, kh_e8 *out)
{
    _mm256_storeu_si256((__m256i *)(void *)out, _mm512_cvtepi64_epi32(fma8v(load8(A), load8(B), load8(C))));
}

/* One beat of a 16-lane core for MOV to FNMA (a sign flip or a constant
 * for valu.c's operand substitution, no compare): the substitution on the
 * vectors, then fma8's steps on both halves, in one call. */
static T512 void alu16(unsigned op, const kh_e8 *A, const kh_e8 *B, const kh_e8 *C, kh_e8 *out)
{
    const __m512i m24 = k64(0xFFFFFFu), sgn = k64(1u << 23), one = k64(KH_E8_ONE), zero = _mm512_setzero_si512();
    for (unsigned h = 0; h < 16; h += 8) {
        __m512i a = _mm512_and_si512(load8(A + h), m24), b = _mm512_and_si512(load8(B + h), m24),
                c = _mm512_and_si512(load8(C + h), m24);
        __m512i va = a, vb = one, vc = zero; /* MOV */
        switch (op) {
        case KH_VALU_NEG: va = _mm512_xor_si512(a, sgn); break;
        case KH_VALU_ABS: va = _mm512_andnot_si512(sgn, a); break;
        case KH_VALU_ADD: vc = c; break;
        case KH_VALU_SUB: vc = _mm512_xor_si512(c, sgn); break;
        case KH_VALU_MUL: vb = b; break;
        case KH_VALU_FMA: vb = b, vc = c; break;
        case KH_VALU_FNMA: va = _mm512_xor_si512(a, sgn), vb = b, vc = c; break;
        default: break;
        }
        _mm256_storeu_si256((__m256i *)(void *)(out + h), _mm512_cvtepi64_epi32(fma8v(va, vb, vc)));
    }
}

/* alu16 for MAX to CMPEQ: valu.c's compare (numerics §9.1) on the vectors,
 * then the substitution it selects. Returns the compare bits. */
static T512 unsigned alu16_cmp(unsigned op, const kh_e8 *A, const kh_e8 *B, const kh_e8 *C, kh_e8 *out)
{
    const __m512i m24 = k64(0xFFFFFFu), sgn = k64(1u << 23), one = k64(KH_E8_ONE), zero = _mm512_setzero_si512();
    const __m512i mag = k64(0x7FFFFFu), ff = k64(255);
    unsigned pbits = 0;
    for (unsigned h = 0; h < 16; h += 8) {
        __m512i a = _mm512_and_si512(load8(A + h), m24), b = _mm512_and_si512(load8(B + h), m24),
                c = _mm512_and_si512(load8(C + h), m24);
        __m512i ma = _mm512_and_si512(a, mag), mb = _mm512_and_si512(b, mag);
        __mmask8 sa = _mm512_test_epi64_mask(a, sgn), sb = _mm512_test_epi64_mask(b, sgn);
        __mmask8 nan = (_mm512_cmpeq_epi64_mask(_mm512_and_si512(_mm512_srli_epi64(a, 15), ff), ff) &
                        _mm512_test_epi64_mask(a, k64(0x7FFF))) |
                       (_mm512_cmpeq_epi64_mask(_mm512_and_si512(_mm512_srli_epi64(b, 15), ff), ff) &
                        _mm512_test_epi64_mask(b, k64(0x7FFF)));
        __mmask8 e = (_mm512_cmpeq_epi64_mask(ma, zero) & _mm512_cmpeq_epi64_mask(mb, zero)) |
                     (_mm512_cmpeq_epi64_mask(ma, mb) & (__mmask8)~(sa ^ sb));
        __mmask8 sd = sa ^ sb, ord = (__mmask8)~(nan | e);
        __mmask8 lt = ord & ((sd & sa) | ((__mmask8)~sd & (_mm512_cmplt_epu64_mask(ma, mb) ^ sa)));
        __mmask8 gt = ord & (__mmask8)~lt, eq = e & (__mmask8)~nan, p = 0;
        __m512i va;
        switch (op) {
        case KH_VALU_MAX: va = _mm512_mask_blend_epi64(lt, a, b); break;
        case KH_VALU_MIN: va = _mm512_mask_blend_epi64(gt, a, b); break;
        case KH_VALU_SEL: va = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(c, mag), b, a); break;
        default: /* CMPLT, CMPGT, CMPEQ: kh_valu_alu16_x86 sends no other op here */
            p = op == KH_VALU_CMPLT ? lt : op == KH_VALU_CMPGT ? gt : eq;
            va = _mm512_maskz_mov_epi64(p, one);
            break;
        }
        pbits |= (unsigned)p << h;
        _mm256_storeu_si256((__m256i *)(void *)(out + h), _mm512_cvtepi64_epi32(fma8v(va, one, zero)));
    }
    return pbits;
}

/* kh_valu_exp2d on eight lanes with AVX-512: exp2d_avx2 below step for
 * step, each vector mask a lane mask, the leading one by vplzcntq. */
static T512 unsigned exp2d8(const kh_e8 *A, const kh_e8 *B, unsigned tau, kh_e8 *out) /* returns the sticky bits */
{
    const __m512i zero = _mm512_setzero_si512(), one = k64(1), ff = k64(255), f15 = k64(0x7FFF);
    __m512i a = load8(A), b = load8(B);
    /* floor(b), clamped to [-256, 255] */
    __mmask8 sbm = _mm512_test_epi64_mask(b, k64(1u << 23));
    __m512i eb = _mm512_and_si512(_mm512_srli_epi64(b, 15), ff);
    __m512i d = _mm512_sub_epi64(k64(142), eb);
    __m512i sigb = _mm512_or_si512(_mm512_and_si512(b, f15), k64(0x8000));
    __m512i ip = _mm512_and_si512(_mm512_srlv_epi64(sigb, d), ff);
    __m512i lowb = _mm512_sub_epi64(_mm512_sllv_epi64(one, d), one);
    __m512i frb = _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(sigb, lowb), one);
    __m512i fl = _mm512_mask_blend_epi64(sbm, ip, _mm512_sub_epi64(zero, _mm512_add_epi64(ip, frb)));
    fl = _mm512_mask_mov_epi64(fl, _mm512_cmpgt_epi64_mask(k64(127), eb), _mm512_maskz_mov_epi64(sbm, k64(~UINT64_C(0))));
    fl = _mm512_mask_mov_epi64(fl, _mm512_cmpgt_epi64_mask(eb, k64(134)),
                               _mm512_mask_blend_epi64(sbm, k64(255), k64((uint64_t)-256)));
    fl = _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(eb, eb), fl);
    /* the seed's argument: |a| * 2^17 rounded half up, a 25-bit register */
    __mmask8 sam = _mm512_test_epi64_mask(a, k64(1u << 23));
    __m512i e = _mm512_and_si512(_mm512_srli_epi64(a, 15), ff), f = _mm512_and_si512(a, f15);
    __m512i t = _mm512_sub_epi64(k64(134), e);
    __m512i sh = _mm512_min_epi64(t, k64(26));
    __m512i r = _mm512_srlv_epi64(_mm512_or_si512(k64(1u << 25), _mm512_slli_epi64(f, 10)), sh);
    __m512i q = _mm512_add_epi64(_mm512_srli_epi64(r, 1), _mm512_and_si512(r, one));
    __m512i v = _mm512_and_si512(_mm512_mask_blend_epi64(sam, q, _mm512_sub_epi64(zero, q)), k64(0x1FFFFFF));
    __m512i k = _mm512_sub_epi64(_mm512_srli_epi64(v, 17),
                                 _mm512_slli_epi64(_mm512_and_si512(_mm512_srli_epi64(v, 24), one), 8));
    __m512i fr = _mm512_and_si512(v, k64(0x1FFFF));
    __m512i idx = _mm512_srli_epi64(fr, 12), u = _mm512_and_si512(fr, k64(0xFFF));
    /* the table rows by plain loads, as exp2d_avx2 */
    uint64_t ix[8];
    _mm512_storeu_si512((void *)ix, idx);
    const int32_t(*cf)[3] = kh_vseed_coef[0];
    __m512i c0 = _mm512_set_epi64(cf[ix[7]][0], cf[ix[6]][0], cf[ix[5]][0], cf[ix[4]][0], cf[ix[3]][0], cf[ix[2]][0],
                                  cf[ix[1]][0], cf[ix[0]][0]);
    __m512i c1 = _mm512_set_epi64(cf[ix[7]][1], cf[ix[6]][1], cf[ix[5]][1], cf[ix[4]][1], cf[ix[3]][1], cf[ix[2]][1],
                                  cf[ix[1]][1], cf[ix[0]][1]);
    __m512i c2 = _mm512_set_epi64(cf[ix[7]][2], cf[ix[6]][2], cf[ix[5]][2], cf[ix[4]][2], cf[ix[3]][2], cf[ix[2]][2],
                                  cf[ix[1]][2], cf[ix[0]][2]);
    __m512i h = _mm512_srli_epi64(
        _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(c2, u), _mm512_slli_epi64(c1, 16)), k64(1u << 15)), 16);
    __m512i base = _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(fr, fr), c0); /* idx 0, u 0: the identity */
    __m512i mag = _mm512_srli_epi64(
        _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(h, u), _mm512_slli_epi64(_mm512_add_epi64(base, k64(1u << 20)), 16)),
                         k64(1u << 15)),
        16);
    __m512i ebase = _mm512_sub_epi64(_mm512_add_epi64(k, k64(107)), fl);

    /* kh_valu_round_pack(0, mag, ebase, 0), as fma8 has it */
    const __m512i mask48 = k64((UINT64_C(1) << 48) - 1);
    __m512i pos = _mm512_sub_epi64(k64(63), _mm512_lzcnt_epi64(mag));
    __m512i n = _mm512_and_si512(_mm512_sllv_epi64(mag, _mm512_sub_epi64(k64(47), pos)), mask48);
    __m512i sig = _mm512_srli_epi64(n, 32);
    __m512i guard = _mm512_and_si512(_mm512_srli_epi64(n, 31), one);
    __mmask8 sticky = _mm512_test_epi64_mask(n, k64(0x7FFFFFFFu));
    __m512i odd_or_sticky = _mm512_mask_mov_epi64(_mm512_and_si512(sig, one), sticky, one);
    sig = _mm512_add_epi64(sig, _mm512_and_si512(guard, odd_or_sticky));
    __m512i carry = _mm512_srli_epi64(sig, 16);
    __m512i ee = _mm512_add_epi64(_mm512_add_epi64(pos, ebase), carry);
    __m512i frac = _mm512_maskz_mov_epi64(_mm512_cmpeq_epi64_mask(carry, zero), _mm512_and_si512(sig, f15));
    __m512i res = _mm512_or_si512(_mm512_slli_epi64(ee, 15), frac);
    res = _mm512_mask_mov_epi64(res, _mm512_cmpgt_epi64_mask(ee, k64(254)), k64(0xFFu << 15));
    res = _mm512_mask_mov_epi64(res, _mm512_cmpgt_epi64_mask(one, ee), zero);
    res = _mm512_maskz_mov_epi64(_mm512_test_epi64_mask(mag, mag), res);
    /* EXP2's specials on a: NaN, then Inf or |a| >= 256 */
    __mmask8 a_nan = _mm512_cmpeq_epi64_mask(e, ff) & _mm512_test_epi64_mask(f, f);
    res = _mm512_mask_mov_epi64(res, _mm512_cmpgt_epi64_mask(e, k64(134)),
                                _mm512_maskz_mov_epi64((__mmask8)~sam, k64(KH_E8_POS_INF)));
    res = _mm512_mask_mov_epi64(res, a_nan, k64(KH_E8_QNAN));
    /* the sticky bit: a result >= 2^tau, Inf and NaN included */
    __m512i er = _mm512_and_si512(_mm512_srli_epi64(res, 15), ff);
    __mmask8 o = _mm512_cmpeq_epi64_mask(er, ff) |
                 (_mm512_test_epi64_mask(er, er) & _mm512_cmpgt_epi64_mask(er, k64(126u + tau)));
    _mm256_storeu_si256((__m256i *)(void *)out, _mm512_cvtepi64_epi32(res));
    return o;
}

#define T256 __attribute__((target("avx2")))

static inline T256 __m256i q64(uint64_t x) { return _mm256_set1_epi64x((long long)x); }

static inline T256 __m256i load4(const kh_e8 *p)
{
    return _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(const void *)p));
}

/* lanes of m all ones or all zeros: m ? y : x */
static inline T256 __m256i pick(__m256i m, __m256i x, __m256i y) { return _mm256_blendv_epi8(x, y, m); }
static inline T256 __m256i is0(__m256i x) { return _mm256_cmpeq_epi64(x, _mm256_setzero_si256()); }
static inline T256 __m256i flip(__m256i m) { return _mm256_xor_si256(m, _mm256_set1_epi64x(-1)); }

/* fma8 on four lanes with AVX2: the same steps, each mask a vector of all-ones lanes */
/* fma_avx2's steps on operands in registers, the 32-bit results in the low
 * half: its body, and alu16_avx2's. */
static inline __attribute__((always_inline)) T256 __m128i fma4v(__m256i a, __m256i b, __m256i c)
{
    const __m256i zero = _mm256_setzero_si256(), one = q64(1), ff = q64(255), f15 = q64(0x7FFF);
    const __m256i mask48 = q64((UINT64_C(1) << 48) - 1);
    __m256i sa = _mm256_and_si256(_mm256_srli_epi64(a, 23), one), sb = _mm256_and_si256(_mm256_srli_epi64(b, 23), one),
            sc = _mm256_and_si256(_mm256_srli_epi64(c, 23), one);
    __m256i ea = _mm256_and_si256(_mm256_srli_epi64(a, 15), ff), eb = _mm256_and_si256(_mm256_srli_epi64(b, 15), ff),
            ec = _mm256_and_si256(_mm256_srli_epi64(c, 15), ff);
    __m256i fa = _mm256_and_si256(a, f15), fb = _mm256_and_si256(b, f15), fc = _mm256_and_si256(c, f15);
    __m256i za = is0(ea), zb = is0(eb), zc = is0(ec), pz = _mm256_or_si256(za, zb);
    __m256i sab = _mm256_xor_si256(sa, sb);
    __m256i neg = flip(_mm256_cmpeq_epi64(sab, sc));
    __m256i cancels = _mm256_andnot_si256(_mm256_or_si256(pz, zc), neg);

    /* specials, in priority order */
    __m256i a_top = _mm256_cmpeq_epi64(ea, ff), b_top = _mm256_cmpeq_epi64(eb, ff), c_top = _mm256_cmpeq_epi64(ec, ff);
    __m256i a_f0 = is0(fa), b_f0 = is0(fb), c_f0 = is0(fc);
    __m256i a_inf = _mm256_and_si256(a_top, a_f0), b_inf = _mm256_and_si256(b_top, b_f0),
            c_inf = _mm256_and_si256(c_top, c_f0);
    __m256i a_nan = _mm256_andnot_si256(a_f0, a_top), b_nan = _mm256_andnot_si256(b_f0, b_top),
            c_nan = _mm256_andnot_si256(c_f0, c_top);
    __m256i p_nan = _mm256_or_si256(_mm256_or_si256(a_nan, b_nan),
                                    _mm256_or_si256(_mm256_and_si256(a_inf, zb), _mm256_and_si256(za, b_inf)));
    __m256i p_inf = _mm256_andnot_si256(p_nan, _mm256_or_si256(a_inf, b_inf));
    __m256i ret_nan = _mm256_or_si256(_mm256_or_si256(p_nan, c_nan), _mm256_and_si256(_mm256_and_si256(p_inf, c_inf), neg));
    __m256i ret_inf = _mm256_andnot_si256(ret_nan, _mm256_or_si256(p_inf, c_inf));
    __m256i inf_val = _mm256_or_si256(_mm256_slli_epi64(pick(p_inf, sc, sab), 23), q64(0xFFu << 15));

    /* a zero factor pins both exponents low, so the addend dominates */
    __m256i eap = pick(pz, ea, one), ebp = pick(pz, eb, one);
    __m256i e2 = _mm256_add_epi64(eap, ebp);
    __m256i s_raw = _mm256_sub_epi64(_mm256_sub_epi64(e2, ec), q64(110));
    __m256i byp = _mm256_andnot_si256(zc, _mm256_cmpgt_epi64(zero, s_raw));
    __m256i s = pick(_mm256_cmpgt_epi64(s_raw, q64(48)), s_raw, q64(48));
    s = _mm256_andnot_si256(byp, s);
    s = pick(zc, s, q64(48));
    __m256i ebase = pick(byp, _mm256_sub_epi64(e2, q64(157)), _mm256_sub_epi64(ec, q64(47)));
    __m256i gc = _mm256_or_si256(fc, q64(0x8000));
    __m256i algn = _mm256_and_si256(_mm256_srlv_epi64(_mm256_slli_epi64(gc, 32), s), mask48);
    /* s < 32: a shift count of 2^64 - (32 - s), which gives 0, so low is all ones (unused then) */
    __m256i low = _mm256_sub_epi64(_mm256_sllv_epi64(one, _mm256_sub_epi64(s, q64(32))), one);
    __m256i stk = _mm256_andnot_si256(is0(_mm256_and_si256(gc, low)), _mm256_cmpgt_epi64(s, q64(32)));
    __m256i m = _mm256_mul_epu32(_mm256_or_si256(fa, q64(0x8000)), _mm256_or_si256(fb, q64(0x8000)));
    m = _mm256_andnot_si256(_mm256_or_si256(byp, pz), m);
    __m256i p = _mm256_and_si256(pick(neg, _mm256_add_epi64(algn, m), _mm256_sub_epi64(algn, m)), mask48);
    __m256i rneg = _mm256_andnot_si256(_mm256_or_si256(is0(s), is0(_mm256_and_si256(p, q64(UINT64_C(1) << 47)))), neg);
    __m256i mag = pick(rneg, p, _mm256_and_si256(_mm256_sub_epi64(zero, p), q64((UINT64_C(1) << 33) - 1)));
    __m256i sign = pick(neg, sab, pick(rneg, sc, sab));
    __m256i mag0 = is0(mag);
    __m256i sign23 = _mm256_slli_epi64(sign, 23);
    __m256i zero_val = _mm256_andnot_si256(cancels, sign23); /* x - x = +0 */

    /* kh_valu_round_pack; mag < 2^48 is exact as a double, whose exponent
     * field is 1023 + the leading one's position (mag = 0: pos is -1023,
     * and the lane is replaced by zero_val below) */
    const __m256i two52 = q64(UINT64_C(0x4330000000000000));
    __m256d dmag = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(mag, two52)), _mm256_castsi256_pd(two52));
    __m256i pos = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(dmag), 52), q64(1023));
    __m256i n = _mm256_and_si256(_mm256_sllv_epi64(mag, _mm256_sub_epi64(q64(47), pos)), mask48);
    __m256i sig = _mm256_srli_epi64(n, 32);
    __m256i guard = _mm256_and_si256(_mm256_srli_epi64(n, 31), one);
    __m256i sticky = _mm256_or_si256(flip(is0(_mm256_and_si256(n, q64(0x7FFFFFFFu)))), stk);
    __m256i odd_or_sticky = pick(sticky, _mm256_and_si256(sig, one), one);
    sig = _mm256_add_epi64(sig, _mm256_and_si256(guard, odd_or_sticky));
    __m256i carry = _mm256_srli_epi64(sig, 16);
    __m256i e = _mm256_add_epi64(_mm256_add_epi64(pos, ebase), carry);
    __m256i frac = _mm256_and_si256(is0(carry), _mm256_and_si256(sig, f15));
    __m256i r = _mm256_or_si256(_mm256_or_si256(sign23, _mm256_slli_epi64(e, 15)), frac);
    r = pick(_mm256_cmpgt_epi64(e, q64(254)), r, _mm256_or_si256(sign23, q64(0xFFu << 15)));
    r = pick(_mm256_cmpgt_epi64(one, e), r, sign23);
    r = pick(mag0, r, zero_val);
    r = pick(ret_inf, r, inf_val);
    r = pick(ret_nan, r, q64(KH_E8_QNAN));
    __m256i packed = _mm256_permutevar8x32_epi32(r, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    return _mm256_castsi256_si128(packed);
}

static T256 void fma_avx2(const kh_e8 *A, const kh_e8 *B, const kh_e8 *C, kh_e8 *out)
{
    _mm_storeu_si128((__m128i *)(void *)out, fma4v(load4(A), load4(B), load4(C)));
}

/* alu16 with AVX2: the same substitution, fma_avx2's steps on four quarters. */
static T256 void alu16_avx2(unsigned op, const kh_e8 *A, const kh_e8 *B, const kh_e8 *C, kh_e8 *out)
{
    const __m256i m24 = q64(0xFFFFFFu), sgn = q64(1u << 23), one = q64(KH_E8_ONE), zero = _mm256_setzero_si256();
    for (unsigned h = 0; h < 16; h += 4) {
        __m256i a = _mm256_and_si256(load4(A + h), m24), b = _mm256_and_si256(load4(B + h), m24),
                c = _mm256_and_si256(load4(C + h), m24);
        __m256i va = a, vb = one, vc = zero; /* MOV */
        switch (op) {
        case KH_VALU_NEG: va = _mm256_xor_si256(a, sgn); break;
        case KH_VALU_ABS: va = _mm256_andnot_si256(sgn, a); break;
        case KH_VALU_ADD: vc = c; break;
        case KH_VALU_SUB: vc = _mm256_xor_si256(c, sgn); break;
        case KH_VALU_MUL: vb = b; break;
        case KH_VALU_FMA: vb = b, vc = c; break;
        case KH_VALU_FNMA: va = _mm256_xor_si256(a, sgn), vb = b, vc = c; break;
        default: break;
        }
        _mm_storeu_si128((__m128i *)(void *)(out + h), fma4v(va, vb, vc));
    }
}

/* alu16_cmp with AVX2, each mask a vector of all-ones lanes. */
static T256 unsigned alu16_cmp_avx2(unsigned op, const kh_e8 *A, const kh_e8 *B, const kh_e8 *C, kh_e8 *out)
{
    const __m256i m24 = q64(0xFFFFFFu), sgn = q64(1u << 23), one = q64(KH_E8_ONE), zero = _mm256_setzero_si256();
    const __m256i mag = q64(0x7FFFFFu), ff = q64(255), f15 = q64(0x7FFF);
    unsigned pbits = 0;
    for (unsigned h = 0; h < 16; h += 4) {
        __m256i a = _mm256_and_si256(load4(A + h), m24), b = _mm256_and_si256(load4(B + h), m24),
                c = _mm256_and_si256(load4(C + h), m24);
        __m256i ma = _mm256_and_si256(a, mag), mb = _mm256_and_si256(b, mag);
        __m256i sa = flip(is0(_mm256_and_si256(a, sgn))), sb = flip(is0(_mm256_and_si256(b, sgn)));
        __m256i nan = _mm256_or_si256(
            _mm256_andnot_si256(is0(_mm256_and_si256(a, f15)),
                                _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_srli_epi64(a, 15), ff), ff)),
            _mm256_andnot_si256(is0(_mm256_and_si256(b, f15)),
                                _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_srli_epi64(b, 15), ff), ff)));
        __m256i sd = _mm256_xor_si256(sa, sb);
        __m256i e = _mm256_or_si256(_mm256_and_si256(is0(ma), is0(mb)),
                                    _mm256_andnot_si256(sd, _mm256_cmpeq_epi64(ma, mb)));
        __m256i ord = flip(_mm256_or_si256(nan, e));
        __m256i l_same = _mm256_xor_si256(_mm256_cmpgt_epi64(mb, ma), sa);
        __m256i lt = _mm256_and_si256(ord, _mm256_or_si256(_mm256_and_si256(sd, sa), _mm256_andnot_si256(sd, l_same)));
        __m256i gt = _mm256_andnot_si256(lt, ord), eq = _mm256_andnot_si256(nan, e), p = zero, va;
        switch (op) {
        case KH_VALU_MAX: va = pick(lt, a, b); break;
        case KH_VALU_MIN: va = pick(gt, a, b); break;
        case KH_VALU_SEL: va = pick(is0(_mm256_and_si256(c, mag)), a, b); break;
        default: /* CMPLT, CMPGT, CMPEQ: kh_valu_alu16_x86 sends no other op here */
            p = op == KH_VALU_CMPLT ? lt : op == KH_VALU_CMPGT ? gt : eq;
            va = _mm256_and_si256(p, one);
            break;
        }
        pbits |= (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(p)) << h;
        _mm_storeu_si128((__m128i *)(void *)(out + h), fma4v(va, one, zero));
    }
    return pbits;
}

static T256 unsigned exp2d_avx2(const kh_e8 *A, const kh_e8 *B, unsigned tau, kh_e8 *out) /* as exp2d8 */
{
    const __m256i zero = _mm256_setzero_si256(), one = q64(1), ff = q64(255), f15 = q64(0x7FFF);
    __m256i a = load4(A), b = load4(B);
    /* floor(b), clamped to [-256, 255] */
    __m256i sbm = flip(is0(_mm256_and_si256(b, q64(1u << 23))));
    __m256i eb = _mm256_and_si256(_mm256_srli_epi64(b, 15), ff);
    __m256i d = _mm256_sub_epi64(q64(142), eb); /* 8..15 where used */
    __m256i sigb = _mm256_or_si256(_mm256_and_si256(b, f15), q64(0x8000));
    __m256i ip = _mm256_and_si256(_mm256_srlv_epi64(sigb, d), ff);
    __m256i lowb = _mm256_sub_epi64(_mm256_sllv_epi64(one, d), one);
    __m256i frb = _mm256_andnot_si256(is0(_mm256_and_si256(sigb, lowb)), one);
    __m256i fl = pick(sbm, ip, _mm256_sub_epi64(zero, _mm256_add_epi64(ip, frb)));
    fl = pick(_mm256_cmpgt_epi64(q64(127), eb), fl, _mm256_and_si256(sbm, q64((uint64_t)-1)));
    fl = pick(_mm256_cmpgt_epi64(eb, q64(134)), fl, pick(sbm, q64(255), q64((uint64_t)-256)));
    fl = _mm256_andnot_si256(is0(eb), fl);
    /* the seed's argument: |a| * 2^17 rounded half up, a 25-bit register */
    __m256i sam = flip(is0(_mm256_and_si256(a, q64(1u << 23))));
    __m256i e = _mm256_and_si256(_mm256_srli_epi64(a, 15), ff), f = _mm256_and_si256(a, f15);
    __m256i t = _mm256_sub_epi64(q64(134), e); /* negative past 134: a special below */
    __m256i sh = pick(_mm256_cmpgt_epi64(t, q64(26)), t, q64(26));
    __m256i r = _mm256_srlv_epi64(_mm256_or_si256(q64(1u << 25), _mm256_slli_epi64(f, 10)), sh);
    __m256i q = _mm256_add_epi64(_mm256_srli_epi64(r, 1), _mm256_and_si256(r, one));
    __m256i v = _mm256_and_si256(pick(sam, q, _mm256_sub_epi64(zero, q)), q64(0x1FFFFFF));
    __m256i k = _mm256_sub_epi64(_mm256_srli_epi64(v, 17), _mm256_slli_epi64(_mm256_and_si256(_mm256_srli_epi64(v, 24), one), 8));
    __m256i fr = _mm256_and_si256(v, q64(0x1FFFF));
    __m256i idx = _mm256_srli_epi64(fr, 12), u = _mm256_and_si256(fr, q64(0xFFF));
    /* the table rows by plain loads: a gather is slow where the CPU's
     * microcode guards it (GDS) */
    uint64_t ix[4];
    _mm256_storeu_si256((__m256i *)(void *)ix, idx);
    const int32_t(*cf)[3] = kh_vseed_coef[0];
    __m256i c0 = _mm256_setr_epi64x(cf[ix[0]][0], cf[ix[1]][0], cf[ix[2]][0], cf[ix[3]][0]);
    __m256i c1 = _mm256_setr_epi64x(cf[ix[0]][1], cf[ix[1]][1], cf[ix[2]][1], cf[ix[3]][1]);
    __m256i c2 = _mm256_setr_epi64x(cf[ix[0]][2], cf[ix[1]][2], cf[ix[2]][2], cf[ix[3]][2]);
    __m256i h = _mm256_srli_epi64(
        _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(c2, u), _mm256_slli_epi64(c1, 16)), q64(1u << 15)), 16);
    __m256i base = _mm256_andnot_si256(is0(fr), c0); /* idx 0, u 0: the identity */
    __m256i mag = _mm256_srli_epi64(
        _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(h, u), _mm256_slli_epi64(_mm256_add_epi64(base, q64(1u << 20)), 16)),
                         q64(1u << 15)),
        16);
    __m256i ebase = _mm256_sub_epi64(_mm256_add_epi64(k, q64(107)), fl);

    /* kh_valu_round_pack(0, mag, ebase, 0), as fma_avx2 has it */
    const __m256i two52 = q64(UINT64_C(0x4330000000000000)), mask48 = q64((UINT64_C(1) << 48) - 1);
    __m256d dmag = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(mag, two52)), _mm256_castsi256_pd(two52));
    __m256i pos = _mm256_sub_epi64(_mm256_srli_epi64(_mm256_castpd_si256(dmag), 52), q64(1023));
    __m256i n = _mm256_and_si256(_mm256_sllv_epi64(mag, _mm256_sub_epi64(q64(47), pos)), mask48);
    __m256i sig = _mm256_srli_epi64(n, 32);
    __m256i guard = _mm256_and_si256(_mm256_srli_epi64(n, 31), one);
    __m256i sticky = flip(is0(_mm256_and_si256(n, q64(0x7FFFFFFFu))));
    __m256i odd_or_sticky = pick(sticky, _mm256_and_si256(sig, one), one);
    sig = _mm256_add_epi64(sig, _mm256_and_si256(guard, odd_or_sticky));
    __m256i carry = _mm256_srli_epi64(sig, 16);
    __m256i ee = _mm256_add_epi64(_mm256_add_epi64(pos, ebase), carry);
    __m256i frac = _mm256_and_si256(is0(carry), _mm256_and_si256(sig, f15));
    __m256i res = _mm256_or_si256(_mm256_slli_epi64(ee, 15), frac);
    res = pick(_mm256_cmpgt_epi64(ee, q64(254)), res, q64(0xFFu << 15));
    res = pick(_mm256_cmpgt_epi64(one, ee), res, zero);
    res = _mm256_andnot_si256(is0(mag), res);
    /* EXP2's specials on a: NaN, then Inf or |a| >= 256 */
    __m256i top = _mm256_cmpeq_epi64(e, ff), a_nan = _mm256_andnot_si256(is0(f), top);
    res = pick(_mm256_cmpgt_epi64(e, q64(134)), res, _mm256_andnot_si256(sam, q64(KH_E8_POS_INF)));
    res = pick(a_nan, res, q64(KH_E8_QNAN));
    /* the sticky bit: a result >= 2^tau, Inf and NaN included */
    __m256i er = _mm256_and_si256(_mm256_srli_epi64(res, 15), ff);
    __m256i o = _mm256_or_si256(_mm256_cmpeq_epi64(er, ff),
                                _mm256_andnot_si256(is0(er), _mm256_cmpgt_epi64(er, q64(126u + tau))));
    unsigned om = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(o));
    __m256i packed = _mm256_permutevar8x32_epi32(res, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6));
    _mm_storeu_si128((__m128i *)(void *)out, _mm256_castsi256_si128(packed));
    return om;
}

/* a step's sticky bits into ovf[0..step) */
static void ovf_ints(unsigned o, int *ovf, unsigned step)
{
    for (unsigned j = 0; j < step; j++) ovf[j] = (int)((o >> j) & 1);
}

int kh_valu_exp2d_n_x86(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out, int *ovf, unsigned n)
{
    unsigned i = 0;
    if (kh_simd_allows(KH_SIMD_AVX512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd"))
        for (; i + 8 <= n; i += 8) ovf_ints(exp2d8(a + i, b + i, tau, out + i), ovf + i, 8);
    else if (kh_simd_allows(KH_SIMD_AVX2) && __builtin_cpu_supports("avx2"))
        for (; i + 4 <= n; i += 4) ovf_ints(exp2d_avx2(a + i, b + i, tau, out + i), ovf + i, 4);
    else
        return 0;
    for (; i < n; i++) out[i] = kh_valu_exp2d(a[i], b[i], tau, &ovf[i]);
    return 1;
}

int kh_valu_exp2d16_x86(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out, unsigned *ovf)
{
    if (kh_simd_allows(KH_SIMD_AVX512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd")) {
        unsigned lo = exp2d8(a, b, tau, out);
        *ovf = lo | exp2d8(a + 8, b + 8, tau, out + 8) << 8;
        return 1;
    }
    if (kh_simd_allows(KH_SIMD_AVX2) && __builtin_cpu_supports("avx2")) {
        unsigned o = 0;
        for (unsigned i = 0; i < 16; i += 4) o |= exp2d_avx2(a + i, b + i, tau, out + i) << i;
        *ovf = o;
        return 1;
    }
    return 0;
}

int kh_valu_alu16_x86(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, unsigned *pred)
{
    if (op > KH_VALU_CMPEQ) return 0;
    int cmp = op >= KH_VALU_MAX; /* the compare's arms in functions of their own: MOV to FNMA never pay for them */
    if (kh_simd_allows(KH_SIMD_AVX512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd")) {
        if (cmp) *pred = alu16_cmp(op, a, b, c, out);
        else *pred = 0, alu16(op, a, b, c, out);
    } else if (kh_simd_allows(KH_SIMD_AVX2) && __builtin_cpu_supports("avx2")) {
        if (cmp) *pred = alu16_cmp_avx2(op, a, b, c, out);
        else *pred = 0, alu16_avx2(op, a, b, c, out);
    } else {
        return 0;
    }
    return 1;
}

/* Reads no lane at or past n: kh_valu_n's scratch is not initialised there. */
int kh_valu_fma_n_x86(const kh_e8 *va, const kh_e8 *vb, const kh_e8 *vc, kh_e8 *out, unsigned n)
{
    unsigned i = 0;
    if (kh_simd_allows(KH_SIMD_AVX512) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd"))
        for (; i + 8 <= n; i += 8) fma8(va + i, vb + i, vc + i, out + i);
    else if (kh_simd_allows(KH_SIMD_AVX2) && __builtin_cpu_supports("avx2"))
        for (; i + 4 <= n; i += 4) fma_avx2(va + i, vb + i, vc + i, out + i);
    else
        return 0;
    for (; i < n; i++) out[i] = kh_valu_fma_inline(va[i], vb[i], vc[i]);
    return 1;
}
#else
int kh_valu_alu16_x86(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, unsigned *pred)
{
    (void)op, (void)a, (void)b, (void)c, (void)out, (void)pred;
    return 0;
}
int kh_valu_fma_n_x86(const kh_e8 *va, const kh_e8 *vb, const kh_e8 *vc, kh_e8 *out, unsigned n)
{
    (void)va, (void)vb, (void)vc, (void)out, (void)n;
    return 0;
}
int kh_valu_exp2d_n_x86(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out, int *ovf, unsigned n)
{
    (void)a, (void)b, (void)tau, (void)out, (void)ovf, (void)n;
    return 0;
}
int kh_valu_exp2d16_x86(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out, unsigned *ovf)
{
    (void)a, (void)b, (void)tau, (void)out, (void)ovf;
    return 0;
}
#endif
