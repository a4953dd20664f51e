/* The event engine's hops through routers (docs/design.md §2, "The event
 * engine"). A flit that only other such flits contend with crosses a
 * router on a timing known when it is taken (router timing, F the FIFO
 * latency): loaded at T + F, or in the cycle the hop ahead of it on its
 * input is granted; granted the cycle after, or later when it loses the
 * round-robin (p = cycle mod 5) to hops; offered the cycle after its grant.
 * The router takes such a flit as a hop (kh_vhop) and is not stepped for
 * it: the hop's timer makes the offer (kh_timer: run at the start of its
 * cycle, and taken back without a trace when the hop is converted). One
 * event per flit-hop instead of the per-cycle engine's three steps.
 *
 * A router admits a hop when:
 *  - its input holds no flit of the router's own, and its output none in
 *    its register, in a slot requesting it or in a FIFO routed to it, and
 *    no register of the router waits refused (a refused register is
 *    offered again in every step the router takes, and a hop's cycles
 *    would be such steps): the router's own flits and its hops then never
 *    meet, and its steps need not see the hops;
 *  - the FIFO had room at the start of T, and either every round-robin
 *    this one takes part in is won by the hop that already had it, or the
 *    router has no flit of its own at all: then the hops' grants from this
 *    one's load on are worked out again with it (replan), as the router's
 *    phases would make them, and their timers moved;
 *  - the output is neither a tie-off nor a masked turn.
 * A flit of the router's own taken behind hops on an input is loaded in the
 * cycle the per-cycle engine loads it, if the last hop is granted by then.
 * Whatever else would meet the hops makes them the router's own, as the
 * per-cycle engine holds them at that point (kh_router_vconvert): a take
 * that would be granted an output a hop still wants or would be loaded
 * before the hop ahead is granted, or is refused for room, at the end of
 * that cycle; a refused offer, at the start of its cycle; the end of a run
 * (the settle), after its last cycle. Counters (high-water marks,
 * flit-hops, the links' transfers) are added when a hop is over or
 * converted, never ahead of the clock. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "noc/router_int.h"

static unsigned lat(const kh_router *r) { return r->in[0].latency; }

/* v's timer has run or is disarmed: v out of the router. */
static inline void vh_release(kh_router *r, const kh_vhop *v)
{
    uint64_t keep = ~(UINT64_C(1) << v->k);
    r->vused &= keep;
    r->vin[v->in] &= keep;
    r->vout[v->out] &= keep;
}

/* v is over or converted: out of the router, its timer disarmed. */
static inline void vh_free(kh_router *r, kh_vhop *v)
{
    if (kh_timer_armed(&v->tm)) kh_timer_disarm(r->comp.sim, &v->tm);
    vh_release(r, v);
}

/* Add to the router's counters v's events up to cycle `through` (its take
 * is always in): the FIFO's high-water mark; its load (the FIFO's pop, the
 * space the link sees); its grant (a flit-hop). */
static inline void vh_count(kh_router *r, const kh_vhop *v, kh_cycle through)
{
    kh_fifo *q = &r->in[v->in];
    if (v->held > q->high_water) q->high_water = v->held;
    if (v->ld > through) return;
    kh_link *in = r->in_link[v->in];
    if (q->pop_cycle == KH_NEVER || v->ld > q->pop_cycle) q->pop_cycle = v->ld;
    if (in && (in->space_from == KH_NEVER || v->ld + 1 > in->space_from)) in->space_from = v->ld + 1;
    r->hops += v->gr <= through;
}

/* vh_count for a hop whose grant is over (its offer taken): the same
 * counts, the maxima without branches (a cycle's KH_NEVER + 1 wraps to 0,
 * below every cycle). */
static inline void vh_count_over(kh_router *r, const kh_vhop *v)
{
    unsigned in = v->in;
    kh_fifo *q = &r->in[in];
    kh_link *l = r->in_link[in];
    kh_cycle ld = v->ld, pc = q->pop_cycle;
    unsigned hw = q->high_water;
    q->high_water = v->held > hw ? v->held : hw;
    q->pop_cycle = pc + 1 <= ld ? ld : pc;
    if (l) {
        kh_cycle sf = l->space_from;
        l->space_from = sf + 1 <= ld + 1 ? ld + 1 : sf;
    }
    r->hops++;
}

