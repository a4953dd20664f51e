/* Router internals shared inside src/noc: the struct and the inline take,
 * so that a sender of this module (a router, a traffic endpoint) hands a
 * router its flit without an indirect call (once per flit-hop). Outside
 * src/noc only the memory port's offer uses kh_noc_send (src/sysnode/port). */
#ifndef KOHAKU_NOC_ROUTER_INT_H
#define KOHAKU_NOC_ROUTER_INT_H

#include "kohaku/gen/flit.h"
#include "kohaku/mesh.h"

/* The event engine's hop (router_virt.c): a flit's passage through a
 * router worked out when it is taken, nothing but hops touching it: taken
 * on input `in` in cycle take, loaded at ld, granted at gr, and offered on
 * `out` at gr + 1 by its timer. */
typedef struct kh_vhop kh_vhop;
struct kh_vhop {
    kh_timer tm;        /* the offer (first member) */
    kh_flit f;
    kh_cycle take;
    kh_cycle ld, gr;    /* loaded (take + F, or when the hop ahead on its input is granted) and granted
                         * (the cycle after, or later when it loses the round-robin to hops) */
    struct kh_router *r;
    uint8_t in, out;
    uint8_t held;       /* the input FIFO's occupancy at the take, this flit included (its high-water mark) */
    uint8_t k;          /* its bit in the router's hop masks (set with r at allocation) */
};
#define KH_VHOPS 64 /* hops a router holds at once (vused's bits) */

struct kh_router {
    kh_comp comp; /* first member */
    /* hot state first: router_step and router_take read these every time */
    uint8_t slot_full;          /* bit i: input i's holding slot has a flit */
    uint8_t out_full;           /* bit o: output o's register has a flit */
    uint8_t nonempty;           /* bit i: input i's FIFO holds a flit */
    uint8_t unlogged;           /* bit o: output o drives a tie-off not yet logged */
    uint8_t reqd;               /* bit o: some full slot requests output o */
    uint8_t req[KH_NDIRS];      /* per output: the inputs whose slot requests it */
    uint8_t allow[KH_NDIRS];    /* per input: outputs it may request (turn masks, mesh.md §3) */
    uint8_t x, y, nx, ny;
    uint8_t down_port[KH_NDIRS]; /* the input of down[o] that output o feeds */
    uint64_t vused;             /* the event engine's hops: bit k, vh[k] is one (router_virt.c); beside the
                                 * fields every take reads */
    uint64_t hops;              /* grants = flits that crossed this router */
    /* the first cycle an input with an empty slot has a visible FIFO head
     * (KH_NEVER: none): before it, phase 3 looks only at the slots its
     * phase 2 just freed */
    kh_cycle scan_from;
    /* the event engine (router_virt.c): hops beside the router's own
     * flits, on inputs and outputs none of those use */
    uint64_t vin[KH_NDIRS], vout[KH_NDIRS]; /* the hops of each input, of each output */
    kh_cycle vout_gr[KH_NDIRS]; /* per output: no hop on it is granted after this cycle (the latest grant
                                 * a hop on it had, never lowered): admit's test for hops in the way. A
                                 * bound over the live hops only, so not in checkpoints: they are saved
                                 * with no hops, where any value is exact */
    kh_vhop *vh;                /* KH_VHOPS and a hop of none (admit), allocated at the first admission
                                 * that reads them (vh_alloc) */
    uint8_t vok[KH_NDIRS];      /* per input: the outputs a hop may take (a turn allowed, a link with a
                                 * receiver), none when the FIFO latency passes the timer wheel */
    uint8_t vnew[KH_NDIRS];     /* per input with hops: the newest one's record (an input's hops are
                                 * granted, offered and released in the order they were taken, so it
                                 * is live while any is); like vout_gr, not in checkpoints */
    kh_end_hook conv;           /* the end of this cycle makes the hops the router's own */
    /* slot i's flit: the entry just popped from in[i], intact until in[i]'s
     * next pop (kh_fifo_pop), which comes only after the slot is granted */
    const kh_flit *slot[KH_NDIRS];
    kh_link *out_link[KH_NDIRS];
    /* output o's receiver when it is a router (its take inline), else NULL */
    struct kh_router *down[KH_NDIRS];
    kh_link *in_link[KH_NDIRS];
    kh_fifo in[KH_NDIRS];
    kh_flit out[KH_NDIRS];
    uint8_t route[256];         /* output for dst_xy = {x[3:0], y[3:0]}: the policy, tabulated */
    int policy;                 /* routed by a kh_mesh_cfg policy, not XY */
    uint64_t masked;            /* flits the policy sent into a masked turn (dropped) */
    uint16_t traced_count[KH_NDIRS]; /* input FIFO occupancy last traced (router_traced) */
};

