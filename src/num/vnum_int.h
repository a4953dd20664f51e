/* Private to src/num: the pieces of the vector ALU (numerics.md §9-§10). */
#ifndef KOHAKU_NUM_VNUM_INT_H
#define KOHAKU_NUM_VNUM_INT_H

#include <stdint.h>

#include "kohaku/vnum.h"

/* Field access of an E8M15 word (numerics §8.1). */
static inline unsigned kh_e8_sign(kh_e8 v) { return (v >> 23) & 1u; }
static inline unsigned kh_e8_exp(kh_e8 v) { return (v >> 15) & 0xFFu; }
static inline unsigned kh_e8_frac(kh_e8 v) { return v & 0x7FFFu; }
static inline int kh_e8_is_nan(kh_e8 v) { return kh_e8_exp(v) == 255 && kh_e8_frac(v) != 0; }
static inline int kh_e8_is_inf(kh_e8 v) { return kh_e8_exp(v) == 255 && kh_e8_frac(v) == 0; }

/* The shared normaliser and rounder (numerics §9.3 round_pack): the value
 * mag * 2^(ebase - 127 - 47 + ...) as E8M15, i.e. leading one at bit pos gives
 * exponent pos + ebase; RNE with the extra sticky stk; overflow to Inf, flush
 * to signed zero; mag = 0 gives {sign, 0}. */
kh_e8 kh_valu_round_pack(unsigned sign, uint64_t mag, int ebase, int stk);

/* va * vb + vc with the specials and the datapath of numerics §9.3; inline
 * so a batch of one op (kh_valu_n) folds the constant operands of its
 * substitution (vb = 1.0 for ADD, vc = 0 for MUL, ...). */
static inline kh_e8 kh_valu_fma_inline(kh_e8 va, kh_e8 vb, kh_e8 vc)
{
    unsigned sa = kh_e8_sign(va), sb = kh_e8_sign(vb), sc = kh_e8_sign(vc);
    unsigned ea = kh_e8_exp(va), eb = kh_e8_exp(vb), ec = kh_e8_exp(vc);
    unsigned fa = kh_e8_frac(va), fb = kh_e8_frac(vb), fc = kh_e8_frac(vc);
    int za = ea == 0, zb = eb == 0, zc = ec == 0, pz = za || zb;
    unsigned sab = sa ^ sb, neg = sab ^ sc;
    int cancels = neg && !pz && !zc;

    /* specials, in priority order */
    int a_inf = kh_e8_is_inf(va), b_inf = kh_e8_is_inf(vb), c_inf = kh_e8_is_inf(vc);
    int p_nan = kh_e8_is_nan(va) || kh_e8_is_nan(vb) || (a_inf && zb) || (za && b_inf);
    int p_inf = (a_inf || b_inf) && !p_nan;
    if (p_nan || kh_e8_is_nan(vc) || (p_inf && c_inf && sab != sc)) return KH_E8_QNAN;
    if (p_inf || c_inf) return (kh_e8)(p_inf ? sab : sc) << 23 | 0xFFu << 15;

    /* a zero factor pins both exponents low, so the addend dominates */
    int eap = pz ? 1 : (int)ea, ebp = pz ? 1 : (int)eb;
    int s_raw = eap + ebp - (int)ec - 110;
    int byp = s_raw < 0 && !zc; /* addend dominates: product dropped */
    int s = zc ? 48 : byp ? 0 : (s_raw < 48 ? s_raw : 48);
    int ebase = byp ? (int)ec - 47 : eap + ebp - 157;
    uint64_t gc = 0x8000u | fc; /* even when vc is zero: then it is all sticky */
    uint64_t mask48 = (UINT64_C(1) << 48) - 1;
    uint64_t algn = ((gc << 32) >> s) & mask48;
    int stk = s >= 33 && (gc & ((UINT64_C(1) << (s - 32)) - 1)) != 0;
    uint64_t m = byp || pz ? 0 : (uint64_t)(0x8000u | fa) * (0x8000u | fb);
    uint64_t p = (neg ? algn - m : algn + m) & mask48;
    int rneg = neg && s != 0 && (p >> 47);
    uint64_t mag = rneg ? (0 - p) & ((UINT64_C(1) << 33) - 1) : p;
    unsigned sign = neg ? (rneg ? sab : sc) : sab;
    if (mag == 0) return (kh_e8)(sign & !cancels) << 23; /* x - x = +0 */
    return kh_valu_round_pack(sign, mag, ebase, stk);
}
kh_e8 kh_valu_fma(kh_e8 va, kh_e8 vb, kh_e8 vc);
/* out[i] = kh_valu_fma(va[i], vb[i], vc[i]) with AVX-512 or AVX2 (valu_x86.c); 0 if
 * this CPU lacks it (nothing written), 1 done. */
int kh_valu_fma_n_x86(const kh_e8 *va, const kh_e8 *vb, const kh_e8 *vc, kh_e8 *out, unsigned n);
/* kh_valu_16 for MOV to CMPEQ with AVX-512 or AVX2 (valu_x86.c), the
 * compare bits into *pred; 0 if this CPU lacks both or another op (nothing
 * written), 1 done. */
int kh_valu_alu16_x86(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, unsigned *pred);
/* out[i] = kh_valu_exp2d(a[i], b[i], tau, &ovf[i]) with AVX-512 or AVX2 (valu_x86.c);
 * 0 if this CPU lacks it (nothing written), 1 done. */
int kh_valu_exp2d_n_x86(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out, int *ovf, unsigned n);
/* kh_valu_exp2d_16 with AVX-512 or AVX2 (valu_x86.c); 0 if this CPU lacks both. */
int kh_valu_exp2d16_x86(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out, unsigned *ovf);

/* EXP2 / LOG2 / INV / RSQRT of a (numerics §9.4); op is the ALU number. */
kh_e8 kh_valu_seed(unsigned op, kh_e8 a, unsigned opts);

/* Coefficients (c0, c1, c2) of the seed polynomials, [fsel][idx] with fsel
 * 0 exp2, 1 log2, 2 inv, 3 rsqrt (numerics §10). */
extern const int32_t kh_vseed_coef[4][64][3];

#endif
