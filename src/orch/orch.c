/* The orchestrator as a component: creation, the node's agent hooks, the
 * per-cycle commit of counters (control.md §2.5, §2.6), diagnosis. The
 * register decode is regs.c, the dispatcher dispatch.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/gen/cluster.h" /* dfin, for lane promises (orch_reach.c) */
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "orch/orch_int.h"

unsigned kh_orch_node_index(unsigned x, unsigned y)
{
    uint64_t w = 0;
    kh_orch_prog_dst_set_x(&w, x);
    kh_orch_prog_dst_set_y(&w, y);
    return (unsigned)w;
}

void kh_orch_set_error(kh_orch *o, const char *fmt, ...)
{
    if (o->error[0]) return; /* keep the first */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->error, sizeof o->error, fmt, ap);
    va_end(ap);
    kh_comp_log(&o->comp, KH_LOG_ERROR, "%s", o->error);
}

const char *kh_orch_error(const kh_orch *o) { return o->error[0] ? o->error : NULL; }

kh_comp *kh_orch_comp(kh_orch *o) { return &o->comp; }

/* ---- the per-cycle commit ---------------------------------------------- */

/* Apply the counter changes of the cycle just ended (control.md §2.5, §2.6). */
static void commit_cycle(kh_orch *o)
{
    orch_cycle *c = &o->cyc;
    if (c->at == KH_NEVER) return;
    /* Credit: a seed overrides; word 0 and an INST_COMPLETE in one cycle
     * cancel (§2.5). 16-bit wrap, no saturation. */
    uint16_t was = o->credit;
    if (c->seed)
        o->credit = c->seed_val;
    else
        o->credit = (uint16_t)(o->credit + c->sig0 - c->flit_go);
    if (o->credit != was) kh_trace_counter(&o->comp, "credit", c->at + 1, o->credit); /* seen from the next cycle */
    /* SIG_DONE: a clear and an increment in one cycle leave 0 (§2.6). */
    if (c->clear)
        o->sig_done = 0;
    else
        o->sig_done = (uint16_t)(o->sig_done + c->nsig);
    /* The mirror (§2.6): {code, arg, count + 1, valid}. */
    for (unsigned i = 0; i < c->nsig && i < ORCH_SIG_PER_CYCLE; i++) {
        const kh_flit *f = &c->sig[i];
        unsigned idx = kh_orch_node_index((unsigned)kh_hdr_src_x(f->w), (unsigned)kh_hdr_src_y(f->w));
        uint64_t w = o->node_status[idx];
        uint64_t count = kh_orch_node_status_count(&w) + 1; /* 16-bit wrap: the setter masks */
        kh_orch_node_status_set_code(&w, kh_cu_signal_code(f->w));
        kh_orch_node_status_set_arg(&w, kh_cu_signal_arg(f->w));
        kh_orch_node_status_set_count(&w, count);
        kh_orch_node_status_set_valid(&w, 1);
        o->node_status[idx] = w;
    }
    /* everything before sig[], which is read below nsig alone (its 320
     * bytes of flits are not cleared every cycle) */
    memset(c, 0, offsetof(orch_cycle, sig));
    c->at = KH_NEVER;
}

orch_cycle *kh_orch_cycle(kh_orch *o, kh_cycle now)
{
    if (o->cyc.at != now) {
        commit_cycle(o); /* an older cycle: it has ended */
        o->cyc.at = now;
    }
    return &o->cyc;
}

/* Bring the architectural state to the start of cycle now: commit ended
 * cycles and land the plain part of beats accepted before now. */
void kh_orch_settle(kh_orch *o, kh_cycle now)
{
    if (o->cyc.at != KH_NEVER && o->cyc.at < now) commit_cycle(o);
    for (unsigned i = 0; i < o->nbeats; i++) {
        orch_beat *b = &o->beats[i];
        if (b->at >= now) break; /* beats are kept in cycle order */
        if (!b->landed) {
            kh_orch_land_beat(o, b);
            b->landed = 1;
        }
    }
}

