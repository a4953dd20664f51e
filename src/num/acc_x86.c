/* The per-block accumulate pipeline's lane arithmetic (numerics.md §5,
 * §6.1) on 16 lanes at once: AVX-512 (one 32-bit lane per output, vplzcntd
 * for the leading one) and AVX2 (two halves of eight; the leading one from
 * an exact int -> float conversion). Same operations as acc_int.h, lane-
 * wise; 32-bit lanes hold every intermediate while the add's sum fits
 * (MW <= 22 with vplzcntd, MW <= 14 where floats must be exact: sum < 2^24)
 * and |C| <= 2^17 (mag < 2^25, what a K block can produce). The product's
 * sums go from the kernel into the lanes without leaving the registers. */
#include <string.h>

#include "acc_int.h"
#include "mx_block_int.h"

#ifdef KH_MX_HAVE_X86
#include "mx_x86_kernels.h"

/* Bodies inlined into each entry point, so the constants it passes fold. */
#define KH_INLINE __attribute__((always_inline)) inline

/* ---- AVX-512 ------------------------------------------------------------- */

#define T512 __attribute__((target("avx2,avx512f,avx512cd,avx512vl")))
typedef __m512i v16;

static inline T512 v16 set1(uint32_t x) { return _mm512_set1_epi32((int)x); }

/* The scale bytes of 4 lanes spread over the 16 outputs n = 4i + j:
 * `order` picks byte i (A rows) or j (B columns) for each. */
static inline T512 v16 scale_lanes(const uint8_t s[4], __m128i order)
{
    uint32_t s4;
    memcpy(&s4, s, 4);
    return _mm512_cvtepu8_epi32(_mm_shuffle_epi8(_mm_cvtsi32_si128((int)s4), order));
}

static inline T512 v16 a_scale_lanes(const kh_mx_entry *a)
{
    return scale_lanes(a->scale, _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3));
}

static inline T512 v16 b_scale_lanes(const kh_mx_entry *b)
{
    return scale_lanes(b->scale, _mm_setr_epi8(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3));
}

/* What one A entry contributes to every block it meets, computed once:
 * - ak[k]: dword k (elements 4k..4k+3) of row i in lanes 4i..4i+3, so that
 *   with B's dword k of column j gathered into lane 4i + j, eight vpdpbusd
 *   leave each lane's dot product in place (no horizontal sums);
 * - corr: 64 · (sum of row i) in lanes 4i + j. vpdpbusd multiplies an
 *   unsigned byte by a signed one; B's elements (-64..63) go in as b + 64,
 *   so each lane gathers a·b + 64·a and corr takes the second part off. The
 *   same integers, grouped otherwise: exact;
 * - mm and e: A's factor 8 + M of the scale mantissa product, and A's part
 *   of the exponent (numerics §5) with the constants folded in. */
typedef struct a_side {
    v16 ak[8], corr, mm, e;
} a_side;

