/* --trace, --stats and --check for the subcommands that simulate, on the
 * library's trace sink, statistics writer (include/kohaku/trace.h) and live
 * flit checker (include/kohaku/check.h). */
#include <stdio.h>
#include <stdlib.h>

#include "kohaku/bufcat.h"
#include "kohaku/machine.h"
#include "kohaku/trace.h"
#include "report.h"
#include "simout.h"
#include "statsdoc.h"

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

kh_simout *kh_simout_start(kh_sim *sim, const kh_simopts *o, char *err, size_t errlen)
{
    kh_simout *out = kh_simout_open(sim, o->trace, err, errlen);
    if (out && out->trace) {
        kh_trace_filter keep = kh_simopts_keep(o);
        kh_trace_json_set_filter(out->trace, &keep);
    }
    return out;
}

/* Several processes (docs/mpi.md): the stats are merged from every one
 * (collective), so each joins every merge whatever failed on it or on
 * another (none may be left waiting alone), and only the leader writes the
 * file, prints the report and draws the heat map, once for the machine. */
int kh_simout_finish(kh_simout *o, const kh_simopts *so, const char *run, char *err, size_t errlen)
{
    kh_sim *sim = o->sim;
    const kh_sync_ops *sync = kh_sim_sync(sim);
    int speaks = !sync || sync->leader;
    int rc = kh_simout_close(o, NULL, err, errlen);
    char spare[512], *msg = rc ? spare : err; /* after a failure: the first message is the one reported */
    size_t msglen = rc ? sizeof spare : errlen;
    if (so->stats && (!rc || sync) && kh_stats_write_json_run(sim, run, so->stats, msg, msglen)) {
        rc = -1;
        msg = spare;
        msglen = sizeof spare;
    }
    if ((rc && !sync) || (!so->report && !so->heatmap)) return rc;
    kh_json *doc = kh_sd_snapshot(sim, run, msg, msglen);
    if (!doc) rc = -1;
    if (!rc && speaks) {
        if (so->report) kh_report_print(kh_json_root(doc), stdout);
        if (so->heatmap) rc = kh_heatmap_write(kh_json_root(doc), so->heatmap, err, errlen);
    }
    kh_json_free(doc);
    return rc;
}

void kh_simrun_head(char *buf, size_t len, size_t *used, const char *name, kh_sim *sim, const char *layout)
{
    char esc[300];
    kh_json_escape(esc, sizeof esc, name);
    kh_bufcat(buf, len, used, "\"name\":\"%s\",\"cycles\":%llu", esc, (unsigned long long)kh_sim_now(sim));
    if (layout) kh_bufcat(buf, len, used, ",\"meshes\":%s", layout);
}

char *kh_simrun_machine(const char *name, kh_machine *m, size_t *used)
{
    char *layout = malloc(KH_SIMRUN_MAX), *run = malloc(KH_SIMRUN_MAX);
    *used = 0;
    if (!layout || !run) {
        free(layout);
        free(run);
        return NULL;
    }
    size_t lu = 0;
    kh_machine_layout_json(m, layout, KH_SIMRUN_MAX, &lu);
    kh_simrun_head(run, KH_SIMRUN_MAX, used, name, kh_machine_sim(m), layout);
    free(layout);
    return run;
}

/* The per-rule limit: 1 if this finding of rule r is printed; the first
 * one past the limit says the rest are counted. */
static int checkout_turn(kh_checkout *o, unsigned r)
{
    if (o->printed[r] > KH_CHECKOUT_PER_RULE) return 0;
    if (o->printed[r]++ == KH_CHECKOUT_PER_RULE) {
        fprintf(stderr, "%s: check: further V%u findings are counted, not printed\n", o->who, r);
        return 0;
    }
    return 1;
}

void kh_checkout_report(void *ctx, const kh_check_finding *f)
{
    kh_checkout *o = ctx;
    unsigned r = f->issue.rule < 40 ? f->issue.rule : 0;
    if (f->issue.warn) o->warnings++;
    else o->violations++;
    if (o->keep) { /* every line that may be among the first past the limit once merged */
        if (o->printed[r] > KH_CHECKOUT_PER_RULE) return;
        o->printed[r]++;
    } else if (!checkout_turn(o, r)) {
        return;
    }
    char line[900], text[1000];
    kh_check_format(f, line, sizeof line);
    snprintf(text, sizeof text, "%s: check: %s: %s\n", o->who, f->issue.warn ? "warning" : "violation", line);
    if (o->keep) o->keep(o->keep_ctx, r, text);
    else fputs(text, stderr);
}

void kh_checkout_print(kh_checkout *o, unsigned rule, const char *line)
{
    if (checkout_turn(o, rule < 40 ? rule : 0)) fputs(line, stderr);
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

int kh_simdiag_end(kh_sim *sim, const kh_simopts *o)
{
    unsigned n = kh_sim_ndiag(sim);
    for (unsigned i = 0; i < n; i++) {
        uint64_t count;
        const char *msg, *name = kh_sim_diag_at(sim, i, &count, &msg);
        fprintf(stderr, "%s: warning (%s, seen %llu time%s): %s\n", o->who, name, (unsigned long long)count,
                count == 1 ? "" : "s", msg);
    }
    if (!n || !(o->strict || kh_sim_params(sim)->strict)) return 0;
    fprintf(stderr, "%s: strict: %u diagnostic%s, exit status 1\n", o->who, n, n == 1 ? "" : "s");
    return 1;
}
