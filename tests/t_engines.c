/* The event engine against the per-cycle reference (docs/design.md §2,
 * "The event engine"): a run may stop at any cycle, in the middle of a
 * burst or a flit's flight across the mesh, and what anyone can read
 * between runs (every counter of the statistics, the hang diagnosis, the
 * clock and whether anything is pending) is the same on both engines.
 * Two copies of a machine, one per engine, are driven through the same
 * session and then stepped a few cycles at a time, compared after every
 * step. (tests/cli/engines.sh compares whole runs' outputs.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/machine.h"
#include "kohaku/mesh.h"
#include "kohaku/session.h"
#include "kohaku/trace.h"
#include "kohaku/traffic.h"
#include "support/test.h"

static char *stats_of(kh_machine *m)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) return NULL;
    kh_stats_fprint_json(kh_machine_sim(m), f);
    fclose(f);
    return text;
}

/* Machines m[0] (cycle) and m[1] (fast) agree on what can be read now. */
static int agree(kh_machine *m[2], const char *where, kh_cycle step)
{
    kh_sim *s0 = kh_machine_sim(m[0]), *s1 = kh_machine_sim(m[1]);
    char *a = stats_of(m[0]), *b = stats_of(m[1]);
    enum { DIAG = 16384 };
    char *d0 = calloc(1, DIAG), *d1 = calloc(1, DIAG);
    if (d0 && d1) {
        kh_machine_diagnose(m[0], d0, DIAG);
        kh_machine_diagnose(m[1], d1, DIAG);
    }
    int same = a && b && d0 && d1 && !strcmp(a, b) && !strcmp(d0, d1) && kh_sim_now(s0) == kh_sim_now(s1) &&
               kh_sim_idle(s0) == kh_sim_idle(s1) && kh_sim_next_wake(s0) == kh_sim_next_wake(s1);
    if (!same) {
        kh_test_fail(__FILE__, __LINE__, "%s, step %llu (cycle %llu): the engines differ", where,
                     (unsigned long long)step, (unsigned long long)kh_sim_now(s0));
        if (a && b)
            for (size_t i = 0; a[i] || b[i]; i++)
                if (a[i] != b[i]) {
                    fprintf(stderr, "  stats at byte %zu: cycle ...%.80s\n  fast ...%.80s\n", i, a + (i > 40 ? i - 40 : 0),
                            b + (i > 40 ? i - 40 : 0));
                    break;
                }
        if (d0 && d1 && strcmp(d0, d1)) fprintf(stderr, "  diagnosis: cycle %s\n  fast %s\n", d0, d1);
    }
    free(a);
    free(b);
    free(d0);
    free(d1);
    return same;
}

/* A checkpoint written here by each engine (the event engine's work ahead
 * settled by the save) restores the same machine: both files, restored on
 * either engine and run until idle, agree on everything agree() reads.
 * (The bytes themselves differ: the kernel's step count, a settled
 * router's FIFO ring positions and the shells' receive timers.) */
static int same_after_restore(kh_machine *m[2], const char *where, kh_cycle step)
{
    int same = 1;
    for (int run_on = 0; run_on < 2 && same; run_on++) {
        kh_machine *r[2] = {NULL, NULL};
        char err[256];
        for (int e = 0; e < 2; e++) {
            uint8_t *bytes = NULL;
            size_t n = 0;
            if (kh_machine_save_bytes(m[e], NULL, &bytes, &n, err, sizeof err) == 0)
                r[e] = kh_machine_restore_bytes(bytes, n, NULL, NULL, err, sizeof err);
            free(bytes);
            if (!r[e]) {
                kh_test_fail(__FILE__, __LINE__, "%s, step %llu: %s engine's checkpoint: %s", where,
                             (unsigned long long)step, e ? "the fast" : "the cycle", err);
                break;
            }
            kh_sim_set_engine(kh_machine_sim(r[e]), run_on ? KH_ENGINE_FAST : KH_ENGINE_CYCLE);
            if (kh_sim_run_until_idle(kh_machine_sim(r[e]), 50000) != 1) {
                kh_test_fail(__FILE__, __LINE__, "%s, step %llu: the %s engine's restored machine is not idle "
                             "after 50000 cycles", where, (unsigned long long)step, e ? "fast" : "cycle");
                kh_machine_free(r[e]);
                r[e] = NULL;
                break;
            }
        }
        same = r[0] && r[1] && agree(r, where, step);
        for (int e = 0; e < 2; e++)
            if (r[e]) kh_machine_free(r[e]);
    }
    return same;
}

