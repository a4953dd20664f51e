/* kohaku bench noc: synthetic traffic on a mesh (cli.md "kohaku bench").
 * Test endpoints (traffic.h) sit at every occupied endpoint position of the
 * map; without --rate the bench runs offered load 0.1 flits/cycle/endpoint
 * and a saturating load, and prints simulator speed and network figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "kohaku/bufcat.h"
#include "kohaku/check.h"
#include "kohaku/echo.h"
#include "kohaku/hex.h"
#include "kohaku/machine.h"
#include "kohaku/mesh.h"
#include "kohaku/trace.h"
#include "kohaku/traffic.h"
#include "simopts.h"
#include "progress.h"
#include "simout.h"

/* The production picture (maps/mesh_4x4.txt), used when --map is not given. */
static const char default_map[] = "xxx vec vec vec vec xxx\n"
                                  "mag mat nul mat nul vec\n"
                                  "mag mat nul mat nul vec\n"
                                  "mag mat nul mat nul vec\n"
                                  "mag mat nul mat nul vec\n"
                                  "xxx vec vec vec vec xxx\n";

typedef struct opts {
    kh_simopts sim;   /* --map --trace --stats --check --profile --param */
    kh_traffic_pattern pattern;
    const char *pattern_name;
    double rate;      /* 0: the two default loads */
    uint64_t cycles, seed;
} opts;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kohaku bench noc [--map MAP] [--pattern uniform|hotspot|transpose]\n"
            "                        [--rate R] [--cycles N] [--seed S] [--profile P]\n"
            "                        [--param NAME=VALUE]...\n"
            "                        [--trace FILE.json] [--stats FILE.json] [--check] [--report]\n"
            "                        [--heatmap F.svg] [--trace-window A:B] [--trace-flits TYPES] [--engine E]\n"
            "Test endpoints at every occupied endpoint position of MAP (default: the 4x4\n"
            "production map) offer R flits/cycle each (default: 0.1, then saturating).\n"
            "Prints simulated cycles/s and flit-hops/s (one flit crossing one router) per\n"
            "CPU second of this process, delivered throughput and mean latency.\n"
            "Latency: first offer on the injection link to acceptance, in cycles.\n"
            "--trace/--stats/--report/--heatmap record the --rate run (without --rate, the 0.1 run); a trace has\n"
            "one event per link transfer, so keep --cycles small with --trace.\n"
            "--check runs the header rules V1-V8 of flits.md §9 on every flit an endpoint injects\n"
            "(the payload is the bench's bookkeeping: docs/check.md); a violation exits 1.\n"
            KH_ENGINE_HELP);
}

/* CPU time of this process: the figure for "one core" that holds on a
 * machine shared with other jobs (wall time is printed too). */
