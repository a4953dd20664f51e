/* The simulation object's private layout (src/sim only). */
#ifndef KOHAKU_SIM_INT_H
#define KOHAKU_SIM_INT_H

#include "kohaku/sim.h"

typedef struct kh_wake_ent {
    kh_cycle t;
    unsigned id;
} kh_wake_ent;

struct kh_sim {
    kh_params params;
    kh_cycle now;      /* next cycle to execute, or the cycle being executed */
    int in_step;       /* inside the steps of cycle `now` */
    kh_comp **comps;
    unsigned ncomps, capcomps;
    kh_link **links;
    unsigned nlinks, caplinks;
    kh_wake_ent *heap; /* min-heap on (t, id) */
    size_t nheap, capheap;
    uint64_t steps;
    kh_log_fn log_fn;
    void *log_ctx;
    kh_log_level log_min;
    unsigned log_counts[4];
    kh_trace *trace;
    void *user;
};

#endif