int kh_orch_read_settles(const kh_orch *o, kh_cycle now)
{
    if (o->cyc.at != KH_NEVER && o->cyc.at < now) return 1;
    for (unsigned i = 0; i < o->nbeats && o->beats[i].at < now; i++)
        if (!o->beats[i].landed) return 1;
    return 0;
}

void kh_orch_write(kh_orch *o, uint32_t off, uint64_t data, uint8_t strb, kh_cycle beat)
{
    kh_cycle now = kh_sim_now(o->comp.sim);
    if (beat < now) beat = now;
    off &= 0xFFFF;
    if (off >= KH_ORCH_SLOT && off < KH_ORCH_SLOT + KH_ORCH_SLOT_SIZE) {
        if (o->env.slot_write) o->env.slot_write(o->env.ctx, off - KH_ORCH_SLOT, data, strb, beat);
        return;
    }
    /* Keep the list in cycle order (a host beat may be placed after an
     * engine transaction, control.md §9.3). */
    if (o->nbeats == o->capbeats) {
        unsigned cap = o->capbeats ? 2 * o->capbeats : 64;
        orch_beat *nb = realloc(o->beats, cap * sizeof *nb);
        if (!nb) {
            kh_orch_set_error(o, "out of memory queueing a write beat at 0x%04x", (unsigned)off);
            return;
        }
        o->beats = nb;
        o->capbeats = cap;
    }
    unsigned i = o->nbeats;
    while (i > 0 && o->beats[i - 1].at > beat) {
        o->beats[i] = o->beats[i - 1];
        i--;
    }
    o->beats[i] = (orch_beat){.at = beat, .off = off & 0xFFFF, .data = data, .strb = strb};
    o->nbeats++;
    kh_comp_wake(&o->comp, beat);     /* TX_KICK / RX_POP sample their condition at the beat */
    kh_comp_wake(&o->comp, beat + 1); /* the pulse part acts one cycle after the beat */
}

/* ---- TX FIFO ------------------------------------------------------------ */

int kh_orch_tx_push(kh_orch *o, const kh_flit *f, int mailbox, kh_cycle now)
{
    /* Each TX_KICK samples "TX full" in its own beat's cycle; only the
     * zero-time host lands several beats in one cycle, and then every one
     * of them saw the same free room. A push beyond the FIFO's depth is
     * refused like a kick into a full TX, said, never an abort. */
    if (o->tx.count >= o->tx.cap) {
        kh_comp_log(&o->comp, KH_LOG_WARN,
                    "%s flit dropped: TX FIFO full (tx_depth %u) after earlier pushes in cycle %llu "
                    "(several TX_KICK beats in one cycle: the zero-time host)",
                    mailbox ? "TX_KICK mailbox" : "dispatcher", o->tx.cap, (unsigned long long)now);
        return 0;
    }
    int was_empty = kh_fifo_empty(&o->tx);
    kh_fifo_push(&o->tx, f, now);
    o->tx_mbox[o->tx_pushes++ % o->tx.cap] = (uint8_t)mailbox;
    if (kh_hdr_type(f->w) == KH_T_CU_INST) {
        unsigned idx = kh_orch_node_index((unsigned)kh_hdr_dst_x(f->w), (unsigned)kh_hdr_dst_y(f->w));
        o->note[idx].sent++;
        o->noted[idx / 64] |= UINT64_C(1) << (idx % 64);
        o->note[idx].last_txn = (uint8_t)kh_hdr_txn(f->w);
        o->note[idx].last_last = (uint8_t)kh_hdr_last(f->w);
        if (kh_cluster_dfin(f->w)) o->dfin_to[idx / 64] |= UINT64_C(1) << (idx % 64);
    }
    if (kh_hdr_rsvd_remote(f->w)) o->sent_remote = 1;
    if (was_empty && o->env.ready) o->env.ready(o->env.ctx, kh_fifo_head_ready(&o->tx));
    return 1;
}

