/* The shared simulation options of the kohaku subcommands (simopts.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/echo.h"
#include "kohaku/hex.h"
#include "simopts.h"

/* --profile/--param under the subcommand's rule: 1 taken, -1 refused. */
static int take_edit(kh_simopts *o, const char *opt, const char *val)
{
    int profile = !strcmp(opt, "--profile");
    if (o->takes & KH_SIMOPT_PARAMS_PROFILE_FIRST) {
        if (profile) {
            o->profile = val; /* the last one wins (bench noc's documented rule) */
            return 1;
        }
        if (o->nedit == KH_SIMOPTS_MAX_PARAMS) {
            fprintf(stderr, "%s: too many --param\n", o->who);
            return -1;
        }
    } else if (o->nedit == KH_SIMOPTS_MAX_EDITS) {
        fprintf(stderr, "%s: more than %d --profile/--param options\n", o->who, KH_SIMOPTS_MAX_EDITS);
        return -1;
    }
    o->edit[o->nedit].opt = opt;
    o->edit[o->nedit++].val = val;
    return 1;
}

/* --trace-window A:B: the cycles [A, B), each a decimal or 0x number
 * (kh_parse_u64: a leading 0 is not octal). */
static int take_window(kh_simopts *o, const char *v)
{
    const char *colon = strchr(v, ':');
    char first[64];
    uint64_t a = 0, b = 0;
    size_t n = colon ? (size_t)(colon - v) : 0;
    int ok = colon && n < sizeof first;
    if (ok) {
        memcpy(first, v, n);
        first[n] = 0;
        ok = !kh_parse_u64(first, &a) && !kh_parse_u64(colon + 1, &b) && a < b;
    }
    if (!ok) {
        kh_echo_buf eb;
        fprintf(stderr, "%s: --trace-window '%s': expected A:B, cycles with A < B\n", o->who, kh_echo(v, &eb));
        return -1;
    }
    o->keep.begin = a;
    o->keep.end = b;
    o->window_given = 1;
    return 1;
}

/* --trace-flits all|none|TYPE,TYPE...: the flit types a trace keeps. */
static int take_flits(kh_simopts *o, const char *v)
{
    static const struct { const char *name; unsigned type; } types[] = {
        {"mem_rd_req", KH_T_MEM_RD_REQ}, {"mem_wr_req", KH_T_MEM_WR_REQ}, {"mem_rd_resp", KH_T_MEM_RD_RESP},
        {"mem_wr_ack", KH_T_MEM_WR_ACK}, {"mem_wr_data", KH_T_MEM_WR_DATA}, {"cu_inst", KH_T_CU_INST},
        {"cu_signal", KH_T_CU_SIGNAL},   {"cu_ctrl", KH_T_CU_CTRL},         {"cu_data", KH_T_CU_DATA},
        {"error", KH_T_ERROR},
    };
    uint32_t mask = 0;
    if (!strcmp(v, "all")) {
        mask = KH_TRACE_ALL_FLITS;
    } else if (strcmp(v, "none")) {
        for (const char *p = v;;) {
            size_t n = strcspn(p, ",");
            unsigned t = 0;
            while (t < sizeof types / sizeof types[0] && (strlen(types[t].name) != n || strncmp(types[t].name, p, n)))
                t++;
            if (t == sizeof types / sizeof types[0]) {
                fprintf(stderr,
                        "%s: --trace-flits: unknown flit type '%.*s' (all, none, or a list of mem_rd_req, "
                        "mem_wr_req, mem_rd_resp, mem_wr_ack, mem_wr_data, cu_inst, cu_signal, cu_ctrl, "
                        "cu_data, error)\n",
                        o->who, (int)n, p);
                return -1;
            }
            mask |= 1u << types[t].type;
            if (!p[n]) break;
            p += n + 1;
        }
    }
    o->keep.flit_types = mask;
    o->flits_given = 1;
    return 1;
}

kh_trace_filter kh_simopts_keep(const kh_simopts *o)
{
    kh_trace_filter k = o->keep;
    if (!k.end) k.end = KH_NEVER;
    if (!o->flits_given) k.flit_types = KH_TRACE_ALL_FLITS;
    return k;
}

int kh_simopts_done(const kh_simopts *o)
{
    if (o->trace || (!o->window_given && !o->flits_given)) return 0;
    fprintf(stderr, "%s: %s shapes the trace, and there is no --trace FILE.json to write it to\n", o->who,
            o->window_given ? "--trace-window" : "--trace-flits");
    return -1;
}

int kh_simopts_output(const kh_simopts *o) { return o->trace || o->stats || o->report || o->heatmap; }

/* --engine cycle|fast: every simulation this process builds from here on
 * (a replay builds one per case, bench noc one per load) starts with it, by
 * the variable kh_sim_new reads (sim.h). */
