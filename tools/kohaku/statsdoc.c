/* Reading a stats JSON (statsdoc.h). */
#include <stdlib.h>
#include <string.h>

#include "kohaku/trace.h"
#include "statsdoc.h"

double kh_sd_num(const kh_json_val *obj, const char *path)
{
    char key[64];
    while (obj && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key) return 0;
        memcpy(key, path, n);
        key[n] = 0;
        obj = kh_json_get(obj, key);
        if (!path[n]) break;
        path += n + 1;
    }
    double v;
    return kh_json_double(obj, &v) ? 0 : v;
}

const char *kh_sd_str(const kh_json_val *obj, const char *key)
{
    const char *s = kh_json_str(kh_json_get(obj, key), NULL);
    return s ? s : "";
}

const kh_json_val *kh_sd_comp(const kh_json_val *root, const char *name)
{
    const kh_json_val *cs = kh_json_get(root, "components");
    for (size_t i = 0; i < kh_json_len(cs); i++)
        if (!strcmp(kh_sd_str(kh_json_at(cs, i), "name"), name)) return kh_json_at(cs, i);
    return NULL;
}

const kh_json_val *kh_sd_link(const kh_json_val *root, const char *name)
{
    const kh_json_val *ls = kh_json_get(root, "links");
    for (size_t i = 0; i < kh_json_len(ls); i++)
        if (!strcmp(kh_sd_str(kh_json_at(ls, i), "name"), name)) return kh_json_at(ls, i);
    return NULL;
}

double kh_sd_link_flits(const kh_json_val *root, const char *name) { return kh_sd_num(kh_sd_link(root, name), "flits"); }

double kh_sd_sum(const kh_json_val *root, const char *kind, const char *has, const char *path)
{
    const kh_json_val *cs = kh_json_get(root, "components");
    double s = 0;
    for (size_t i = 0; i < kh_json_len(cs); i++) {
        const kh_json_val *c = kh_json_at(cs, i), *st = kh_json_get(c, "stats");
        if (strcmp(kh_sd_str(c, "kind"), kind) || (has && !kh_json_get(st, has))) continue;
        s += kh_sd_num(st, path);
    }
    return s;
}

double kh_sd_share(double v, double cycles) { return cycles > 0 ? v / cycles : 0; }

kh_json *kh_sd_snapshot(kh_sim *sim, const char *run, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory for the statistics");
        return NULL;
    }
    kh_stats_fprint_json_run(sim, run, f);
    int bad = ferror(f);
    fclose(f);
    kh_json_error je;
    kh_json *doc = bad ? NULL : kh_json_parse(text, len, &je);
    if (!doc) snprintf(err, errlen, "statistics: %s", bad ? "out of memory" : je.msg);
    free(text);
    return doc;
}
