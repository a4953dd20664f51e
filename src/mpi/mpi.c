/* A machine on MPI ranks (include/kohaku/mpi.h, docs/mpi.md): the mesh
 * partition, the agreement that ends every window (one MPI_Allreduce of
 * the earliest next wake, the latest cycle executed, which lanes carry
 * anything and a word one owner shares: the host's reads of control
 * windows ride on it), the lane records sent only where there are any,
 * the owner's other host values and the engine's samples broadcast, the
 * agreements counted by cause, and merged reports. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kohaku/card.h"
#include "kohaku/ilink.h"
#include "kohaku/mpi.h"
#include "mpi/promise.h"

#define MPI_MAX_MESHES KH_MACHINE_MAX_MESHES

typedef struct mpi_lane {
    int peer;          /* the rank at the far end */
    unsigned mesh;     /* our mesh on this link */
    unsigned link;     /* its link index (1 up the line, 0 down) */
    unsigned out_bit;  /* bit of the agreement mask: we send on it */
    unsigned in_bit;   /* ... the peer sends to us */
    uint8_t *out, *in;
    size_t len, cap, incap;
} mpi_lane;

struct kh_mpi {
    kh_machine *m;
    kh_sim *sim;
    kh_card *card;
    MPI_Comm comm;
    MPI_Op op;
    int rank, size;
    unsigned nmeshes;
    int owner[MPI_MAX_MESHES];
    mpi_lane lane[2];
    unsigned nlanes;
    kh_cycle lookahead;
    unsigned jitter;   /* microseconds, 0 off */
    unsigned seed;
    kh_sync_ops ops;
    kh_card_dist dist;
    kh_mpi_counts counts;
    /* the cause of the next agreement (window_end sets it for a window) */
    int in_window;
    kh_cycle win_end;
    kh_mpi_cause win_cause;
    int engine_share; /* a share is the engine's POLL sample (begin) */
    uint64_t word;    /* the owner's word riding on the next agreement (idle_share), 0 elsewhere */
    int sharing;      /* idle_share's agreement is under way */
    /* The card's last read of a poll (ride): every other agreement carries
     * it, and the last one's outcome is kept (ridden). */
    int ride_on;
    unsigned ride_mesh;
    uint32_t ride_off;
    int (*ride_read)(void *card, unsigned mesh, uint32_t off, kh_cycle at, uint64_t *v);
    void *ride_card;
    uint64_t ride_seq, ride_val;
    int ride_ok, ride_idle;
    kh_cycle ride_at;
    kh_cycle run_end;  /* the end of the run whose windows are under way */
    unsigned rode_mesh;
    uint32_t rode_off;
    /* Lane promises (promise.c): the agreed earliest cycle any rank could
     * put anything on a lane, made at the agreement of cycle promise_at;
     * void once the host touches the machine (share, rides) or the clock
     * goes back before it (a run until idle ends where the last step did). */
    kh_promise promise;
    unsigned mesh_lo, mesh_hi; /* this rank's meshes */
    kh_cycle promised, promise_at;
    int promise_ok;
    int promises;     /* KOHAKU_MPI_PROMISES=0 turns them off (windows of the lookahead, as before) */
    /* KOHAKU_MPI_PROMISE_CHECK: every window run past the lookahead is
     * checked against what entered this rank's interlinks in it (nothing
     * before the agreed promise check_p), and every lane record exported
     * against the agreement's cycle (none visible before it). */
    int check, checking;
    kh_cycle check_p, check_from;
    int timing;       /* KOHAKU_MPI_COUNTS: the clocks are read */
    double t0, c0, cpu_read; /* cpu_read: the wall time the CPU clock was last read */
};

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The rank's clocks at its last agreement, from its first window. The
 * process CPU clock is a system call (0.5 us here, against 20 ns for the
 * monotonic one): read at every agreement it was 40 ms of a 2-rank GEMM's
 * timed phase, so it is read at most once a millisecond of wall time (the
 * figure may miss the last millisecond's CPU). */
static void mark_end(kh_mpi *d, double now)
{
    if (!d->timing || d->t0 == 0) return;
    d->counts.wall = now - d->t0;
    if (now - d->cpu_read >= 1e-3) {
        d->cpu_read = now;
        d->counts.cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - d->c0;
    }
    d->counts.last_cycle = kh_sim_now(d->sim);
}

/* The agreement's five words: min next wake, min of (NEVER - reached),
 * or of the lane bits (and RIDE_UNSETTLED), or of the word one owner
 * shares (idle_share, ride), min of the ranks' lane promises. */
#define RIDE_UNSETTLED (UINT64_C(1) << 63)

static int owns(void *ctx, unsigned mesh);
static void agree_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const uint64_t *a = in;
    uint64_t *b = inout;
    for (int i = 0; i + 4 < *len; i += 5) {
        if (a[i] < b[i]) b[i] = a[i];
        if (a[i + 1] < b[i + 1]) b[i + 1] = a[i + 1];
        b[i + 2] |= a[i + 2];
        b[i + 3] |= a[i + 3];
        if (a[i + 4] < b[i + 4]) b[i + 4] = a[i + 4];
    }
}

