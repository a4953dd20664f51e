/* The matmul arithmetic's speed on one core: the 16-product block
 * (numerics.md §4) on each path this CPU runs, and the whole per-block
 * pipeline of a GEMM (product, scale application, FP22 add, §4-§6) as the
 * cluster runs it. Figures in MX MACs per second (512 MACs per block). */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "kohaku/num.h"

#define NA 64 /* A and B entries cycled through: the working set stays in L1 */
#define NB 64
#define MACS_PER_BLOCK 512.0

/* CPU time of this thread: the machine is shared, and time spent
 * descheduled is not the code's. Each figure is the best of several runs. */
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define RUNS 5
#define RUN_SECONDS 0.08

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static kh_mx_entry A[NA], B[NB];

/* Blocks per second of the product alone through fn; *sink defeats dead-code removal. */
static double rate_product_once(kh_mx_block_fn fn, int64_t *sink)
{
    int32_t c[4][4];
    long blocks = 0;
    double t0 = now(), t;
    do {
        for (int i = 0; i < NA; i++)
            for (int j = 0; j < NB; j++) {
                fn(&A[i], &B[j], c);
                *sink += c[i & 3][j & 3];
            }
        blocks += NA * NB;
    } while ((t = now() - t0) < RUN_SECONDS);
    return (double)blocks / t;
}

static double rate_product(kh_mx_block_fn fn, int64_t *sink)
{
    double best = 0;
    for (int r = 0; r < RUNS; r++) {
        double x = rate_product_once(fn, sink);
        best = x > best ? x : best;
    }
    return best;
}

/* Blocks per second of the whole pipeline on path p: product, 16 scale
 * applications and 16 FP22 adds into resident tiles, as a GEMM sweep does. */
static double rate_pipeline_once(kh_mx_path p, int64_t *sink)
{
    static uint32_t tile[NA][16];
    long blocks = 0;
    double t0 = now(), t;
    do {
        for (int j = 0; j < NB; j++)
            for (int i = 0; i < NA; i++)
                kh_mx_block_accumulate_on(p, &A[i], &B[j], KH_MX_ANCHOR, KH_ACC_MW_DEFAULT, tile[i]);
        blocks += NA * NB;
    } while ((t = now() - t0) < RUN_SECONDS);
    for (int i = 0; i < NA; i++) *sink += tile[i][i & 15];
    return (double)blocks / t;
}

static double rate_pipeline(kh_mx_path p, int64_t *sink)
{
    double best = 0;
    for (int r = 0; r < RUNS; r++) {
        double x = rate_pipeline_once(p, sink);
        best = x > best ? x : best;
    }
    return best;
}

/* The same with the scalar public functions per lane (what a caller that
 * does not use the block helpers gets). */
static double rate_pipeline_scalar_calls_once(int64_t *sink)
{
    static uint32_t tile[NA][16];
    int32_t c[4][4];
    long blocks = 0;
    double t0 = now(), t;
    do {
        for (int j = 0; j < NB; j++)
            for (int i = 0; i < NA; i++) {
                kh_mx_block(&A[i], &B[j], c);
                for (int n = 0; n < 16; n++) {
                    uint32_t ch = kh_acc_from_product(c[n >> 2][n & 3], A[i].scale[n >> 2], B[j].scale[n & 3],
                                                      KH_MX_ANCHOR, KH_ACC_MW_DEFAULT);
                    tile[i][n] = kh_acc_add(tile[i][n], 0, ch, 0, KH_ACC_MW_DEFAULT);
                }
            }
        blocks += NA * NB;
    } while ((t = now() - t0) < RUN_SECONDS);
    for (int i = 0; i < NA; i++) *sink += tile[i][i & 15];
    return (double)blocks / t;
}

static double rate_pipeline_scalar_calls(int64_t *sink)
{
    double best = 0;
    for (int r = 0; r < RUNS; r++) {
        double x = rate_pipeline_scalar_calls_once(sink);
        best = x > best ? x : best;
    }
    return best;
}

int main(void)
{
    printf("(thread CPU time, best of %d runs of %.2f s each)\n", RUNS, RUN_SECONDS);
    uint64_t s = 42;
    for (int i = 0; i < NA; i++)
        for (int L = 0; L < 4; L++) {
            for (int k = 0; k < 32; k++) A[i].q[L][k] = (int8_t)((int)(rng_next(&s) % 127) - 63);
            A[i].scale[L] = (uint8_t)(0x70 + rng_next(&s) % 16);
        }
    for (int j = 0; j < NB; j++)
        for (int L = 0; L < 4; L++) {
            for (int k = 0; k < 32; k++) B[j].q[L][k] = (int8_t)((int)(rng_next(&s) % 127) - 63);
            B[j].scale[L] = (uint8_t)(0x70 + rng_next(&s) % 16);
        }
    int64_t sink = 0;
    kh_mx_path best = kh_mx_path_best();
    double portable = rate_product(kh_mx_block_portable, &sink);
    printf("mx block product (16 dot products of 32), one core:\n");
    for (int p = 0; p < KH_MX_NPATHS; p++) {
        kh_mx_block_fn fn = kh_mx_path_fn((kh_mx_path)p);
        if (!fn) {
            printf("  %-12s not available on this CPU\n", kh_mx_path_name((kh_mx_path)p));
            continue;
        }
        double r = p == KH_MX_PORTABLE ? portable : rate_product(fn, &sink);
        printf("  %-12s %7.2f G MAC/s  %6.1f ns/block  %5.2fx portable%s\n", kh_mx_path_name((kh_mx_path)p),
               r * MACS_PER_BLOCK / 1e9, 1e9 / r, r / portable, p == (int)best ? "  (dispatched)" : "");
    }
    printf("block pipeline (product + 16 scale applications + 16 FP22 adds into a tile), one core:\n");
    double pp = rate_pipeline(KH_MX_PORTABLE, &sink), pbest = pp;
    for (int p = 0; p < KH_MX_NPATHS; p++) {
        if (!kh_mx_path_fn((kh_mx_path)p)) continue;
        double r = p == KH_MX_PORTABLE ? pp : rate_pipeline((kh_mx_path)p, &sink);
        if (p == (int)best) pbest = r;
        printf("  %-12s %7.2f G MAC/s  %6.1f ns/block  %5.2fx portable%s\n", kh_mx_path_name((kh_mx_path)p),
               r * MACS_PER_BLOCK / 1e9, 1e9 / r, r / pp, p == (int)best ? "  (dispatched)" : "");
    }
    double sc = rate_pipeline_scalar_calls(&sink);
    printf("  per-lane public calls %5.2f G MAC/s  %6.1f ns/block\n", sc * MACS_PER_BLOCK / 1e9, 1e9 / sc);
    double fast = rate_product(kh_mx_path_fn(best), &sink);
    printf("dispatched pipeline: product %.1f ns + scale and add %.1f ns per block; target 2 G MAC/s = %.1f ns/block\n",
           1e9 / fast, 1e9 / pbest - 1e9 / fast, MACS_PER_BLOCK / 2.0);
    printf("  (checksum %lld)\n", (long long)(sink & 0xFFFF));
    return 0;
}
