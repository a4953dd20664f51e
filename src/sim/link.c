/* Links: one direction of valid/data forward, busy back (mesh.md §4). The
 * receiver decides from start-of-cycle state; a refused sender keeps its
 * flit and is woken by kh_link_space(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_int.h"

kh_link *kh_link_new(kh_sim *sim, kh_comp *src, kh_comp *dst, unsigned dst_port,
                     kh_accept_fn accept, const char *name)
{
    if (sim->nlinks == sim->caplinks) {
        unsigned cap = sim->caplinks ? 2 * sim->caplinks : 32;
        kh_link **v = realloc(sim->links, cap * sizeof *v);
        if (!v) return NULL;
        sim->links = v;
        sim->caplinks = cap;
    }
    /* aligned: the fields kh_link_send touches share one cache line */
    size_t size = (sizeof(kh_link) + 63) / 64 * 64;
    kh_link *l = aligned_alloc(64, size);
    if (!l) return NULL;
    memset(l, 0, sizeof *l);
    l->src = src;
    l->sched = &sim->sched;
    l->dst = dst;
    l->dst_port = dst_port;
    l->accept = accept;
    l->blocked_since = KH_NEVER;
    l->last_xfer = KH_NEVER;
    l->space_from = KH_NEVER;
    l->trace_track = -1;
    snprintf(l->name, sizeof l->name, "%s", name ? name : "link");
    if (dst) {
        l->next_in = dst->in_links;
        dst->in_links = l;
    }
    sim->links[sim->nlinks++] = l;
    return l;
}

void kh_link_trace(const kh_link *l, const kh_flit *f, kh_cycle now)
{
    kh_trace *t = l->sched->trace;
    if (t->link) t->link(t->ctx, l, f, now);
    if (l->src && l->src->ops->traced) l->src->ops->traced(l->src, now);
    if (l->dst && l->dst->ops->traced) l->dst->ops->traced(l->dst, now);
}

void kh_comp_space(kh_comp *c, unsigned port, kh_cycle now)
{
    for (kh_link *l = c->in_links; l; l = l->next_in)
        if (port == KH_ALL_PORTS || l->dst_port == port) kh_link_space(l, now);
}

void kh_link_set_dst(kh_link *l, kh_comp *dst, unsigned dst_port, kh_accept_fn accept)
{
    if (l->dst) { /* unlink from the old receiver's list */
        for (kh_link **pp = &l->dst->in_links; *pp; pp = &(*pp)->next_in)
            if (*pp == l) {
                *pp = l->next_in;
                break;
            }
    }
    l->dst = dst;
    l->dst_port = dst_port;
    l->accept = accept;
    l->next_in = NULL;
    if (dst) {
        l->next_in = dst->in_links;
        dst->in_links = l;
    }
}