/* Map MAP, the session text, then steps of `by` cycles until both idle;
 * every 16th stop, the checkpoints too. */
static void stop_anywhere(const char *map, const char *text, kh_cycle by, kh_cycle limit)
{
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/maps/%s", kh_test_data_dir(), map);
    kh_machine *m[2];
    for (int e = 0; e < 2; e++) {
        kh_params p;
        kh_params_default(&p);
        m[e] = kh_machine_load(path, &p, err, sizeof err);
        CHECK(m[e] != NULL);
        if (!m[e]) return;
        kh_sim_set_engine(kh_machine_sim(m[e]), e ? KH_ENGINE_FAST : KH_ENGINE_CYCLE);
        kh_session *s = kh_session_parse(text, "engines", ".", err, sizeof err);
        CHECK(s != NULL);
        FILE *out = fopen("/dev/null", "w");
        CHECK(s && kh_session_run(s, m[e], out, err, sizeof err) == 0);
        if (out) fclose(out);
        kh_session_free(s);
    }
    agree(m, map, 0);
    for (kh_cycle k = 1; k * by <= limit; k++) {
        kh_sim_run(kh_machine_sim(m[0]), by);
        kh_sim_run(kh_machine_sim(m[1]), by);
        if (!agree(m, map, k) || (k % 16 == 0 && !same_after_restore(m, map, k))) break;
        if (kh_sim_idle(kh_machine_sim(m[0]))) break;
    }
    for (int e = 0; e < 2; e++) kh_machine_free(m[e]);
}

/* The bench's saxpy session head (x and y uploaded, the programs staged)
 * followed by kick; NULL (a failed check) when it cannot be read. */
static char *saxpy_session(const char *kick)
{
    char err[256];
    size_t n;
    char *head = kh_file_read("bench/base/saxpy_head.session", &n, err, sizeof err);
    if (!head) {
        CHECK(!"bench/base/saxpy_head.session is readable");
        return NULL;
    }
    char *text = malloc(n + strlen(kick) + 1);
    if (text) {
        memcpy(text, head, n);
        strcpy(text + n, kick);
    }
    free(head);
    return text;
}

/* The saxpy mesh: x and y uploaded, four SAXPY instructions kicked on each
 * unit; then 3 cycles at a time through every read burst, compute and
 * write burst to the end. */
static void the_saxpy_mesh_stops_anywhere(void)
{
    char *text = saxpy_session("write PROG_BASE 0\nwrite PROG_LEN 4\nwrite PROG_DST XY(1,0)\nwrite PROG_CRED 4\n"
                               "write PROG_KICK 1\nrun 30\nwrite PROG_BASE 8\nwrite PROG_LEN 4\n"
                               "write PROG_DST XY(1,2)\nwrite PROG_CRED 4\nwrite PROG_KICK 1\n");
    if (text) {
        stop_anywhere("saxpy_map.txt", text, 3, 20000);
        stop_anywhere("saxpy_map.txt", text, 1, 3000);
    }
    free(text);
}

/* Both saxpy units at once, the second kicked at several odd offsets
 * after the host's poll has seen the first one's program taken (the
 * read's link time included): one unit's read bursts leave
 * the port while the other's write bursts and read requests come in, and
 * the bursts meet at the port and the router at different phases. Stopped
 * every 5 and every 7 cycles, so runs end at odd cycles inside bursts. */