static void jitter(kh_mpi *d)
{
    if (!d->jitter) return;
    d->seed = d->seed * 1103515245u + 12345u;
    struct timespec ts = {0, (long)((d->seed >> 8) % d->jitter) * 1000L};
    nanosleep(&ts, NULL);
}

/* The checking mode: what entered this rank's interlinks in the window
 * [check_from, at) run past the lookahead on the promise check_p. */
static void check_window(kh_mpi *d, kh_cycle at)
{
    d->checking = 0;
    for (unsigned mesh = d->mesh_lo; mesh < d->mesh_hi; mesh++) {
        kh_cycle e = kh_node_entry_take(kh_machine_node_at(d->m, mesh));
        if (e >= d->check_p) continue;
        fprintf(stderr, "kohaku: mpi: promise check: rank %d, mesh %u: something entered its interlink at cycle %llu "
                "in the window %llu-%llu, but the ranks promised nothing on a lane before %llu\n", d->rank, mesh,
                (unsigned long long)e, (unsigned long long)d->check_from, (unsigned long long)at,
                (unsigned long long)d->check_p);
        MPI_Abort(d->comm, 2);
    }
    d->counts.checked++;
}

static void agree(void *ctx, kh_cycle *next, kh_cycle *reached)
{
    kh_mpi *d = ctx;
    uint64_t v[5] = {*next, KH_NEVER - *reached, 0, d->word, d->promises ? KH_NEVER : 0};
    /* The agreement at the end of a run (the kernel settles there) or
     * between runs: a read now, after the export, is the read the host
     * would make after it, if every process has settled. (Not an earlier
     * window's, even when the run skips from it to its end: a read as of
     * a later cycle may move what it reads, a FIFO's head.) */
    kh_cycle at = kh_sim_now(d->sim);
    int riding = !d->sharing && d->ride_on && (!d->in_window || at == d->run_end);
    if (d->checking) check_window(d, at);
    for (unsigned i = 0; i < d->nlanes; i++) {
        mpi_lane *l = &d->lane[i];
        kh_cycle first = KH_NEVER;
        l->len = 0;
        int r = kh_node_ilink_export(kh_machine_node_at(d->m, l->mesh), l->link, &l->out, &l->len, &l->cap, &first);
        if (r < 0) MPI_Abort(d->comm, 1); /* out of memory mid-run: the ranks cannot go on apart */
        if (d->check && first < at) {
            fprintf(stderr, "kohaku: mpi: promise check: rank %d, mesh %u's link %u: a lane record visible at cycle "
                    "%llu, before the agreement at %llu that delivers it\n", d->rank, l->mesh, l->link,
                    (unsigned long long)first, (unsigned long long)at);
            MPI_Abort(d->comm, 2);
        }
        if (r) v[2] |= UINT64_C(1) << l->out_bit;
        if (first < v[0]) v[0] = first;
        if (first < v[4]) v[4] = first; /* the peer may answer (a credit) as it arrives */
    }
    if (d->promises && d->lookahead != KH_NEVER) {
        kh_cycle mine;
        if (kh_promise_meshes(&d->promise, d->m, d->mesh_lo, d->mesh_hi, at, &mine,
                              d->timing ? &d->counts.held : NULL))
            MPI_Abort(d->comm, 1); /* out of memory mid-run: the ranks cannot go on apart */
        if (mine < v[4]) v[4] = mine;
    }
    /* after the export, as a read after the agreement would be */
    if (riding) {
        if (kh_sim_unsettled(d->sim)) v[2] |= RIDE_UNSETTLED;
        else if (d->ride_mesh != KH_CARD_NO_MESH && owns(d, d->ride_mesh) &&
                 !d->ride_read(d->ride_card, d->ride_mesh, d->ride_off, at, &v[3]))
            v[2] |= RIDE_UNSETTLED;
    }
    jitter(d);
    double t = d->timing ? clock_s(CLOCK_MONOTONIC) : 0;
    MPI_Allreduce(MPI_IN_PLACE, v, 5, MPI_UINT64_T, d->op, d->comm);
    d->word = v[3];
    d->promised = v[4];
    d->promise_at = at;
    d->promise_ok = 1;
    if (riding) {
        d->ride_seq++;
        d->ride_ok = !(v[2] & RIDE_UNSETTLED);
        d->ride_val = v[3];
        d->ride_idle = v[0] == KH_NEVER;
        d->ride_at = at;
        d->rode_mesh = d->ride_mesh;
        d->rode_off = d->ride_off;
        d->word = 0;
    }
    d->counts.windows++;
    kh_mpi_cause cause = KH_MPI_QUERY;
    if (d->in_window) cause = kh_sim_now(d->sim) < d->win_end ? KH_MPI_RUN_END : d->win_cause;
    d->in_window = 0;
    d->counts.by_cause[cause]++;
    MPI_Request rq[2];
    int nrq = 0;
    for (unsigned i = 0; i < d->nlanes; i++) {
        mpi_lane *l = &d->lane[i];
        if (!(v[2] >> l->out_bit & 1)) continue;
        MPI_Isend(l->out, (int)l->len, MPI_BYTE, l->peer, (int)l->out_bit, d->comm, &rq[nrq++]);
        d->counts.messages++;
        d->counts.bytes += l->len;
    }
    for (unsigned i = 0; i < d->nlanes; i++) {
        mpi_lane *l = &d->lane[i];
        if (!(v[2] >> l->in_bit & 1)) continue;
        MPI_Status st;
        int n = 0;
        MPI_Probe(l->peer, (int)l->in_bit, d->comm, &st);
        MPI_Get_count(&st, MPI_BYTE, &n);
        if ((size_t)n > l->incap) {
            uint8_t *b = realloc(l->in, (size_t)n);
            if (!b) MPI_Abort(d->comm, 1);
            l->in = b;
            l->incap = (size_t)n;
        }
        MPI_Recv(l->in, n, MPI_BYTE, l->peer, (int)l->in_bit, d->comm, MPI_STATUS_IGNORE);
        if (kh_node_ilink_import(kh_machine_node_at(d->m, l->mesh), l->link, l->in, (size_t)n))
            MPI_Abort(d->comm, 1); /* a malformed record: the ranks are not the same program */
    }
    MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE);
    if (d->timing) {
        double now = clock_s(CLOCK_MONOTONIC);
        d->counts.blocked_agree += now - t;
        mark_end(d, now);
    }
    *next = v[0];
    *reached = KH_NEVER - v[1];
}

