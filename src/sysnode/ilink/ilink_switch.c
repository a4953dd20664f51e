/* The interlink's switch and links (control.md §7.1, §7.6): routing by one
 * comparison, two classes per link (0 stops at the peer, 1 is forwarded by
 * it), per-class credits returned in batches, one flit per cycle per link
 * direction, transit merged round-robin with local egress, and the local
 * ingress that merges both links' class 0 for the inbound processor.
 *
 * A lane is one direction of one link: a lossless FIFO whose flits reach
 * the receiver's buffer ilink_lat cycles after they were sent, and whose
 * credits reach the sender ilink_lat cycles after the receiver freed them.
 * Lanes are the only state two meshes share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysnode/fields.h"
#include "sysnode/ilink/ilink_int.h"

il_lane *kh_ilink_lane_new(kh_ilink *tx, unsigned tx_link, kh_ilink *rx)
{
    il_lane *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->tx = tx;
    l->rx = rx;
    l->tx_link = tx_link;
    for (int c = 0; c < 2; c++) {
        kh_ring_init(&l->q[c], sizeof(il_wflit));
        l->credit[c] = (unsigned)tx->p->ilink_credits; /* the receiver's buffer, issued after reset */
        l->owed_since[c] = KH_NEVER;
    }
    kh_ring_init(&l->crd, sizeof(il_credit));
    return l;
}

void kh_ilink_lane_free(il_lane *l)
{
    if (!l) return;
    kh_ring_free(&l->q[0]);
    kh_ring_free(&l->q[1]);
    kh_ring_free(&l->crd);
    free(l);
}

/* Routing is one comparison (§7.1): up the line to link1, down to link0;
 * class 0 when the peer is the destination. No link on that side: -1. */
void kh_ilink_route(const kh_ilink *il, unsigned d, int *link, int *cls)
{
    unsigned m = il->st.mesh;
    *cls = 0;
    if (d == m) {
        *link = -1;
        return;
    }
    int up = d > m;
    *link = up ? 1 : 0;
    *cls = d != (up ? m + 1 : m - 1);
    if (!il->link[*link].out) *link = -1;
}

static const il_wflit *lane_head(const il_lane *l, unsigned cls, kh_cycle now)
{
    const il_wflit *w = l ? kh_ring_at(&l->q[cls], 0) : NULL;
    return w && w->at <= now ? w : NULL;
}

/* The receiver consumed the head of class cls on its link `link`. */
static void lane_pop(kh_ilink *il, unsigned link, unsigned cls, kh_cycle now)
{
    il_link *k = &il->link[link];
    il_lane *l = k->in;
    const il_wflit *w = kh_ring_at(&l->q[cls], 0);
    if (!w->hdr) k->rx_beats++;
    if (w->last) k->rx_pkts++;
    kh_ring_pop(&l->q[cls]);
    l->owed[cls]++;
    l->owed_since[cls] = now;
}

/* ---- transit (§7.1): a class-1 packet continues on the other link ---- */

static void transit_route(kh_ilink *il, unsigned from, const il_wflit *h, kh_cycle now)
{
    il_link *k = &il->link[from];
    unsigned m = il->st.mesh, d = (unsigned)kh_ilink_hdr_dmesh(h->f.w);
    unsigned to = 1 - from;
    k->fwd_open = 1;
    k->fwd_link = il->link[to].out ? (int)to : -1;
    k->fwd_cls = d != (to ? m + 1 : m - 1);
    if (k->fwd_link < 0) {
        kh_comp_log(&il->c, KH_LOG_WARN,
                    "a packet for mesh %u arrived on link %u needing to be forwarded past the end of the line "
                    "at mesh %u: dropped, fault SWITCH (control.md §7.1, §7.5)", d, from, m);
        kh_ilink_raise(il, KH_ILINK_F_SWITCH, now);
        il->counts.pkts_dropped++;
    }
}

static const il_wflit *transit_head(kh_ilink *il, unsigned from, kh_cycle now)
{
    il_link *k = &il->link[from];
    const il_wflit *w = lane_head(k->in, 1, now);
    if (w && !k->fwd_open) transit_route(il, from, w, now);
    return w;
}

