/* The V2 lanes (docs/vector2.md §3): the register file of two banks by chunk
 * parity, the operand network (s1 bank select and pair merge, s2 lane
 * crossbar and constants), sixteen of v1's ALUs (kh_valu) plus EXP2D, the
 * metadata line to write-back, the write ports, predicates and the EXP2D
 * sticky bits. The ALU is a pure function of its inputs, so a beat's
 * result is computed when its operands are registered and rides the
 * metadata line to the retire cycle 15 edges later. */
#include <string.h>

#include "cu/units/vector2/v2.h"

/* stage k (1..V2_MD) of the metadata line */
static inline v2_meta *stage(v2_lanes *l, unsigned k) { return &l->meta[(l->mhead + k - 1) & (V2_MD - 1)]; }
static inline const v2_meta *cstage(const v2_lanes *l, unsigned k)
{
    return &l->meta[(l->mhead + k - 1) & (V2_MD - 1)];
}

kh_e8 kh_v2_alu(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c, unsigned tau, int has_expd, int *pred, int *ovf)
{
    *ovf = 0;
    if (op == 20) {
        *pred = 0;
        if (has_expd) return kh_valu_exp2d(a, b, tau, ovf);
        return kh_valu(KH_VALU_MOV, a, b, c, NULL, 0); /* an unknown op is MOV */
    }
    return kh_valu(op, a, b, c, pred, 0);
}

void kh_v2_lanes_wires(const v2_core *c, v2_wires *w)
{
    const v2_lanes *l = &c->ln;
    const v2_meta *p = cstage(l, V2_MD - 1), *m = cstage(l, V2_MD);
    int p_write = p->v && p->wr && !p->cmp;
    w->mw_bank_next = (uint8_t)(p_write ? 1u << (p->wa & 1) : 0);
    w->wb_last = m->v && m->last;
    w->wb_vreg = m->wa >> 3;
    w->wb_wr = m->wr && !m->cmp;
    w->wb_cmp = m->cmp;
    w->wb_pr = m->pr;
    w->pipe_empty = l->nmeta == 0 && !l->iss.v && !l->q1.v && !l->q2.v && !l->alu_iv;
    w->sticky_any = l->sticky != 0;
    w->stk_clr = c->stk_clr;
}

/* The crossbar on Z (v2_xbar; XNET 0 and 1 select the same lanes): lane j
 * of x reads lane j ^ k (xor, merge), (j + k) mod 16 (rot) or k (bcast). */
static void xbar(unsigned xm, unsigned xk, const kh_e8 *z, kh_e8 *x)
{
    switch (xm) {
    case V2_XM_XOR:
    case V2_XM_MRG:
        for (unsigned j = 0; j < V2_LANES; j++) x[j] = z[j ^ xk];
        break;
    case V2_XM_ROT:
        for (unsigned j = 0; j < V2_LANES; j++) x[j] = z[(j + xk) & 15];
        break;
    case V2_XM_BC:
        for (unsigned j = 0; j < V2_LANES; j++) x[j] = z[xk];
        break;
    default: memcpy(x, z, sizeof(kh_e8) * V2_LANES); break;
    }
}

/* The ALU stage: a, b, c from s2 and the constants, and the beat's result,
 * compare and overflow bits into m (a local: the ring slot it goes to is
 * read by the write ports first). */
typedef struct alu_out {
    uint16_t pred, ovf;
    kh_e8 out[V2_LANES];
} alu_out;

