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

/* va * vb + vc with the specials and the datapath of numerics §9.3. */
kh_e8 kh_valu_fma(kh_e8 va, kh_e8 vb, kh_e8 vc);

/* EXP2 / LOG2 / INV / RSQRT of a (numerics §9.4); op is the ALU number. */
kh_e8 kh_valu_seed(unsigned op, kh_e8 a, unsigned opts);

/* Coefficients (c0, c1, c2) of the seed polynomials, [fsel][idx] with fsel
 * 0 exp2, 1 log2, 2 inv, 3 rsqrt (numerics §10). */
extern const int32_t kh_vseed_coef[4][64][3];

#endif