/* The round-robin winner of mesh.md §5: [p][m] the first input of the set
 * m in the order p, p+1, ... (mod 5), p = cycle mod 5 (router.c). */
extern const uint8_t kh_router_first_from[KH_NDIRS][32];

/* router_virt.c: a take of the event engine; the hops made the router's
 * own, at the start of cycle t (start: before its phases of t) or after
 * cycle t; the outputs hops may take, once the router's links are set. */
int kh_router_vtake(kh_router *r, unsigned port, const kh_flit *f, kh_cycle now);
void kh_router_vconvert(kh_router *r, kh_cycle t, int start);
void kh_router_vok(kh_router *r);

/* Input `port` takes f into its FIFO in cycle now if the FIFO was not full
 * at the start of now (mesh.md §4); hops: the event engine's hops in that
 * FIFO at the start of now (router_virt.c), ahead of f. */
static inline __attribute__((always_inline)) int kh_router_take_fifo(kh_router *r, unsigned port, const kh_flit *f,
                                                                      kh_cycle now, unsigned hops)
{
    kh_fifo *q = &r->in[port];
    unsigned bit = 1u << port;
    /* an empty slot over an empty FIFO: no flit of this input is in the
     * ring, so it can start over (kh_fifo_rewind) */
    int idle = !((r->nonempty | r->slot_full) & bit);
    unsigned head = idle ? 0 : q->head; /* kh_fifo_rewind, without a branch */
    q->head = head;
    /* kh_fifo_full then kh_fifo_push, with the start-of-cycle occupancy
     * (this cycle's pop still counted) worked out once for both; a router
     * input has at most one pop per cycle and keeps pops at 1 (router.c) */
    unsigned held = q->count + (q->pop_cycle == now) + hops;
    if (held >= q->cap) return 0;
    unsigned tail = head + q->count;
    if (tail >= q->size) tail -= q->size;
    q->ent[tail].f = *f;
    q->ent[tail].ready = now + q->latency;
    q->count++;
    held++;
    q->high_water = held > q->high_water ? held : q->high_water;
    /* the idle input's router sleeps: wake it when this flit is visible;
     * otherwise the flit ahead of it keeps the router going */
    if (idle) {
        kh_cycle ready = now + q->latency;
        kh_comp_wake(&r->comp, ready);
        if (ready < r->scan_from) r->scan_from = ready;
    }
    r->nonempty |= (uint8_t)bit;
    return 1;
}

/* kh_router_accept, inline for kh_noc_send: the event engine takes the flit
 * into a router holding no flit of its own (router_virt.c). */
static inline __attribute__((always_inline)) int kh_router_take(kh_router *r, unsigned port, const kh_flit *f,
                                                                 kh_cycle now)
{
    /* hops held, or an input without a flit of the router's own */
    if ((r->vused || !(r->nonempty | r->slot_full | r->out_full)) && kh_comp_fast(&r->comp))
        return kh_router_vtake(r, port, f, now);
    return kh_router_take_fifo(r, port, f, now, 0);
}

/* kh_link_taken for a link whose receiver is a router (never a tie-off),
 * the stall count without a branch: the flit goes and the link is free. */
static inline void kh_noc_taken(kh_link *l, const kh_flit *f, kh_cycle now)
{
    kh_cycle since = l->blocked_since;
    l->stall_cycles += since != KH_NEVER ? now - since : 0;
    l->blocked_since = KH_NEVER;
    l->flits++;
    l->last_xfer = now;
    if (l->sched->trace) kh_link_trace(l, f, now);
}

/* kh_link_send, with the receiver's accept inline when it is a router; inline
 * always: with the event engine's test in kh_router_take the profile-guided
 * build made it a call (bench (5) saturating: 6 % more instructions). */
static inline __attribute__((always_inline)) int kh_noc_send(kh_link *l, const kh_flit *f, kh_cycle now)
{
    if (l->last_xfer == now) return 0; /* one transfer per cycle: the sender must hold */
    int taken = l->accept == kh_router_accept && l->dst
                    ? kh_router_take((kh_router *)l->dst, l->dst_port, f, now)
                    : !l->dst || l->accept(l->dst, l->dst_port, f, now);
    if (!taken) {
        kh_link_refused(l, now);
        return 0;
    }
    kh_link_taken(l, f, now);
    return 1;
}

#endif
