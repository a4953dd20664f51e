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

static inline kh_e8 lane(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c, int *pred, unsigned opts)
{
    a &= E8_MASK;
    b &= E8_MASK;
    c &= E8_MASK;
    int lt, gt, eq;
    compare(a, b, &lt, &gt, &eq);
    int p = op == KH_VALU_CMPLT ? lt : op == KH_VALU_CMPGT ? gt : op == KH_VALU_CMPEQ ? eq : 0;
    if (pred) *pred = p;
    if (op >= KH_VALU_EXP2 && op <= KH_VALU_RSQRT) return kh_valu_seed(op, a, opts);

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
    return kh_valu_fma_inline(va, vb, vc);
}

kh_e8 kh_valu(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c, int *pred, unsigned opts)
{
    return lane(op, a, b, c, pred, opts);
}

/* One loop per op, each with the op a constant: the substitution and the
 * compare fold away where the op does not need them. */
void kh_valu_n(unsigned op, const kh_e8 *a, const kh_e8 *b, const kh_e8 *c, kh_e8 *out, int *pred, unsigned n,
               unsigned opts)
{
#define LOOP(OP)                                                                                                   \
    case OP:                                                                                                       \
        for (unsigned i = 0; i < n; i++) out[i] = lane(OP, a[i], b[i], c[i], &pred[i], opts);                     \
        return;
    switch (op) {
        LOOP(KH_VALU_MOV)
        LOOP(KH_VALU_NEG)
        LOOP(KH_VALU_ABS)
        LOOP(KH_VALU_ADD)
        LOOP(KH_VALU_SUB)
        LOOP(KH_VALU_MUL)
        LOOP(KH_VALU_FMA)
        LOOP(KH_VALU_FNMA)
        LOOP(KH_VALU_MAX)
        LOOP(KH_VALU_MIN)
        LOOP(KH_VALU_SEL)
        LOOP(KH_VALU_CMPLT)
        LOOP(KH_VALU_CMPGT)
        LOOP(KH_VALU_CMPEQ)
    default:
        for (unsigned i = 0; i < n; i++) out[i] = lane(op, a[i], b[i], c[i], &pred[i], opts);
        return;
    }
#undef LOOP
}
