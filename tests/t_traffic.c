/* Random traffic on every map of ../shared/maps (mesh.md §4-§6): every flit
 * delivered exactly once, in order per (source, destination), no deadlock,
 * no FIFO over its depth; backpressure from small FIFOs and slow sinks;
 * runs are deterministic and two simulations in one process do not mix. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/machine.h"
#include "kohaku/mesh.h"
#include "kohaku/traffic.h"
#include "noc/traffic_gap.h"
#include "support/test.h"

typedef struct run_cfg {
    uint64_t depth;       /* router_fifo_depth */
    const char *profile;  /* NULL or a recording profile */
    kh_traffic_cfg t;
} run_cfg;

typedef struct run_out {
    kh_traffic_stats s;
    kh_cycle end;
    uint64_t hops;
} run_out;

/* Build, run to the stop cycle, drain, and check everything; 0 if good. */
static int run_map(const char *path, const run_cfg *rc, run_out *out)
{
    char err[512];
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = kh_map_load(path, &units, err, sizeof err);
    if (!map) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return -1;
    }
    kh_params p;
    kh_params_default(&p);
    if (rc->profile) kh_params_profile(&p, rc->profile, err, sizeof err);
    p.router_fifo_depth = rc->depth;
    kh_sim *sim = kh_sim_new(&p);
    kh_mesh *m = kh_mesh_new(sim, map, err, sizeof err);
    kh_traffic *t = m ? kh_traffic_new(m, map, &rc->t, err, sizeof err) : NULL;
    int bad = 0;
    if (!t) {
        kh_test_fail(__FILE__, __LINE__, "%s: %s", path, err);
        bad = 1;
        goto done;
    }
    /* drained within a generous bound: a deadlock would never drain */
    if (!kh_sim_run_until_idle(sim, rc->t.stop + 200000)) {
        kh_test_fail(__FILE__, __LINE__, "%s: not idle by cycle %llu", path,
                     (unsigned long long)kh_sim_now(sim));
        bad = 1;
    }
    char stuck[4096];
    if (kh_sim_describe_stuck(sim, stuck, sizeof stuck)) {
        kh_test_fail(__FILE__, __LINE__, "%s: stuck:\n%s", path, stuck);
        bad = 1;
    }
    if (kh_traffic_check(t, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%s: %s", path, err);
        bad = 1;
    }
    kh_traffic_stats_get(t, &out->s);
    if (out->s.delivered != out->s.sent || out->s.sent == 0) {
        kh_test_fail(__FILE__, __LINE__, "%s: sent %llu delivered %llu", path,
                     (unsigned long long)out->s.sent, (unsigned long long)out->s.delivered);
        bad = 1;
    }
    /* backpressure holds: no input FIFO ever held more than its capacity */
    uint64_t cap = rc->depth + p.fifo_extra_cap;
    for (unsigned y = 1; y <= kh_map_ny(map); y++)
        for (unsigned x = 1; x <= kh_map_nx(map); x++)
            for (unsigned d = 0; d < KH_NDIRS; d++) {
                const kh_fifo *q = kh_router_fifo(kh_mesh_router(m, x, y), d);
                if (q->high_water > cap || q->cap != cap) {
                    kh_test_fail(__FILE__, __LINE__, "%s: router (%u,%u) input %s held %u of %llu",
                                 path, x, y, kh_dir_name(d), q->high_water, (unsigned long long)cap);
                    bad = 1;
                }
            }
    out->end = kh_sim_now(sim);
    out->hops = kh_mesh_hops(m);
done:
    kh_traffic_free(t);
    kh_mesh_free(m);
    kh_sim_destroy(sim);
    kh_map_free(map);
    return bad ? -1 : 0;
}

