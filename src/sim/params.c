/* The parameter mechanism and the kernel's rows (include/kohaku/params.def).
 * The whole table with the unit kinds' rows is src/cu/params.c. */
#include <stdio.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/params.h"

static const kh_param_info core[] = {
#define KH_PARAM KH_PARAM_INFO
#include "kohaku/params.def"
#undef KH_PARAM
};

const kh_param_info *kh_params_core_rows(size_t *n)
{
    *n = sizeof core / sizeof core[0];
    return core;
}

void kh_params_default(kh_params *p)
{
#define KH_PARAM(name, dflt, lo, hi, unit, source, doc) p->name = dflt;
#include "kohaku/params.def"
#include "kohaku/params_units.def"
#undef KH_PARAM
}

uint64_t kh_param_get(const kh_params *p, const kh_param_info *row)
{
    uint64_t v;
    memcpy(&v, (const char *)p + row->offset, sizeof v);
    return v;
}

int kh_param_rows_check(const kh_params *p, const kh_param_info *rows, size_t n, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = kh_param_get(p, &rows[i]);
        if (v < rows[i].min || v > rows[i].max) {
            snprintf(err, errlen, "parameter %s = %llu is outside %llu..%llu (%s)", rows[i].name,
                     (unsigned long long)v, (unsigned long long)rows[i].min, (unsigned long long)rows[i].max,
                     rows[i].source);
            return -1;
        }
    }
    return 0;
}

int kh_param_check_named(const kh_params *p, const char *name, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof core / sizeof core[0]; i++)
        if (!strcmp(core[i].name, name)) return kh_param_rows_check(p, &core[i], 1, err, errlen);
    snprintf(err, errlen, "unknown parameter '%s'", name);
    return -1;
}

int kh_param_pow2(const kh_params *p, const kh_param_info *row, const char *why, char *err, size_t errlen)
{
    uint64_t v = kh_param_get(p, row);
    if (v && !(v & (v - 1))) return 0;
    snprintf(err, errlen, "parameter %s = %llu must be a power of two: %s", row->name, (unsigned long long)v, why);
    return -1;
}

int kh_params_core_check(const kh_params *p, char *err, size_t errlen)
{
    if (kh_param_rows_check(p, core, sizeof core / sizeof core[0], err, errlen)) return -1;
    if (p->q_margin >= p->q_depth) {
        snprintf(err, errlen,
                 "q_margin = %llu must be below q_depth = %llu: the port would be busy forever "
                 "(memory.md §10)",
                 (unsigned long long)p->q_margin, (unsigned long long)p->q_depth);
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
    {"v2_l1_prim", "block", 0},
    {"v2_l1_prim", "ultra", 1},
    {"host_map", "kohaku", KH_HOST_MAP_KOHAKU},
    {"host_map", "noboard", KH_HOST_MAP_NOBOARD},
};

int kh_param_choice(const char *param, const char *value, uint64_t *v)
{
    for (size_t i = 0; i < sizeof choice_names / sizeof choice_names[0]; i++)
        if (!strcmp(choice_names[i].param, param) && !strcmp(choice_names[i].name, value)) {
            *v = choice_names[i].value;
            return 0;
        }
    return -1;
}

void kh_param_choice_names(const char *param, char *buf, size_t len)
{
    size_t used = 0;
    if (len) buf[0] = '\0';
    for (size_t k = 0; k < sizeof choice_names / sizeof choice_names[0]; k++)
        if (!strcmp(choice_names[k].param, param))
            kh_bufcat(buf, len, &used, "%s%s", used ? ", " : " or one of ", choice_names[k].name);
}

/* control.md §9.3: the recordings' benches drove the host window with no
 * host time; their profiles pin it so replays and their figures stay. */
static void zero_time_host(kh_params *p)
{
    p->host_write_cycles = 0;
    p->host_read_cycles = 0;
    p->host_beat_cycles = 0;
}

void kh_params_stand_in_fifos(kh_params *p)
{
    p->fifo_latency = 1;
    p->fifo_extra_cap = 2;
    zero_time_host(p);
    /* Every recording comes from the older RTL (7703ee8), whose dispatcher
     * differs from control.md §2.4-§2.5 (docs/timing.md "Dispatcher"). */
    p->dispatch_older_rtl = 1;
}

/* Upstream's JTAG host link: "a JTAG poll costs ~13 ms" (upstream's
 * docs/projects/kohakutpu/multi-mesh.md at 7703ee8), in 300 MHz mesh cycles. */
#define UPSTREAM_JTAG_ACCESS UINT64_C(3900000)

int kh_params_core_profile(kh_params *p, const char *profile)
{
    if (!strcmp(profile, "machine")) {
        kh_params_default(p);
    } else if (!strcmp(profile, "host-zero")) {
        zero_time_host(p);
    } else if (!strcmp(profile, "rec")) {
        kh_params_stand_in_fifos(p);
    } else if (!strcmp(profile, "upstream-7703ee8")) {
        /* Upstream's published software (compiler/kohakutpu, driver/
         * kohakuaccel at 7703ee8) and the RTL it was written against: FILLs
         * of FP16 operands quantised on the read path (cluster.md §11), that
         * RTL's dispatcher (docs/timing.md), the host map its Card() assumes
         * without a board file (docs/python.md), and the host link it was
         * used over: JTAG, ~13 ms per access by upstream's measure, 3.9 M
         * cycles of the 300 MHz mesh. Its driver reads a result as soon as
         * the completion count says so; on that link the drain's last
         * writes have landed by then (docs/diagnostics.md). */
        p->read_quant = 1;
        p->dispatch_older_rtl = 1;
        p->host_map = KH_HOST_MAP_NOBOARD;
        p->host_access_cycles = UPSTREAM_JTAG_ACCESS;
    } else {
        return 0;
    }
    return 1;
}