static void router_settle(kh_comp *c);
static void offer_due(kh_timer *t, kh_cycle now);

/* A flit of the router's own routed to output o: in its register, in a
 * slot requesting it, or in an input FIFO. */
static __attribute__((noinline)) int own_flit_for(const kh_router *r, unsigned o)
{
    if ((r->out_full | r->reqd) >> o & 1) return 1;
    for (unsigned i = 0; i < KH_NDIRS; i++) {
        const kh_fifo *q = &r->in[i];
        for (unsigned n = 0, k = q->head; n < q->count; n++) {
            if (r->route[kh_hdr_dst_xy(q->ent[k].f.w)] == o) return 1;
            if (++k == q->size) k = 0;
        }
    }
    return 0;
}

/* A register of the router waits refused: its link holds a blocked offer. */
static __attribute__((noinline)) int own_refused(const kh_router *r)
{
    for (unsigned o = 0; o < KH_NDIRS; o++)
        if (r->out_full >> o & 1 && r->out_link[o]->blocked_since != KH_NEVER) return 1;
    return 0;
}

void kh_router_vok(kh_router *r)
{
    const kh_params *p = kh_sim_params(r->comp.sim);
    unsigned outs = 0;
    for (unsigned o = 0; o < KH_NDIRS; o++)
        if (r->out_link[o] && r->out_link[o]->dst) outs |= 1u << o;
    for (unsigned i = 0; i < KH_NDIRS; i++)
        r->vok[i] = (uint8_t)(2 * p->fifo_latency + 4 < KH_WHEEL ? r->allow[i] & outs : 0);
}

/* The slow part of an admission: hops already on the output from other
 * inputs. 1: their cycles are kept; 0: the FIFO has no room; -1: this flit
 * would win a round-robin a hop already had (*ld is set then). *held comes
 * in with the FIFO's occupancy without hops. */
static inline int admit_beside(kh_router *r, unsigned i, unsigned o, kh_cycle T, unsigned *held, kh_cycle *ld, kh_cycle *gr)
{
    const kh_fifo *q = &r->in[i];
    unsigned F = q->latency;
    const kh_vhop *ahead = NULL;
    for (uint64_t m = r->vin[i]; m; m &= m - 1) {
        const kh_vhop *v = &r->vh[__builtin_ctzll(m)];
        *held += v->ld >= T; /* in the FIFO at the start of T */
        if (!ahead || v->take > ahead->take) ahead = v;
    }
    if (*held > q->cap) return 0;
    kh_cycle l = T + F;
    if (ahead && ahead->gr > l) l = ahead->gr;
    *ld = l;
    /* the grant: the first cycle from l + 1 in which no hop has the
     * output; in each earlier one the hop that has it must still win with
     * this one requesting too (one with no hop granted has no requester) */
    kh_cycle g = l + 1;
    uint64_t on_out = r->vout[o] & ~r->vin[i];
    for (;;) {
        unsigned mask = 1u << i;
        const kh_vhop *granted = NULL;
        for (uint64_t m = on_out; m; m &= m - 1) {
            const kh_vhop *v = &r->vh[__builtin_ctzll(m)];
            if (v->ld < g && g <= v->gr) {
                mask |= 1u << v->in;
                if (v->gr == g) granted = v;
            }
        }
        if (!granted) break;
        if (kh_router_first_from[g % KH_NDIRS][mask] != granted->in) return -1;
        g++;
    }
    *gr = g;
    return 1;
}

/* A router holding more hops than this converts them rather than plan
 * them again: planning costs about a router step per hop planned, and a
 * router with that many is near saturation, where its own flits are
 * cheaper (bench noc 4x4 saturating: 3.3 M instructions of planning in
 * 50 000 cycles without the bound). */
#ifndef KH_REPLAN_HOPS
#define KH_REPLAN_HOPS 8
#endif

/* A hop planned afresh: flit-hop records not granted before a cycle. */
typedef struct replan_ent {
    kh_vhop *v;        /* NULL: the flit being taken */
    kh_cycle take, ld, gr;
    unsigned out;
} replan_ent;