static void contending_saxpy_bursts_stop_anywhere(void)
{
    static const unsigned offset[] = {1, 6, 11, 97};
    static const kh_cycle by[] = {5, 7};
    for (unsigned k = 0; k < sizeof offset / sizeof offset[0]; k++) {
        char kick[512];
        snprintf(kick, sizeof kick,
                 "write PROG_BASE 0\nwrite PROG_LEN 4\nwrite PROG_DST XY(1,0)\nwrite PROG_CRED 4\n"
                 "write PROG_KICK 1\nrun 40\npoll PROG_STAT 0 mask 1\nrun %u\nwrite PROG_BASE 8\n"
                 "write PROG_LEN 4\nwrite PROG_DST XY(1,2)\nwrite PROG_CRED 4\nwrite PROG_KICK 1\n",
                 offset[k]);
        char *text = saxpy_session(kick);
        if (!text) break;
        stop_anywhere("saxpy_map.txt", text, by[k % 2], 20000);
        free(text);
    }
}

/* ---- synthetic traffic: the routers' hops under every kind of contention */

/* A trace sink recording every transfer (the link's index, the cycle, the
 * header word), to compare what two runs show a sink. */
typedef struct rec_sink {
    kh_trace t;
    const kh_sim *sim;
    uint64_t *ev;
    size_t n, cap;
} rec_sink;

static void rec_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    rec_sink *r = ctx;
    if (r->n + 3 > r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 1024;
        uint64_t *v = realloc(r->ev, cap * sizeof *v);
        if (!v) return;
        r->ev = v;
        r->cap = cap;
    }
    unsigned k = 0;
    while (k < kh_sim_nlinks(r->sim) && kh_sim_link(r->sim, k) != l) k++;
    r->ev[r->n++] = k;
    r->ev[r->n++] = now;
    r->ev[r->n++] = f->w[KH_FLIT_HDR_WORD];
}

typedef struct net {
    kh_sim *sim;
    kh_mesh *mesh;
    kh_traffic *t;
} net;

/* A routing policy that sends north-south first (YX): it asks for masked
 * turns, whose flits routers drop (the policy's seam, mesh.md §3). */
static unsigned route_yx(void *ctx, unsigned mx, unsigned my, unsigned nx, unsigned ny, unsigned px, unsigned py)
{
    (void)ctx;
    unsigned ry = py < 1 ? 1 : py > ny ? ny : py, rx = px < 1 ? 1 : px > nx ? nx : px;
    if (ry < my) return KH_DIR_N;
    if (ry > my) return KH_DIR_S;
    if (rx < mx) return KH_DIR_W;
    if (rx > mx) return KH_DIR_E;
    return kh_noc_route(mx, my, nx, ny, px, py);
}

static int net_new(net *n, const kh_map *map, const kh_traffic_cfg *cfg, const char *const *params, int yx,
                   kh_sim_engine_kind e)
{
    char err[512];
    kh_params p;
    kh_params_default(&p);
    for (; params && *params; params++) CHECK(!kh_params_set_assign(&p, *params, err, sizeof err));
    n->sim = kh_sim_new(&p);
    kh_sim_set_engine(n->sim, e);
    kh_sim_set_log(n->sim, NULL, NULL, KH_LOG_ERROR + 1); /* the policy's drops are logged: not here */
    kh_mesh_cfg mc = {.route = yx ? route_yx : NULL};
    n->mesh = kh_mesh_new_cfg(n->sim, map, &mc, err, sizeof err);
    n->t = n->mesh ? kh_traffic_new(n->mesh, map, cfg, err, sizeof err) : NULL;
    CHECK(n->t != NULL);
    return n->t ? 0 : -1;
}

static void net_free(net *n)
{
    kh_traffic_free(n->t);
    kh_mesh_free(n->mesh);
    kh_sim_destroy(n->sim);
}