static void begin(void *ctx, kh_cycle from)
{
    kh_mpi *d = ctx;
    if (d->timing && d->t0 == 0) {
        d->t0 = d->cpu_read = clock_s(CLOCK_MONOTONIC);
        d->c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        d->counts.first_cycle = from;
    }
    d->engine_share = 1;
    kh_card_engine_prefetch(d->card, from);
    d->engine_share = 0;
}

static kh_cycle window_end(void *ctx, kh_cycle from)
{
    kh_mpi *d = ctx;
    kh_cycle w = d->lookahead == KH_NEVER ? KH_NEVER : from + d->lookahead, at;
    uint32_t addr;
    int k = kh_engine_next_action(kh_card_engine(d->card), &at, &addr);
    /* Nothing reaches a lane before the promise, so nothing arrives before
     * it + lookahead. Not while the engine may still write: it may write
     * any mesh's registers (a doorbell, a mover's GO) after the promise
     * was made; a program left with POLLs only reads. */
    kh_cycle lane_end = w;
    if (w != KH_NEVER && (!k || !kh_engine_writes_ahead(kh_card_engine(d->card))) && d->promise_ok &&
        from >= d->promise_at && d->promised > from)
        w = d->promised >= KH_NEVER - d->lookahead ? KH_NEVER : d->promised + d->lookahead;
    if (w != lane_end) {
        d->counts.promised++;
        if (d->check) {
            for (unsigned mesh = d->mesh_lo; mesh < d->mesh_hi; mesh++)
                kh_node_entry_take(kh_machine_node_at(d->m, mesh)); /* count from the window's start */
            d->checking = 1;
            d->check_p = d->promised;
            d->check_from = from;
        }
    }
    if (k == 2 && at > from) {
        /* a sample after from starts a window of its own (begin shares it) */
        if (at < w) w = at;
    } else if (k) {
        /* whatever it does next may set up a sample: look again after it */
        if (at < from) at = from;
        if (at + 1 < w) w = at + 1;
    }
    d->in_window = 1;
    d->win_end = w;
    d->win_cause = w >= lane_end ? KH_MPI_LOOKAHEAD : KH_MPI_ENGINE;
    return w;
}

