/* --stats: the simulation's counters as one JSON object (trace.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/trace.h"

enum { COMP_STATS_MAX = 1 << 16 };

void kh_stats_fprint_json_run(kh_sim *sim, const char *run, FILE *out)
{
    char a[160], b[160], from[160];
    fprintf(out, "{\"cycle\":%llu,\n\"links\":[", (unsigned long long)kh_sim_now(sim));
    unsigned nl = kh_sim_nlinks(sim);
    for (unsigned i = 0; i < nl; i++) {
        const kh_link *l = kh_sim_link(sim, i);
        kh_json_escape(a, sizeof a, l->name);
        kh_json_escape(b, sizeof b, l->dst ? l->dst->name : "tie-off");
        kh_json_escape(from, sizeof from, l->src ? l->src->name : "");
        fprintf(out,
                "%s\n{\"name\":\"%s\",\"from\":\"%s\",\"to\":\"%s\",\"flits\":%llu,\"dropped\":%llu,"
                "\"stall_cycles\":%llu}",
                i ? "," : "", a, from, b, (unsigned long long)l->flits,
                (unsigned long long)l->dropped, (unsigned long long)l->stall_cycles);
    }
    fputs("],\n\"components\":[", out);
    char *buf = malloc(COMP_STATS_MAX);
    unsigned nc = kh_sim_ncomps(sim);
    for (unsigned i = 0; i < nc; i++) {
        kh_comp *c = kh_sim_comp(sim, i);
        kh_json_escape(a, sizeof a, c->name);
        fprintf(out, "%s\n{\"name\":\"%s\",\"kind\":\"%s\",\"stats\":{", i ? "," : "", a,
                c->ops->kind);
        if (buf && c->ops->stats_json) {
            buf[0] = 0;
            c->ops->stats_json(c, buf, COMP_STATS_MAX);
            fputs(buf, out);
        }
        fputs("}}", out);
    }
    free(buf);
    fputs("]", out);
    if (run) fprintf(out, ",\n\"run\":{%s}", run);
    fputs("}\n", out);
}

void kh_stats_fprint_json(kh_sim *sim, FILE *out) { kh_stats_fprint_json_run(sim, NULL, out); }

int kh_stats_write_json(kh_sim *sim, const char *path, char *err, size_t errlen)
{
    return kh_stats_write_json_run(sim, NULL, path, err, errlen);
}

int kh_stats_write_json_run(kh_sim *sim, const char *run, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "stats %s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    kh_stats_fprint_json_run(sim, run, f);
    int bad = ferror(f);
    if (fclose(f)) bad = 1;
    if (bad) snprintf(err, errlen, "stats %s: write error", path);
    return bad ? -1 : 0;
}
