/* The float reference of a GEMM in double: C[i][j] = sum over q of
 * A[i][q]·Bt[j][q], summed from q = 0 upwards with one rounding per product
 * and per addition (the build passes -ffp-contract=off, so no multiply-add
 * is fused). Vectorised across outputs, not along q: a lane holds one output
 * and adds its products in the same order as a scalar loop, so every path
 * gives the same bytes.
 *
 * Blocked for the caches: K in chunks of KC; per chunk, A is repacked in
 * groups of ROWS rows (q-major, the ROWS values of one q together) and Bt in
 * panels of PANEL columns (q-major), each once, FP16 -> double through a 64K
 * table. A panel's chunk (KC·PANEL doubles) stays in L1 while every row group
 * passes over it, each pass keeping a ROWS x PANEL block of sums in
 * registers. Between chunks the sums wait in C (a double holds them exactly),
 * so each output still adds its products in q order. */
#include <stdlib.h>
#include <string.h>

#include "host/drv/gemm_int.h"
#include "kohaku/num.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KH_REF_HAVE_X86 1
#include <immintrin.h>
#endif

#define ROWS 8   /* rows of A per pass */
#define PANEL 16 /* columns of Bt per panel */
#define KC 256   /* K per chunk: a panel's chunk is 32 KiB */

/* a: KC groups of ROWS values (row r at [q·ROWS + r]); b: KC groups of PANEL
 * values (column j at [q·PANEL + j]); c: the ROWS x PANEL sums, row stride
 * ldc, read first unless `first` (then they start at +0). */
typedef void (*panel_fn)(const double *a, const double *b, unsigned kc, double *c, size_t ldc, int first);

static void panel_portable(const double *a, const double *b, unsigned kc, double *c, size_t ldc, int first)
{
    double s[ROWS][PANEL];
    for (unsigned r = 0; r < ROWS; r++)
        for (unsigned j = 0; j < PANEL; j++) s[r][j] = first ? 0 : c[r * ldc + j];
    for (unsigned q = 0; q < kc; q++)
        for (unsigned r = 0; r < ROWS; r++) {
            double x = a[(size_t)q * ROWS + r];
            for (unsigned j = 0; j < PANEL; j++) s[r][j] += x * b[(size_t)q * PANEL + j];
        }
    for (unsigned r = 0; r < ROWS; r++)
        for (unsigned j = 0; j < PANEL; j++) c[r * ldc + j] = s[r][j];
}

#ifdef KH_REF_HAVE_X86
#define KH_REF_UNROLL _Pragma("GCC unroll 8")

/* One pass over the chunk with ROWS x NV vectors of W doubles in registers
 * (columns 0 .. NV·W - 1 of the panel), for each instruction set's names. */
#define KH_REF_PASS(VEC, NV, W, ZERO, LOAD, STORE, SET1, ADD, MUL)                     \
    VEC s[ROWS][NV];                                                                  \
    KH_REF_UNROLL for (unsigned r = 0; r < ROWS; r++)                                 \
        KH_REF_UNROLL for (unsigned v = 0; v < NV; v++)                               \
            s[r][v] = first ? ZERO() : LOAD(c + r * ldc + v * W);                     \
    for (unsigned q = 0; q < kc; q++) {                                               \
        VEC y[NV];                                                                    \
        KH_REF_UNROLL for (unsigned v = 0; v < NV; v++) y[v] = LOAD(b + (size_t)q * PANEL + v * W); \
        KH_REF_UNROLL for (unsigned r = 0; r < ROWS; r++) {                           \
            VEC x = SET1(a[(size_t)q * ROWS + r]);                                    \
            KH_REF_UNROLL for (unsigned v = 0; v < NV; v++) s[r][v] = ADD(s[r][v], MUL(x, y[v])); \
        }                                                                             \
    }                                                                                 \
    KH_REF_UNROLL for (unsigned r = 0; r < ROWS; r++)                                 \
        KH_REF_UNROLL for (unsigned v = 0; v < NV; v++) STORE(c + r * ldc + v * W, s[r][v]);

/* 8 rows x 2 vectors of 8: sixteen independent sums, enough to keep both
 * adders busy through their latency. */
__attribute__((target("avx512f"))) static void panel_avx512(const double *a, const double *b, unsigned kc, double *c,
                                                            size_t ldc, int first)
{
    KH_REF_PASS(__m512d, 2, 8, _mm512_setzero_pd, _mm512_loadu_pd, _mm512_storeu_pd, _mm512_set1_pd, _mm512_add_pd,
                _mm512_mul_pd)
}

/* Sixteen YMM registers: the panel in four quarters of 4 columns, each with
 * ROWS sums in registers (plus one for B and one for A). */
__attribute__((target("avx2"))) static void quarter_avx2(const double *a, const double *b, unsigned kc, double *c,
                                                         size_t ldc, int first)
{
    KH_REF_PASS(__m256d, 1, 4, _mm256_setzero_pd, _mm256_loadu_pd, _mm256_storeu_pd, _mm256_set1_pd, _mm256_add_pd,
                _mm256_mul_pd)
}

__attribute__((target("avx2"))) static void panel_avx2(const double *a, const double *b, unsigned kc, double *c,
                                                       size_t ldc, int first)
{
    for (unsigned j = 0; j < PANEL; j += 4) quarter_avx2(a, b + j, kc, c + j, ldc, first);
}
#endif