typedef struct rec_at {
    kh_sync_rec r;
    int rank;
    unsigned i;
} rec_at;

static int rec_cmp(const void *a, const void *b)
{
    const rec_at *x = a, *y = b;
    if (x->r.key != y->r.key) return x->r.key < y->r.key ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Records on the wire: key, length, bytes (no NUL). */
static int gather(void *ctx, const kh_sync_rec *mine, unsigned n, kh_sync_rec **all)
{
    kh_mpi *d = ctx;
    size_t len = 0;
    for (unsigned i = 0; i < n; i++) len += 8 + strlen(mine[i].text);
    if (len > (size_t)1 << 30) MPI_Abort(d->comm, 1);
    uint8_t *buf = malloc(len ? len : 1);
    int *cnt = calloc((size_t)d->size, sizeof *cnt), *off = calloc((size_t)d->size, sizeof *off);
    if (!buf || !cnt || !off) MPI_Abort(d->comm, 1);
    size_t p = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t k = mine[i].key, t = (uint32_t)strlen(mine[i].text);
        memcpy(buf + p, &k, 4);
        memcpy(buf + p + 4, &t, 4);
        memcpy(buf + p + 8, mine[i].text, t);
        p += 8 + t;
    }
    int me = (int)len;
    MPI_Allgather(&me, 1, MPI_INT, cnt, 1, MPI_INT, d->comm);
    size_t total = 0;
    for (int r = 0; r < d->size; r++) {
        off[r] = (int)total;
        total += (size_t)cnt[r];
    }
    if (!total) { /* nobody has a record (a session's error check after each command): one collective, not two */
        free(buf);
        free(cnt);
        free(off);
        if (!(*all = calloc(1, sizeof **all))) MPI_Abort(d->comm, 1); /* as below: an empty list, not NULL */
        return 0;
    }
    uint8_t *every = malloc(total ? total : 1);
    if (!every) MPI_Abort(d->comm, 1);
    MPI_Allgatherv(buf, me, MPI_BYTE, every, cnt, off, MPI_BYTE, d->comm);
    free(buf);
    size_t nrec = 0;
    for (size_t q = 0; q + 8 <= total; nrec++) {
        uint32_t t;
        memcpy(&t, every + q + 4, 4);
        q += 8 + t;
    }
    rec_at *v = calloc(nrec ? nrec : 1, sizeof *v);
    if (!v) MPI_Abort(d->comm, 1);
    size_t q = 0, k = 0;
    for (int r = 0; r < d->size; r++) {
        unsigned i = 0;
        for (size_t end = (size_t)off[r] + (size_t)cnt[r]; q + 8 <= end; k++, i++) {
            uint32_t key, t;
            memcpy(&key, every + q, 4);
            memcpy(&t, every + q + 4, 4);
            char *s = malloc((size_t)t + 1);
            if (!s) MPI_Abort(d->comm, 1);
            memcpy(s, every + q + 8, t);
            s[t] = 0;
            v[k] = (rec_at){{key, s}, r, i};
            q += 8 + t;
        }
    }
    free(every);
    free(cnt);
    free(off);
    qsort(v, nrec, sizeof *v, rec_cmp);
    kh_sync_rec *out = calloc(nrec ? nrec : 1, sizeof *out);
    if (!out) MPI_Abort(d->comm, 1);
    for (size_t i = 0; i < nrec; i++) out[i] = v[i].r;
    free(v);
    *all = out;
    return (int)nrec;
}

