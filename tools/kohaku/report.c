/* The end-of-run report (report.h): every figure is read from the stats
 * JSON, so the report and the file never disagree. Utilisation is against
 * each resource's peak: a link or a memory port's link carries one flit per
 * cycle, DRAM one 32-byte beat per cycle each way, the staging store one
 * claimed burst at a time (memory.md §7, §8). */
#include <stdlib.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/json.h"
#include "kohaku/sim.h"
#include "report.h"
#include "statsdoc.h"

#define PCT(v, cycles) (100.0 * kh_sd_share((v), (cycles)))
#define HOT_LINKS 5

static void units(const kh_json_val *root, double cycles, FILE *out)
{
    const kh_json_val *cs = kh_json_get(root, "components");
    int any = 0;
    for (size_t i = 0; i < kh_json_len(cs); i++) {
        const kh_json_val *c = kh_json_at(cs, i), *st = kh_json_get(c, "stats");
        if (strcmp(kh_sd_str(c, "kind"), "cu")) continue;
        if (!any++)
            fprintf(out, "units: cycles busy / waiting for memory / waiting for instructions / idle\n");
        double b = kh_sd_num(st, "cycles.busy"), m = kh_sd_num(st, "cycles.wait_memory"),
               w = kh_sd_num(st, "cycles.wait_instructions"), d = kh_sd_num(st, "cycles.idle");
        fprintf(out, "  %-16s %10.0f %5.1f %%  %10.0f %5.1f %%  %10.0f %5.1f %%  %10.0f %5.1f %%  %.0f instructions\n",
                kh_sd_str(c, "name"), b, PCT(b, cycles), m, PCT(m, cycles), w, PCT(w, cycles), d, PCT(d, cycles),
                kh_sd_num(st, "instructions"));
    }
}

/* What the units that write FP16 results drained, and how much of it is
 * suspicious: saturated at +-65504 or non-finite (the stats' drained_values,
 * saturated, nonfinite). */
static void drained(const kh_json_val *root, FILE *out)
{
    const kh_json_val *cs = kh_json_get(root, "components");
    int any = 0;
    for (size_t i = 0; i < kh_json_len(cs); i++) {
        const kh_json_val *c = kh_json_at(cs, i), *st = kh_json_get(c, "stats");
        double n = kh_sd_num(st, "drained_values");
        if (strcmp(kh_sd_str(c, "kind"), "cu") || !(n > 0)) continue;
        if (!any++) fprintf(out, "drained FP16 values: written out / saturated at +-65504 / non-finite\n");
        double s = kh_sd_num(st, "saturated"), f = kh_sd_num(st, "nonfinite");
        fprintf(out, "  %-16s %10.0f  %10.0f %5.1f %%  %10.0f %5.1f %%\n", kh_sd_str(c, "name"), n, s,
                100.0 * kh_sd_share(s, n), f, 100.0 * kh_sd_share(f, n));
    }
}

/* The run's diagnostics (docs/diagnostics.md), first: they say the results
 * are not to be trusted. */
static void diagnostics(const kh_json_val *root, FILE *out)
{
    const kh_json_val *ds = kh_json_get(root, "diagnostics");
    for (size_t i = 0; i < kh_json_len(ds); i++) {
        const kh_json_val *d = kh_json_at(ds, i);
        double n = kh_sd_num(d, "count");
        fprintf(out, "diagnostic %s (seen %.0f time%s): %s\n", kh_sd_str(d, "name"), n, n == 1 ? "" : "s",
                kh_sd_str(d, "message"));
    }
}

/* The links into and out of component name: their flits. */
static void link_flits(const kh_json_val *root, const char *name, double *in, double *outf)
{
    const kh_json_val *ls = kh_json_get(root, "links");
    *in = *outf = 0;
    for (size_t i = 0; i < kh_json_len(ls); i++) {
        const kh_json_val *l = kh_json_at(ls, i);
        if (!strcmp(kh_sd_str(l, "from"), name)) *outf += kh_sd_num(l, "flits");
        if (!strcmp(kh_sd_str(l, "to"), name)) *in += kh_sd_num(l, "flits");
    }
}

