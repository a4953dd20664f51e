/* The replay case driver (replay_int.h): one loop over a vector file for
 * every kind, the report, the cycle deviations, one trace and one stats
 * file for all cases. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/machine.h"
#include "kohaku/trace.h"
#include "replay/replay_int.h"

#define RUN_MAX (1u << 18) /* a run section with a machine's layout: four 16 x 16 meshes fit */

static const kh_replay_kind *const kinds[] = {&kh_replay_quant, &kh_replay_cluster, &kh_replay_saxpy,
                                              &kh_replay_vector};

const char *kh_replay_kind_name(unsigned i) { return i < sizeof kinds / sizeof kinds[0] ? kinds[i]->name : NULL; }

int kh_replay_name_recorded(kh_replay_case *c)
{
    uint64_t id;
    if (kh_json_u64(kh_json_get(c->root, "case"), &id)) return -1;
    snprintf(c->name, sizeof c->name, "%llu", (unsigned long long)id);
    return 0;
}

int kh_replay_fail(kh_replay_case *c, const char *fmt, ...)
{
    va_list ap;
    if (c->failed) return -1; /* keep the first difference */
    c->failed = 1;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof c->why, fmt, ap);
    va_end(ap);
    return -1;
}

static void io_fail(kh_replay *r, const char *msg)
{
    if (!r->io_err[0]) snprintf(r->io_err, sizeof r->io_err, "%s", msg);
}

int kh_replay_attach(kh_replay *r, kh_replay_case *c, kh_sim *sim, const char *label)
{
    if (r->o->on_sim) {
        r->o->on_sim(r->o->on_sim_ctx, sim, label);
        r->watched = 1;
    }
    if (!r->trace) return 0;
    kh_trace_json_section(r->trace, sim, label);
    r->below = kh_sim_trace(sim);
    if (r->below && !(r->fan = kh_trace_fanout_new(r->below, r->trace))) {
        r->below = NULL;
        return kh_replay_fail(c, "out of memory for the trace");
    }
    kh_sim_set_trace(sim, r->fan ? r->fan : r->trace);
    r->traced = sim;
    return 0;
}

void kh_replay_detach(kh_replay *r)
{
    if (r->watched) r->o->on_sim(r->o->on_sim_ctx, NULL, NULL);
    r->watched = 0;
    if (!r->traced) return;
    kh_sim_set_trace(r->traced, r->fan ? r->below : NULL); /* the sink below gets its place back */
    kh_trace_fanout_free(r->fan);
    kh_trace_json_section(r->trace, NULL, NULL);
    r->fan = r->below = NULL;
    r->traced = NULL;
}

void kh_replay_case_end(kh_replay *r, const kh_replay_case *c, kh_sim *sim, kh_cycle begin)
{
    char name[80];
    snprintf(name, sizeof name, "case %s", c->name);
    if (r->trace) kh_trace_json_range(r->trace, name, begin, kh_sim_now(sim), c->failed ? "\"passed\":0" : "\"passed\":1");
    if (r->stats) {
        char esc[160];
        kh_json_escape(esc, sizeof esc, c->name);
        fprintf(r->stats, "%s{\"case\":\"%s\",\"stats\":", r->nstats++ ? ",\n" : "", esc);
        /* the run section: the case, and the machine's layout if there is one */
        size_t cap = r->machine ? RUN_MAX : 300, used = 0;
        char *run = malloc(cap);
        if (run) {
            kh_bufcat(run, cap, &used, "\"name\":\"replay %s case %s\",\"cycles\":%llu", r->kind->name, esc,
                      (unsigned long long)kh_sim_now(sim));
            if (r->machine) {
                kh_bufcat(run, cap, &used, ",\"meshes\":");
                kh_machine_layout_json(r->machine, run, cap, &used);
            }
        }
        kh_stats_fprint_json_run(sim, run, r->stats);
        free(run);
        fputs("}", r->stats);
    }
}

