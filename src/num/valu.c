/* One lane of the vector ALU (numerics.md §9): the compare on the raw
 * inputs, the operand substitution that turns every op into one FMA, and
 * the dispatch to the seeds. */
#include "vnum_int.h"

#define E8_MASK 0xFFFFFFu

/* numerics §9.1: NaN compares false; equal magnitude and sign (or two
 * all-zero magnitudes) are equal; otherwise sign-magnitude order. */
static void compare(kh_e8 a, kh_e8 b, int *lt, int *gt, int *eq)
{
    uint32_t ma = a & 0x7FFFFFu, mb = b & 0x7FFFFFu;
    unsigned sa = kh_e8_sign(a), sb = kh_e8_sign(b);
    int nan = kh_e8_is_nan(a) || kh_e8_is_nan(b);
    int e = (ma == 0 && mb == 0) || (ma == mb && sa == sb);
    int l = nan || e ? 0 : sa != sb ? (int)sa : (ma < mb) ^ (int)sa;
    *lt = l;
    *gt = !nan && !e && !l;
    *eq = e && !nan;
}

static int is_seed(unsigned op) { return op >= KH_VALU_EXP2 && op <= KH_VALU_RSQRT; }

/* The operands of the one FMA every non-seed op is (§9.2); returns the
 * compare bit. a, b, c already masked to 24 bits. */
static inline int substitute(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c, kh_e8 *fa, kh_e8 *fb, kh_e8 *fc)
{
    int lt = 0, gt = 0, eq = 0;
    if (op == KH_VALU_CMPLT || op == KH_VALU_CMPGT || op == KH_VALU_CMPEQ || op == KH_VALU_MAX || op == KH_VALU_MIN)
        compare(a, b, &lt, &gt, &eq); /* only these read it: a batch of another op (op constant) skips it */
    int p = op == KH_VALU_CMPLT ? lt : op == KH_VALU_CMPGT ? gt : op == KH_VALU_CMPEQ ? eq : 0;
    const kh_e8 sign_bit = 1u << 23;
    kh_e8 va = a, vb = KH_E8_ONE, vc = 0; /* the default arms: MOV */
    switch (op) {
    case KH_VALU_NEG:
        va = a ^ sign_bit;
        break;
    case KH_VALU_ABS:
        va = a & ~sign_bit;
        break;
    case KH_VALU_ADD:
        vc = c;
        break;
    case KH_VALU_SUB:
        vc = c ^ sign_bit;
        break;
    case KH_VALU_MUL:
        vb = b;
        break;
    case KH_VALU_FMA:
        vb = b;
        vc = c;
        break;
    case KH_VALU_FNMA:
        va = a ^ sign_bit;
        vb = b;
        vc = c;
        break;
    case KH_VALU_MAX:
        va = lt ? b : a;
        break;
    case KH_VALU_MIN:
        va = gt ? b : a;
        break;
    case KH_VALU_SEL: /* raw magnitude bits of c: Inf and NaN select a */
        va = (c & 0x7FFFFFu) != 0 ? a : b;
        break;
    case KH_VALU_CMPLT:
    case KH_VALU_CMPGT:
    case KH_VALU_CMPEQ:
        va = p ? KH_E8_ONE : 0;
        break;
    default:
        break;
    }
    *fa = va;
    *fb = vb;
    *fc = vc;
    return p;
}

static inline kh_e8 lane(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c, int *pred, unsigned opts)
{
    a &= E8_MASK;
    b &= E8_MASK;
    c &= E8_MASK;
    kh_e8 va, vb, vc;
    int p = substitute(op, a, b, c, &va, &vb, &vc);
    if (pred) *pred = p;
    if (is_seed(op)) return kh_valu_seed(op, a, opts);
    return kh_valu_fma_inline(va, vb, vc);
}

kh_e8 kh_valu(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c, int *pred, unsigned opts)
{
    return lane(op, a, b, c, pred, opts);
}

