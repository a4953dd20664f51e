/* mx_cluster_cu GEMM: the sweep of the operands into the resident tile
 * (cluster.md §5) — its arithmetic (numerics.md §4-§7 through num.h) and its
 * schedule (§5.2 pacing, §10 latencies, the drain-queue hold of §1). */
#include <stdlib.h>
#include <string.h>

#include "cu/units/cluster/cluster_int.h"

/* §5.2: idle cycles after every issue when nk' > 1 and gm'·gn' < 5, so that
 * consecutive commands to one tile address stay REUSE_MIN apart. */
static unsigned pace(unsigned gm, unsigned gn, unsigned nk)
{
    unsigned sub = gm * gn;
    if (nk <= 1 || sub >= KH_CL_REUSE_MIN) return 0;
    return sub == 1 ? 4 : sub == 2 ? 2 : 1;
}

/* Does the emitting GEMM produce granules? With acc = 0 and nk' = 1 the only
 * K block is a LOAD and LOAD wins: nothing is emitted (§5.1). */
static unsigned emitted_granules(const kh_cl_inst *in)
{
    unsigned gm = kh_cl_or1(in->gm), gn = kh_cl_or1(in->gn), nk = kh_cl_or1(in->nk);
    if (!in->emit || (nk == 1 && !in->acc)) return 0;
    return gm * gn;
}

/* The FP16 word of one sub-tile (numerics §7): element 4i+j at bits
 * [16(4i+j)+15 : 16(4i+j)]. */
static void fp16_granule(const uint32_t v[16], unsigned mw, uint64_t out[4]) { kh_acc_to_f16_word(v, mw, out); }

/* The first ADD of a sweep into a sub-tile never LOADed warns (once). */
static void warn_unloaded(kh_cluster *u, unsigned t, int *warned)
{
    if (u->loaded[t] || *warned) return;
    *warned = 1;
    kh_cl_warn(u, "GEMM adds into sub-tile %u that was never LOADed: its content is "
                  "undefined in hardware, modelled as zero (cluster.md §3, Open point 8)", t);
}

/* §5.1 in its sequential form: K block outermost, then g, then h. Each
 * command multiplies one A entry by one B entry exactly (numerics §4),
 * applies the two scale bytes and the anchor (§5) and LOADs or ADDs the 16
 * results into sub-tile (g·gn' + h) mod TILES (§6). emit_out, if not NULL,
 * receives the FP16 word of every ADD_EMIT of the last K block at index
 * G = g·gn' + h. Pure arithmetic: no timing, no flits. */
void kh_cl_sweep_compute(kh_cluster *u, const kh_cl_inst *in, uint64_t (*emit_out)[4])
{
    const unsigned gm = kh_cl_or1(in->gm), gn = kh_cl_or1(in->gn), nk = kh_cl_or1(in->nk);
    const unsigned mw = u->mw, tmask = u->tiles - 1, anchor = in->anchor;
    int warned = 0;
    for (unsigned kb = 0; kb < nk; kb++) {
        const int load = kb == 0 && !in->acc;
        const int emit = in->emit && !load && kb == nk - 1;
        for (unsigned g = 0; g < gm; g++) {
            const kh_mx_entry *a = &u->l1a[kh_cl_l1ix(in->abank, in->aoff + g * nk + kb, u->ga)];
            if (!load && gn <= u->tiles) {
                /* ADDs of one A against the row's B entries in one strip: with
                 * gn' <= TILES the sub-tiles (g·gn' + h) mod TILES are distinct,
                 * so each emit after the strip reads its own add's result, and
                 * the never-LOADed check sees the sub-tiles in the same order */
                const kh_mx_entry *bs[256];
                uint32_t *ts[256];
                for (unsigned h = 0; h < gn; h++) {
                    const unsigned t = (g * gn + h) & tmask;
                    warn_unloaded(u, t, &warned);
                    bs[h] = &u->l1b[kh_cl_l1ix(in->bbank, in->boff + h * nk + kb, u->gb)];
                    ts[h] = u->tile[t];
                }
                kh_mx_kernels_accumulate_strip(&u->mx, a, bs, gn, anchor, mw, ts);
                if (emit && emit_out)
                    for (unsigned h = 0; h < gn; h++) fp16_granule(ts[h], mw, emit_out[g * gn + h]);
                continue;
            }
            for (unsigned h = 0; h < gn; h++) {
                const kh_mx_entry *b = &u->l1b[kh_cl_l1ix(in->bbank, in->boff + h * nk + kb, u->gb)];
                const unsigned t = (g * gn + h) & tmask;
                uint32_t *tv = u->tile[t];
                const unsigned t1 = (g * gn + h + 1) & tmask;
                if (!load && h + 1 < gn && t1 != t) {
                    /* two ADDs into two distinct sub-tiles side by side: neither reads
                     * the other's tile, so the results and emits are those of the
                     * sequential order */
                    const kh_mx_entry *b1 = &u->l1b[kh_cl_l1ix(in->bbank, in->boff + (h + 1) * nk + kb, u->gb)];
                    warn_unloaded(u, t, &warned);
                    warn_unloaded(u, t1, &warned);
                    kh_mx_kernels_accumulate2(&u->mx, a, b, b1, anchor, mw, tv, u->tile[t1]);
                    if (emit && emit_out) {
                        fp16_granule(tv, mw, emit_out[g * gn + h]);
                        fp16_granule(u->tile[t1], mw, emit_out[g * gn + h + 1]);
                    }
                    h++;
                    continue;
                }
                if (load) {
                    /* LOAD = add(forced zero, chain): the chain verbatim, 0 if its E is 0 */
                    uint32_t chain[16];
                    kh_mx_kernels_chain(&u->mx, a, b, anchor, mw, chain);
                    kh_acc_load16(chain, mw, tv);
                    u->loaded[t] = 1;
                } else {
                    warn_unloaded(u, t, &warned);
                    kh_mx_kernels_accumulate(&u->mx, a, b, anchor, mw, tv); /* ADD / ADD_EMIT */
                }
                if (emit && emit_out) fp16_granule(tv, mw, emit_out[g * gn + h]);
            }
        }
    }
    u->n_cmds += (uint64_t)gm * gn * nk;
    u->n_macs += (uint64_t)gm * gn * nk * 512u;
}

