/* kohaku demo (what `make run` runs): a checked 384 x 384 x 512 GEMM on the
 * default machine — FP16 operands uploaded, quantised by the mover's XFORM
 * moves, multiplied by all six matmul clusters, read back, compared bit for
 * bit with the exact MX result and numerically with a float reference. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "gemm_run.h"
#include "simout.h"

static void help(FILE *out)
{
    fprintf(out, "usage: kohaku demo [--map MAP] [--trace F.json] [--stats F.json] [--check] [--report] [--heatmap F.svg]\n"
                 "                   [--trace-window A:B] [--trace-flits TYPES]\n"
                 "  The default demo: kohaku gemm %u %u %u on the default machine (mesh_2x2_6+2: six\n"
                 "  matmul clusters, two vector cores, two memory ports), or on MAP.\n"
                 "  --check  check every flit against flits.md §9 (docs/check.md); a violation exits 1\n"
                 "  Exit status: 0 checked and right, 1 wrong or refused, 2 usage (docs/exit-status.md).\n"
                 KH_SIMOUT_HELP,
            KH_GEMM_DEMO_M, KH_GEMM_DEMO_N, KH_GEMM_DEMO_K);
}

int kh_cmd_demo(int argc, char **argv)
{
    kh_simopts so = {.who = "kohaku demo", .takes = KH_SIMOPT_MAP | KH_SIMOPT_STRICT};
    kh_gemm_demo_opts o = {.m = KH_GEMM_DEMO_M, .n = KH_GEMM_DEMO_N, .k = KH_GEMM_DEMO_K, .who = "demo gemm", .sim = &so};
    for (int i = 1; i < argc; i++) {
        int t = kh_simopts_take(&so, argc, argv, &i);
        if (t < 0) return 2;
        if (t) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else {
            help(stderr);
            return 2;
        }
    }
    if (kh_simopts_done(&so)) return 2;
    kh_gemm_demo_result r;
    return kh_gemm_demo(&o, &r);
}
