/* KohakuTPU vector-core numerics (numerics.md §8-§10): the E8M15 lane
 * format, conversions, the one-rounding FMA ALU with its operand
 * substitutions and non-IEEE behaviours, and the transcendental seeds. */
#ifndef KOHAKU_VNUM_H
#define KOHAKU_VNUM_H

#include <stdint.h>

/* E8M15 (numerics §8.1): [23] sign, [22:15] exponent (bias 127), [14:0]
 * fraction; exponent 0 is zero whatever the fraction, 255 is Inf (fraction
 * 0) or NaN; no subnormals. Inputs' bits above 23 are ignored; results have
 * them zero. */
typedef uint32_t kh_e8;

#define KH_E8_ONE 0x3F8000u
#define KH_E8_NEG_ONE 0xBF8000u
#define KH_E8_POS_INF 0x7F8000u
#define KH_E8_NEG_INF 0xFF8000u
#define KH_E8_QNAN 0x7FC000u

/* Conversions (numerics §8.2, what VLD / VST / VCVT use). */
kh_e8 kh_e8_from_f16(uint16_t h);  /* exact; NaN payload kept */
uint16_t kh_e8_to_f16(kh_e8 v);    /* RNE; finite overflow saturates to +-65504,
                                    * Inf passes, FP16 subnormals produced */
kh_e8 kh_e8_from_f32(uint32_t f);  /* RNE; FP32 subnormals flush to signed 0 */
uint32_t kh_e8_to_f32(kh_e8 v);    /* exact */
/* nwords 64-bit words of FP16 (element e at bits 16 (e % 4) of word e / 4)
 * to 4 nwords E8M15 values and back, element by element as above. */
void kh_e8_from_f16_words(const uint64_t *w, kh_e8 *out, unsigned nwords);
void kh_e8_to_f16_words(const kh_e8 *in, uint64_t *w, unsigned nwords);

/* ALU opcodes as the ALU sees them (numerics §9). */
enum kh_valu_op {
    KH_VALU_MOV = 0, KH_VALU_NEG = 1, KH_VALU_ABS = 2, KH_VALU_ADD = 3,
    KH_VALU_SUB = 4, KH_VALU_MUL = 5, KH_VALU_FMA = 6, KH_VALU_FNMA = 7,
    KH_VALU_MAX = 8, KH_VALU_MIN = 9, KH_VALU_SEL = 10, KH_VALU_CMPLT = 11,
    KH_VALU_CMPGT = 12, KH_VALU_CMPEQ = 13, KH_VALU_EXP2 = 16, KH_VALU_LOG2 = 17,
    KH_VALU_INV = 18, KH_VALU_RSQRT = 19,
};

/* Behaviour options of recorded older cores (vector.md §11 findings). */
#define KH_VALU_OLD_RSQRT_NEG_ZERO 1u /* rsqrt(-0) = +Inf (older snapshot) */

/* One lane: ALU(op, a, b, c) (numerics §9): every op is one fused
 * va * vb + vc, rounded once, after the operand substitution of §9.2, with
 * the non-IEEE behaviours the RTL has (a zero addend sets the sticky,
 * ADD(+0, -0) = -0, a far addend on subtraction is only a sticky); the four
 * seeds (§9.4) read only a, with EXP2's 25-bit argument wrap. *pred (if not
 * NULL) receives the compare bit for CMPLT/CMPGT/CMPEQ and 0 for every other
 * op; a compare's result is 1.0 or +0. An op number outside the enum selects
 * the ALU's default operands: it behaves as MOV. opts: KH_VALU_* bits. */
kh_e8 kh_valu(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c, int *pred, unsigned opts);
/* EXP2D of the V2 lanes (docs/vector2.md §7.1): exp2(a - floor(b)) with EXP2's
 * seed and specials on a, floor(b) clamped to [-256, 255]; *ovf is set for a
 * result >= 2^tau (Inf and NaN included), the lane's sticky bit. tau <= 128. */
kh_e8 kh_valu_exp2d(kh_e8 a, kh_e8 b, unsigned tau, int *ovf);
/* n lanes of EXP2D: out[i] = kh_valu_exp2d(a[i], b[i], tau, &ovf[i]), the
 * same results, faster than n calls. */
void kh_valu_exp2d_n(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out, int *ovf, unsigned n);
/* 16 lanes of EXP2D (a V2 beat), the sticky bits returned as a mask (bit i
 * lane i) instead of one int a lane; the same results. */
unsigned kh_valu_exp2d_16(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out);
/* n lanes of one op: out[i] = kh_valu(op, a[i], b[i], c[i], &pred[i], opts),
 * the same results, faster than n calls. out may be one of a, b, c but
 * must not otherwise overlap them; pred must not overlap a, b, c or out
 * (it is restrict inside). */
void kh_valu_n(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, int *pred, unsigned n,
               unsigned opts);
/* 16 lanes of one op (a V2 beat): kh_valu_n's results, the compare bits
 * returned as a mask (bit i lane i). */
unsigned kh_valu_16(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, unsigned opts);

#endif