/* Every map file in the shared maps folder, sorted by name. */
static unsigned list_maps(char names[][64], unsigned max)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/maps", kh_test_data_dir());
    DIR *d = opendir(dir);
    unsigned n = 0;
    if (!d) {
        kh_test_fail(__FILE__, __LINE__, "cannot open %s", dir);
        return 0;
    }
    for (struct dirent *e; (e = readdir(d)) && n < max;) {
        size_t len = strlen(e->d_name);
        if (len > 4 && len < 64 && !strcmp(e->d_name + len - 4, ".txt")) strcpy(names[n++], e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
    return n;
}

static void on_every_map(const run_cfg *rc)
{
    char names[64][64];
    unsigned n = list_maps(names, 64);
    CHECK(n >= 20);
    for (unsigned i = 0; i < n; i++) {
        char path[4800];
        run_out out;
        snprintf(path, sizeof path, "%s/maps/%s", kh_test_data_dir(), names[i]);
        run_map(path, rc, &out);
    }
}

static void uniform_traffic_every_map_exactly_once_in_order(void)
{
    run_cfg rc = {.depth = 512, .t = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.3, .seed = 7, .stop = 3000}};
    on_every_map(&rc);
}

static void saturating_traffic_small_fifos_every_map(void)
{
    /* FIFOs of 2 flits and saturating sources: backpressure everywhere */
    run_cfg rc = {.depth = 2, .t = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 1, .seed = 3, .stop = 1500}};
    on_every_map(&rc);
}

static void slow_sinks_backpressure_every_map(void)
{
    /* sinks take a flit one cycle in three (busy from own state, mesh.md §4) */
    run_cfg rc = {.depth = 4,
                  .t = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.5, .seed = 11, .stop = 1500, .sink_period = 3}};
    on_every_map(&rc);
}

static void hotspot_and_transpose_with_recording_profile(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/maps/mesh_4x4.txt", kh_test_data_dir());
    run_out out;
    run_cfg rc = {.depth = 8, .profile = "rec",
                  .t = {.pattern = KH_TRAFFIC_HOTSPOT, .rate = 0.4, .seed = 5, .stop = 3000}};
    run_map(path, &rc, &out);
    rc.t.pattern = KH_TRAFFIC_TRANSPOSE;
    rc.t.every_position = 1;
    run_map(path, &rc, &out);
}

static void same_seed_same_result(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/maps/mesh_2x2_6+2.txt", kh_test_data_dir());
    run_cfg rc = {.depth = 4, .t = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.6, .seed = 9, .stop = 2000}};
    run_out a, b;
    if (run_map(path, &rc, &a) || run_map(path, &rc, &b)) return;
    CHECK_EQ(a.end, b.end);
    CHECK_EQ(a.hops, b.hops);
    CHECK_EQ(a.s.latency_sum, b.s.latency_sum);
    CHECK_EQ(a.s.delivered, b.s.delivered);
}

/* Two simulations stepped alternately in one process give what each gives
 * alone (no shared state). */
static void two_simulations_do_not_interact(void)
{
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/maps/mesh_2x4.txt", kh_test_data_dir());
    run_cfg rc = {.depth = 4, .t = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.5, .seed = 21, .stop = 1000}};
    run_out alone;
    if (run_map(path, &rc, &alone)) return;
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = kh_map_load(path, &units, err, sizeof err);
    if (!map) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return;
    }
    kh_params p;
    kh_params_default(&p);
    p.router_fifo_depth = rc.depth;
    kh_sim *s[2];
    kh_mesh *m[2];
    kh_traffic *t[2];
    for (int k = 0; k < 2; k++) {
        s[k] = kh_sim_new(&p);
        m[k] = kh_mesh_new(s[k], map, err, sizeof err);
        t[k] = kh_traffic_new(m[k], map, &rc.t, err, sizeof err);
    }
    for (int step = 0; step < 400; step++)
        for (int k = 0; k < 2; k++) kh_sim_run(s[k], 7);
    for (int k = 0; k < 2; k++) {
        CHECK(kh_sim_run_until_idle(s[k], 1000000));
        kh_traffic_stats st;
        kh_traffic_stats_get(t[k], &st);
        CHECK_EQ(st.latency_sum, alone.s.latency_sum);
        CHECK_EQ(kh_mesh_hops(m[k]), alone.hops);
        kh_traffic_free(t[k]);
        kh_mesh_free(m[k]);
        kh_sim_destroy(s[k]);
    }
    kh_map_free(map);
}

