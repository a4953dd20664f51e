/* One XY router (mesh.md §3-§5), stepped as docs/design.md "Router timing":
 *
 *   phase 1  every output register holding a flit placed before this cycle
 *            offers it downstream (kh_link_send);
 *   phase 2  every output whose register is free (or was freed in phase 1)
 *            grants the first requesting input slot in the order p, p+1, ...
 *            with p = now mod 5 (the pointer advances every cycle);
 *   phase 3  every empty (or just emptied) input slot loads its FIFO head if
 *            it is visible, computing its output direction.
 *
 * The router is stepped only when it has work: a visible FIFO head, a slot
 * that can be granted or a register that can be offered. A register refused
 * downstream sleeps until the receiver's kh_link_space() wakes the router. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/ckpt.h"
#include "kohaku/gen/flit.h"
#include "noc/router_int.h"

static unsigned lowest(unsigned bits) { return (unsigned)__builtin_ctz(bits); }

/* first_from[p][m]: the first input of the set m in the order p, p+1, ...
 * (mod 5): the round-robin winner of mesh.md §5, one lookup per grant */
const uint8_t kh_router_first_from[KH_NDIRS][32] = {
    {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 4, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0},
    {0, 0, 1, 1, 2, 2, 1, 1, 3, 3, 1, 1, 2, 2, 1, 1, 4, 4, 1, 1, 2, 2, 1, 1, 3, 3, 1, 1, 2, 2, 1, 1},
    {0, 0, 1, 0, 2, 2, 2, 2, 3, 3, 3, 3, 2, 2, 2, 2, 4, 4, 4, 4, 2, 2, 2, 2, 3, 3, 3, 3, 2, 2, 2, 2},
    {0, 0, 1, 0, 2, 0, 1, 0, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3},
    {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
};

/* The output slot i's flit requests (diagnosis only: req is the hot form). */
static unsigned slot_dir(const kh_router *r, unsigned i)
{
    for (unsigned o = 0; o < KH_NDIRS; o++)
        if (r->req[o] >> i & 1) return o;
    return KH_NDIRS;
}

/* Legal XY routing never requests a masked turn (mesh.md §3); the RTL would
 * hang the input forever. Under XY this is a simulator bug, not bad input;
 * a routing policy that asks for one has the flit dropped (returns 1). */
static int masked_turn(kh_router *r, unsigned in, unsigned out, const kh_flit *f)
{
    if (r->policy) {
        r->masked++;
        kh_comp_log(&r->comp, KH_LOG_ERROR,
                    "the routing policy sends input %s to masked output %s for dst (%u,%u): the flit is dropped "
                    "(mesh.md §3 turn masks)",
                    kh_dir_name(in), kh_dir_name(out), (unsigned)kh_hdr_dst_x(f->w), (unsigned)kh_hdr_dst_y(f->w));
        return 1;
    }
    kh_comp_log(&r->comp, KH_LOG_ERROR,
                "input %s requests masked output %s for dst (%u,%u): routing invariant broken "
                "(mesh.md §3 turn masks)",
                kh_dir_name(in), kh_dir_name(out), (unsigned)kh_hdr_dst_x(f->w),
                (unsigned)kh_hdr_dst_y(f->w));
    abort();
}

static void log_first_drop(kh_router *r, unsigned o)
{
    kh_link *l = r->out_link[o];
    r->unlogged &= (uint8_t)~(1u << o);
    kh_comp_log(&r->comp, KH_LOG_WARN,
                "flit for dst (%u,%u) sent out %s into a tied-off port (%s): accepted and "
                "dropped (mesh.md §2); further drops on this link are only counted",
                (unsigned)kh_hdr_dst_x(r->out[o].w), (unsigned)kh_hdr_dst_y(r->out[o].w),
                kh_dir_name(o), l->name);
}

int kh_router_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    return kh_router_take((kh_router *)dst, port, f, now);
}

/* Phase 1's offer of output o into the router d behind it: kh_noc_send
 * with the receiver known (set once in kh_router_set_out). */