static void alu_stage(v2_core *c, alu_out *m)
{
    v2_lanes *l = &c->ln;
    const v2_beat *q = &l->q2;
    kh_e8 x[V2_LANES], ka[V2_LANES], kb[V2_LANES], kc[V2_LANES];
    int pred[V2_LANES];
    int need_x = q->sb == V2_SRC_V || (!q->kc_on && q->xc);
    if (need_x) xbar(q->xm, q->xk, l->s2_z, x);
    const kh_e8 *a = l->s2_p, *b = x, *cc = l->s2_c;
    if (q->sa != V2_SRC_V) {
        for (unsigned j = 0; j < V2_LANES; j++) ka[j] = q->ka;
        a = ka;
    }
    if (q->sb != V2_SRC_V) {
        for (unsigned j = 0; j < V2_LANES; j++) kb[j] = q->kb;
        b = kb;
    }
    if (q->kc_on) {
        for (unsigned j = 0; j < V2_LANES; j++) kc[j] = q->kc;
        cc = kc;
    } else if (q->xc) {
        cc = x;
    }
    unsigned pbits = 0, obits = 0;
    if (q->op == 20 && c->cfg.has_expd) {
        obits = kh_valu_exp2d_16(a, b, c->cfg.tau, m->out);
    } else if (q->op == 20) {
        for (unsigned j = 0; j < V2_LANES; j++) {
            int ov;
            m->out[j] = kh_v2_alu(20, a[j], b[j], cc[j], c->cfg.tau, (int)c->cfg.has_expd, &pred[j], &ov);
            obits |= (unsigned)ov << j;
        }
    } else {
        unsigned pb = kh_valu_16(q->op, a, b, cc, m->out, 0);
        if (q->cmp) pbits = pb;
    }
    m->pred = (uint16_t)pbits;
    m->ovf = (uint16_t)obits;
}

/* The merge's swapping lanes: lane j swaps when j & k is nonzero, i.e.
 * unless j has every bit of k clear (0x5555: lanes with bit 0 clear, ...). */
static uint16_t merge_swap(unsigned k)
{
    static const uint16_t clear[4] = {0x5555, 0x3333, 0x0F0F, 0x00FF};
    unsigned keep = 0xFFFF;
    for (unsigned b = 0; b < 4; b++)
        if ((k >> b) & 1) keep &= clear[b];
    return (uint16_t)~keep;
}

static void rf_read(const v2_lanes *l, unsigned a, kh_e8 *out)
{
    memcpy(out, l->rf[a >> 3][a & 7], sizeof(kh_e8) * V2_LANES);
}