const kh_flit *kh_orch_agent_peek(void *ctx, kh_cycle now)
{
    kh_orch *o = ctx;
    return kh_fifo_head(&o->tx, now);
}

void kh_orch_agent_take(void *ctx, kh_cycle now)
{
    kh_orch *o = ctx;
    kh_fifo_pop_done(&o->tx, now); /* the port copied the flit (peek) */
    o->tx_pops++;
    if (!kh_fifo_empty(&o->tx) && o->env.ready) {
        kh_cycle at = kh_fifo_head_ready(&o->tx);
        o->env.ready(o->env.ctx, at > now ? at : now + 1);
    }
    /* Room in the TX FIFO may release a dispatcher waiting for it (§2.4). */
    if (o->run) kh_comp_wake(&o->comp, now + 1);
}

kh_flit_origin kh_orch_agent_origin(void *ctx, kh_cycle now)
{
    kh_orch *o = ctx;
    (void)now;
    return o->tx_mbox[o->tx_pops % o->tx.cap] ? KH_ORIGIN_MAILBOX : KH_ORIGIN_DISPATCH;
}

/* ---- inbound (control.md §2.6, §2.7, §2.10) ----------------------------- */

int kh_orch_agent_accept(void *ctx, unsigned port, const kh_flit *f, kh_cycle now)
{
    kh_orch *o = ctx;
    (void)port;
    int rx_full = kh_fifo_full(&o->rx, now);
    if (kh_hdr_type(f->w) == KH_T_CU_SIGNAL) {
        /* Absorbed, never queued, never refused. Quirk (Open point 9): a
         * signal arriving while RX is full still sets the overflow bit. */
        if (rx_full) o->rx_overflow = 1;
        orch_cycle *c = kh_orch_cycle(o, now);
        if (c->nsig < ORCH_SIG_PER_CYCLE) c->sig[c->nsig] = *f;
        c->nsig++;
        unsigned code = (unsigned)kh_cu_signal_code(f->w);
        if (code == 0x00) c->sig0++; /* only INST_COMPLETE refills (§2.5) */
        if (code == 0x00 || code == 0x01 || code == 0x04) {
            unsigned idx = kh_orch_node_index((unsigned)kh_hdr_src_x(f->w), (unsigned)kh_hdr_src_y(f->w));
            o->note[idx].completed++;
        }
        o->stat_signals++;
        /* The commit happens at the end of now; a dispatcher waiting for
         * credit looks again in the next cycle. */
        kh_comp_wake(&o->comp, now + 1);
        return 1;
    }
    if (rx_full) {
        o->rx_overflow = 1;
        o->stat_rx_dropped++;
        return 0;
    }
    kh_fifo_push(&o->rx, f, now);
    o->stat_rx++;
    /* Nothing acts on the head, but the machine is not quiescent until it
     * is visible: RX_STATUS changes then. */
    kh_comp_wake(&o->comp, now + o->rx.latency);
    return 1;
}

/* ---- the component ------------------------------------------------------ */

