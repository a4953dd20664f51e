/* The MPI build's partitioning of a machine (tools/kohaku/partition.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "partition.h"

#ifdef KH_MPI
#include <mpi.h>

#include "kohaku/mpi.h"

void kh_cli_mpi_init(int *argc, char ***argv)
{
    int rank = 0;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank && !freopen("/dev/null", "w", stdout)) fprintf(stderr, "kohaku: rank %d: cannot silence stdout\n", rank);
}

void kh_cli_mpi_finish(void) { MPI_Finalize(); }

/* Standard error under MPI (partition.h): each rank keeps its lines with
 * a sort prefix, cycle, the rank's first mesh, the order kept (hex, fixed
 * width), then the kind and the rule; rank 0 prints the merged lines. */
enum { KEEP_MAX = 4096, PREFIX = 16 + 8 + 8 + 1 + 2 };
enum { KEEP_SLOTS = KEEP_MAX + 2 }; /* and one error and one "not kept" line a merge */

struct kh_cli_part {
    kh_mpi *d;
    kh_sim *sim;
    kh_checkout *ck, shown; /* the rank's checker; the limit over the merged lines (rank 0) */
    char **line;
    unsigned n, seq, first_mesh;
    uint64_t dropped;
    char *last_error; /* the last error line kept, prefix included: one every rank reached is printed once */
};

static void keep(kh_cli_part *p, kh_cycle at, char kind, unsigned rule, const char *text)
{
    if (kind != 'E' && p->n >= KEEP_MAX) {
        p->dropped++;
        return;
    }
    size_t len = PREFIX + strlen(text) + 1;
    char *l = malloc(len);
    if (!l) MPI_Abort(MPI_COMM_WORLD, 1);
    snprintf(l, len, "%016llx%08x%08x%c%02u%s", (unsigned long long)at, p->first_mesh, p->seq++, kind, rule % 100,
             text);
    p->line[p->n++] = l;
}

static void keep_finding(void *ctx, unsigned rule, const char *text)
{
    kh_cli_part *p = ctx;
    keep(p, kh_sim_now(p->sim), 'C', rule, text);
}

/* The kernel's default sink's lines (src/sim/sim.c), kept. */
static void keep_log(void *ctx, kh_log_level lvl, const char *msg)
{
    static const char *const names[] = {"debug", "info", "warning", "error"};
    kh_cli_part *p = ctx;
    char text[1200];
    snprintf(text, sizeof text, "kohaku: %s: %s\n", names[lvl], msg);
    keep(p, kh_sim_now(p->sim), 'L', 0, text);
}

static int line_cmp(const void *a, const void *b)
{
    const kh_sync_rec *x = a, *y = b;
    return strncmp(x->text, y->text, PREFIX);
}

void kh_cli_stderr(kh_cli_part *p, const char *line)
{
    if (!p) {
        if (line) fputs(line, stderr);
        return;
    }
    if (line) keep(p, KH_NEVER, 'E', 0, line);
    if (p->dropped) {
        char text[200];
        snprintf(text, sizeof text, "kohaku: rank %d: %llu further messages not kept (at most %u, docs/mpi.md)\n",
                 kh_mpi_rank(p->d), (unsigned long long)p->dropped, KEEP_MAX);
        keep(p, KH_NEVER, 'D', 0, text);
        p->dropped = 0;
    }
    kh_sync_rec *mine = calloc(p->n + 1u, sizeof *mine), *all = NULL;
    if (!mine) MPI_Abort(MPI_COMM_WORLD, 1);
    for (unsigned i = 0; i < p->n; i++) mine[i] = (kh_sync_rec){0, p->line[i]};
    const kh_sync_ops *sy = kh_sim_sync(p->sim);
    int n = sy->gather(kh_sim_sync_ctx(p->sim), mine, p->n, &all);
    for (unsigned i = 0; i < p->n; i++) free(p->line[i]);
    free(mine);
    p->n = 0;
    if (n > 0) qsort(all, (size_t)n, sizeof *all, line_cmp);
    for (int i = 0; i < n; i++) {
        const char *text = all[i].text + PREFIX, *tag = all[i].text + PREFIX - 3;
        unsigned rule = (unsigned)(tag[1] - '0') * 10 + (unsigned)(tag[2] - '0');
        if (kh_mpi_rank(p->d) == 0) {
            if (tag[0] == 'C' && p->ck) {
                kh_checkout_print(&p->shown, rule, text);
            } else if (tag[0] != 'E' || !p->last_error || strcmp(text, p->last_error + PREFIX)) {
                fputs(text, stderr);
            }
        }
        if (tag[0] == 'E') {
            free(p->last_error);
            p->last_error = all[i].text;
        } else {
            free(all[i].text);
        }
    }
    free(all);
}

