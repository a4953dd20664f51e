/* Checkpoint cost (docs/checkpoint.md, issue 30): the default machine in
 * the middle of a GEMM (1024^3 unless given: build/bench/ckpt M N K
 * [CYCLES]), saved once CYCLES cycles of the GEMM's execution have run,
 * then restored: wall time of each, the file's size against the memory
 * the machine has touched (DRAM and staging pages). With --finish both the
 * original and the restored machine run to idle and their final saves are
 * compared (exact: yes/no). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kohaku/gemm.h"
#include "kohaku/node.h"

/* wall time and this process's CPU time (the machine may be shared) */
static double clk(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
static double now_s(void) { return clk(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clk(CLOCK_PROCESS_CPUTIME_ID); }

typedef struct bench {
    const char *path;
    kh_cycle start, after;
    int finish, done;
    double save_s, restore_s, save_cpu, restore_cpu;
    size_t bytes;
    uint64_t touched;
    kh_cycle at;
    int exact;
} bench;

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint16_t rnd_f16(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint16_t)((rs >> 4 & 1) << 15 | (10 + (rs >> 5) % 7) << 10 | (rs >> 8) % 1024);
}

static int pause_fn(void *ctx, kh_machine *mc)
{
    bench *b = ctx;
    kh_sim *sim = kh_machine_sim(mc);
    if (!b->start) b->start = kh_sim_now(sim);
    if (b->done || kh_sim_now(sim) - b->start < b->after) return 0;
    char err[2000];
    b->at = kh_sim_now(sim);
    double t0 = now_s(), c0 = cpu_s();
    if (kh_machine_save(mc, b->path, NULL, err, sizeof err)) {
        fprintf(stderr, "ckpt bench: %s\n", err);
        return 1;
    }
    double t1 = now_s(), c1 = cpu_s();
    kh_machine *r = kh_machine_restore(b->path, NULL, NULL, err, sizeof err);
    double t2 = now_s(), c2 = cpu_s();
    b->save_cpu = c1 - c0;
    b->restore_cpu = c2 - c1;
    if (!r) {
        fprintf(stderr, "ckpt bench: %s\n", err);
        return 1;
    }
    b->save_s = t1 - t0;
    b->restore_s = t2 - t1;
    FILE *f = fopen(b->path, "rb");
    if (f) {
        fseek(f, 0, SEEK_END);
        b->bytes = (size_t)ftell(f);
        fclose(f);
    }
    b->touched = kh_node_touched_bytes(kh_machine_node(mc));
    b->done = 1;
    if (b->finish) {
        uint8_t *x = NULL, *y = NULL;
        size_t nx = 0, ny = 0;
        kh_sim_run_until_idle(sim, UINT64_C(1) << 40);
        kh_sim_run_until_idle(kh_machine_sim(r), UINT64_C(1) << 40);
        b->exact = !kh_machine_save_bytes(mc, NULL, &x, &nx, err, sizeof err) &&
                   !kh_machine_save_bytes(r, NULL, &y, &ny, err, sizeof err) && nx == ny && !memcmp(x, y, nx);
        free(x);
        free(y);
    }
    kh_machine_free(r);
    return b->finish; /* finished by hand: stop the driver */
}

int main(int argc, char **argv)
{
    unsigned m = 1024, n = 1024, k = 1024;
    bench b = {.path = "build/bench/ckpt.ck", .after = 2000000, .exact = -1};
    int pos = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--finish")) b.finish = 1;
        else if (pos == 0) m = (unsigned)strtoul(argv[i], NULL, 0), pos++;
        else if (pos == 1) n = (unsigned)strtoul(argv[i], NULL, 0), pos++;
        else if (pos == 2) k = (unsigned)strtoul(argv[i], NULL, 0), pos++;
        else b.after = strtoull(argv[i], NULL, 0);
    }
    char err[2000];
    kh_machine *mc = kh_machine_new(NULL, NULL, err, sizeof err);
    if (!mc) {
        fprintf(stderr, "ckpt bench: %s\n", err);
        return 1;
    }
    kh_gemm_target t;
    kh_gemm_target_of(mc, &t);
    kh_gemm_plan p;
    uint16_t *a = malloc((size_t)m * k * 2), *bt = malloc((size_t)n * k * 2);
    if (!a || !bt) return 1;
    for (size_t i = 0; i < (size_t)m * k; i++) a[i] = rnd_f16();
    for (size_t i = 0; i < (size_t)n * k; i++) bt[i] = rnd_f16();
    if (kh_gemm_plan_make(&p, m, n, k, &t, err, sizeof err) ||
        kh_gemm_upload(mc, &p, KH_GEMM_RECIPE_TILED, a, bt, err, sizeof err) ||
        kh_gemm_quantise(mc, &p, KH_GEMM_RECIPE_TILED, NULL, err, sizeof err)) {
        fprintf(stderr, "ckpt bench: %s\n", err);
        return 1;
    }
    int rc = kh_gemm_execute_paused(mc, &p, NULL, pause_fn, &b, err, sizeof err);
    if (!b.done) {
        fprintf(stderr, "ckpt bench: the GEMM ended before %llu cycles: %s\n", (unsigned long long)b.after,
                rc ? err : "");
        return 1;
    }
    printf("ckpt: default machine, GEMM %ux%ux%u saved at cycle %llu (%llu into its execution): save %.3f s "
           "(CPU %.3f s), restore %.3f s (CPU %.3f s), file %.1f MiB, touched memory %.1f MiB%s\n",
           m, n, k, (unsigned long long)b.at, (unsigned long long)(b.at - b.start), b.save_s, b.save_cpu, b.restore_s, b.restore_cpu,
           b.bytes / 1048576.0, b.touched / 1048576.0,
           b.exact < 0 ? "" : b.exact ? ", finished exact: yes" : ", finished exact: NO");
    free(a);
    free(bt);
    kh_machine_free(mc);
    remove(b.path);
    return b.exact == 0 ? 1 : 0;
}