static int send_down(kh_router *d, unsigned port, kh_link *l, const kh_flit *f, kh_cycle now)
{
    if (l->last_xfer == now) return 0;
    if (!kh_router_take(d, port, f, now)) {
        /* kh_link_refused, its two tests selects (coin tosses under load) */
        kh_cycle since = l->blocked_since;
        l->blocked_since = since == KH_NEVER ? now : since;
        kh_comp *src = l->src;
        if (src) kh_comp_wake_next_if(src, now, l->space_from == now + 1);
        return 0;
    }
    kh_noc_taken(l, f, now);
    return 1;
}

/* kh_link_space for the link into an input, from the router's step of now
 * (so now + 1 is within the wheel): whether the sender waits is a coin toss
 * under load, so its wake is a masked store, not a branch. */
static inline void space_in(kh_link *in, kh_cycle now)
{
    in->space_from = now + 1;
    kh_comp *src = in->src;
    if (src) kh_comp_wake_next_if(src, now, in->blocked_since != KH_NEVER);
}

static void router_step(kh_comp *c, kh_cycle now)
{
    kh_router *r = (kh_router *)c;
    unsigned out_full = r->out_full, blocked = 0;

    /* phase 1: offer every register placed before now */
    for (unsigned first = out_full & r->unlogged; first; first &= first - 1)
        log_first_drop(r, lowest(first));
    for (unsigned outs = out_full; outs; outs &= outs - 1) {
        unsigned o = lowest(outs);
        kh_router *d = r->down[o];
        if (d ? send_down(d, r->down_port[o], r->out_link[o], &r->out[o], now)
              : kh_noc_send(r->out_link[o], &r->out[o], now))
            out_full &= ~(1u << o);
        else
            blocked |= 1u << o;
    }
    /* a refused output and the event engine's hops do not mix: those
     * become the router's own, as of the start of this cycle */
    if (blocked && r->vused) kh_router_vconvert(r, now, 1);

    /* phase 2: each free output grants the first requesting input in the
     * order p, p+1, ... (p = now mod 5) */
    unsigned slot_full = r->slot_full, reqd = r->reqd;
    unsigned grant = reqd & ~out_full;
    if (grant) {
        const uint8_t *first = kh_router_first_from[now % KH_NDIRS];
        unsigned n = 0;
        out_full |= grant; /* every one of them has a requester */
        for (; grant; grant &= grant - 1, n++) {
            unsigned o = lowest(grant), req = r->req[o];
            unsigned i = first[req];
            r->out[o] = *r->slot[i];
            req &= ~(1u << i);
            r->req[o] = (uint8_t)req;
            reqd &= ~((unsigned)!req << o);
            slot_full &= ~(1u << i);
        }
        r->hops += n;
    }

    /* phase 3: empty slots load their visible FIFO heads; before
     * scan_from only the slots freed just now can find one */
    kh_cycle next = KH_NEVER;
    unsigned nonempty = r->nonempty, load = nonempty & ~slot_full;
    int all = now >= r->scan_from;
    load &= all ? ~0u : r->slot_full;
    for (; load; load &= load - 1) {
        unsigned i = lowest(load);
        kh_fifo *q = &r->in[i];
        kh_cycle t = q->ent[q->head].ready; /* kh_fifo_head_ready: nonempty says count > 0 */
        if (t > now) {
            if (t < next) next = t;
            continue;
        }
        /* kh_fifo_pop, knowing that this is the input's only pop in now
         * (one step per cycle, one load per input per step) */
        const kh_flit *h = &q->ent[q->head].f; /* kept in the ring: no copy */
        if (++q->head == q->size) q->head = 0;
        unsigned left = --q->count;
        q->pop_cycle = now; /* pops stays 1 (kh_router_new) */
        nonempty &= ~((unsigned)!left << i);
        unsigned dir = r->route[kh_hdr_dst_xy(h->w)];
        if (!(r->allow[i] >> dir & 1) && masked_turn(r, i, dir, h)) { /* dropped: look at the next head */
            if (left && now + 1 < next) next = now + 1;
            if (r->in_link[i]) space_in(r->in_link[i], now);
            continue;
        }
        r->slot[i] = h;
        r->req[dir] |= (uint8_t)(1u << i);
        reqd |= 1u << dir;
        slot_full |= 1u << i;
        kh_link *in = r->in_link[i];
        if (in) space_in(in, now);
    }
    r->nonempty = (uint8_t)nonempty;
    r->scan_from = all || next < r->scan_from ? next : r->scan_from;
    r->slot_full = (uint8_t)slot_full;
    r->out_full = (uint8_t)out_full;
    r->reqd = (uint8_t)reqd;

    /* next step: a register not refused is offered next cycle; a slot is
     * granted next cycle unless its output was refused (the receiver's
     * kh_link_space wakes us then); an empty slot waits for its FIFO head
     * (the FIFO behind a full slot matters once the slot drains) */
    if ((out_full | reqd) & ~blocked)
        kh_comp_wake_next(c, now);
    else if (r->scan_from != KH_NEVER)
        kh_comp_wake(c, r->scan_from);
}