static KH_INLINE KH_T_AVX512VNNI void a_side_of(const kh_mx_entry *a, unsigned anchor, a_side *s)
{
    const v16 a01 = _mm512_loadu_si512(a->q[0]), a23 = _mm512_loadu_si512(a->q[2]);
    /* dword 8r + k of the pair (q[0..1], q[2..3]) is element group k of row r */
    const v16 rows = _mm512_setr_epi32(0, 0, 0, 0, 8, 8, 8, 8, 16, 16, 16, 16, 24, 24, 24, 24);
    const v16 bias = set1(0x40404040u);
    v16 corr[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
    KH_UNROLL for (int k = 0; k < 8; k++) {
        s->ak[k] = _mm512_permutex2var_epi32(a01, _mm512_add_epi32(rows, set1((uint32_t)k)), a23);
        corr[k & 1] = _mm512_dpbusd_epi32(corr[k & 1], bias, s->ak[k]);
    }
    s->corr = _mm512_add_epi32(corr[0], corr[1]);
    v16 va = a_scale_lanes(a);
    s->mm = _mm512_add_epi32(_mm512_and_si512(va, set1(7)), set1(8));
    /* msb = 31 - lz, the product's 2^6 in mm, minus one for the leading one
     * that scale16 adds into the exponent field */
    s->e = _mm512_add_epi32(_mm512_srli_epi32(va, 3), set1((uint32_t)(KH_ACC_BIAS - 6 + 31 - 1) - anchor));
}

/* The 16 exact dot products of A (prepared) and one B entry. */
static KH_INLINE KH_T_AVX512VNNI v16 product16(const a_side *s, const kh_mx_entry *b)
{
    const v16 cols = _mm512_setr_epi32(0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24, 0, 8, 16, 24);
    const v16 c40 = set1(0x40404040u), c7f = set1(0x7F7F7F7Fu);
    /* b + 64 for every byte in -64..63: flip bit 6, clear bit 7 (0x28: (x ^ y) & z) */
    const v16 b01 = _mm512_ternarylogic_epi32(_mm512_loadu_si512(b->q[0]), c40, c7f, 0x28);
    const v16 b23 = _mm512_ternarylogic_epi32(_mm512_loadu_si512(b->q[2]), c40, c7f, 0x28);
    /* four chains: the vpdpbusd latencies overlap */
    v16 acc[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    KH_UNROLL for (int k = 0; k < 8; k++) {
        v16 bk = _mm512_permutex2var_epi32(b01, _mm512_add_epi32(cols, set1((uint32_t)k)), b23);
        acc[k & 3] = _mm512_dpbusd_epi32(acc[k & 3], bk, s->ak[k]);
    }
    return _mm512_sub_epi32(_mm512_add_epi32(_mm512_add_epi32(acc[0], acc[1]), _mm512_add_epi32(acc[2], acc[3])), s->corr);
}

/* numerics §5 on 16 lanes, as kh_acc_scale. Two shortcuts, both exact:
 * round to nearest even by adding half an ulp less one plus the kept lsb
 * (a carry out of the ulp is the round-up); and the significand, its
 * leading one included, added onto the exponent field, so that a rounding
 * carry to 2^(MW+1) raises the exponent by itself. */
static KH_INLINE T512 v16 scale16(v16 c, const a_side *s, v16 vb, unsigned mw)
{
    const v16 one = set1(1);
    __mmask16 neg = _mm512_cmplt_epi32_mask(c, _mm512_setzero_si512());
    v16 mm = _mm512_mullo_epi32(s->mm, _mm512_add_epi32(_mm512_and_si512(vb, set1(7)), set1(8)));
    v16 mag = _mm512_mullo_epi32(_mm512_abs_epi32(c), mm); /* < 2^25 */
    __mmask16 nz = _mm512_test_epi32_mask(mag, mag);
    v16 lz = _mm512_lzcnt_epi32(mag);
    v16 x = _mm512_sllv_epi32(mag, _mm512_sub_epi32(lz, set1(2))); /* leading one at bit 29 */
    v16 lsb = _mm512_and_si512(_mm512_srli_epi32(x, 29 - mw), one);
    v16 sig = _mm512_srli_epi32(_mm512_add_epi32(_mm512_add_epi32(x, set1((1u << (28 - mw)) - 1)), lsb), 29 - mw);
    v16 e = _mm512_sub_epi32(_mm512_add_epi32(s->e, _mm512_srli_epi32(vb, 3)), lz);
    /* the exponent wraps modulo 128 (no range check) */
    v16 w = _mm512_and_si512(_mm512_add_epi32(_mm512_slli_epi32(e, mw), sig), set1((1u << (mw + 7)) - 1));
    w = _mm512_mask_or_epi32(w, neg, w, set1(1u << (mw + 7)));
    return _mm512_maskz_mov_epi32(nz, w);
}

/* numerics §6.1 add(a, b) on 16 lanes, as kh_acc_sum. The sum is
 * normalised with its leading one at bit 31, the alignment's lost bits
 * folded into its bit 0 as a sticky; then, as in scale16, the rounding
 * and the exponent by adds, so that the result's magnitude r says both
 * the flush (r < 2^MW: exponent <= 0) and the saturation (exponent >= 127). */
static KH_INLINE T512 v16 sum16(v16 a, v16 b, unsigned mw)
{
    const unsigned width = mw + 1 + KH_ACC_GUARD, drop = 31 - mw;
    const v16 fmask = set1((1u << mw) - 1), magmask = set1((1u << (mw + 7)) - 1), hidden = set1(1u << mw);
    const v16 signbit = set1(1u << (mw + 7)), one = set1(1), zero = _mm512_setzero_si512();
    v16 ma = _mm512_and_si512(a, magmask), mb = _mm512_and_si512(b, magmask);
    __mmask16 za = _mm512_cmplt_epu32_mask(ma, hidden), zb = _mm512_cmplt_epu32_mask(mb, hidden); /* E = 0 */
    __mmask16 a_ge = _mm512_cmpge_epu32_mask(ma, mb);
    v16 big = _mm512_max_epu32(ma, mb), small = _mm512_min_epu32(ma, mb); /* {E, f} as one number */
    v16 sign = _mm512_and_si512(_mm512_mask_blend_epi32(a_ge, b, a), signbit);
    v16 e_big = _mm512_srli_epi32(big, mw), e_small = _mm512_srli_epi32(small, mw);
    /* 0xEA: (x & y) | z */
    v16 bg = _mm512_slli_epi32(_mm512_ternarylogic_epi32(big, fmask, hidden, 0xEA), KH_ACC_GUARD);
    v16 sm = _mm512_slli_epi32(_mm512_ternarylogic_epi32(small, fmask, hidden, 0xEA), KH_ACC_GUARD);
    v16 d = _mm512_min_epu32(_mm512_sub_epi32(e_big, e_small), set1(width));
    v16 sh = _mm512_srlv_epi32(sm, d);
    __mmask16 lost = _mm512_cmpneq_epi32_mask(_mm512_sllv_epi32(sh, d), sm);
    __mmask16 sub = _mm512_test_epi32_mask(_mm512_xor_si512(a, b), signbit);
    v16 sum = _mm512_mask_sub_epi32(_mm512_add_epi32(bg, sh), sub, bg, sh); /* lost bits: no borrow */
    __mmask16 nonzero = _mm512_test_epi32_mask(sum, sum);
    v16 lz = _mm512_lzcnt_epi32(sum);
    v16 n = _mm512_sllv_epi32(sum, lz);
    n = _mm512_mask_or_epi32(n, lost, n, one);
    /* MW + 1 bits from bit 31 down, rounded to nearest even on the rest
     * (added below the kept bits, so nothing overflows 32 bits) */
    v16 sig = _mm512_srli_epi32(n, drop);
    v16 low = _mm512_and_si512(n, set1((1u << drop) - 1));
    v16 up = _mm512_add_epi32(_mm512_add_epi32(low, set1((1u << (drop - 1)) - 1)), _mm512_and_si512(sig, one));
    sig = _mm512_add_epi32(sig, _mm512_srli_epi32(up, drop));
    /* exponent e_big + 1 - (lz - (31 - width)), less the leading one in sig */
    v16 e = _mm512_sub_epi32(e_big, _mm512_sub_epi32(lz, set1(31 - width)));
    v16 r = _mm512_add_epi32(_mm512_slli_epi32(e, mw), sig); /* signed: exponent * 2^MW + f */
    __mmask16 sat = _mm512_cmpge_epi32_mask(r, set1(127u << mw));
    __mmask16 keep = _mm512_mask_cmpge_epi32_mask(nonzero, r, hidden); /* else flush; exact cancellation is +0 */
    r = _mm512_or_si512(sign, r);
    r = _mm512_mask_or_epi32(r, sat, sign, set1(127u << mw | ((1u << mw) - 1)));
    r = _mm512_maskz_mov_epi32(keep, r);
    r = _mm512_mask_mov_epi32(r, zb, a); /* one zero: the other operand verbatim */
    r = _mm512_mask_mov_epi32(r, za, b);
    return _mm512_mask_mov_epi32(r, za & zb, zero);
}

/* The bodies with anchor and MW as arguments; the entry points call them
 * with the program constants (anchor 40, FP22) spelt out where they apply, so
 * the shifts and masks of the common case are immediates. */
static KH_INLINE KH_T_AVX512VNNI void chain512(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor,
                                               unsigned mw, uint32_t chain[16])
{
    a_side s;
    a_side_of(a, anchor, &s);
    _mm512_storeu_si512(chain, scale16(product16(&s, b), &s, b_scale_lanes(b), mw));
}

/* One A against n B entries into n tiles, in order: each tile is loaded
 * after the previous one is stored, so a repeated tile adds onto itself.
 * The next block's product and scale are issued before this block's add
 * (they touch no tile): the long add chain then overlaps independent work. */
static KH_INLINE KH_T_AVX512VNNI void strip512(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n,
                                               unsigned anchor, unsigned mw, uint32_t *const *tile)
{
    a_side s;
    if (!n) return;
    a_side_of(a, anchor, &s);
    v16 next = scale16(product16(&s, b[0]), &s, b_scale_lanes(b[0]), mw);
    for (unsigned h = 0; h < n; h++) {
        v16 ch = next;
        if (h + 1 < n) next = scale16(product16(&s, b[h + 1]), &s, b_scale_lanes(b[h + 1]), mw);
        _mm512_storeu_si512(tile[h], sum16(_mm512_loadu_si512(tile[h]), ch, mw));
    }
}

KH_T_AVX512VNNI void kh_mx_chain_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                                            uint32_t chain[16])
{
    if (anchor == KH_MX_ANCHOR && mw == KH_ACC_MW_DEFAULT) chain512(a, b, KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, chain);
    else chain512(a, b, anchor, mw, chain);
}

KH_T_AVX512VNNI void kh_mx_strip_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n,
                                            unsigned anchor, unsigned mw, uint32_t *const *tile)
{
    if (anchor == KH_MX_ANCHOR && mw == KH_ACC_MW_DEFAULT) strip512(a, b, n, KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, tile);
    else strip512(a, b, n, anchor, mw, tile);
}