/* The converged-path channel of requester name. */
static const kh_json_val *channel_of(const kh_json_val *root, const char *name)
{
    const kh_json_val *cs = kh_json_get(root, "components");
    for (size_t i = 0; i < kh_json_len(cs); i++) {
        const kh_json_val *c = kh_json_at(cs, i);
        if (strcmp(kh_sd_str(c, "kind"), "mem_path")) continue;
        const kh_json_val *ch = kh_json_get(kh_json_get(c, "stats"), "channels");
        for (size_t k = 0; k < kh_json_len(ch); k++)
            if (!strcmp(kh_sd_str(kh_json_at(ch, k), "what"), name)) return kh_json_at(ch, k);
    }
    return NULL;
}

static void ports(const kh_json_val *root, double cycles, FILE *out)
{
    const kh_json_val *cs = kh_json_get(root, "components");
    int any = 0;
    for (size_t i = 0; i < kh_json_len(cs); i++) {
        const kh_json_val *c = kh_json_at(cs, i), *st = kh_json_get(c, "stats");
        if (strcmp(kh_sd_str(c, "kind"), "mem_port")) continue;
        if (!any++)
            fprintf(out, "memory ports: requests (plain reads + streaming reads + write bursts), bytes on the converged "
                         "path, link flits in / out (of 1 per cycle), busy cycles\n");
        const char *name = kh_sd_str(c, "name");
        const kh_json_val *ch = channel_of(root, name);
        double in, o, busy = kh_sd_num(st, "busy_cycles");
        link_flits(root, name, &in, &o);
        fprintf(out, "  %-16s %6.0f requests  read %10.0f B  written %10.0f B  in %8.0f (%5.1f %%)  out %8.0f (%5.1f %%)  "
                     "busy %10.0f (%5.1f %%)\n",
                name, kh_sd_num(st, "plain_reads") + kh_sd_num(st, "streaming_reads") + kh_sd_num(st, "write_bursts"),
                kh_sd_num(ch, "read_bytes"), kh_sd_num(ch, "write_bytes"), in, PCT(in, cycles), o, PCT(o, cycles), busy,
                PCT(busy, cycles));
    }
}

static void node(const kh_json_val *root, double cycles, FILE *out)
{
    const kh_json_val *cs = kh_json_get(root, "components");
    for (size_t i = 0; i < kh_json_len(cs); i++) {
        const kh_json_val *c = kh_json_at(cs, i), *st = kh_json_get(c, "stats");
        const char *kind = kh_sd_str(c, "kind"), *name = kh_sd_str(c, "name");
        if (!strcmp(kind, "mem_path")) {
            double dr = kh_sd_num(st, "dram_read_bytes"), dw = kh_sd_num(st, "dram_write_bytes");
            double sb = kh_sd_num(st, "staging_busy_cycles");
            fprintf(out, "converged path %s: %.0f read grants, %.0f write grants (%.0f to the staging store)\n", name,
                    kh_sd_num(st, "read_grants"), kh_sd_num(st, "write_grants"), kh_sd_num(st, "staging_grants"));
            fprintf(out, "  DRAM: read %.0f B (%.1f %% of a beat per cycle), written %.0f B (%.1f %%)\n", dr,
                    PCT(dr / 32, cycles), dw, PCT(dw / 32, cycles));
            fprintf(out, "  staging store: read %.0f B, written %.0f B, busy %.0f cycles (%.1f %%)\n",
                    kh_sd_num(st, "staging_read_bytes"), kh_sd_num(st, "staging_write_bytes"), sb, PCT(sb, cycles));
            const kh_json_val *ch = kh_json_get(st, "channels");
            for (size_t k = 0; k < kh_json_len(ch); k++) {
                const kh_json_val *r = kh_json_at(ch, k);
                fprintf(out, "  channel %.0f %-16s %8.0f reads (%10.0f B)  %8.0f writes (%10.0f B)\n",
                        kh_sd_num(r, "channel"), kh_sd_str(r, "what"), kh_sd_num(r, "reads"), kh_sd_num(r, "read_bytes"),
                        kh_sd_num(r, "writes"), kh_sd_num(r, "write_bytes"));
            }
        } else if (!strcmp(kind, "mover")) {
            double b = kh_sd_num(st, "busy_cycles"), x = kh_sd_num(st, "xform_cycles");
            fprintf(out, "mover %s: %.0f moves, %.0f elements, %.0f read bursts, %.0f write bursts, busy %.0f cycles "
                         "(%.1f %%)\n",
                    name, kh_sd_num(st, "moves"), kh_sd_num(st, "elements"), kh_sd_num(st, "read_bursts"),
                    kh_sd_num(st, "write_bursts"), b, PCT(b, cycles));
            fprintf(out, "  transform slot: %.0f entries converted, %.0f cycles converting (%.1f %%)\n",
                    kh_sd_num(st, "xform_entries"), x, PCT(x, cycles));
        }
    }
}

