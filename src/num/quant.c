/* Transform occupant 1: FP16 entry -> MXFP7 entry with a shared E5M3 scale
 * per lane (numerics.md §3, memory.md §13). Integer arithmetic only. */
#include "kohaku/bits.h"
#include "kohaku/num.h"

#define SEXP_MIN (-20) /* scale exponent clamp (memory.md §13) */
#define SEXP_MAX 11

/* round(32768 / m8) for m8 = 8..15 (numerics §3 step 4) */
static const uint32_t recip[8] = {4096, 3641, 3277, 2979, 2731, 2520, 2341, 2185};

/* A 15-bit FP16 magnitude as sig * 2^(e - 25); exponent field 31 is an
 * ordinary exponent here (Inf and NaN quantise as large numbers). */
static void decode(unsigned h, int *e, unsigned *sig)
{
    unsigned f = h >> 10, m = h & 0x3FF;
    *e = f ? (int)f : 1;
    *sig = f ? 1024 + m : m;
}

/* Scale of one lane from its peak magnitude: E5M3 byte, sbase and rc. */
static void lane_scale(unsigned peak, uint8_t *byte, int *sbase, uint32_t *rc)
{
    int e, sexp;
    unsigned sig, m8;
    decode(peak, &e, &sig);
    while (sig != 0 && sig < 1024) {
        sig *= 2;
        e -= 1;
    }
    if (sig == 0) {
        sexp = 0;
        m8 = 8;
    } else if (sig > 1890) {
        sexp = e - 20;
        m8 = sig > 2016 ? 9 : 8;
    } else {
        /* ceil(sig / 126): the scale rounds up so peak / scale <= 63 */
        static const unsigned bound[6] = {1764, 1638, 1512, 1386, 1260, 1134};
        sexp = e - 21;
        m8 = 9;
        for (unsigned i = 0; i < 6; i++)
            if (sig > bound[i]) {
                m8 = 15 - i;
                break;
            }
    }
    if (sexp < SEXP_MIN) sexp = SEXP_MIN;
    if (sexp > SEXP_MAX) sexp = SEXP_MAX;
    *byte = (uint8_t)((unsigned)(sexp + 20) << 3 | (m8 - 8));
    *sbase = sexp + 21;
    *rc = recip[m8 - 8];
}

/* One element: half-away rounding of |x| / scale, clamped to 63, signed. */
static int8_t quant_one(unsigned x, int sbase, uint32_t rc)
{
    int e;
    unsigned sig;
    decode(x & 0x7FFF, &e, &sig);
    int t = sbase - e;
    unsigned mag;
    if (sig == 0 || t >= 8) {
        mag = 0;
    } else if (t < 0) {
        mag = 63;
    } else {
        uint32_t p = sig * rc; /* < 2^23 */
        unsigned x8 = ((p >> 15) & 0xFF) >> t;
        unsigned r = (x8 >> 1) + (x8 & 1);
        mag = r > 63 ? 63 : r;
    }
    return (int8_t)(x >> 15 ? -(int)mag : (int)mag);
}

void kh_quant_entry(const uint64_t in[32], unsigned mode, uint64_t out[16])
{
    kh_mx_entry e;
    for (unsigned lane = 0; lane < 4; lane++) {
        unsigned x[32], peak = 0;
        for (unsigned k = 0; k < 32; k++) {
            x[k] = (unsigned)kh_bits_get(in, 16 * (32 * lane + k), 16);
            if ((x[k] & 0x7FFF) > peak) peak = x[k] & 0x7FFF;
        }
        int sbase;
        uint32_t rc;
        lane_scale(peak, &e.scale[lane], &sbase, &rc);
        for (unsigned k = 0; k < 32; k++) e.q[lane][k] = quant_one(x[k], sbase, rc);
    }
    kh_mx_pack(&e, (int)(mode & 1), out);
}
