/* The interlink in a checkpoint (docs/checkpoint.md): registers and their
 * start-of-cycle copy, the hub intake and encapsulator, posted words and
 * doorbells, the outbound arbiter and its packet, the switch with each
 * link's state and the lanes this interlink sends on (a lane is saved by
 * its sender, flits and credits in flight both ways), the inbound
 * processor, the injection FIFO and the counters. */
#include "kohaku/ckpt.h"
#include "sysnode/ilink/ilink_int.h"

static void ck_wflit(kh_ck *ck, il_wflit *w)
{
    kh_ck_flit(ck, &w->f);
    KH_CK(ck, w->hdr);
    KH_CK(ck, w->last);
    KH_CK(ck, w->cls);
    KH_CK(ck, w->at);
}

static void ck_wflit_rec(kh_ck *ck, void *e) { ck_wflit(ck, e); }

static void ck_credit(kh_ck *ck, void *e)
{
    il_credit *c = e;
    KH_CK(ck, c->at);
    KH_CK(ck, c->cls);
    KH_CK(ck, c->n);
}

static void ck_word(kh_ck *ck, void *e)
{
    il_word *w = e;
    KH_CK(ck, w->addr);
    KH_CK_ARR(ck, w->d, 4);
    KH_CK(ck, w->strb);
    KH_CK(ck, w->mover_last);
    KH_CK(ck, w->at);
}

static void ck_ring(kh_ck *ck, void *e)
{
    il_ring *r = e;
    KH_CK(ck, r->dst);
    KH_CK(ck, r->tag);
    KH_CK(ck, r->at);
}

static void ck_regw(kh_ck *ck, void *e)
{
    il_regw *r = e;
    KH_CK(ck, r->reg);
    KH_CK(ck, r->value);
    KH_CK(ck, r->at);
}

static void ck_status(kh_ck *ck, il_status *s)
{
    KH_CK(ck, s->enable);
    KH_CK(ck, s->mesh);
    KH_CK(ck, s->fault);
    KH_CK_ARR(ck, s->drx, KH_ILINK_MESHES);
    KH_CK_ARR(ck, s->dtx, KH_ILINK_MESHES);
    KH_CK_ARR(ck, s->dtag, KH_ILINK_MESHES);
    KH_CK(ck, s->door_sent);
}

static void ck_lane(kh_ck *ck, il_lane *l)
{
    for (unsigned c = 0; c < 2; c++) kh_ck_ring(ck, &l->q[c], ck_wflit_rec, "interlink flits in flight");
    KH_CK_ARR(ck, l->credit, 2);
    kh_ck_ring(ck, &l->crd, ck_credit, "interlink credits in flight");
    KH_CK_ARR(ck, l->owed, 2);
    KH_CK_ARR(ck, l->owed_since, 2);
    KH_CK(ck, l->crd_rr);
}

static void ck_link(kh_ck *ck, il_link *k)
{
    kh_ck_same(ck, k->out != NULL, "an interlink lane out");
    if (k->out && !kh_ck_failed(ck)) ck_lane(ck, k->out);
    int *ints[] = {&k->owner[0], &k->owner[1], &k->fwd_link, &k->fwd_cls, &k->fwd_open};
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) kh_ck_scalar(ck, ints[i], sizeof(int));
    KH_CK_ARR(ck, k->mux_rr, 2);
    KH_CK(ck, k->vc_rr);
    KH_CK(ck, k->tx_pkts);
    KH_CK(ck, k->tx_beats);
    KH_CK(ck, k->rx_pkts);
    KH_CK(ck, k->rx_beats);
    KH_CK(ck, k->tx_flits);
    KH_CK(ck, k->stalled);
    KH_CK(ck, k->stall_since);
    KH_CK(ck, k->last_pop);
}