kh_cli_part *kh_cli_partition(kh_machine *m, kh_checkout *ck, char *err, size_t errlen)
{
    err[0] = 0;
    kh_cli_part *p = calloc(1, sizeof *p);
    if (!p || !(p->line = calloc(KEEP_SLOTS, sizeof *p->line))) {
        free(p);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (!(p->d = kh_mpi_attach(m, err, errlen))) {
        free(p->line);
        free(p);
        return NULL;
    }
    unsigned hi;
    kh_mpi_meshes(p->d, kh_mpi_rank(p->d), &p->first_mesh, &hi);
    if (kh_mpi_rank(p->d) && kh_machine_check(m)) {
        /* a restored checker: every rank loaded the whole machine's counts,
         * and the ranks' counts are summed, so rank 0 alone keeps them */
        kh_check_clear_counts(kh_machine_check(m));
        if (ck) ck->violations = ck->warnings = 0;
    }
    p->sim = kh_machine_sim(m);
    kh_sim_set_log(p->sim, keep_log, p, KH_LOG_WARN);
    if ((p->ck = ck)) {
        ck->keep = keep_finding;
        ck->keep_ctx = p;
        p->shown = (kh_checkout){.who = ck->who};
    }
    return p;
}

/* Rank r's promises of "now" by the kinds of part that held them, in
 * the order first seen ("timer" first). */
static void print_held(int r, const kh_mpi_held *h)
{
    fprintf(stderr, "kohaku: mpi: rank %d lane promises of now: %llu", r, (unsigned long long)h->refused);
    const char *sep = ", held by ";
    for (unsigned i = 0; i < KH_MPI_HELD_KINDS && h->k[i].kind[0]; i++) {
        if (!h->k[i].any) continue;
        fprintf(stderr, "%s%s %llu (alone %llu)", sep, h->k[i].kind, (unsigned long long)h->k[i].any,
                (unsigned long long)h->k[i].alone);
        sep = ", ";
    }
    fprintf(stderr, "\n");
}

/* KOHAKU_MPI_COUNTS=1: rank 0 reports the synchronisation's cost, the
 * agreements by cause and each rank's time (docs/mpi.md); rank 0's
 * environment decides for every rank. */
static void report_counts(kh_mpi *d)
{
    int show = kh_mpi_rank(d) == 0 && getenv("KOHAKU_MPI_COUNTS");
    MPI_Bcast(&show, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!show) return;
    kh_mpi_counts n;
    kh_mpi_get_counts(d, &n);
    enum { PER = 4 };
    double mine[PER] = {n.wall, n.cpu, n.blocked_agree, n.blocked_share}, *all = NULL;
    int size = kh_mpi_size(d);
    if (kh_mpi_rank(d) == 0 && !(all = calloc((size_t)size * PER, sizeof *all))) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(mine, PER, MPI_DOUBLE, all, PER, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    kh_mpi_held *held = NULL;
    if (kh_mpi_rank(d) == 0 && !(held = calloc((size_t)size, sizeof *held))) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(&n.held, (int)sizeof n.held, MPI_BYTE, held, (int)sizeof n.held, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (kh_mpi_rank(d)) return;
    kh_cycle cycles = n.last_cycle > n.first_cycle ? n.last_cycle - n.first_cycle : 0;
    fprintf(stderr, "kohaku: mpi: %d rank(s), lookahead %lld, %llu agreements, %llu lane messages (%llu bytes), "
            "%llu shared values\n", size, n.lookahead == KH_NEVER ? -1LL : (long long)n.lookahead,
            (unsigned long long)n.windows, (unsigned long long)n.messages, (unsigned long long)n.bytes,
            (unsigned long long)n.shares);
    fprintf(stderr, "kohaku: mpi: agreements by cause: lookahead %llu, engine %llu, run end %llu, query %llu; "
            "shared values: host %llu, engine %llu; host reads on the idleness agreement %llu, on the run's last %llu; %llu cycles simulated, %.2f agreements and %.2f shared values "
            "per 1000\n", (unsigned long long)n.by_cause[KH_MPI_LOOKAHEAD],
            (unsigned long long)n.by_cause[KH_MPI_ENGINE], (unsigned long long)n.by_cause[KH_MPI_RUN_END],
            (unsigned long long)n.by_cause[KH_MPI_QUERY], (unsigned long long)(n.shares - n.engine_shares),
            (unsigned long long)n.engine_shares, (unsigned long long)n.folded, (unsigned long long)n.ridden, (unsigned long long)cycles,
            cycles ? 1000.0 * (double)n.windows / (double)cycles : 0.0,
            cycles ? 1000.0 * (double)n.shares / (double)cycles : 0.0);
    fprintf(stderr, "kohaku: mpi: windows run past the lookahead on lane promises: %llu\n",
            (unsigned long long)n.promised);
    if (n.checked)
        fprintf(stderr, "kohaku: mpi: promise check: %llu of them checked on rank 0, none entered an interlink early\n",
                (unsigned long long)n.checked);
    for (int r = 0; r < size; r++) {
        unsigned lo, hi;
        kh_mpi_meshes(d, r, &lo, &hi);
        const double *v = all + (size_t)r * PER;
        fprintf(stderr, "kohaku: mpi: rank %d (meshes %u-%u): simulation %.3f s wall, %.3f s cpu, %.3f s in "
                "agreements, %.3f s in broadcasts\n", r, lo, hi - 1, v[0], v[1], v[2], v[3]);
        print_held(r, &held[r]);
    }
    free(all);
    free(held);
}

void kh_cli_unpartition(kh_cli_part *p)
{
    if (!p) return;
    kh_cli_stderr(p, NULL);
    kh_mpi *d = p->d;
    report_counts(d);
    kh_mpi_detach(d);
    if (p->ck) p->ck->keep = NULL;
    free(p->last_error);
    free(p->line);
    free(p);
}

int kh_cli_checkout_end(kh_cli_part *p, kh_checkout *o)
{
    if (!p) return kh_checkout_end(o);
    kh_cli_stderr(p, NULL); /* the findings before their summary */
    uint64_t v[4] = {o->violations, o->warnings, o->sent, o->delivered};
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    o->violations = v[0];
    o->warnings = v[1];
    o->sent = v[2];
    o->delivered = v[3];
    if (kh_mpi_rank(p->d) == 0) return kh_checkout_end(o);
    return o->violations ? 1 : 0;
}

#else

void kh_cli_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

void kh_cli_mpi_finish(void) {}

kh_cli_part *kh_cli_partition(kh_machine *m, kh_checkout *ck, char *err, size_t errlen)
{
    (void)m;
    (void)ck;
    if (errlen) err[0] = 0;
    return NULL;
}

void kh_cli_unpartition(kh_cli_part *p) { (void)p; }

void kh_cli_stderr(kh_cli_part *p, const char *line)
{
    (void)p;
    if (line) fputs(line, stderr);
}

int kh_cli_checkout_end(kh_cli_part *p, kh_checkout *o)
{
    (void)p;
    return kh_checkout_end(o);
}

#endif