static int router_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_router *r = (kh_router *)c;
    size_t o = 0;
    int any = 0;
    if (len) buf[0] = '\0';
    for (unsigned d = 0; d < KH_NDIRS; d++) {
        if (r->out_full >> d & 1) {
            any = 1;
            kh_bufcat(buf, len, &o,
                      "%s: output %s holds a flit for dst (%u,%u); %s is busy "
                      "(mesh.md §4: the sender holds until !busy)\n",
                      c->name, kh_dir_name(d), (unsigned)kh_hdr_dst_x(r->out[d].w),
                      (unsigned)kh_hdr_dst_y(r->out[d].w), r->out_link[d]->name);
        }
        if (r->slot_full >> d & 1) {
            any = 1;
            kh_bufcat(buf, len, &o,
                      "%s: input %s slot waits for output %s (mesh.md §5 head-of-line)\n",
                      c->name, kh_dir_name(d), kh_dir_name(slot_dir(r, d)));
        }
        if (!kh_fifo_empty(&r->in[d])) {
            any = 1;
            kh_bufcat(buf, len, &o,
                      "%s: input %s FIFO holds %u flits behind its slot (mesh.md §5)\n",
                      c->name, kh_dir_name(d), r->in[d].count);
        }
    }
    return any;
}

static void router_stats(kh_comp *c, char *buf, size_t len)
{
    kh_router *r = (kh_router *)c;
    size_t o = strlen(buf);
    kh_bufcat(buf, len, &o,
              "\"x\":%u,\"y\":%u,\"hops\":%llu,\"fifo_depth\":%u,\"fifo_high_water\":{",
              r->x, r->y, (unsigned long long)r->hops, r->in[0].cap);
    for (unsigned d = 0; d < KH_NDIRS; d++)
        kh_bufcat(buf, len, &o, "%s\"%s\":%u", d ? "," : "", kh_dir_name(d), r->in[d].high_water);
    kh_bufcat(buf, len, &o, "}");
}

static void router_destroy(kh_comp *c)
{
    kh_router *r = (kh_router *)c;
    for (unsigned d = 0; d < KH_NDIRS; d++) kh_fifo_free(&r->in[d]);
    free(r->vh);
    free(r);
}

/* While tracing: the input FIFOs' occupancy as counter tracks, sampled
 * whenever a link of the router carries a flit (a push is such a transfer;
 * a pop is seen at the next one), so the hot path pays nothing. */
static void router_traced(kh_comp *c, kh_cycle now)
{
    static const char *const name[KH_NDIRS] = {"fifo N", "fifo E", "fifo S", "fifo W", "fifo L"};
    kh_router *r = (kh_router *)c;
    for (unsigned d = 0; d < KH_NDIRS; d++) {
        unsigned n = kh_fifo_used(&r->in[d], now + 1); /* with this cycle's pops and pushes */
        if (n == r->traced_count[d]) continue;
        r->traced_count[d] = (uint16_t)n;
        kh_trace_counter(c, name[d], now, n);
    }
}