KH_T_AVX512VNNI void kh_mx_accum_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                                            uint32_t tile[16])
{
    kh_mx_strip_avx512vnni(a, &b, 1, anchor, mw, &tile);
}

/* numerics §7 for FP22 (MW 14), lane by lane as kh_acc_to_f16: flush below
 * 2^-14 and for E = 0, saturate to 0x7BFF, round to nearest even. */
static T512 void f16_word_fp22(const uint32_t v[16], uint64_t word[4])
{
    enum { MW = KH_ACC_MW_DEFAULT, DROP = MW - 10 };
    const v16 zero = _mm512_setzero_si512(), one = set1(1);
    v16 x = _mm512_loadu_si512(v);
    v16 s = _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(x, MW + 7), one), 15);
    v16 e = _mm512_and_si512(_mm512_srli_epi32(x, MW), set1(127));
    v16 f = _mm512_and_si512(x, set1((1u << MW) - 1));
    __mmask16 ez = _mm512_cmpeq_epi32_mask(e, zero);
    v16 e16 = _mm512_sub_epi32(e, set1(KH_ACC_BIAS - 15));
    v16 guard = _mm512_and_si512(_mm512_srli_epi32(f, DROP - 1), one);
    __mmask16 sticky = _mm512_test_epi32_mask(f, set1((1u << (DROP - 1)) - 1));
    v16 m = _mm512_srli_epi32(f, DROP);
    m = _mm512_add_epi32(m, _mm512_and_si512(guard, _mm512_mask_mov_epi32(_mm512_and_si512(m, one), sticky, one)));
    __mmask16 carry = _mm512_cmpeq_epi32_mask(m, set1(1024));
    e16 = _mm512_mask_add_epi32(e16, carry, e16, one);
    m = _mm512_mask_mov_epi32(m, carry, zero);
    v16 r = _mm512_or_si512(_mm512_or_si512(s, _mm512_slli_epi32(e16, 10)), m);
    r = _mm512_mask_mov_epi32(r, _mm512_cmpge_epi32_mask(e16, set1(31)), _mm512_or_si512(s, set1(0x7BFF)));
    r = _mm512_mask_mov_epi32(r, _mm512_cmple_epi32_mask(e16, zero) | ez, s);
    /* lane e to bits [16e+15:16e]: the halfwords in order (x86 is little-endian) */
    _mm256_storeu_si256((__m256i *)(void *)word, _mm512_cvtepi32_epi16(r));
}

int kh_acc_to_f16_word_fp22_avx512(const uint32_t v[16], uint64_t word[4])
{
    if (!kh_simd_allows(KH_SIMD_AVX512) || !__builtin_cpu_supports("avx512f")) return 0;
    f16_word_fp22(v, word);
    return 1;
}

