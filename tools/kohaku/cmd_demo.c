/* kohaku demo (what `make run` runs): a checked 384 x 384 x 512 GEMM on the
 * default machine — FP16 operands uploaded, quantised by the mover's XFORM
 * moves, multiplied by all six matmul clusters, read back, compared bit for
 * bit with the exact MX result and numerically with a float reference. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "gemm_run.h"

static void help(FILE *out)
{
    fprintf(out, "usage: kohaku demo [--map MAP] [--trace F.json] [--stats F.json] [--check]\n"
                 "  The default demo: kohaku gemm %u %u %u on the default machine (mesh_2x2_6+2: six\n"
                 "  matmul clusters, two vector cores, two memory ports), or on MAP.\n"
                 "  --check  check every flit against flits.md §9 (docs/check.md); a violation exits 1\n",
            KH_GEMM_DEMO_M, KH_GEMM_DEMO_N, KH_GEMM_DEMO_K);
}

int kh_cmd_demo(int argc, char **argv)
{
    kh_gemm_demo_opts o = {KH_GEMM_DEMO_M, KH_GEMM_DEMO_N, KH_GEMM_DEMO_K, NULL, 0, 0, NULL, NULL, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--map") && i + 1 < argc) {
            o.map_path = argv[++i];
        } else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
            o.trace_path = argv[++i];
        } else if (!strcmp(argv[i], "--stats") && i + 1 < argc) {
            o.stats_path = argv[++i];
        } else if (!strcmp(argv[i], "--check")) {
            o.check = 1;
        } else {
            help(stderr);
            return 2;
        }
    }
    kh_gemm_demo_result r;
    return kh_gemm_demo(&o, &r);
}