static int net_agree(net n[2], const char *what, kh_cycle step)
{
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
    if (fa) {
        kh_stats_fprint_json(n[0].sim, fa);
        fclose(fa);
    }
    if (fb) {
        kh_stats_fprint_json(n[1].sim, fb);
        fclose(fb);
    }
    static char d0[65536], d1[65536];
    kh_sim_describe_stuck(n[0].sim, d0, sizeof d0);
    kh_sim_describe_stuck(n[1].sim, d1, sizeof d1);
    kh_traffic_stats s0, s1;
    kh_traffic_stats_get(n[0].t, &s0);
    kh_traffic_stats_get(n[1].t, &s1);
    int same = a && b && !strcmp(a, b) && !strcmp(d0, d1) && !memcmp(&s0, &s1, sizeof s0) &&
               kh_sim_next_wake(n[0].sim) == kh_sim_next_wake(n[1].sim) &&
               kh_mesh_hops(n[0].mesh) == kh_mesh_hops(n[1].mesh);
    if (!same) {
        kh_test_fail(__FILE__, __LINE__, "%s, step %llu (cycle %llu): the engines differ", what,
                     (unsigned long long)step, (unsigned long long)kh_sim_now(n[0].sim));
        if (a && b && strcmp(a, b))
            for (size_t i = 0; a[i] || b[i]; i++)
                if (a[i] != b[i]) {
                    fprintf(stderr, "  stats at byte %zu: cycle ...%.300s\n  fast  ...%.120s\n", i, a + (i > 240 ? i - 240 : 0),
                            b + (i > 60 ? i - 60 : 0));
                    break;
                }
        if (strcmp(d0, d1)) fprintf(stderr, "  stuck: cycle %.300s\n  fast  %.300s\n", d0, d1);
        if (memcmp(&s0, &s1, sizeof s0)) fprintf(stderr, "  traffic stats differ\n");
        if (kh_sim_next_wake(n[0].sim) != kh_sim_next_wake(n[1].sim))
            fprintf(stderr, "  next wake %llu, %llu\n", (unsigned long long)kh_sim_next_wake(n[0].sim),
                    (unsigned long long)kh_sim_next_wake(n[1].sim));
    }
    free(a);
    free(b);
    return same;
}

/* Traffic on map under both engines, stopped every `by` cycles and
 * compared; a trace sink attached over [trace_from, trace_to) records
 * what each run shows it. */
static void traffic_stops_anywhere(const char *what, const char *mapname, const kh_traffic_cfg *cfg,
                                   const char *const *params, int yx, kh_cycle by, kh_cycle cycles,
                                   kh_cycle trace_from, kh_cycle trace_to)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/maps/%s", kh_test_data_dir(), mapname);
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = kh_map_load(path, &units, err, sizeof err);
    CHECK(map != NULL);
    if (!map) return;
    net n[2];
    rec_sink rs[2] = {{.t = {.link = rec_link}}, {.t = {.link = rec_link}}};
    if (net_new(&n[0], map, cfg, params, yx, KH_ENGINE_CYCLE) || net_new(&n[1], map, cfg, params, yx, KH_ENGINE_FAST))
        goto done;
    for (int e = 0; e < 2; e++) {
        rs[e].t.ctx = &rs[e];
        rs[e].sim = n[e].sim;
    }
    for (kh_cycle k = 1; k * by <= cycles; k++) {
        kh_cycle at = kh_sim_now(n[0].sim);
        for (int e = 0; e < 2; e++) {
            if (at == trace_from) kh_sim_set_trace(n[e].sim, &rs[e].t);
            if (at == trace_to) kh_sim_set_trace(n[e].sim, NULL);
            kh_sim_run(n[e].sim, by);
        }
        if (!net_agree(n, what, k)) break;
    }
    CHECK(rs[0].n == rs[1].n && (!rs[0].n || !memcmp(rs[0].ev, rs[1].ev, rs[0].n * sizeof *rs[0].ev)));
    CHECK(trace_from >= trace_to || rs[0].n > 0);
    char e0[256], e1[256];
    CHECK(kh_traffic_check(n[0].t, e0, sizeof e0) == kh_traffic_check(n[1].t, e1, sizeof e1));
done:
    for (int e = 0; e < 2; e++) {
        free(rs[e].ev);
        if (n[e].t) net_free(&n[e]);
    }
    kh_map_free(map);
}

static void light_traffic_stops_anywhere(void)
{
    kh_traffic_cfg c = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.1, .seed = 3, .stop = KH_NEVER};
    traffic_stops_anywhere("uniform 0.1", "mesh_4x4.txt", &c, NULL, 0, 7, 4000, 1001, 1500);
    c.rate = 0.25;
    traffic_stops_anywhere("uniform 0.25, every cycle", "mesh_4x4.txt", &c, NULL, 0, 1, 1500, 0, 0);
}