/* ---- AVX2 ---------------------------------------------------------------- */

#define T256 __attribute__((target("avx2")))
typedef __m256i v8;

static inline T256 v8 s1(uint32_t x) { return _mm256_set1_epi32((int)x); }
static inline T256 v8 sel(v8 mask, v8 yes, v8 no) { return _mm256_blendv_epi8(no, yes, mask); }

/* Index of the leading one of x < 2^24 (exact as a float); -127 for 0. */
static inline T256 v8 msb_exact(v8 x)
{
    v8 bits = _mm256_castps_si256(_mm256_cvtepi32_ps(x));
    return _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), s1(127));
}

static KH_INLINE T256 v8 scale8(v8 c, v8 sa, v8 sb, unsigned anchor, unsigned mw)
{
    const v8 seven = s1(7), eight = s1(8), zero = _mm256_setzero_si256(), one = s1(1);
    v8 neg = _mm256_cmpgt_epi32(zero, c);
    v8 mm = _mm256_mullo_epi32(_mm256_add_epi32(_mm256_and_si256(sa, seven), eight),
                               _mm256_add_epi32(_mm256_and_si256(sb, seven), eight));
    v8 mag = _mm256_mullo_epi32(_mm256_abs_epi32(c), mm); /* 0 or >= 64, < 2^25 */
    v8 msb = _mm256_add_epi32(msb_exact(_mm256_srli_epi32(mag, 1)), one);
    v8 s = _mm256_sllv_epi32(mag, _mm256_sub_epi32(s1(29), msb));
    v8 sig = _mm256_srlv_epi32(s, s1(29 - mw));
    v8 guard = _mm256_and_si256(_mm256_srlv_epi32(s, s1(28 - mw)), one);
    v8 sticky = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(s, s1((1u << (28 - mw)) - 1)), zero), one);
    sig = _mm256_add_epi32(sig, _mm256_and_si256(guard, _mm256_or_si256(sig, sticky)));
    v8 carry = _mm256_srlv_epi32(sig, s1(mw + 1));
    v8 exp_in = _mm256_sub_epi32(_mm256_add_epi32(_mm256_srli_epi32(sa, 3), _mm256_srli_epi32(sb, 3)),
                                 s1(anchor + 6 - KH_ACC_BIAS));
    v8 e = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(msb, exp_in), carry), s1(127));
    v8 w = _mm256_or_si256(_mm256_sllv_epi32(e, s1(mw)), _mm256_and_si256(sig, s1((1u << mw) - 1)));
    w = _mm256_or_si256(w, _mm256_and_si256(neg, s1(1u << (mw + 7))));
    return _mm256_andnot_si256(_mm256_cmpeq_epi32(mag, zero), w);
}

static KH_INLINE T256 v8 sum8(v8 a, v8 b, unsigned mw)
{
    const unsigned width = mw + 1 + KH_ACC_GUARD;
    const v8 fmask = s1((1u << mw) - 1), magmask = s1((1u << (mw + 7)) - 1), vmw = s1(mw), one = s1(1);
    const v8 e127 = s1(127), hidden = s1(1u << mw), zero = _mm256_setzero_si256();
    v8 ma = _mm256_and_si256(a, magmask), mb = _mm256_and_si256(b, magmask); /* < 2^31: signed compares */
    v8 za = _mm256_cmpgt_epi32(hidden, ma), zb = _mm256_cmpgt_epi32(hidden, mb);
    v8 a_lt = _mm256_cmpgt_epi32(mb, ma);
    v8 big = sel(a_lt, b, a), small = sel(a_lt, a, b);
    v8 e_big = _mm256_and_si256(_mm256_srlv_epi32(big, vmw), e127);
    v8 e_small = _mm256_and_si256(_mm256_srlv_epi32(small, vmw), e127);
    v8 sign = _mm256_and_si256(big, s1(1u << (mw + 7)));
    v8 bg = _mm256_slli_epi32(_mm256_or_si256(_mm256_and_si256(big, fmask), hidden), KH_ACC_GUARD);
    v8 sm = _mm256_slli_epi32(_mm256_or_si256(_mm256_and_si256(small, fmask), hidden), KH_ACC_GUARD);
    v8 d = _mm256_min_epu32(_mm256_sub_epi32(e_big, e_small), s1(width));
    v8 sh = _mm256_srlv_epi32(sm, d);
    v8 lost_bits = _mm256_and_si256(sm, _mm256_sub_epi32(_mm256_sllv_epi32(one, d), one));
    v8 sub = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_xor_si256(a, b), s1(1u << (mw + 7))), s1(1u << (mw + 7)));
    v8 sum = _mm256_add_epi32(bg, _mm256_sub_epi32(_mm256_xor_si256(sh, sub), sub)); /* lost bits: no borrow */
    v8 lzs = _mm256_sub_epi32(s1(width), msb_exact(sum));
    v8 n = _mm256_sllv_epi32(sum, lzs);
    v8 e_out = _mm256_sub_epi32(_mm256_add_epi32(e_big, one), lzs);
    v8 sig = _mm256_srli_epi32(n, KH_ACC_GUARD + 1);
    v8 guard = _mm256_and_si256(_mm256_srli_epi32(n, KH_ACC_GUARD), one);
    v8 low = _mm256_or_si256(lost_bits, _mm256_and_si256(n, s1((1u << KH_ACC_GUARD) - 1)));
    v8 sticky = _mm256_andnot_si256(_mm256_cmpeq_epi32(low, zero), one);
    sig = _mm256_add_epi32(sig, _mm256_and_si256(guard, _mm256_or_si256(sig, sticky)));
    e_out = _mm256_add_epi32(e_out, _mm256_srlv_epi32(sig, s1(mw + 1)));
    v8 r = _mm256_or_si256(_mm256_or_si256(sign, _mm256_sllv_epi32(e_out, vmw)), _mm256_and_si256(sig, fmask));
    v8 satv = _mm256_or_si256(sign, _mm256_or_si256(_mm256_sllv_epi32(e127, vmw), fmask));
    r = sel(_mm256_cmpgt_epi32(e_out, s1(126)), satv, r);
    v8 flush = _mm256_or_si256(_mm256_cmpgt_epi32(one, e_out), _mm256_cmpeq_epi32(sum, zero));
    r = _mm256_andnot_si256(flush, r);
    r = sel(zb, a, r); /* one zero: the other operand verbatim */
    r = sel(za, b, r);
    return _mm256_andnot_si256(_mm256_and_si256(za, zb), r);
}