static void orch_step(kh_comp *c, kh_cycle now)
{
    kh_orch *o = (kh_orch *)c;
    kh_orch_settle(o, now);
    /* Beats accepted now sample the start-of-cycle state their pulse
     * depends on (TX_KICK: run and TX full; RX_POP: RX not empty). */
    for (unsigned i = 0; i < o->nbeats; i++)
        if (o->beats[i].at == now) kh_orch_decide_beat(o, &o->beats[i], now);
    /* Pulses of beats accepted in now-1 act now, in beat order. */
    unsigned keep = 0;
    for (unsigned i = 0; i < o->nbeats; i++) {
        orch_beat *b = &o->beats[i];
        if (b->at + 1 <= now) {
            if (!b->landed) kh_orch_land_beat(o, b);
            if (b->off == KH_ORCH_TX_KICK && b->strb) {
                /* Mailbox push (§2.7): ignored if a dispatch ran or TX was
                 * full in the beat's cycle; lost if the dispatcher pushes in
                 * this very cycle (Open point 5). */
                if (!b->ok) continue;
                if (o->push_at == now) {
                    o->stat_mailbox_lost++;
                    kh_comp_log(c, KH_LOG_WARN,
                                "TX_KICK collided with the dispatcher's final push: the mailbox flit is lost "
                                "(control.md §2.2 Open point 5)");
                    continue;
                }
                kh_flit f;
                memcpy(f.w, o->tx_word, sizeof f.w);
                kh_flit_trim(&f); /* flits.md §8: word 4 bits [63:32] ignored */
                if (kh_orch_tx_push(o, &f, 1, now))
                    o->stat_mailbox++;
                else
                    o->stat_mailbox_lost++;
            } else {
                kh_orch_act_beat(o, b, now);
            }
        } else {
            o->beats[keep++] = *b;
        }
    }
    o->nbeats = keep;
    kh_orch_dispatch_step(o, now);
}

static int orch_describe_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_orch *o = (kh_orch *)c;
    kh_cycle now = kh_sim_now(c->sim);
    kh_orch_settle(o, now);
    size_t n = 0;
    int stuck = 0;
    buf[0] = 0;
    if (o->run || o->push_at != KH_NEVER) {
        kh_orch_dispatch_stuck(o, buf, len, &n);
        stuck = 1;
    }
    unsigned txn = kh_fifo_used(&o->tx, now);
    if (txn) {
        kh_bufcat(buf, len, &n,
                  "%s%u flit(s) in the TX FIFO wait for the node to take them (control.md §2.10)",
                  stuck ? "; " : "", txn);
        stuck = 1;
    }
    return stuck;
}

static void orch_stats(kh_comp *c, char *buf, size_t len)
{
    kh_orch *o = (kh_orch *)c;
    snprintf(buf, len,
             "\"dispatched\": %llu, \"mailbox_sent\": %llu, \"mailbox_lost\": %llu, \"signals\": %llu, "
             "\"rx\": %llu, \"rx_dropped\": %llu, \"credit_stall_cycles\": %llu, \"tx_high_water\": %u, "
             "\"rx_high_water\": %u",
             (unsigned long long)o->stat_dispatched, (unsigned long long)o->stat_mailbox,
             (unsigned long long)o->stat_mailbox_lost, (unsigned long long)o->stat_signals,
             (unsigned long long)o->stat_rx, (unsigned long long)o->stat_rx_dropped,
             (unsigned long long)o->stat_credit_stall, o->tx.high_water, o->rx.high_water);
}

static void orch_destroy(kh_comp *c)
{
    kh_orch *o = (kh_orch *)c;
    kh_fifo_free(&o->tx);
    kh_fifo_free(&o->rx);
    free(o->tx_mbox);
    free(o->stage);
    free(o->beats);
    free(o);
}

static const kh_comp_ops orch_ops = {
    .ckpt = kh_orch_ckpt,
    .kind = "orchestrator",
    .step = orch_step,
    .describe_stuck = orch_describe_stuck,
    .stats_json = orch_stats,
    .destroy = orch_destroy,
};