static int owns(void *ctx, unsigned mesh)
{
    const kh_mpi *d = ctx;
    return mesh < d->nmeshes && d->owner[mesh] == d->rank;
}

static void share(void *ctx, unsigned mesh, void *bytes, size_t n)
{
    kh_mpi *d = ctx;
    int root = mesh < d->nmeshes ? d->owner[mesh] : 0;
    d->promise_ok = 0; /* a host access (or the engine's sample) may change what a mesh holds */
    uint8_t *b = bytes;
    double t = d->timing ? clock_s(CLOCK_MONOTONIC) : 0;
    for (size_t k = 0; k < n;) { /* counts are int */
        size_t c = n - k > ((size_t)1 << 30) ? (size_t)1 << 30 : n - k;
        MPI_Bcast(b + k, (int)c, MPI_BYTE, root, d->comm);
        k += c;
    }
    d->counts.shares++;
    d->counts.engine_shares += d->engine_share != 0;
    if (d->timing) {
        double now = clock_s(CLOCK_MONOTONIC);
        d->counts.blocked_share += now - t;
        mark_end(d, now);
    }
}

static int idle_share(void *ctx, unsigned mesh, uint64_t *v)
{
    kh_mpi *d = ctx;
    d->word = owns(d, mesh) ? *v : 0;
    d->sharing = 1;
    int idle = kh_sim_idle(d->sim); /* one agreement, the word in it */
    d->sharing = 0;
    *v = d->word;
    d->word = 0;
    d->counts.folded++;
    return idle;
}

static void ride(void *ctx, unsigned mesh, uint32_t off,
                 int (*read)(void *card, unsigned mesh, uint32_t off, kh_cycle at, uint64_t *v), void *card)
{
    kh_mpi *d = ctx;
    d->ride_on = 1;
    d->ride_mesh = mesh;
    d->ride_off = off;
    d->ride_read = read;
    d->ride_card = card;
}

static void run_begins(void *ctx, kh_cycle end) { ((kh_mpi *)ctx)->run_end = end; }

static int ridden(void *ctx, unsigned mesh, uint32_t off, kh_cycle now, uint64_t after, uint64_t *v, int *idle)
{
    kh_mpi *d = ctx;
    if (!d->ride_ok || d->ride_seq <= after || d->ride_at != now || d->rode_mesh != mesh || d->rode_off != off)
        return 0;
    *v = d->ride_val;
    *idle = d->ride_idle;
    d->counts.ridden++;
    return 1;
}

/* Asked by every host write before it reaches the machine. */
static uint64_t rides(void *ctx)
{
    kh_mpi *d = ctx;
    d->promise_ok = 0;
    return d->ride_seq;
}

void kh_mpi_meshes(const kh_mpi *d, int rank, unsigned *lo, unsigned *hi)
{
    int slot = rank;
    if (getenv("KOHAKU_MPI_ORDER") && !strcmp(getenv("KOHAKU_MPI_ORDER"), "reverse")) slot = d->size - 1 - rank;
    *lo = (unsigned)((size_t)slot * d->nmeshes / (size_t)d->size);
    *hi = (unsigned)((size_t)(slot + 1) * d->nmeshes / (size_t)d->size);
}

static void add_lane(kh_mpi *d, int peer, unsigned mesh, unsigned link, unsigned out_bit, unsigned in_bit)
{
    d->lane[d->nlanes++] = (mpi_lane){.peer = peer, .mesh = mesh, .link = link, .out_bit = out_bit, .in_bit = in_bit};
}