/* Scale bytes of lanes 8h .. 8h + 7: A rows 2h, 2h + 1; B columns 0..3 twice. */
static inline T256 void lane_scales8(const kh_mx_entry *a, const kh_mx_entry *b, int h, v8 *va, v8 *vb)
{
    uint32_t sa4, sb4;
    memcpy(&sa4, a->scale, 4);
    memcpy(&sb4, b->scale, 4);
    char r0 = (char)(2 * h), r1 = (char)(2 * h + 1);
    const __m128i rows = _mm_setr_epi8(r0, r0, r0, r0, r1, r1, r1, r1, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m128i cols = _mm_setr_epi8(0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0);
    *va = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(_mm_cvtsi32_si128((int)sa4), rows));
    *vb = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(_mm_cvtsi32_si128((int)sb4), cols));
}

static KH_INLINE T256 void chain_avx2_lanes(const kh_mx_entry *a, const kh_mx_entry *b, const __m256i c[2],
                                         unsigned anchor, unsigned mw, uint32_t chain[16])
{
    for (int h = 0; h < 2; h++) {
        v8 va, vb;
        lane_scales8(a, b, h, &va, &vb);
        _mm256_storeu_si256((__m256i *)(chain + 8 * h), scale8(c[h], va, vb, anchor, mw));
    }
}

static KH_INLINE T256 void accum_avx2_lanes(const kh_mx_entry *a, const kh_mx_entry *b, const __m256i c[2],
                                         unsigned anchor, unsigned mw, uint32_t tile[16])
{
    for (int h = 0; h < 2; h++) {
        v8 va, vb;
        lane_scales8(a, b, h, &va, &vb);
        v8 ch = scale8(c[h], va, vb, anchor, mw);
        v8 t = _mm256_loadu_si256((const __m256i *)(tile + 8 * h));
        _mm256_storeu_si256((__m256i *)(tile + 8 * h), sum8(t, ch, mw));
    }
}

T256 void kh_mx_chain_avx2(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t chain[16])
{
    __m256i c[2];
    kh_product_avx2(a, b, c);
    if (anchor == KH_MX_ANCHOR && mw == KH_ACC_MW_DEFAULT) chain_avx2_lanes(a, b, c, KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, chain);
    else chain_avx2_lanes(a, b, c, anchor, mw, chain);
}

T256 void kh_mx_accum_avx2(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t tile[16])
{
    __m256i c[2];
    kh_product_avx2(a, b, c);
    if (anchor == KH_MX_ANCHOR && mw == KH_ACC_MW_DEFAULT) accum_avx2_lanes(a, b, c, KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, tile);
    else accum_avx2_lanes(a, b, c, anchor, mw, tile);
}

/* ---- AVX2 strip ---------------------------------------------------------- */

/* The strip on eight 32-bit lanes, as strip512 on sixteen. Lanes 8h..8h+7
 * of a block (half h) are the outputs 4i + j of rows i = 2h, 2h + 1.
 *
 * Product: dword k of a row or column holds elements 4k..4k+3. B's four
 * columns are transposed in-lane so that t[k] = column j's dwords k (low
 * 128 bits) and k + 4 (high) in dword j; A's row i with dwords k and k + 4
 * broadcast likewise (vpshufd, once per strip) meets t[k] in vpmaddubsw and
 * vpmaddwd, leaving in dword j of each half a partial dot product of row i
 * and column j: no horizontal sums, one 128-bit swap per half at the end.
 * B enters unsigned as b + 64 (vpmaddubsw multiplies an unsigned byte by a
 * signed one), so each lane gathers a·b + 64·a and corr, 64·(sum of row
 * i), once per strip, takes the second part off. Two vpmaddubsw results
 * (four products of at most 127·64 each) still fit an int16. The same
 * integers, grouped otherwise: exact.
 *
 * Scale (numerics §5) and add (§6.1) read the leading one and normalise
 * through an exact int -> float conversion (vcvtdq2ps of a value < 2^24:
 * its exponent field is 127 + the leading one's index, its fraction the
 * bits below, left-aligned), then round to nearest even by adding half an
 * ulp less one plus the kept lsb, and take the exponent with the carry from
 * the float's own exponent field, as scale16 and sum16 do. */
typedef struct a_side8 {
    v8 ak[4][4];  /* ak[i][k]: row i's dwords k (low half) and k + 4 (high), broadcast */
    v8 corr[2];   /* 64 · (sum of row i) in lanes 4i + j of half h */
    v8 ma[2];     /* 8 + A's scale mantissa, per lane of half h */
    v8 ka[2];     /* the rounding constant and A's part of the exponent, at bit 23 */
} a_side8;

/* Dot products of the prepared A rows 2h, 2h + 1 with the transposed t:
 * the 8 lanes of half h, bias included (corr not yet taken off). */
