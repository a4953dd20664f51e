/* The V2 math engine (docs/vector2.md §1, §2): the head of MQ starts when
 * its registers' finished counts reach the snapshots it carries, then issues
 * one beat a cycle into the lanes; the scoreboard of dispatched and finished
 * counts, per register and access kind, modulo 64. */
#include <string.h>

#include "cu/units/vector2/v2.h"

/* The chunk beat i reads for an operand nibble {base[2:0], stride}. */
static unsigned chk_of(unsigned nib, unsigned i) { return ((nib >> 1) + ((nib & 1) ? i : 0)) & 7; }

void kh_v2_math_wires(v2_core *c, v2_wires *w)
{
    w->m_end = c->m_act && c->m_i + 1 == c->m_e.nb;
    int m_free = !c->m_act || w->m_end;
    int empty = c->mq.count == 0;
    w->h_sync = 0;
    w->h_haz = 0;
    w->m_take = 0;
    w->mq_pop = 0;
    if (empty) return;
    const v2_mq_ent *h = &c->mq.e[c->mq.rp];
    if (h->aop == 31) {
        w->h_sync = 1;
        w->mq_pop = m_free && kh_v2_sync_ok(c, h->on, h->tgt);
        return;
    }
    unsigned pm = (h->xb >> 11) & 3, pr = (h->xb >> 13) & 3;
    w->h_haz = (h->sa == V2_SRC_V && !v2_reached(c->Wc[h->va], h->s_a)) ||
               (h->sb == V2_SRC_V && !v2_reached(c->Wc[h->vb], h->s_b)) ||
               (h->sc == V2_SRC_V && !v2_reached(c->Wc[h->vc], h->s_c)) ||
               (h->wr && !(v2_reached(c->UWc[h->vd], h->s_uw) && v2_reached(c->PRc[h->vd], h->s_pr))) ||
               (pm != 0 && c->pP[pr] != 0);
    w->m_take = !w->h_haz && m_free;
    w->mq_pop = w->m_take;
}

/* The issue register's fields that move from beat to beat: beat i of the
 * running entry e (next_beat, and next_beat_tpl over m_tpl). */
static inline void beat_walk(const v2_mq_ent *e, unsigned i, const v2_wires *w, v2_beat *b)
{
    unsigned xb = e->xb, xm = xb & 7, xk = (xb >> 3) & 15, sh = (xb >> 7) & 7;
    b->last = (uint8_t)w->m_end;
    b->ra = (uint8_t)(e->va << 3 | chk_of(e->chk & 15, i));
    b->rb = (uint8_t)(e->vb << 3 | chk_of((e->chk >> 4) & 15, i));
    b->rc = (uint8_t)(e->vc << 3 | chk_of((e->chk >> 8) & 15, i));
    b->wa = (uint8_t)(e->vd << 3 | chk_of((e->chk >> 12) & 15, i));
    b->xk = (uint8_t)(xm == V2_XM_BC ? (xk + (i >> sh)) & 15 : xk);
    int last_part = i + 1 == e->nb && e->tl != 0;
    b->tm = (uint16_t)(last_part ? (1u << e->tl) - 1 : 0xFFFF);
}

/* The fields that hold for the whole entry e (next_beat; the fast engine's
 * m_tpl, built when e is taken). */
static void beat_fixed(const v2_mq_ent *e, v2_beat *b)
{
    unsigned xb = e->xb;
    b->op = e->aop;
    b->sa = e->sa;
    b->sb = e->sb;
    b->sc = e->sc;
    b->ka = e->ka;
    b->kb = e->kb;
    b->kc = e->kc;
    b->xm = (uint8_t)(xb & 7);
    b->xc = (uint8_t)((xb >> 10) & 1);
    b->pm = (uint8_t)((xb >> 11) & 3);
    b->pr = (uint8_t)((xb >> 13) & 3);
    b->wr = e->wr;
    b->cmp = e->cmp;
    b->expd = e->expd;
}

/* The next issue register (v2_beat) from the running entry, as the RTL's
 * iss_* registers load it at every edge. */
static void next_beat(const v2_core *c, const v2_wires *w, int erst, v2_beat *b)
{
    b->v = (uint8_t)(!erst && c->m_act);
    beat_fixed(&c->m_e, b);
    beat_walk(&c->m_e, c->m_i, w, b);
}

/* The fast engine's next_beat of a running entry: m_tpl (the fields that
 * hold), and the fields that move. */
static void next_beat_tpl(const v2_core *c, const v2_wires *w, v2_beat *b)
{
    *b = c->m_tpl;
    b->v = 1;
    beat_walk(&c->m_e, c->m_i, w, b);
}

/* m_tpl of a newly taken m_e: next_beat_tpl sets the rest at every beat. */
static void build_tpl(v2_core *c)
{
    beat_fixed(&c->m_e, &c->m_tpl);
    c->m_tpl_ok = 1;
}

void kh_v2_math_edge(v2_core *c, const v2_wires *w)
{
    int erst = c->srst;
    /* an idle engine loads the same (invalid) beat at every edge until it
     * takes an entry: the fast engine keeps the one it has */
    if (!erst && c->m_act && c->m_tpl_ok && !c->ref) next_beat_tpl(c, w, &c->ln.iss);
    else if (erst || c->m_act || !c->m_rest || c->ref) next_beat(c, w, erst, &c->ln.iss);
    if (erst) {
        c->m_act = 0;
        c->m_i = 0;
        c->m_rest = 0;
        return;
    }
    c->m_rest = !c->m_act && !w->m_take; /* this edge's beat was the idle one, and m_e, m_i hold */
    if (w->m_take) {
        c->m_e = c->mq.e[c->mq.rp];
        c->m_act = 1;
        c->m_i = 0;
        if (c->ref) c->m_tpl_ok = 0; /* the engine may change between edges */
        else build_tpl(c);
    } else if (w->m_end) {
        c->m_act = 0;
    } else if (c->m_act) {
        c->m_i++;
    }
}

