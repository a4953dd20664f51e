/* The GEMM driver's private pieces (include/kohaku/gemm.h). */
#ifndef KOHAKU_DRV_GEMM_INT_H
#define KOHAKU_DRV_GEMM_INT_H

#include "kohaku/gemm.h"

#define KH_GEMM_MAX_DIM 65536u /* a driver limit, not a machine one */
#define KH_GEMM_GROUPS 16u     /* default gm, gn: 64 x 64 outputs per tile */
#define KH_GEMM_CHUNK 8u       /* default K blocks per chunk */
#define KH_GEMM_STAGING (1ull << 39) /* aperture bit: staging store of mesh 0 (memory.md §1) */

/* Element index of C[row][col] in the result image, in FP16 halves (§9.4). */
size_t kh_gemm_c_index(const kh_gemm_plan *p, unsigned row, unsigned col);

/* kh_gemm_reference_float on the portable path whatever the CPU has (the
 * vector paths must give the same bytes). */
void kh_gemm_reference_float_portable(unsigned m, unsigned n, unsigned k, const uint16_t *a, const uint16_t *bt,
                                      double *c);

#endif
