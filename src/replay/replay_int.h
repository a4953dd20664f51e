/* The replay case driver and the per-kind hooks (include/kohaku/replay.h).
 * The driver reads the file, names and counts the cases, prints the report,
 * keeps the cycle deviations and owns the trace and stats files; a kind
 * reads one case, simulates it and compares. */
#ifndef KOHAKU_REPLAY_INT_H
#define KOHAKU_REPLAY_INT_H

#include <stdio.h>

#include "kohaku/json.h"
#include "kohaku/params.h"
#include "kohaku/replay.h"
#include "kohaku/sim.h"

typedef struct kh_replay kh_replay;

typedef struct kh_replay_case {
    const kh_json_val *root; /* the line's value, any JSON type */
    unsigned index;          /* 0-based place among the file's cases */
    unsigned line;
    char name[64];           /* the case's number: the deviation line, the trace */
    char label[96];          /* failure lines say "case LABEL: why" (default: name) */
    int failed;
    char why[2400];          /* the first difference, or why the case was refused */
    int timed;               /* ours and recorded hold the case's cycle figure */
    double ours, recorded;
} kh_replay_case;

typedef struct kh_replay_kind {
    const char *name;
    int simulates;           /* 0: --trace and --stats do not apply */
    /* the file's shared state (saxpy's machine): 0 ok, -1 refused (err) */
    int (*open)(kh_replay *r, char *err, size_t errlen);
    void (*close)(kh_replay *r);
    /* name and label the case (c->root may be NULL: not JSON) */
    void (*name_case)(kh_replay_case *c);
    /* run and compare one case; kh_replay_fail records a difference */
    void (*run)(kh_replay *r, kh_replay_case *c);
} kh_replay_kind;

struct kh_replay {
    const kh_replay_kind *kind;
    const kh_replay_opts *o;
    FILE *out;
    void *state;             /* the kind's, between open and close */
    kh_trace *trace;         /* the one trace file, NULL: none */
    kh_trace *below, *fan;   /* a sink attached before the trace (the checker), fed through fan */
    kh_sim *traced;          /* the simulation the trace is attached to */
    FILE *stats;             /* the one stats file, NULL: none */
    int watched;             /* opts.on_sim was told of the simulation attached */
    const struct kh_machine *machine; /* the cases run on this machine (saxpy): its layout goes in the stats */
    unsigned nstats;
    char io_err[300];        /* the first trace or stats write error */
    kh_replay_result *res;
};

/* Name the case by its recorded "case" number: 0, or -1 when it has none. */
int kh_replay_name_recorded(kh_replay_case *c);
/* Record why the case failed (the first difference is kept); returns -1. */
int kh_replay_fail(kh_replay_case *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A simulation to describe from now on (a case's bench, saxpy's machine),
 * after its checker is attached: the trace gets a section named label.
 * 0 ok; -1 out of memory (message in the case). */
int kh_replay_attach(kh_replay *r, kh_replay_case *c, kh_sim *sim, const char *label);
/* The case's simulation is over, before the simulation is freed: its range
 * [begin, end) goes into the trace, its counters into the stats file. */
void kh_replay_case_end(kh_replay *r, const kh_replay_case *c, kh_sim *sim, kh_cycle begin);
/* Let go of the simulation (before it is freed). */
void kh_replay_detach(kh_replay *r);
/* Add a checker's transfer counts to the result (before it is freed). */
void kh_replay_add_check(kh_replay *r, const kh_check *chk);

/* ---- field checks the unit-level kinds share ---- */
/* Our bound on a recorded memory latency (the spec sets none; every
 * recording waits 10 cycles). */
#define KH_REPLAY_RD_LAT_MAX 1000000
/* params.rd_lat within 0..KH_REPLAY_RD_LAT_MAX: 0, or -1 with the case failed. */
int kh_replay_rd_lat(kh_replay_case *c, uint64_t v);
/* The unit, the memory and the sender of a bench case: the unit shares its
 * place with neither (the sender may be the memory's place: the dispatcher
 * sits beside the agent). 0, or -1 with the case failed. */
int kh_replay_places(kh_replay_case *c, const unsigned cu[2], const unsigned mem[2], const unsigned snd[2]);
/* A recorded build parameter: `key` of params, when present, is applied
 * as kohaku parameter `param` (its range is the rule). 0, or -1 failed. */
int kh_replay_build_param(kh_replay_case *c, const kh_json_val *params, const char *key, const char *param,
                          kh_params *p);
/* A recorded build parameter the spec fixes: when present it must be `want`. */
int kh_replay_fixed_param(kh_replay_case *c, const kh_json_val *params, const char *key, uint64_t want);

extern const kh_replay_kind kh_replay_quant, kh_replay_cluster, kh_replay_saxpy, kh_replay_vector;

#endif
