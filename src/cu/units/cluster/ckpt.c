/* The matmul cluster in a checkpoint (docs/checkpoint.md): L1 (both
 * banks), the accumulator tiles, the sequencer and the instruction in
 * flight, FILL, the sweep's times and hazard marks, the emission batch,
 * the write port, the CU_DATA receiver, the output queue, the older
 * form's marks and the counters. */
#include "cu/units/cluster/cluster_int.h"
#include "kohaku/ckpt.h"

static void ck_dest(kh_ck *ck, kh_cl_dest *d)
{
    KH_CK(ck, d->base);
    KH_CK(ck, d->dnode);
    KH_CK(ck, d->dst_x);
    KH_CK(ck, d->dst_y);
    KH_CK(ck, d->dbuf);
    KH_CK(ck, d->dflags);
    KH_CK(ck, d->dack_y);
    KH_CK(ck, d->dack_x);
    KH_CK(ck, d->dmesh);
    KH_CK(ck, d->dfin);
}

static void ck_inst(kh_ck *ck, kh_cl_inst *in)
{
    unsigned *f[] = {&in->op,    &in->n,     &in->sel,   &in->acc,   &in->gm,    &in->gn,    &in->nk,
                     &in->anchor, &in->preq, &in->peers, &in->npeer, &in->eoff,  &in->aoff,  &in->boff,
                     &in->emit,  &in->fuse,  &in->abank, &in->bbank, &in->fbank, &in->txn,   &in->last};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) kh_ck_scalar(ck, f[i], sizeof(unsigned));
    ck_dest(ck, &in->d);
}

static void ck_entries(kh_ck *ck, kh_mx_entry *e, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        kh_ck_bytes(ck, e[i].q, sizeof e[i].q);
        kh_ck_bytes(ck, e[i].scale, sizeof e[i].scale);
    }
}

void kh_cl_ckpt(void *unit, kh_ck *ck)
{
    kh_cluster *u = unit;
    kh_ck_same(ck, u->tiles, "accumulator tiles");
    kh_ck_same(ck, u->ga, "L1 A entries");
    kh_ck_same(ck, u->gb, "L1 B entries");
    if (kh_ck_failed(ck)) return;
    ck_entries(ck, u->l1a, u->ga);
    ck_entries(ck, u->l1b, u->gb);
    KH_CK_ARR(ck, &u->tile[0][0], (size_t)u->tiles * 16);
    KH_CK_ARR(ck, u->loaded, u->tiles);
    KH_CK_ARR(ck, u->asm_w, 16);
    KH_CK(ck, u->retired);
    KH_CK(ck, u->fault_latch);
    ck_dest(ck, &u->W);
    ck_dest(ck, &u->fused_w);
    KH_CK(ck, u->fused_pending);
    KH_CK(ck, u->fused_total);
    KH_CK(ck, u->acc_idle_at);
    KH_CK(ck, u->state);
    ck_inst(ck, &u->in);
    KH_CK(ck, u->accepted);
    KH_CK(ck, u->done_at);
    KH_CK(ck, u->done_fault);
    KH_CK(ck, u->fill_started);
    KH_CK(ck, u->fill_leader);
    KH_CK(ck, u->fill_need);
    KH_CK(ck, u->fill_got);
    KH_CK(ck, u->sw.cmds);
    KH_CK(ck, u->sw.step);
    KH_CK(ck, u->sw.first);
    KH_CK(ck, u->sw.issue_end);
    KH_CK(ck, u->sw.idle_at);
    KH_CK(ck, u->sw.chain_out);
    KH_CK_ARR(ck, u->sw.reads_a, u->ga);
    KH_CK_ARR(ck, u->sw.reads_b, u->gb);
    /* the batch: its granules, room made first on restore */
    kh_cl_batch *b = &u->batch;
    unsigned total = b->total;
    KH_CK(ck, total);
    if (kh_ck_loading(ck) && !kh_ck_failed(ck)) {
        if (total > (1u << 24)) {
            kh_ck_fail(ck, "%s: a batch of %u granules", kh_ck_where(ck), total);
            return;
        }
        if (total && kh_cl_batch_reserve(u, total)) {
            kh_ck_fail(ck, "out of memory restoring a batch of %u granules", total);
            return;
        }
        b->total = total;
    }
    KH_CK(ck, b->active);
    KH_CK(ck, b->fused);
    KH_CK(ck, b->taken);
    KH_CK(ck, b->fp16);
    if (total) {
        KH_CK_ARR(ck, &b->val[0][0], (size_t)total * 4);
        KH_CK_ARR(ck, b->avail, total);
    }
    KH_CK(ck, u->port.busy);
    KH_CK(ck, u->port.first);
    KH_CK(ck, u->port.count);
    KH_CK(ck, u->port.pos);
    ck_dest(ck, &u->port.w);
    KH_CK(ck, u->port.free_at);
    KH_CK(ck, u->port.last_sent);
    kh_cl_rx *rx = &u->rx;
    KH_CK(ck, rx->open);
    unsigned *rf[] = {&rx->src_x, &rx->src_y, &rx->txn,   &rx->buf,  &rx->off,
                      &rx->len,   &rx->signal, &rx->ack_x, &rx->ack_y};
    for (size_t i = 0; i < sizeof rf / sizeof rf[0]; i++) kh_ck_scalar(ck, rf[i], sizeof(unsigned));
    KH_CK(ck, rx->accept);
    KH_CK(ck, rx->d);
    KH_CK_ARR(ck, rx->even, 4);
    for (unsigned i = 0; i < KH_CL_OUTQ; i++) kh_ck_flit(ck, &u->outq[i]);
    KH_CK(ck, u->outq_head);
    KH_CK(ck, u->outq_n);
    if (kh_ck_loading(ck) && (u->outq_head >= KH_CL_OUTQ || u->outq_n > KH_CL_OUTQ))
        kh_ck_fail(ck, "%s: the output queue's head %u or count %u is past %u", kh_ck_where(ck), u->outq_head,
                   u->outq_n, KH_CL_OUTQ);
    KH_CK(ck, u->last_send);
    KH_CK_ARR(ck, u->fp16_a, u->ga);
    KH_CK_ARR(ck, u->fp16_b, u->gb);
    KH_CK_ARR(ck, u->tile_fp16, u->tiles);
    uint64_t *st[] = {&u->n_fill,     &u->n_gemm,         &u->n_drain,     &u->n_other,       &u->n_cmds,
                      &u->n_macs,     &u->n_granules,     &u->n_bursts,    &u->n_rx_bursts,   &u->n_rx_rejected,
                      &u->n_warnings, &u->n_drained,      &u->n_saturated, &u->n_nonfinite,   &u->n_fp16_entries,
                      &u->n_older_drains};
    for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) kh_ck_scalar(ck, st[i], sizeof(uint64_t));
}
