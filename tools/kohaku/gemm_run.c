/* The demo GEMM on a whole machine (cluster.md §9): random FP16 A and Bt,
 * uploaded, quantised by the mover, multiplied by every matmul cluster,
 * read back, and checked bit for bit against the exact MX result and
 * numerically against a float reference. Shared by `kohaku gemm`,
 * `kohaku demo` and `kohaku bench gemm`. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gemm_run.h"
#include "kohaku/bufcat.h"
#include "kohaku/gemm.h"
#include "kohaku/machine.h"
#include "partition.h"
#include "progress.h"
#include "simout.h"
#include "statsdoc.h"

#define PEAK_PER_CLUSTER 512 /* MAC/cycle: 4 tensor units of 4 x 8 x 4 (cluster.md §1) */
#define REL_ERR_LIMIT 0.05   /* MXFP7 keeps about 6 bits: a few per cent at most */

/* xorshift64; the caller owns the state (no global mutable state). */
static uint64_t rnd(uint64_t *rs)
{
    *rs ^= *rs << 13;
    *rs ^= *rs >> 7;
    *rs ^= *rs << 17;
    return *rs;
}

/* FP16 values of magnitude [2^-3, 2), either sign, some exact zeros. */
static uint16_t rnd_f16(uint64_t *rs)
{
    uint64_t r = rnd(rs);
    if (r % 16 == 0) return 0;
    return (uint16_t)((r >> 4 & 1) << 15 | (12 + (r >> 5) % 4) << 10 | (r >> 8) % 1024);
}

