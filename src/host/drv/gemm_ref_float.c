/* The float reference of a GEMM in double: C[i][j] = sum over q of
 * A[i][q]·Bt[j][q], summed from q = 0 upwards with one rounding per product
 * and per addition (the build passes -ffp-contract=off, so no multiply-add
 * is fused). Vectorised across outputs, not along q: a lane holds one output
 * and adds its products in the same order as a scalar loop, so every path
 * gives the same bytes. Bt is repacked into panels of 8 columns, q-major, and
 * four rows of A share each panel pass (4 x 8 outputs in registers). */
#include <stdlib.h>
#include <string.h>

#include "host/drv/gemm_int.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KH_REF_HAVE_X86 1
#include <immintrin.h>
#endif

#define ROWS 4  /* rows of A per pass */
#define PANEL 8 /* columns of Bt per panel */

typedef void (*panel_fn)(const double *a, const double *b, unsigned k, double out[ROWS][PANEL]);

/* a: ROWS rows of k values; b: k groups of PANEL values (column j at [q·8+j]). */
static void panel_portable(const double *a, const double *b, unsigned k, double out[ROWS][PANEL])
{
    double s[ROWS][PANEL] = {{0}};
    for (unsigned q = 0; q < k; q++)
        for (unsigned r = 0; r < ROWS; r++) {
            double x = a[(size_t)r * k + q];
            for (unsigned j = 0; j < PANEL; j++) s[r][j] += x * b[(size_t)q * PANEL + j];
        }
    memcpy(out, s, sizeof s);
}

#ifdef KH_REF_HAVE_X86
__attribute__((target("avx512f"))) static void panel_avx512(const double *a, const double *b, unsigned k,
                                                            double out[ROWS][PANEL])
{
    __m512d s0 = _mm512_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
    for (unsigned q = 0; q < k; q++) {
        __m512d y = _mm512_loadu_pd(b + (size_t)q * PANEL);
        s0 = _mm512_add_pd(s0, _mm512_mul_pd(_mm512_set1_pd(a[q]), y));
        s1 = _mm512_add_pd(s1, _mm512_mul_pd(_mm512_set1_pd(a[(size_t)k + q]), y));
        s2 = _mm512_add_pd(s2, _mm512_mul_pd(_mm512_set1_pd(a[(size_t)2 * k + q]), y));
        s3 = _mm512_add_pd(s3, _mm512_mul_pd(_mm512_set1_pd(a[(size_t)3 * k + q]), y));
    }
    _mm512_storeu_pd(out[0], s0);
    _mm512_storeu_pd(out[1], s1);
    _mm512_storeu_pd(out[2], s2);
    _mm512_storeu_pd(out[3], s3);
}

__attribute__((target("avx2"))) static void panel_avx2(const double *a, const double *b, unsigned k,
                                                       double out[ROWS][PANEL])
{
    __m256d s[ROWS][2];
    for (unsigned r = 0; r < ROWS; r++) s[r][0] = s[r][1] = _mm256_setzero_pd();
    for (unsigned q = 0; q < k; q++) {
        __m256d y0 = _mm256_loadu_pd(b + (size_t)q * PANEL), y1 = _mm256_loadu_pd(b + (size_t)q * PANEL + 4);
        for (unsigned r = 0; r < ROWS; r++) {
            __m256d x = _mm256_set1_pd(a[(size_t)r * k + q]);
            s[r][0] = _mm256_add_pd(s[r][0], _mm256_mul_pd(x, y0));
            s[r][1] = _mm256_add_pd(s[r][1], _mm256_mul_pd(x, y1));
        }
    }
    for (unsigned r = 0; r < ROWS; r++) {
        _mm256_storeu_pd(out[r], s[r][0]);
        _mm256_storeu_pd(out[r] + 4, s[r][1]);
    }
}
#endif

static panel_fn best_panel(void)
{
#ifdef KH_REF_HAVE_X86
    if (__builtin_cpu_supports("avx512f")) return panel_avx512;
    if (__builtin_cpu_supports("avx2")) return panel_avx2;
#endif
    return panel_portable;
}

static void reference_float_with(panel_fn panel, unsigned m, unsigned n, unsigned k, const uint16_t *a,
                                 const uint16_t *bt, double *c)
{
    size_t panels = ((size_t)n + PANEL - 1) / PANEL;
    double *bp = calloc(panels * PANEL * k + 1, sizeof *bp); /* + 1: k may be 0 */
    double *ad = calloc((size_t)ROWS * k + 1, sizeof *ad);
    double *f16 = malloc(65536 * sizeof *f16); /* every FP16 value, once */
    if (!bp || !ad || !f16) {
        free(bp);
        free(ad);
        free(f16);
        memset(c, 0, (size_t)m * n * sizeof *c);
        return;
    }
    for (unsigned h = 0; h < 65536; h++) f16[h] = kh_gemm_f16_to_double((uint16_t)h);
    for (size_t j = 0; j < n; j++)
        for (size_t q = 0; q < k; q++) bp[((j / PANEL) * k + q) * PANEL + j % PANEL] = f16[bt[j * k + q]];
    for (unsigned i0 = 0; i0 < m; i0 += ROWS) {
        unsigned rows = m - i0 < ROWS ? m - i0 : ROWS;
        for (unsigned r = 0; r < ROWS; r++)
            for (unsigned q = 0; q < k; q++)
                ad[(size_t)r * k + q] = r < rows ? f16[a[(size_t)(i0 + r) * k + q]] : 0;
        for (size_t p = 0; p < panels; p++) {
            double out[ROWS][PANEL];
            panel(ad, bp + p * k * PANEL, k, out);
            for (unsigned r = 0; r < rows; r++)
                for (unsigned j = 0; j < PANEL && p * PANEL + j < n; j++)
                    c[(size_t)(i0 + r) * n + p * PANEL + j] = out[r][j];
        }
    }
    free(bp);
    free(ad);
    free(f16);
}

void kh_gemm_reference_float(unsigned m, unsigned n, unsigned k, const uint16_t *a, const uint16_t *bt, double *c)
{
    reference_float_with(best_panel(), m, n, k, a, bt, c);
}

void kh_gemm_reference_float_portable(unsigned m, unsigned n, unsigned k, const uint16_t *a, const uint16_t *bt,
                                      double *c)
{
    reference_float_with(panel_portable, m, n, k, a, bt, c);
}