/* Checkpoints (docs/checkpoint.md): the save settles the event engine's
 * hops first (kh_sim_settle: a run's end leaves them in place), so the
 * state is the per-cycle router's. A slot points into its FIFO's ring: kept as the
 * entry's index with the flit it holds. */
static void router_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_router *r = (kh_router *)c;
    if (!kh_ck_loading(ck) && (r->vused || r->conv.queued)) {
        kh_ck_fail(ck, "%s: the event engine's hops are not settled", c->name);
        return;
    }
    KH_CK(ck, r->slot_full);
    KH_CK(ck, r->out_full);
    KH_CK(ck, r->nonempty);
    KH_CK(ck, r->unlogged);
    KH_CK(ck, r->reqd);
    KH_CK_ARR(ck, r->req, KH_NDIRS);
    KH_CK(ck, r->hops);
    KH_CK(ck, r->scan_from);
    KH_CK(ck, r->masked);
    KH_CK_ARR(ck, r->traced_count, KH_NDIRS);
    for (unsigned d = 0; d < KH_NDIRS && !kh_ck_failed(ck); d++) {
        kh_ck_fifo(ck, &r->in[d]);
        kh_fifo_ent *e = (kh_fifo_ent *)kh_ck_index(ck, (void *)(uintptr_t)r->slot[d], r->in[d].ent,
                                                    sizeof *r->in[d].ent, r->in[d].size, "a slot's entry");
        if (e) kh_ck_flit(ck, &e->f);
        if (kh_ck_loading(ck)) r->slot[d] = e ? &e->f : NULL;
        kh_ck_flit(ck, &r->out[d]);
    }
}

static const kh_comp_ops router_ops = {
    .kind = "router",
    .ckpt = router_ckpt,
    .step = router_step,
    .describe_stuck = router_stuck,
    .stats_json = router_stats,
    .destroy = router_destroy,
    .traced = router_traced,
};

/* Turn masks (mesh.md §3): a flit that arrived from a router neighbour may
 * not U-turn; one that arrived from the north or south router may not turn
 * east or west where that side is a router. Edge hops are never masked. */
static void compute_masks(kh_router *r)
{
    int is_router[KH_NDIRS] = {
        [KH_DIR_N] = r->y > 1,
        [KH_DIR_E] = r->x < r->nx,
        [KH_DIR_S] = r->y < r->ny,
        [KH_DIR_W] = r->x > 1,
        [KH_DIR_L] = 0,
    };
    for (unsigned i = 0; i < KH_NDIRS; i++) {
        unsigned allow = 0x1f;
        if (i != KH_DIR_L && is_router[i]) {
            allow &= ~(1u << i); /* U-turn */
            if (i == KH_DIR_N || i == KH_DIR_S) {
                if (is_router[KH_DIR_E]) allow &= ~(1u << KH_DIR_E);
                if (is_router[KH_DIR_W]) allow &= ~(1u << KH_DIR_W);
            }
        }
        r->allow[i] = (uint8_t)allow;
    }
}

