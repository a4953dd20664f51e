/* kohaku bench gemm: (1) the MX arithmetic of the matmul cluster on one
 * core — the unit's own sweep (exact K-block products, scale application,
 * FP22 accumulation) in MX MACs per second, split into the integer product
 * and the accumulate stage to show what limits it; (2) whole-machine
 * simulation speed on the demo GEMM, in simulated cycles per second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "gemm_run.h"
#include "kohaku/cluster.h"
#include "kohaku/echo.h"
#include "kohaku/hex.h"
#include "simout.h"

/* CPU time of this process: the figure for "one core" that other jobs on
 * a shared machine do not dilute. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* xorshift64; the caller owns the state (no global mutable state). */
static uint64_t rnd(uint64_t *rs)
{
    *rs ^= *rs << 13;
    *rs ^= *rs >> 7;
    *rs ^= *rs << 17;
    return *rs;
}

/* Random realistic operands in every L1 entry (elements -63..63), drawn
 * from the fixed seed so every run measures the same operands. */
static void fill_l1(kh_cluster *u)
{
    uint64_t rs = 0x9E3779B97F4A7C15ull;
    for (unsigned s = 0; s < 2; s++) {
        unsigned size;
        kh_mx_entry *side = kh_cluster_l1(u, s, &size);
        for (unsigned e = 0; e < size; e++) {
            kh_mx_entry *x = &side[e];
            for (unsigned l = 0; l < 4; l++) {
                for (unsigned k = 0; k < 32; k++) x->q[l][k] = (int8_t)((int)(rnd(&rs) % 127) - 63);
                uint64_t ex = 12 + rnd(&rs) % 8, mant = rnd(&rs) % 8; /* two draws in a fixed order */
                x->scale[l] = (uint8_t)(ex << 3 | mant);
            }
        }
    }
}

/* Time `fn` until at least `secs` elapsed; returns calls per second. */
static double rate(void (*fn)(void *), void *ctx, double secs, uint64_t *calls)
{
    double t0 = now_s(), t;
    uint64_t n = 0;
    do {
        fn(ctx);
        n++;
        t = now_s();
    } while (t - t0 < secs);
    *calls = n;
    return (double)n / (t - t0);
}

typedef struct arith_ctx {
    kh_cluster *u;
    unsigned gm, gn, nk, acc; /* the sweep: LOAD first, then ADD */
    uint32_t sink;
} arith_ctx;

static void one_sweep(void *p)
{
    arith_ctx *c = p;
    kh_cluster_sweep(c->u, c->gm, c->gn, c->nk, c->acc);
    c->acc = 1;
}

/* The integer products alone over the same commands. */
static void products_only(void *p)
{
    arith_ctx *c = p;
    const unsigned gm = c->gm, gn = c->gn, nk = c->nk;
    const kh_mx_entry *a = kh_cluster_l1(c->u, 0, NULL), *b = kh_cluster_l1(c->u, 1, NULL);
    int32_t acc = 0;
    for (unsigned kb = 0; kb < nk; kb++)
        for (unsigned g = 0; g < gm; g++)
            for (unsigned h = 0; h < gn; h++) {
                int32_t r[4][4];
                kh_mx_block(&a[(g * nk + kb) & 255], &b[(h * nk + kb) & 255], r);
                acc += r[0][0] ^ r[3][3];
            }
    c->sink += (uint32_t)acc;
}

static int bench_arith(double secs)
{
    kh_params p;
    char err[200];
    kh_params_default(&p);
    kh_cluster *u = kh_cluster_alloc(&p, err, sizeof err);
    if (!u) {
        fprintf(stderr, "kohaku bench gemm: %s\n", err);
        return 1;
    }
    fill_l1(u);
    arith_ctx c;
    memset(&c, 0, sizeof c);
    c.u = u;
    c.gm = 16;
    c.gn = 16;
    c.nk = 8;
    const double macs = 16.0 * 16 * 8 * 512; /* per sweep */
    uint64_t n1, n2;
    double r_full = rate(one_sweep, &c, secs, &n1);
    double r_prod = rate(products_only, &c, secs / 2, &n2);
    printf("gemm arithmetic (one core, CPU time, kh_mx_block path %s):\n", kh_mx_path_name(kh_mx_path_best()));
    printf("  cluster sweep, exact products + scales + FP22 accumulate: %.2f G MAC/s (%.1f ns per 512-MAC command)\n",
           r_full * macs / 1e9, 1e9 / (r_full * 16 * 16 * 8));
    printf("  integer block products alone:                             %.2f G MAC/s (%.1f ns per command)\n",
           r_prod * macs / 1e9, 1e9 / (r_prod * 16 * 16 * 8));
    printf("  accumulate stage share of the sweep: %.0f %% (16 scale applications + 16 FP22 adds per command)\n",
           100.0 * (1.0 - r_full / r_prod));
    kh_cluster_free(u);
    return c.sink == 0xFFFFFFFFu; /* keep the products observable */
}

static void usage(FILE *out)
{
    fprintf(out, "usage: kohaku bench gemm [--seconds S] [--arith-only] [--map MAP] [M N K]\n"
                 "                         [--trace FILE.json] [--stats FILE.json] [--check] [--report]\n"
                 "                         [--heatmap F.svg] [--trace-window A:B] [--trace-flits TYPES] [--engine E]\n"
                 "  MX MAC/s of the cluster's arithmetic on one core, then simulated cycles per\n"
                 "  second of the whole default machine (or MAP) running the demo GEMM (M N K,\n"
                 "  default the demo's shape). --trace/--stats/--check/--report/--heatmap apply to the machine run\n"
                 "  (they slow it down: the figures then include their cost).\n"
                 KH_ENGINE_HELP);
}

int kh_bench_gemm(int argc, char **argv)
{
    double secs = 1.0;
    int arith_only = 0;
    kh_simopts so = {.who = "kohaku bench gemm", .takes = KH_SIMOPT_MAP | KH_SIMOPT_STRICT};
    unsigned dims[3] = {0, 0, 0}, nd = 0;
    for (int i = 1; i < argc; i++) {
        int t = kh_simopts_take(&so, argc, argv, &i);
        if (t < 0) return 2;
        if (t) continue;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            char *end;
            secs = strtod(argv[++i], &end);
            if (*end || !(secs > 0 && secs < 1000)) {
                kh_echo_buf b;
                fprintf(stderr, "kohaku bench gemm: --seconds %s is not in (0, 1000)\n", kh_echo(argv[i], &b));
                return 1; /* a refused value (docs/exit-status.md) */
            }
        } else if (!strcmp(argv[i], "--arith-only")) {
            arith_only = 1;
        } else if (nd < 3 && argv[i][0] >= '0' && argv[i][0] <= '9') {
            uint64_t v;
            if (kh_parse_u64(argv[i], &v) || v == 0 || v > 65536) {
                kh_echo_buf b;
                fprintf(stderr, "kohaku bench gemm: dimension %s must be 1..65536\n", kh_echo(argv[i], &b));
                return 1;
            }
            dims[nd++] = (unsigned)v;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (nd != 0 && nd != 3) {
        usage(stderr);
        return 2;
    }
    if (kh_simopts_done(&so)) return 2;
    int rc = bench_arith(secs);
    if (rc || arith_only) return rc;
    return kh_gemm_bench_machine(nd ? dims : NULL, &so);
}
