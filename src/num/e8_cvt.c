/* E8M15 <-> FP16 / FP32 conversions (numerics.md §8.2). */
#include "kohaku/vnum.h"

#define E8_EXP_MAX 255u /* Inf / NaN exponent */

static unsigned msb32(uint32_t v) { return 31u - (unsigned)__builtin_clz(v); } /* v != 0 */

kh_e8 kh_e8_from_f16(uint16_t h)
{
    uint32_t s = (uint32_t)(h >> 15) << 23;
    unsigned f = (h >> 10) & 31u, m = h & 0x3FFu;
    if (f == 0 && m == 0) return s;
    if (f == 31) return s | E8_EXP_MAX << 15 | m << 5;
    if (f == 0) { /* subnormal: normalise exactly */
        unsigned p = msb32(m);
        return s | (103u + p) << 15 | ((m << (15 - p)) & 0x7FFFu);
    }
    return s | (f + 112u) << 15 | m << 5;
}

uint16_t kh_e8_to_f16(kh_e8 v)
{
    uint16_t s = (uint16_t)(((v >> 23) & 1u) << 15);
    unsigned e = (v >> 15) & 0xFFu;
    uint32_t f = v & 0x7FFFu;
    if (e == 0) return s;
    if (e == E8_EXP_MAX) return f ? (uint16_t)(s | 0x7E00u | ((f >> 5) & 0x1FFu)) : (uint16_t)(s | 0x7C00u);
    uint32_t sig = 0x8000u | f;
    uint32_t keep = sig >> 5;
    unsigned guard = (f >> 4) & 1u;
    unsigned sticky = (f & 0xFu) != 0;
    keep += guard & (sticky | (keep & 1u));
    int e5 = (int)e - 112 + (int)(keep >> 11);
    if (e5 >= 31) return (uint16_t)(s | 0x7BFFu); /* finite overflow saturates */
    if (e5 <= 0) { /* FP16 subnormal: shift the 16-bit significand into place */
        unsigned sh = 118u - e > 31u ? 31u : 118u - e;
        uint64_t w = ((uint64_t)sig << 32) >> sh;
        uint32_t k = (uint32_t)(w >> 32) & 0x7FFu;
        unsigned g = (unsigned)(w >> 31) & 1u;
        unsigned st = (w & 0x7FFFFFFFu) != 0;
        k += g & (st | (k & 1u)); /* a carry into bit 10 is the smallest normal */
        return (uint16_t)(s | k);
    }
    return (uint16_t)(s | (unsigned)e5 << 10 | (keep & 0x3FFu));
}

kh_e8 kh_e8_from_f32(uint32_t x)
{
    uint32_t s = (x >> 31) << 23;
    unsigned e = (x >> 23) & 0xFFu;
    uint32_t m = x & 0x7FFFFFu;
    if (e == 0) return s; /* FP32 subnormals and zeros flush */
    if (e == 0xFF) return m ? s | E8_EXP_MAX << 15 | 0x4000u | ((m >> 8) & 0x3FFFu) : s | E8_EXP_MAX << 15;
    uint32_t keep = m >> 8;
    unsigned guard = (m >> 7) & 1u;
    unsigned sticky = (m & 0x7Fu) != 0;
    keep += guard & (sticky | (keep & 1u));
    if (keep >> 15) { /* carry: next binade, fraction 0 */
        e += 1;
        keep = 0;
    }
    if (e >= E8_EXP_MAX) return s | E8_EXP_MAX << 15;
    return s | e << 15 | keep;
}

uint32_t kh_e8_to_f32(kh_e8 v)
{
    uint32_t s = (v >> 23) & 1u;
    unsigned e = (v >> 15) & 0xFFu;
    if (e == 0) return s << 31;
    return s << 31 | e << 23 | (v & 0x7FFFu) << 8;
}
