/* Lane promises (docs/mpi.md "Lane promises"): a mesh's parts reach its
 * interlink through a handful of entry points (a port taking a remote
 * flit, the mover's remote words, interlink register writes, remote
 * stores, the lanes themselves). A part with nothing pending in the kernel
 * acts again only when another part, an arrival or the host wakes it; so
 * when the only parts with work are ones that provably cannot reach an
 * entry point, nothing of the meshes can until something from outside
 * arrives. Anything else, and any armed timer, promises only `now`. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/ilink.h"
#include "mpi/promise.h"

/* held's entry for the kind of a part named `name` ("m1.mem_port0(1,2)":
 * "mem_port"; machine.c prefixes "m<mesh>."), made on first sight;
 * "other" once the table is full. */
static unsigned held_slot(kh_mpi_held *held, const char *name)
{
    char kind[sizeof held->k[0].kind];
    size_t n = 0;
    if (name[0] == 'm' && name[1] >= '0' && name[1] <= '9') {
        const char *dot = name + 1;
        while (*dot >= '0' && *dot <= '9') dot++;
        if (*dot == '.') name = dot + 1;
    }
    while (name[n] && name[n] != '(' && n + 1 < sizeof kind) n++;
    while (n && name[n - 1] >= '0' && name[n - 1] <= '9') n--;
    memcpy(kind, name, n);
    kind[n] = 0;
    unsigned i = 0;
    for (; i + 1 < KH_MPI_HELD_KINDS; i++) {
        if (!held->k[i].kind[0]) memcpy(held->k[i].kind, kind, sizeof kind);
        if (!strcmp(held->k[i].kind, kind)) return i;
    }
    strcpy(held->k[i].kind, "other");
    return i;
}

static void tally(kh_mpi_held *held, uint32_t kinds)
{
    held->refused++;
    for (unsigned i = 0; i < KH_MPI_HELD_KINDS; i++) {
        if (!(kinds >> i & 1)) continue;
        held->k[i].any++;
        held->k[i].alone += !(kinds & (kinds - 1));
    }
}

int kh_promise_meshes(kh_promise *p, kh_machine *m, unsigned lo, unsigned hi, kh_cycle now, kh_cycle *earliest,
                      kh_mpi_held *held)
{
    kh_sim *sim = kh_machine_sim(m);
    unsigned n = kh_sim_ncomps(sim), nw = (n + 63) / 64;
    *earliest = now;
    if (nw > p->nwords) {
        uint64_t *v = realloc(p->mask, (size_t)nw * sizeof *v);
        if (!v) return -1;
        p->mask = v;
        p->nwords = nw;
    }
    uint32_t kinds = 0; /* held's entries of the parts holding the promise at now */
    if (held && !held->k[0].kind[0]) held_slot(held, "timer");
    if (kh_sim_pending(sim, p->mask, nw)) {
        if (!held) return 0;
        kinds |= 1;
    }
    for (unsigned mesh = lo; mesh < hi; mesh++) {
        unsigned a, b;
        kh_node *node = kh_machine_node_at(m, mesh);
        if (!node || kh_machine_mesh_comps(m, mesh, &a, &b)) {
            if (!held) return 0;
            kinds |= UINT32_C(1) << held_slot(held, "no node");
            continue;
        }
        for (unsigned id = a; id < b; id++) {
            if (!(p->mask[id / 64] >> (id % 64) & 1)) continue;
            const kh_comp *c = kh_sim_comp(sim, id);
            if (kh_node_busy_stays_local(node, c)) continue;
            if (!held) return 0;
            if (id >= p->nslots) {
                uint8_t *v = realloc(p->slot, n);
                if (!v) return -1;
                memset(v + p->nslots, 0, n - p->nslots);
                p->slot = v;
                p->nslots = n;
            }
            if (!p->slot[id]) p->slot[id] = (uint8_t)(held_slot(held, c->name) + 1);
            kinds |= UINT32_C(1) << (p->slot[id] - 1);
        }
    }
    if (kinds) {
        tally(held, kinds);
        return 0;
    }
    *earliest = KH_NEVER;
    return 0;
}

void kh_promise_free(kh_promise *p)
{
    free(p->mask);
    free(p->slot);
    p->mask = NULL;
    p->slot = NULL;
    p->nwords = 0;
    p->nslots = 0;
}
