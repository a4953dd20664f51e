/* The demo GEMM on a whole machine (cluster.md §9): shared by `kohaku
 * gemm`, `kohaku demo` and `kohaku bench gemm`. */
#ifndef KOHAKU_GEMM_RUN_H
#define KOHAKU_GEMM_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/json.h"
#include "simopts.h"

#define KH_GEMM_DEMO_M 384 /* the demo's shape: 36 tiles of 64 x 64, 6 per cluster */
#define KH_GEMM_DEMO_N 384
#define KH_GEMM_DEMO_K 512
/* The host buffers of one run (A, Bt, C, the exact and the float reference:
 * 2·M·K + 2·N·K + 12·M·N bytes) at most 2 GiB: a larger GEMM is refused
 * before anything is planned (planning it alone would take minutes). */
#define KH_GEMM_HOST_BYTES_MAX (UINT64_C(1) << 31)

typedef struct kh_gemm_demo_opts {
    unsigned m, n, k;
    uint64_t seed;        /* 0: the demo's */
    int quiet;
    int wait;             /* KH_GEMM_WAIT_POLL (0) or KH_GEMM_WAIT_QUIET: how the host waits for the quantising movers */
    const char *who;      /* the run's name in the stats and the report: "demo", "gemm" (NULL), "bench gemm" */
    const kh_simopts *sim; /* --map (NULL: the built-in default machine), --trace, --stats,
                              --check (the live flit checker, docs/check.md: a violation fails) */
} kh_gemm_demo_opts;

typedef struct kh_gemm_demo_result {
    uint64_t cycles, quant_cycles, sim_cycles;
    double mac_per_cycle, peak, rel_err, seconds, gemm_seconds; /* CPU time */
    size_t mismatches;
} kh_gemm_demo_result;

/* Run, check and (unless quiet) print; returns the exit status: 0 checked
 * and right, 1 wrong or refused. */
int kh_gemm_demo(const kh_gemm_demo_opts *o, kh_gemm_demo_result *r);

/* The utilisation of each resource a GEMM used between stats snapshots a
 * and b (its phase) and the busiest one, appended to a run section as
 * ,"begin","end","utilisation":{...},"bound":"..." (docs/report.md). */
void kh_gemm_bound_json(const kh_json_val *a, const kh_json_val *b, unsigned clusters, char *buf, size_t len,
                        size_t *used);

/* Whole-machine speed on the demo GEMM (dims = {M, N, K} or NULL; sim as
 * kh_gemm_demo_opts): prints simulated cycles per second. */
int kh_gemm_bench_machine(const unsigned *dims, const kh_simopts *sim);

#endif