/* This flit, taken on input i for output o in cycle now and loaded at ld,
 * wins a round-robin a hop already had: instead of making the hops the
 * router's own, their grants from ld + 1 on are worked out again with it,
 * as phases 2 and 3 of the per-cycle router would make them (each output
 * grants one requesting slot a cycle, the first from p = cycle mod 5: a
 * hop's register is always taken the cycle after its grant, or the hops
 * are converted then; a slot granted in cycle g loads the next flit of its
 * input in g if it is visible, and that one requests from g + 1). Only in a
 * router with no flit of its own (those could sit behind hops and load by
 * their grants). Nothing changes before ld + 1 > now + 1: the grants before
 * it, the loads and FIFO occupancies of cycles already run, and the timers
 * of this and the next cycle, stay. 1: the hops' cycles are changed and
 * their timers moved, *gr is this flit's grant; 0: a grant would leave the
 * timer wheel (the caller converts). */
static __attribute__((noinline)) int replan(kh_router *r, unsigned i, unsigned o, kh_cycle now, kh_cycle ld, kh_cycle *gr)
{
    unsigned F = lat(r);
    kh_cycle start = ld + 1;
    replan_ent e[KH_NDIRS][KH_VHOPS + 1];
    unsigned n[KH_NDIRS] = {0}, head[KH_NDIRS] = {0}, left = 0;
    for (uint64_t m = r->vused; m; m &= m - 1) {
        kh_vhop *v = &r->vh[__builtin_ctzll(m)];
        if (v->gr < start) continue; /* granted before: kept */
        unsigned in = v->in, j = n[in]++;
        while (j && e[in][j - 1].take > v->take) { /* take order: the FIFO's */
            e[in][j] = e[in][j - 1];
            j--;
        }
        e[in][j] = (replan_ent){.v = v, .take = v->take, .ld = v->ld, .gr = v->gr, .out = v->out};
        left++;
    }
    /* this flit is the last taken on its input; the hops ahead of it there
     * are granted by ld, before start */
    if (n[i]) abort(); /* a hop ahead on the input granted after this one's load: a simulator bug */
    e[i][n[i]++] = (replan_ent){.v = NULL, .take = now, .ld = ld, .gr = 0, .out = o};
    left++;
    /* the first hop of each input keeps its load (the hop ahead of it was
     * granted before start); the others load when the one ahead is granted */
    kh_cycle g = start;
    while (left) {
        unsigned req[KH_NDIRS] = {0};
        kh_cycle next_ld = KH_NEVER;
        for (unsigned in = 0; in < KH_NDIRS; in++) {
            if (head[in] == n[in]) continue;
            const replan_ent *x = &e[in][head[in]];
            if (x->ld < g)
                req[x->out] |= 1u << in;
            else if (x->ld < next_ld)
                next_ld = x->ld;
        }
        unsigned any = 0;
        for (unsigned out = 0; out < KH_NDIRS; out++) any |= req[out];
        if (!any) { /* nothing requests before the next load */
            g = next_ld + 1;
            continue;
        }
        if (g + 1 - now >= KH_WHEEL) return 0; /* its offer's timer */
        for (unsigned out = 0; out < KH_NDIRS; out++) {
            if (!req[out]) continue;
            unsigned w = kh_router_first_from[g % KH_NDIRS][req[out]];
            e[w][head[w]].gr = g;
            left--;
            if (++head[w] < n[w]) {
                replan_ent *nx = &e[w][head[w]];
                kh_cycle vis = nx->take + F;
                nx->ld = vis > g ? vis : g;
            }
        }
        g++;
    }
    for (unsigned in = 0; in < KH_NDIRS; in++)
        for (unsigned k = 0; k < n[in]; k++) {
            const replan_ent *x = &e[in][k];
            if (!x->v) {
                *gr = x->gr;
                continue;
            }
            kh_vhop *v = x->v;
            v->ld = x->ld;
            if (v->gr != x->gr) {
                v->gr = x->gr;
                if (x->gr > r->vout_gr[v->out]) r->vout_gr[v->out] = x->gr;
                kh_timer_arm(r->comp.sim, &v->tm, x->gr + 1);
            }
        }
    return 1;
}

/* Hops already on the output from other inputs (admit's rare case, out of
 * line, its answer a value, so that the common admission keeps its
 * values in registers): ok 1 with the FIFO's occupancy, the load and the
 * grant when the hops keep their cycles or are planned again with this
 * one, else ok 0. */
