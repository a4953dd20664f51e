/* The node's RV64 complex in a checkpoint (docs/checkpoint.md): the core
 * (ckpt.c), the instruction window and the scratchpad, the Sv39 MMU (TLB,
 * its registered read and write, the walker) and the fetch page register,
 * the L1 (tag and data arrays, the registered probe, the walk-out and fill
 * machines), the node port's registered AXI outputs and answers, the
 * I-cache, the access handshake, the control region's registered pulses,
 * the mailbox with its completion and RX queues, stdin, the host side and
 * the counters. The cycle's combinational answers (rv6_comb) are worked
 * out again at every cycle's start; only the store commit a harness looks
 * at between cycles is kept of them. */
#include "kohaku/ckpt.h"
#include "rv64/sys_int.h"

#define CK(x) KH_CK(ck, x)

static void ck_tlbe(kh_ck *ck, rv6_tlbe *e)
{
    CK(e->v), CK(e->perm), CK(e->tag), CK(e->ppn);
}

static void ck_mmu(kh_ck *ck, rv6_mmu *m)
{
    for (unsigned i = 0; i < R6_TLB; i++) ck_tlbe(ck, &m->tlb[i]);
    ck_tlbe(ck, &m->t_q);
    CK(m->t_we), CK(m->t_wa);
    ck_tlbe(ck, &m->t_wd);
    CK(m->q_vpn), CK(m->q_off), CK(m->q_store), CK(m->q_fetch), CK(m->q_active), CK(m->resolved_q);
    CK(m->wst), CK(m->sweep), CK(m->sweeping), CK(m->level), CK(m->w_base), CK(m->w_vpn), CK(m->w_fetch);
    CK(m->w_store), CK(m->fault_p), CK(m->fault_lat), CK(m->fault_fetch), CK(m->cause), CK(m->w_req), CK(m->w_addr);
    CK(m->walks), CK(m->faults);
    kh_ck_below(ck, m->t_wa, R6_TLB, "TLB write index");
    kh_ck_below(ck, m->level, 3, "page walk's level"); /* it shifts the VPN by 9 bits a level */
}

static void ck_ifetch(kh_ck *ck, rv6_ifetch *f)
{
    CK(f->translating), CK(f->settle_q), CK(f->sfence_q), CK(f->ok), CK(f->bad), CK(f->req), CK(f->settle);
    CK(f->wait), CK(f->vpn), CK(f->ppn);
}

static void ck_l1(kh_ck *ck, rv6_l1 *l)
{
    CK(l->st);
    KH_CK_ARR(ck, l->tv, R6_L1_LINES);
    KH_CK_ARR(ck, l->td, R6_L1_LINES);
    KH_CK_ARR(ck, l->tt, R6_L1_LINES);
    CK(l->tq_v), CK(l->tq_d), CK(l->tq_tag), CK(l->tq_idx), CK(l->hq_v), CK(l->hit_q), CK(l->wrote_q);
    CK(l->tag_we), CK(l->tag_wa), CK(l->tag_wv), CK(l->tag_wd_dirty), CK(l->tag_wt), CK(l->dw_v), CK(l->dw_idx);
    kh_ck_array(ck, &l->data[0][0], sizeof l->data[0][0], R6_L1_LINES * 4);
    CK(l->wcnt), CK(l->got), CK(l->vic), CK(l->scan), CK(l->vic_tag), CK(l->wvalid_d), CK(l->a_q);
    KH_CK_ARR(ck, l->linebuf, 4);
    CK(l->flush_pend), CK(l->inval_pend), CK(l->fill_valid), CK(l->wb_valid), CK(l->fill_addr), CK(l->wb_addr);
    CK(l->fills), CK(l->writebacks);
    kh_ck_below(ck, l->tag_wa, R6_L1_LINES, "L1 tag write index");
    kh_ck_below(ck, l->vic, R6_L1_LINES, "L1 victim line");
    kh_ck_below(ck, l->scan, R6_L1_LINES + 1, "L1 sweep position");
    kh_ck_below(ck, l->wcnt, 4, "L1 word count");
    kh_ck_below(ck, l->got, 5, "L1 words collected");
}

