/* Machine parameters: one struct generated from the table in params.def. */
#ifndef KOHAKU_PARAMS_H
#define KOHAKU_PARAMS_H

#include <stddef.h>
#include <stdint.h>

typedef struct kh_params {
#define KH_PARAM(name, dflt, lo, hi, unit, source, doc) uint64_t name;
#include "kohaku/params.def"
#undef KH_PARAM
} kh_params;

/* cpu_mode: what the hub does with flits addressed to (0,0) (control.md
 * Open point 16 revised); kh_params_set also takes the names. */
enum {
    KH_CPU_MODE_CPU = 0,   /* "cpu": the processor, except CU_CTRL replies go to the agent's RX */
    KH_CPU_MODE_EXACT = 1, /* "cpu-exact": the seed hub rule, every flit to the processor */
    KH_CPU_MODE_AGENT = 2, /* "agent": the older agent (no processor, no rule 2) */
    KH_CPU_MODE_DROP = 3,  /* "drop": no processor, flits to (0,0) dropped with a log line */
};

/* Fill p with the machine defaults (parameters.md §1). */
void kh_params_default(kh_params *p);
/* Set one row by name from a decimal or 0x value (or a choice's name). 0 ok; -1 with a message
 * naming the parameter and the value in err. */
int kh_params_set(kh_params *p, const char *name, const char *value, char *err, size_t errlen);
/* Every row in its range and the cross-row rules (q_margin < q_depth, the
 * cluster's TILES/GA/GB powers of two). 0 ok; -1 with the first violation. */
int kh_params_check(const kh_params *p, char *err, size_t errlen);
/* Apply "name=value" (as from --param). */
int kh_params_set_assign(kh_params *p, const char *assign, char *err, size_t errlen);
/* Apply a recording profile of parameters.md §2: "machine" (defaults),
 * "rec" (stand-in FIFOs: fall-through 1, capacity DEPTH+2), "rec-saxpy",
 * "rec-cluster", "rec-vector". 0 ok, -1 unknown name (message in err). */
int kh_params_profile(kh_params *p, const char *profile, char *err, size_t errlen);
/* The table, for `kohaku params` and the docs. */
typedef struct kh_param_info {
    const char *name, *unit, *source, *doc;
    uint64_t dflt, min, max;
    size_t offset;
} kh_param_info;
const kh_param_info *kh_params_table(size_t *n);

#endif