typedef struct admit_when {
    kh_cycle ld, gr;
    unsigned held;
    int ok;
} admit_when;
static __attribute__((noinline)) admit_when admit_meets(kh_router *r, unsigned i, unsigned o, kh_cycle now,
                                                        unsigned held)
{
    admit_when w = {.held = held};
    int ok = admit_beside(r, i, o, now, &w.held, &w.ld, &w.gr);
    if (ok < 0 && !(r->nonempty | r->slot_full | r->out_full) && __builtin_popcountll(r->vused) <= KH_REPLAN_HOPS)
        ok = replan(r, i, o, now, w.ld, &w.gr);
    w.ok = ok > 0 && w.gr + 1 - now < KH_WHEEL;
    return w;
}

/* The router's hop records, at the first admission that reads them (one
 * with at most one hop on its input reads a record before it is decided,
 * so a router may hold them with no hop yet): each knows its router and
 * its timer's function from then on; the hop of none is zeros. */
static __attribute__((noinline)) kh_vhop *vh_alloc(kh_router *r)
{
    r->vh = calloc(KH_VHOPS + 1, sizeof *r->vh); /* and the hop of none (admit) */
    if (r->vh)
        for (unsigned k = 0; k < KH_VHOPS; k++) {
            r->vh[k].r = r;
            r->vh[k].k = (uint8_t)k;
            r->vh[k].tm.fn = offer_due;
        }
    return r->vh;
}

/* r takes f on input i in cycle now as a hop: 1, or 0 (the rules at the
 * top of the file). */
static inline __attribute__((always_inline)) int admit(kh_router *r, unsigned i, const kh_flit *f, kh_cycle now)
{
    unsigned o = r->route[kh_hdr_dst_xy(f->w)];
    if (!(r->vok[i] >> o & 1) || r->conv.queued) return 0;
    if ((r->nonempty | r->slot_full | r->out_full) &&
        (((r->nonempty | r->slot_full) >> i & 1) || own_flit_for(r, o) || own_refused(r)))
        return 0;
    /* itself, and a flit of the router's own popped in this cycle (the
     * start-of-cycle occupancy, kh_router_take_fifo) */
    unsigned held0 = 1 + (r->in[i].pop_cycle == now), held = held0, F = lat(r);
    kh_cycle ld = now + F, gr = ld + 1;
    if (held > r->in[i].cap) return 0;
    uint64_t hin = r->vin[i];
    if (!(hin & (hin - 1))) {
        /* at most one hop on its input (at low load whether there is one is
         * a coin toss): its counts by selects, the record read its own or
         * vh[KH_VHOPS], a hop of none (ld = gr = 0) */
        if (!r->vh && !vh_alloc(r)) return 0;
        const kh_vhop *v = &r->vh[(unsigned)__builtin_ctzll(hin | UINT64_C(1) << 63) + (hin == 0)];
        held += (unsigned)(hin != 0) & (unsigned)(v->ld >= now);
        if (held > r->in[i].cap) return 0;
        if (v->gr > ld) {
            ld = v->gr;
            gr = ld + 1;
            if (gr + 1 - now >= KH_WHEEL) return 0;
        }
    } else {
        /* behind hops on its input: the FIFO's room, and loaded once the
         * hop ahead (the newest) is granted */
        for (uint64_t m = hin; m; m &= m - 1) held += r->vh[__builtin_ctzll(m)].ld >= now;
        if (held > r->in[i].cap) return 0;
        kh_cycle ahead_gr = r->vh[r->vnew[i]].gr;
        if (ahead_gr > ld) {
            ld = ahead_gr;
            gr = ld + 1;
            if (gr + 1 - now >= KH_WHEEL) return 0;
        }
    }
    /* hops of other inputs on the output: none granted from this one's
     * first request (ld + 1) on leaves its grant the cycle after its load,
     * as admit_beside finds; else the slow way, from the start (its
     * answers where this one's are 0 are 0 too) */
    if ((r->vout_gr[o] & ((uint64_t)0 - (uint64_t)((r->vout[o] & ~hin) != 0))) > ld) { /* one branch, rarely taken */
        admit_when w = admit_meets(r, i, o, now, held0);
        if (!w.ok) return 0;
        held = w.held;
        ld = w.ld;
        gr = w.gr;
    }
    if (!~r->vused) return 0; /* every record in use */
    if (!r->vh && !vh_alloc(r)) return 0;
    unsigned k = (unsigned)__builtin_ctzll(~r->vused);
    uint64_t bit = UINT64_C(1) << k;
    kh_vhop *v = &r->vh[k];
    r->vused |= bit;
    r->vin[i] |= bit;
    r->vnew[i] = (uint8_t)k;
    r->vout[o] |= bit;
    v->f = *f;
    v->take = now;
    v->ld = ld;
    v->gr = gr;
    r->vout_gr[o] = gr > r->vout_gr[o] ? gr : r->vout_gr[o];
    v->in = (uint8_t)i;
    v->out = (uint8_t)o;
    v->held = (uint8_t)held;
    if (!r->comp.settle) kh_comp_unsettled_until_read(&r->comp, router_settle);
    /* a free record's timer is disarmed; the offer is within the wheel
     * (vok where it is granted the cycle after a load at now + F; a load
     * delayed by a hop ahead or a grant the slow path pushed back is
     * checked above) */
    kh_timer_arm_within(r->comp.sim, &v->tm, gr + 1);
    return 1;
}