int kh_replay_rd_lat(kh_replay_case *c, uint64_t v)
{
    if (v <= KH_REPLAY_RD_LAT_MAX) return 0;
    return kh_replay_fail(c, "refused: params.rd_lat: %llu is not a plausible memory latency (0..%u cycles, our bound)",
                          (unsigned long long)v, KH_REPLAY_RD_LAT_MAX);
}

int kh_replay_places(kh_replay_case *c, const unsigned cu[2], const unsigned mem[2], const unsigned snd[2])
{
    if (cu[0] == mem[0] && cu[1] == mem[1])
        return kh_replay_fail(c, "refused: params.cu_xy (%u,%u) is also params.mem_xy: the unit and the memory "
                                 "need places of their own", cu[0], cu[1]);
    if (cu[0] == snd[0] && cu[1] == snd[1])
        return kh_replay_fail(c, "refused: params.cu_xy (%u,%u) is also params.sender_xy: the unit cannot send "
                                 "itself its instructions", cu[0], cu[1]);
    return 0;
}

int kh_replay_build_param(kh_replay_case *c, const kh_json_val *params, const char *key, const char *param,
                          kh_params *p)
{
    const kh_json_val *v = kh_json_get(params, key);
    uint64_t n;
    char num[24], err[300];
    if (!v) return 0;
    if (kh_json_u64(v, &n))
        return kh_replay_fail(c, "refused: params.%s: a %s, not an unsigned integer", key,
                              kh_json_type_name(kh_json_type_of(v)));
    snprintf(num, sizeof num, "%llu", (unsigned long long)n);
    if (kh_params_set(p, param, num, err, sizeof err))
        return kh_replay_fail(c, "refused: params.%s: %llu: %s", key, (unsigned long long)n, err);
    return 0;
}

int kh_replay_fixed_param(kh_replay_case *c, const kh_json_val *params, const char *key, uint64_t want)
{
    const kh_json_val *v = kh_json_get(params, key);
    uint64_t n;
    if (!v) return 0;
    if (kh_json_u64(v, &n))
        return kh_replay_fail(c, "refused: params.%s: a %s, not an unsigned integer", key,
                              kh_json_type_name(kh_json_type_of(v)));
    if (n != want)
        return kh_replay_fail(c, "refused: params.%s: %llu, but the spec fixes %llu", key, (unsigned long long)n,
                              (unsigned long long)want);
    return 0;
}

void kh_replay_add_check(kh_replay *r, const kh_check *chk)
{
    if (!chk) return;
    kh_check_counts n;
    kh_check_get_counts(chk, &n);
    r->res->check_sent += n.sent;
    r->res->check_delivered += n.delivered;
}

/* Open the one trace and the one stats file: -1 with a message. */
static int open_outputs(kh_replay *r, char *err, size_t errlen)
{
    if (r->o->trace_file && !(r->trace = kh_trace_json_open(NULL, r->o->trace_file, err, errlen))) return -1;
    if (r->trace && r->o->keep) kh_trace_json_set_filter(r->trace, r->o->keep);
    if (!r->o->stats_file && r->o->stats_out) {
        r->stats = r->o->stats_out;
        fputs("{\"cases\":[\n", r->stats);
    } else if (r->o->stats_file) {
        if (!(r->stats = fopen(r->o->stats_file, "w"))) {
            snprintf(err, errlen, "stats %s: cannot create: %s", r->o->stats_file, strerror(errno));
            return -1;
        }
        fputs("{\"cases\":[\n", r->stats);
    }
    return 0;
}

static void close_outputs(kh_replay *r)
{
    char err[300];
    kh_replay_detach(r);
    if (r->trace && kh_trace_json_close(r->trace, err, sizeof err)) io_fail(r, err);
    if (r->stats) {
        fputs("\n]}\n", r->stats);
        int bad = ferror(r->stats);
        if (r->stats != r->o->stats_out && fclose(r->stats)) bad = 1;
        if (bad) {
            snprintf(err, sizeof err, "stats %s: write error", r->o->stats_file);
            io_fail(r, err);
        }
    }
    r->trace = NULL;
    r->stats = NULL;
}

