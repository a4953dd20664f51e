/* The tiling of a GEMM on the matmul clusters and its memory layout
 * (cluster.md §9.1, §9.4), and the host-side FP16 tile-major image. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "host/drv/gemm_int.h"
#include "kohaku/gen/num.h"

static unsigned ceil_div(unsigned a, unsigned b) { return (a + b - 1) / b; }

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

/* K blocks per chunk: the largest bc <= cap with the least padding. */
static unsigned choose_bc(unsigned kb, unsigned cap)
{
    unsigned best = 1, best_pad = ~0u;
    for (unsigned bc = 1; bc <= cap && bc <= kb; bc++) {
        unsigned pad = ceil_div(kb, bc) * bc - kb;
        if (pad <= best_pad) {
            best = bc;
            best_pad = pad;
        }
    }
    return best;
}

static int fits(const kh_gemm_plan *p, char *err, size_t errlen)
{
    uint64_t na = (uint64_t)p->gi * p->ch * p->gm * p->bc;
    if (p->gm * p->bc > 255 || p->gn * p->bc > 255 || p->gm > 255 || p->gn > 255) {
        snprintf(err, errlen, "tiling gm=%u gn=%u bc=%u: a FILL holds at most 255 entries (gm·bc, gn·bc; "
                 "cluster.md §4.1, §9.1)", p->gm, p->gn, p->bc);
        return 0;
    }
    if (na > 0xFFFFull * 0xFFFFull || (uint64_t)p->ch * p->gm * p->bc > 0xFFFF ||
        (uint64_t)p->ch * p->gn * p->bc > 0xFFFF || p->gi > 0xFFFF || p->gj > 0xFFFF ||
        (uint64_t)8 * p->gm * p->kp > 0x7FFFFFFF || (uint64_t)8 * p->gn * p->kp > 0x7FFFFFFF) {
        snprintf(err, errlen, "GEMM %ux%ux%u: the quantising walks do not fit the mover's 16-bit counts and "
                 "32-bit strides (memory.md §11.1)", p->m, p->n, p->k);
        return 0;
    }
    return 1;
}

unsigned kh_gemm_tile_owner(const kh_gemm_plan *p, unsigned clusters, unsigned t)
{
    unsigned total = p->gi * p->gj, ncl = clusters ? clusters : 1;
    unsigned q = total / ncl, r = total % ncl; /* the first r clusters take q + 1 */
    if (t < r * (q + 1)) return t / (q + 1);
    return r + (t - r * (q + 1)) / (q ? q : 1);
}

int kh_gemm_tile_reuses_a(const kh_gemm_plan *p, unsigned clusters, unsigned t)
{
    /* A chunk c sits in bank c mod 2: with two chunks or fewer the next
     * tile's B FILLs leave both A banks as they were (cluster.md §9.3) */
    return t > 0 && p->ch <= 2 && kh_gemm_tile_owner(p, clusters, t) == kh_gemm_tile_owner(p, clusters, t - 1) &&
           t / p->gj == (t - 1) / p->gj;
}

/* Operand entries fetched through the busiest memory port: the clusters of
 * one port share its streaming engine. A cluster's tiles are one run
 * (kh_gemm_tile_owner); within it, each tile but the first that stays on
 * its row of tiles reuses A (kh_gemm_tile_reuses_a), counted per run. */
static uint64_t port_load(const kh_gemm_plan *p, const kh_gemm_target *t, unsigned ncl)
{
    uint64_t load[256] = {0}, worst = 0;
    unsigned total = p->gi * p->gj, q = total / ncl, r = total % ncl, start = 0;
    for (unsigned c = 0; c < ncl && start < total; c++) {
        unsigned end = start + q + (c < r ? 1 : 0);
        uint64_t tiles = end - start, reuse = 0;
        if (p->ch <= 2) /* tiles start+1 .. end-1, less those that open a row */
            reuse = tiles - 1 - ((end - 1) / p->gj - start / p->gj);
        load[c < KH_GEMM_MAX_CLUSTERS ? t->port[c] : 0] +=
            (uint64_t)p->ch * p->bc * (p->gn * tiles + p->gm * (tiles - reuse));
        start = end;
    }
    for (unsigned i = 0; i < 256; i++)
        if (load[i] > worst) worst = load[i];
    return worst;
}

