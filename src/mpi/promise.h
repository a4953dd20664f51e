/* Lane promises (docs/mpi.md "Lane promises"): how soon this rank's meshes
 * could put anything on a lane. */
#ifndef KOHAKU_MPI_PROMISE_H
#define KOHAKU_MPI_PROMISE_H

#include "kohaku/machine.h"
#include "kohaku/mpi.h"

/* What promise.c knows of one mesh, read once from its components' names
 * ("m1.mat(2,3)": kind mat at (2,3)). */
typedef struct kh_promise_mesh {
    int built;
    int known;      /* every component's kind is one the readings know */
    unsigned a, b;  /* its component ids */
    uint8_t *cls;   /* per component id - a: PR_* of promise.c */
    struct kh_promise_unit { uint8_t x, y, cls; } *unit; /* the parts at a place (units, the processor, the orchestrator) */
    unsigned nunit;
} kh_promise_mesh;

typedef struct kh_promise {
    int units;      /* the readings of the network, ports and clusters (off: the mover's alone) */
    kh_promise_mesh mesh[KH_MACHINE_MAX_MESHES];
    uint64_t *mask; /* the kernel's pending components, one bit each */
    unsigned nwords;
    /* held's entry of each component id + 1, 0 not yet looked up: a
     * name's kind is parsed once, not at every agreement */
    uint8_t *slot;
    unsigned nslots;
} kh_promise;

/* The earliest cycle (>= now) at which anything of meshes [lo, hi) could
 * reach an interlink with no input from outside them: now, or KH_NEVER
 * when every part with work pending is one that provably cannot: the
 * mover inside its mesh (kh_node_busy_stays_local), and, with p->units,
 * any router, memory port, memory path, orchestrator or matmul / saxpy
 * cluster of a mesh that holds nothing that could (mesh_quiet). 0 on success, -1 out of memory. With held
 * (KOHAKU_MPI_COUNTS), a promise of now is tallied there by the kinds of
 * every part that held it; the promise is the same either way. */
int kh_promise_meshes(kh_promise *p, kh_machine *m, unsigned lo, unsigned hi, kh_cycle now, kh_cycle *earliest,
                      kh_mpi_held *held);
void kh_promise_free(kh_promise *p);

#endif
