/* Host references for a GEMM on the clusters: the exact MX result (the
 * quantiser of numerics §3, then each tile's sweeps in program order,
 * numerics §4-§7, cluster.md §5.1); the float result is in gemm_ref_float.c. */
#include <stdlib.h>
#include <string.h>

#include "host/drv/gemm_int.h"
#include "kohaku/num.h"

/* The MX entries of one operand, tile-major (§9.1), quantised on the host. */
static kh_mx_entry *quantise_operand(const kh_gemm_plan *p, const uint16_t *x, unsigned rows, unsigned groups,
                                     unsigned tiles, unsigned mode)
{
    size_t n = (size_t)tiles * p->ch * groups * p->bc;
    uint16_t *img = malloc(n * 128 * sizeof *img);
    kh_mx_entry *e = malloc(n * sizeof *e);
    if (!img || !e) {
        free(img);
        free(e);
        return NULL;
    }
    kh_gemm_pack_fp16_tiled(p, x, rows, groups, tiles, img);
    for (size_t i = 0; i < n; i++) {
        uint64_t in[32] = {0}, out[16];
        /* element n = 32·lane + k at bits [16n+15:16n] of the 2048-bit entry */
        for (unsigned k = 0; k < 128; k++) in[k / 4] |= (uint64_t)img[i * 128 + k] << (16 * (k % 4));
        kh_quant_entry(in, mode, out);
        kh_mx_unpack(out, (int)mode, &e[i]);
    }
    free(img);
    return e;
}

int kh_gemm_reference_mx(const kh_gemm_plan *p, const uint16_t *a, const uint16_t *bt, uint16_t *c)
{
    kh_mx_entry *ea = quantise_operand(p, a, p->m, p->gm, p->gi, 0);
    kh_mx_entry *eb = quantise_operand(p, bt, p->n, p->gn, p->gj, 1);
    uint32_t(*tile)[16] = malloc((size_t)p->gm * p->gn * sizeof *tile);
    const kh_mx_entry **ys = malloc(p->gn * sizeof *ys); /* a strip's B entries and tiles */
    uint32_t **ts = malloc(p->gn * sizeof *ts);
    if (!ea || !eb || !tile || !ys || !ts) {
        free(ea);
        free(eb);
        free(tile);
        free(ys);
        free(ts);
        return -1;
    }
    const unsigned mw = KH_ACC_MW_DEFAULT;
    kh_mx_kernels mx; /* resolved once: the per-block calls would re-test the CPU */
    kh_mx_kernels_get(kh_mx_path_best(), &mx);
    for (unsigned ti = 0; ti < p->gi; ti++)
        for (unsigned tj = 0; tj < p->gj; tj++) {
            for (unsigned ch = 0; ch < p->ch; ch++)
                for (unsigned kb = 0; kb < p->bc; kb++)
                    for (unsigned g = 0; g < p->gm; g++) {
                        const kh_mx_entry *x = &ea[(((size_t)ti * p->ch + ch) * p->gm + g) * p->bc + kb];
                        const kh_mx_entry *y = &eb[((size_t)tj * p->ch + ch) * p->gn * p->bc + kb];
                        uint32_t(*t)[16] = &tile[g * p->gn];
                        if (ch == 0 && kb == 0) { /* LOAD opens the tile */
                            for (unsigned h = 0; h < p->gn; h++) {
                                uint32_t chain[16];
                                kh_mx_kernels_chain(&mx, x, &y[h * p->bc], KH_MX_ANCHOR, mw, chain);
                                kh_acc_load16(chain, mw, t[h]);
                            }
                            continue;
                        }
                        /* one A against the row's B entries, each into its own tile */
                        for (unsigned h = 0; h < p->gn; h++) {
                            ys[h] = &y[h * p->bc];
                            ts[h] = t[h];
                        }
                        kh_mx_kernels_accumulate_strip(&mx, x, ys, p->gn, KH_MX_ANCHOR, mw, ts);
                    }
            for (unsigned g = 0; g < p->gm; g++)
                for (unsigned h = 0; h < p->gn; h++)
                    for (unsigned l = 0; l < 16; l++) {
                        unsigned row = 4 * (ti * p->gm + g) + l / 4, col = 4 * (tj * p->gn + h) + l % 4;
                        if (row < p->m && col < p->n)
                            c[(size_t)row * p->n + col] = kh_acc_to_f16(tile[g * p->gn + h][l], mw);
                    }
        }
    free(ea);
    free(eb);
    free(tile);
    free(ys);
    free(ts);
    return 0;
}
