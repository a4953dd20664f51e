/* Private to src/num: the accumulator arithmetic of numerics.md §5-§6.1 as
 * inline, branch-free functions, so the per-block pipeline (mx_block.c) and
 * the public wrappers (acc.c) share one definition. Branch-free because in a
 * GEMM the signs and operand order are data: a mispredicted branch per lane
 * costs more than the whole computation. mw must already be in range. */
#ifndef KOHAKU_NUM_ACC_INT_H
#define KOHAKU_NUM_ACC_INT_H

#include <stdint.h>

#define KH_ACC_BIAS 63  /* accumulator exponent bias (numerics §6) */
#define KH_ACC_EMAX 127 /* largest stored exponent; add saturates at it (§6.1 step 7) */
#define KH_ACC_GUARD 8  /* extra low bits of the add's working significands (§6.1 step 3) */

static inline unsigned kh_acc_msb64(uint64_t v) { return 63u - (unsigned)__builtin_clzll(v | 1); }

/* cond ? yes : no with masks: compilers turn a ternary on data into a
 * branch too often, and these conditions are coin flips. */
static inline uint32_t kh_acc_sel(int cond, uint32_t yes, uint32_t no)
{
    uint32_t m = 0u - (uint32_t)(cond != 0);
    return (yes & m) | (no & ~m);
}

/* numerics §5: c * mm * 2^(ea + eb - anchor - 6), rounded to MW + 1 bits,
 * exponent wrapped modulo 128, C = 0 -> 0. */
static inline uint32_t kh_acc_scale(int32_t c, unsigned sa, unsigned sb, unsigned anchor, unsigned mw)
{
    uint32_t neg = c < 0;
    uint64_t m64 = 0 - (uint64_t)neg;
    uint64_t mag = (((uint64_t)(int64_t)c ^ m64) - m64) * ((8u + (sa & 7u)) * (8u + (sb & 7u))); /* |c| * mm */
    int exp_in = (int)(sa >> 3) + (int)(sb >> 3) - (int)anchor - 6; /* -6: mm carries 2^6 */
    unsigned msb = kh_acc_msb64(mag);
    /* left-justify at bit 62 (the RTL's 30-bit field is the top of this):
     * MW + 1 significand bits under the leading one, a guard, a sticky */
    uint64_t s = mag << (62 - msb);
    uint64_t sig = s >> (62 - mw);
    uint64_t guard = (s >> (61 - mw)) & 1;
    uint64_t sticky = (s & ((UINT64_C(1) << (61 - mw)) - 1)) != 0;
    sig += guard & (sticky | sig);
    uint32_t carry = (uint32_t)(sig >> (mw + 1)); /* sig = 2^(MW+1): fraction bits are 0 */
    uint32_t e = (uint32_t)((int)msb + exp_in + KH_ACC_BIAS + (int)carry) & 127u; /* no range check */
    uint32_t w = neg << (mw + 7) | e << mw | ((uint32_t)sig & ((1u << mw) - 1));
    return w & (0u - (uint32_t)(mag != 0));
}

/* numerics §6.1 add(a, b). */
static inline uint32_t kh_acc_sum(uint32_t a, int a_zero, uint32_t b, int b_zero, unsigned mw)
{
    const uint32_t fmask = (1u << mw) - 1, magmask = (1u << (mw + 7)) - 1;
    const unsigned width = mw + 1 + KH_ACC_GUARD; /* working significand bits; the sum has one more */
    uint32_t ma = a & magmask, mb = b & magmask;
    int za = a_zero | (ma >> mw == 0), zb = b_zero | (mb >> mw == 0);
    int a_ge = ma >= mb; /* {E, f} ordered as one unsigned number */
    uint32_t big = kh_acc_sel(a_ge, a, b), small = kh_acc_sel(a_ge, b, a);
    uint32_t e_big = (big >> mw) & 127u, e_small = (small >> mw) & 127u;
    uint32_t s_big = (big >> (mw + 7)) & 1u;
    uint64_t bg = (uint64_t)((1u << mw) | (big & fmask)) << KH_ACC_GUARD;
    uint64_t sm = (uint64_t)((1u << mw) | (small & fmask)) << KH_ACC_GUARD;
    uint32_t d = e_big - e_small;
    d = kh_acc_sel(d > width, width, d);
    uint64_t sh = sm >> d;
    uint64_t lost = (sm & ((UINT64_C(1) << d) - 1)) != 0;
    /* effective subtraction: the lost bits feed only the sticky, no borrow */
    uint64_t sub = 0 - (uint64_t)(((a ^ b) >> (mw + 7)) & 1u);
    uint64_t sum = bg + ((sh ^ sub) - sub);
    unsigned lz = width - kh_acc_msb64(sum);
    uint64_t n = sum << lz;
    int e_out = (int)e_big + 1 - (int)lz;
    uint64_t sig = n >> (KH_ACC_GUARD + 1); /* MW + 1 bits */
    uint64_t guard = (n >> KH_ACC_GUARD) & 1;
    uint64_t sticky = lost | ((n & ((1u << KH_ACC_GUARD) - 1)) != 0);
    sig += guard & (sticky | sig);
    e_out += (int)(sig >> (mw + 1)); /* all-ones rounded up: next binade, fraction 0 */
    uint32_t r = s_big << (mw + 7) | (uint32_t)e_out << mw | ((uint32_t)sig & fmask);
    r = kh_acc_sel(e_out >= KH_ACC_EMAX, s_big << (mw + 7) | (uint32_t)KH_ACC_EMAX << mw | fmask, r); /* saturate */
    r &= 0u - (uint32_t)(e_out > 0 && sum != 0); /* flush; exact cancellation is +0 */
    r = kh_acc_sel(zb, a, r);                    /* one zero: the other operand verbatim */
    r = kh_acc_sel(za, b, r);
    return r & (0u - (uint32_t)!(za & zb));
}

#endif