int kh_gemm_demo(const kh_gemm_demo_opts *o, kh_gemm_demo_result *res)
{
    char err[2000];
    kh_machine *mc = NULL;
    kh_simout *out = NULL;
    kh_cli_part *part = NULL;
    uint16_t *a = NULL, *bt = NULL, *c = NULL, *cref = NULL;
    double *cf = NULL;
    kh_json *snap0 = NULL, *snap1 = NULL; /* the stats as the gemm phase starts and ends */
    unsigned gemm_clusters = 0;
    kh_progress pg = {0};
    char who[64];
    int rc = 1, failed = 0;
    char line[sizeof err + 16];
    memset(res, 0, sizeof *res);
    kh_params par;
    kh_params_default(&par);
    kh_checkout ck = {.who = "kohaku gemm"};
    const kh_simopts *sim = o->sim;
    uint64_t host_bytes = 2 * (uint64_t)o->m * o->k + 2 * (uint64_t)o->n * o->k + 12 * (uint64_t)o->m * o->n;
    if (host_bytes > KH_GEMM_HOST_BYTES_MAX) {
        snprintf(err, sizeof err, "GEMM %ux%ux%u needs %.1f GiB of host buffers (2·M·K + 2·N·K + 12·M·N bytes); "
                 "at most 2 GiB (kohaku gemm --help)", o->m, o->n, o->k, (double)host_bytes / (1u << 30));
        goto fail;
    }
    mc = sim->map ? kh_machine_load(sim->map, &par, err, sizeof err) : kh_machine_new(NULL, &par, err, sizeof err);
    if (!mc) goto fail;
    part = kh_cli_partition(mc, sim->check ? &ck : NULL, err, sizeof err); /* MPI build: docs/mpi.md */
    if (!part && err[0]) goto fail;
    snprintf(who, sizeof who, "kohaku %s", o->who ? o->who : "gemm");
    kh_progress_start(&pg, kh_machine_sim(mc), who, "upload and quantise");
    if (sim->check && kh_machine_set_check(mc, kh_checkout_report, &ck)) {
        snprintf(err, sizeof err, "out of memory for the flit checker");
        goto fail;
    }
    if (kh_simopts_output(sim) && !(out = kh_simout_start(kh_machine_sim(mc), sim, err, sizeof err))) goto fail;
    kh_gemm_plan p;
    kh_gemm_target tg;
    kh_gemm_target_of(mc, &tg);
    if (kh_gemm_plan_make(&p, o->m, o->n, o->k, &tg, err, sizeof err)) goto fail;
    size_t na = (size_t)o->m * o->k, nb = (size_t)o->n * o->k, nc = (size_t)o->m * o->n;
    a = malloc(na * 2);
    bt = malloc(nb * 2);
    c = malloc(nc * 2);
    cref = malloc(nc * 2);
    cf = malloc(nc * sizeof *cf);
    if (!a || !bt || !c || !cref || !cf) {
        snprintf(err, sizeof err, "out of memory for a %ux%ux%u GEMM", o->m, o->n, o->k);
        goto fail;
    }
    uint64_t rs = o->seed ? o->seed : 0x5DEECE66Dull;
    for (size_t i = 0; i < na; i++) a[i] = rnd_f16(&rs);
    for (size_t i = 0; i < nb; i++) bt[i] = rnd_f16(&rs);
    kh_gemm_stats st;
    memset(&st, 0, sizeof st);
    double t0 = (double)clock();
    if (kh_gemm_upload(mc, &p, KH_GEMM_RECIPE_ROWMAJOR, a, bt, err, sizeof err) ||
        kh_gemm_quantise_wait(mc, &p, KH_GEMM_RECIPE_ROWMAJOR, o->wait, &st, err, sizeof err))
        goto fail;
    double t1 = (double)clock();
    if (out && !(snap0 = kh_sd_snapshot(kh_machine_sim(mc), NULL, err, sizeof err))) goto fail;
    kh_progress_phase(&pg, "gemm");
    if (kh_gemm_execute(mc, &p, &st, err, sizeof err)) goto fail;
    if (out && !(snap1 = kh_sd_snapshot(kh_machine_sim(mc), NULL, err, sizeof err))) goto fail;
    kh_progress_phase(&pg, "read back");
    if (kh_gemm_read_c(mc, &p, c, err, sizeof err)) goto fail;
    kh_progress_end(&pg);
    double t2 = (double)clock();
    res->seconds = (t2 - t0) / CLOCKS_PER_SEC;
    res->gemm_seconds = (t2 - t1) / CLOCKS_PER_SEC;
    res->sim_cycles = kh_sim_now(kh_machine_sim(mc));
    if (kh_gemm_reference_mx(&p, a, bt, cref)) {
        snprintf(err, sizeof err, "out of memory for the reference");
        goto fail;
    }
    kh_gemm_reference_float(o->m, o->n, o->k, a, bt, cf);
    size_t mism = 0, first = 0;
    double se = 0, sr = 0, maxe = 0;
    for (size_t i = 0; i < nc; i++) {
        if (c[i] != cref[i] && !mism++) first = i;
        double e = kh_gemm_f16_to_double(c[i]) - cf[i];
        se += e * e;
        sr += cf[i] * cf[i];
        if (fabs(e) > maxe) maxe = fabs(e);
    }
    double rel = sr > 0 ? sqrt(se / sr) : sqrt(se);
    double macs = (double)o->m * o->n * o->k;
    double peak = (double)PEAK_PER_CLUSTER * st.clusters;
    if (!o->quiet) {
        printf("gemm %ux%ux%u (C = A·Btᵀ, FP16 in and out) on %u matmul clusters of %s\n", o->m, o->n, o->k,
               st.clusters, sim->map ? sim->map : "the default machine (mesh_2x2_6+2)");
        printf("  tiling: %ux%u outputs per tile (gm %u, gn %u), K chunks of %u (bc %u), %u x %u tiles x %u chunks\n",
               4 * p.gm, 4 * p.gn, p.gm, p.gn, 32 * p.bc, p.bc, p.gi, p.gj, p.ch);
        printf("  quantise: %llu cycles (two XFORM moves, recipe 2 from row-major FP16, images in %s%s)\n",
               (unsigned long long)st.quant_cycles, p.staged ? "the staging store" : "DRAM",
               o->wait == KH_GEMM_WAIT_QUIET ? "; the host waits for quiet, no polls" : "");
        printf("  gemm: %llu cycles, %llu instructions in %u staging rounds", (unsigned long long)st.gemm_cycles,
               (unsigned long long)st.instructions, st.rounds);
        if (st.programs != st.rounds) /* rounds split over NCMD-sized groups of clusters */
            printf(" (%u control programs)", st.programs);
        printf("\n");
        printf("  achieved %.0f MAC/cycle of %.0f peak (%.1f %%)\n", macs / (double)st.gemm_cycles, peak,
               100.0 * macs / (double)st.gemm_cycles / peak);
        if (mism)
            printf("  exact MX reference: %zu of %zu outputs differ; first C[%zu][%zu] = 0x%04x, expected 0x%04x\n",
                   mism, nc, first / o->n, first % o->n, c[first], cref[first]);
        else
            printf("  exact MX reference: all %zu outputs bit-identical\n", nc);
        printf("  float reference: max |error| %.4g, relative (Frobenius) error %.3g %%\n", maxe, 100.0 * rel);
    }
    gemm_clusters = st.clusters;
    res->cycles = st.gemm_cycles;
    res->quant_cycles = st.quant_cycles;
    res->mac_per_cycle = macs / (double)st.gemm_cycles;
    res->peak = peak;
    res->mismatches = mism;
    res->rel_err = rel;
    rc = mism || rel > REL_ERR_LIMIT ? 1 : 0;
    if (rc && !o->quiet && !mism) printf("  relative error above %.0f %%: wrong\n", 100 * REL_ERR_LIMIT);
    goto done;
fail:
    failed = 1;
    rc = 1;
done:
    if (failed) snprintf(line, sizeof line, "kohaku gemm: %s\n", err);
    kh_cli_stderr(part, failed ? line : NULL); /* under MPI: every rank's warnings, then the error once */
    kh_progress_end(&pg);
    if (out) {
        char name[200];
        snprintf(name, sizeof name, "%s %ux%ux%u", o->who ? o->who : "gemm", o->m, o->n, o->k);
        size_t used = 0;
        char *run = kh_simrun_machine(name, mc, &used);
        if (run && snap1 && gemm_clusters) {
            double total_macs = (double)o->m * o->n * o->k;
            kh_bufcat(run, KH_SIMRUN_MAX, &used,
                      ",\"gemm\":{\"m\":%u,\"n\":%u,\"k\":%u,\"clusters\":%u,\"macs\":%.0f,\"cycles\":%llu,"
                      "\"quantise_cycles\":%llu,\"peak_mac_per_cycle\":%.0f,\"mac_per_cycle\":%.4f",
                      o->m, o->n, o->k, gemm_clusters, total_macs, (unsigned long long)res->cycles,
                      (unsigned long long)res->quant_cycles, res->peak, res->mac_per_cycle);
            kh_gemm_bound_json(kh_json_root(snap0), kh_json_root(snap1), gemm_clusters, run, KH_SIMRUN_MAX, &used);
            kh_bufcat(run, KH_SIMRUN_MAX, &used, "}");
        }
        if (kh_simout_finish(out, sim, run, err, sizeof err)) {
            fprintf(stderr, "kohaku gemm: %s\n", err);
            rc = 1;
        }
        free(run);
    }
    kh_json_free(snap0);
    kh_json_free(snap1);
    if (sim->check && mc) {
        kh_checkout_add(&ck, kh_machine_check(mc));
        if (kh_cli_checkout_end(part, &ck)) rc = 1;
    }
    if (mc && kh_simdiag_end(kh_machine_sim(mc), sim)) rc = 1;
    kh_cli_unpartition(part);
    kh_machine_free(mc);
    free(a);
    free(bt);
    free(c);
    free(cref);
    free(cf);
    return rc;
}

