/* The V2 core and its vec_cu frame in a checkpoint (docs/checkpoint.md):
 * every register of v2.h and frame.h, in declaration order: the ports,
 * IMEM and L1 with their read and write registers, the front end and its
 * scalar, loop, address and sync state, the scoreboard, every queue, the
 * math, unpack, pack (GT4, MX7) and DMA engines with both walkers, the
 * lanes (register file, pipe, meta ring, write ports) and the counters.
 * Nothing holds a pointer; ring positions are saved as they are and
 * checked on restore, and the build options (cfg) must match the
 * machine's. */
#include "cu/units/vector2/frame.h"
#include "kohaku/ckpt.h"

#define CK(x) KH_CK(ck, x)
#define CKA(a) KH_CK_ARR(ck, a, sizeof(a) / sizeof *(a))
#define CK2(a) kh_ck_array(ck, &(a)[0][0], sizeof (a)[0][0], sizeof(a) / sizeof (a)[0][0])
#define CK3(a) kh_ck_array(ck, &(a)[0][0][0], sizeof (a)[0][0][0], sizeof(a) / sizeof (a)[0][0][0])

static void ck_dec(kh_ck *ck, v2_dec *d)
{
    CK(d->w), CK(d->op), CK(d->vd), CK(d->va), CK(d->vb), CK(d->vc), CK(d->sa), CK(d->sb), CK(d->sc), CK(d->om);
    CK(d->sel), CK(d->pay), CK(d->mode), CK(d->n), CK(d->cb), CK(d->rel), CK(d->q), CK(d->off);
    CK(d->wt), CK(d->on), CK(d->slack), CK(d->mk), CK(d->mid), CK(d->sq), CK(d->sreg), CK(d->tok), CK(d->vsreg);
    CK(d->body), CK(d->skip), CK(d->frel), CK(d->ad);
}

static void ck_mqe(kh_ck *ck, v2_mq_ent *e)
{
    CK(e->aop), CK(e->vd), CK(e->va), CK(e->vb), CK(e->vc), CK(e->sa), CK(e->sb), CK(e->sc), CK(e->nb);
    CK(e->tl), CK(e->cmp), CK(e->expd), CK(e->wr), CK(e->s_a), CK(e->s_b), CK(e->s_c), CK(e->s_uw), CK(e->s_pr);
    CK(e->chk), CK(e->xb), CK(e->ka), CK(e->kb), CK(e->kc), CK(e->on), CK(e->tgt);
}

static void ck_wqe(kh_ck *ck, v2_wq_ent *e)
{
    CK(e->sync), CK(e->reg), CK(e->mode), CK(e->n), CK(e->cb), CK(e->addr), CK(e->s0), CK(e->s1);
    CK(e->s_w), CK(e->s_uw), CK(e->s_mr), CK(e->s_pr), CK(e->on), CK(e->tgt);
}

static void ck_aqe(kh_ck *ck, v2_aq_ent *e) { CK(e->sync), CK(e->on), CK(e->tgt), CK(e->off), CK(e->ir); }

static void ck_mq(kh_ck *ck, v2_mq *q)
{
    for (unsigned i = 0; i < V2_QMAX; i++) ck_mqe(ck, &q->e[i]);
    CK(q->rp), CK(q->count);
    kh_ck_below(ck, q->rp, V2_QMAX, "the V2 core's math queue's read position");
    kh_ck_below(ck, q->count, V2_QMAX + 1, "the V2 core's math queue's count");
}

static void ck_wq(kh_ck *ck, v2_wq *q)
{
    for (unsigned i = 0; i < V2_QMAX; i++) ck_wqe(ck, &q->e[i]);
    CK(q->rp), CK(q->count);
    kh_ck_below(ck, q->rp, V2_QMAX, "the V2 core's unpack or pack queue's read position");
    kh_ck_below(ck, q->count, V2_QMAX + 1, "the V2 core's unpack or pack queue's count");
}

static void ck_aq(kh_ck *ck, v2_aq *q)
{
    for (unsigned i = 0; i < V2_AQD; i++) ck_aqe(ck, &q->e[i]);
    CK(q->rp), CK(q->count);
    kh_ck_below(ck, q->rp, V2_AQD, "the V2 core's fill or drain queue's read position");
    kh_ck_below(ck, q->count, V2_AQD + 1, "the V2 core's fill or drain queue's count");
}

