/* --trace and --stats for the simulating subcommands (../shared/cli.md):
 * a Chrome / Perfetto trace-event JSON sink and a JSON dump of every
 * component's and link's counters. */
#ifndef KOHAKU_SIMOUT_H
#define KOHAKU_SIMOUT_H

#include <stddef.h>

#include "kohaku/sim.h"

typedef struct kh_simout kh_simout;

/* Start tracing sim into trace_path (NULL: no trace). NULL with a message
 * when the file cannot be opened. */
kh_simout *kh_simout_open(kh_sim *sim, const char *trace_path, char *err, size_t errlen);
/* Finish the trace and write the counters to stats_path (NULL: none).
 * Frees out. 0 ok, -1 with a message. */
int kh_simout_close(kh_simout *out, const char *stats_path, char *err, size_t errlen);

#endif