static const panel_fn panel_of[KH_GEMM_REF_NPATHS] = {
    [KH_GEMM_REF_PORTABLE] = panel_portable,
#ifdef KH_REF_HAVE_X86
    [KH_GEMM_REF_AVX2] = panel_avx2,
    [KH_GEMM_REF_AVX512] = panel_avx512,
#endif
};

int kh_gemm_ref_path_runs(kh_gemm_ref_path path)
{
    switch (path) {
    case KH_GEMM_REF_PORTABLE:
        return 1;
#ifdef KH_REF_HAVE_X86
    case KH_GEMM_REF_AVX2:
        return kh_simd_allows(KH_SIMD_AVX2) && __builtin_cpu_supports("avx2");
    case KH_GEMM_REF_AVX512:
        return kh_simd_allows(KH_SIMD_AVX512) && __builtin_cpu_supports("avx512f");
#endif
    default:
        return 0;
    }
}

static kh_gemm_ref_path best_path(void)
{
    for (int p = KH_GEMM_REF_NPATHS - 1; p > 0; p--)
        if (kh_gemm_ref_path_runs((kh_gemm_ref_path)p)) return (kh_gemm_ref_path)p;
    return KH_GEMM_REF_PORTABLE;
}

/* One K chunk [q0, q0 + kc) of A in row groups and of Bt in panels; rows
 * and columns past the matrix are zeros (their sums are dropped). */
static void pack_chunk(const double *f16, unsigned m, unsigned n, unsigned k, const uint16_t *a, const uint16_t *bt,
                       unsigned q0, unsigned kc, double *ap, double *bp)
{
    size_t groups = ((size_t)m + ROWS - 1) / ROWS, panels = ((size_t)n + PANEL - 1) / PANEL;
    for (size_t g = 0; g < groups; g++)
        for (unsigned r = 0; r < ROWS; r++) {
            size_t i = g * ROWS + r;
            double *to = ap + g * kc * ROWS + r;
            for (unsigned q = 0; q < kc; q++) to[(size_t)q * ROWS] = i < m ? f16[a[i * k + q0 + q]] : 0;
        }
    for (size_t p = 0; p < panels; p++)
        for (unsigned j = 0; j < PANEL; j++) {
            size_t col = p * PANEL + j;
            double *to = bp + p * kc * PANEL + j;
            for (unsigned q = 0; q < kc; q++) to[(size_t)q * PANEL] = col < n ? f16[bt[col * k + q0 + q]] : 0;
        }
}

static void reference_float_with(panel_fn panel, unsigned m, unsigned n, unsigned k, const uint16_t *a,
                                 const uint16_t *bt, double *c)
{
    size_t groups = ((size_t)m + ROWS - 1) / ROWS, panels = ((size_t)n + PANEL - 1) / PANEL;
    unsigned kmax = k < KC ? k : KC;
    double *ap = malloc((groups * ROWS * kmax + 1) * sizeof *ap); /* + 1: k may be 0 */
    double *bp = malloc((panels * PANEL * kmax + 1) * sizeof *bp);
    double *f16 = malloc(65536 * sizeof *f16); /* every FP16 value, once */
    if (!ap || !bp || !f16) {
        free(ap);
        free(bp);
        free(f16);
        memset(c, 0, (size_t)m * n * sizeof *c);
        return;
    }
    for (unsigned h = 0; h < 65536; h++) f16[h] = kh_gemm_f16_to_double((uint16_t)h);
    if (k == 0) memset(c, 0, (size_t)m * n * sizeof *c);
    for (unsigned q0 = 0; q0 < k; q0 += KC) {
        unsigned kc = k - q0 < KC ? k - q0 : KC;
        int first = q0 == 0;
        pack_chunk(f16, m, n, k, a, bt, q0, kc, ap, bp);
        for (size_t p = 0; p < panels; p++)
            for (size_t g = 0; g < groups; g++) {
                size_t i0 = g * ROWS, j0 = p * PANEL;
                const double *ag = ap + g * kc * ROWS, *bq = bp + p * kc * PANEL;
                if (i0 + ROWS <= m && j0 + PANEL <= n) {
                    panel(ag, bq, kc, c + i0 * n + j0, n, first);
                    continue;
                }
                /* an edge block: its sums through a full-size buffer */
                double blk[ROWS * PANEL] = {0};
                size_t rows = m - i0 < ROWS ? m - i0 : ROWS, cols = n - j0 < PANEL ? n - j0 : PANEL;
                for (size_t r = 0; r < rows && !first; r++) memcpy(blk + r * PANEL, c + (i0 + r) * n + j0, cols * sizeof *c);
                panel(ag, bq, kc, blk, PANEL, first);
                for (size_t r = 0; r < rows; r++) memcpy(c + (i0 + r) * n + j0, blk + r * PANEL, cols * sizeof *c);
            }
    }
    free(ap);
    free(bp);
    free(f16);
}

void kh_gemm_reference_float(unsigned m, unsigned n, unsigned k, const uint16_t *a, const uint16_t *bt, double *c)
{
    reference_float_with(panel_of[best_path()], m, n, k, a, bt, c);
}

int kh_gemm_reference_float_on(kh_gemm_ref_path path, unsigned m, unsigned n, unsigned k, const uint16_t *a,
                               const uint16_t *bt, double *c)
{
    if ((unsigned)path >= KH_GEMM_REF_NPATHS || !kh_gemm_ref_path_runs(path)) return -1;
    reference_float_with(panel_of[path], m, n, k, a, bt, c);
    return 0;
}
