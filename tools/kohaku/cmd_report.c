/* kohaku report STATS.json [--heatmap F.svg]: the end-of-run report of a
 * saved stats file (docs/report.md), the same text --report prints. */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "report.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: kohaku report STATS.json [--heatmap F.svg]\n"
                 "  Print the end-of-run report of a stats file written by --stats (any simulating\n"
                 "  subcommand; under MPI, the merged one): per unit busy / waiting shares, memory\n"
                 "  ports, the converged path, mover and transform slot, routers, the hottest links,\n"
                 "  and for a GEMM its MAC/cycle against peak and the resource that bound it.\n"
                 "  --heatmap F.svg  also draw the mesh heat map (needs the file's run section)\n");
}

int kh_cmd_report(int argc, char **argv)
{
    const char *path = NULL, *heatmap = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--heatmap") && i + 1 < argc) {
            if (heatmap) {
                fprintf(stderr, "kohaku report: --heatmap given twice\n");
                return 2;
            }
            heatmap = argv[++i];
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    char err[512];
    if (kh_report_stats(path, NULL, 0, 1, heatmap, err, sizeof err)) {
        fprintf(stderr, "kohaku report: %s\n", err);
        return 1;
    }
    return 0;
}
