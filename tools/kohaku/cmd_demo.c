/* kohaku demo (what `make run` runs): a checked 256 x 256 x 512 GEMM on the
 * default machine, six matmul clusters fed by the mover's quantiser. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "gemm_run.h"

int kh_cmd_demo(int argc, char **argv)
{
    kh_gemm_demo_opts o = {KH_GEMM_DEMO_M, KH_GEMM_DEMO_N, KH_GEMM_DEMO_K, NULL, 0, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: kohaku demo [--map MAP]\n  the default demo: kohaku gemm %u %u %u\n", KH_GEMM_DEMO_M,
                   KH_GEMM_DEMO_N, KH_GEMM_DEMO_K);
            return 0;
        } else if (!strcmp(argv[i], "--map") && i + 1 < argc) {
            o.map_path = argv[++i];
        } else {
            fprintf(stderr, "usage: kohaku demo [--map MAP]\n");
            return 2;
        }
    }
    kh_gemm_demo_result r;
    return kh_gemm_demo(&o, &r);
}
