/* Reading a stats JSON (kh_stats_write_json_run, docs/report.md): the one
 * source of the report and the heat map, whether the run just ended or the
 * file was saved, so neither can disagree with the file. */
#ifndef KOHAKU_STATSDOC_H
#define KOHAKU_STATSDOC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kohaku/json.h"
#include "kohaku/sim.h"

/* A number (0 when absent or not a number). path may name nested members
 * with dots: "cycles.busy"; "" is obj itself. */
double kh_sd_num(const kh_json_val *obj, const char *path);
const char *kh_sd_str(const kh_json_val *obj, const char *key); /* "" when absent */
/* The component named name, or NULL. */
const kh_json_val *kh_sd_comp(const kh_json_val *root, const char *name);
/* The link named name in the stats' links (its from and to components,
 * flits, stalls), or NULL. */
const kh_json_val *kh_sd_link(const kh_json_val *root, const char *name);
/* The flits of the link named name (0 when absent). */
double kh_sd_link_flits(const kh_json_val *root, const char *name);
/* The sum of stats.path over the components of kind (and, when has is not
 * NULL, only those whose stats have that member). */
double kh_sd_sum(const kh_json_val *root, const char *kind, const char *has, const char *path);
/* share of the run: v / cycles, 0 for an empty run */
double kh_sd_share(double v, double cycles);

/* The stats of sim now (with run body run, may be NULL) parsed; NULL with
 * a message on no memory. */
kh_json *kh_sd_snapshot(kh_sim *sim, const char *run, char *err, size_t errlen);

#endif
