/* A memory port in a checkpoint (docs/checkpoint.md): the intake FIFOs,
 * the output register, the write slots and their ready order, the FSM, the
 * streaming engine and the counters. */
#include "kohaku/ckpt.h"
#include "sysnode/port/port_int.h"

static void ck_sreq(kh_ck *ck, kh_sreq *s)
{
    KH_CK(ck, s->addr);
    KH_CK(ck, s->n);
    KH_CK(ck, s->ew);
    KH_CK(ck, s->txn);
    KH_CK(ck, s->ndest);
    KH_CK_ARR(ck, s->dx, 4);
    KH_CK_ARR(ck, s->dy, 4);
    KH_CK(ck, s->next_ar);
    KH_CK(ck, s->cap_entry);
    KH_CK(ck, s->cap_beats);
    KH_CK(ck, s->cap_full);
    KH_CK_ARR(ck, &s->cap[0][0], 32);
    KH_CK(ck, s->quant);
    KH_CK(ck, s->qmode);
    KH_CK(ck, s->emit_valid);
    KH_CK(ck, s->emit_entry);
    KH_CK(ck, s->emit_d);
    KH_CK(ck, s->emit_w);
    KH_CK(ck, s->emit_free);
    KH_CK_ARR(ck, &s->emit[0][0], 16);
    KH_CK(ck, s->emitted);
}

void kh_port_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_port *p = (kh_port *)c;
    kh_ck_fifo(ck, &p->rdq);
    kh_ck_fifo(ck, &p->wrq);
    kh_ck_flit(ck, &p->oreg);
    KH_CK(ck, p->ovalid);
    KH_CK(ck, p->oorigin);
    KH_CK(ck, p->oplaced);
    KH_CK(ck, p->out_lost);
    kh_ck_same(ck, p->nslots, "write slots");
    for (unsigned i = 0; i < p->nslots && !kh_ck_failed(ck); i++) {
        kh_wslot *w = &p->slot[i];
        KH_CK(ck, w->state);
        KH_CK(ck, w->sx);
        KH_CK(ck, w->sy);
        KH_CK(ck, w->txn);
        KH_CK(ck, w->addr);
        KH_CK(ck, w->nbeats);
        KH_CK(ck, w->got);
        KH_CK_ARR(ck, &w->data[0][0], KH_WBURST * 4);
    }
    KH_CK_ARR(ck, p->ready, p->nslots);
    KH_CK(ck, p->rhead);
    KH_CK(ck, p->rcount);
    kh_ck_below(ck, p->rhead, p->nslots, "the ready order's head");
    kh_ck_below(ck, p->rcount, (uint64_t)p->nslots + 1, "the ready order's count");
    KH_CK(ck, p->st);
    KH_CK(ck, p->st_free);
    KH_CK(ck, p->cur_slot);
    KH_CK(ck, p->ack_drop);
    KH_CK(ck, p->pr_sx);
    KH_CK(ck, p->pr_sy);
    KH_CK(ck, p->pr_txn);
    KH_CK_ARR(ck, p->pr_hdr, 2);
    KH_CK(ck, p->rd_hdr);
    KH_CK(ck, p->ack_hdr);
    KH_CK(ck, p->rs_run);
    KH_CK(ck, p->rs_free);
    ck_sreq(ck, &p->s);
    KH_CK(ck, p->rd_count);
    KH_CK(ck, p->wr_count);
    KH_CK(ck, p->flits_out);
    KH_CK(ck, p->agent_out);
    KH_CK(ck, p->ilink_out);
    KH_CK(ck, p->reads);
    KH_CK(ck, p->stream_reads);
    KH_CK(ck, p->writes);
    KH_CK(ck, p->busy_cycles);
    KH_CK(ck, p->busy_since);
    for (unsigned i = 0; i < 4; i++) {
        KH_CK(ck, p->dropped[i].sx);
        KH_CK(ck, p->dropped[i].sy);
        KH_CK(ck, p->dropped[i].txn);
        KH_CK(ck, p->dropped[i].addr);
        KH_CK(ck, p->dropped[i].at);
    }
    KH_CK(ck, p->ndropped);
    KH_CK(ck, p->progressed);
    KH_CK(ck, p->rd_popped);
    if (kh_ck_loading(ck) && p->cur_slot >= p->nslots && p->st != ST_IDLE && p->st != ST_PLAIN)
        kh_ck_fail(ck, "%s: the FSM's slot %u is past %u slots", kh_ck_where(ck), p->cur_slot, p->nslots);
}