kh_router *kh_router_new(kh_sim *sim, unsigned x, unsigned y, unsigned nx, unsigned ny, const kh_mesh_cfg *cfg,
                         char *err, size_t errlen)
{
    if (nx < 1 || ny < 1 || nx > KH_MAP_MAX_N || ny > KH_MAP_MAX_N || x < 1 || x > nx || y < 1 ||
        y > ny) {
        snprintf(err, errlen, "router (%u,%u) outside a %ux%u grid of at most %u per axis (mesh.md §1)",
                 x, y, nx, ny, KH_MAP_MAX_N);
        return NULL;
    }
    const kh_params *p = kh_sim_params(sim);
    uint64_t depth = p->router_fifo_depth + p->fifo_extra_cap;
    if (depth < 1 || depth > (1u << 20) || p->fifo_latency < 1 || p->fifo_latency > 1000) {
        snprintf(err, errlen,
                 "router_fifo_depth + fifo_extra_cap = %llu, fifo_latency = %llu: need depth "
                 "1..1048576 and latency 1..1000 (parameters.md rows 15, 21)",
                 (unsigned long long)depth, (unsigned long long)p->fifo_latency);
        return NULL;
    }
    kh_router *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "router (%u,%u): out of memory", x, y);
        return NULL;
    }
    r->scan_from = KH_NEVER;
    r->x = (uint8_t)x;
    r->y = (uint8_t)y;
    r->nx = (uint8_t)nx;
    r->ny = (uint8_t)ny;
    for (unsigned d = 0; d < KH_NDIRS; d++) {
        if (kh_fifo_init(&r->in[d], (unsigned)depth, (unsigned)p->fifo_latency)) {
            for (unsigned k = 0; k < d; k++) kh_fifo_free(&r->in[k]);
            free(r);
            snprintf(err, errlen, "router (%u,%u): out of memory for FIFOs", x, y);
            return NULL;
        }
        /* the one pop of a cycle (router_step pops an input at most once
         * per step), counted while pop_cycle is that cycle */
        r->in[d].pops = 1;
    }
    for (unsigned py = 0; py < 16; py++)
        for (unsigned px = 0; px < 16; px++)
            r->route[px << 4 | py] = (uint8_t)(cfg && cfg->route ? cfg->route(cfg->route_ctx, x, y, nx, ny, px, py)
                                                                  : kh_noc_route(x, y, nx, ny, px, py)); /* dst_xy order */
    r->policy = cfg && cfg->route;
    for (unsigned d = 0; d < 256; d++)
        if (r->route[d] >= KH_NDIRS) {
            snprintf(err, errlen, "router (%u,%u): the routing policy names output %u for dst (%u,%u); outputs are 0..4",
                     x, y, r->route[d], d >> 4, d & 15);
            for (unsigned k = 0; k < KH_NDIRS; k++) kh_fifo_free(&r->in[k]);
            free(r);
            return NULL;
        }
    compute_masks(r);
    char name[48];
    snprintf(name, sizeof name, "router(%u,%u)", x, y);
    kh_sim_add(sim, &r->comp, &router_ops, name);
    return r;
}

kh_comp *kh_router_comp(kh_router *r) { return &r->comp; }
void kh_router_set_out(kh_router *r, unsigned dir, kh_link *l)
{
    r->out_link[dir] = l;
    r->down[dir] = l->dst && l->accept == kh_router_accept ? (kh_router *)l->dst : NULL;
    r->down_port[dir] = (uint8_t)l->dst_port;
    if (l->dst)
        r->unlogged &= (uint8_t)~(1u << dir);
    else
        r->unlogged |= (uint8_t)(1u << dir);
    kh_router_vok(r);
}
void kh_router_set_in(kh_router *r, unsigned dir, kh_link *l) { r->in_link[dir] = l; }
kh_link *kh_router_out(const kh_router *r, unsigned dir) { return dir < KH_NDIRS ? r->out_link[dir] : NULL; }
kh_link *kh_router_in(const kh_router *r, unsigned dir) { return dir < KH_NDIRS ? r->in_link[dir] : NULL; }
/* what these two read holds the event engine's hops once they are settled */
const kh_fifo *kh_router_fifo(const kh_router *r, unsigned dir)
{
    kh_sim_settle(r->comp.sim);
    return dir < KH_NDIRS ? &r->in[dir] : NULL;
}
unsigned kh_router_x(const kh_router *r) { return r->x; }
unsigned kh_router_y(const kh_router *r) { return r->y; }
uint64_t kh_router_hops(const kh_router *r)
{
    kh_sim_settle(r->comp.sim);
    return r->hops;
}