#define KH_DOT_ROW_AVX2(s, i, t)                                                                  \
    _mm256_add_epi32(                                                                             \
        _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16((t)[0], (s)->ak[i][0]),          \
                                           _mm256_maddubs_epi16((t)[1], (s)->ak[i][1])),         \
                          s1(0x00010001u)),                                                       \
        _mm256_madd_epi16(_mm256_add_epi16(_mm256_maddubs_epi16((t)[2], (s)->ak[i][2]),          \
                                           _mm256_maddubs_epi16((t)[3], (s)->ak[i][3])),         \
                          s1(0x00010001u)))

/* The rows' partial sums (dwords 0..3 and 4..7 of each row) into half h. */
static inline T256 v8 fold_rows(v8 r0, v8 r1)
{
    return _mm256_add_epi32(_mm256_permute2x128_si256(r0, r1, 0x20), _mm256_permute2x128_si256(r0, r1, 0x31));
}

static KH_INLINE T256 void b_transposed(const kh_mx_entry *b, v8 t[4])
{
    const v8 bias = _mm256_set1_epi8(64);
    v8 c[4];
    KH_UNROLL for (int j = 0; j < 4; j++) c[j] = _mm256_add_epi8(_mm256_loadu_si256((const __m256i *)b->q[j]), bias);
    v8 u0 = _mm256_unpacklo_epi32(c[0], c[1]), u1 = _mm256_unpackhi_epi32(c[0], c[1]);
    v8 u2 = _mm256_unpacklo_epi32(c[2], c[3]), u3 = _mm256_unpackhi_epi32(c[2], c[3]);
    t[0] = _mm256_unpacklo_epi64(u0, u2);
    t[1] = _mm256_unpackhi_epi64(u0, u2);
    t[2] = _mm256_unpacklo_epi64(u1, u3);
    t[3] = _mm256_unpackhi_epi64(u1, u3);
}

static KH_INLINE T256 void a_side8_of(const kh_mx_entry *a, unsigned anchor, unsigned mw, a_side8 *s)
{
    const unsigned drop = 23 - mw;
    v8 r[4];
    KH_UNROLL for (int i = 0; i < 4; i++) {
        v8 row = _mm256_loadu_si256((const __m256i *)a->q[i]);
        s->ak[i][0] = _mm256_shuffle_epi32(row, 0x00);
        s->ak[i][1] = _mm256_shuffle_epi32(row, 0x55);
        s->ak[i][2] = _mm256_shuffle_epi32(row, 0xAA);
        s->ak[i][3] = _mm256_shuffle_epi32(row, 0xFF);
    }
    /* the bias part alone: the product with every B byte 64 */
    const v8 t64[4] = {_mm256_set1_epi8(64), _mm256_set1_epi8(64), _mm256_set1_epi8(64), _mm256_set1_epi8(64)};
    KH_UNROLL for (int i = 0; i < 4; i++) r[i] = KH_DOT_ROW_AVX2(s, i, t64);
    s->corr[0] = fold_rows(r[0], r[1]);
    s->corr[1] = fold_rows(r[2], r[3]);
    for (int h = 0; h < 2; h++) {
        v8 va, vb;
        lane_scales8(a, a, h, &va, &vb);
        s->ma[h] = _mm256_add_epi32(_mm256_and_si256(va, s1(7)), s1(8));
        /* the float's exponent field is 127 + msb; the word's exponent is
         * msb + ea + eb - anchor - 6 + BIAS (numerics §5) */
        s->ka[h] = _mm256_add_epi32(_mm256_slli_epi32(_mm256_srli_epi32(va, 3), 23),
                                    s1(((1u << (drop - 1)) - 1) + ((uint32_t)(KH_ACC_BIAS - 6 - 127) - anchor) * (1u << 23)));
    }
}

/* The rows' dot products r (bias included) with B entry b, scaled: the
 * chain words of halves 0 and 1. */
static KH_INLINE T256 void scale8f(const a_side8 *s, const v8 r[4], const kh_mx_entry *b, unsigned mw, v8 out[2])
{
    const unsigned drop = 23 - mw;
    const v8 one = s1(1), zero = _mm256_setzero_si256();
    uint32_t sb4;
    memcpy(&sb4, b->scale, 4);
    const v8 vb = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(_mm_cvtsi32_si128((int)sb4),
                                                        _mm_setr_epi8(0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0)));
    const v8 mb = _mm256_add_epi32(_mm256_and_si256(vb, s1(7)), s1(8));
    const v8 kb = _mm256_slli_epi32(_mm256_srli_epi32(vb, 3), 23);
    KH_UNROLL for (int h = 0; h < 2; h++) {
        v8 c = _mm256_sub_epi32(fold_rows(r[2 * h], r[2 * h + 1]), s->corr[h]);
        v8 mm = _mm256_mullo_epi16(s->ma[h], mb); /* < 2^8 in each 32-bit lane */
        v8 mag = _mm256_mullo_epi32(_mm256_abs_epi32(c), mm); /* 0 or >= 64, < 2^25 */
        /* >= 2^24: halve it, its lost bit kept as a sticky (bit 0 is far
         * below the rounding point), and count the halving in the exponent */
        v8 big = _mm256_srli_epi32(mag, 24);
        v8 in = _mm256_or_si256(_mm256_srlv_epi32(mag, big), _mm256_and_si256(mag, big));
        v8 f = _mm256_castps_si256(_mm256_cvtepi32_ps(in));
        v8 lsb = _mm256_and_si256(_mm256_srli_epi32(f, drop), one);
        v8 x = _mm256_add_epi32(_mm256_add_epi32(f, lsb), _mm256_add_epi32(s->ka[h], kb));
        x = _mm256_add_epi32(x, _mm256_slli_epi32(big, 23));
        /* the exponent wraps modulo 128 (no range check) */
        v8 w = _mm256_and_si256(_mm256_srai_epi32(x, (int)drop), s1((1u << (mw + 7)) - 1));
        w = _mm256_or_si256(w, _mm256_and_si256(_mm256_srai_epi32(c, 31), s1(1u << (mw + 7))));
        out[h] = _mm256_andnot_si256(_mm256_cmpeq_epi32(mag, zero), w);
    }
}