void kh_ilink_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_ilink *il = (kh_ilink *)c;
    ck_status(ck, &il->st);
    ck_status(ck, &il->old);
    KH_CK(ck, il->st_cycle);
    kh_ck_ring(ck, &il->regw, ck_regw, "interlink register writes");
    KH_CK(ck, il->fault_ext);
    KH_CK(ck, il->fault_ext_at);
    KH_CK(ck, il->warned_local);
    KH_CK(ck, il->warned_wrap);
    KH_CK(ck, il->warned_v4);
    KH_CK(ck, il->warned_reg);
    kh_ck_fifo(ck, &il->skid);
    for (unsigned i = 0; i < KH_NODE_MAX_PORTS; i++) kh_ck_flit(ck, &il->hub[i]);
    KH_CK(ck, il->hub_held);
    KH_CK(ck, il->hub_ptr);
    KH_CK(ck, il->enc_open);
    KH_CK(ck, il->enc_closed);
    KH_CK(ck, il->enc_closed_at);
    unsigned *ef[] = {&il->enc_mesh, &il->enc_fin, &il->enc_sx, &il->enc_sy, &il->enc_n};
    for (size_t i = 0; i < sizeof ef / sizeof ef[0]; i++) kh_ck_scalar(ck, ef[i], sizeof(unsigned));
    for (unsigned i = 0; i < KH_ILINK_MAX_BEATS; i++) kh_ck_flit(ck, &il->enc[i]);
    KH_CK_ARR(ck, il->cud_left, 256);
    KH_CK_ARR(ck, il->cud_open, 256);
    kh_ck_ring(ck, &il->words, ck_word, "posted remote words");
    kh_ck_ring(ck, &il->rings, ck_ring, "doorbells");
    KH_CK(ck, il->ob_rr);
    KH_CK(ck, il->pkt_valid);
    KH_CK(ck, il->ob_free);
    il_pkt *p = &il->pkt;
    for (unsigned i = 0; i < KH_ILINK_MAX_BEATS + 1; i++) ck_wflit(ck, &p->fl[i]);
    KH_CK(ck, p->n);
    KH_CK(ck, p->sent);
    KH_CK(ck, p->link);
    KH_CK(ck, p->cls);
    KH_CK(ck, p->src);
    KH_CK(ck, p->ready);
    KH_CK(ck, p->dmesh);
    KH_CK(ck, p->wr_last);
    KH_CK(ck, il->lblock);
    KH_CK(ck, il->lblock_since);
    ck_link(ck, &il->link[0]);
    ck_link(ck, &il->link[1]);
    KH_CK(ck, il->fwd_pkts);
    KH_CK(ck, il->fwd_blocked);
    KH_CK(ck, il->fwd_since);
    KH_CK(ck, il->in_owner);
    KH_CK(ck, il->in_rr);
    KH_CK(ck, il->inst);
    unsigned *inf[] = {&il->in_kind, &il->in_smesh, &il->in_tag, &il->in_left, &il->in_strb, &il->land_out};
    for (size_t i = 0; i < sizeof inf / sizeof inf[0]; i++) kh_ck_scalar(ck, inf[i], sizeof(unsigned));
    KH_CK(ck, il->in_addr);
    kh_ck_fifo(ck, &il->inj);
    KH_CK(ck, il->inj_take_cycle);
    uint64_t *cn[] = {&il->counts.flits_encapsulated, &il->counts.flits_injected, &il->counts.flits_dropped,
                      &il->counts.words_sent,         &il->counts.words_landed,   &il->counts.pkts_dropped,
                      &il->counts.rings_dropped};
    for (size_t i = 0; i < sizeof cn / sizeof cn[0]; i++) kh_ck_scalar(ck, cn[i], sizeof(uint64_t));
    KH_CK(ck, il->progressed);
    if (kh_ck_loading(ck)) il->landed = 1; /* flits injected before the save may be on their way */
}

/* A lane across processes (ilink_xfer.c): after a window's exchange the
 * flits on it and the credits owed are on the receiver's replica, the
 * credits held and those on their way back on the sender's. A save under
 * MPI loads this part, read where the receiver is stepped, over the lane
 * its sender's section restored. */
void kh_node_ilink_rx_ckpt(kh_node *n, unsigned link, kh_ck *ck)
{
    kh_ilink *il = n->ilink;
    il_lane *l = il && link < 2 ? il->link[link].in : NULL;
    kh_ck_same(ck, l != NULL, "an interlink lane in");
    if (!l || kh_ck_failed(ck)) return;
    for (unsigned c = 0; c < 2; c++) kh_ck_ring(ck, &l->q[c], ck_wflit_rec, "interlink flits in flight");
    KH_CK_ARR(ck, l->owed, 2);
    KH_CK_ARR(ck, l->owed_since, 2);
    KH_CK(ck, l->crd_rr);
}