static void routers(const kh_json_val *root, double cycles, FILE *out)
{
    const kh_json_val *cs = kh_json_get(root, "components");
    int any = 0;
    for (size_t i = 0; i < kh_json_len(cs); i++) {
        const kh_json_val *c = kh_json_at(cs, i);
        if (strcmp(kh_sd_str(c, "kind"), "router")) continue;
        double h = kh_sd_num(kh_json_get(c, "stats"), "hops");
        fprintf(out, "%s %s %.0f flit-hops (%.3f per cycle)", any++ ? "," : "routers:", kh_sd_str(c, "name"), h,
                kh_sd_share(h, cycles));
    }
    if (any) fputc('\n', out);
}

static int by_flits(const void *a, const void *b)
{
    double x = kh_sd_num(*(const kh_json_val *const *)a, "flits"), y = kh_sd_num(*(const kh_json_val *const *)b, "flits");
    return x < y ? 1 : x > y ? -1 : 0; /* more flits first */
}

static void links(const kh_json_val *root, double cycles, FILE *out)
{
    const kh_json_val *ls = kh_json_get(root, "links");
    size_t n = kh_json_len(ls);
    if (!n) return;
    const kh_json_val **v = malloc(n * sizeof *v);
    if (!v) return;
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = kh_json_at(ls, i);
        total += kh_sd_num(v[i], "flits");
    }
    /* insertion sort: links are few, and equal counts keep the file's order */
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && by_flits(&v[k - 1], &v[k]) > 0; k--) {
            const kh_json_val *t = v[k];
            v[k] = v[k - 1];
            v[k - 1] = t;
        }
    fprintf(out, "links: %zu, %.0f flits in all; the hottest %d (flits, share of 1 flit per cycle, stall cycles):\n", n,
            total, n < HOT_LINKS ? (int)n : HOT_LINKS);
    for (size_t i = 0; i < n && i < HOT_LINKS; i++)
        fprintf(out, "  %-28s %10.0f %6.2f %%  %10.0f\n", kh_sd_str(v[i], "name"), kh_sd_num(v[i], "flits"),
                PCT(kh_sd_num(v[i], "flits"), cycles), kh_sd_num(v[i], "stall_cycles"));
    free(v);
}

static void gemm(const kh_json_val *run, FILE *out)
{
    const kh_json_val *g = kh_json_get(run, "gemm");
    if (!g) return;
    double macs = kh_sd_num(g, "macs"), cyc = kh_sd_num(g, "cycles"), peak = kh_sd_num(g, "peak_mac_per_cycle");
    fprintf(out, "gemm %.0fx%.0fx%.0f on %.0f clusters: %.0f MACs in %.0f cycles (cycles %.0f to %.0f) = %.1f MAC/cycle of "
                 "%.0f peak (%.1f %%)\n",
            kh_sd_num(g, "m"), kh_sd_num(g, "n"), kh_sd_num(g, "k"), kh_sd_num(g, "clusters"), macs, cyc,
            kh_sd_num(g, "begin"), kh_sd_num(g, "end"), kh_sd_num(g, "mac_per_cycle"), peak,
            100.0 * kh_sd_share(kh_sd_num(g, "mac_per_cycle"), peak));
    const kh_json_val *u = kh_json_get(g, "utilisation");
    fprintf(out, "  during the gemm:");
    for (size_t i = 0; i < kh_json_len(u); i++) {
        double v;
        kh_json_double(kh_json_at(u, i), &v);
        fprintf(out, "%s %s %.1f %%", i ? "," : "", kh_json_key_at(u, i), 100.0 * v);
    }
    fprintf(out, "\n  bound by: %s\n", kh_sd_str(g, "bound"));
}