/* numerics §6.1 add(a, b) on 8 lanes, as kh_acc_sum; the sum (< 2^24 for
 * MW <= 14) is normalised and rounded through its float. */
static KH_INLINE T256 v8 sum8f(v8 a, v8 b, unsigned mw)
{
    const unsigned width = mw + 1 + KH_ACC_GUARD, drop = 23 - mw;
    const v8 fmask = s1((1u << mw) - 1), magmask = s1((1u << (mw + 7)) - 1), hidden = s1(1u << mw);
    const v8 signbit = s1(1u << (mw + 7)), one = s1(1);
    v8 ma = _mm256_and_si256(a, magmask), mb = _mm256_and_si256(b, magmask); /* < 2^31: signed compares */
    v8 za = _mm256_cmpgt_epi32(hidden, ma), zb = _mm256_cmpgt_epi32(hidden, mb); /* E = 0 */
    v8 a_lt = _mm256_cmpgt_epi32(mb, ma);
    v8 big = _mm256_max_epi32(ma, mb), small = _mm256_min_epi32(ma, mb); /* {E, f} as one number */
    v8 sign = _mm256_and_si256(sel(a_lt, b, a), signbit);
    v8 bg = _mm256_slli_epi32(_mm256_or_si256(_mm256_and_si256(big, fmask), hidden), KH_ACC_GUARD);
    v8 sm = _mm256_slli_epi32(_mm256_or_si256(_mm256_and_si256(small, fmask), hidden), KH_ACC_GUARD);
    v8 d = _mm256_min_epu32(_mm256_sub_epi32(_mm256_srli_epi32(big, mw), _mm256_srli_epi32(small, mw)), s1(width));
    v8 sh = _mm256_srlv_epi32(sm, d);
    v8 kept = _mm256_cmpeq_epi32(_mm256_sllv_epi32(sh, d), sm); /* no bit lost in the alignment */
    v8 sub = _mm256_srai_epi32(_mm256_slli_epi32(_mm256_xor_si256(a, b), 31 - (mw + 7)), 31);
    v8 sum = _mm256_add_epi32(bg, _mm256_sub_epi32(_mm256_xor_si256(sh, sub), sub)); /* lost bits: no borrow */
    v8 f = _mm256_castps_si256(_mm256_cvtepi32_ps(sum));
    f = _mm256_or_si256(f, _mm256_andnot_si256(kept, one)); /* the sticky, below the guard */
    v8 lsb = _mm256_and_si256(_mm256_srli_epi32(f, drop), one);
    /* float exponent 127 + msb -> e_big + 1 - (width - msb); a sum of 0
     * lands below 2^MW and is flushed */
    v8 r = _mm256_srai_epi32(
        _mm256_add_epi32(_mm256_add_epi32(f, lsb),
                         s1(((1u << (drop - 1)) - 1) + (uint32_t)(1 - (int)width - 127) * (1u << 23))),
        (int)drop);
    r = _mm256_add_epi32(r, _mm256_andnot_si256(fmask, big)); /* signed: exponent * 2^MW + f */
    v8 sat = _mm256_cmpgt_epi32(r, s1((127u << mw) - 1));
    v8 keep = _mm256_cmpgt_epi32(r, s1((1u << mw) - 1)); /* else flush; exact cancellation is +0 */
    r = sel(sat, s1(127u << mw | ((1u << mw) - 1)), r);
    r = _mm256_and_si256(_mm256_or_si256(r, sign), keep);
    r = sel(zb, a, r); /* one zero: the other operand verbatim, two: +0 */
    return sel(za, _mm256_andnot_si256(zb, b), r);
}

/* One A against n B entries into n tiles, in order, as strip512; CHAIN8
 * is the product and scale of one B entry (the ISA's dot products). */
#define KH_STRIP256_BODY(CHAIN8)                                                      \
    a_side8 s;                                                                        \
    v8 next[2];                                                                       \
    if (!n) return;                                                                   \
    a_side8_of(a, anchor, mw, &s);                                                    \
    CHAIN8(&s, b[0], mw, next);                                                       \
    for (unsigned h = 0; h < n; h++) {                                                \
        v8 ch0 = next[0], ch1 = next[1];                                              \
        if (h + 1 < n) CHAIN8(&s, b[h + 1], mw, next);                                \
        __m256i *t = (__m256i *)tile[h];                                              \
        _mm256_storeu_si256(t, sum8f(_mm256_loadu_si256(t), ch0, mw));                \
        _mm256_storeu_si256(t + 1, sum8f(_mm256_loadu_si256(t + 1), ch1, mw));        \
    }

static KH_INLINE T256 void chain8_avx2(const a_side8 *s, const kh_mx_entry *b, unsigned mw, v8 out[2])
{
    v8 t[4], r[4];
    b_transposed(b, t);
    KH_UNROLL for (int i = 0; i < 4; i++) r[i] = KH_DOT_ROW_AVX2(s, i, t);
    scale8f(s, r, b, mw, out);
}

