/* Machine parameters: one struct generated from the tables in params.def
 * (kernel, mesh, node, orchestrator) and params_units.def (each unit kind's
 * own rows). The kernel keeps the mechanism (rows, ranges, the power-of-two
 * rule, its own cross-row rules and the FIFO stand-ins); each unit kind
 * carries its rows, its check and its recording profile in its registry row
 * (kh_unit_kind, cu.h); the functions below answer for all of them. */
#ifndef KOHAKU_PARAMS_H
#define KOHAKU_PARAMS_H

#include <stddef.h>
#include <stdint.h>

typedef struct kh_params {
#define KH_PARAM(name, dflt, lo, hi, unit, source, doc) uint64_t name;
#include "kohaku/params.def"
#include "kohaku/params_units.def"
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

/* host_map: the map the library's host API decodes (docs/python.md). */
enum {
    KH_HOST_MAP_KOHAKU = 0,  /* "kohaku": control.md §9.2 as it stands */
    KH_HOST_MAP_NOBOARD = 1, /* "noboard": upstream's Card() without a board file */
};

/* One row of a table. */
typedef struct kh_param_info {
    const char *name, *unit, *source, *doc;
    uint64_t dflt, min, max;
    size_t offset;
} kh_param_info;
#define KH_PARAM_INFO(name, dflt, lo, hi, unit, source, doc) \
    {#name, unit, source, doc, dflt, lo, hi, offsetof(kh_params, name)},

/* Fill p with the machine defaults (parameters.md §1), every row. */
void kh_params_default(kh_params *p);
/* Set one row by name from a decimal or 0x value (or a choice's name). 0
 * ok; -1 with a message naming the parameter and the value in err (nothing
 * changes). */
int kh_params_set(kh_params *p, const char *name, const char *value, char *err, size_t errlen);
/* Every row in its range, the kernel's cross-row rules (q_margin < q_depth)
 * and every unit kind's check (the cluster's powers of two). 0 ok; -1 with
 * the first violation. */
int kh_params_check(const kh_params *p, char *err, size_t errlen);
/* Apply "name=value" (as from --param). */
int kh_params_set_assign(kh_params *p, const char *assign, char *err, size_t errlen);
/* Apply a profile: "machine" (defaults), "host-zero" (host accesses cost
 * no simulated time, control.md §9.3), "upstream-7703ee8" (what upstream's
 * published compiler and driver expect: read_quant, dispatch_older_rtl,
 * host_map noboard, its JTAG link's host_access_cycles; docs/diagnostics.md),
 * or a recording profile of
 * parameters.md §2, each with the zero-time host: "rec" (stand-in FIFOs:
 * fall-through 1, capacity DEPTH+2) or a unit kind's ("rec-saxpy",
 * "rec-cluster", "rec-vector"). 0 ok, -1 unknown name
 * (message in err, naming the profiles). */
int kh_params_profile(kh_params *p, const char *profile, char *err, size_t errlen);
/* Row i of the whole table (the kernel's rows, then each unit kind's, in
 * registry order), NULL past the end: for `kohaku params` and the docs. */
const kh_param_info *kh_params_row(size_t i);

/* ---- the mechanism, for the kernel and the unit kinds ---- */
uint64_t kh_param_get(const kh_params *p, const kh_param_info *row);
/* Every one of rows[0..n) within its range: 0, or -1 naming the row. */
int kh_param_rows_check(const kh_params *p, const kh_param_info *rows, size_t n, char *err, size_t errlen);
/* One of the kernel's rows, by name, within its range (for a component
 * that must not trust what filled the parameters): 0, or -1. */
int kh_param_check_named(const kh_params *p, const char *name, char *err, size_t errlen);
/* The row's value is a power of two (`why`: the rule that needs it): 0, or -1. */
int kh_param_pow2(const kh_params *p, const kh_param_info *row, const char *why, char *err, size_t errlen);
/* A row whose values are choices also takes the choice's name: 0 and *v,
 * or -1 when value names none of param's choices. */
int kh_param_choice(const char *param, const char *value, uint64_t *v);
/* ", or one of NAME, NAME" for param's choices ("" when it has none). */
void kh_param_choice_names(const char *param, char *buf, size_t len);
/* The kernel's own rows (params.def) and their checks. */
const kh_param_info *kh_params_core_rows(size_t *n);
int kh_params_core_check(const kh_params *p, char *err, size_t errlen);
/* The kernel's profiles ("machine", "rec"): 1 applied, 0 not one of them. */
int kh_params_core_profile(kh_params *p, const char *profile);
/* parameters.md §2.1: the recordings' stand-in FIFOs (fall-through 1,
 * capacity DEPTH + 2) and their zero-time host; every recording profile
 * starts from them. */
void kh_params_stand_in_fifos(kh_params *p);

#endif
