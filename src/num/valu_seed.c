/* The four transcendental seeds of the vector ALU (numerics.md §9.4): a
 * table lookup on the top fraction bits, a quadratic in the rest (integers,
 * floor shifts), then the FMA's rounder. */
#include "vnum_int.h"

enum { FS_EXP2, FS_LOG2, FS_INV, FS_RSQRT }; /* fsel = op - KH_VALU_EXP2 */

/* Floor division by 2^n of a signed value (an arithmetic shift in the RTL). */
static int64_t floor_shift(int64_t v, unsigned n)
{
    int64_t d = INT64_C(1) << n;
    return v >= 0 ? v / d : -((-v + d - 1) / d);
}

static kh_e8 special(unsigned sign, unsigned exp) { return (kh_e8)sign << 23 | (kh_e8)exp << 15; }

/* fl: an integer taken off EXP2's result exponent (EXP2D's floor(b), 0
 * for every seed of v1) */
static kh_e8 seed(unsigned op, kh_e8 a, int fl, unsigned opts)
{
    unsigned fsel = op - KH_VALU_EXP2;
    unsigned s = kh_e8_sign(a), e = kh_e8_exp(a), f = kh_e8_frac(a);
    int a_z = e == 0, a_inf = kh_e8_is_inf(a), a_nan = kh_e8_is_nan(a);

    switch (fsel) {
    case FS_EXP2:
        if (a_nan) return KH_E8_QNAN;
        if (a_inf || e > 134) return s ? 0 : KH_E8_POS_INF; /* |x| >= 256 only: see the wrap below */
        break;
    case FS_LOG2:
        if (a_nan || (s && !a_z)) return KH_E8_QNAN;
        if (a_inf || a_z) return special(a_z, 0xFF); /* log2(+-0) = -Inf, log2(+Inf) = +Inf */
        break;
    case FS_INV:
        if (a_nan) return KH_E8_QNAN;
        if (a_z) return special(s, 0xFF);
        if (a_inf) return special(s, 0);
        break;
    default: /* FS_RSQRT */
        if (a_nan || (s && !a_z)) return KH_E8_QNAN;
        if (a_z) return special(opts & KH_VALU_OLD_RSQRT_NEG_ZERO ? 0 : s, 0xFF); /* rsqrt(-0) = -Inf */
        if (a_inf) return 0;
        break;
    }

    unsigned idx, u;
    int k = 0, kk = 0, par = 0;
    if (fsel == FS_EXP2) {
        /* |x| * 2^17 rounded half up, as a 25-bit two's-complement register:
         * for 128 <= |x| < 256 it wraps (exp2(128) = +0, exp2(200) = 2^-56) */
        unsigned sh = 134 - e < 26 ? 134 - e : 26;
        uint32_t r = ((UINT32_C(1) << 25) | f << 10) >> sh;
        uint32_t q = (r >> 1) + (r & 1);
        uint32_t v = (s ? 0u - q : q) & 0x1FFFFFFu;
        int32_t sv = (int32_t)v - (v >> 24 ? (1 << 25) : 0);
        k = (int)floor_shift(sv, 17);
        uint32_t fr = v & 0x1FFFFu;
        idx = fr >> 12;
        u = fr & 0xFFFu;
    } else {
        idx = f >> 10;
        u = (f & 0x3FFu) << 2;
        if (fsel == FS_RSQRT) {
            par = 1 - (int)(e & 1); /* E - 127 odd: the second octave of the table */
            idx += 32u * (unsigned)par;
            kk = (int)floor_shift((int)e - 127, 1);
        }
    }
    int ident = idx % 32 == 0 && u == 0 && (fsel != FS_RSQRT || par == 0);

    const int32_t *c = kh_vseed_coef[fsel][idx];
    int64_t h = floor_shift((int64_t)c[2] * u + (int64_t)c[1] * 65536 + (1 << 15), 16);
    int64_t base = ident ? (fsel < FS_INV ? 0 : INT64_C(1) << 20) : c[0];
    int64_t ext = fsel == FS_EXP2 ? INT64_C(1) << 20 : fsel == FS_LOG2 ? ((int64_t)e - 127) * (INT64_C(1) << 20) : 0;
    int64_t big_f = floor_shift(h * (int64_t)u + (base + ext) * 65536 + (1 << 15), 16);

    unsigned sign;
    int ebase;
    switch (fsel) {
    case FS_EXP2:
        sign = 0;
        ebase = k + 107 - fl;
        break;
    case FS_LOG2:
        sign = big_f < 0;
        ebase = 107;
        break;
    case FS_INV:
        sign = s;
        ebase = 234 - (int)e;
        break;
    default:
        sign = s && a_z; /* 0 here: the specials took every other case */
        ebase = 107 - kk;
        break;
    }
    uint64_t mag = (uint64_t)(big_f < 0 ? -big_f : big_f);
    return kh_valu_round_pack(sign, mag, ebase, 0);
}

kh_e8 kh_valu_seed(unsigned op, kh_e8 a, unsigned opts) { return seed(op, a, 0, opts); }

/* floor(b) for EXP2D, clamped to [-256, 255]: the integer part of the
 * significand inside [1, 256), one lower for a negative value with a
 * fraction; zero and |b| < 1 give 0 or -1; Inf and NaN clamp by sign. */
static int floor_b(kh_e8 b)
{
    unsigned s = kh_e8_sign(b), e = kh_e8_exp(b);
    if (e == 0) return 0;
    if (e < 127) return s ? -1 : 0;
    if (e > 134) return s ? -256 : 255;
    unsigned sig = 0x8000u | kh_e8_frac(b), d = 142 - e;
    int ip = (int)((sig >> d) & 0xFFu), fr = (sig & ((1u << d) - 1)) != 0;
    return s ? -(ip + fr) : ip;
}

kh_e8 kh_valu_exp2d(kh_e8 a, kh_e8 b, unsigned tau, int *ovf)
{
    kh_e8 r = seed(KH_VALU_EXP2, a, floor_b(b), 0);
    unsigned e = kh_e8_exp(r);
    *ovf = e == 255 || (e != 0 && e >= 127 + tau);
    return r;
}

void kh_valu_exp2d_n(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out, int *ovf, unsigned n)
{
    if (kh_valu_exp2d_n_x86(a, b, tau, out, ovf, n)) return;
    for (unsigned i = 0; i < n; i++) out[i] = kh_valu_exp2d(a[i], b[i], tau, &ovf[i]);
}

unsigned kh_valu_exp2d_16(const kh_e8 *a, const kh_e8 *b, unsigned tau, kh_e8 *out)
{
    unsigned o = 0;
    if (kh_valu_exp2d16_x86(a, b, tau, out, &o)) return o;
    for (unsigned i = 0; i < 16; i++) {
        int ov;
        out[i] = kh_valu_exp2d(a[i], b[i], tau, &ov);
        o |= (unsigned)ov << i;
    }
    return o;
}