static KH_INLINE T256 void strip256(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n, unsigned anchor,
                                    unsigned mw, uint32_t *const *tile)
{
    KH_STRIP256_BODY(chain8_avx2)
}

T256 void kh_mx_strip_avx2(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n, unsigned anchor,
                           unsigned mw, uint32_t *const *tile)
{
    if (anchor == KH_MX_ANCHOR && mw == KH_ACC_MW_DEFAULT) strip256(a, b, n, KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, tile);
    else strip256(a, b, n, anchor, mw, tile);
}

#ifdef KH_MX_HAVE_AVXVNNI
/* AVX-VNNI: the four dwords of a row meet t in one vpdpbusd chain each. */
static KH_INLINE KH_T_AVXVNNI void chain8_avxvnni(const a_side8 *s, const kh_mx_entry *b, unsigned mw, v8 out[2])
{
    v8 t[4], r[4];
    b_transposed(b, t);
    KH_UNROLL for (int i = 0; i < 4; i++) {
        r[i] = _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), t[0], s->ak[i][0]);
        KH_UNROLL for (int k = 1; k < 4; k++) r[i] = _mm256_dpbusd_avx_epi32(r[i], t[k], s->ak[i][k]);
    }
    scale8f(s, r, b, mw, out);
}

static KH_INLINE KH_T_AVXVNNI void strip256vnni(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n,
                                                unsigned anchor, unsigned mw, uint32_t *const *tile)
{
    KH_STRIP256_BODY(chain8_avxvnni)
}

KH_T_AVXVNNI void kh_mx_strip_avxvnni(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n, unsigned anchor,
                                      unsigned mw, uint32_t *const *tile)
{
    if (anchor == KH_MX_ANCHOR && mw == KH_ACC_MW_DEFAULT) strip256vnni(a, b, n, KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, tile);
    else strip256vnni(a, b, n, anchor, mw, tile);
}
#endif

/* numerics §7 for FP22 on 8 lanes, as f16_word_fp22 on 16. */
static inline T256 v8 f16_fp22_8(v8 x)
{
    enum { MW = KH_ACC_MW_DEFAULT, DROP = MW - 10 };
    const v8 zero = _mm256_setzero_si256(), one = s1(1);
    v8 s = _mm256_slli_epi32(_mm256_and_si256(_mm256_srli_epi32(x, MW + 7), one), 15);
    v8 e = _mm256_and_si256(_mm256_srli_epi32(x, MW), s1(127));
    v8 f = _mm256_and_si256(x, s1((1u << MW) - 1));
    v8 e16 = _mm256_sub_epi32(e, s1(KH_ACC_BIAS - 15));
    v8 guard = _mm256_and_si256(_mm256_srli_epi32(f, DROP - 1), one);
    v8 sticky = _mm256_andnot_si256(_mm256_cmpeq_epi32(_mm256_and_si256(f, s1((1u << (DROP - 1)) - 1)), zero), one);
    v8 m = _mm256_srli_epi32(f, DROP);
    m = _mm256_add_epi32(m, _mm256_and_si256(guard, _mm256_or_si256(_mm256_and_si256(m, one), sticky)));
    v8 carry = _mm256_cmpeq_epi32(m, s1(1024));
    e16 = _mm256_sub_epi32(e16, carry); /* carry is -1 where set */
    m = _mm256_andnot_si256(carry, m);
    v8 r = _mm256_or_si256(_mm256_or_si256(s, _mm256_slli_epi32(e16, 10)), m);
    r = sel(_mm256_cmpgt_epi32(e16, s1(30)), _mm256_or_si256(s, s1(0x7BFF)), r);
    return sel(_mm256_or_si256(_mm256_cmpgt_epi32(one, e16), _mm256_cmpeq_epi32(e, zero)), s, r);
}

static T256 void f16_word_fp22_avx2(const uint32_t v[16], uint64_t word[4])
{
    v8 lo = f16_fp22_8(_mm256_loadu_si256((const __m256i *)v));
    v8 hi = f16_fp22_8(_mm256_loadu_si256((const __m256i *)(v + 8)));
    /* halfwords 0..3 of lo, 0..3 of hi | 4..7 of lo, 4..7 of hi: qwords in order 0, 2, 1, 3 */
    v8 h = _mm256_permute4x64_epi64(_mm256_packus_epi32(lo, hi), 0xD8);
    _mm256_storeu_si256((__m256i *)(void *)word, h);
}

int kh_acc_to_f16_word_fp22_avx2(const uint32_t v[16], uint64_t word[4])
{
    if (!kh_simd_allows(KH_SIMD_AVX2) || !__builtin_cpu_supports("avx2")) return 0;
    f16_word_fp22_avx2(v, word);
    return 1;
}

#ifdef KH_MX_HAVE_AVXVNNI
KH_T_AVXVNNI void kh_mx_chain_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                                      uint32_t chain[16])
{
    __m256i c[2];
    kh_product_avxvnni(a, b, c);
    if (anchor == KH_MX_ANCHOR && mw == KH_ACC_MW_DEFAULT) chain_avx2_lanes(a, b, c, KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, chain);
    else chain_avx2_lanes(a, b, c, anchor, mw, chain);
}

KH_T_AVXVNNI void kh_mx_accum_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                                      uint32_t tile[16])
{
    __m256i c[2];
    kh_product_avxvnni(a, b, c);
    if (anchor == KH_MX_ANCHOR && mw == KH_ACC_MW_DEFAULT) accum_avx2_lanes(a, b, c, KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, tile);
    else accum_avx2_lanes(a, b, c, anchor, mw, tile);
}
#endif

#else
typedef int kh_acc_x86_unused; /* ISO C wants a declaration */
#endif
