/* Lane promises (docs/mpi.md "Lane promises"): how soon this rank's meshes
 * could put anything on a lane. */
#ifndef KOHAKU_MPI_PROMISE_H
#define KOHAKU_MPI_PROMISE_H

#include "kohaku/machine.h"
#include "kohaku/mpi.h"

typedef struct kh_promise {
    uint64_t *mask; /* the kernel's pending components, one bit each */
    unsigned nwords;
    /* held's entry of each component id + 1, 0 not yet looked up: a
     * name's kind is parsed once, not at every agreement */
    uint8_t *slot;
    unsigned nslots;
} kh_promise;

/* The earliest cycle (>= now) at which anything of meshes [lo, hi) could
 * reach an interlink with no input from outside them: now, or KH_NEVER
 * when every part with work pending is one that provably cannot
 * (kh_node_busy_stays_local). 0 on success, -1 out of memory. With held
 * (KOHAKU_MPI_COUNTS), a promise of now is tallied there by the kinds of
 * every part that held it; the promise is the same either way. */
int kh_promise_meshes(kh_promise *p, kh_machine *m, unsigned lo, unsigned hi, kh_cycle now, kh_cycle *earliest,
                      kh_mpi_held *held);
void kh_promise_free(kh_promise *p);

#endif