kh_orch *kh_orch_new(kh_sim *sim, const kh_orch_cfg *cfg, const kh_orch_env *env, char *err,
                     size_t errlen)
{
    const kh_params *p = kh_sim_params(sim);
    if (p->stage_flits == 0 || p->stage_flits > 13107) {
        snprintf(err, errlen, "stage_flits=%llu: the staging RAM needs 1..13107 slots so its window "
                 "[0x2000, 0x2000 + 40*slots) fits the 64 KiB control window (control.md §2.3)",
                 (unsigned long long)p->stage_flits);
        return NULL;
    }
    if (p->tx_depth < 2 || p->rx_depth < 1) {
        snprintf(err, errlen, "tx_depth=%llu rx_depth=%llu: the dispatcher needs a TX FIFO of at least 2 "
                 "(control.md §2.4) and RX at least 1",
                 (unsigned long long)p->tx_depth, (unsigned long long)p->rx_depth);
        return NULL;
    }
    kh_orch *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, errlen, "out of memory creating the orchestrator");
        return NULL;
    }
    o->cfg = *cfg;
    if (env) o->env = *env;
    o->stage_words = 5 * (unsigned)p->stage_flits;
    o->ptr_mod = 1;
    while (o->ptr_mod < o->stage_words) o->ptr_mod <<= 1;
    o->stage = calloc(o->stage_words, sizeof *o->stage);
    o->tx_depth = (unsigned)p->tx_depth;
    o->older_rtl = (int)p->dispatch_older_rtl;
    unsigned lat = p->fifo_latency ? (unsigned)p->fifo_latency : 1;
    unsigned extra = (unsigned)p->fifo_extra_cap;
    if (!o->stage || kh_fifo_init(&o->tx, o->tx_depth + extra, lat) ||
        kh_fifo_init(&o->rx, (unsigned)p->rx_depth + extra, lat) || !(o->tx_mbox = calloc(o->tx.cap, 1))) {
        free(o->stage);
        free(o->tx_mbox);
        kh_fifo_free(&o->tx);
        kh_fifo_free(&o->rx);
        free(o);
        snprintf(err, errlen, "out of memory creating the orchestrator");
        return NULL;
    }
    o->push_at = KH_NEVER;
    o->kick_at = KH_NEVER;
    o->stall_since = KH_NEVER;
    o->cyc.at = KH_NEVER;
    char name[48];
    snprintf(name, sizeof name, "orch(%u,%u)", cfg->x, cfg->y);
    kh_sim_add(sim, &o->comp, &orch_ops, name);
    return o;
}

/* ---- hints for a host that waits in vain -------------------------------- */

int kh_orch_explain(kh_orch *o, char *buf, size_t len)
{
    kh_cycle now = kh_sim_now(o->comp.sim);
    kh_orch_settle(o, now);
    int hints = 0;
    size_t n = 0;
    buf[0] = 0;
    /* asked after every `idle`: only the nodes ever sent to, in index order */
    for (unsigned wi = 0; wi < ORCH_NODES / 64; wi++) {
        for (uint64_t bits = o->noted[wi]; bits; bits &= bits - 1) {
            unsigned idx = wi * 64 + (unsigned)__builtin_ctzll(bits);
            const orch_node_note *nn = &o->note[idx];
            if (!nn->sent) continue; /* 2^32 sends wrapped the count */
            uint64_t w = idx;
            unsigned x = (unsigned)kh_orch_prog_dst_x(&w), y = (unsigned)kh_orch_prog_dst_y(&w);
            if (nn->completed < nn->sent) {
                kh_bufcat(buf, len, &n,
                          "%s: node (%u,%u) was sent %u instruction(s) and returned %u completion(s): "
                          "%u not retired yet (control.md §5.4: exactly one completion per "
                          "instruction; a unit that never raises exec_done holds its credit)\n",
                          o->comp.name, x, y, nn->sent, nn->completed, nn->sent - nn->completed);
                hints++;
            } else if (!nn->last_last) {
                kh_bufcat(buf, len, &n,
                          "%s: node (%u,%u) retired everything it was sent, but the last instruction "
                          "(txn 0x%02x) had last = 0, so no BATCH_COMPLETE follows: set `last` on the "
                          "final instruction of a program (instruction-encoding §3, control.md §4 step 2)\n",
                          o->comp.name, x, y, nn->last_txn);
                hints++;
            }
        }
    }
    return hints;
}
