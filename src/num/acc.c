/* The accumulator float (numerics.md §5-§7): scale application into it,
 * its addition, and its drain conversion to FP16. MW is the fraction width
 * (14 for FP22); the exponent is always 7 bits with bias 63. */
#include "kohaku/num.h"

#define ACC_BIAS 63  /* accumulator exponent bias (numerics §6) */
#define ACC_EMAX 127 /* largest stored exponent; add saturates at it (§6.1 step 7) */
#define GUARD_BITS 8 /* extra low bits of the add's working significands (§6.1 step 3) */

static unsigned clamp_mw(unsigned mw)
{
    return mw < KH_ACC_MW_MIN ? KH_ACC_MW_MIN : mw > KH_ACC_MW_MAX ? KH_ACC_MW_MAX : mw;
}

static unsigned msb64(uint64_t v) { return 63u - (unsigned)__builtin_clzll(v); } /* v != 0 */

uint32_t kh_acc_from_product(int32_t c, uint8_t sa, uint8_t sb, unsigned anchor, unsigned mw)
{
    mw = clamp_mw(mw);
    if (c == 0) return 0;
    unsigned ea = sa >> 3, eb = sb >> 3;
    uint64_t mm = (8u + (sa & 7u)) * (8u + (sb & 7u)); /* 64..225 */
    uint64_t mag = (uint64_t)(c < 0 ? -(int64_t)c : (int64_t)c) * mm;
    int exp_in = (int)ea + (int)eb - (int)anchor - 6; /* -6: mm carries 2^6 */
    unsigned msb = msb64(mag);
    /* left-justify at bit 62 (the RTL's 30-bit field is the top of this):
     * significand = MW + 1 bits under the leading one, then guard, sticky */
    uint64_t s = mag << (62 - msb);
    uint64_t sig = s >> (62 - mw);
    unsigned guard = (unsigned)(s >> (61 - mw)) & 1;
    int sticky = (s & ((UINT64_C(1) << (61 - mw)) - 1)) != 0;
    sig += guard & (sticky | (unsigned)(sig & 1));
    unsigned carry = (unsigned)(sig >> (mw + 1));
    /* no range check: the exponent wraps modulo 128 (numerics §5) */
    unsigned e = (unsigned)((int)msb + exp_in + ACC_BIAS + (int)carry) & 127u;
    uint32_t frac = (uint32_t)sig & ((1u << mw) - 1);
    return (uint32_t)(c < 0) << (mw + 7) | e << mw | frac;
}

uint32_t kh_acc_add(uint32_t a, int a_zero, uint32_t b, int b_zero, unsigned mw)
{
    mw = clamp_mw(mw);
    uint32_t fmask = (1u << mw) - 1;
    unsigned ea = (a >> mw) & 127u, eb = (b >> mw) & 127u;
    int za = a_zero || ea == 0, zb = b_zero || eb == 0;
    if (za && zb) return 0;
    if (za) return b; /* verbatim, not re-rounded */
    if (zb) return a;
    uint32_t ma = a & ((1u << (mw + 7)) - 1), mb = b & ((1u << (mw + 7)) - 1);
    int a_ge = ma >= mb; /* {E, f} as one unsigned magnitude */
    uint32_t big = a_ge ? a : b, small = a_ge ? b : a;
    unsigned e_big = (big >> mw) & 127u, e_small = (small >> mw) & 127u;
    unsigned s_big = (big >> (mw + 7)) & 1u, s_small = (small >> (mw + 7)) & 1u;
    unsigned width = mw + 1 + GUARD_BITS; /* working significand bits */
    uint64_t bg = (uint64_t)((1u << mw) | (big & fmask)) << GUARD_BITS;
    uint64_t sm = (uint64_t)((1u << mw) | (small & fmask)) << GUARD_BITS;
    unsigned d = e_big - e_small;
    if (d > width) d = width;
    uint64_t sh = sm >> d;
    int lost = (sm & ((UINT64_C(1) << d) - 1)) != 0;
    /* the lost bits only feed the sticky, never a borrow (numerics §6.1 step 4) */
    uint64_t sum = s_big == s_small ? bg + sh : bg - sh;
    if (sum == 0) return 0;
    unsigned p = msb64(sum);
    unsigned lz = width - p; /* sum has width + 1 bits */
    uint64_t n = sum << lz;
    int e_out = (int)e_big + 1 - (int)lz;
    uint64_t sig = n >> (GUARD_BITS + 1); /* MW + 1 bits */
    unsigned guard = (unsigned)(n >> GUARD_BITS) & 1;
    int sticky = lost || (n & ((1u << GUARD_BITS) - 1)) != 0;
    unsigned up = guard & (sticky | (unsigned)(sig & 1));
    if (up && sig == (UINT64_C(1) << (mw + 1)) - 1) {
        e_out += 1;
        sig = UINT64_C(1) << mw; /* fraction 0 */
    } else {
        sig += up;
    }
    if (e_out <= 0) return 0;
    if (e_out >= ACC_EMAX) return s_big << (mw + 7) | (uint32_t)ACC_EMAX << mw | fmask;
    return s_big << (mw + 7) | (uint32_t)e_out << mw | ((uint32_t)sig & fmask);
}

uint16_t kh_acc_to_f16(uint32_t v, unsigned mw)
{
    mw = clamp_mw(mw);
    uint16_t s = (uint16_t)(((v >> (mw + 7)) & 1u) << 15);
    unsigned e = (v >> mw) & 127u;
    uint32_t f = v & ((1u << mw) - 1);
    if (e == 0) return s;
    int e16 = (int)e - (ACC_BIAS - 15);
    unsigned drop = mw - 10; /* fraction bits below FP16's ten */
    unsigned guard = (f >> (drop - 1)) & 1;
    int sticky = (f & ((1u << (drop - 1)) - 1)) != 0;
    uint32_t m = f >> drop;
    m += guard & (sticky | (m & 1));
    if (m == 1024) {
        e16 += 1;
        m = 0;
    }
    if (e16 <= 0) return s;                   /* flush: no FP16 subnormal */
    if (e16 >= 31) return (uint16_t)(s | 0x7BFF); /* saturate: never Inf */
    return (uint16_t)(s | (unsigned)e16 << 10 | m);
}
