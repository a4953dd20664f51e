/* mx_cluster_cu: back-to-back GEMMs on the unit bench of the recordings
 * (docs/timing.md "Cluster"). Expected spacings come from upstream's older
 * RTL (7703ee8) under Verilator in that bench (which reproduces every case
 * of vectors/cluster.jsonl to the cycle): the completions of consecutive
 * GEMMs on the same L1, the later ones accumulating with other anchors. */
#include "kohaku/gen/flit.h"
#include "support/clbench.h"
#include "support/test.h"

/* Cycle of framework completion k (DATA_RECEIVED skipped). */
static kh_cycle completion_cycle(kh_ubench *b, unsigned k)
{
    unsigned seen = 0;
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) != KH_T_CU_SIGNAL || kh_cu_signal_code(r->f.w) == KH_SIG_DATA_RECEIVED) continue;
        if (seen++ == k) return r->cycle;
    }
    return KH_NEVER;
}

/* FILL A, FILL B, GEMM (acc 0), two GEMMs with acc 1 and anchors 41, 42,
 * DRAIN: each later GEMM completes `spacing` cycles after the one before. */
static void three_gemms(unsigned gm, unsigned gn, unsigned nk, kh_cycle spacing)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    clb_send(b, clb_fill(0, 0x0, gm * nk, 0, 0), 0);
    clb_send(b, clb_fill(1, 0x40000, gn * nk, 0, 0), 0);
    clb_send(b, clb_gemm(gm, gn, nk, 0, 0), 0);
    for (unsigned k = 0; k < 2; k++) {
        ins g = clb_gemm(gm, gn, nk, 1, 0);
        g.anchor = 41 + k;
        clb_send(b, g, 0);
    }
    clb_send(b, clb_drain(0x100000, gm * gn), 1);
    if (clb_run_ok(b) == 1) {
        CHECK_EQ(completion_cycle(b, 3) - completion_cycle(b, 2), spacing);
        CHECK_EQ(completion_cycle(b, 4) - completion_cycle(b, 3), spacing);
    }
    kh_ubench_free(b);
}

/* gm'·gn' < REUSE_MIN: the next sweep waits for the node's gemm_busy, the
 * accumulator's REUSE_MIN busy tail included (RTL: 34 and 44). */
static void small_sweeps_wait_for_the_accumulator_tail(void)
{
    three_gemms(1, 1, 1, 34);
    three_gemms(1, 3, 2, 44);
}

/* gm'·gn' >= REUSE_MIN: the next sweep waits for the manager, whose
 * `pending` counts the commands still in the cascade (RTL: 106 for the 84
 * commands of gm 2 gn 7 nk 6). */
static void wide_sweeps_wait_for_the_cascade(void) { three_gemms(2, 7, 6, 106); }

int main(void)
{
    KH_RUN(small_sweeps_wait_for_the_accumulator_tail);
    KH_RUN(wide_sweeps_wait_for_the_cascade);
    return kh_test_end("t_cluster_timing");
}