static void ck_beat(kh_ck *ck, v2_beat *b)
{
    CK(b->v), CK(b->last), CK(b->wr), CK(b->cmp), CK(b->expd), CK(b->xc), CK(b->op), CK(b->xm), CK(b->xk);
    CK(b->sa), CK(b->sb), CK(b->sc), CK(b->pr), CK(b->pm), CK(b->kc_on), CK(b->ra), CK(b->rb), CK(b->rc);
    CK(b->wa), CK(b->tm), CK(b->swap), CK(b->ka), CK(b->kb), CK(b->kc);
}

static void ck_lanes(kh_ck *ck, v2_lanes *l)
{
    CK3(l->rf);
    CK2(l->preg);
    CK(l->sticky);
    ck_beat(ck, &l->iss), ck_beat(ck, &l->q1), ck_beat(ck, &l->q2);
    CKA(l->q1_a), CKA(l->q1_b), CKA(l->q1_c), CKA(l->s2_p), CKA(l->s2_z), CKA(l->s2_c);
    CK(l->alu_iv);
    for (unsigned i = 0; i < V2_MD; i++) {
        v2_meta *m = &l->meta[i];
        CK(m->v), CK(m->last), CK(m->wr), CK(m->cmp), CK(m->expd), CK(m->pr), CK(m->pm), CK(m->wa);
        CK(m->pk), CK(m->tm), CK(m->pred), CK(m->ovf);
        CKA(m->out);
    }
    CK(l->mhead), CK(l->nmeta);
    kh_ck_below(ck, l->mhead, V2_MD, "the V2 core's lanes' meta head");
    kh_ck_below(ck, l->nmeta, V2_MD + 1, "the V2 core's lanes' meta count");
    CKA(l->bw_we), CKA(l->bw_wa), CKA(l->use_u), CKA(l->uw_q);
    CK(l->pk_ra), CKA(l->pk_q), CKA(l->pk_rd), CKA(l->pk_next);
}

static void ck_gt4(kh_ck *ck, v2_gt4 *g)
{
    CK2(g->r);
    CK(g->hd);
    CKA(g->tv), CKA(g->tg), CKA(g->tp), CKA(g->tt);
    CK(g->ph), CK(g->out_valid), CKA(g->out_data), CK(g->out_tag);
}

static void ck_mxq(kh_ck *ck, v2_mxq *m)
{
    CK(m->a_v), CK(m->b_v), CK(m->pk_v), CK(m->n_v), CK(m->q1_v), CK(m->q2_last), CK(m->e_act), CK(m->out_v);
    CK(m->a_ch), CK(m->b_ch), CK(m->q1_ch), CK(m->e_w), CK(m->c_bl), CK(m->c_eq), CK(m->c_base), CK(m->c_s0);
    CKA(m->in), CKA(m->words), CKA(m->out_word), CK(m->out_addr), CK(m->out_eq), CK(m->out_last);
}

static void ck_walker(kh_ck *ck, v2_walker *w)
{
    CK(w->cb0), CK(w->cb1m), CK(w->cb2m), CK(w->cb3), CK(w->lft), CK(w->r1), CK(w->r2), CK(w->r3);
    CK(w->cs0), CK(w->cs1), CK(w->cs2), CK(w->cs3), CK(w->a), CK(w->b1), CK(w->d2), CK(w->d3), CK(w->q12);
    CK(w->p1), CK(w->p2), CK(w->t01), CK(w->t23), CK(w->total), CK(w->s01), CK(w->s23), CK(w->busy), CK(w->c32);
    CK(w->settle);
}

static void ck_counters(kh_ck *ck, v2_counters *p)
{
    CK(p->busy), CK(p->beats), CK(p->lanes), CK(p->insns), CK(p->l1_rd), CK(p->l1_wr), CK(p->fill_words);
    CK(p->drain_words), CK(p->m_act), CK(p->m_haz), CK(p->m_empty), CK(p->m_sync), CK(p->u_act), CK(p->u_room);
    CK(p->u_sync), CK(p->u_wbblk), CK(p->p_act), CK(p->p_room), CK(p->p_haz), CK(p->p_sync), CK(p->p_l1blk);
    CK(p->a_act), CK(p->a_dact), CK(p->a_fsync), CK(p->a_dsync), CK(p->a_drblk), CK(p->a_drarb), CK(p->d_mq);
    CK(p->d_sbm), CK(p->d_uq), CK(p->d_sbu), CK(p->d_pq), CK(p->d_aq), CK(p->d_seti), CK(p->d_fe), CK(p->d_idle);
    CK(p->redir);
}