/* The cycle-end hook: the hops become the router's own after this cycle. */
static void conv_at_end(void *ctx, kh_cycle now)
{
    kh_router *r = ctx;
    if (r->vused) kh_router_vconvert(r, now, 0);
}

/* A take the router does not admit as a hop: into its FIFO (out of line,
 * so that the admission's frame stays small). */
static __attribute__((noinline)) int vtake_own(kh_router *r, unsigned port, const kh_flit *f, kh_cycle now)
{
    if (!r->vused) return kh_router_take_fifo(r, port, f, now, 0);
    /* beside hops: those in this FIFO count for its room. This flit meets
     * a hop granted its output from its first request on (it is loaded at
     * now + F at the earliest), and the hop ahead when that is granted
     * after now + F (the router would load this flit before the slot is
     * free) */
    unsigned F = lat(r), o = r->route[kh_hdr_dst_xy(f->w)], in_fifo = 0;
    int meets = 0, pop_now = 0;
    for (uint64_t m = r->vin[port] | r->vout[o]; m; m &= m - 1) {
        const kh_vhop *v = &r->vh[__builtin_ctzll(m)];
        if (v->in == port) {
            in_fifo += v->ld >= now;
            pop_now |= v->ld == now;
            meets |= v->gr > now + F;
        }
        meets |= v->out == o && v->gr > now + F;
    }
    int taken = kh_router_take_fifo(r, port, f, now, in_fifo);
    if (!taken && pop_now) {
        /* the hop's load of this cycle announces the space, as the
         * per-cycle step does before or after this offer */
        kh_link *in = r->in_link[port];
        if (in) in->space_from = now + 1;
    }
    /* refused beside hops: the sender waits for loads only steps announce */
    if (meets || (!taken && in_fifo)) {
        r->conv.fn = conv_at_end;
        r->conv.ctx = r;
        kh_sim_at_end(r->comp.sim, &r->conv);
    }
    return taken;
}

int kh_router_vtake(kh_router *r, unsigned port, const kh_flit *f, kh_cycle now)
{
    return admit(r, port, f, now) || vtake_own(r, port, f, now);
}

/* A hop's offer, at the start of its cycle, to what is behind its output.
 * Refused, the router holds it, and its hops become its own as of the
 * start of this cycle; the router steps now, that offer made. */
static void offer_due(kh_timer *t, kh_cycle now)
{
    kh_vhop *v = (kh_vhop *)(void *)t;
    kh_router *r = v->r;
    unsigned o = v->out;
    kh_link *l = r->out_link[o];
    kh_router *d = r->down[o];
    int taken;
    if (!d) {
        taken = l->accept(l->dst, l->dst_port, &v->f, now);
    } else if (((d->vused != 0) | !(d->nonempty | d->slot_full | d->out_full)) & kh_comp_fast(&d->comp)) { /* one branch */
        /* kh_router_take with the admission inline: most hops lead to
         * another router's hop */
        unsigned port = r->down_port[o];
        taken = admit(d, port, &v->f, now) || vtake_own(d, port, &v->f, now);
    } else {
        taken = kh_router_take_fifo(d, r->down_port[o], &v->f, now, 0);
    }
    if (taken) {
        if (d)
            kh_noc_taken(l, &v->f, now);
        else
            kh_link_taken(l, &v->f, now);
        vh_count_over(r, v);
        vh_release(r, v); /* its timer has run */
        return;
    }
    kh_link_refused(l, now);
    /* offered in this cycle: the router's phase 1 of it holds the
     * register without offering again (one offer a cycle) */
    l->last_xfer = now;
    /* granted before: the register holds it */
    vh_count(r, v, now - 1);
    r->out[o] = v->f;
    r->out_full |= (uint8_t)(1u << o);
    vh_free(r, v);
    kh_router_vconvert(r, now, 1);
    kh_comp_wake(&r->comp, now);
}

