/* kohaku report STATS.json [--heatmap F.svg]: the end-of-run report of a
 * saved stats file (docs/report.md), the same text --report prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/file.h"
#include "kohaku/json.h"
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
    size_t len;
    char *text = kh_file_read(path, &len, err, sizeof err);
    if (!text) {
        fprintf(stderr, "kohaku report: %s\n", err);
        return 1;
    }
    kh_json_error je;
    kh_json *doc = kh_json_parse(text, len, &je);
    free(text);
    if (!doc) {
        fprintf(stderr, "kohaku report: %s: line %u column %u: %s\n", path, je.line, je.col, je.msg);
        return 1;
    }
    const kh_json_val *root = kh_json_root(doc);
    if (kh_json_type_of(kh_json_get(root, "cycle")) != KH_JSON_NUMBER || !kh_json_get(root, "components")) {
        fprintf(stderr, "kohaku report: %s: not a stats file (no 'cycle' number and 'components' list)\n", path);
        kh_json_free(doc);
        return 1;
    }
    kh_report_print(root, stdout);
    int rc = 0;
    if (heatmap && kh_heatmap_write(root, heatmap, err, sizeof err)) {
        fprintf(stderr, "kohaku report: %s\n", err);
        rc = 1;
    }
    kh_json_free(doc);
    return rc;
}