static void shape(kh_gemm_plan *p, unsigned gm, unsigned gn, unsigned bc)
{
    p->gm = gm;
    p->gn = gn;
    p->bc = bc;
    p->gi = ceil_div(p->m, 4 * gm);
    p->gj = ceil_div(p->n, 4 * gn);
    p->ch = ceil_div(p->k, 32 * bc);
    p->mp = 4 * gm * p->gi;
    p->np = 4 * gn * p->gj;
    p->kp = 32 * bc * p->ch;
}

int kh_gemm_plan_make(kh_gemm_plan *p, unsigned m, unsigned n, unsigned k, const kh_gemm_target *t, char *err,
                      size_t errlen)
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
    p->m = m;
    p->n = n;
    p->k = k;
    unsigned ncl = t->clusters ? t->clusters : 1, kb = ceil_div(k, 32);
    if (t->gm && t->gn) {
        if (t->gm * t->gn > t->tiles) {
            snprintf(err, errlen, "tiling gm=%u gn=%u: %u sub-tiles exceed the cluster's TILES = %u "
                     "(cluster.md §9.1)", t->gm, t->gn, t->gm * t->gn, t->tiles);
            return -1;
        }
        unsigned big = t->gm > t->gn ? t->gm : t->gn;
        shape(p, t->gm, t->gn, t->bc ? t->bc : choose_bc(kb, big <= 255 ? 255 / big : 1));
    } else {
        uint64_t best = ~0ull, best_inst = ~0ull;
        unsigned bgm = 1, bgn = 1, bbc = 1;
        for (unsigned gm = 1; gm <= 64 && gm <= ceil_div(m, 4) * 2; gm *= 2)
            for (unsigned gn = 1; gn <= 64 && gn <= ceil_div(n, 4) * 2; gn *= 2) {
                if (gm * gn > t->tiles) continue;
                unsigned big = gm > gn ? gm : gn, cap = 255 / big;
                unsigned cands[3] = {choose_bc(kb, cap < KH_GEMM_CHUNK ? cap : KH_GEMM_CHUNK),
                                     ceil_div(kb, 2), kb};
                for (unsigned ci = 0; ci < 3; ci++) {
                    unsigned bc = cands[ci];
                    if (!bc || bc > cap) continue;
                    kh_gemm_plan q = *p;
                    shape(&q, gm, gn, bc);
                    if ((uint64_t)q.kp > (uint64_t)kb * 32 * 9 / 8 + 32 * bc) continue; /* too much K padding */
                    uint64_t cost = port_load(&q, t, ncl);
                    uint64_t inst = (uint64_t)q.gi * q.gj * (3 * q.ch + 1);
                    if (cost < best || (cost == best && inst < best_inst)) {
                        best = cost;
                        best_inst = inst;
                        bgm = gm;
                        bgn = gn;
                        bbc = bc;
                    }
                }
            }
        shape(p, bgm, bgn, t->bc ? t->bc : bbc);
    }
    if (!fits(p, err, errlen)) return -1;
    uint64_t na = (uint64_t)p->gi * p->ch * p->gm * p->bc, nb = (uint64_t)p->gj * p->ch * p->gn * p->bc;
    p->a_src = 0;
    p->b_src = align_up(p->a_src + 2ull * p->mp * p->kp, 4096);
    p->c_img = align_up(p->b_src + 2ull * p->np * p->kp, 4096);
    uint64_t after_c = align_up(p->c_img + 32ull * p->mp / 4 * p->np / 4, 4096);
    uint64_t imgs = align_up(128ull * na, 4096) + 128ull * nb;
    if (t->staging_bytes && imgs <= t->staging_bytes) {
        p->staged = 1;
        p->a_img = KH_GEMM_STAGING; /* aperture 0 of mesh 0 (memory.md §1, §8) */
        p->b_img = p->a_img + align_up(128ull * na, 4096);
    } else {
        p->a_img = after_c;
        p->b_img = align_up(p->a_img + 128ull * na, 4096);
    }
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

double kh_gemm_f16_to_double(uint16_t h)
{
    const uint64_t w = h; /* the fields of isa/num.isa's fp16 */
    unsigned e = (unsigned)kh_fp16_exp(&w), m = (unsigned)kh_fp16_frac(&w);
    double v;
    if (e == 0) v = (double)m / 16777216.0;                            /* m · 2^-24 */
    else if (e == 31) v = m ? NAN : INFINITY;
    else v = (double)(1024 + m) * (double)(1ull << e) / 33554432.0;  /* (1024+m) · 2^(e-25) */
    return kh_fp16_sign(&w) ? -v : v;
}
