/* mx_cluster_cu DRAIN: explicit drains (EMIT / SEND), the emission batch
 * and the write port that frames granules into bursts (cluster.md §6). */
#include <stdlib.h>
#include <string.h>

#include "cu/units/cluster/cluster_int.h"

#include <kohaku/gen/flit.h>

/* §6.3: W is loaded from a DRAIN, and from an emitting GEMM, while they are
 * decoded. */
void kh_cl_dest_from_inst(kh_cluster *u, const kh_cl_inst *in)
{
    u->W = in->d;
}

/* Restart the emission batch (G = 0) with room for total granules. */
int kh_cl_batch_reserve(kh_cluster *u, unsigned total)
{
    kh_cl_batch *b = &u->batch;
    if (total > b->cap) {
        unsigned cap = b->cap ? b->cap : 64;
        while (cap < total) cap *= 2;
        uint64_t(*val)[4] = realloc(b->val, (size_t)cap * sizeof *val);
        if (!val) return -1;
        b->val = val;
        kh_cycle *avail = realloc(b->avail, (size_t)cap * sizeof *avail);
        if (!avail) return -1;
        b->avail = avail;
        b->cap = cap;
    }
    b->active = 1;
    b->total = total;
    b->taken = 0;
    return 0;
}

/* Granules of the batch that have not yet left the unit. */
int kh_cl_batch_outstanding(const kh_cluster *u)
{
    return u->port.busy || (u->batch.active && u->batch.taken < u->batch.total);
}

/* §6.1 start conditions of the DRAIN in flight, seen at the start of now. */
int kh_cl_drain_can_start(kh_cluster *u, kh_cycle now, kh_cycle *retry)
{
    *retry = KH_NEVER;
    if (u->rx.open && u->rx.accept && u->rx.buf == KH_CL_BUF_PEER) return 0; /* §7 peer stream */
    if (u->in.fuse) return 1; /* a fused drain does not wait for the sweep */
    /* explicit: the sweep and the accumulator must be idle; the status the
     * sequencer sees lags the last accumulator write by KH_CL_DRAIN_GAP */
    kh_cycle t = u->acc_idle_at + KH_CL_DRAIN_GAP;
    if (u->acc_idle_at && now < t) {
        *retry = t;
        return 0;
    }
    if (kh_cl_batch_outstanding(u)) return 0; /* an unfused emission is still being written */
    return 1;
}

/* The 22-bit lanes of a sub-tile as the accumulator's pass-through emits
 * them: add(tile, ·, b forced zero), so a lane with E = 0 leaves as zero
 * (numerics §6.2 EMIT / SEND). */
static void pass_through(const kh_cluster *u, const uint32_t in[16], uint32_t out[16])
{
    kh_acc_load16(in, u->mw, out); /* add(tile, forced zero) */
}

/* An explicit DRAIN starts in cycle now: the drain engine issues one EMIT per
 * cycle (SEND: one sub-tile per 2 cycles) into the accumulator; each result
 * reaches the drain queue acc_lat + KH_CL_CONV_LAT later. */
void kh_cl_drain_start(kh_cluster *u, kh_cycle now)
{
    const kh_cl_inst *in = &u->in;
    const unsigned n = kh_cl_or1(in->n), tmask = u->tiles - 1;
    const int send = in->d.dnode == 1 && in->d.dbuf == KH_CL_BUF_PEER;
    const unsigned total = send ? 2 * n : n, lw = KH_ACC_BITS(u->mw);
    int warned = 0;
    unsigned tainted = 0;
    u->batch.fused = 0;
    u->batch.fp16 = !send;
    u->fused_pending = 0;
    if (kh_cl_batch_reserve(u, total)) {
        kh_cl_warn(u, "DRAIN: no memory for %u granules; nothing is written", total);
        u->batch.total = 0;
        return;
    }
    for (unsigned k = 0; k < n; k++) {
        unsigned t = k & tmask;
        uint32_t v[16];
        if (!u->loaded[t] && !warned) {
            warned = 1;
            kh_cl_warn(u, "DRAIN reads sub-tile %u that was never LOADed: undefined in hardware, "
                          "modelled as zero (cluster.md §3)", t);
        }
        pass_through(u, u->tile[t], v);
        if (send) {
            /* §6.1 SEND: the 16·(8+MW)-bit FP22 word, lane l at [lw·l + lw-1 : lw·l],
             * as bits [255:0] then bits [16·lw-1 : 256] in the low bits */
            uint64_t wide[8] = {0};
            for (unsigned l = 0; l < 16; l++) kh_bits_set(wide, lw * l, lw, v[l]);
            memcpy(u->batch.val[2 * k], wide, 4 * sizeof wide[0]);
            memcpy(u->batch.val[2 * k + 1], wide + 4, 4 * sizeof wide[0]);
            u->batch.avail[2 * k] = now + 2 * k + u->acc_lat + KH_CL_CONV_LAT;
            u->batch.avail[2 * k + 1] = u->batch.avail[2 * k] + 1;
        } else {
            kh_acc_to_f16_word(v, u->mw, u->batch.val[k]);
            u->batch.avail[k] = now + k + u->acc_lat + KH_CL_CONV_LAT;
            tainted += u->tile_fp16[t];
        }
    }
    kh_cl_older_drain(u, in, total, tainted);
    kh_cycle emits_end = now + (send ? 2 * n : n) + u->acc_lat;
    if (emits_end > u->acc_idle_at) u->acc_idle_at = emits_end;
    u->n_drain++;
}

