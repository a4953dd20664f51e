/* Benchmarks (`kohaku bench WHAT`); each returns the exit status. */
#ifndef KOHAKU_BENCH_H
#define KOHAKU_BENCH_H

int kh_bench_noc(int argc, char **argv);
int kh_bench_gemm(int argc, char **argv);

#endif
