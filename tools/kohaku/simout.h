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
#include "simopts.h"

typedef struct kh_simout kh_simout;

/* Start tracing sim into trace_path (NULL: no trace). A sink already
 * attached (the live checker) goes on seeing every event. NULL with a
 * message when the file cannot be opened. */
kh_simout *kh_simout_open(kh_sim *sim, const char *trace_path, char *err, size_t errlen);
/* Finish the trace and write the counters to stats_path (NULL: none).
 * Frees out. 0 ok, -1 with a message. */
int kh_simout_close(kh_simout *out, const char *stats_path, char *err, size_t errlen);

/* The same for every option of o: the trace (--trace, kept by
 * --trace-window and --trace-flits) at the start; at the end the stats
 * (--stats) with the run section `run` (the body of an object: what ran,
 * its figures, the machine's layout; NULL: none), the report on standard
 * output (--report) and the heat map (--heatmap), all three from the one
 * stats text. */
kh_simout *kh_simout_start(kh_sim *sim, const kh_simopts *o, char *err, size_t errlen);
int kh_simout_finish(kh_simout *out, const kh_simopts *o, const char *run, char *err, size_t errlen);

/* The run's diagnostics (docs/diagnostics.md), at its end: one warning on
 * standard error per diagnostic, "WHO: warning (NAME, seen N times):
 * MESSAGE". Returns 1 when there was one and the run is strict (--strict,
 * or the machine parameter strict), saying so; else 0. */
int kh_simdiag_end(kh_sim *sim, const kh_simopts *o);

/* The help lines of the output options, for each subcommand's usage. */
#define KH_SIMOUT_HELP                                                                                        \
    "  --trace F.json   Perfetto / Chrome trace: flits per link, instructions and datapath per unit, busy\n"   \
    "                   spans per memory port, FIFO and credit counters (docs/report.md)\n"                   \
    "  --trace-window A:B  keep only the events of cycles [A, B) in the trace (needs --trace)\n"               \
    "  --trace-flits T  keep only these flit types (needs --trace): all, none, or a list such as cu_inst\n"   \
    "  --stats F.json   every counter, with a run section (what ran, the machine's layout)\n"                 \
    "  --report         the end-of-run report on standard output (the same figures as --stats)\n"            \
    "  --heatmap F.svg  the mesh drawn as its map, links and units coloured by utilisation\n"             \
    "  --strict         a diagnostic of the run (a warning such as the older compiler's FP16 operands,\n"  \
    "                   docs/diagnostics.md) makes the exit status 1 (also --param strict=1)\n"           \
    KH_ENGINE_HELP

/* --engine, taken by every simulating subcommand (kh_simopts_take). */
#define KH_ENGINE_HELP                                                                                        \
    "  --engine E       cycle: the per-cycle reference engine; fast (default): the event engine, with\n"     \
    "                   every output the same (docs/design.md §2)\n"

/* A run section's body: "name":NAME,"cycles":N[,"meshes":LAYOUT] appended
 * to buf (kh_bufcat); layout is a JSON array (kh_machine_layout_json) or
 * NULL. */
void kh_simrun_head(char *buf, size_t len, size_t *used, const char *name, kh_sim *sim, const char *layout);
#define KH_SIMRUN_MAX (1u << 18) /* a run section's size: four 16 x 16 meshes' layouts fit */
/* The run section of a machine's run: a malloc'd buffer of KH_SIMRUN_MAX
 * bytes holding the head with the machine's layout (more may be appended
 * with kh_bufcat and *used), NULL on no memory. */
struct kh_machine;
char *kh_simrun_machine(const char *name, struct kh_machine *m, size_t *used);

/* --check: findings printed on standard error as "WHO: check: ...", the
 * first KH_CHECKOUT_PER_RULE of each rule (the rest counted), counted over
 * every checker it is given (a replay checks each case's simulation). */
#define KH_CHECKOUT_PER_RULE 10
typedef struct kh_checkout {
    const char *who;          /* "kohaku run", ... */
    unsigned printed[40];
    uint64_t violations, warnings, sent, delivered;
    /* Set (MPI, partition.h): a finding's line is handed to keep instead
     * of printed (the first KH_CHECKOUT_PER_RULE + 1 of each rule), and
     * kh_checkout_print prints it later, in the merged order. */
    void (*keep)(void *ctx, unsigned rule, const char *line);
    void *keep_ctx;
} kh_checkout;
void kh_checkout_report(void *ctx, const kh_check_finding *f); /* a kh_check_report_fn, ctx = kh_checkout */
/* A kept line of rule `rule` on standard error, the per-rule limit applied
 * as if it had been reported now. */
void kh_checkout_print(kh_checkout *o, unsigned rule, const char *line);
/* Add a checker's transfer counts (call before it is freed). */
void kh_checkout_add(kh_checkout *o, const kh_check *c);
/* Print "WHO: check: N flits sent, M delivered: V violations, W warnings";
 * returns 1 if any violation was found, else 0. */
int kh_checkout_end(kh_checkout *o);

#endif
