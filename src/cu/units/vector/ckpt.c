/* The vector core (vec_cu) in a checkpoint (docs/checkpoint.md): the
 * architectural state (IMEM, descriptors, L1, V, S, K3, P, VL, mode, pc,
 * the loop, the side registers), the RUN in progress (phase, lanes, the
 * fill/drain job, fills outstanding, CU_DATA receiver, output queue) and
 * the counters. Options and latencies come from the parameters. */
#include "cu/units/vector/vec.h"
#include "kohaku/ckpt.h"

static void ck_u(kh_ck *ck, unsigned *const *f, size_t n)
{
    for (size_t i = 0; i < n; i++) kh_ck_scalar(ck, f[i], sizeof(unsigned));
}

static void ck_walk(kh_ck *ck, vec_walk *w)
{
    KH_CK(ck, w->start);
    KH_CK_ARR(ck, w->stride, 4);
    KH_CK_ARR(ck, w->bound, 4);
    KH_CK_ARR(ck, w->i, 4);
}

void kh_vec_core_ckpt(vec_core *c, kh_ck *ck)
{
    vec_state *st = &c->st;
    KH_CK_ARR(ck, st->imem, VEC_IMEM);
    for (unsigned i = 0; i < VEC_NDESC; i++) {
        KH_CK(ck, st->desc[i].base);
        KH_CK_ARR(ck, st->desc[i].stride, 4);
        KH_CK_ARR(ck, st->desc[i].bound, 4);
    }
    KH_CK_ARR(ck, &st->l1[0][0], (size_t)VEC_L1 * 4);
    KH_CK_ARR(ck, &st->v[0][0], (size_t)VEC_NV * VEC_MAXVL);
    KH_CK_ARR(ck, st->s, VEC_NS);
    KH_CK(ck, st->k3);
    KH_CK_ARR(ck, &st->p[0][0], (size_t)VEC_NP * 2);
    unsigned *sf[] = {&st->vl, &st->vmode, &st->pc, &st->loop_top, &st->loop_end, &st->last_pm, &st->last_pr};
    ck_u(ck, sf, sizeof sf / sizeof sf[0]);
    KH_CK(ck, st->loop_active);
    KH_CK(ck, st->loop_count);
    KH_CK_ARR(ck, st->porta, VEC_SLICES);
    KH_CK(ck, c->phase);
    KH_CK(ck, c->t);
    KH_CK(ck, c->t0);
    KH_CK(ck, c->first);
    KH_CK(ck, c->wait_kind);
    KH_CK(ck, c->cur_pc);
    KH_CK(ck, c->retire_fault);
    KH_CK(ck, c->retire_result);
    KH_CK(ck, c->lanes.idle);
    KH_CK_ARR(ck, c->lanes.vreg, VEC_NV);
    KH_CK_ARR(ck, &c->lanes.pred[0][0], (size_t)VEC_NP * VEC_CHUNKS);
    ck_walk(ck, &c->job.walk);
    unsigned *jf[] = {&c->job.total, &c->job.i, &c->job.l1, &c->job.pending};
    ck_u(ck, jf, sizeof jf / sizeof jf[0]);
    KH_CK(ck, c->job.peer);
    kh_ck_flit(ck, &c->job.hdr);
    KH_CK(ck, c->job.acc);
    KH_CK(ck, c->fill_out);
    KH_CK(ck, c->fill_landed);
    KH_CK_ARR(ck, c->tag_hi, 256);
    KH_CK(ck, c->cudata_fault);
    vec_rx *rx = &c->rx;
    KH_CK(ck, rx->open);
    KH_CK(ck, rx->accepted);
    unsigned *rf[] = {&rx->remaining, &rx->next, &rx->off,   &rx->buf,   &rx->signal,
                      &rx->ack_x,     &rx->ack_y, &rx->src_x, &rx->src_y};
    ck_u(ck, rf, sizeof rf / sizeof rf[0]);
    for (unsigned i = 0; i < VEC_OUTQ; i++) kh_ck_flit(ck, &c->q.f[i]);
    KH_CK_ARR(ck, c->q.ready, VEC_OUTQ);
    KH_CK_ARR(ck, c->q.of_job, VEC_OUTQ);
    KH_CK(ck, c->q.head);
    KH_CK(ck, c->q.n);
    kh_ck_below(ck, c->q.head, VEC_OUTQ, "the output queue's head");
    kh_ck_below(ck, c->q.n, VEC_OUTQ + 1, "the output queue's count");
    KH_CK(ck, c->q_blocked);
    uint64_t *sv[] = {&c->stats.runs,        &c->stats.faults,          &c->stats.insns,
                      &c->stats.fill_words,  &c->stats.drain_words,     &c->stats.cudata_words,
                      &c->stats.hazard_warnings, &c->stats.expsum_pm_warnings, &c->stats.loop_warnings};
    for (size_t i = 0; i < sizeof sv / sizeof sv[0]; i++) kh_ck_scalar(ck, sv[i], sizeof(uint64_t));
    KH_CK_ARR(ck, c->hazard_pc_seen, VEC_IMEM / 32);
}