static void ck_np(kh_ck *ck, rv6_np *n)
{
    CK(n->st), CK(n->who), CK(n->lane);
    CK(n->o.arvalid), CK(n->o.araddr), CK(n->o.awvalid), CK(n->o.wvalid), CK(n->o.awaddr);
    KH_CK_ARR(ck, n->o.wdata, 4);
    CK(n->o.wstrb);
    CK(n->w_ack), CK(n->u_ack), CK(n->resp_valid), CK(n->if_resp_valid), CK(n->w_data), CK(n->u_rdata);
    KH_CK_ARR(ck, n->resp_data, 4);
    KH_CK_ARR(ck, n->if_resp_data, 4);
    kh_ck_below(ck, n->lane, 4, "node port's lane");
}

static void ck_ic(kh_ck *ck, rv6_ic *c)
{
    KH_CK_ARR(ck, c->v, R6_IC_LINES);
    KH_CK_ARR(ck, c->line, R6_IC_LINES);
    kh_ck_array(ck, &c->data[0][0], sizeof c->data[0][0], R6_IC_LINES * 4);
    CK(c->rr), CK(c->st), CK(c->miss_line), CK(c->if_req), CK(c->if_addr);
    kh_ck_below(ck, c->rr, R6_IC_LINES, "I-cache's next line");
}

void kh_rv6_sys_ckpt(rv6_sys *s, kh_ck *ck)
{
    kh_ck_same(ck, s->fetch_lat, "the RV64 complex's fetch stages");
    kh_ck_same(ck, s->my_x, "the RV64 complex's column");
    kh_ck_same(ck, s->my_y, "the RV64 complex's row");
    kh_rv6_ckpt(s->core, ck);
    CK(s->c.commit), CK(s->c.commit_pa), CK(s->c.commit_wd), CK(s->c.commit_be);
    KH_CK_ARR(ck, s->imem, R6_IMEM_WORDS);
    KH_CK_ARR(ck, s->spad, R6_SPAD_WORDS);
    ck_mmu(ck, &s->mmu);
    ck_ifetch(ck, &s->ifp);
    ck_l1(ck, &s->l1);
    ck_np(ck, &s->np);
    ck_ic(ck, &s->ic);
    CK(s->mem_started), CK(s->sel_spad), CK(s->sel_ctrl), CK(s->sel_cache), CK(s->sel_unc), CK(s->m_st_q);
    CK(s->m_pa_q), CK(s->m_wd_q), CK(s->m_be_q);
    CK(s->nm_en), CK(s->mv_en), CK(s->db_en), CK(s->rx_pop), CK(s->xf_en), CK(s->l1_flush_p), CK(s->l1_inval_p);
    CK(s->nm_addr), CK(s->mv_addr), CK(s->db_addr), CK(s->xf_id), CK(s->xf_reg);
    CK(s->nm_data), CK(s->mv_data), CK(s->db_data), CK(s->xf_data);
    CK(s->dst_x), CK(s->dst_y), CK(s->tx_type), CK(s->tx_typed), CK(s->tx_valid);
    KH_CK_ARR(ck, s->arg, 4);
    CK(s->txn);
    kh_ck_flit(ck, &s->tx);
    KH_CK_ARR(ck, s->cq, R6_CQ);
    CK(s->cq_head), CK(s->cq_n);
    for (unsigned i = 0; i < R6_RQ; i++) kh_ck_flit(ck, &s->rq[i]);
    CK(s->rq_head), CK(s->rq_n);
    KH_CK_ARR(ck, s->sin, R6_STDIN);
    CK(s->sin_head), CK(s->sin_n);
    CK(s->h_wr), CK(s->h_addr), CK(s->h_data), CK(s->h_strb);
    CK(s->boot_req), CK(s->boot_ack), CK(s->run_en), CK(s->core_rstn), CK(s->dbell), CK(s->exited), CK(s->halt_l);
    CK(s->cause_l), CK(s->boot_pc), CK(s->exit_word), CK(s->haltpc_l), CK(s->cyc_ctr), CK(s->ret_ctr);
    CK(s->retire_now);
    kh_ck_below(ck, s->cq_head, R6_CQ, "completion queue's head");
    kh_ck_below(ck, s->cq_n, R6_CQ + 1, "completion queue's count");
    kh_ck_below(ck, s->rq_head, R6_RQ, "RX queue's head");
    kh_ck_below(ck, s->rq_n, R6_RQ + 1, "RX queue's count");
    kh_ck_below(ck, s->sin_head, R6_STDIN, "stdin queue's head");
    kh_ck_below(ck, s->sin_n, R6_STDIN + 1, "stdin queue's count");
}
