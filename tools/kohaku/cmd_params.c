/* kohaku params: the machine-parameter table (include/kohaku/params.def). */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/cu.h"
#include "kohaku/echo.h"
#include "kohaku/params.h"

static void usage(void)
{
    printf("usage: kohaku params [--profile NAME]\n"
           "  Lists every machine parameter: name, value, the range kohaku enforces, unit,\n"
           "  what it is and its spec source. A bound is the spec's where the source names the\n"
           "  rule that sets it; a source that says \"ours\", and any bound it does not explain,\n"
           "  is kohaku's own. Some rows have a rule beyond the range (\"a power of two\").\n"
           "  Profiles: machine (defaults), rec");
    unsigned n;
    const kh_unit_kind *const *kinds = kh_unit_kinds(&n);
    for (unsigned k = 0; k < n; k++)
        if (kinds[k]->profile) printf(", %s", kinds[k]->profile);
    printf("\n  (the recording environments of ../shared/spec/parameters.md §2).\n"
           "  kohaku run and kohaku bench noc take --profile and --param NAME=VALUE.\n"
           "  Exit status: 0 listed, 1 an unknown profile, 2 usage.\n");
}

int kh_cmd_params(int argc, char **argv)
{
    const char *profile = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage();
            return 0;
        } else if (!strcmp(argv[i], "--profile")) {
            /* a missing value, or a second --profile, is a usage error that says so */
            if (i + 1 >= argc || profile) {
                fprintf(stderr, "kohaku params: --profile %s\n", profile ? "is given twice" : "needs a value");
                return 2;
            }
            profile = argv[++i];
        } else {
            kh_echo_buf b;
            fprintf(stderr, "kohaku params: unexpected argument '%s'\n", kh_echo(argv[i], &b));
            return 2;
        }
    }
    kh_params p;
    char err[200];
    kh_params_default(&p);
    if (profile && kh_params_profile(&p, profile, err, sizeof err)) {
        fprintf(stderr, "kohaku params: %s\n", err);
        return 1;
    }
    const kh_param_info *t;
    for (size_t i = 0; (t = kh_params_row(i)); i++) {
        char range[48];
        snprintf(range, sizeof range, "%llu..%llu", (unsigned long long)t->min, (unsigned long long)t->max);
        printf("%-22s %12llu  %-14s %-12s %s [%s]\n", t->name, (unsigned long long)kh_param_get(&p, t), range,
               t->unit, t->doc, t->source);
    }
    return 0;
}
