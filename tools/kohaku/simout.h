/* --trace, --stats and --check for the simulating subcommands
 * (../shared/cli.md, docs/check.md): a Chrome / Perfetto trace-event JSON
 * sink, a JSON dump of every component's and link's counters, and the
 * report of the live flit checker. Their parsing is simopts.h. */
#ifndef KOHAKU_SIMOUT_H
#define KOHAKU_SIMOUT_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/check.h"
#include "kohaku/sim.h"

typedef struct kh_simout kh_simout;

/* Start tracing sim into trace_path (NULL: no trace). A sink already
 * attached (the live checker) goes on seeing every event. NULL with a
 * message when the file cannot be opened. */
kh_simout *kh_simout_open(kh_sim *sim, const char *trace_path, char *err, size_t errlen);
/* Finish the trace and write the counters to stats_path (NULL: none).
 * Frees out. 0 ok, -1 with a message. */
int kh_simout_close(kh_simout *out, const char *stats_path, char *err, size_t errlen);

/* --check: findings printed on standard error as "WHO: check: ...", the
 * first KH_CHECKOUT_PER_RULE of each rule (the rest counted), counted over
 * every checker it is given (a replay checks each case's simulation). */
#define KH_CHECKOUT_PER_RULE 10
typedef struct kh_checkout {
    const char *who;          /* "kohaku run", ... */
    unsigned printed[40];
    uint64_t violations, warnings, sent, delivered;
} kh_checkout;
void kh_checkout_report(void *ctx, const kh_check_finding *f); /* a kh_check_report_fn, ctx = kh_checkout */
/* Add a checker's transfer counts (call before it is freed). */
void kh_checkout_add(kh_checkout *o, const kh_check *c);
/* Print "WHO: check: N flits sent, M delivered: V violations, W warnings";
 * returns 1 if any violation was found, else 0. */
int kh_checkout_end(kh_checkout *o);

#endif
