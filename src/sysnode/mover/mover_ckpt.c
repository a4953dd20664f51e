/* The mover in a checkpoint (docs/checkpoint.md): its registers, status,
 * the running move (walkers, element and burst queues, the read and write
 * sides, the transform slot, the gather index buffer) and its counters.
 * GENERATE's Philox words are a function of the seed and the element
 * count, both here. */
#include "kohaku/ckpt.h"
#include "sysnode/mover/mover_int.h"
#include "sysnode/mover/xform.h"

static void ck_desc(kh_ck *ck, kh_walk_desc *d)
{
    KH_CK(ck, d->base);
    KH_CK(ck, d->ndim);
    for (unsigned i = 0; i < KH_WALK_DIMS; i++) {
        KH_CK(ck, d->dim[i].count);
        KH_CK(ck, d->dim[i].stride);
        KH_CK(ck, d->dim[i].axis);
        KH_CK(ck, d->dim[i].astep);
    }
    for (unsigned i = 0; i < 2; i++) {
        KH_CK(ck, d->bound[i].base);
        KH_CK(ck, d->bound[i].ext);
    }
}

static void ck_walk(kh_ck *ck, kh_mover *m, kh_walk *w)
{
    w->d = kh_ck_index(ck, (void *)(uintptr_t)w->d, m->walk, sizeof m->walk[0], 2, "a walker's descriptor");
    KH_CK_ARR(ck, w->idx, KH_WALK_DIMS);
    KH_CK(ck, w->done);
}

static void ck_welem(kh_ck *ck, kh_walk_elem *e)
{
    KH_CK(ck, e->addr);
    KH_CK(ck, e->valid);
    KH_CK(ck, e->misaligned);
    KH_CK(ck, e->last);
}

static void ck_burst(kh_ck *ck, mv_burst *b)
{
    KH_CK(ck, b->addr);
    KH_CK(ck, b->beats);
    KH_CK(ck, b->remote);
}

static void ck_regw(kh_ck *ck, void *e)
{
    mv_regw *r = e;
    KH_CK(ck, r->reg);
    KH_CK(ck, r->value);
    KH_CK(ck, r->at);
}

static void ck_elem(kh_ck *ck, void *e)
{
    mv_elem *x = e;
    KH_CK(ck, x->kind);
    KH_CK(ck, x->daddr);
    KH_CK(ck, x->saddr);
    KH_CK(ck, x->rseq);
    KH_CK(ck, x->entry);
}

static void ck_burst_rec(kh_ck *ck, void *e) { ck_burst(ck, e); }

static void ck_rword(kh_ck *ck, void *e)
{
    mv_rword *w = e;
    KH_CK(ck, w->addr);
    KH_CK_ARR(ck, w->d, 4);
}

static void ck_cycle(kh_ck *ck, void *e) { kh_ck_scalar(ck, e, sizeof(kh_cycle)); }

void kh_mover_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_mover *m = (kh_mover *)c;
    KH_CK(ck, m->mode);
    KH_CK(ck, m->ewidth);
    KH_CK(ck, m->ctrl);
    ck_desc(ck, &m->walk[0]);
    ck_desc(ck, &m->walk[1]);
    KH_CK(ck, m->xform_id);
    KH_CK(ck, m->xform_mode);
    KH_CK(ck, m->lsel);
    KH_CK(ck, m->ldim);
    KH_CK(ck, m->lcount);
    KH_CK(ck, m->lstride);
    KH_CK(ck, m->idx_base);
    KH_CK(ck, m->idx_count);
    KH_CK(ck, m->seed);
    KH_CK(ck, m->imm);
    KH_CK(ck, m->pitch);
    KH_CK(ck, m->gwords);
    kh_ck_ring(ck, &m->regw, ck_regw, "register writes");
    KH_CK(ck, m->running);
    KH_CK(ck, m->fault);
    KH_CK(ck, m->done);
    KH_CK(ck, m->chg_cycle);
    KH_CK(ck, m->old_running);
    KH_CK(ck, m->old_fault);
    KH_CK(ck, m->old_done);
    KH_CK(ck, m->rmode);
    KH_CK(ck, m->rewidth);
    KH_CK(ck, m->rcoalesce);
    KH_CK(ck, m->rcap);
    KH_CK(ck, m->go_at);
    KH_CK(ck, m->idx_phase);
    KH_CK(ck, m->idx_words);
    ck_walk(ck, m, &m->sw);
    ck_walk(ck, m, &m->dw);
    ck_welem(ck, &m->ls);
    ck_welem(ck, &m->ld);
    KH_CK(ck, m->warned_short);
    KH_CK(ck, m->wlo);
    KH_CK(ck, m->whi);
    KH_CK(ck, m->warned_overlap);
    KH_CK(ck, m->e);
    KH_CK(ck, m->prod_done);
    KH_CK(ck, m->prod_fault);
    kh_ck_ring(ck, &m->elems, ck_elem, "mover elements");
    /* a safeguard: today every restore builds a new machine, whose mover is
     * not tracked yet (the first reading counts the ring) */
    if (kh_ck_loading(ck) && m->elems_tracked) kh_mover_elems_recount(m);
    kh_ck_same(ck, m->elems_cap, "the mover's element capacity");
    KH_CK(ck, m->rseq_next);
    KH_CK(ck, m->arrived);
    KH_CK(ck, m->rb_open);
    ck_burst(ck, &m->rb);
    kh_ck_ring(ck, &m->rbursts, ck_burst_rec, "read bursts");
    KH_CK(ck, m->rd_out);
    KH_CK(ck, m->reserved);
    KH_CK(ck, m->wb_open);
    KH_CK(ck, m->wb_cls);
    ck_burst(ck, &m->wb);
    KH_CK(ck, m->wcl_valid);
    ck_burst(ck, &m->wcl);
    KH_CK(ck, m->wr_out);
    kh_ck_ring(ck, &m->rwords, ck_rword, "remote words");
    kh_ck_ring(ck, &m->rposted, ck_cycle, "posted remote answers");
    /* the occupant of the running entry: by id (the node's own table) */
    unsigned occ = KH_XFORM_IDS;
    for (unsigned id = 0; id < KH_XFORM_IDS; id++)
        if (m->occ && m->occ == m->n->occ[id]) occ = id;
    KH_CK(ck, occ);
    if (kh_ck_loading(ck)) m->occ = occ < KH_XFORM_IDS ? m->n->occ[occ] : NULL;
    KH_CK(ck, m->in_beats);
    KH_CK_ARR(ck, m->xin, KH_XFORM_MAX_BEATS * 4);
    KH_CK(ck, m->xgot);
    KH_CK(ck, m->xbusy);
    KH_CK(ck, m->xdone_at);
    KH_CK(ck, m->xdst);
    KH_CK_ARR(ck, m->xout, 16);
    KH_CK(ck, m->pdst);
    KH_CK(ck, m->xentry);
    KH_CK(ck, m->fault_entry);
    KH_CK_ARR(ck, &m->gbuf.w[0][0], (size_t)KH_GATHER_IDX_WORDS * 4);
    KH_CK(ck, m->moves);
    KH_CK(ck, m->faults);
    KH_CK(ck, m->elems_done);
    KH_CK(ck, m->rd_bursts);
    KH_CK(ck, m->wr_bursts);
    KH_CK(ck, m->busy_cycles);
    KH_CK(ck, m->xform_entries);
    KH_CK(ck, m->xform_cycles);
    KH_CK(ck, m->progressed);
}
