/* The vector ALU's rounder (numerics.md §9.3) and the out-of-line entry to
 * its fused multiply-add, whose body (kh_valu_fma_inline, vnum_int.h) is the
 * integer model of the RTL datapath: a 48-bit aligned addend, the exact
 * 32-bit product, one rounding, its three non-IEEE behaviours kept. */
#include "vnum_int.h"

kh_e8 kh_valu_round_pack(unsigned sign, uint64_t mag, int ebase, int stk)
{
    if (mag == 0) return (kh_e8)sign << 23;
    unsigned pos = 63u - (unsigned)__builtin_clzll(mag);
    uint64_t n = (mag << (47 - pos)) & ((UINT64_C(1) << 48) - 1);
    uint32_t sig = (uint32_t)(n >> 32); /* 16 bits, leading one included */
    unsigned guard = (unsigned)(n >> 31) & 1u;
    unsigned sticky = (n & 0x7FFFFFFFu) != 0 || stk;
    sig += guard & (sticky | (sig & 1u));
    int carry = (int)(sig >> 16);
    int e = (int)pos + ebase + carry;
    if (e >= 255) return (kh_e8)sign << 23 | 0xFFu << 15; /* overflow to Inf */
    if (e <= 0) return (kh_e8)sign << 23;                 /* flush to signed zero */
    return (kh_e8)sign << 23 | (kh_e8)e << 15 | (carry ? 0 : (sig & 0x7FFFu));
}

kh_e8 kh_valu_fma(kh_e8 va, kh_e8 vb, kh_e8 vc) { return kh_valu_fma_inline(va, vb, vc); }
