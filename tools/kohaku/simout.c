/* --trace and --stats for the subcommands that simulate, on the library's
 * trace sink and statistics writer (include/kohaku/trace.h). */
#include <stdio.h>
#include <stdlib.h>

#include "kohaku/trace.h"
#include "simout.h"

struct kh_simout {
    kh_sim *sim;
    kh_trace *trace;
};

kh_simout *kh_simout_open(kh_sim *sim, const char *trace_path, char *err, size_t errlen)
{
    kh_simout *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    o->sim = sim;
    if (trace_path) {
        o->trace = kh_trace_json_open(sim, trace_path, err, errlen);
        if (!o->trace) {
            free(o);
            return NULL;
        }
        kh_sim_set_trace(sim, o->trace);
    }
    return o;
}

int kh_simout_close(kh_simout *o, const char *stats_path, char *err, size_t errlen)
{
    int rc = 0;
    if (o->trace) rc = kh_trace_json_close(o->trace, err, errlen);
    if (!rc && stats_path) rc = kh_stats_write_json(o->sim, stats_path, err, errlen);
    free(o);
    return rc;
}
