/* VRED (vector.md §5.4) and the reduction tree in its exact order (§6.3). */
#include "cu/units/vector/vec.h"

typedef struct red_ctx {
    unsigned kind;
    unsigned opts;
} red_ctx;

/* comb(x, y): ADD(a = x, c = y) for the sums, MAX/MIN(a = x, b = y). */
static kh_e8 comb(const red_ctx *r, kh_e8 x, kh_e8 y)
{
    switch (r->kind) {
    case VEC_R_MAX: return kh_valu(KH_VALU_MAX, x, y, 0, NULL, r->opts);
    case VEC_R_MIN: return kh_valu(KH_VALU_MIN, x, y, 0, NULL, r->opts);
    default: return kh_valu(KH_VALU_ADD, x, 0, y, NULL, r->opts);
    }
}

static kh_e8 ident(unsigned kind)
{
    if (kind == VEC_R_MAX) return KH_E8_NEG_INF; /* -Inf 0xFF8000 */
    if (kind == VEC_R_MIN) return KH_E8_POS_INF; /* +Inf 0x7F8000 */
    return 0;                                    /* +0 */
}

static kh_e8 tree8(const red_ctx *r, const kh_e8 l[8])
{
    kh_e8 a = comb(r, comb(r, l[0], l[1]), comb(r, l[2], l[3]));
    kh_e8 b = comb(r, comb(r, l[4], l[5]), comb(r, l[6], l[7]));
    return comb(r, a, b);
}

static int any_all(const vec_state *st, unsigned pn, int all)
{
    for (unsigned e = 0; e < st->vl; e++) {
        int bit = vec_pbit(st, pn, e);
        if (all && !bit) return 0;
        if (!all && bit) return 1;
    }
    return all;
}

int kh_vec_exec_vred(vec_core *c, const vec_insn *in, vec_exec *x)
{
    vec_state *st = &c->st;
    unsigned kind = in->kind;
    if (kind == VEC_R_ANY || kind == VEC_R_ALL) { /* any mode, any VL (§5.4) */
        unsigned pn = c->opt.anyall_prev_pr ? st->last_pr : in->pr; /* older core (§11) */
        kh_vec_hazard_check(c, pn, x->e, 1, vec_nchunk(st->vl), "VRED ANY/ALL");
        st->s[in->vd] = any_all(st, pn, kind == VEC_R_ALL) ? KH_E8_ONE : 0;
        st->last_pr = in->pr;
        x->next = x->e + 1;
        return VX_NEXT;
    }
    if (st->vl % VEC_SLICES) { /* F_REDVL is tested before the mode (§5.4) */
        x->fault = VEC_F_REDVL;
        x->next = x->e + 1;
        return VX_FAULT;
    }
    if (st->vmode != VEC_TREE) {
        x->fault = VEC_F_OPCODE;
        x->next = x->e + 1;
        return VX_FAULT;
    }

    red_ctx r = {kind, c->opt.valu};
    unsigned nc = st->vl / VEC_SLICES;
    int two = kind == VEC_R_SUMSQ || kind == VEC_R_DOT || kind == VEC_R_EXPSUM;
    unsigned nbeat = two ? 2 * nc : nc;
    if (kind == VEC_R_EXPSUM && st->last_pm) {
        c->stats.expsum_pm_warnings++;
        kh_vec_core_log(c, KH_LOG_WARN,
                     "VRED EXPSUM at pc %u: its write-back to V%u is predicated by pm %u of the "
                     "last ALU instruction and P%u (vector.md §11.2)",
                     c->cur_pc, in->vb, st->last_pm, in->pr);
    }

    for (unsigned s = 0; s < VEC_SLICES; s++) st->porta[s] = st->v[in->va][VEC_SLICES * (nc - 1) + s];

    kh_e8 acc[16];
    for (int i = 0; i < 16; i++) acc[i] = ident(kind);
    unsigned beat = 0;
    for (unsigned ch = 0; ch < nc; ch++) {
        for (unsigned p = 0; p < (two ? 2u : 1u); p++, beat++) {
            kh_e8 leaf[8];
            for (unsigned j = 0; j < 8; j++) {
                if (!two) {
                    unsigned e = VEC_SLICES * ch + 2 * j;
                    leaf[j] = comb(&r, st->v[in->va][e], st->v[in->va][e + 1]);
                    continue;
                }
                unsigned e = VEC_SLICES * ch + 8 * p + j;
                if (kind == VEC_R_EXPSUM) {
                    leaf[j] = kh_valu(KH_VALU_EXP2, st->v[in->va][e], 0, 0, NULL, r.opts);
                    if (kh_vec_wr_ok(st, e, st->last_pm, in->pr)) st->v[in->vb][e] = leaf[j];
                } else { /* SUMSQ = DOT: va times vb (Open point 3) */
                    leaf[j] = kh_valu(KH_VALU_MUL, st->v[in->va][e], st->v[in->vb][e], 0, NULL,
                                      r.opts);
                }
            }
            kh_e8 t = tree8(&r, leaf);
            acc[beat % 16] = comb(&r, t, acc[beat % 16]);
        }
    }
    kh_e8 fin[8];
    for (int j = 0; j < 8; j++) fin[j] = comb(&r, acc[2 * j], acc[2 * j + 1]);
    st->s[in->vd] = tree8(&r, fin);
    st->last_pr = in->pr;

    /* timing: nbeat issue beats + 1, RDRAIN until the lanes are empty and one
     * tail issue, then RWAIT for the tree (§10.1) */
    kh_vec_lanes_issue(&c->lanes, x->e + 1, nbeat, 1, kind == VEC_R_EXPSUM ? (int)in->vb : -1, -1,
                    c->alat);
    kh_cycle rdrain = x->e + nbeat + 2;
    if (c->lanes.idle > rdrain) rdrain = c->lanes.idle;
    x->next = rdrain + 1 + c->tree_lat;
    return VX_NEXT;
}
