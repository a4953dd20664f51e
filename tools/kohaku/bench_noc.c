/* kohaku bench noc: synthetic traffic on a mesh (cli.md "kohaku bench").
 * Test endpoints (traffic.h) sit at every occupied endpoint position of the
 * map; without --rate the bench runs offered load 0.1 flits/cycle/endpoint
 * and a saturating load, and prints simulator speed and network figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "kohaku/mesh.h"
#include "kohaku/trace.h"
#include "kohaku/traffic.h"

/* The production picture (maps/mesh_4x4.txt), used when --map is not given. */
static const char default_map[] = "xxx vec vec vec vec xxx\n"
                                  "mag mat nul mat nul vec\n"
                                  "mag mat nul mat nul vec\n"
                                  "mag mat nul mat nul vec\n"
                                  "mag mat nul mat nul vec\n"
                                  "xxx vec vec vec vec xxx\n";

typedef struct opts {
    const char *map, *trace, *stats, *profile;
    const char *param[16];
    unsigned nparam;
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
            "                        [--trace FILE.json] [--stats FILE.json]\n"
            "Test endpoints at every occupied endpoint position of MAP (default: the 4x4\n"
            "production map) offer R flits/cycle each (default: 0.1, then saturating).\n"
            "Prints simulated cycles/s and flit-hops/s (one flit crossing one router) per\n"
            "CPU second of this process, delivered throughput and mean latency.\n"
            "Latency: first offer on the injection link to acceptance, in cycles.\n"
            "--trace/--stats record the --rate run (without --rate, the 0.1 run); a trace has\n"
            "one event per link transfer, so keep --cycles small with --trace.\n");
}

/* CPU time of this process: the figure for "one core" that holds on a
 * machine shared with other jobs (wall time is printed too). */
static double seconds(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int run_one(const opts *o, const kh_map *map, const char *map_name, double rate, int record)
{
    char err[512];
    kh_params p;
    kh_params_default(&p);
    if (o->profile && kh_params_profile(&p, o->profile, err, sizeof err)) {
        fprintf(stderr, "kohaku bench noc: %s\n", err);
        return 2;
    }
    for (unsigned i = 0; i < o->nparam; i++)
        if (kh_params_set_assign(&p, o->param[i], err, sizeof err)) {
            fprintf(stderr, "kohaku bench noc: %s\n", err);
            return 2;
        }
    kh_sim *sim = kh_sim_new(&p);
    kh_mesh *mesh = sim ? kh_mesh_new(sim, map, err, sizeof err) : NULL;
    kh_traffic_cfg cfg = {.pattern = o->pattern, .rate = rate, .seed = o->seed, .stop = KH_NEVER};
    kh_traffic *t = mesh ? kh_traffic_new(mesh, map, &cfg, err, sizeof err) : NULL;
    kh_trace *tr = NULL;
    int rc = 0;
    if (!t) {
        fprintf(stderr, "kohaku bench noc: %s\n", sim ? err : "out of memory");
        rc = 1;
        goto done;
    }
    if (record && o->trace) {
        if (!(tr = kh_trace_json_open(sim, o->trace, err, sizeof err))) {
            fprintf(stderr, "kohaku bench noc: %s\n", err);
            rc = 1;
            goto done;
        }
        kh_sim_set_trace(sim, tr);
    }
    double w0 = seconds(CLOCK_MONOTONIC), t0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
    uint64_t steps = kh_sim_run(sim, o->cycles);
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
    if (tr && kh_trace_json_close(tr, err, sizeof err)) {
        fprintf(stderr, "kohaku bench noc: %s\n", err);
        rc = 1;
    }
    if (record && o->stats && kh_stats_write_json(sim, o->stats, err, sizeof err)) {
        fprintf(stderr, "kohaku bench noc: %s\n", err);
        rc = 1;
    }
done:
    kh_traffic_free(t);
    kh_mesh_free(mesh);
    kh_sim_destroy(sim);
    return rc;
}

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    if (!*s || *s == '-') return -1;
    unsigned long long x = strtoull(s, &end, 0);
    if (*end) return -1;
    *v = x;
    return 0;
}

int kh_bench_noc(int argc, char **argv)
{
    opts o = {.pattern = KH_TRAFFIC_UNIFORM, .pattern_name = "uniform", .cycles = 200000, .seed = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "kohaku bench noc: unknown option or missing value: %s\n", a);
            usage(stderr);
            return 2;
        }
        i++;
        if (!strcmp(a, "--map")) {
            o.map = v;
        } else if (!strcmp(a, "--pattern")) {
            if (kh_traffic_pattern_parse(v, &o.pattern)) {
                fprintf(stderr, "kohaku bench noc: --pattern %s: want uniform, hotspot or transpose\n", v);
                return 2;
            }
            o.pattern_name = v;
        } else if (!strcmp(a, "--rate")) {
            char *end;
            o.rate = strtod(v, &end);
            if (*end || !(o.rate > 0) || o.rate > 1) {
                fprintf(stderr, "kohaku bench noc: --rate %s: want flits/cycle/endpoint in (0, 1]\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--cycles")) {
            if (parse_u64(v, &o.cycles) || !o.cycles) {
                fprintf(stderr, "kohaku bench noc: --cycles %s: want a positive integer\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--seed")) {
            if (parse_u64(v, &o.seed)) {
                fprintf(stderr, "kohaku bench noc: --seed %s: want an integer\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--profile")) {
            o.profile = v;
        } else if (!strcmp(a, "--param")) {
            if (o.nparam == sizeof o.param / sizeof o.param[0]) {
                fprintf(stderr, "kohaku bench noc: too many --param\n");
                return 2;
            }
            o.param[o.nparam++] = v;
        } else if (!strcmp(a, "--trace")) {
            o.trace = v;
        } else if (!strcmp(a, "--stats")) {
            o.stats = v;
        } else {
            fprintf(stderr, "kohaku bench noc: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    char err[512];
    kh_map *map = o.map ? kh_map_load(o.map, err, sizeof err)
                        : kh_map_parse(default_map, err, sizeof err);
    if (!map) {
        fprintf(stderr, "kohaku bench noc: %s\n", err);
        return 1;
    }
    const char *name = o.map ? strrchr(o.map, '/') ? strrchr(o.map, '/') + 1 : o.map : "mesh_4x4";
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
