/* The end-of-run report (--report, `kohaku report STATS.json`,
 * docs/report.md) and the mesh heat map (--heatmap F.svg): both drawn from
 * a stats JSON alone (statsdoc.h). */
#ifndef KOHAKU_REPORT_H
#define KOHAKU_REPORT_H

#include <stdio.h>

#include "kohaku/json.h"

/* The report of stats document root, on out; a replay's stats
 * ({"cases": [{"case", "stats"}...]}) get one report per case. */
void kh_report_print(const kh_json_val *root, FILE *out);
/* Read the stats in text (len bytes) or, text NULL, in the file path;
 * print the report on standard output if report, draw the heat map into
 * heatmap if not NULL (a replay's: its last case's). 0, or -1 with a
 * message naming the file. */
int kh_report_stats(const char *path, const char *text, size_t len, int report, const char *heatmap, char *err,
                    size_t errlen);
/* The heat map of root as SVG into path. 0, or -1 with a message. */
int kh_heatmap_write(const kh_json_val *root, const char *path, char *err, size_t errlen);

#endif