static int take_engine(kh_simopts *o, const char *v)
{
    kh_sim_engine_kind e;
    if (kh_sim_engine_parse(v, &e)) {
        kh_echo_buf eb;
        fprintf(stderr, "%s: --engine '%s': want cycle or fast\n", o->who, kh_echo(v, &eb));
        return -1;
    }
    if (o->engine) {
        fprintf(stderr, "%s: --engine is given twice\n", o->who);
        return -1;
    }
    o->engine = v;
    if (setenv("KOHAKU_ENGINE", kh_sim_engine_name(e), 1)) {
        fprintf(stderr, "%s: --engine: cannot set KOHAKU_ENGINE\n", o->who);
        return -1;
    }
    return 1;
}

int kh_simopts_take(kh_simopts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--engine")) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "%s: --engine needs a value (cycle or fast)\n", o->who);
            return -1;
        }
        return take_engine(o, argv[++*i]);
    }
    if (!strcmp(a, "--check")) {
        o->check = 1;
        return 1;
    }
    if (!strcmp(a, "--report")) {
        o->report = 1;
        return 1;
    }
    if (!strcmp(a, "--strict") && (o->takes & KH_SIMOPT_STRICT)) {
        o->strict = 1;
        return 1;
    }
    if ((!strcmp(a, "--trace-window") || !strcmp(a, "--trace-flits")) && *i + 1 < argc) {
        const char *v = argv[++*i];
        return a[8] == 'w' ? take_window(o, v) : take_flits(o, v);
    }
    const char **slot = NULL;
    if (!strcmp(a, "--trace"))
        slot = &o->trace;
    else if (!strcmp(a, "--stats"))
        slot = &o->stats;
    else if (!strcmp(a, "--heatmap"))
        slot = &o->heatmap;
    else if (!strcmp(a, "--map") && (o->takes & KH_SIMOPT_MAP))
        slot = &o->map;
    int edit = (!strcmp(a, "--profile") || !strcmp(a, "--param")) &&
               (o->takes & (KH_SIMOPT_PARAMS_IN_ORDER | KH_SIMOPT_PARAMS_PROFILE_FIRST));
    /* an option this subcommand does not take goes back to the caller */
    if (!slot && !edit) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value (%s)\n", o->who, a,
                edit && a[2] == 'p' && a[3] == 'a' ? "NAME=VALUE" : edit ? "a profile name" : "a file name");
        return -1;
    }
    const char *v = argv[++*i];
    if (slot) {
        if (*slot) {
            fprintf(stderr, "%s: %s is given twice\n", o->who, a);
            return -1;
        }
        *slot = v;
        return 1;
    }
    return take_edit(o, a, v);
}

int kh_simopts_apply(const kh_simopts *o, kh_params *p, char *err, size_t errlen)
{
    if (o->profile && kh_params_profile(p, o->profile, err, errlen)) return -1;
    for (unsigned i = 0; i < o->nedit; i++) {
        int rc = !strcmp(o->edit[i].opt, "--profile") ? kh_params_profile(p, o->edit[i].val, err, errlen)
                                                      : kh_params_set_assign(p, o->edit[i].val, err, errlen);
        if (rc) return -1;
    }
    return 0;
}

int kh_simopts_params(const kh_simopts *o, kh_params *p, char *err, size_t errlen)
{
    kh_params_default(p);
    if (!kh_simopts_apply(o, p, err, errlen)) return 0;
    fprintf(stderr, "%s: %s\n", o->who, err);
    return 1;
}

kh_machine *kh_simopts_machine(const kh_simopts *o, const char *machine, char *err, size_t errlen)
{
    kh_machine_spec *spec = kh_machine_spec_load(machine, err, errlen);
    if (!spec) return NULL;
    kh_params p;
    kh_params_default(&p);
    kh_machine *m = NULL;
    char e2[1024];
    if (!kh_machine_spec_params(spec, &p, err, errlen) && !kh_simopts_apply(o, &p, err, errlen)) {
        m = kh_machine_build(spec, &p, e2, sizeof e2);
        if (!m) snprintf(err, errlen, "%s: %s", machine, e2);
    }
    kh_machine_spec_free(spec);
    return m;
}

int kh_simopts_word(const kh_simopts *o, const char *word, const char **slots, unsigned nslots,
                    void (*usage)(FILE *), int *rc)
{
    if (!strcmp(word, "--help") || !strcmp(word, "-h")) {
        usage(stdout);
        *rc = 0;
        return 0;
    }
    if (word[0] == '-') {
        fprintf(stderr, "%s: unknown option '%s'\n", o->who, word);
    } else {
        for (unsigned k = 0; k < nslots; k++)
            if (!slots[k]) {
                slots[k] = word;
                return 1;
            }
    }
    usage(stderr);
    *rc = 2;
    return 0;
}
