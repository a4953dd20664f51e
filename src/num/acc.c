/* The accumulator float (numerics.md §5-§7): scale application into it,
 * its addition, and its drain conversion to FP16. MW is the fraction width
 * (14 for FP22); the exponent is always 7 bits with bias 63. */
#include "kohaku/num.h"

#include "acc_int.h"
#include "mx_block_int.h"

static unsigned clamp_mw(unsigned mw)
{
    return mw < KH_ACC_MW_MIN ? KH_ACC_MW_MIN : mw > KH_ACC_MW_MAX ? KH_ACC_MW_MAX : mw;
}

uint32_t kh_acc_from_product(int32_t c, uint8_t sa, uint8_t sb, unsigned anchor, unsigned mw)
{
    return kh_acc_scale(c, sa, sb, anchor & 0xFFu, clamp_mw(mw)); /* the 8-bit GEMM field */
}

uint32_t kh_acc_add(uint32_t a, int a_zero, uint32_t b, int b_zero, unsigned mw)
{
    return kh_acc_sum(a, a_zero != 0, b, b_zero != 0, clamp_mw(mw));
}

void kh_acc_load16(const uint32_t chain[16], unsigned mw, uint32_t out[16])
{
    /* add(forced zero, b) of §6.1: one zero operand gives the other verbatim,
     * two zeros +0; b counts as zero when its exponent is 0 */
    mw = clamp_mw(mw);
    for (unsigned l = 0; l < 16; l++) out[l] = (chain[l] >> mw) & 127u ? chain[l] : 0;
}

/* numerics §7 for an MW already clamped; inline so FP22 folds below. */
static inline uint16_t to_f16(uint32_t v, unsigned mw)
{
    uint16_t s = (uint16_t)(((v >> (mw + 7)) & 1u) << 15);
    unsigned e = (v >> mw) & 127u;
    uint32_t f = v & ((1u << mw) - 1);
    if (e == 0) return s;
    int e16 = (int)e - (KH_ACC_BIAS - 15);
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

uint16_t kh_acc_to_f16(uint32_t v, unsigned mw) { return to_f16(v, clamp_mw(mw)); }

void kh_acc_to_f16_word(const uint32_t v[16], unsigned mw, uint64_t word[4])
{
    uint16_t h[16];
    mw = clamp_mw(mw);
#ifdef KH_MX_HAVE_X86
    if (mw == KH_ACC_MW_DEFAULT && (kh_acc_to_f16_word_fp22_avx512(v, word) || kh_acc_to_f16_word_fp22_avx2(v, word)))
        return;
#endif
    if (mw == KH_ACC_MW_DEFAULT)
        for (unsigned e = 0; e < 16; e++) h[e] = to_f16(v[e], KH_ACC_MW_DEFAULT);
    else
        for (unsigned e = 0; e < 16; e++) h[e] = to_f16(v[e], mw);
    for (unsigned w = 0; w < 4; w++)
        word[w] = (uint64_t)h[4 * w] | (uint64_t)h[4 * w + 1] << 16 | (uint64_t)h[4 * w + 2] << 32 |
                  (uint64_t)h[4 * w + 3] << 48;
}

/* The 16-bit lanes of x that are zero, x's lanes all below 0x8000: adding
 * 0x7FFF sets a lane's top bit exactly when the lane is not zero, and
 * carries into no other lane; the four bits, moved to each lane's bottom,
 * are summed into the top lane by one multiply (a popcount is a library
 * call in a build for any x86-64). */
static unsigned zero_lanes(uint64_t x)
{
    const uint64_t low = UINT64_C(0x7FFF7FFF7FFF7FFF), top = UINT64_C(0x8000800080008000);
    uint64_t nonzero = ((x + low) & top) >> 15;
    return 4u - (unsigned)((nonzero * UINT64_C(0x0001000100010001)) >> 48);
}

/* Four lanes a word at once (the drain counts every word it sends): with
 * the signs dropped, a lane is +-65504 when it equals 0x7BFF, and Inf or
 * NaN when its exponent bits equal 0x7C00. */
void kh_f16_word_extremes(const uint64_t word[4], uint64_t *saturated, uint64_t *nonfinite)
{
    const uint64_t magnitude = UINT64_C(0x7FFF7FFF7FFF7FFF), max_finite = UINT64_C(0x7BFF7BFF7BFF7BFF),
                   exponent = UINT64_C(0x7C007C007C007C00);
    /* Both kinds have the exponent's top four bits set (0x7800): adding
     * 0x0800 to those bits alone carries into a lane's bit 15 exactly then.
     * A word with no such lane (nearly every word a drain writes) counts
     * nothing, found in a few instructions a word. */
    const uint64_t top4 = UINT64_C(0x7800780078007800), carry = UINT64_C(0x0800080008000800),
                   top = UINT64_C(0x8000800080008000);
    uint64_t high = 0;
    for (unsigned w = 0; w < 4; w++) high |= (word[w] & top4) + carry;
    if (!(high & top)) return;
    unsigned sat = 0, inf = 0;
    for (unsigned w = 0; w < 4; w++) {
        uint64_t m = word[w] & magnitude;
        sat += zero_lanes(m ^ max_finite);
        inf += zero_lanes((m & exponent) ^ exponent);
    }
    *saturated += sat;
    *nonfinite += inf;
}
