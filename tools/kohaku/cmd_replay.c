/* kohaku replay KIND FILE [--rtl-compat]: the library's case driver
 * (include/kohaku/replay.h) with the command line's options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/replay.h"
#include "simopts.h"
#include "progress.h"
#include "report.h"
#include "simout.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: kohaku replay KIND FILE [--rtl-compat] [--trace F.json] [--stats F.json] [--check]\n"
                 "                     [--report] [--heatmap F.svg] [--trace-window A:B] [--trace-flits TYPES] [--engine E]\n"
                 "  KIND:");
    for (unsigned i = 0; kh_replay_kind_name(i); i++) fprintf(out, "%s %s", i ? "," : "", kh_replay_kind_name(i));
    fprintf(out,
            ". FILE: a vector file in the format of\n"
            "  data/vectors/README.md. Prints one line per failing case, the cycle\n"
            "  deviation where the file records cycles, then 'N passed, N failed'.\n"
            "  --rtl-compat  switch on every modelled recorded-RTL behaviour\n"
            "  --check       check every flit the unit and its bench (cluster, vector) or the machine\n"
            "                (saxpy) send against flits.md §9 (docs/check.md); findings on stderr and\n"
            "                a violation exits 1 (quant simulates no flits)\n"
            "  -v, --verbose what each case did (cycles, requests) even when it passes\n"
            "  --trace F.json, --stats F.json  one file each for every case of FILE: in the trace each\n"
            "                case is a range (cluster and vector: its own processes, \"case N: links\");\n"
            "                the stats are {\"cases\": [{\"case\": N, \"stats\": ...}]}. quant simulates\n"
            "                nothing and refuses both\n"
            "  --report      the end-of-run report of each case, from those stats (docs/report.md)\n"
            "  --heatmap F.svg  the last case's mesh heat map (saxpy: the cases share a machine;\n"
            "                cluster and vector run on a unit bench, which has no mesh)\n"
            "  --trace-window A:B, --trace-flits T  what the trace keeps (cycles of each case's simulation)\n"
            KH_ENGINE_HELP
            "  Exit status: 0 every case passed, 1 a case failed or FILE was refused, 2 usage.\n"
            "\n"
            "       kohaku replay vector2 PROG MEM [--memwait N] [--out FILE] [--param NAME=V ...]\n"
            "  the V2 vector core alone on upstream's core-alone harness (docs/vector2.md;\n"
            "  kohaku replay vector2 --help says more)\n");
}

/* the progress line follows each case's simulation */
static void follow(void *ctx, kh_sim *sim, const char *label)
{
    kh_progress_follow(ctx, sim, label ? label : "cases");
}

int kh_cmd_replay(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "vector2")) return kh_cmd_replay_vector2(argc - 1, argv + 1);
    kh_replay_opts o = {0};
    kh_checkout ck = {.who = "kohaku replay"};
    kh_simopts so = {.who = "kohaku replay"};
    const char *operand[2] = {NULL, NULL}; /* KIND FILE */
    for (int i = 1; i < argc; i++) {
        int t = kh_simopts_take(&so, argc, argv, &i);
        if (t < 0) return 2;
        if (t) continue;
        int rc;
        if (!strcmp(argv[i], "--rtl-compat"))
            o.rtl_compat = 1;
        else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v"))
            o.verbose = 1;
        else if (!kh_simopts_word(&so, argv[i], operand, 2, usage, &rc))
            return rc;
    }
    if (kh_simopts_done(&so)) return 2;
    const char *kind = operand[0], *file = operand[1];
    if (!kind || !file) {
        usage(stderr);
        return 2;
    }
    o.trace_file = so.trace;
    o.stats_file = so.stats;
    kh_trace_filter keep = kh_simopts_keep(&so);
    o.keep = &keep;
    /* --report and --heatmap read the stats the replay writes: the file, or
     * a buffer when there is none */
    char *stats_text = NULL;
    size_t stats_len = 0;
    if ((so.report || so.heatmap) && !so.stats && !(o.stats_out = open_memstream(&stats_text, &stats_len))) {
        fprintf(stderr, "kohaku replay: out of memory for the statistics\n");
        return 1;
    }
    if (so.check) {
        o.check_fn = kh_checkout_report;
        o.check_ctx = &ck;
    }
    kh_progress pg;
    kh_progress_start(&pg, NULL, "kohaku replay", "");
    o.on_sim = follow;
    o.on_sim_ctx = &pg;
    kh_replay_result res;
    char err[1024];
    int r = kh_replay_file(kind, file, &o, &res, err, sizeof err);
    kh_progress_end(&pg);
    if (o.stats_out) fclose(o.stats_out);
    if (r == -2) {
        free(stats_text);
        fprintf(stderr, "kohaku replay: %s\n", err);
        return 2;
    }
    if (r) fprintf(stderr, "kohaku replay %s: %s\n", kind, err);
    int rc = r || res.failed ? 1 : 0;
    if (!r && (so.report || so.heatmap) && kh_report_stats(so.stats, stats_text, stats_len, so.report, so.heatmap, err, sizeof err)) {
        fprintf(stderr, "kohaku replay: %s\n", err);
        rc = 1;
    }
    free(stats_text);
    if (so.check) {
        ck.sent += res.check_sent;
        ck.delivered += res.check_delivered;
        if (kh_checkout_end(&ck)) rc = 1;
    }
    return rc;
}
