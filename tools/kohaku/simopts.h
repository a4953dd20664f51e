/* The options the simulating subcommands share (../shared/cli.md): --trace
 * FILE, --stats FILE, --check and --engine on all six (demo, gemm, bench
 * gemm, run, replay, bench noc), and where a subcommand takes them --map MAP,
 * --profile P and --param NAME=VALUE. One parser; each subcommand keeps
 * its own options, usage text and exit codes around it. simout.h is the
 * output side of the same options. */
#ifndef KOHAKU_SIMOPTS_H
#define KOHAKU_SIMOPTS_H

#include <stddef.h>
#include <stdio.h>

#include "kohaku/machine.h"
#include "kohaku/params.h"
#include "kohaku/trace.h"

/* What a subcommand takes besides --trace, --stats and --check. The two
 * --profile/--param rules are the two the subcommands have always had;
 * a subcommand takes at most one of them. */
#define KH_SIMOPT_MAP 1u                     /* --map MAP (demo, gemm, bench gemm, bench noc) */
#define KH_SIMOPT_PARAMS_IN_ORDER 2u         /* run: each --profile and --param applied in command-line order, 64 at most together */
#define KH_SIMOPT_PARAMS_PROFILE_FIRST 4u    /* bench noc: the last --profile, then each --param in order, 16 --param at most */
#define KH_SIMOPT_STRICT 8u                  /* --strict: the subcommand ends with kh_simdiag_end (run, gemm, demo, bench gemm) */
#define KH_SIMOPTS_MAX_EDITS 64              /* IN_ORDER: most --profile and --param together */
#define KH_SIMOPTS_MAX_PARAMS 16             /* PROFILE_FIRST: most --param */

typedef struct kh_simopts {
    const char *who;       /* "kohaku run": the prefix of the messages */
    unsigned takes;        /* KH_SIMOPT_* */
    const char *map;       /* --map, NULL: not given */
    const char *trace;     /* --trace, NULL: no trace */
    const char *stats;     /* --stats, NULL: no statistics */
    int check;             /* --check: the live flit checker */
    int report;            /* --report: the end-of-run report on standard output (docs/report.md) */
    int strict;            /* --strict: a diagnostic makes the exit status 1 (docs/diagnostics.md) */
    const char *heatmap;   /* --heatmap F.svg, NULL: none */
    const char *engine;    /* --engine cycle|fast as given, NULL: the default (applied when taken) */
    kh_trace_filter keep;  /* --trace-window A:B, --trace-flits LIST: read through kh_simopts_keep */
    int flits_given;       /* --trace-flits was given */
    int window_given;      /* --trace-window was given */
    const char *profile;   /* PROFILE_FIRST: the last --profile, applied before every edit; else NULL */
    struct {
        const char *opt;   /* "--profile" or "--param" as written */
        const char *val;
    } edit[KH_SIMOPTS_MAX_EDITS]; /* --profile (IN_ORDER only) and --param, in command-line order */
    unsigned nedit;
} kh_simopts;

/* What a trace keeps: o->keep, or everything when neither option was given. */
kh_trace_filter kh_simopts_keep(const kh_simopts *o);
/* Anything to write at the end of the run (--trace, --stats, --report, --heatmap). */
int kh_simopts_output(const kh_simopts *o);

/* Look at argv[*i]. One of the options o->takes, with its value: store it,
 * step *i past the value, return 1. Not one of them: return 0, and the
 * caller treats the word as it treats any word it does not know. A usage
 * error (the value missing, --trace/--stats/--map given twice, one
 * --profile/--param too many): "WHO: ..." on standard
 * error, return -1; the caller exits 2 (docs/exit-status.md). */
int kh_simopts_take(kh_simopts *o, int argc, char **argv, int *i);

/* The options as a whole, after the last word: an option that only shapes
 * the trace (--trace-window, --trace-flits) without --trace is a usage
 * error ("WHO: ..." on standard error naming it, -1; the caller exits 2),
 * since it would be ignored silently. 0 otherwise. */
int kh_simopts_done(const kh_simopts *o);

/* A word of the command line that is neither a simulation option nor one
 * of the subcommand's own: --help/-h prints usage on standard output and
 * ends the command with 0; another word starting with '-' is an unknown
 * option, a word past the last operand slot a usage error, both ending it
 * with 2 (usage on standard error). Anything else fills the first empty of
 * the nslots operand slots. Returns 1 when the word was taken, 0 with *rc
 * set when the command ends. */
int kh_simopts_word(const kh_simopts *o, const char *word, const char **slots, unsigned nslots,
                    void (*usage)(FILE *), int *rc);

/* Apply the --profile and --param options to p by o->takes' rule. 0, or -1
 * with the refused value's message in err (the first refusal; p is then
 * partly changed). */
int kh_simopts_apply(const kh_simopts *o, kh_params *p, char *err, size_t errlen);

/* The machine parameters the options ask for: defaults, then
 * kh_simopts_apply. A refused value (an unknown profile or parameter, a
 * value out of range) is refused input: "WHO: why" on standard error and
 * 1, else 0 (docs/exit-status.md). err/errlen: the caller's buffer. */
int kh_simopts_params(const kh_simopts *o, kh_params *p, char *err, size_t errlen);

/* The machine MACHINE names (a map or machine file, or "default") with its
 * own param lines, then the options by o->takes' rule. NULL with the
 * message in err. */
kh_machine *kh_simopts_machine(const kh_simopts *o, const char *machine, char *err, size_t errlen);

#endif
