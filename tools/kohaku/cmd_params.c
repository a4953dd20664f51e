/* kohaku params: the machine-parameter table (include/kohaku/params.def). */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/params.h"

int kh_cmd_params(int argc, char **argv)
{
    const char *profile = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: kohaku params [--profile NAME]\n"
                   "  Lists every machine parameter with its value, unit and spec source.\n"
                   "  Profiles: machine (defaults), rec, rec-saxpy, rec-cluster, rec-vector\n"
                   "  (the recording environments of ../shared/spec/parameters.md §2).\n"
                   "  kohaku run and kohaku bench noc take --profile and --param NAME=VALUE.\n");
            return 0;
        } else if (!strcmp(argv[i], "--profile") && i + 1 < argc) {
            profile = argv[++i];
        } else {
            fprintf(stderr, "kohaku params: unexpected argument '%s'\n", argv[i]);
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
    size_t n;
    const kh_param_info *t = kh_params_table(&n);
    for (size_t i = 0; i < n; i++) {
        uint64_t v;
        memcpy(&v, (const char *)&p + t[i].offset, sizeof v);
        printf("%-22s %12llu  %-12s %s [%s]\n", t[i].name, (unsigned long long)v, t[i].unit, t[i].doc,
               t[i].source);
    }
    return 0;
}
