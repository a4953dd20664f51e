/* A host driver for KohakuTPU GEMMs on a whole machine (cluster.md §9):
 * FP16 operands uploaded row-major, quantised to MXFP7 images by memory-mover
 * XFORM moves (§9.2), a tiled FILL / GEMM / DRAIN program per matmul cluster
 * dispatched through the orchestrator by the control-program engine (§9.3,
 * control.md §4), the result image read back and unpacked (§9.4). Plus the
 * host-side references a caller checks it against.
 *
 * The contract is upstream's: C = A · Btᵀ with A [M][K] and Bt [N][K] (B
 * stored transposed), FP16 in, FP16 out. M, N, K are padded with zeros up to
 * whole tiles and chunks. */
#ifndef KOHAKU_GEMM_H
#define KOHAKU_GEMM_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/machine.h"

/* The tiling of one GEMM and where its images live (fabric addresses of
 * mesh 0: DRAM offsets, or the staging aperture when `staged`; on a machine
 * of several meshes each mesh that computes tiles keeps its own copy at the
 * same offsets, its id in address bits [37:36], docs/machine.md). */
typedef struct kh_gemm_plan {
    unsigned m, n, k;      /* the problem */
    unsigned gm, gn, bc;   /* row groups, column groups, K blocks per chunk (§9.1) */
    unsigned gi, gj, ch;   /* output tiles down, across; chunks along K */
    unsigned mp, np, kp;   /* padded sizes: 4·gm·gi, 4·gn·gj, 32·bc·ch */
    uint64_t a_src, b_src; /* FP16 row-major [mp][kp] and [np][kp] (recipe 2) or tiled (recipe 1), DRAM */
    uint64_t a_img, b_img; /* MXFP7 images, 128 bytes per entry, tile-major (§9.1) */
    uint64_t c_img;        /* result image, 32 bytes per sub-tile, instance-blocked (§9.4), DRAM */
    int staged;            /* a_img and b_img are in the staging store (memory.md §8) */
} kh_gemm_plan;

#define KH_GEMM_MAX_CLUSTERS (KH_MACHINE_MAX_MESHES * 256u) /* every position of every mesh */

/* What the plan is made for. */
typedef struct kh_gemm_target {
    unsigned tiles;          /* TILES of the clusters (cluster_tiles) */
    unsigned clusters;       /* how many clusters share the tiles (0 = 1) */
    uint8_t port[KH_GEMM_MAX_CLUSTERS]; /* memory port of each cluster, in the driver's order
                                         * (mesh * 16 + the port's index in its mesh) */
    uint64_t staging_bytes;  /* staging store size, 0 = none: images go to DRAM */
    unsigned gm, gn, bc;     /* force a tiling; 0 = chosen */
} kh_gemm_target;

/* Choose the tiling that fetches the fewest operand entries through the
 * busiest memory port: tiles go to the clusters in contiguous runs (so a
 * cluster's consecutive tiles share their rows of A, which stay in L1 when a
 * tile has at most two chunks), gm·gn <= TILES, each FILL inside one
 * 256-entry bank (gm·bc, gn·bc <= 255), little K padding. Operand images go
 * to the staging store when both fit (its reads are faster than DRAM's).
 * Refuses sizes of 0 and shapes whose counts do not fit the instruction and
 * mover fields. 0 ok, -1 with a message. */
int kh_gemm_plan_make(kh_gemm_plan *p, unsigned m, unsigned n, unsigned k, const kh_gemm_target *t, char *err,
                      size_t errlen);
/* The target of a machine: its clusters, their TILES, its staging store. */
void kh_gemm_target_of(kh_machine *mc, kh_gemm_target *t);
/* Which cluster (in the driver's order) computes output tile t = ti·gj + tj,
 * and whether that tile finds its A entries already in L1 (the cluster's
 * previous tile had the same ti and at most two chunks). */
unsigned kh_gemm_tile_owner(const kh_gemm_plan *p, unsigned clusters, unsigned t);
int kh_gemm_tile_reuses_a(const kh_gemm_plan *p, unsigned clusters, unsigned t);

/* Quantisation recipes of cluster.md §9.2: 2 walks the row-major FP16 matrix
 * with a six-dimensional source walker; 1 converts a host-packed tile-major
 * FP16 image (kh_gemm_pack_fp16_tiled) entry after entry. */
