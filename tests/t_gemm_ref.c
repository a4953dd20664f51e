/* The float GEMM reference (gemm.h): every output is the plain k-ordered
 * double sum of the FP16 products, byte for byte, on the vector path this CPU
 * takes and on the portable one, for shapes that leave partial row groups
 * and column panels, and with FP16 specials (subnormals, signed zeros). */
#include <stdlib.h>
#include <string.h>

#include "host/drv/gemm_int.h"
#include "kohaku/gemm.h"
#include "support/test.h"

/* Independent: one output at a time, q upwards, no vectors. */
static void naive(unsigned m, unsigned n, unsigned k, const uint16_t *a, const uint16_t *bt, double *c)
{
    for (unsigned i = 0; i < m; i++)
        for (unsigned j = 0; j < n; j++) {
            double s = 0;
            for (unsigned q = 0; q < k; q++) {
                double p = kh_gemm_f16_to_double(a[(size_t)i * k + q]) * kh_gemm_f16_to_double(bt[(size_t)j * k + q]);
                s = s + p;
            }
            c[(size_t)i * n + j] = s;
        }
}

static uint16_t f16_sample(uint32_t *st)
{
    *st = *st * 1664525u + 1013904223u;
    uint16_t h = (uint16_t)(*st >> 16);
    if ((h & 0x7c00) == 0x7c00) h &= 0xbfff; /* no Inf/NaN: their sums compare unequal */
    return h;
}

static void one_shape(unsigned m, unsigned n, unsigned k, uint32_t seed)
{
    uint16_t *a = malloc(((size_t)m * k + 1) * 2), *bt = malloc(((size_t)n * k + 1) * 2);
    double *want = malloc(((size_t)m * n + 1) * 8), *got = malloc(((size_t)m * n + 1) * 8),
           *path = malloc(((size_t)m * n + 1) * 8);
    CHECK(a && bt && want && got && path);
    for (size_t i = 0; i < (size_t)m * k; i++) a[i] = f16_sample(&seed);
    for (size_t i = 0; i < (size_t)n * k; i++) bt[i] = f16_sample(&seed);
    if (m * k > 2) a[1] = 0x8000; /* -0 */
    if (n * k > 2) bt[2] = 0x0001; /* the smallest subnormal */
    naive(m, n, k, a, bt, want);
    kh_gemm_reference_float(m, n, k, a, bt, got);
    CHECK(memcmp(want, got, (size_t)m * n * 8) == 0);
    for (int p = 0; p < KH_GEMM_REF_NPATHS; p++) {
        memset(path, 0x55, ((size_t)m * n + 1) * 8);
        if (kh_gemm_reference_float_on((kh_gemm_ref_path)p, m, n, k, a, bt, path)) {
            CHECK(!kh_gemm_ref_path_runs((kh_gemm_ref_path)p)); /* refused only where the CPU lacks it */
            continue;
        }
        CHECK(memcmp(want, path, (size_t)m * n * 8) == 0);
    }
    free(a);
    free(bt);
    free(want);
    free(got);
    free(path);
}

static void float_reference_is_the_ordered_double_sum(void)
{
    one_shape(1, 1, 1, 1);
    one_shape(3, 5, 7, 2);
    one_shape(4, 8, 64, 3);
    one_shape(9, 17, 130, 4);
    one_shape(37, 23, 511, 5);
    one_shape(16, 32, 256, 6);  /* whole row groups, panels and K chunks */
    one_shape(17, 33, 600, 7);  /* a partial third K chunk, edge blocks in both directions */
    one_shape(8, 16, 0, 8);     /* K = 0: every sum is +0 */
}

int main(void)
{
    KH_RUN(float_reference_is_the_ordered_double_sum);
    return kh_test_end("t_gemm_ref");
}