kh_mpi *kh_mpi_attach(kh_machine *m, char *err, size_t errlen)
{
    kh_mpi *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->m = m;
    d->sim = kh_machine_sim(m);
    d->card = kh_machine_card(m);
    d->comm = MPI_COMM_WORLD;
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Comm_size(d->comm, &d->size);
    d->nmeshes = kh_machine_nmeshes(m);
    if ((unsigned)d->size > d->nmeshes) {
        snprintf(err, errlen, "%d MPI ranks for %u mesh(es): each rank steps one or more whole meshes, so at most "
                 "%u ranks (docs/mpi.md)", d->size, d->nmeshes, d->nmeshes);
        free(d);
        return NULL;
    }
    for (int r = 0; r < d->size; r++) {
        unsigned lo, hi;
        kh_mpi_meshes(d, r, &lo, &hi);
        for (unsigned i = lo; i < hi; i++) d->owner[i] = r;
    }
    kh_mpi_meshes(d, d->rank, &d->mesh_lo, &d->mesh_hi);
    /* Each link whose ends are on two ranks: bit 2i carries mesh i's
     * records up to mesh i+1, bit 2i+1 mesh i+1's down to mesh i. */
    for (unsigned i = 0; i + 1 < d->nmeshes; i++) {
        if (d->owner[i] == d->owner[i + 1]) continue;
        if (d->owner[i] == d->rank) add_lane(d, d->owner[i + 1], i, 1, 2 * i, 2 * i + 1);
        if (d->owner[i + 1] == d->rank) add_lane(d, d->owner[i], i + 1, 0, 2 * i + 1, 2 * i);
    }
    int cross = 0;
    for (unsigned i = 0; i + 1 < d->nmeshes; i++) cross |= d->owner[i] != d->owner[i + 1];
    d->lookahead = cross ? kh_sim_params(d->sim)->ilink_lat : KH_NEVER;
    const char *j = getenv("KOHAKU_MPI_JITTER");
    d->jitter = j ? (unsigned)strtoul(j, NULL, 10) : 0;
    d->seed = 2654435761u * (unsigned)(d->rank + 1);
    d->timing = getenv("KOHAKU_MPI_COUNTS") != NULL;
    const char *pr = getenv("KOHAKU_MPI_PROMISES");
    d->promises = !pr || strcmp(pr, "0");
    d->promise.units = !pr || strcmp(pr, "mover"); /* "mover": the first step's reading alone */
    d->check = getenv("KOHAKU_MPI_PROMISE_CHECK") && strcmp(getenv("KOHAKU_MPI_PROMISE_CHECK"), "0");
    unsigned last = 0;
    for (unsigned i = 0; i < d->nmeshes; i++) {
        unsigned lo, hi;
        kh_machine_mesh_comps(m, i, &lo, &hi);
        if (d->owner[i] == d->rank && kh_sim_own(d->sim, lo, hi)) goto nomem;
        last = hi;
    }
    /* after the meshes: the card's engine, stepped on every rank */
    if (kh_sim_share(d->sim, last, kh_sim_ncomps(d->sim))) goto nomem;
    MPI_Op_create(agree_op, 1, &d->op);
    d->ops = (kh_sync_ops){.agree = agree, .begin = begin, .window_end = window_end, .gather = gather,
                           .leader = d->rank == 0, .run = run_begins};
    d->dist = (kh_card_dist){.ctx = d, .owns = owns, .share = share, .idle_share = idle_share,
                            .ride = ride, .ridden = ridden, .rides = rides};
    kh_sim_set_sync(d->sim, &d->ops, d);
    kh_card_set_dist(d->card, &d->dist);
    d->counts.lookahead = d->lookahead;
    return d;
nomem:
    snprintf(err, errlen, "out of memory partitioning the machine");
    free(d);
    return NULL;
}

void kh_mpi_detach(kh_mpi *d)
{
    if (!d) return;
    kh_sim_set_sync(d->sim, NULL, NULL);
    kh_card_set_dist(d->card, NULL);
    MPI_Op_free(&d->op);
    kh_promise_free(&d->promise);
    for (unsigned i = 0; i < d->nlanes; i++) {
        free(d->lane[i].out);
        free(d->lane[i].in);
    }
    free(d);
}

int kh_mpi_rank(const kh_mpi *d) { return d->rank; }
int kh_mpi_size(const kh_mpi *d) { return d->size; }
void kh_mpi_get_counts(const kh_mpi *d, kh_mpi_counts *out) { *out = d->counts; }
