/* A machine on MPI ranks (docs/mpi.md); only in the MPI build (make MPI=1,
 * KH_MPI defined). Every rank builds the same machine and runs the same
 * host program; rank r of K steps meshes [r*M/K, (r+1)*M/K) of M (K <= M),
 * and the kernel runs in windows agreed by every rank (kh_sim_set_sync):
 * a window is at most ilink_lat cycles long (the one latency between
 * meshes), it ends before any cycle in which the control-program engine
 * samples a register, and idle stretches are skipped by agreeing on every
 * rank's next wake. Results do not depend on K. */
#ifndef KOHAKU_MPI_H
#define KOHAKU_MPI_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/machine.h"

typedef struct kh_mpi kh_mpi;

/* After MPI_Init, on every rank of MPI_COMM_WORLD with the same machine:
 * partition it. NULL with a message (more ranks than meshes, no memory).
 * Options from the environment, for tests: KOHAKU_MPI_ORDER=reverse gives
 * rank r the meshes of rank K-1-r; KOHAKU_MPI_JITTER=N sleeps up to N
 * microseconds (seeded by rank) before every agreement; KOHAKU_MPI_PROMISES=0
 * turns the lane promises off (every window at most the lookahead). */
kh_mpi *kh_mpi_attach(kh_machine *m, char *err, size_t errlen);
/* Before freeing the machine: the sync and the card's sharing come off
 * (the machine still steps only this rank's meshes). */
void kh_mpi_detach(kh_mpi *d);
int kh_mpi_rank(const kh_mpi *d);
int kh_mpi_size(const kh_mpi *d);
/* The first mesh of rank r and one past its last. */
void kh_mpi_meshes(const kh_mpi *d, int rank, unsigned *lo, unsigned *hi);

/* Why an agreement was taken (docs/mpi.md, "Measuring"). */
typedef enum kh_mpi_cause {
    KH_MPI_LOOKAHEAD, /* a window ended at the lookahead bound */
    KH_MPI_ENGINE,    /* ... before an action of the control-program engine */
    KH_MPI_RUN_END,   /* ... at the end of the host's kh_sim_run (or an idle run's end) */
    KH_MPI_QUERY,     /* no window: the host asked whether anything is pending (a poll, kh_sim_idle) */
    KH_MPI_NCAUSES
} kh_mpi_cause;

/* What held this rank's lane promises at "now" (docs/mpi.md "Measuring"):
 * per kind of part (a component's name up to its place, "router",
 * "mem_port", "v2"; kind[0] "timer": an armed timer, whose owner the
 * kernel does not know), the agreements at which some part of that kind
 * could reach a lane (any) and those at which nothing else could (alone).
 * Kinds past the table's end count under its last entry, "other". */
#define KH_MPI_HELD_KINDS 10
typedef struct kh_mpi_held {
    uint64_t refused; /* agreements whose promise was "now" */
    struct {
        char kind[16];
        uint64_t any, alone;
    } k[KH_MPI_HELD_KINDS];
} kh_mpi_held;

typedef struct kh_mpi_counts {
    uint64_t windows;   /* agreements (one MPI_Allreduce each) */
    uint64_t messages;  /* lane records sent to a peer */
    uint64_t bytes;     /* their size */
    uint64_t shares;    /* host and engine values broadcast by a mesh's owner */
    kh_cycle lookahead; /* the longest window (KH_NEVER: one rank) */
    uint64_t by_cause[KH_MPI_NCAUSES]; /* agreements per cause, summing to windows */
    uint64_t engine_shares;            /* of shares: the engine's POLL samples */
    uint64_t folded;                   /* host reads whose value rode on the idleness agreement (no broadcast) */
    uint64_t ridden;                   /* host reads answered by the agreement that ended the run before them */
    uint64_t promised;                 /* windows run past the lookahead on the ranks' lane promises */
    uint64_t checked;                  /* of those, checked on this rank (KOHAKU_MPI_PROMISE_CHECK) */
    kh_mpi_held held;                  /* this rank's promises of "now", by what held them (KOHAKU_MPI_COUNTS) */
    /* This rank, from its first window to its last agreement: wall and CPU
     * seconds, and the seconds spent inside the agreements (lane exchange
     * included) and the broadcasts, waiting for the other ranks or not. */
    double wall, cpu, blocked_agree, blocked_share;
    kh_cycle first_cycle, last_cycle; /* the clock at the first window and the last agreement */
} kh_mpi_counts;
void kh_mpi_get_counts(const kh_mpi *d, kh_mpi_counts *out);

#endif
