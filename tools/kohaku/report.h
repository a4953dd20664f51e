/* The end-of-run report (--report, `kohaku report STATS.json`,
 * docs/report.md) and the mesh heat map (--heatmap F.svg): both drawn from
 * a stats JSON alone (statsdoc.h). */
#ifndef KOHAKU_REPORT_H
#define KOHAKU_REPORT_H

#include <stdio.h>

#include "kohaku/json.h"

/* The report of stats document root, on out. */
void kh_report_print(const kh_json_val *root, FILE *out);
/* The heat map of root as SVG into path. 0, or -1 with a message. */
int kh_heatmap_write(const kh_json_val *root, const char *path, char *err, size_t errlen);

#endif