/* splitmix64 as published (Steele, Lea, Flood 2014). */
static uint64_t ref_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Arrivals offered by the one endpoint of a 1x1 map (no destination, so
 * nothing is sent and no destination draw is made): cfg's rate, seed and
 * stop; UINT64_MAX if the generator could not be built. */
static uint64_t offered_alone(const kh_traffic_cfg *cfg)
{
    char err[512];
    uint64_t offered = UINT64_MAX;
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = kh_map_parse("xxx nul xxx\nmag nul nul\nxxx nul xxx\n", &units, err, sizeof err);
    kh_sim *sim = kh_sim_new(NULL);
    kh_mesh *m = map ? kh_mesh_new(sim, map, err, sizeof err) : NULL;
    kh_traffic *t = m ? kh_traffic_new(m, map, cfg, err, sizeof err) : NULL;
    if (!t) kh_test_fail(__FILE__, __LINE__, "%s", err);
    if (t) {
        CHECK(kh_sim_run_until_idle(sim, cfg->stop + 10));
        kh_traffic_stats st;
        kh_traffic_stats_get(t, &st);
        CHECK_EQ(st.endpoints, 1);
        offered = st.offered;
    }
    kh_traffic_free(t);
    kh_mesh_free(m);
    kh_sim_destroy(sim);
    kh_map_free(map);
    return offered;
}

/* Bernoulli sources (traffic.h): endpoint i draws splitmix64 seeded with
 * seed ^ (0xd1b54a32d192ed03 * (i + 1)) once per cycle from cycle 0 and has
 * an arrival when the draw is below rate * 2^64. With a single endpoint no
 * destination is drawn, so the offered count is that of the draws alone,
 * counted here draw by draw (also next to the top of the range). */
static void bernoulli_arrivals_follow_the_draws(void)
{
    /* 1e-6 sits just above the rate where the gap is drawn at once
     * (2^-20): still one draw per cycle */
    static const double rates[] = {0.1, 0.5, 0.99999999995, 1e-6};
    for (unsigned k = 0; k < sizeof rates / sizeof rates[0]; k++) {
        kh_traffic_cfg cfg = {.pattern = KH_TRAFFIC_UNIFORM, .rate = rates[k], .seed = 11 + k, .stop = 50000};
        uint64_t x = cfg.seed ^ UINT64_C(0xd1b54a32d192ed03);
        uint64_t thr = (uint64_t)(cfg.rate * 18446744073709551616.0), want = 0;
        for (kh_cycle c = 0; c < cfg.stop; c++) want += ref_splitmix64(&x) < thr;
        CHECK_EQ(offered_alone(&cfg), want);
    }
}

/* The gap searched 8 or 32 draws at a time (traffic_x86.c) is the first of
 * the published draws below the threshold, and leaves the state after it:
 * states from a counter and from the draws themselves, thresholds from
 * 2^52 (gaps of thousands of draws, far past one pass) to 2^64 - 1, against the
 * draws made one by one. Skipped where the CPU has no AVX-512 DQ. */
static void vector_gap_is_the_first_draw_below(void)
{
#ifdef KH_TRAFFIC_HAVE_X86
    if (!kh_traffic_gap_avx512_ok()) return;
    static const uint64_t thrs[] = {UINT64_MAX, UINT64_C(1) << 63, UINT64_C(0x1999999999999999), UINT64_C(1) << 60,
                                    UINT64_C(1) << 56, UINT64_C(1) << 52, UINT64_C(12345678901234567)};
    uint64_t seed = 42;
    for (unsigned n = 0; n < 2000; n++) {
        uint64_t s = n < 1000 ? n : ref_splitmix64(&seed), thr = thrs[n % (sizeof thrs / sizeof thrs[0])];
        uint64_t x = s, want = 1;
        while (ref_splitmix64(&x) >= thr) want++;
        uint64_t got_s = s, got = kh_traffic_gap32_avx512(&got_s, thr);
        CHECK_EQ(got, want);
        CHECK_EQ(got_s, x);
        got_s = s, got = kh_traffic_gap8_avx512(&got_s, thr);
        CHECK_EQ(got, want);
        CHECK_EQ(got_s, x);
    }
#endif
}