/* The cycle deviations of the timed cases: the mean magnitude and the
 * deviation of largest magnitude (the first of equals), with its sign. */
typedef struct deviations {
    unsigned n;
    double sum, largest;
    char largest_case[64];
} deviations;

static void add_deviation(deviations *d, const kh_replay_case *c)
{
    if (!c->timed || c->recorded <= 0) return;
    double dev = 100.0 * (c->ours - c->recorded) / c->recorded;
    if (!d->n || fabs(dev) > fabs(d->largest)) {
        d->largest = dev;
        snprintf(d->largest_case, sizeof d->largest_case, "%s", c->name);
    }
    d->sum += fabs(dev);
    d->n++;
}

static void run_file(kh_replay *r, kh_jsonl *in)
{
    deviations dev = {0};
    kh_json *doc;
    kh_json_error je;
    for (unsigned index = 0; kh_jsonl_next(in, &doc, &je) > 0; index++) {
        kh_replay_case c;
        memset(&c, 0, sizeof c);
        c.index = index;
        c.line = in->line;
        c.root = doc ? kh_json_root(doc) : NULL;
        r->kind->name_case(&c);
        if (!c.label[0]) snprintf(c.label, sizeof c.label, "%s", c.name);
        if (!doc)
            kh_replay_fail(&c, "malformed: column %u: %s", je.col, je.msg);
        else
            r->kind->run(r, &c);
        if (c.failed) {
            fprintf(r->out, "case %s: %s\n", c.label, c.why);
            r->res->failed++;
        } else {
            r->res->passed++;
        }
        add_deviation(&dev, &c);
        kh_json_free(doc);
    }
    if (!r->res->passed && !r->res->failed) return; /* refused by the caller: no case */
    if (dev.n)
        fprintf(r->out, "cycles: mean deviation %.1f %%, largest %.1f %% (case %s)\n", dev.sum / dev.n, dev.largest,
                dev.largest_case);
    fprintf(r->out, "%u passed, %u failed\n", r->res->passed, r->res->failed);
}

int kh_replay_file(const char *kind, const char *file, const kh_replay_opts *o, kh_replay_result *res, char *err,
                   size_t errlen)
{
    kh_replay r;
    memset(&r, 0, sizeof r);
    memset(res, 0, sizeof *res);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0] && !r.kind; i++)
        if (!strcmp(kind, kinds[i]->name)) r.kind = kinds[i];
    if (!r.kind) {
        size_t used = 0;
        kh_bufcat(err, errlen, &used, "unknown kind '%s' (", kind);
        for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
            kh_bufcat(err, errlen, &used, "%s%s", i ? ", " : "", kinds[i]->name);
        kh_bufcat(err, errlen, &used, ")");
        return -2;
    }
    if (!r.kind->simulates && (o->trace_file || o->stats_file || o->stats_out)) {
        snprintf(err, errlen,
                 "%s computes each case without a simulation: --trace, --stats, --report and --heatmap do not apply",
                 kind);
        return -2;
    }
    r.o = o;
    r.out = o->out ? o->out : stdout;
    r.res = res;
    kh_jsonl in;
    if (kh_jsonl_open(&in, file, err, errlen)) return -1;
    if (open_outputs(&r, err, errlen) || (r.kind->open && r.kind->open(&r, err, errlen))) {
        if (r.kind->close) r.kind->close(&r);
        close_outputs(&r);
        kh_jsonl_close(&in);
        return -1;
    }
    run_file(&r, &in);
    kh_jsonl_close(&in);
    if (!res->passed && !res->failed && !r.io_err[0])
        snprintf(r.io_err, sizeof r.io_err, "%s holds no case (one JSON object per line, vectors/README.md)", file);
    if (r.kind->close) r.kind->close(&r);
    close_outputs(&r);
    if (r.io_err[0]) {
        snprintf(err, errlen, "%s", r.io_err);
        return -1;
    }
    return 0;
}