/* §5.3 start conditions, seen at the start of cycle now. *retry gets the
 * cycle a timed condition clears (KH_NEVER if only an event can clear it). */
int kh_cl_sweep_can_start(kh_cluster *u, kh_cycle now, kh_cycle *retry)
{
    const kh_cl_inst *in = &u->in;
    kh_cycle t = u->accepted + KH_CL_GEMM_MIN_WAIT;
    unsigned sub = kh_cl_or1(in->gm) * kh_cl_or1(in->gn);
    /* Back-to-back sweeps (older RTL mx_cluster_cu S_GEMM; docs/timing.md
     * "Cluster"): the start is registered one cycle after the busy it waits
     * for falls. A small sweep could meet the previous one's last commands
     * inside the reuse distance, so it waits for the node's gemm_busy: the
     * cascade and the accumulator, whose busy_tail (mx_acu_fp) stays up
     * REUSE_MIN cycles past its last command. A wide one waits for the
     * manager only, whose `pending` still counts every command in the
     * cascade. */
    kh_cycle prev = 0;
    if (sub < KH_CL_REUSE_MIN) {
        if (u->acc_idle_at) prev = u->acc_idle_at + KH_CL_REUSE_MIN + 1;
    } else if (u->n_gemm) {
        prev = u->sw.chain_out + 1;
    }
    if (prev > t) t = prev;
    *retry = KH_NEVER;
    if (now < t) {
        *retry = t;
        return 0;
    }
    if (u->rx.open && u->rx.accept && u->rx.buf == KH_CL_BUF_PEER) return 0; /* §7 peer stream */
    if (in->emit && kh_cl_batch_outstanding(u)) return 0; /* previous batch still being written */
    return 1;
}

/* Mark the L1 slots a sweep reads (§5.4 hazard tracking). */
static void mark_reads(const kh_cl_inst *in, unsigned size, unsigned bank, unsigned off,
                       unsigned groups, uint8_t *flags)
{
    unsigned nk = kh_cl_or1(in->nk);
    memset(flags, 0, size);
    for (unsigned x = 0; x < groups * nk && x < 256; x++) flags[kh_cl_l1ix(bank, off + x, size)] = 1;
}

/* The sweep starts in cycle now: compute it, schedule its commands, and
 * (emit) open the emission batch of §6.3 with every granule's arrival in the
 * drain queue. */
