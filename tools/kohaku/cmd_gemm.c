/* kohaku gemm M N K [--map MAP] [--seed S]: a checked GEMM on the default
 * machine (../shared/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "gemm_run.h"
#include "kohaku/echo.h"
#include "kohaku/gemm.h"
#include "simout.h"
#include "kohaku/hex.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: kohaku gemm M N K [--map MAP] [--seed S] [--quantise-wait poll|quiet] [--trace F.json]\n"
                 "                  [--stats F.json] [--check]\n"
                 "                  [--report] [--heatmap F.svg] [--trace-window A:B] [--trace-flits TYPES]\n"
                 "  C = A·Btᵀ with random FP16 A [M][K] and Bt [N][K], on every matmul cluster of the\n"
                 "  default machine (or MAP): upload, quantise with the mover, tiled FILL/GEMM/DRAIN,\n"
                 "  read back. Prints cycles, MAC/cycle against the peak and the error against a\n"
                 "  float reference; exit 1 if the result is not bit-identical to the exact MX result\n"
                 "  (or its float error is above 5 %%). MAP may be a machine file: the tiles go to every\n"
                 "  cluster of every mesh, each mesh with its own copy of the operands. In the MPI build,\n"
                 "  mpirun -n K kohaku gemm ... steps the meshes on K ranks with the same report (docs/mpi.md).\n"
                 "  Limits: M, N, K each 1..65536, and the host buffers (A, Bt, C and the two references:\n"
                 "  2·M·K + 2·N·K + 12·M·N bytes) at most 2 GiB, e.g. 8192 x 8192 x 8192; a larger GEMM\n"
                 "  is refused before anything runs. --seed S: the operands' random seed (0..2^64-1).\n"
                 "  --check  check every flit against flits.md §9 (docs/check.md); a violation exits 1\n"
                 "  --quantise-wait poll|quiet  how the host waits for the quantising movers: poll (the\n"
                 "  default) reads each mover's status every 16 cycles; quiet runs the machine until nothing\n"
                 "  is pending, then polls each status once (a 16-cycle step and a read): other cycle\n"
                 "  counts, and under mpirun a few agreements instead of one a poll (docs/mpi.md)\n"
                 "  Exit status: 0 checked and right, 1 wrong or refused, 2 usage (docs/exit-status.md).\n"
                 KH_SIMOUT_HELP);
}

int kh_cmd_gemm(int argc, char **argv)
{
    kh_simopts so = {.who = "kohaku gemm", .takes = KH_SIMOPT_MAP | KH_SIMOPT_STRICT};
    kh_gemm_demo_opts o = {.sim = &so};
    unsigned *dims[3] = {&o.m, &o.n, &o.k}, nd = 0, wait_given = 0;
    for (int i = 1; i < argc; i++) {
        uint64_t v;
        int t = kh_simopts_take(&so, argc, argv, &i);
        if (t < 0) return 2;
        if (t) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--seed")) {
            kh_echo_buf b;
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku gemm: --seed needs a value\n");
                return 2;
            }
            int prc = kh_parse_u64(argv[++i], &o.seed);
            if (prc) {
                fprintf(stderr, "kohaku gemm: --seed %s %s\n", kh_echo(argv[i], &b),
                        prc == KH_PARSE_TOO_BIG ? "does not fit 64 bits" : "is not a number");
                return 1;
            }
        } else if (!strcmp(argv[i], "--quantise-wait")) {
            kh_echo_buf b;
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku gemm: --quantise-wait needs a value (poll or quiet)\n");
                return 2;
            }
            if (wait_given++) {
                fprintf(stderr, "kohaku gemm: --quantise-wait given twice\n");
                return 2;
            }
            i++;
            if (strcmp(argv[i], "poll") && strcmp(argv[i], "quiet")) {
                fprintf(stderr, "kohaku gemm: --quantise-wait %s: want poll or quiet\n", kh_echo(argv[i], &b));
                return 1;
            }
            o.wait = !strcmp(argv[i], "quiet") ? KH_GEMM_WAIT_QUIET : KH_GEMM_WAIT_POLL;
        } else if (argv[i][0] != '-' && nd < 3) {
            kh_echo_buf b;
            if (kh_parse_u64(argv[i], &v) || v == 0 || v > 65536) {
                fprintf(stderr, "kohaku gemm: dimension %s must be 1..65536\n", kh_echo(argv[i], &b));
                return 1;
            }
            *dims[nd++] = (unsigned)v;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (kh_simopts_done(&so)) return 2;
    if (nd != 3) {
        usage(stderr);
        return 2;
    }
    kh_gemm_demo_result r;
    return kh_gemm_demo(&o, &r);
}
