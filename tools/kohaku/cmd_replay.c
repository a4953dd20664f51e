/* kohaku replay KIND FILE [--rtl-compat]: one file per kind (replay_KIND.c). */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "replay.h"
#include "simopts.h"
#include "simout.h"

static const struct {
    const char *kind;
    int (*fn)(const char *file, const kh_replay_opts *o);
} kinds[] = {
    {"quant", kh_replay_quant},
    {"cluster", kh_replay_cluster},
    {"saxpy", kh_replay_saxpy},
    {"vector", kh_replay_vector},
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kohaku replay KIND FILE [--rtl-compat] [--trace F.json] [--stats F.json] [--check]\n"
            "  KIND: quant, cluster, saxpy, vector. FILE: a vector file in the format of\n"
            "  data/vectors/README.md. Prints one line per failing case, the cycle\n"
            "  deviation where the file records cycles, then 'N passed, N failed'.\n"
            "  --rtl-compat  switch on every modelled recorded-RTL behaviour\n"
            "  --check       check every flit the unit and its bench (cluster, vector) or the machine\n"
            "                (saxpy) send against flits.md §9 (docs/check.md); findings on stderr and\n"
            "                a violation exits 1 (quant simulates no flits)\n"
            "  -v, --verbose what each case did (cycles, requests) even when it passes\n"
            "  Exit status: 0 every case passed, 1 a case failed or FILE was refused, 2 usage.\n");
}

int kh_cmd_replay(int argc, char **argv)
{
    kh_replay_opts o = {0};
    kh_checkout ck = {.who = "kohaku replay"};
    kh_simopts so = {.who = "kohaku replay"};
    const char *kind = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        int t = kh_simopts_take(&so, argc, argv, &i);
        if (t < 0) return 2;
        if (t) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--rtl-compat")) {
            o.rtl_compat = 1;
        } else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
            o.verbose = 1;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "kohaku replay: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (!kind) {
            kind = argv[i];
        } else if (!file) {
            file = argv[i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!kind || !file) {
        usage(stderr);
        return 2;
    }
    o.trace_file = so.trace;
    o.stats_file = so.stats;
    o.check = so.check ? &ck : NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kind, kinds[i].kind)) {
            int rc = kinds[i].fn(file, &o);
            if (o.check && kh_checkout_end(&ck) && !rc) rc = 1;
            return rc;
        }
    fprintf(stderr, "kohaku replay: unknown kind '%s' (quant, cluster, saxpy, vector)\n", kind);
    return 2;
}
