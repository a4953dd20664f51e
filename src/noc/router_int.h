/* Router internals shared inside src/noc: the struct and the inline take,
 * so that a sender of this module (a router, a traffic endpoint) hands a
 * router its flit without an indirect call (once per flit-hop). Outside
 * src/noc only the memory port's offer uses kh_noc_send (src/sysnode/port). */
#ifndef KOHAKU_NOC_ROUTER_INT_H
#define KOHAKU_NOC_ROUTER_INT_H

#include "kohaku/mesh.h"

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
    uint64_t hops;              /* grants = flits that crossed this router */
    /* the first cycle an input with an empty slot has a visible FIFO head
     * (KH_NEVER: none): before it, phase 3 looks only at the slots its
     * phase 2 just freed */
    kh_cycle scan_from;
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

/* Input `port` takes f in cycle now if its FIFO was not full at the start of
 * now (mesh.md §4): kh_router_accept, inline for kh_noc_send. */
static inline int kh_router_take(kh_router *r, unsigned port, const kh_flit *f, kh_cycle now)
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
    unsigned held = q->count + (q->pop_cycle == now);
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

/* kh_link_send, with the receiver's accept inline when it is a router. */
static inline int kh_noc_send(kh_link *l, const kh_flit *f, kh_cycle now)
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
