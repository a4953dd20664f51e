/* kohaku run MACHINE SESSION: drive a machine through a host session
 * (docs/session.md, ../shared/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/echo.h"
#include "kohaku/machine.h"
#include "kohaku/session.h"
#include "partition.h"
#include "simopts.h"
#include "progress.h"
#include "simout.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kohaku run MACHINE SESSION [--profile P] [--param name=value]... [--trace F.json] [--stats F.json] [--check]\n"
            "       kohaku run --restore FILE [MACHINE] SESSION [options]\n"
            "                  [--report] [--heatmap F.svg] [--trace-window A:B] [--trace-flits TYPES] [--strict]\n"
            "  MACHINE: a map picture file (data/maps/*.txt), a machine file of 1-4 meshes joined by their\n"
            "           interlinks (first word 'machine', docs/machine.md), or 'default' for the built-in machine.\n"
            "  SESSION: a host session (docs/session.md): write/read/poll/upload/compare/dump/run/idle/stage/save lines.\n"
            "  --restore FILE   resume the machine a checkpoint holds (a session's `save FILE` line, kh_dev_save;\n"
            "                   docs/checkpoint.md) and run SESSION's lines after the save line that wrote it (all\n"
            "                   of them when the library saved it). The file holds the machine; a MACHINE given\n"
            "                   with --profile/--param must be the same one, else the difference is named.\n"
            "  --profile P      parameter profile: machine (default), host-zero, upstream-7703ee8 (what upstream's\n"
            "                   published compiler and driver expect), and the recordings' rec, rec-saxpy,\n"
            "                   rec-cluster, rec-vector (kohaku params --profile P shows one)\n"
            "  --param n=v      override one machine parameter (kohaku params lists them); options apply in\n"
            "                   order after a machine file's own param lines\n"
            "  --strict         a diagnostic of the run makes the exit status 1 (docs/diagnostics.md)\n"
            "  --check          check every flit the machine's endpoints send and deliver against\n"
            "                   flits.md §9 (docs/check.md); findings on stderr, a violation exits 1\n"
            KH_SIMOUT_HELP
            "Under MPI (the build-mpi/ binary, docs/mpi.md): mpirun -n K kohaku run MACHINE SESSION steps the\n"
            "  machine's meshes on K <= meshes ranks with the same results; rank 0 prints.\n"
            "Exit status: 0 every check held; 1 a check failed, the machine stalled, or input was refused;\n"
            "2 usage error.\n");
}

int kh_cmd_run(int argc, char **argv)
{
    const char *operand[2] = {NULL, NULL}; /* MACHINE SESSION */
    /* --profile and --param apply in command-line order, after a machine
     * file's own parameters */
    kh_simopts so = {.who = "kohaku run", .takes = KH_SIMOPT_PARAMS_IN_ORDER | KH_SIMOPT_STRICT};
    kh_params p;
    char err[8192];
    const char *restore = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--restore")) {
            if (i + 1 >= argc || restore) {
                fprintf(stderr, "kohaku run: --restore %s\n", restore ? "given twice" : "needs a FILE");
                return 2;
            }
            restore = argv[++i];
            continue;
        }
        int t = kh_simopts_take(&so, argc, argv, &i);
        if (t < 0) return 2;
        if (t) continue;
        int rc;
        if (!kh_simopts_word(&so, argv[i], operand, 2, usage, &rc)) return rc;
    }
    if (kh_simopts_done(&so)) return 2;
    const char *machine = operand[0], *session = operand[1];
    if (restore && !session) { /* the file holds the machine */
        session = machine;
        machine = NULL;
    }
    if ((!machine && !restore) || !session) {
        usage(stderr);
        return 2;
    }
    /* A refused option value is refused before the machine is read. */
    if (kh_simopts_params(&so, &p, err, sizeof err)) return 1;
    /* The session first: a malformed line is refused before anything runs. */
    kh_session *s = kh_session_load(session, err, sizeof err);
    if (!s) {
        fprintf(stderr, "kohaku run: %s\n", err);
        return 1;
    }
    kh_ckpt_info from;
    memset(&from, 0, sizeof from);
    kh_machine *m = NULL;
    if (restore) {
        kh_machine *like = machine ? kh_simopts_machine(&so, machine, err, sizeof err) : NULL;
        if (machine && !like) {
            fprintf(stderr, "kohaku run: %s\n", err);
            kh_session_free(s);
            return 1;
        }
        m = kh_machine_restore(restore, like, &from, err, sizeof err);
        kh_machine_free(like);
    } else {
        m = kh_simopts_machine(&so, machine, err, sizeof err);
    }
    if (!m) {
        fprintf(stderr, "kohaku run: %s\n", err);
        kh_session_free(s);
        return 1;
    }
    kh_checkout ck = {.who = "kohaku run"};
    if (restore && so.check && !kh_machine_check(m)) { /* a checker starting mid-stream would find what is not there */
        fprintf(stderr, "kohaku run: --check: the checkpoint %s was saved without the flit checker (its stream "
                "state is not in the file): save with --check to resume with it\n", restore);
        kh_machine_free(m);
        kh_session_free(s);
        return 1;
    }
    if (restore && kh_machine_check(m)) { /* the findings before the save count in the summary */
        kh_check_counts n;
        kh_check_get_counts(kh_machine_check(m), &n);
        ck.violations = n.violations;
        ck.warnings = n.warnings;
    }
    if (so.check && kh_machine_set_check(m, kh_checkout_report, &ck)) {
        fprintf(stderr, "kohaku run: out of memory for the flit checker\n");
        kh_machine_free(m);
        kh_session_free(s);
        return 1;
    }
    kh_cli_part *part = kh_cli_partition(m, so.check ? &ck : NULL, err, sizeof err);
    if (!part && err[0]) {
        fprintf(stderr, "kohaku run: %s\n", err);
        kh_machine_free(m);
        kh_session_free(s);
        return 1;
    }
    kh_simout *out = kh_simout_start(kh_machine_sim(m), &so, err, sizeof err);
    if (!out) {
        fprintf(stderr, "kohaku run: %s\n", err);
        kh_cli_unpartition(part);
        kh_machine_free(m);
        kh_session_free(s);
        return 1;
    }
    kh_progress pg;
    kh_progress_start(&pg, kh_machine_sim(m), "kohaku run", "session");
    int rc = kh_session_run_from(s, m, restore ? &from : NULL, stdout, err, sizeof err);
    kh_progress_end(&pg);
    kh_utf8_trim(err); /* a report cut at the buffer's end may have split a character */
    char line[sizeof err + 16];
    if (rc) snprintf(line, sizeof line, "kohaku run: %s\n", err);
    kh_cli_stderr(part, rc ? line : NULL); /* under MPI: every rank's warnings, then the error once */
    char e2[512], name[600];
    snprintf(name, sizeof name, "run %s %s", machine ? machine : restore, session);
    size_t used;
    char *run = kh_simopts_output(&so) ? kh_simrun_machine(name, m, &used) : NULL;
    if (kh_simout_finish(out, &so, run, e2, sizeof e2)) {
        fprintf(stderr, "kohaku run: %s\n", e2);
        if (!rc) rc = 1;
    }
    free(run);
    if (so.check) {
        kh_checkout_add(&ck, kh_machine_check(m));
        if (kh_cli_checkout_end(part, &ck) && !rc) rc = 1;
    }
    if (kh_simdiag_end(kh_machine_sim(m), &so) && !rc) rc = 1;
    if (!rc)
        printf("ok: %u commands, cycle %llu\n", kh_session_ncommands(s),
               (unsigned long long)kh_sim_now(kh_machine_sim(m)));
    kh_cli_unpartition(part);
    kh_machine_free(m);
    kh_session_free(s);
    return rc ? 1 : 0;
}