static void ck_core(kh_ck *ck, v2_core *c)
{
    const v2_cfg *g = &c->cfg;
    kh_ck_same(ck, g->dualq, "V2 dualq");
    kh_ck_same(ck, g->imem_depth, "V2 IMEM depth");
    kh_ck_same(ck, g->qd, "V2 queue depth");
    kh_ck_same(ck, g->has_expd, "V2 EXP2D");
    kh_ck_same(ck, g->tau, "V2 TAU");
    kh_ck_same(ck, g->l1_ultra, "V2 L1 primitive");
    kh_ck_same(ck, g->has_mx, "V2 MX7");
    kh_ck_same(ck, c->pcw_mask, "V2 pc mask");
    /* outputs */
    CK(c->busy), CK(c->halted), CK(c->fault), CK(c->fault_code), CK(c->cycles);
    CK(c->rd_req_valid), CK(c->rd_req_addr), CK(c->rd_req_tag), CK(c->rd_req_cnt);
    CK(c->wr_req_valid), CK(c->wr_req_first), CK(c->wr_req_addr), CKA(c->wr_req_data), CK(c->wr_req_cnt);
    CK(c->nd_valid), CK(c->nd_sig), CK(c->nd_x), CK(c->nd_y), CK(c->nd_buf), CK(c->nd_off), CK(c->nd_len);
    CK(c->nd_ack), CK(c->nd_mesh), CK(c->nd_fin);
    /* memories */
    CKA(c->imem), CK(c->im_q);
    CK2(c->l1), CKA(c->l1_ra), CK2(c->l1_q1), CK2(c->l1_q), CKA(c->l1_we), CKA(c->l1_wa), CK2(c->l1_wd);
    /* front end */
    CK(c->srst), CK(c->run), CK(c->f_v), CK(c->d_v), CK(c->d_old), CK(c->sl_ok_q), CK(c->sl_vl_q);
    CK(c->sl_skip_q), CK(c->stk_clr), CK(c->cd_err), CK(c->still), CK(c->f_pc), CK(c->d_pc);
    ck_dec(ck, &c->ir);
    CKA(c->sreg), CKA(c->kreg), CK(c->vl), CK(c->lp_top), CK(c->lp_end), CK(c->lp_act), CK(c->lp_cnt);
    CK(c->c_chk), CK(c->c_xb), CK(c->c_uptr), CK(c->c_uinc), CK(c->c_pptr), CK(c->c_pinc);
    CK(c->c_us0), CK(c->c_us1), CK(c->c_ps0), CK(c->c_ps1), CKA(c->a_off), CKA(c->a_inc);
    CKA(c->n_disp), CKA(c->n_done), CKA(c->mk_on), CKA(c->n_out), CKA(c->mk_cnt), CKA(c->mk_tgt);
    /* scoreboard */
    CKA(c->Wd), CKA(c->Wc), CKA(c->UWd), CKA(c->UWc), CKA(c->MRd), CKA(c->MRc), CKA(c->PRd), CKA(c->PRc);
    CKA(c->pP);
    /* queues */
    ck_mq(ck, &c->mq);
    for (unsigned q = 0; q < 2; q++) ck_wq(ck, &c->uq[q]), ck_wq(ck, &c->pq[q]);
    ck_aq(ck, &c->fq), ck_aq(ck, &c->dq);
    /* math */
    CK(c->m_act), ck_mqe(ck, &c->m_e), CK(c->m_i);
    c->m_rest = 0; /* not state: the next edge recomputes the issue register (math.c) */
    c->m_tpl_ok = 0; /* not state either: rebuilt from m_e (math.c) */
    c->u_still = c->p_still = 0; /* not state: counted again from the next edge (walk.c) */
    c->still_idle = 0; /* not state: the next edge asks kh_v2_core_idle again (core.c) */
    ck_lanes(ck, &c->ln);
    /* unpack */
    CK(c->u_act), CK(c->u_eq), ck_wqe(ck, &c->u_e), CK(c->u_w), CK(c->u_ra), CK(c->u_gb), CK(c->u_occ);
    CK(c->u_tag1), CK(c->u_tag2), CK(c->u_v1), CK(c->u_v2), CK(c->u_bk1), CK(c->u_bk2);
    ck_gt4(ck, &c->ugt);
    CKA(c->u_hold), CK(c->uf_push), CK(c->uf_din_wa), CK(c->uf_din_qb), CK(c->uf_din_last), CKA(c->uf_din);
    for (unsigned i = 0; i < V2_UFD; i++) CK(c->uf[i].wa), CK(c->uf[i].qb), CK(c->uf[i].last), CKA(c->uf[i].d);
    CK(c->uf_rp), CK(c->uf_count);
    kh_ck_below(ck, c->uf_rp, V2_UFD, "the V2 core's unpack FIFO's read position");
    kh_ck_below(ck, c->uf_count, V2_UFD + 1, "the V2 core's unpack FIFO's count");
    /* pack */
    CK(c->p_act), CK(c->p_eq), ck_wqe(ck, &c->p_e), CK(c->p_w), CK(c->p_wa), CK(c->p_gb), CK(c->p_occ);
    CK(c->p_base), CK(c->p_tag1), CK(c->p_tag2), CK(c->p_tag3), CK(c->p_tag4), CK(c->m_tag1), CK(c->m_tag2);
    CK(c->m_tag3), CK(c->m_tag4), CK(c->p_v1), CK(c->p_v2), CK(c->p_v3), CK(c->p_v4), CKA(c->p_cv);
    ck_gt4(ck, &c->pgt);
    ck_mxq(ck, &c->mx);
    for (unsigned i = 0; i < V2_UFD; i++) CK(c->pf[i].addr), CK(c->pf[i].qb), CK(c->pf[i].last), CKA(c->pf[i].d);
    CK(c->pf_rp), CK(c->pf_count);
    kh_ck_below(ck, c->pf_rp, V2_UFD, "the V2 core's pack FIFO's read position");
    kh_ck_below(ck, c->pf_count, V2_UFD + 1, "the V2 core's pack FIFO's count");
    /* DMA */
    ck_walker(ck, &c->wk[0]), ck_walker(ck, &c->wk[1]);
    CKA(c->ag_base), CK2(c->ag_strd), CK2(c->ag_bnd), CK(c->ag_start);
    CK(c->f_st), CK(c->d_st), CK(c->f_sel), CK(c->d_sel), CK(c->f_off), CK(c->dd_off), CK(c->f_l1), CK(c->dd_l1);
    CK(c->f_left), CK(c->d_left), CK(c->c_v), CK(c->c_addr), CK(c->c_n), CK(c->c_l1), CK(c->fill_out);
    CK(c->dr_ptr), CK(c->dr_left), CK(c->dr_v), CK(c->wb_left), CK(c->dr_bk1), CK(c->dr_bk2);
    CK(c->run_v), CK(c->run_addr), CK(c->run_next), CK(c->run_tag), CK(c->run_cnt), CK(c->fl_cap_q);
    CK(c->fl_fresh), CK(c->a_fault), CK(c->a_fcode);
    CKA(c->ft), CK(c->ft_rp), CK(c->ft_count), CK(c->ft_landed);
    kh_ck_below(ck, c->ft_rp, V2_FTD, "the V2 core's fill completion FIFO's read position");
    kh_ck_below(ck, c->ft_count, V2_FTD + 1, "the V2 core's fill completion FIFO's count");
    ck_counters(ck, &c->pc);
}

