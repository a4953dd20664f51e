/* The shared simulation options of the kohaku subcommands (simopts.h). */
#include <stdio.h>
#include <string.h>

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

int kh_simopts_take(kh_simopts *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--check")) {
        o->check = 1;
        return 1;
    }
    const char **slot = NULL;
    if (!strcmp(a, "--trace"))
        slot = &o->trace;
    else if (!strcmp(a, "--stats"))
        slot = &o->stats;
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