static void transit_popped(kh_ilink *il, unsigned from, const il_wflit *w, kh_cycle now)
{
    il_link *k = &il->link[from];
    int hdr = w->hdr, last = w->last;
    lane_pop(il, from, 1, now);
    k->last_pop = now;
    if (hdr && k->fwd_link >= 0) il->fwd_pkts++;
    if (last) k->fwd_open = 0;
}

/* ---- transmit: one flit per cycle per link ---- */

typedef struct tx_cand {
    const il_wflit *w;
    int src; /* OWN_LOCAL or the transit link */
} tx_cand;

static int local_next(const kh_ilink *il, unsigned link, unsigned cls, kh_cycle now, const il_wflit **w)
{
    const il_pkt *k = &il->pkt;
    if (!il->pkt_valid || k->link != (int)link || k->cls != (int)cls || k->ready > now || k->sent >= k->n)
        return 0;
    *w = &k->fl[k->sent];
    return 1;
}

static tx_cand class_cand(kh_ilink *il, unsigned link, unsigned cls, kh_cycle now)
{
    il_link *k = &il->link[link];
    tx_cand c = {NULL, OWN_NONE};
    unsigned from = 1 - link;
    il_link *t = &il->link[from];
    const il_wflit *lw = NULL, *tw = NULL;
    int lok = local_next(il, link, cls, now, &lw);
    if (t->in) {
        tw = transit_head(il, from, now);
        if (tw && !(t->fwd_open && t->fwd_link == (int)link && t->fwd_cls == (int)cls)) tw = NULL;
    }
    if (k->owner[cls] == OWN_LOCAL) {
        if (lok) c = (tx_cand){lw, OWN_LOCAL};
    } else if (k->owner[cls] == (int)from) {
        if (tw) c = (tx_cand){tw, (int)from};
    } else if (lok && tw) {
        /* round-robin between this mesh's own packet and transit (§7.1) */
        c = k->mux_rr[cls] == OWN_LOCAL ? (tx_cand){tw, (int)from} : (tx_cand){lw, OWN_LOCAL};
    } else if (lok) {
        c = (tx_cand){lw, OWN_LOCAL};
    } else if (tw) {
        c = (tx_cand){tw, (int)from};
    }
    return c;
}

static void send_flit(kh_ilink *il, unsigned link, unsigned cls, tx_cand c, kh_cycle now)
{
    il_link *k = &il->link[link];
    il_lane *l = k->out;
    il_wflit w = *c.w;
    w.cls = (uint8_t)cls;
    w.at = now + il->p->ilink_lat; /* the far buffer holds it ilink_lat cycles later (§7.6) */
    kh_ring_push(&l->q[cls], &w);
    l->credit[cls]--;
    k->tx_flits++;
    if (!w.hdr) k->tx_beats++;
    if (w.hdr) {
        k->mux_rr[cls] = (unsigned)c.src;
        if (kh_sim_trace(il->c.sim)) {
            char args[160];
            snprintf(args, sizeof args,
                     "\"link\": %u, \"class\": %u, \"kind\": %u, \"dmesh\": %u, \"smesh\": %u, \"beats\": %u, "
                     "\"transit\": %d", link, cls, (unsigned)kh_ilink_hdr_kind(w.f.w),
                     (unsigned)kh_ilink_hdr_dmesh(w.f.w), (unsigned)kh_ilink_hdr_smesh(w.f.w),
                     (unsigned)kh_ilink_hdr_len(w.f.w) + 1, c.src != OWN_LOCAL);
            kh_trace_instant(&il->c, "packet out", now, args);
        }
    }
    k->owner[cls] = w.last ? OWN_NONE : c.src;
    if (w.last) k->tx_pkts++;
    k->vc_rr = cls;
    kh_comp_wake(&l->rx->c, w.at);
    if (c.src == OWN_LOCAL) {
        il_pkt *p = &il->pkt;
        p->sent++;
        if (w.hdr) {
            kh_ilink_pkt_hdr_sent(il, now);
            if (il->lblock_since != KH_NEVER) {
                il->lblock += now - il->lblock_since;
                il->lblock_since = KH_NEVER;
            }
        }
        if (w.last) kh_ilink_pkt_sent(il, now);
    } else {
        transit_popped(il, (unsigned)c.src, c.w, now);
    }
}

