/* The machine-parameter table (include/kohaku/params.def) and profiles. */
#include <stdio.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/hex.h"
#include "kohaku/params.h"

static const kh_param_info table[] = {
#define KH_PARAM(name, dflt, lo, hi, unit, source, doc) {#name, unit, source, doc, dflt, lo, hi, offsetof(kh_params, name)},
#include "kohaku/params.def"
#undef KH_PARAM
};

const kh_param_info *kh_params_table(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

void kh_params_default(kh_params *p)
{
#define KH_PARAM(name, dflt, lo, hi, unit, source, doc) p->name = dflt;
#include "kohaku/params.def"
#undef KH_PARAM
}

static uint64_t get(const kh_params *p, const kh_param_info *t)
{
    uint64_t v;
    memcpy(&v, (const char *)p + t->offset, sizeof v);
    return v;
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

int kh_params_check(const kh_params *p, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        uint64_t v = get(p, &table[i]);
        if (v < table[i].min || v > table[i].max) {
            snprintf(err, errlen, "parameter %s = %llu is outside %llu..%llu (%s)", table[i].name,
                     (unsigned long long)v, (unsigned long long)table[i].min,
                     (unsigned long long)table[i].max, table[i].source);
            return -1;
        }
    }
    if (p->q_margin >= p->q_depth) {
        snprintf(err, errlen,
                 "q_margin = %llu must be below q_depth = %llu: the port would be busy forever "
                 "(memory.md §10)",
                 (unsigned long long)p->q_margin, (unsigned long long)p->q_depth);
        return -1;
    }
    const struct {
        const char *name;
        uint64_t v;
    } pow2[] = {{"cluster_tiles", p->cluster_tiles}, {"cluster_ga", p->cluster_ga}, {"cluster_gb", p->cluster_gb}};
    for (size_t i = 0; i < sizeof pow2 / sizeof pow2[0]; i++)
        if (!is_pow2(pow2[i].v)) {
            snprintf(err, errlen,
                     "parameter %s = %llu must be a power of two: the cluster indexes it with "
                     "log2 bits (cluster.md §1)",
                     pow2[i].name, (unsigned long long)pow2[i].v);
            return -1;
        }
    return 0;
}

/* Rows whose values are choices also take the choice's name. */
static const struct {
    const char *param, *name;
    uint64_t value;
} choice_names[] = {
    {"cpu_mode", "cpu", KH_CPU_MODE_CPU},
    {"cpu_mode", "cpu-exact", KH_CPU_MODE_EXACT},
    {"cpu_mode", "agent", KH_CPU_MODE_AGENT},
    {"cpu_mode", "drop", KH_CPU_MODE_DROP},
};

static int choice_value(const char *param, const char *value, uint64_t *v)
{
    for (size_t i = 0; i < sizeof choice_names / sizeof choice_names[0]; i++)
        if (!strcmp(choice_names[i].param, param) && !strcmp(choice_names[i].name, value)) {
            *v = choice_names[i].value;
            return 0;
        }
    return -1;
}

int kh_params_set(kh_params *p, const char *name, const char *value, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, name)) continue;
        uint64_t v;
        if (kh_parse_u64(value, &v) && choice_value(name, value, &v)) {
            char names[128] = "";
            size_t used = 0;
            for (size_t k = 0; k < sizeof choice_names / sizeof choice_names[0]; k++)
                if (!strcmp(choice_names[k].param, name))
                    kh_bufcat(names, sizeof names, &used, "%s%s", used ? ", " : " or one of ", choice_names[k].name);
            snprintf(err, errlen, "parameter %s: '%s' is not a decimal or 0x number%s", name, value, names);
            return -1;
        }
        kh_params trial = *p; /* a refused value changes nothing */
        memcpy((char *)&trial + table[i].offset, &v, sizeof v);
        if (kh_params_check(&trial, err, errlen)) return -1;
        *p = trial;
        return 0;
    }
    snprintf(err, errlen, "unknown parameter '%s' (kohaku params lists them)", name);
    return -1;
}

int kh_params_set_assign(kh_params *p, const char *assign, char *err, size_t errlen)
{
    const char *eq = strchr(assign, '=');
    char name[64];
    if (!eq || (size_t)(eq - assign) >= sizeof name || eq == assign) {
        snprintf(err, errlen, "parameter '%s': expected NAME=VALUE", assign);
        return -1;
    }
    memcpy(name, assign, (size_t)(eq - assign));
    name[eq - assign] = '\0';
    return kh_params_set(p, name, eq + 1, err, errlen);
}

/* parameters.md §2.1: the recordings used behavioural stand-ins for vendor
 * FIFOs: fall-through 1 cycle, capacity DEPTH + 2 (router hop 3). */
static void stand_in_fifos(kh_params *p)
{
    p->fifo_latency = 1;
    p->fifo_extra_cap = 2;
}

int kh_params_profile(kh_params *p, const char *profile, char *err, size_t errlen)
{
    if (!strcmp(profile, "machine")) {
        kh_params_default(p);
    } else if (!strcmp(profile, "rec")) {
        stand_in_fifos(p);
    } else if (!strcmp(profile, "rec-saxpy")) { /* parameters.md §2.5 */
        stand_in_fifos(p);
        p->inst_depth = 512;
        p->recv_depth = 16;
        p->stage_built = 0;
        p->axi_ram_model = 1;
        p->dram_words_log2 = 12; /* 2048 x 512-bit words = 128 KiB, wraps */
    } else if (!strcmp(profile, "rec-cluster")) { /* parameters.md §2.3 */
        stand_in_fifos(p);
        p->inst_depth = 32;
        p->recv_depth = 64;
        p->cluster_tiles = 256;
        p->cluster_ga = 512;
        p->cluster_gb = 512;
        p->cluster_acc_mw = 14;
    } else if (!strcmp(profile, "rec-vector")) { /* parameters.md §2.4 */
        stand_in_fifos(p);
        p->inst_depth = 32;
        p->recv_depth = 64;
        p->vec_l1_depth = 512;
    } else {
        snprintf(err, errlen,
                 "unknown profile '%s' (machine, rec, rec-saxpy, rec-cluster, rec-vector)", profile);
        return -1;
    }
    return 0;
}
