/* The vector ALU's fused multiply-add and its rounder (numerics.md §9.3).
 * Integer model of the RTL datapath: a 48-bit aligned addend, the exact
 * 32-bit product, one rounding. Its three non-IEEE behaviours are kept. */
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

kh_e8 kh_valu_fma(kh_e8 va, kh_e8 vb, kh_e8 vc)
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