static double seconds(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --check: every traffic endpoint is a raw injector at its coordinate (the
 * link out of each attached position tells which component sits there). */
static kh_check *check_mesh(kh_sim *sim, kh_mesh *mesh, const kh_map *map, kh_checkout *out)
{
    kh_check_cfg cfg = {.report = kh_checkout_report, .ctx = out};
    kh_check *c = kh_check_new(sim, &cfg);
    uint8_t px[KH_MAP_MAX_PORTS], py[KH_MAP_MAX_PORTS];
    unsigned np = kh_map_nports(map);
    for (unsigned i = 0; i < np; i++) {
        px[i] = kh_map_port(map, i)->x;
        py[i] = kh_map_port(map, i)->y;
    }
    if (!c || kh_check_mesh(c, 0, np, px, py)) goto oom;
    for (unsigned i = 0; i < kh_map_nendpoints(map); i++) {
        const kh_map_ep *e = kh_map_endpoint(map, i);
        const kh_link *l = kh_mesh_link_from(mesh, e->x, e->y);
        if (e->kind == KH_EP_UNIT) kh_check_unit_at(c, 0, e->x, e->y);
        if (l && kh_check_endpoint(c, 0, l->src, e->x, e->y, KH_CHECK_EP_RAW, NULL, NULL)) goto oom;
    }
    if (kh_check_attach(c)) goto oom;
    return c;
oom:
    kh_check_free(c);
    return NULL;
}

static int run_one(const opts *o, const kh_map *map, const char *map_name, double rate, int record)
{
    char err[512];
    kh_params p;
    if (kh_simopts_params(&o->sim, &p, err, sizeof err)) return 1;
    kh_sim *sim = kh_sim_new(&p);
    kh_mesh *mesh = sim ? kh_mesh_new(sim, map, err, sizeof err) : NULL;
    kh_traffic_cfg cfg = {.pattern = o->pattern, .rate = rate, .seed = o->seed, .stop = KH_NEVER};
    kh_traffic *t = mesh ? kh_traffic_new(mesh, map, &cfg, err, sizeof err) : NULL;
    kh_simout *out = NULL;
    kh_check *ck = NULL;
    kh_checkout cko = {.who = "kohaku bench noc"};
    int rc = 0;
    if (!t) {
        fprintf(stderr, "kohaku bench noc: %s\n", sim ? err : "out of memory");
        rc = 1;
        goto done;
    }
    if (o->sim.check && !(ck = check_mesh(sim, mesh, map, &cko))) {
        fprintf(stderr, "kohaku bench noc: out of memory for the flit checker\n");
        rc = 1;
        goto done;
    }
    /* the checker, when there is one, goes on seeing every transfer */
    if (record && kh_simopts_output(&o->sim) && !(out = kh_simout_start(sim, &o->sim, err, sizeof err))) {
        fprintf(stderr, "kohaku bench noc: %s\n", err);
        rc = 1;
        goto done;
    }
    double w0 = seconds(CLOCK_MONOTONIC), t0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    kh_progress pg;
    kh_progress_start(&pg, sim, "kohaku bench noc", "traffic");
    uint64_t steps = kh_sim_run(sim, o->cycles);
    kh_progress_end(&pg);
    double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - t0, wall = seconds(CLOCK_MONOTONIC) - w0;
    kh_traffic_stats s;
    kh_traffic_stats_get(t, &s);
    uint64_t hops = kh_mesh_hops(mesh);
    if (cpu <= 0) cpu = 1e-9;
    char load[32];
    if (rate >= 1)
        snprintf(load, sizeof load, "saturating");
    else
        snprintf(load, sizeof load, "%.3g", rate);
    printf("noc %s %s offered %s flits/cycle/endpoint, %u endpoints, %llu cycles:\n", map_name,
           o->pattern_name, load, s.endpoints, (unsigned long long)o->cycles);
    printf("  delivered %.4f flits/cycle/endpoint (%.3f flits/cycle), mean latency %.2f cycles "
           "(max %llu)\n",
           (double)s.delivered / (double)o->cycles / (s.endpoints ? s.endpoints : 1),
           (double)s.delivered / (double)o->cycles,
           s.delivered ? (double)s.latency_sum / (double)s.delivered : 0.0,
           (unsigned long long)s.latency_max);
    printf("  speed %.3f M simulated cycles/s, %.2f M flit-hops/s (%llu hops, %llu steps in "
           "%.3f s CPU, %.3f s wall)\n",
           (double)o->cycles / cpu / 1e6, (double)hops / cpu / 1e6, (unsigned long long)hops,
           (unsigned long long)steps, cpu, wall);
    if (s.errors) {
        char msg[512];
        kh_traffic_check(t, msg, sizeof msg);
        fprintf(stderr, "kohaku bench noc: %s\n", msg);
        rc = 1;
    }
    if (out) {
        char *run = malloc(KH_SIMRUN_MAX), *layout = malloc(KH_SIMRUN_MAX), name[300];
        size_t used = 0, lu = 0;
        if (run && layout) {
            kh_bufcat(layout, KH_SIMRUN_MAX, &lu, "[");
            kh_mesh_layout_json(mesh, map, 0, layout, KH_SIMRUN_MAX, &lu);
            kh_bufcat(layout, KH_SIMRUN_MAX, &lu, "]");
            snprintf(name, sizeof name, "bench noc %s %s %s", map_name, o->pattern_name, load);
            kh_simrun_head(run, KH_SIMRUN_MAX, &used, name, sim, layout);
        }
        int bad = kh_simout_finish(out, &o->sim, run && layout ? run : NULL, err, sizeof err);
        out = NULL;
        free(run);
        free(layout);
        if (bad) {
            fprintf(stderr, "kohaku bench noc: %s\n", err);
            rc = 1;
        }
    }
    if (ck) {
        kh_checkout_add(&cko, ck);
        if (kh_checkout_end(&cko)) rc = 1;
    }
done:
    if (out) kh_simout_close(out, NULL, err, sizeof err);
    kh_check_free(ck);
    kh_traffic_free(t);
    kh_mesh_free(mesh);
    kh_sim_destroy(sim);
    return rc;
}

/* --cycles/--seed: 0 ok, else the message says why (overflow is not "not a number"). */
static int parse_count(const char *opt, const char *s, uint64_t *v, uint64_t max)
{
    kh_echo_buf b;
    int rc = kh_parse_u64(s, v);
    if (rc == KH_PARSE_NAN)
        fprintf(stderr, "kohaku bench noc: %s %s is not a number (decimal or 0x hex)\n", opt, kh_echo(s, &b));
    else if (rc || *v > max)
        fprintf(stderr, "kohaku bench noc: %s %s is above %llu\n", opt, kh_echo(s, &b), (unsigned long long)max);
    return rc || *v > max;
}

int kh_bench_noc(int argc, char **argv)
{
    opts o = {.sim = {.who = "kohaku bench noc", .takes = KH_SIMOPT_MAP | KH_SIMOPT_PARAMS_PROFILE_FIRST},
              .pattern = KH_TRAFFIC_UNIFORM, .pattern_name = "uniform", .cycles = 200000, .seed = 1};
    unsigned seen[4] = {0}; /* --pattern, --rate, --cycles, --seed */
    for (int i = 1; i < argc; i++) {
        int t = kh_simopts_take(&o.sim, argc, argv, &i);
        if (t < 0) return 2;
        if (t) continue;
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        int known = !strcmp(a, "--pattern") || !strcmp(a, "--rate") || !strcmp(a, "--cycles") || !strcmp(a, "--seed");
        kh_echo_buf b;
        if (!known) {
            fprintf(stderr, "kohaku bench noc: unknown option '%s'\n", kh_echo(a, &b));
            usage(stderr);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "kohaku bench noc: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        if (seen[a[2] == 'p' ? 0 : a[2] == 'r' ? 1 : a[2] == 'c' ? 2 : 3]++) {
            fprintf(stderr, "kohaku bench noc: %s is given twice\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--pattern")) {
            if (kh_traffic_pattern_parse(v, &o.pattern)) {
                fprintf(stderr, "kohaku bench noc: --pattern %s: want uniform, hotspot or transpose\n", kh_echo(v, &b));
                return 1;
            }
            o.pattern_name = v;
        } else if (!strcmp(a, "--rate")) {
            char *end;
            o.rate = strtod(v, &end);
            if (*end || !(o.rate > 0) || o.rate > 1) {
                fprintf(stderr, "kohaku bench noc: --rate %s: want flits/cycle/endpoint in (0, 1]\n", kh_echo(v, &b));
                return 1;
            }
        } else if (!strcmp(a, "--cycles")) {
            /* the clock ends at 2^62 (docs/session.md): a run past it would wrap */
            if (parse_count("--cycles", v, &o.cycles, UINT64_C(1) << 62)) return 1;
            if (!o.cycles) {
                fprintf(stderr, "kohaku bench noc: --cycles 0: want at least 1 cycle\n");
                return 1;
            }
        } else if (!strcmp(a, "--seed")) {
            if (parse_count("--seed", v, &o.seed, UINT64_MAX)) return 1;
        }
    }
    if (kh_simopts_done(&o.sim)) return 2;
    char err[512];
    const char *path = o.sim.map;
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = path ? kh_map_load(path, &units, err, sizeof err) : kh_map_parse(default_map, &units, err, sizeof err);
    if (!map) {
        fprintf(stderr, "kohaku bench noc: %s\n", err);
        return 1;
    }
    const char *name = path ? strrchr(path, '/') ? strrchr(path, '/') + 1 : path : "mesh_4x4";
    int rc;
    if (o.rate > 0) {
        rc = run_one(&o, map, name, o.rate, 1);
    } else {
        rc = run_one(&o, map, name, 0.1, 1);
        if (!rc) rc = run_one(&o, map, name, 1.0, 0);
    }
    kh_map_free(map);
    return rc;
}