void kh_v2_frame_ckpt(v2_frame *f, kh_ck *ck)
{
    ck_core(ck, &f->core);
    kh_ck_same(ck, f->x, "V2 frame x"), kh_ck_same(ck, f->y, "V2 frame y");
    kh_ck_same(ck, f->mem_x, "V2 frame memory x"), kh_ck_same(ck, f->mem_y, "V2 frame memory y");
    CK(f->rr_valid), CK(f->cd_valid), CK(f->cd_fault), CK(f->rr_tag), CK(f->cd_addr), CKA(f->rr_data);
    CKA(f->cd_data), CK(f->cd_st), CK(f->cd_drop), CK(f->cd_sig), CK(f->sg_pend), CK(f->recv_ready);
    CK(f->cd_left), CK(f->cd_ptr), CK(f->sg_buf), CK(f->sg_x), CK(f->sg_y), CK(f->cd_sx), CK(f->cd_sy);
    CKA(f->fq), CK(f->fq_rp), CK(f->fq_wp), CK(f->fq_seen);
    CK(f->send_valid), kh_ck_flit(ck, &f->send_flit), CK(f->rd_req_ready), CK(f->wst), CK(f->nd_hdr);
    CK(f->nd_cnt), CK(f->w_left), CK(f->cst), CK(f->inst_ready), CK(f->exec_done), CK(f->exec_fault);
    CK(f->exec_result), CK(f->ld_en), CK(f->ld_kind), CK(f->start), CK(f->ld_addr), CK(f->start_pc);
    CK(f->ld_data);
}