void kh_cl_sweep_start(kh_cluster *u, kh_cycle now)
{
    const kh_cl_inst *in = &u->in;
    const unsigned gm = kh_cl_or1(in->gm), gn = kh_cl_or1(in->gn), nk = kh_cl_or1(in->nk);
    const unsigned cmds = gm * gn * nk, step = 1 + pace(gm, gn, nk);
    const unsigned res_lat = u->l1_lat + u->chain_lat + u->acc_lat;
    const unsigned total = emitted_granules(in);
    kh_cl_sweep *sw = &u->sw;

    if (in->anchor != KH_CL_ANCHOR)
        kh_cl_log_lint(u, "GEMM anchor=%u: only 40 (= 2·SBIAS) gives correct values; other anchors "
                          "wrap the exponent (numerics.md §5, Open point 2)", in->anchor);
    if (gm * gn > u->tiles)
        kh_cl_warn(u, "GEMM gm'·gn' = %u exceeds TILES = %u: sub-tiles alias (cluster.md §5.1)",
                   gm * gn, u->tiles);

    if (in->emit) {
        u->batch.fused = 1;
        u->batch.fp16 = 1;
        if (kh_cl_batch_reserve(u, total)) {
            kh_cl_warn(u, "GEMM emit: no memory for %u granules; the emission is dropped", total);
            kh_cl_sweep_compute(u, in, NULL);
            kh_cl_older_sweep(u, in);
        } else {
            kh_cl_sweep_compute(u, in, u->batch.val);
            if (kh_cl_older_sweep(u, in)) kh_cl_older_drain(u, in, total, total);
        }
        u->fused_pending = 1;
        u->fused_w = u->W;
        u->fused_total = total;
    } else {
        kh_cl_sweep_compute(u, in, NULL);
        kh_cl_older_sweep(u, in);
    }

    /* The schedule. Command c issues at now + c·step unless an emitting
     * sweep is held by the drain queue (>= 112 granules outstanding): then
     * granule G waits until granule G - 112 has left through the write port,
     * whose pace is estimated here at one descriptor + 8 data + the gap per
     * burst (the real port may lag behind a busy shell). */
    kh_cycle issue = now, last = now;
    if (total) {
        unsigned first_emit = (nk - 1) * gm * gn; /* index of the first ADD_EMIT */
        kh_cycle *sent = malloc((size_t)total * sizeof *sent);
        kh_cycle port_free = 0;
        unsigned burst_first = 0;
        issue = now + (kh_cycle)first_emit * step;
        for (unsigned g = 0; g < total; g++) {
            if (g) issue += step;
            if (sent && g >= KH_CL_QHOLD && issue < sent[g - KH_CL_QHOLD] + 1)
                issue = sent[g - KH_CL_QHOLD] + 1;
            u->batch.avail[g] = issue + res_lat + KH_CL_CONV_LAT;
            /* the port closes bursts at G = 0, 8, 16, ... (§6.4, Open point 5) */
            if (sent && (g + 1 == total || (g + 1) % KH_CL_WBURST == 0)) {
                kh_cycle d = u->batch.avail[g] > port_free ? u->batch.avail[g] : port_free;
                for (unsigned k = burst_first; k <= g; k++) sent[k] = d + 1 + (k - burst_first);
                port_free = d + 1 + (g - burst_first) + 1 + KH_CL_PORT_GAP;
                burst_first = g + 1;
            }
        }
        free(sent);
        last = issue;
    } else {
        last = now + (kh_cycle)(cmds - 1) * step;
    }
    sw->cmds = cmds;
    sw->step = step;
    sw->first = now;
    sw->issue_end = last + 1;
    sw->idle_at = last + res_lat;
    sw->chain_out = last + u->l1_lat + u->chain_lat + 1;
    if (sw->idle_at > u->acc_idle_at) u->acc_idle_at = sw->idle_at;
    kh_cu_computing(u->cu, "sweep", now, sw->issue_end);
    mark_reads(in, u->ga, in->abank, in->aoff, gm, sw->reads_a);
    mark_reads(in, u->gb, in->bbank, in->boff, gn, sw->reads_b);
    u->n_gemm++;
}

/* §5.4: a FILL that lands on L1 entries a running sweep still reads corrupts
 * sub-tiles silently in hardware; the sequential model cannot see it. */
void kh_cl_fill_hazard(kh_cluster *u, const kh_cl_inst *in, kh_cycle now)
{
    if (now >= u->sw.issue_end) return;
    const uint8_t *reads = in->sel ? u->sw.reads_b : u->sw.reads_a;
    unsigned size = in->sel ? u->gb : u->ga, n = kh_cl_or1(in->n);
    for (unsigned e = 0; e < n && e < 256; e++) {
        unsigned slot = kh_cl_l1ix(in->fbank, in->eoff + e, size);
        if (reads[slot]) {
            kh_cl_warn(u, "FILL sel=%u writes L1 %s entry %u while the running sweep still reads it "
                          "(until cycle %llu): results are corrupt in hardware (cluster.md §5.4)",
                       in->sel, in->sel ? "B" : "A", slot, (unsigned long long)u->sw.issue_end);
            return;
        }
    }
}