static void contention_stops_anywhere(void)
{
    kh_traffic_cfg c = {.pattern = KH_TRAFFIC_HOTSPOT, .rate = 0.4, .seed = 5, .stop = KH_NEVER};
    const char *small[] = {"router_fifo_depth=1", "fifo_extra_cap=0", "fifo_latency=1", NULL};
    traffic_stops_anywhere("hotspot 0.4, FIFOs of 1", "mesh_4x5.txt", &c, small, 0, 5, 3000, 200, 260);
    c.pattern = KH_TRAFFIC_UNIFORM;
    c.rate = 0.2;
    traffic_stops_anywhere("uniform 0.2, FIFOs of 1", "mesh_4x4.txt", &c, small, 0, 3, 3000, 0, 0);
    const char *two[] = {"router_fifo_depth=2", "fifo_extra_cap=0", NULL};
    traffic_stops_anywhere("uniform 0.2, FIFOs of 2", "mesh_4x4.txt", &c, two, 0, 8, 3000, 0, 0);
    c.pattern = KH_TRAFFIC_TRANSPOSE;
    c.rate = 1;
    traffic_stops_anywhere("transpose saturating", "mesh_4x4.txt", &c, NULL, 0, 11, 3000, 0, 0);
    /* slow sinks refuse offers: a hop's offer refused at its timer */
    c.pattern = KH_TRAFFIC_UNIFORM;
    c.rate = 0.08;
    c.sink_period = 3;
    traffic_stops_anywhere("uniform 0.08, sinks every 3rd cycle", "mesh_4x4.txt", &c, NULL, 0, 4, 3000, 900, 1000);
}

static void odd_routers_stop_anywhere(void)
{
    kh_traffic_cfg c = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.1, .seed = 9, .stop = KH_NEVER};
    traffic_stops_anywhere("a policy with masked turns", "mesh_4x4.txt", &c, NULL, 1, 6, 2000, 0, 0);
    const char *slow[] = {"fifo_latency=40", NULL}; /* hops' offers past the timers' reach: none */
    traffic_stops_anywhere("FIFO latency 40", "mesh_2x2.txt", &c, slow, 0, 9, 2000, 0, 0);
    const char *deep[] = {"router_fifo_depth=16", "fifo_latency=5", NULL};
    c.rate = 0.3;
    traffic_stops_anywhere("FIFO latency 5, depth 16", "mesh_4x4.txt", &c, deep, 0, 13, 3000, 0, 0);
    /* the engine switched between runs */
    c.rate = 0.15;
    c.stop = 1500;
    traffic_stops_anywhere("stopping traffic", "mesh_4x4.txt", &c, NULL, 0, 25, 2500, 0, 0);
}

/* Hops that meet at an output are planned again rather than made the
 * routers' own (router_virt.c, replan): light traffic on several seeds and
 * rates, stopped at odd cycles; at 0.1 the routers are then seldom
 * stepped, so the event engine's steps stay well under the reference's
 * (0.36 of them when every such meeting stepped the router per cycle). */
static void meeting_hops_are_planned_again(void)
{
    static const double rate[] = {0.05, 0.1, 0.18, 0.3};
    for (unsigned s = 0; s < 4; s++) {
        kh_traffic_cfg c = {.pattern = s == 3 ? KH_TRAFFIC_HOTSPOT : KH_TRAFFIC_UNIFORM, .rate = rate[s],
                            .seed = 11 + s, .stop = KH_NEVER};
        char what[64];
        snprintf(what, sizeof what, "meeting hops, rate %.2f seed %u", rate[s], 11 + s);
        traffic_stops_anywhere(what, s & 1 ? "mesh_4x5.txt" : "mesh_4x4.txt", &c, NULL, 0, 3 + 2 * s, 2500,
                               s == 1 ? 700 : 0, s == 1 ? 760 : 0);
    }
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/maps/mesh_4x4.txt", kh_test_data_dir());
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = kh_map_load(path, &units, err, sizeof err);
    CHECK(map != NULL);
    if (!map) return;
    kh_traffic_cfg c = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.1, .seed = 1, .stop = KH_NEVER};
    net n[2] = {{NULL, NULL, NULL}, {NULL, NULL, NULL}};
    uint64_t steps[2] = {0, 0};
    if (!net_new(&n[0], map, &c, NULL, 0, KH_ENGINE_CYCLE) && !net_new(&n[1], map, &c, NULL, 0, KH_ENGINE_FAST)) {
        for (int e = 0; e < 2; e++) steps[e] = kh_sim_run(n[e].sim, 20000);
        CHECK(net_agree(n, "uniform 0.1, 20000 cycles", 1));
        CHECK(steps[1] * 4 < steps[0]);
        if (steps[1] * 4 >= steps[0])
            fprintf(stderr, "  steps: reference %llu, event engine %llu\n", (unsigned long long)steps[0],
                    (unsigned long long)steps[1]);
    }
    for (int e = 0; e < 2; e++)
        if (n[e].t) net_free(&n[e]);
    kh_map_free(map);
}

