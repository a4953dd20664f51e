/* --stats: the simulation's counters as one JSON object (trace.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/trace.h"

enum { COMP_STATS_MAX = 1 << 16 };

static char *link_entry(const kh_link *l)
{
    char a[160], b[160], from[160];
    kh_json_escape(a, sizeof a, l->name);
    kh_json_escape(b, sizeof b, l->dst ? l->dst->name : "tie-off");
    kh_json_escape(from, sizeof from, l->src ? l->src->name : "");
    size_t n = strlen(a) + strlen(b) + strlen(from) + 160;
    char *t = malloc(n);
    if (t)
        snprintf(t, n,
                 "\n{\"name\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"flits\":%llu,\"dropped\":%llu,"
                 "\"stall_cycles\":%llu}",
                 a, from, b, (unsigned long long)l->flits, (unsigned long long)l->dropped,
                 (unsigned long long)l->stall_cycles);
    return t;
}

static char *comp_entry(kh_comp *c, char *buf)
{
    char a[160];
    kh_json_escape(a, sizeof a, c->name);
    buf[0] = 0;
    if (c->ops->stats_json) c->ops->stats_json(c, buf, COMP_STATS_MAX);
    size_t n = strlen(a) + strlen(c->ops->kind) + strlen(buf) + 64;
    char *t = malloc(n);
    if (t) snprintf(t, n, "\n{\"name\":\"%s\",\"kind\":\"%s\",\"stats\":{%s}}", a, c->ops->kind, buf);
    return t;
}

/* Every entry in order, links first (key = index), then components (key =
 * nlinks + id); with several processes, each entry comes from the process
 * that steps its component and the sync merges them. Returns the count,
 * -1 on no memory. */
static int entries(kh_sim *sim, kh_sync_rec **out)
{
    kh_sim_settle(sim);
    unsigned nl = kh_sim_nlinks(sim), nc = kh_sim_ncomps(sim), n = 0;
    const kh_sync_ops *sy = kh_sim_sync(sim);
    kh_sync_rec *v = calloc((size_t)nl + nc + 1, sizeof *v);
    char *buf = malloc(COMP_STATS_MAX);
    if (!v || !buf) {
        free(v);
        free(buf);
        return -1;
    }
    for (unsigned i = 0; i < nl; i++) {
        const kh_link *l = kh_sim_link(sim, i);
        const kh_comp *c = l->src ? l->src : l->dst;
        if (sy && c && !kh_sim_reports(sim, c)) continue;
        v[n] = (kh_sync_rec){i, link_entry(l)};
        if (v[n].text) n++;
    }
    for (unsigned i = 0; i < nc; i++) {
        kh_comp *c = kh_sim_comp(sim, i);
        if (sy && !kh_sim_reports(sim, c)) continue;
        v[n] = (kh_sync_rec){nl + i, comp_entry(c, buf)};
        if (v[n].text) n++;
    }
    free(buf);
    if (!sy) {
        *out = v;
        return (int)n;
    }
    kh_sync_rec *all = NULL;
    int nall = sy->gather(kh_sim_sync_ctx(sim), v, n, &all);
    for (unsigned i = 0; i < n; i++) free(v[i].text);
    free(v);
    *out = all;
    return nall;
}

/* The diagnostics this process raised (sim.h; under MPI each process keeps
 * its own, docs/mpi.md): name, count, first message. */
static void diagnostics(const kh_sim *sim, FILE *out)
{
    fputs(",\n\"diagnostics\":[", out);
    for (unsigned i = 0; i < kh_sim_ndiag(sim); i++) {
        uint64_t count;
        const char *msg, *name = kh_sim_diag_at(sim, i, &count, &msg);
        char n[80], m[2 * KH_DIAG_MSG];
        kh_json_escape(n, sizeof n, name);
        kh_json_escape(m, sizeof m, msg);
        fprintf(out, "%s\n{\"name\":\"%s\",\"count\":%llu,\"message\":\"%s\"}", i ? "," : "", n,
                (unsigned long long)count, m);
    }
    fputs("]", out);
}

static void print_entries(kh_sim *sim, const kh_sync_rec *v, int n, const char *run, FILE *out)
{
    unsigned nl = kh_sim_nlinks(sim);
    int i = 0;
    fprintf(out, "{\"cycle\":%llu,\n\"links\":[", (unsigned long long)kh_sim_now(sim));
    for (int k = 0; i < n && v[i].key < nl; i++, k++) fprintf(out, "%s%s", k ? "," : "", v[i].text);
    fputs("],\n\"components\":[", out);
    for (int k = 0; i < n; i++, k++) fprintf(out, "%s%s", k ? "," : "", v[i].text);
    fputs("]", out);
    diagnostics(sim, out);
    if (run) fprintf(out, ",\n\"run\":{%s}", run);
    fputs("}\n", out);
}

static void free_entries(kh_sync_rec *v, int n)
{
    for (int i = 0; i < n; i++) free(v[i].text);
    free(v);
}

/* With several processes every one prints the merged object (collective). */
void kh_stats_fprint_json_run(kh_sim *sim, const char *run, FILE *out)
{
    kh_sync_rec *v = NULL;
    int n = entries(sim, &v);
    if (n < 0) n = 0;
    print_entries(sim, v, n, run, out);
    free_entries(v, n);
}

void kh_stats_fprint_json(kh_sim *sim, FILE *out) { kh_stats_fprint_json_run(sim, NULL, out); }

int kh_stats_write_json(kh_sim *sim, const char *path, char *err, size_t errlen)
{
    return kh_stats_write_json_run(sim, NULL, path, err, errlen);
}

/* With several processes the leader writes the merged file (collective). */
int kh_stats_write_json_run(kh_sim *sim, const char *run, const char *path, char *err, size_t errlen)
{
    kh_sync_rec *v = NULL;
    int n = entries(sim, &v);
    if (n < 0) {
        snprintf(err, errlen, "stats %s: out of memory", path);
        return -1;
    }
    if (kh_sim_sync(sim) && !kh_sim_sync(sim)->leader) {
        free_entries(v, n);
        return 0;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        free_entries(v, n);
        snprintf(err, errlen, "stats %s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    print_entries(sim, v, n, run, f);
    free_entries(v, n);
    int bad = ferror(f);
    if (fclose(f)) bad = 1;
    if (bad) snprintf(err, errlen, "stats %s: write error", path);
    return bad ? -1 : 0;
}
