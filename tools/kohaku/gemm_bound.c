/* What bound a GEMM (gemm_run.h): the utilisation of each resource it
 * uses, over the GEMM phase alone, from two stats snapshots taken at the
 * phase's start and end; the busiest resource is the one that bound it. */
#include <string.h>

#include "gemm_run.h"
#include "kohaku/bufcat.h"
#include "statsdoc.h"

/* The largest per-component growth of stats.path over components of kind
 * (both documents list the same components in the same order). */
static double max_growth(const kh_json_val *a, const kh_json_val *b, const char *kind, const char *path)
{
    const kh_json_val *ca = kh_json_get(a, "components"), *cb = kh_json_get(b, "components");
    double best = 0;
    for (size_t i = 0; i < kh_json_len(cb) && i < kh_json_len(ca); i++) {
        const kh_json_val *x = kh_json_at(ca, i), *y = kh_json_at(cb, i);
        if (strcmp(kh_sd_str(y, "kind"), kind)) continue;
        double d = kh_sd_num(kh_json_get(y, "stats"), path) - kh_sd_num(kh_json_get(x, "stats"), path);
        if (d > best) best = d;
    }
    return best;
}

/* The largest growth in flits of a link that touches a component of kind
 * (kind NULL: any link). */
static double max_link_growth(const kh_json_val *a, const kh_json_val *b, const char *kind)
{
    const kh_json_val *la = kh_json_get(a, "links"), *lb = kh_json_get(b, "links");
    double best = 0;
    for (size_t i = 0; i < kh_json_len(lb) && i < kh_json_len(la); i++) {
        const kh_json_val *x = kh_json_at(la, i), *y = kh_json_at(lb, i);
        if (kind) {
            const kh_json_val *f = kh_sd_comp(b, kh_sd_str(y, "from")), *t = kh_sd_comp(b, kh_sd_str(y, "to"));
            if (strcmp(kh_sd_str(f, "kind"), kind) && strcmp(kh_sd_str(t, "kind"), kind)) continue;
        }
        double d = kh_sd_num(y, "flits") - kh_sd_num(x, "flits");
        if (d > best) best = d;
    }
    return best;
}

void kh_gemm_bound_json(const kh_json_val *a, const kh_json_val *b, unsigned clusters, char *buf, size_t len,
                        size_t *used)
{
    double t = kh_sd_num(b, "cycle") - kh_sd_num(a, "cycle");
    double busy = kh_sd_sum(b, "cu", "macs", "cycles.busy") - kh_sd_sum(a, "cu", "macs", "cycles.busy");
    struct {
        const char *name;
        double u;
    } r[] = {
        {"clusters computing", kh_sd_share(busy, t * (clusters ? clusters : 1))},
        {"staging store", kh_sd_share(max_growth(a, b, "mem_path", "staging_busy_cycles"), t)},
        {"memory-port links", kh_sd_share(max_link_growth(a, b, "mem_port"), t)},
        {"DRAM reads", kh_sd_share(max_growth(a, b, "mem_path", "dram_read_bytes") / 32, t)},
        {"DRAM writes", kh_sd_share(max_growth(a, b, "mem_path", "dram_write_bytes") / 32, t)},
        {"busiest mesh link", kh_sd_share(max_link_growth(a, b, NULL), t)},
    };
    unsigned n = sizeof r / sizeof r[0], top = 0;
    kh_bufcat(buf, len, used, ",\"begin\":%.0f,\"end\":%.0f,\"utilisation\":{", kh_sd_num(a, "cycle"),
              kh_sd_num(b, "cycle"));
    for (unsigned i = 0; i < n; i++) {
        kh_bufcat(buf, len, used, "%s\"%s\":%.4f", i ? "," : "", r[i].name, r[i].u);
        if (r[i].u > r[top].u) top = i;
    }
    kh_bufcat(buf, len, used, "},\"bound\":\"%s (%.1f %% busy)\"", r[top].name, 100 * r[top].u);
}