static void one_report(const kh_json_val *root, FILE *out)
{
    const kh_json_val *run = kh_json_get(root, "run");
    double cycles = kh_sd_num(root, "cycle");
    fprintf(out, "report: %s, %.0f cycles\n", run ? kh_sd_str(run, "name") : "(no run section)", cycles);
    diagnostics(root, out);
    units(root, cycles, out);
    drained(root, out);
    ports(root, cycles, out);
    node(root, cycles, out);
    routers(root, cycles, out);
    links(root, cycles, out);
    gemm(run, out);
}

void kh_report_print(const kh_json_val *root, FILE *out)
{
    const kh_json_val *cases = kh_json_get(root, "cases");
    if (!cases) {
        one_report(root, out);
        return;
    }
    for (size_t i = 0; i < kh_json_len(cases); i++) {
        if (i) fputc('\n', out);
        one_report(kh_json_get(kh_json_at(cases, i), "stats"), out);
    }
}

/* One stats object as the report reads it: a 'cycle' count (a whole number,
 * no more than the clock's end) and a 'components' list. Every case is
 * checked before a line is printed. */
static int stats_ok(const kh_json_val *one, const char *what, const char *where, char *err, size_t errlen)
{
    if (kh_json_type_of(kh_json_get(one, "cycle")) != KH_JSON_NUMBER ||
        kh_json_type_of(kh_json_get(one, "components")) != KH_JSON_ARRAY) {
        snprintf(err, errlen, "%s: not a stats file (no 'cycle' number and 'components' list%s)", what, where);
        return -1;
    }
    uint64_t cycle = 0;
    char e[200];
    if (kh_json_get_u64(one, "cycle", &cycle, e, sizeof e)) {
        snprintf(err, errlen, "%s%s: %s: not a cycle count", what, where, e);
        return -1;
    }
    if (cycle > KH_CLOCK_END) {
        snprintf(err, errlen, "%s%s: 'cycle' %llu is past the clock's end, cycle 2^62", what, where,
                 (unsigned long long)cycle);
        return -1;
    }
    return 0;
}

int kh_report_stats(const char *path, const char *text, size_t len, int report, const char *heatmap, char *err,
                    size_t errlen)
{
    char *owned = NULL;
    const char *what = path ? path : "statistics";
    if (!text) {
        char e[400];
        if (!(owned = kh_file_read(path, &len, e, sizeof e))) {
            snprintf(err, errlen, "%s", e);
            return -1;
        }
        text = owned;
    }
    kh_json_error je;
    kh_json *doc = kh_json_parse(text, len, &je);
    free(owned);
    if (!doc) {
        snprintf(err, errlen, "%s: line %u column %u: %s", what, je.line, je.col, je.msg);
        return -1;
    }
    const kh_json_val *root = kh_json_root(doc), *cases = kh_json_get(root, "cases");
    size_t ncases = cases ? kh_json_len(cases) : 1;
    const kh_json_val *one = cases ? kh_json_get(kh_json_at(cases, ncases - 1), "stats") : root;
    int rc = !ncases ? stats_ok(NULL, what, " in its cases", err, errlen) : 0;
    for (size_t i = 0; !rc && i < ncases; i++) {
        char where[80] = "";
        if (cases) snprintf(where, sizeof where, " in its cases (case %zu of %zu)", i + 1, ncases);
        rc = stats_ok(cases ? kh_json_get(kh_json_at(cases, i), "stats") : root, what, where, err, errlen);
    }
    if (!rc) {
        if (report) kh_report_print(root, stdout);
        if (heatmap) rc = kh_heatmap_write(one, heatmap, err, errlen);
    }
    kh_json_free(doc);
    return rc;
}