/* Below 2^-20 the gap is drawn once from the geometric distribution the
 * per-cycle draws follow: a tiny rate is not "every cycle" (1e-300 once
 * made rate * 2^64 round to the every-cycle threshold 0), and 2^40 cycles
 * at rate 2^-30 take as long as their ~1024 arrivals, not 2^40 draws. */
static void tiny_rates_draw_the_gap_at_once(void)
{
    static const struct {
        double rate;
        kh_cycle stop;
        uint64_t lo, hi; /* the offered count: mean stop * rate, within 6 standard deviations */
    } cases[] = {{1e-300, UINT64_C(1) << 24, 0, 0}, {0x1p-30, UINT64_C(1) << 40, 1024 - 192, 1024 + 192}};
    for (unsigned k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        kh_traffic_cfg cfg = {.pattern = KH_TRAFFIC_UNIFORM, .rate = cases[k].rate, .seed = 5, .stop = cases[k].stop};
        uint64_t offered = offered_alone(&cfg);
        CHECK(offered >= cases[k].lo && offered <= cases[k].hi);
    }
}

/* A saturating source makes a flit whenever one can go (traffic.h), so at
 * every cycle boundary the offered count is the flits sent plus the ones
 * its sources hold: a run cut after any cycle shows no flit made for a
 * cycle that has not run (small FIFOs fill, so sources wait often). */
static void saturating_counts_agree_after_every_cycle(void)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/maps/mesh_4x4.txt", kh_test_data_dir());
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = kh_map_load(path, &units, err, sizeof err);
    kh_params p;
    kh_params_default(&p);
    p.router_fifo_depth = 4;
    kh_sim *sim = kh_sim_new(&p);
    kh_mesh *m = map ? kh_mesh_new(sim, map, err, sizeof err) : NULL;
    kh_traffic_cfg cfg = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 1, .seed = 3, .stop = KH_NEVER};
    kh_traffic *t = m ? kh_traffic_new(m, map, &cfg, err, sizeof err) : NULL;
    if (!t) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
    } else {
        static char stuck[1 << 16];
        unsigned bad = 0;
        for (unsigned c = 0; c < 1500 && bad < 3; c++) {
            kh_sim_run(sim, 1);
            kh_traffic_stats st;
            kh_traffic_stats_get(t, &st);
            kh_sim_describe_stuck(sim, stuck, sizeof stuck);
            uint64_t held = 0;
            for (const char *q = stuck; (q = strstr(q, "): holds a flit")); q++) held++; /* tgen_stuck's line */
            if (st.offered != st.sent + held) {
                kh_test_fail(__FILE__, __LINE__, "after cycle %u: offered %llu, sent %llu, held %llu", c,
                             (unsigned long long)st.offered, (unsigned long long)st.sent,
                             (unsigned long long)held);
                bad++;
            }
        }
    }
    kh_traffic_free(t);
    kh_mesh_free(m);
    kh_sim_destroy(sim);
    kh_map_free(map);
}

int main(void)
{
    KH_RUN(uniform_traffic_every_map_exactly_once_in_order);
    KH_RUN(saturating_traffic_small_fifos_every_map);
    KH_RUN(slow_sinks_backpressure_every_map);
    KH_RUN(hotspot_and_transpose_with_recording_profile);
    KH_RUN(same_seed_same_result);
    KH_RUN(two_simulations_do_not_interact);
    KH_RUN(bernoulli_arrivals_follow_the_draws);
    KH_RUN(vector_gap_is_the_first_draw_below);
    KH_RUN(tiny_rates_draw_the_gap_at_once);
    KH_RUN(saturating_counts_agree_after_every_cycle);
    return kh_test_end("t_traffic");
}