/* A run's end leaves the routers' hops in place when nothing reads them
 * (kh_comp_unsettled_until_read): runs of 1 to 7 cycles, nothing read
 * between them, carry on as one run would, and what is read at the end
 * (which settles them) is the reference's. A third machine, on the event
 * engine too, is read (settled) after every run: it agrees as well, and
 * steps its routers more, since its hops become the routers' own at every
 * run's end (at full load the routers hold their own flits throughout). */
static void unread_run_ends_carry_on(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/maps/mesh_4x4.txt", kh_test_data_dir());
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = kh_map_load(path, &units, err, sizeof err);
    CHECK(map != NULL);
    if (!map) return;
    static const double rate[] = {0.1, 0.3, 1};
    for (unsigned s = 0; s < 3; s++) {
        kh_traffic_cfg c = {.pattern = KH_TRAFFIC_UNIFORM, .rate = rate[s], .seed = 21 + s, .stop = KH_NEVER};
        net n[2] = {{NULL, NULL, NULL}, {NULL, NULL, NULL}}, read[2] = {{NULL, NULL, NULL}, {NULL, NULL, NULL}};
        uint64_t steps_unread = 0, steps_read = 0;
        if (!net_new(&n[0], map, &c, NULL, 0, KH_ENGINE_CYCLE) && !net_new(&n[1], map, &c, NULL, 0, KH_ENGINE_FAST) &&
            !net_new(&read[0], map, &c, NULL, 0, KH_ENGINE_CYCLE) && !net_new(&read[1], map, &c, NULL, 0, KH_ENGINE_FAST)) {
            for (kh_cycle k = 0, at = 0; at < 3000; k++) {
                kh_cycle by = 1 + k % 7;
                kh_sim_run(n[0].sim, by);
                kh_sim_run(read[0].sim, by);
                steps_unread += kh_sim_run(n[1].sim, by);
                steps_read += kh_sim_run(read[1].sim, by);
                kh_sim_settle(read[1].sim);
                at += by;
            }
            char what[64];
            snprintf(what, sizeof what, "unread run ends, uniform %.1f", rate[s]);
            CHECK(net_agree(n, what, 1));
            CHECK(net_agree(read, what, 2));
            CHECK(!kh_sim_unsettled(n[1].sim)); /* read: settled */
            CHECK(s == 2 || steps_unread < steps_read);
            if (s < 2 && steps_unread >= steps_read)
                fprintf(stderr, "  %s: steps %llu unread, %llu read\n", what, (unsigned long long)steps_unread,
                        (unsigned long long)steps_read);
        }
        for (int e = 0; e < 2; e++) {
            if (n[e].t) net_free(&n[e]);
            if (read[e].t) net_free(&read[e]);
        }
    }
    kh_map_free(map);
}

int main(void)
{
    KH_RUN(the_saxpy_mesh_stops_anywhere);
    KH_RUN(contending_saxpy_bursts_stop_anywhere);
    KH_RUN(light_traffic_stops_anywhere);
    KH_RUN(contention_stops_anywhere);
    KH_RUN(odd_routers_stop_anywhere);
    KH_RUN(meeting_hops_are_planned_again);
    KH_RUN(unread_run_ends_carry_on);
    return kh_test_end("t_engines");
}
