/* Trace sinks and the statistics writer (docs/design.md §7).
 *
 * The kernel calls the sink attached with kh_sim_set_trace() (struct
 * kh_trace, sim.h) for every link transfer; components add spans and
 * instants with kh_trace_span() / kh_trace_instant() (sim.h), which are
 * no-ops when no sink is attached.
 *
 * The JSON sink writes the Chrome / Perfetto trace-event format
 * (ui.perfetto.dev, chrome://tracing): one track per link (process
 * "links"), each transfer a 1-cycle slice named after the flit type with
 * the header fields as args; one track per component (process
 * "components") for spans and instants. Time unit: 1 us on the time axis
 * is one clock cycle.
 */
#ifndef KOHAKU_TRACE_H
#define KOHAKU_TRACE_H

#include <stddef.h>
#include <stdio.h>

#include "kohaku/sim.h"

/* Open a trace-event JSON file for sim. The sink is not attached: call
 * kh_sim_set_trace(sim, t). NULL with a message if the file cannot be made.
 * sim may be NULL: the file then waits for its first section. */
kh_trace *kh_trace_json_open(kh_sim *sim, const char *path, char *err, size_t errlen);
/* Several simulations in one file (a replay's cases, each on its own
 * bench): from now on the sink describes sim, whose links and components
 * are two new processes "LABEL: links" and "LABEL: components". The sink
 * is detached from the simulation it described; attach it to sim. sim
 * NULL: the section's simulation is going away, no new section yet. */
void kh_trace_json_section(kh_trace *t, kh_sim *sim, const char *label);
/* A named time range of the current section (a replay case: its cycles),
 * a slice on the section's "ranges" track; args as for spans. */
void kh_trace_json_range(kh_trace *t, const char *name, kh_cycle begin, kh_cycle end, const char *args);
/* Finish and close the file, detach the sink from its simulation if it is
 * attached, and free it. 0 ok; -1 with a message on a write error. */
int kh_trace_json_close(kh_trace *t, char *err, size_t errlen);

/* What a JSON trace keeps (--trace-window A:B, --trace-flits): events in
 * the cycles [begin, end) only, a span cut to the window; flits only of
 * the types whose bit (1 << type code, flits.md §3) is set. The default
 * keeps everything. */
#define KH_TRACE_ALL_FLITS 0xFFFFu
typedef struct kh_trace_filter {
    kh_cycle begin, end; /* end KH_NEVER: to the end of the run */
    uint32_t flit_types;
} kh_trace_filter;
void kh_trace_json_set_filter(kh_trace *t, const kh_trace_filter *keep);

/* A sink that passes every event to sinks[0], then sinks[1], ... (the list
 * is copied; a callback a sink lacks is skipped): the live checker, the JSON
 * writer and any other watcher at once. None is owned; kh_trace_fanout_free
 * frees only the fan-out. NULL on no memory. */
kh_trace *kh_trace_fanout_list(kh_trace *const *sinks, unsigned n);
/* The same for two sinks, a then b. */
kh_trace *kh_trace_fanout_new(kh_trace *a, kh_trace *b);
void kh_trace_fanout_free(kh_trace *t);

/* --stats: the simulation's counters as one JSON object: the cycle, every
 * link (flits, drops into tie-offs, stall cycles) and every component's
 * stats_json (routers: flit-hops, FIFO depth and high-water occupancy). */
int kh_stats_write_json(kh_sim *sim, const char *path, char *err, size_t errlen);
void kh_stats_fprint_json(kh_sim *sim, FILE *out);
/* The same with a "run" member whose body (an object without its braces)
 * the caller gives: what ran, its figures, the machine's layout
 * (docs/report.md). run NULL: no run member. */
int kh_stats_write_json_run(kh_sim *sim, const char *run, const char *path, char *err, size_t errlen);
void kh_stats_fprint_json_run(kh_sim *sim, const char *run, FILE *out);

/* A JSON string body with " \ and control characters escaped (for args). */
void kh_json_escape(char *out, size_t outlen, const char *s);

#endif