static void inc(uint8_t *v) { *v = (uint8_t)((*v + 1) & 63); }

/* The scoreboard, the compares in flight per predicate, the marks and the
 * per-kind dispatched / finished / outstanding counts. */
void kh_v2_sb_edge(v2_core *c, const v2_wires *w, const v2_dispatch *e)
{
    if (c->srst) {
        for (unsigned r = 0; r < V2_NREG; r++)
            c->Wd[r] = c->Wc[r] = c->UWd[r] = c->UWc[r] = c->MRd[r] = c->MRc[r] = c->PRd[r] = c->PRc[r] = 0;
        for (unsigned i = 0; i < 4; i++) c->pP[i] = 0;
        for (unsigned i = 0; i < 8; i++) {
            c->mk_on[i] = V2_K_F;
            c->mk_tgt[i] = 0;
            c->mk_cnt[i] = 0;
        }
        for (unsigned k = 0; k < V2_NK; k++) {
            c->n_disp[k] = c->n_done[k] = 0;
            c->n_out[k] = 0;
        }
        c->n_out[7] = 0;
        return;
    }
    if (!(e->disp_m | e->disp_u | e->disp_p | w->wb_last | w->u_retire | w->m_end | w->p_endw | w->m_take |
          (int)e->k_disp | (int)w->k_done | e->mark))
        return; /* nothing dispatched, finished or marked: every count below holds */
    unsigned vd = c->ir.vd;
    if (e->disp_m_wr || e->disp_u) inc(&c->Wd[vd]);
    if (e->disp_u) inc(&c->UWd[vd]);
    if (e->disp_p) inc(&c->PRd[vd]);
    if (e->disp_m) {
        /* one read count per register, however many operands name it */
        unsigned ra = e->uses_a ? c->ir.va : 99, rb = e->uses_b ? c->ir.vb : 99, rc = e->uses_c ? c->ir.vc : 99;
        if (ra != 99) inc(&c->MRd[ra]);
        if (rb != 99 && rb != ra) inc(&c->MRd[rb]);
        if (rc != 99 && rc != ra && rc != rb) inc(&c->MRd[rc]);
    }
    /* finished: a math write-back and an unpack retire never finish one
     * register in the same cycle (each waits for the other's older writes) */
    unsigned wb = w->wb_last && w->wb_wr ? w->wb_vreg : 99;
    unsigned uw = w->u_retire ? c->uf[c->uf_rp].wa >> 3 : 99;
    if (wb != 99) inc(&c->Wc[wb]);
    if (uw != 99) {
        if (uw != wb) inc(&c->Wc[uw]);
        inc(&c->UWc[uw]);
    }
    if (w->m_end) {
        const v2_mq_ent *m = &c->m_e;
        unsigned ra = m->sa == V2_SRC_V ? m->va : 99, rb = m->sb == V2_SRC_V ? m->vb : 99;
        unsigned rc = m->sc == V2_SRC_V ? m->vc : 99;
        if (ra != 99) inc(&c->MRc[ra]);
        if (rb != 99 && rb != ra) inc(&c->MRc[rb]);
        if (rc != 99 && rc != ra && rc != rb) inc(&c->MRc[rc]);
    }
    if (w->p_endw) inc(&c->PRc[c->p_e.reg]);
    if (w->m_take && c->mq.e[c->mq.rp].cmp) {
        unsigned pr = (c->mq.e[c->mq.rp].xb >> 13) & 3;
        c->pP[pr] = (uint8_t)((c->pP[pr] + 1) & 31);
    }
    if (w->wb_last && w->wb_cmp) c->pP[w->wb_pr] = (uint8_t)((c->pP[w->wb_pr] - 1) & 31);
    if (!e->k_disp && !w->k_done && !e->mark) return; /* no kind moved: marks and counts hold */
    uint64_t cnts; /* the eight marks' counts at once: none owed, no finish moves one */
    memcpy(&cnts, c->mk_cnt, sizeof cnts);
    if (e->mark || (w->k_done && cnts)) /* a mark moves only when recorded or when its kind finishes one */
        for (unsigned i = 0; i < 8; i++) {
            if (e->mark && c->ir.mid == i) {
                c->mk_on[i] = e->mark_on;
                c->mk_tgt[i] = e->mark_tgt;
                c->mk_cnt[i] = e->mark_cnt;
            } else if (c->mk_cnt[i] != 0 && ((w->k_done >> c->mk_on[i]) & 1)) {
                c->mk_cnt[i]--;
            }
        }
    for (unsigned moved = e->k_disp | w->k_done; moved; moved &= moved - 1) { /* the kinds that moved */
        unsigned k = (unsigned)__builtin_ctz(moved);
        unsigned dk = (e->k_disp >> k) & 1, ck = (w->k_done >> k) & 1;
        if (dk) c->n_disp[k]++;
        if (ck) c->n_done[k]++;
        if (dk != ck) c->n_out[k] = (uint8_t)(dk ? c->n_out[k] + 1 : c->n_out[k] - 1);
    }
    c->n_out[7] = 0;
}
