/* Independent reference for the cluster tests (see mxref.h). Slow on
 * purpose: one bit at a time, one rule per line. */
#include "mxref.h"

static unsigned bit(const uint64_t *w, unsigned i) { return (unsigned)(w[i / 64] >> (i % 64)) & 1u; }
static void setbit(uint64_t *w, unsigned i, unsigned v)
{
    w[i / 64] &= ~((uint64_t)1 << (i % 64));
    w[i / 64] |= (uint64_t)(v & 1u) << (i % 64);
}

/* Slot o of a word: 7-bit two's complement at bits [255-7o : 249-7o]. */
static int slot_get(const uint64_t *w, unsigned o)
{
    int v = 0;
    for (int b = 6; b >= 0; b--) v = v * 2 + (int)bit(w, 249 - 7 * o + (unsigned)b);
    return v >= 64 ? v - 128 : v;
}

static void slot_set(uint64_t *w, unsigned o, int q)
{
    unsigned u = (unsigned)(q < 0 ? q + 128 : q);
    for (unsigned b = 0; b < 7; b++) setbit(w, 249 - 7 * o + b, (u >> b) & 1u);
}

void mxref_unpack(const uint64_t words[16], int b, mxref_entry *e)
{
    for (unsigned w = 0; w < 4; w++) {
        const uint64_t *wd = words + 4 * w;
        for (unsigned o = 0; o < 32; o++) {
            unsigned lane = b ? o % 4 : o / 8;
            unsigned k = 8 * w + (b ? o / 4 : o % 8);
            e->q[lane][k] = slot_get(wd, o);
        }
    }
    for (unsigned l = 0; l < 4; l++) { /* lane l at bits [31-8l : 24-8l] of word 0 */
        unsigned s = 0;
        for (int b2 = 7; b2 >= 0; b2--) s = s * 2 + bit(words, 24 - 8 * l + (unsigned)b2);
        e->sc[l] = s;
    }
}

void mxref_pack(const mxref_entry *e, int b, uint64_t words[16])
{
    for (unsigned i = 0; i < 16; i++) words[i] = 0;
    for (unsigned w = 0; w < 4; w++) {
        uint64_t *wd = words + 4 * w;
        for (unsigned o = 0; o < 32; o++) {
            unsigned lane = b ? o % 4 : o / 8;
            unsigned k = 8 * w + (b ? o / 4 : o % 8);
            slot_set(wd, o, e->q[lane][k]);
        }
        for (unsigned l = 0; l < 4; l++)
            for (unsigned b2 = 0; b2 < 8; b2++) setbit(wd, 24 - 8 * l + b2, (e->sc[l] >> b2) & 1u);
    }
}

/* numerics §5: mm = ma8·mb8, mag = |C|·mm, exp_in = ea + eb - anchor - 6,
 * left-justify in 30 bits, 15-bit significand, guard, sticky, RNE, stored
 * exponent (msb + exp_in + 63 + carry) mod 128, no range checks. */
uint32_t mxref_chain(long c, unsigned sa, unsigned sb, unsigned anchor)
{
    unsigned ea = sa >> 3, ma8 = 8 + (sa & 7), eb = sb >> 3, mb8 = 8 + (sb & 7);
    unsigned long long mag = (unsigned long long)(c < 0 ? -c : c) * (ma8 * mb8);
    if (mag == 0) return 0;
    long exp_in = (long)ea + (long)eb - (long)anchor - 6;
    int msb = 0;
    while ((mag >> (msb + 1)) != 0) msb++;
    unsigned long long s = mag << (29 - msb);
    unsigned sig = (unsigned)(s >> 15);                  /* s[29:15] */
    unsigned guard = (unsigned)(s >> 14) & 1u;           /* s[14] */
    unsigned sticky = (s & 0x3FFFull) != 0;              /* OR s[13:0] */
    unsigned up = guard & (sticky | (sig & 1u));
    unsigned sig_r = sig + up;                           /* 16 bits */
    long e = msb + exp_in + 63;
    long stored = (e + (long)(sig_r >> 15)) % 128;
    if (stored < 0) stored += 128;
    unsigned frac = sig_r & 0x3FFFu;
    unsigned sign = c < 0;
    return (sign << 21) | ((unsigned)stored << 14) | frac;
}