void kh_router_vconvert(kh_router *r, kh_cycle t, int start)
{
    /* a phase of cycle x is done at this point */
#define DONE(x) ((x) < t || ((x) == t && !start))
    /* each input's hops not granted yet, in take order */
    kh_vhop *by_in[KH_NDIRS][KH_VHOPS];
    unsigned n_in[KH_NDIRS] = {0};
    for (uint64_t m = r->vused; m; m &= m - 1) {
        kh_vhop *v = &r->vh[__builtin_ctzll(m)];
        /* offered by its timer (start: one of this cycle still to come is
         * in the register, its timer disarmed) */
        if (v->gr + 1 < t || (v->gr + 1 == t && !kh_timer_armed(&v->tm))) {
            vh_count(r, v, v->gr);
            vh_free(r, v);
            continue;
        }
        if (DONE(v->gr)) {
            vh_count(r, v, v->gr);
            r->out[v->out] = v->f;
            r->out_full |= (uint8_t)(1u << v->out);
            vh_free(r, v);
            continue;
        }
        unsigned i = v->in, j = n_in[i]++;
        while (j && by_in[i][j - 1]->take > v->take) {
            by_in[i][j] = by_in[i][j - 1];
            j--;
        }
        by_in[i][j] = v;
    }
    unsigned F = lat(r);
    for (unsigned i = 0; i < KH_NDIRS; i++) {
        if (!n_in[i]) continue;
        /* the hops go ahead of the flits of the router's own taken behind
         * them (no slot of its own on this input then) */
        kh_fifo *q = &r->in[i];
        if (r->slot_full >> i & 1) abort(); /* a slot of its own behind hops: a simulator bug */
        kh_fifo_ent own[KH_VHOPS];
        unsigned nown = q->count;
        for (unsigned k = 0, at = q->head; k < nown; k++) {
            own[k] = q->ent[at];
            if (++at == q->size) at = 0;
        }
        q->head = 0;
        q->count = 0;
        for (unsigned k = 0; k < n_in[i]; k++) {
            kh_vhop *v = by_in[i][k];
            if (DONE(v->ld)) { /* in the holding slot: the popped entry behind the head */
                vh_count(r, v, v->ld);
                q->ent[0].f = v->f;
                q->ent[0].ready = v->take + F;
                q->head = 1;
                r->slot[i] = &q->ent[0].f;
                r->slot_full |= (uint8_t)(1u << i);
                r->req[v->out] |= (uint8_t)(1u << i);
                r->reqd |= (uint8_t)(1u << v->out);
            } else {
                vh_count(r, v, v->ld - 1);
                unsigned tail = q->head + q->count;
                if (tail >= q->size) tail -= q->size;
                q->ent[tail].f = v->f;
                q->ent[tail].ready = v->take + F;
                q->count++;
            }
            vh_free(r, v);
        }
        for (unsigned k = 0; k < nown; k++) {
            unsigned tail = q->head + q->count;
            if (tail >= q->size) tail -= q->size;
            q->ent[tail] = own[k];
            q->count++;
        }
        if (q->count) r->nonempty |= (uint8_t)(1u << i);
    }
#undef DONE
    /* the first cycle a head is visible over an empty slot */
    kh_cycle scan = KH_NEVER;
    for (unsigned i = 0; i < KH_NDIRS; i++)
        if ((r->nonempty & ~r->slot_full) >> i & 1 && r->in[i].ent[r->in[i].head].ready < scan)
            scan = r->in[i].ent[r->in[i].head].ready;
    r->scan_from = scan;
    if (start) return; /* its step of t comes, and asks for the next */
    if (r->out_full | r->reqd)
        kh_comp_wake(&r->comp, t + 1);
    else if (scan != KH_NEVER)
        kh_comp_wake(&r->comp, scan);
}

static void router_settle(kh_comp *c)
{
    kh_router *r = (kh_router *)c;
    if (r->vused) kh_router_vconvert(r, kh_sim_now(c->sim) - 1, 0);
}