static int tx_link(kh_ilink *il, unsigned link, kh_cycle now)
{
    il_link *k = &il->link[link];
    if (!k->out) return 0;
    tx_cand cand[2];
    int want = 0, pick = -1;
    for (unsigned c = 0; c < 2; c++) {
        cand[c] = class_cand(il, link, c, now);
        if (cand[c].w) want = 1;
    }
    for (unsigned i = 1; i <= 2 && pick < 0; i++) {
        unsigned c = (k->vc_rr + i) % 2;
        if (cand[c].w && k->out->credit[c] > 0) pick = (int)c;
    }
    /* stall accounting: cycles with a flit to send and no credit for it */
    if (want && pick < 0) {
        if (k->stall_since == KH_NEVER) k->stall_since = now;
    } else if (k->stall_since != KH_NEVER) {
        k->stalled += now - k->stall_since;
        k->stall_since = KH_NEVER;
    }
    if (pick < 0) return 0;
    send_flit(il, link, (unsigned)pick, cand[pick], now);
    return 1;
}

uint32_t kh_ilink_stalled(const kh_ilink *il, unsigned link, kh_cycle now)
{
    const il_link *k = &il->link[link];
    uint64_t s = k->stalled + (k->stall_since != KH_NEVER && now > k->stall_since ? now - k->stall_since : 0);
    return (uint32_t)s;
}

/* A transit packet with no onward link drains into the sink, a flit a cycle. */
static int transit_drop(kh_ilink *il, unsigned from, kh_cycle now)
{
    il_link *k = &il->link[from];
    const il_wflit *w = k->in ? transit_head(il, from, now) : NULL;
    if (!w || k->fwd_link >= 0) return 0;
    transit_popped(il, from, w, now);
    return 1;
}

int kh_ilink_switch_step(kh_ilink *il, kh_cycle now)
{
    int p = 0;
    /* credits that reached this side */
    for (unsigned i = 0; i < 2; i++) {
        il_lane *l = il->link[i].out;
        const il_credit *c;
        while (l && (c = kh_ring_at(&l->crd, 0)) && c->at <= now) {
            l->credit[c->cls] += c->n;
            kh_ring_pop(&l->crd);
            p = 1;
        }
    }
    for (unsigned i = 0; i < 2; i++) p |= transit_drop(il, i, now);
    int had[2];
    for (unsigned i = 0; i < 2; i++) {
        il_link *k = &il->link[i];
        had[i] = k->in && transit_head(il, i, now) && k->fwd_link >= 0;
    }
    for (unsigned i = 0; i < 2; i++) p |= tx_link(il, i, now);
    /* local egress blocked: a header offered and not taken */
    if (il->pkt_valid && il->pkt.link >= 0 && il->pkt.sent == 0 && il->pkt.ready <= now) {
        if (il->lblock_since == KH_NEVER) il->lblock_since = now;
    }
    /* transit blocked: a transit flit that could go and did not this cycle */
    int blocked = (had[0] && il->link[0].last_pop != now) || (had[1] && il->link[1].last_pop != now);
    if (blocked) {
        if (il->fwd_since == KH_NEVER) il->fwd_since = now;
    } else if (il->fwd_since != KH_NEVER) {
        il->fwd_blocked += now - il->fwd_since;
        il->fwd_since = KH_NEVER;
    }
    return p;
}

/* ---- local ingress: class 0 of both links, merged per packet ---- */

const il_wflit *kh_ilink_ingress_head(kh_ilink *il, kh_cycle now, int *from)
{
    if (il->in_owner != OWN_NONE) {
        *from = il->in_owner;
        return lane_head(il->link[il->in_owner].in, 0, now);
    }
    for (unsigned i = 1; i <= 2; i++) {
        unsigned l = (il->in_rr + i) % 2;
        const il_wflit *w = lane_head(il->link[l].in, 0, now);
        if (w) {
            *from = (int)l;
            return w;
        }
    }
    return NULL;
}

