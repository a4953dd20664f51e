/* Helpers for the cluster tests on the unit bench: a bench with the
 * recording profile (parameters.md §2.3), instruction words written through
 * the generated cluster accessors, memory images, completions. */
#ifndef KH_TEST_CLBENCH_H
#define KH_TEST_CLBENCH_H

#include <stdint.h>

#include "kohaku/unitbench.h"

typedef struct logcap {
    char text[8192];
    size_t used;
} logcap;

/* A kh_log_fn appending to a logcap. */
void clb_cap_log(void *ctx, kh_log_level lvl, const char *msg);

/* A cluster at (x, y), memory at (1,1), instructions from (3,3), rd_lat 10.
 * log, if not NULL, collects warnings; else only errors are kept (dropped). */
kh_ubench *clb_bench_at(unsigned x, unsigned y, logcap *log);
/* Run to completion; a failure is reported as a test failure. Returns the
 * kh_ubench_run status. */
int clb_run(kh_ubench *b, const char *file, int line);
#define clb_run_ok(b) clb_run((b), __FILE__, __LINE__)

typedef struct ins {
    unsigned op, n, sel, acc, gm, gn, nk, anchor, peers, npeer, eoff, aoff, boff, emit, fuse;
    unsigned abank, bbank, fbank, dnode, dst_x, dst_y, dbuf, dflags, dack_y, dack_x, dmesh, dfin;
    uint64_t addr;
} ins;

kh_flit clb_enc(const ins *i);
void clb_send(kh_ubench *b, ins i, int last);
ins clb_fill(unsigned sel, uint64_t addr, unsigned n, unsigned eoff, unsigned fbank);
ins clb_gemm(unsigned gm, unsigned gn, unsigned nk, unsigned acc, unsigned bank);
ins clb_drain(uint64_t addr, unsigned n);

void clb_put_words(kh_ubench *b, uint64_t addr, const uint64_t *w, unsigned nwords);
uint16_t clb_get_f16(kh_ubench *b, uint64_t word_addr, unsigned e);
uint64_t clb_rnd(void);
void clb_random_entry(uint64_t w[16]);
/* Framework completion k (DATA_RECEIVED skipped): 1 and (code, arg), or 0. */
int clb_completion(kh_ubench *b, unsigned k, unsigned *code, unsigned *arg);

#endif
