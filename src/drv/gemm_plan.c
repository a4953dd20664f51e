/* The tiling of a GEMM on the matmul clusters and its memory layout
 * (cluster.md §9.1, §9.4), and the host-side FP16 tile-major image. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "drv/gemm_int.h"

static unsigned ceil_div(unsigned a, unsigned b) { return (a + b - 1) / b; }

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* Pick the largest groups that the problem fills and the tile holds; bc so
 * that a FILL stays inside one 256-entry bank (§9.3: gm·bc, gn·bc <= 255). */
int kh_gemm_plan_make(kh_gemm_plan *p, unsigned m, unsigned n, unsigned k, unsigned gm, unsigned gn, unsigned bc,
                      unsigned tiles, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (!m || !n || !k) {
        snprintf(err, errlen, "GEMM %ux%ux%u: every dimension must be at least 1", m, n, k);
        return -1;
    }
    if (m > KH_GEMM_MAX_DIM || n > KH_GEMM_MAX_DIM || k > KH_GEMM_MAX_DIM) {
        snprintf(err, errlen, "GEMM %ux%ux%u: dimensions above %u are not supported by this driver", m, n, k,
                 KH_GEMM_MAX_DIM);
        return -1;
    }
    if (!gm) gm = ceil_div(m, 4) < KH_GEMM_GROUPS ? ceil_div(m, 4) : KH_GEMM_GROUPS;
    if (!gn) gn = ceil_div(n, 4) < KH_GEMM_GROUPS ? ceil_div(n, 4) : KH_GEMM_GROUPS;
    if (!bc) {
        unsigned kb = ceil_div(k, 32), big = gm > gn ? gm : gn;
        bc = 255 / big;
        if (bc > KH_GEMM_CHUNK) bc = KH_GEMM_CHUNK;
        if (bc > kb) bc = kb;
        if (bc == 0) bc = 1;
        while (bc > 1 && ceil_div(kb, bc) * bc - kb > kb / 8) bc--; /* keep K padding small */
    }
    if (gm * bc > 255 || gn * bc > 255 || gm > 255 || gn > 255) {
        snprintf(err, errlen, "tiling gm=%u gn=%u bc=%u: a FILL holds at most 255 entries (gm·bc, gn·bc; "
                 "cluster.md §4.1, §9.1)", gm, gn, bc);
        return -1;
    }
    if (gm * gn > tiles) {
        snprintf(err, errlen, "tiling gm=%u gn=%u: %u sub-tiles exceed the cluster's TILES = %u (cluster.md §9.1)",
                 gm, gn, gm * gn, tiles);
        return -1;
    }
    p->m = m;
    p->n = n;
    p->k = k;
    p->gm = gm;
    p->gn = gn;
    p->bc = bc;
    p->gi = ceil_div(m, 4 * gm);
    p->gj = ceil_div(n, 4 * gn);
    p->ch = ceil_div(k, 32 * bc);
    p->mp = 4 * gm * p->gi;
    p->np = 4 * gn * p->gj;
    p->kp = 32 * bc * p->ch;
    uint64_t na = (uint64_t)p->gi * p->ch * gm * bc, nb = (uint64_t)p->gj * p->ch * gn * bc;
    if (na > 0xFFFFu * 0xFFFFull || (uint64_t)p->ch * gm * bc > 0xFFFF || (uint64_t)p->ch * gn * bc > 0xFFFF ||
        p->gi > 0xFFFF || p->gj > 0xFFFF || (uint64_t)4 * gm * 2 * p->kp > 0x7FFFFFFF ||
        (uint64_t)4 * gn * 2 * p->kp > 0x7FFFFFFF) {
        snprintf(err, errlen, "GEMM %ux%ux%u: the quantising walks do not fit the mover's 16-bit counts and "
                 "32-bit strides (memory.md §11.1)", m, n, k);
        return -1;
    }
    /* images, each on its own 4 KiB boundary */
    p->a_src = 0;
    p->b_src = align_up(p->a_src + 2ull * p->mp * p->kp, 4096);
    p->a_img = align_up(p->b_src + 2ull * p->np * p->kp, 4096);
    p->b_img = align_up(p->a_img + 128ull * na, 4096);
    p->c_img = align_up(p->b_img + 128ull * nb, 4096);
    return 0;
}

/* §9.1: entry E(t, c, g, b) = ((t·CH + c)·groups + g)·bc + b holds lanes
 * 4(t·groups + g) .. +3 and K block c·bc + b; FP16 word 2L + half = lane L,
 * K elements 32(c·bc + b) + 16·half .. +15. */
void kh_gemm_pack_fp16_tiled(const kh_gemm_plan *p, const uint16_t *x, unsigned rows, unsigned groups,
                             unsigned tiles_count, uint16_t *out)
{
    size_t e = 0;
    for (unsigned t = 0; t < tiles_count; t++)
        for (unsigned c = 0; c < p->ch; c++)
            for (unsigned g = 0; g < groups; g++)
                for (unsigned b = 0; b < p->bc; b++, e++)
                    for (unsigned l = 0; l < 4; l++)
                        for (unsigned kk = 0; kk < 32; kk++) {
                            unsigned row = 4 * (t * groups + g) + l, col = 32 * (c * p->bc + b) + kk;
                            out[e * 128 + 32 * l + kk] = row < rows && col < p->k ? x[(size_t)row * p->k + col] : 0;
                        }
}

/* §9.4: image word W = (ti·GJ + tj)·gm·gn + g·gn + h holds
 * C[4(ti·gm+g)+i][4(tj·gn+h)+j] at byte 32W + 2(4i+j). */
size_t kh_gemm_c_index(const kh_gemm_plan *p, unsigned row, unsigned col)
{
    unsigned ti = row / (4 * p->gm), g = row / 4 % p->gm, i = row % 4;
    unsigned tj = col / (4 * p->gn), h = col / 4 % p->gn, j = col % 4;
    size_t w = ((size_t)ti * p->gj + tj) * p->gm * p->gn + (size_t)g * p->gn + h;
    return w * 16 + 4 * i + j;
}

double kh_gemm_f16_to_double(uint16_t h)
{
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0) v = (double)m / 16777216.0;                            /* m · 2^-24 */
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = (double)(1024 + m) * (double)(1ull << e) / 33554432.0;  /* (1024+m) · 2^(e-25) */
    return (h & 0x8000) ? -v : v;
}