#define KH_GEMM_RECIPE_TILED 1
#define KH_GEMM_RECIPE_ROWMAJOR 2

typedef struct kh_gemm_stats {
    kh_cycle quant_cycles;  /* both XFORM moves */
    kh_cycle gemm_cycles;   /* first dispatch kick to the last completion */
    unsigned clusters;      /* matmul clusters used */
    unsigned rounds;        /* staging rounds (each cluster gets one part of its program per round) */
    unsigned programs;      /* control programs run (a round needs one per NCMD-sized group of clusters) */
    uint64_t instructions;  /* cluster instructions dispatched */
    uint64_t macs;          /* padded M·N·K, what the clusters executed */
} kh_gemm_stats;

/* The steps, each between cycles through the host card; errors name what
 * failed (a mover fault, a unit fault with its exec_result, a hang with the
 * machine's diagnosis). */
int kh_gemm_upload(kh_machine *mc, const kh_gemm_plan *p, int recipe, const uint16_t *a, const uint16_t *bt,
                   char *err, size_t errlen);
int kh_gemm_quantise(kh_machine *mc, const kh_gemm_plan *p, int recipe, kh_gemm_stats *st, char *err,
                     size_t errlen);
/* How the host waits for the quantising movers: KH_GEMM_WAIT_POLL (what
 * kh_gemm_quantise does) reads each mover's AUX_STAT every 16 cycles;
 * KH_GEMM_WAIT_QUIET starts every move, runs the machine until nothing is
 * pending anywhere, then polls each status once (one 16-cycle step and a
 * read). QUIET ends the phase at
 * another cycle (no poll grid), so its cycle counts are its own; under MPI
 * it costs a few agreements where POLL costs one a poll (docs/mpi.md). */
enum { KH_GEMM_WAIT_POLL = 0, KH_GEMM_WAIT_QUIET = 1 };
int kh_gemm_quantise_wait(kh_machine *mc, const kh_gemm_plan *p, int recipe, int wait, kh_gemm_stats *st,
                          char *err, size_t errlen);
int kh_gemm_execute(kh_machine *mc, const kh_gemm_plan *p, kh_gemm_stats *st, char *err, size_t errlen);
/* The same, calling pause(ctx, mc) between the engine's runs while a
 * control program is in flight (the machine mid-GEMM, between cycles: a
 * checkpoint may be taken there, docs/checkpoint.md); a nonzero return
 * stops the GEMM with an error. */
typedef int (*kh_gemm_pause_fn)(void *ctx, kh_machine *mc);
int kh_gemm_execute_paused(kh_machine *mc, const kh_gemm_plan *p, kh_gemm_stats *st, kh_gemm_pause_fn pause,
                           void *ctx, char *err, size_t errlen);
int kh_gemm_read_c(kh_machine *mc, const kh_gemm_plan *p, uint16_t *c, char *err, size_t errlen);
/* All four: a [m][k], bt [n][k] in, c [m][n] out (row-major FP16 bits). */
int kh_gemm_machine(kh_machine *mc, const kh_gemm_plan *p, int recipe, const uint16_t *a, const uint16_t *bt,
                    uint16_t *c, kh_gemm_stats *st, char *err, size_t errlen);

/* ---- host side ---- */

/* FP16 tile-major source image of one operand (cluster.md §9.1): entry E
 * occupies 256 bytes (8 words, word 2L + half = lane L, 16 K elements).
 * x is [rows][k] row-major (unpadded); lanes = mp (A) or np (B); out holds
 * lanes·kp halves. groups = gm (A) or gn (B). */
void kh_gemm_pack_fp16_tiled(const kh_gemm_plan *p, const uint16_t *x, unsigned rows, unsigned groups,
                             unsigned tiles_count, uint16_t *out);
/* The exact result the machine must produce: the quantiser (numerics §3),
 * then each tile's sweeps in program order (numerics §4-§7). c [m][n]. */
int kh_gemm_reference_mx(const kh_gemm_plan *p, const uint16_t *a, const uint16_t *bt, uint16_t *c);
/* c[i][j] = sum_k a[i][k]·bt[j][k] in double, from the FP16 inputs, summed
 * in k order with every product and sum rounded (no fused multiply-add). */
void kh_gemm_reference_float(unsigned m, unsigned n, unsigned k, const uint16_t *a, const uint16_t *bt,
                             double *c);
double kh_gemm_f16_to_double(uint16_t h);

#endif
