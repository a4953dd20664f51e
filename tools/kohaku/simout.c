/* --trace, --stats and --check for the subcommands that simulate, on the
 * library's trace sink, statistics writer (include/kohaku/trace.h) and live
 * flit checker (include/kohaku/check.h). */
#include <stdio.h>
#include <stdlib.h>

#include "kohaku/trace.h"
#include "simout.h"

struct kh_simout {
    kh_sim *sim;
    kh_trace *trace;
    kh_trace *below, *fan; /* a sink attached before (the checker), fed through fan */
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
        o->below = kh_sim_trace(sim);
        if (o->below && !(o->fan = kh_trace_fanout_new(o->below, o->trace))) {
            snprintf(err, errlen, "out of memory");
            kh_trace_json_close(o->trace, err, errlen);
            free(o);
            return NULL;
        }
        kh_sim_set_trace(sim, o->fan ? o->fan : o->trace);
    }
    return o;
}

int kh_simout_close(kh_simout *o, const char *stats_path, char *err, size_t errlen)
{
    int rc = 0;
    if (o->fan) { /* give the sink below its place back */
        if (kh_sim_trace(o->sim) == o->fan) kh_sim_set_trace(o->sim, o->below);
        kh_trace_fanout_free(o->fan);
    }
    if (o->trace) rc = kh_trace_json_close(o->trace, err, errlen);
    if (!rc && stats_path) rc = kh_stats_write_json(o->sim, stats_path, err, errlen);
    free(o);
    return rc;
}

void kh_checkout_report(void *ctx, const kh_check_finding *f)
{
    kh_checkout *o = ctx;
    unsigned r = f->issue.rule < 40 ? f->issue.rule : 0;
    if (f->issue.warn) o->warnings++;
    else o->violations++;
    if (o->printed[r] > KH_CHECKOUT_PER_RULE) return;
    if (o->printed[r]++ == KH_CHECKOUT_PER_RULE) {
        fprintf(stderr, "%s: check: further V%u findings are counted, not printed\n", o->who, r);
        return;
    }
    char line[900];
    kh_check_format(f, line, sizeof line);
    fprintf(stderr, "%s: check: %s: %s\n", o->who, f->issue.warn ? "warning" : "violation", line);
}

void kh_checkout_add(kh_checkout *o, const kh_check *c)
{
    if (!c) return;
    kh_check_counts n;
    kh_check_get_counts(c, &n);
    o->sent += n.sent;
    o->delivered += n.delivered;
}

int kh_checkout_end(kh_checkout *o)
{
    fprintf(stderr, "%s: check: %llu flits sent, %llu delivered: %llu violations, %llu warnings (flits.md §9)\n",
            o->who, (unsigned long long)o->sent, (unsigned long long)o->delivered,
            (unsigned long long)o->violations, (unsigned long long)o->warnings);
    return o->violations ? 1 : 0;
}