/* Has the DRAIN in flight finished? Explicit: every granule has left. Fused:
 * at least need granules of the batch were taken and the port is idle. */
int kh_cl_drain_finished(const kh_cluster *u, unsigned need)
{
    if (u->port.busy) return 0;
    if (!u->in.fuse) return !kh_cl_batch_outstanding(u);
    return u->batch.active && u->batch.fused && u->batch.taken >= need;
}

/* Header of every flit of a burst to W (§6.4): memory -> (MEM_X, MEM_Y),
 * node -> (dst_x, dst_y); txn 0x02 or dfin; rsvd 000 or {1, dmesh}. */
static void burst_header(const kh_cluster *u, const kh_cl_dest *w, unsigned type, kh_flit *f)
{
    kh_flit_clear(f);
    kh_flit_set_hdr(f, &(kh_flit_hdr){.dst_x = w->dnode ? w->dst_x : u->at.mem_x,
                                      .dst_y = w->dnode ? w->dst_y : u->at.mem_y,
                                      .src_x = u->at.x, .src_y = u->at.y, .type = type,
                                      .txn = w->dfin ? w->dfin : KH_CL_WR_TXN}); /* dfin: {fin_y, fin_x} */
    if (w->dfin) {
        kh_hdr_set_rsvd_remote(f->w, 1);     /* rsvd[2]: remote-mesh marker */
        kh_hdr_set_rsvd_mesh(f->w, w->dmesh); /* rsvd[1:0]: destination mesh */
    }
}

static void build_descriptor(const kh_cluster *u, kh_flit *f)
{
    const kh_cl_port *p = &u->port;
    const kh_cl_dest *w = &p->w;
    if (!w->dnode) {
        burst_header(u, w, KH_T_MEM_WR_REQ, f);
        kh_mem_wr_req_set_addr(f->w, w->base + 32u * (uint64_t)p->first);
        kh_mem_wr_req_set_len(f->w, p->count - 1);
    } else {
        uint64_t base = w->base;
        burst_header(u, w, KH_T_CU_DATA, f);
        kh_cu_data_set_buf_id(f->w, w->dbuf);
        /* granule offset = base40[20:5] + G, mod 2^16 (the setter masks) */
        kh_cu_data_set_offset(f->w, kh_bits_get(&base, 5, 16) + p->first);
        kh_cu_data_set_len(f->w, p->count - 1);
        kh_cu_data_set_flags(f->w, w->dflags);
        kh_cu_data_set_ack_y(f->w, w->dack_y);
        kh_cu_data_set_ack_x(f->w, w->dack_x);
    }
    kh_hdr_set_last(f->w, 0);
}

static void build_data(const kh_cluster *u, kh_flit *f)
{
    const kh_cl_port *p = &u->port;
    const uint64_t *g = u->batch.val[p->first + p->pos - 1];
    burst_header(u, &p->w, p->w.dnode ? KH_T_CU_DATA : KH_T_MEM_WR_DATA, f);
    if (p->w.dnode) kh_cu_data_data_set_data(f->w, g);
    else kh_mem_wr_data_set_data(f->w, g);
    kh_hdr_set_last(f->w, p->pos == p->count);
}

/* One cycle of the write port, if the send path is free this cycle: send the
 * next flit of the open burst, or close the next burst when its granules are
 * all in the drain queue. Bursts hold at most 8 granules and are cut at G =
 * 0, 8, 16, ... (§6.4, Open point 5). *next gets the cycle the port wants to
 * act again (KH_NEVER: nothing to do until an event). Returns through
 * u->last_send whether a flit left. */
void kh_cl_port_step(kh_cluster *u, kh_cycle now, kh_cycle *next)
{
    kh_cl_port *p = &u->port;
    kh_cl_batch *b = &u->batch;
    *next = KH_NEVER;
    if (!p->busy) {
        if (!b->active || b->taken >= b->total) return;
        unsigned first = b->taken;
        unsigned end = (first / KH_CL_WBURST + 1) * KH_CL_WBURST;
        if (end > b->total) end = b->total;
        kh_cycle ready = b->avail[end - 1] > p->free_at ? b->avail[end - 1] : p->free_at;
        if (now < ready) {
            *next = ready;
            return;
        }
        if (u->last_send == now || u->outq_n) {
            *next = now + 1;
            return;
        }
        p->busy = 1;
        p->first = first;
        p->count = end - first;
        p->pos = 0;
        p->w = u->W; /* W as it is now: a fused DRAIN may have overwritten it (§6.3) */
        b->taken = end;
        u->n_bursts++;
    }
    if (u->last_send == now) {
        *next = now + 1;
        return;
    }
    kh_flit f;
    if (p->pos == 0) build_descriptor(u, &f);
    else build_data(u, &f);
    if (!kh_cu_send(u->cu, &f, now)) return; /* the shell wakes us when it frees up */
    u->last_send = now;
    if (p->pos > 0) {
        u->n_granules++;
        if (b->fp16) { /* an FP16 word left the unit: count what it holds */
            u->n_drained += 16;
            kh_f16_word_extremes(b->val[p->first + p->pos - 1], &u->n_saturated, &u->n_nonfinite);
        }
    }
    if (p->pos++ == p->count) {
        p->busy = 0;
        p->last_sent = now;
        p->free_at = now + 1 + KH_CL_PORT_GAP;
        if (b->taken < b->total) *next = p->free_at;
        else kh_cl_kick(u, now + 1); /* the sequencer may be waiting for this */
        return;
    }
    *next = now + 1;
}
