/* Lane promises (docs/mpi.md "Lane promises"): a mesh's parts reach its
 * interlink through a handful of entry points (a port taking a remote
 * flit, the mover's remote words, interlink register writes, remote
 * stores, the lanes themselves). A part with nothing pending in the kernel
 * acts again only when another part, an arrival or the host wakes it; so
 * when the only parts with work are ones that provably cannot reach an
 * entry point, nothing of the meshes can until something from outside
 * arrives. Anything else, and any armed timer, promises only `now`. */
#include <stdlib.h>

#include "kohaku/ilink.h"
#include "mpi/promise.h"

int kh_promise_meshes(kh_promise *p, kh_machine *m, unsigned lo, unsigned hi, kh_cycle now, kh_cycle *earliest)
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
    if (kh_sim_pending(sim, p->mask, nw)) return 0;
    for (unsigned mesh = lo; mesh < hi; mesh++) {
        unsigned a, b;
        kh_node *node = kh_machine_node_at(m, mesh);
        if (!node || kh_machine_mesh_comps(m, mesh, &a, &b)) return 0;
        for (unsigned id = a; id < b; id++) {
            if (!(p->mask[id / 64] >> (id % 64) & 1)) continue;
            if (!kh_node_busy_stays_local(node, kh_sim_comp(sim, id))) return 0;
        }
    }
    *earliest = KH_NEVER;
    return 0;
}

void kh_promise_free(kh_promise *p)
{
    free(p->mask);
    p->mask = NULL;
    p->nwords = 0;
}