void kh_ilink_ingress_pop(kh_ilink *il, int from, kh_cycle now)
{
    const il_wflit *w = kh_ring_at(&il->link[from].in->q[0], 0);
    int last = w->last;
    if (w->hdr) {
        il->in_owner = from;
        il->in_rr = (unsigned)from;
    }
    lane_pop(il, (unsigned)from, 0, now);
    if (last) il->in_owner = OWN_NONE;
}

/* ---- credit returns (receiver side): batches of 4 or after 16 idle cycles ---- */

static int credit_due(const il_lane *l, unsigned c, kh_cycle now)
{
    return l->owed[c] >= IL_CRD_BATCH || (l->owed[c] && now >= l->owed_since[c] + IL_CRD_TIMEOUT);
}

int kh_ilink_credit_step(kh_ilink *il, kh_cycle now)
{
    int p = 0;
    for (unsigned i = 0; i < 2; i++) {
        il_lane *l = il->link[i].in;
        if (!l) continue;
        int pick = -1;
        for (unsigned k = 0; k < 2 && pick < 0; k++) {
            unsigned c = (l->crd_rr + k) % 2;
            if (credit_due(l, c, now)) pick = (int)c;
        }
        if (pick < 0) continue;
        unsigned n = l->owed[pick] > IL_CRD_MAX ? IL_CRD_MAX : l->owed[pick];
        il_credit cr = {now + il->p->ilink_lat, (unsigned)pick, n};
        kh_ring_push(&l->crd, &cr);
        l->owed[pick] -= n;
        l->owed_since[pick] = now;
        l->crd_rr = (unsigned)pick + 1;
        kh_comp_wake(&l->tx->c, cr.at);
        if (credit_due(l, 0, now + 1) || credit_due(l, 1, now + 1)) p = 1;
    }
    return p;
}

kh_cycle kh_ilink_switch_next(const kh_ilink *il, kh_cycle now)
{
    kh_cycle t = KH_NEVER;
    for (unsigned i = 0; i < 2; i++) {
        const il_lane *in = il->link[i].in, *out = il->link[i].out;
        if (in) {
            for (unsigned c = 0; c < 2; c++) {
                const il_wflit *w = kh_ring_at(&in->q[c], 0);
                if (w && w->at > now && w->at < t) t = w->at;
                if (in->owed[c] && in->owed[c] < IL_CRD_BATCH) {
                    kh_cycle a = in->owed_since[c] + IL_CRD_TIMEOUT;
                    if (a > now && a < t) t = a;
                }
            }
        }
        if (out) {
            const il_credit *c = kh_ring_at(&out->crd, 0);
            if (c && c->at > now && c->at < t) t = c->at;
        }
    }
    if (il->pkt_valid && il->pkt.ready > now && il->pkt.ready < t) t = il->pkt.ready;
    return t;
}

int kh_ilink_switch_stuck(kh_ilink *il, char *buf, size_t len, size_t *used, kh_cycle now)
{
    int any = 0;
    if (il->pkt_valid && il->pkt.link >= 0) {
        const il_lane *l = il->link[il->pkt.link].out;
        kh_node_say(buf, len, used,
                    "a packet for mesh %u waits on link %d class %d with %u of %u flits sent and %u credit(s) held "
                    "(credits come back as the peer's buffer drains, control.md §7.6)",
                    il->pkt.dmesh, il->pkt.link, il->pkt.cls, il->pkt.sent, il->pkt.n, l->credit[il->pkt.cls]);
        any = 1;
    }
    for (unsigned i = 0; i < 2; i++) {
        const il_lane *in = il->link[i].in;
        if (!in) continue;
        size_t n1 = kh_ring_count(&in->q[1]);
        if (n1 && lane_head(in, 1, now)) {
            kh_node_say(buf, len, used, "%zu transit flit(s) wait in link %u's forward buffer (control.md §7.1)",
                        n1, i);
            any = 1;
        }
    }
    return any;
}
