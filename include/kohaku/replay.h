/* Replays of recorded RTL vectors (../shared/vectors/README.md, its replay
 * contract): one case driver for every kind (src/replay/driver.c), each
 * kind its hooks (src/replay/KIND.c). `kohaku replay` is a thin caller.
 *
 * The report goes to opts.out: one line per failing case ("case N: what
 * differs"), with -v what each case did, then, where the file records
 * cycles, "cycles: mean deviation X %, largest Y % (case N)" (Y the
 * deviation of largest magnitude, with its sign), then "N passed, N failed".
 *
 * --trace and --stats, one rule for every kind that simulates: one file
 * each. The trace holds every case as its own time range (a slice on the
 * "ranges" track); a kind that builds a fresh simulation per case (cluster,
 * vector) gives each case its own processes "case N: links" and "case N:
 * components"; saxpy's cases share one machine, one after the other. The
 * stats file is {"cases": [{"case": "N", "stats": {...}}, ...]}, the
 * counters of kh_stats_fprint_json at the end of each case (cumulative
 * where cases share a simulation), each with a run section naming the
 * kind and the case (docs/report.md). quant computes without a simulation and
 * refuses both. */
#ifndef KOHAKU_REPLAY_H
#define KOHAKU_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kohaku/check.h"

typedef struct kh_replay_opts {
    int rtl_compat;                /* every modelled recorded-RTL behaviour */
    int verbose;                   /* what each case did, even when it passes */
    FILE *out;                     /* the report; NULL: stdout */
    const char *trace_file;        /* NULL: no trace */
    const char *stats_file;        /* NULL: no stats */
    FILE *stats_out;               /* with stats_file NULL: the stats go here (not closed; --report) */
    const struct kh_trace_filter *keep; /* what the trace keeps (trace.h); NULL: everything */
    /* told of each simulation a case runs on (label: "case N", NULL for
     * saxpy's shared machine) before it runs, and with sim NULL once it is
     * no longer used (the CLI's progress line); NULL: not told */
    void (*on_sim)(void *ctx, struct kh_sim *sim, const char *label);
    void *on_sim_ctx;
    kh_check_report_fn check_fn;   /* live flit checker's findings (docs/check.md); NULL: off */
    void *check_ctx;
} kh_replay_opts;

typedef struct kh_replay_result {
    unsigned passed, failed;
    uint64_t check_sent, check_delivered; /* flits the checker looked at, every case */
} kh_replay_result;

/* The name of kind i (quant, cluster, saxpy, vector), NULL past the last. */
const char *kh_replay_kind_name(unsigned i);

/* Replay every case of file. 0: every case was run (res says how they
 * went); -1: refused before a case ran, or a trace or stats file could not
 * be written (err names it); -2: the request does not apply (an unknown
 * kind, --trace on quant; err says why). */
int kh_replay_file(const char *kind, const char *file, const kh_replay_opts *o, kh_replay_result *res, char *err,
                   size_t errlen);

#endif
