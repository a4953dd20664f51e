/* The GEMM driver's private pieces (include/kohaku/gemm.h). */
#ifndef KOHAKU_DRV_GEMM_INT_H
#define KOHAKU_DRV_GEMM_INT_H

#include "kohaku/gemm.h"

#define KH_GEMM_MAX_DIM 65536u /* a driver limit, not a machine one */
#define KH_GEMM_GROUPS 16u     /* default gm, gn: 64 x 64 outputs per tile */
#define KH_GEMM_CHUNK 8u       /* default K blocks per chunk */
#define KH_GEMM_STAGING (1ull << 39) /* aperture bit: staging store of mesh 0 (memory.md §1) */

/* The float reference's implementations; kh_gemm_reference_float takes the
 * widest this CPU runs, and every path must give the same bytes. */
typedef enum kh_gemm_ref_path {
    KH_GEMM_REF_PORTABLE,
    KH_GEMM_REF_AVX2,
    KH_GEMM_REF_AVX512,
    KH_GEMM_REF_NPATHS
} kh_gemm_ref_path;
int kh_gemm_ref_path_runs(kh_gemm_ref_path path); /* 1 if this CPU (and build) runs it */
/* kh_gemm_reference_float on one path; -1 (c untouched) if it cannot run here. */
int kh_gemm_reference_float_on(kh_gemm_ref_path path, unsigned m, unsigned n, unsigned k, const uint16_t *a,
                               const uint16_t *bt, double *c);

#endif