void kh_v2_lanes_edge(v2_core *c, const v2_wires *w, int uw_we, uint8_t uw_wa, const kh_e8 *uw_wd)
{
    v2_lanes *l = &c->ln;
    int erst = c->srst;
    if (!c->ref && l->nmeta == 0 && !l->q2.v && !l->q1.v && !l->iss.v && !l->bw_we[0] && !l->bw_we[1] &&
        !c->p_v1 && !uw_we && !erst && !w->stk_clr) {
        /* nothing in the pipe, the write ports or the pack read: the edge below
         * only moves the (invalid) issue and s1 registers on and turns the ring */
        l->q2 = l->q1;
        l->q2.kc_on = l->q1.sc != V2_SRC_V;
        l->alu_iv = 0;
        l->q1 = l->iss;
        l->q1.swap = l->iss.xm == V2_XM_MRG ? merge_swap(l->iss.xk) : 0;
        l->mhead = (l->mhead - 1) & (V2_MD - 1);
        l->meta[l->mhead].v = 0;
        return;
    }
    const v2_meta *pm = stage(l, V2_MD - 1), *wm = stage(l, V2_MD);

    /* the ALU stage from s2 (reads the predicate before this edge's compare
     * write); its meta line entry is written to the ring at the end */
    int nv = l->q2.v && !erst;
    const v2_beat *q2 = &l->q2;
    uint8_t n_last = q2->last, n_wr = q2->wr, n_cmp = q2->cmp, n_expd = q2->expd, n_pr = q2->pr, n_pm = q2->pm;
    uint8_t n_wa = q2->wa;
    uint16_t n_tm = q2->tm, n_pk = 0;
    alu_out nm;
    if (l->q2.v) {
        n_pk = (uint16_t)(l->preg[n_pr][(n_wa & 7) >> 2] >> (((n_wa & 7) & 3) * 16));
        alu_stage(c, &nm);
    }
    /* s2 from s1: the bank OR and the pair merge */
    if (l->q1.v) {
        if (l->q1.swap) {
            for (unsigned j = 0; j < V2_LANES; j++) {
                int swap = (l->q1.swap >> j) & 1;
                l->s2_p[j] = swap ? l->q1_b[j] : l->q1_a[j];
                l->s2_z[j] = swap ? l->q1_a[j] : l->q1_b[j];
            }
        } else {
            memcpy(l->s2_p, l->q1_a, sizeof l->s2_p);
            memcpy(l->s2_z, l->q1_b, sizeof l->s2_z);
        }
        memcpy(l->s2_c, l->q1_c, sizeof l->s2_c);
    }
    l->q2 = l->q1;
    l->q2.kc_on = l->q1.sc != V2_SRC_V;
    l->alu_iv = nv;

    /* the register file's reads of this edge, before its writes (read-first) */
    if (c->p_v1) rf_read(l, l->pk_ra, l->pk_next); /* into rf_q d at the pack edge */
    if (l->iss.v) {
        rf_read(l, l->iss.ra, l->q1_a);
        rf_read(l, l->iss.rb, l->q1_b);
        rf_read(l, l->iss.rc, l->q1_c);
    }
    l->q1 = l->iss;
    l->q1.swap = 0;
    if (l->iss.xm == V2_XM_MRG) l->q1.swap = merge_swap(l->iss.xk);

    /* the write ports' writes of this edge, from the registers loaded at the last */
    for (unsigned b = 0; b < 2; b++) {
        if (!l->bw_we[b]) continue;
        const kh_e8 *src = l->use_u[b] ? l->uw_q : wm->out;
        kh_e8 *dst = l->rf[l->bw_wa[b] >> 3][l->bw_wa[b] & 7];
        if (l->bw_we[b] == 0xFFFF) {
            memcpy(dst, src, sizeof(kh_e8) * V2_LANES);
        } else {
            for (unsigned j = 0; j < V2_LANES; j++)
                if ((l->bw_we[b] >> j) & 1) dst[j] = src[j];
        }
    }
    /* predicates and the sticky bits from the retiring beat */
    if (wm->v && wm->cmp) {
        unsigned ch = wm->wa & 7;
        uint64_t mask = (uint64_t)wm->tm << ((ch & 3) * 16), bits = (uint64_t)wm->pred << ((ch & 3) * 16);
        uint64_t *p = &l->preg[wm->pr][ch >> 2];
        *p = (*p & ~mask) | (bits & mask);
    }
    if (erst || w->stk_clr) l->sticky = 0;
    else if (wm->v && wm->expd) l->sticky = (uint16_t)(l->sticky | (wm->ovf & wm->tm));

    /* the write ports for the next edge: math first, else the unpack word */
    int p_write = pm->v && pm->wr && !pm->cmp;
    l->bw_we[0] = l->bw_we[1] = 0;
    if (erst) {
        l->use_u[0] = l->use_u[1] = 0;
    } else {
        if (p_write) {
            unsigned b = pm->wa & 1;
            l->bw_we[b] = (uint16_t)((pm->pm == 0 ? 0xFFFF : pm->pm == 1 ? pm->pk : (uint16_t)~pm->pk) & pm->tm);
            l->bw_wa[b] = pm->wa;
            l->use_u[b] = 0;
        }
        if (uw_we && !(p_write && ((pm->wa ^ uw_wa) & 1) == 0)) {
            unsigned b = uw_wa & 1;
            l->bw_we[b] = 0xFFFF;
            l->bw_wa[b] = uw_wa;
            l->use_u[b] = 1;
        }
    }
    if (uw_we) memcpy(l->uw_q, uw_wd, sizeof l->uw_q);

    /* advance the metadata line: the old stage 16 leaves (its slot takes stage 1) */
    l->nmeta -= wm->v;
    l->mhead = (l->mhead - 1) & (V2_MD - 1);
    v2_meta *ns = &l->meta[l->mhead];
    ns->v = (uint8_t)nv;
    if (nv) { /* from the locals, not a whole v2_meta built on the stack and copied */
        ns->last = n_last;
        ns->wr = n_wr;
        ns->cmp = n_cmp;
        ns->expd = n_expd;
        ns->pr = n_pr;
        ns->pm = n_pm;
        ns->wa = n_wa;
        ns->tm = n_tm;
        ns->pk = n_pk;
        ns->pred = nm.pred;
        ns->ovf = nm.ovf;
        memcpy(ns->out, nm.out, sizeof ns->out);
    }
    l->nmeta += (unsigned)nv;
    if (erst) {
        for (unsigned k = 0; k < V2_MD; k++) l->meta[k].v = 0;
        l->nmeta = 0;
        l->q1.v = 0;
        l->q2.v = 0;
        l->alu_iv = 0;
    }
}