int kh_gemm_bench_machine(const unsigned *dims, const kh_simopts *sim)
{
    kh_gemm_demo_opts o = {.m = KH_GEMM_DEMO_M, .n = KH_GEMM_DEMO_N, .k = KH_GEMM_DEMO_K, .quiet = 1,
                           .who = "bench gemm", .sim = sim};
    kh_gemm_demo_result r;
    if (dims) {
        o.m = dims[0];
        o.n = dims[1];
        o.k = dims[2];
    }
    int rc = kh_gemm_demo(&o, &r);
    if (rc) return rc;
    printf("whole machine (%s), demo gemm %ux%ux%u, CPU time:\n", sim->map ? sim->map : "default machine", o.m, o.n, o.k);
    printf("  everything (upload, quantise, gemm, read back): %llu simulated cycles in %.3f s = %.2f M cycles/s\n",
           (unsigned long long)r.sim_cycles, r.seconds, (double)r.sim_cycles / r.seconds / 1e6);
    printf("  the gemm phase (6 clusters busy, mesh and memory ports streaming): %llu cycles in %.3f s = %.2f M "
           "cycles/s, %.2f G MAC/s simulated\n",
           (unsigned long long)r.cycles, r.gemm_seconds, (double)r.cycles / r.gemm_seconds / 1e6,
           (double)o.m * o.n * o.k / r.gemm_seconds / 1e9);
    return 0;
}
