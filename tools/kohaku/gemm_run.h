/* The demo GEMM on a whole machine (cluster.md §9): shared by `kohaku
 * gemm`, `kohaku demo` and `kohaku bench gemm`. */
#ifndef KOHAKU_GEMM_RUN_H
#define KOHAKU_GEMM_RUN_H

/* Whole-machine speed on the demo GEMM (dims = {M, N, K} or NULL for the
 * demo's shape): prints simulated cycles per second. Exit status. */
int kh_gemm_bench_machine(const unsigned *dims);

#endif
