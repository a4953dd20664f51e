/* The simulation object's private layout (src/sim only). */
#ifndef KOHAKU_SIM_INT_H
#define KOHAKU_SIM_INT_H

#include "kohaku/sim.h"

typedef struct kh_wake_ent {
    kh_cycle t;
    unsigned id;
} kh_wake_ent;

struct kh_sim {
    kh_sched sched;    /* first member: kh_comp_wake's inline path reads it */
    kh_params params;
    int in_step;       /* inside the steps of cycle `now` */
    kh_comp **comps;
    unsigned ncomps, capcomps;
    kh_link **links;
    unsigned nlinks, caplinks;
    /* Wakes within the next KH_WHEEL cycles: one bitmap over component ids
     * per cycle slot (slot = cycle mod KH_WHEEL); a set bit coalesces
     * repeated requests and iterating the bits gives id order. Later wakes
     * wait in the heap and move into the wheel as time reaches them. */
    kh_wake_ent *heap; /* min-heap on (t, id), wakes >= now + KH_WHEEL */
    size_t nheap, capheap;
    uint64_t steps;
    kh_log_fn log_fn;
    void *log_ctx;
    kh_log_level log_min;
    unsigned log_counts[4];
    void *user;
    kh_end_hook *at_end; /* hooks queued for the end of the cycle being executed */
    /* partitions (kh_sim_own, kh_sim_set_sync): NULL when this process
     * steps everything */
    uint64_t *own;       /* one bit per component id, nwords words */
    unsigned nown;
    const kh_sync_ops *sync;
    void *sync_ctx;
    kh_cycle progress_at;                        /* next cycle to call progress at, KH_NEVER: none */
    kh_cycle (*progress)(void *ctx, kh_cycle now); /* kh_sim_set_progress */
    void *progress_ctx;
    kh_sim_engine_kind engine; /* kh_sim_set_engine */
    int in_timers;               /* the timers of cycle now run: wakes for now are allowed */
    kh_comp *unsettled;  /* components whose settle op runs at the end of this run */
    kh_comp *unread;     /* those whose settle op runs when their state is read (kh_sim_settle) */
    /* diagnostics (kh_sim_diag, diag.c): distinct names in first-raised order */
    struct kh_diag_rec *diag;
    unsigned ndiag;
    /* partitioned (kh_sim_own): the counts when the partition was made, and
     * the steps of shared components since; a save under MPI sums what
     * each process added (sim_part.c) */
    uint64_t part_steps0, shared_steps;
    unsigned part_log0[4];
    uint64_t part_diag0[KH_DIAG_NAMES];
};

struct kh_ck;
/* diag.c: the diagnostics' records in a checkpoint */
void kh_sim_diag_ckpt(kh_sim *sim, struct kh_ck *ck);
/* diag.c: remember the counts at the partition (part_diag0) */
void kh_sim_diag_mark(kh_sim *sim);
/* diag.c: save what this process added since the partition (all of it:
 * whole), or add such a record to the diagnostics (restore) */
void kh_sim_diag_part(kh_sim *sim, struct kh_ck *ck, int whole);
/* sim.c: move the heap's wakes due within the wheel into it */
void kh_sim_migrate(kh_sim *sim);
/* sim_ckpt.c: one link's registers and counters */
void kh_sim_link_ckpt(kh_link *l, struct kh_ck *ck);
/* sim_part.c: the slots with a wake or a timer, as the wheel holds them */
uint64_t kh_sim_occ(const kh_sim *sim);
/* sim_part.c: the heap in (cycle, id) order, one form whatever its history */
void kh_sim_heap_sort(kh_sim *sim);

#endif