uint32_t mxref_add(uint32_t a, int az, uint32_t b, int bz)
{
    unsigned sa = (a >> 21) & 1, Ea = (a >> 14) & 127, fa = a & 0x3FFF;
    unsigned sb = (b >> 21) & 1, Eb = (b >> 14) & 127, fb = b & 0x3FFF;
    int za = az || Ea == 0, zb = bz || Eb == 0;
    if (za && zb) return 0;
    if (za) return b;                                    /* the other, verbatim */
    if (zb) return a;
    int a_ge = (Ea * 16384u + fa) >= (Eb * 16384u + fb);
    unsigned s_big = a_ge ? sa : sb, E_big = a_ge ? Ea : Eb, f_big = a_ge ? fa : fb;
    unsigned s_sm = a_ge ? sb : sa, E_sm = a_ge ? Eb : Ea, f_sm = a_ge ? fb : fa;
    unsigned diff = E_big - E_sm;
    unsigned long bg = (16384ul + f_big) << 8, sm = (16384ul + f_sm) << 8;
    unsigned d = diff < 23 ? diff : 23;
    unsigned long sh = sm >> d;
    unsigned lost = (sm & ((1ul << d) - 1)) != 0;
    unsigned long sum = s_big == s_sm ? bg + sh : bg - sh; /* lost bits only feed the sticky */
    if (sum == 0) return 0;
    int p = 0;
    while ((sum >> (p + 1)) != 0) p++;
    int lz = 23 - p;
    unsigned long n = (sum << lz) & 0xFFFFFFul;
    long E_out = (long)E_big + 1 - lz;
    unsigned sig = (unsigned)(n >> 9);                   /* n[23:9] */
    unsigned guard = (unsigned)(n >> 8) & 1u;
    unsigned sticky = lost | ((n & 0xFF) != 0);
    unsigned up = guard & (sticky | (sig & 1u));
    unsigned frac;
    if (up && sig == 0x7FFF) {
        E_out += 1;
        frac = 0;
    } else {
        frac = (sig + up) & 0x3FFF;
    }
    if (E_out <= 0) return 0;
    if (E_out >= 127) return (s_big << 21) | (127u << 14) | 0x3FFF;
    return (s_big << 21) | ((unsigned)E_out << 14) | frac;
}

uint16_t mxref_f16(uint32_t v)
{
    unsigned s = (v >> 21) & 1, E = (v >> 14) & 127, f = v & 0x3FFF;
    if (E == 0) return (uint16_t)(s << 15);
    int e16 = (int)E - 48;
    unsigned guard = (f >> 3) & 1, sticky = (f & 7) != 0, up = guard & (sticky | ((f >> 4) & 1));
    unsigned m11 = (f >> 4) + up;
    if (m11 == 1024) {
        e16 += 1;
        m11 = 0;
    }
    if (e16 <= 0) return (uint16_t)(s << 15);
    if (e16 >= 31) return (uint16_t)((s << 15) | 0x7BFF);
    return (uint16_t)((s << 15) | ((unsigned)e16 << 10) | m11);
}

static unsigned l1ix(unsigned bank, unsigned off, unsigned size)
{
    return (bank * 256 + off % 256) % size;
}

unsigned mxref_sweep(const mxref_gemm *g, const mxref_entry *l1a, unsigned ga, const mxref_entry *l1b,
                     unsigned gb, uint32_t (*tile)[16], unsigned tiles, uint16_t (*emit)[16])
{
    unsigned gm = g->gm ? g->gm : 1, gn = g->gn ? g->gn : 1, nk = g->nk ? g->nk : 1, n_emit = 0;
    for (unsigned kb = 0; kb < nk; kb++)
        for (unsigned r = 0; r < gm; r++)
            for (unsigned c = 0; c < gn; c++) {
                const mxref_entry *A = &l1a[l1ix(g->abank, g->aoff + r * nk + kb, ga)];
                const mxref_entry *B = &l1b[l1ix(g->bbank, g->boff + c * nk + kb, gb)];
                unsigned t = (r * gn + c) % tiles;
                for (unsigned i = 0; i < 4; i++)
                    for (unsigned j = 0; j < 4; j++) {
                        long C = 0;
                        for (unsigned k = 0; k < 32; k++) C += (long)A->q[i][k] * B->q[j][k];
                        uint32_t ch = mxref_chain(C, A->sc[i], B->sc[j], g->anchor);
                        if (kb == 0 && !g->acc) tile[t][4 * i + j] = mxref_add(0, 1, ch, 0);
                        else tile[t][4 * i + j] = mxref_add(tile[t][4 * i + j], 0, ch, 0);
                    }
                if (g->emit && kb == nk - 1 && !(kb == 0 && !g->acc)) {
                    if (emit) mxref_drain(tile[t], emit[r * gn + c]);
                    n_emit++;
                }
            }
    return n_emit;
}

void mxref_drain(const uint32_t v[16], uint16_t out[16])
{
    for (unsigned l = 0; l < 16; l++) out[l] = mxref_f16(mxref_add(v[l], 0, 0, 1));
}