#define CHUNK 128u /* lanes substituted, then multiplied and added, at once */

/* The substitution in one loop per op, each with the op a constant (what
 * the op does not need folds away), then the FMAs eight lanes (AVX-512) or
 * four (AVX2) at a time where the CPU can (valu_x86.c), else one by one.
 * va, vb, vc: the caller's scratch of at least n lanes. restrict on
 * the four arrays the loops write (none of them is a, b, c or out): with
 * them known apart from the inputs, the loops are vectorised even where
 * chunk is not inlined into its caller (a PGO build). */
static void chunk(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, int *restrict pred,
                  unsigned n, kh_e8 *restrict va, kh_e8 *restrict vb, kh_e8 *restrict vc)
{
#define SUBST(OP)                                                                                                  \
    case OP:                                                                                                       \
        for (unsigned i = 0; i < n; i++)                                                                           \
            pred[i] = substitute(OP, a[i] & E8_MASK, b[i] & E8_MASK, c[i] & E8_MASK, &va[i], &vb[i], &vc[i]);     \
        break;
    switch (op) {
        SUBST(KH_VALU_MOV)
        SUBST(KH_VALU_NEG)
        SUBST(KH_VALU_ABS)
        SUBST(KH_VALU_ADD)
        SUBST(KH_VALU_SUB)
        SUBST(KH_VALU_MUL)
        SUBST(KH_VALU_FMA)
        SUBST(KH_VALU_FNMA)
        SUBST(KH_VALU_MAX)
        SUBST(KH_VALU_MIN)
        SUBST(KH_VALU_SEL)
        SUBST(KH_VALU_CMPLT)
        SUBST(KH_VALU_CMPGT)
        SUBST(KH_VALU_CMPEQ)
    default:
        for (unsigned i = 0; i < n; i++)
            pred[i] = substitute(op, a[i] & E8_MASK, b[i] & E8_MASK, c[i] & E8_MASK, &va[i], &vb[i], &vc[i]);
        break;
    }
#undef SUBST
    if (!kh_valu_fma_n_x86(va, vb, vc, out, n))
        for (unsigned i = 0; i < n; i++) out[i] = kh_valu_fma_inline(va[i], vb[i], vc[i]);
}

void kh_valu_n(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, int *pred, unsigned n,
               unsigned opts)
{
    if (is_seed(op)) {
        for (unsigned i = 0; i < n; i++) out[i] = lane(op, a[i], b[i], c[i], &pred[i], opts);
        return;
    }
    unsigned pm;
    if (n == 16 && kh_valu_alu16_x86(op, a, b, c, out, &pm)) { /* one beat of a 16-lane core */
        for (unsigned i = 0; i < 16; i++) pred[i] = (int)((pm >> i) & 1);
        return;
    }
    /* The scratch is not zeroed: chunk writes lanes 0..n-1 of it before it
     * reads them and reads no other (zeroing it was 1.5 % of bench (6)) */
    if (n <= 16) { /* one beat of a vector core: a small scratch */
        kh_e8 va[16], vb[16], vc[16];
        chunk(op, a, b, c, out, pred, n, va, vb, vc);
        return;
    }
    kh_e8 va[CHUNK], vb[CHUNK], vc[CHUNK];
    for (unsigned i = 0; i < n; i += CHUNK)
        chunk(op, a + i, b + i, c + i, out + i, pred + i, n - i < CHUNK ? n - i : CHUNK, va, vb, vc);
}

unsigned kh_valu_16(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, unsigned opts)
{
    unsigned pm = 0;
    if (!is_seed(op) && kh_valu_alu16_x86(op, a, b, c, out, &pm)) return pm;
    int pred[16];
    kh_valu_n(op, a, b, c, out, pred, 16, opts);
    for (unsigned i = 0; i < 16; i++) pm |= (unsigned)(pred[i] & 1) << i;
    return pm;
}
