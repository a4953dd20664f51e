/* KohakuTPU matmul numerics (numerics.md §2-§7): the MXFP7 block format,
 * the quantiser (transform occupant 1), the exact integer block product, the
 * scale/anchor application, the accumulator float (FP22 at ACC_MW = 14)
 * and its drain conversion to FP16. Pure functions, bit-exact to the RTL;
 * no state, so any number of simulations may call them at once. */
#ifndef KOHAKU_NUM_H
#define KOHAKU_NUM_H

#include <stdint.h>

/* The widest x86 instruction set the dispatched paths (the block product,
 * the accumulate lanes, the quantiser, the unpacker, the FP16 drain, the
 * float GEMM reference, the vector ALU, the saxpy lanes) may use, besides
 * what the CPU has: the environment variable KOHAKU_SIMD = portable, avx2,
 * avx-vnni (AVX2 and AVX-VNNI) or avx512 (everything, the default), read
 * once when the program starts (docs/num.md). Every level computes the same
 * values; this only says which instructions do it. */
typedef enum kh_simd { KH_SIMD_PORTABLE, KH_SIMD_AVX2, KH_SIMD_AVXVNNI, KH_SIMD_AVX512 } kh_simd;
int kh_simd_allows(kh_simd level);
kh_simd kh_simd_ceiling(void);
const char *kh_simd_name(kh_simd level);
/* KOHAKU_SIMD's value if it names no level (then nothing is restricted), else NULL. */
const char *kh_simd_bad_value(void);

/* One MX entry (numerics.md §2.2): 4 lanes x 32 K of 7-bit two's-complement
 * elements (stored sign-extended in int8_t, -64..63) and 4 E5M3 scales. For A
 * a lane is a row; for B a lane is a column (a row of the stored [N][K]).
 * Lane-major so one lane is 32 contiguous bytes (the block product's operand). */
typedef struct kh_mx_entry {
    int8_t q[4][32];
    uint8_t scale[4];
} kh_mx_entry;

#define KH_MX_KBLOCK 32u       /* K elements sharing one scale (numerics §2.1) */
#define KH_MX_SBIAS 20u        /* E5M3 scale exponent bias (numerics §2.1) */
#define KH_MX_ANCHOR 40u       /* GEMM anchor that cancels both scale biases (numerics §5) */
#define KH_MX_ZERO_SCALE 0xA0u /* scale byte of an all-zero lane (numerics §3 step 4) */

/* Quantise one FP16 source entry (8 beats of 256 bits = in[0..31], beat b in
 * in[4b..4b+3], little-endian; FP16 element n = 32 * lane + k at bits
 * [16n+15:16n]) into one MXFP7 entry (4 words = out[0..15], word w in
 * out[4w..4w+3]); mode bit 0 selects the B packing, other bits are ignored
 * (numerics §3, memory.md §13). Inf and NaN are finite magnitudes of
 * exponent 31; subnormals are decoded, not flushed. */
void kh_quant_entry(const uint64_t in[32], unsigned mode, uint64_t out[16]);

/* Word <-> entry, A packing (b_packing = 0) or B packing (1), numerics §2.2.
 * Scales are taken from word 0 only; pack writes them into every word.
 * Bits of the words not covered by slots or scales ([31:0] carry the scales,
 * [255:32] the 32 slots) do not exist: every bit is defined. */
void kh_mx_unpack(const uint64_t words[16], int b_packing, kh_mx_entry *e);
void kh_mx_pack(const kh_mx_entry *e, int b_packing, uint64_t words[16]);

/* The 16 exact integer dot products of one K block (numerics §4):
 * c[i][j] = sum over k of a->q[i][k] * b->q[j][k]. Exact for every element in
 * -64..63 (|c| <= 131072). The hot loop of every GEMM: kh_mx_block picks the
 * fastest path this CPU runs (checked on every call from libgcc's CPU table
 * and a CPUID bit read once at load; hot loops use kh_mx_kernels below). Element
 * bytes outside -64..63 give an unspecified (but defined) result. */
void kh_mx_block(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);

/* The implementations behind kh_mx_block. Every path computes the same
 * integers; the fast ones exist only on x86-64 and run only where the CPU
 * has the instructions (the same binary runs on any x86-64). */
typedef enum kh_mx_path {
    KH_MX_PORTABLE,   /* plain C the compiler vectorises */
    KH_MX_AVX2,       /* vpmaddubsw / vpmaddwd */
    KH_MX_AVXVNNI,    /* vpdpbusd, VEX (AVX-VNNI) */
    KH_MX_AVX512VNNI, /* vpdpbusd, EVEX on 256-bit registers (AVX512-VNNI + VL) */
    KH_MX_NPATHS
} kh_mx_path;
typedef void (*kh_mx_block_fn)(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);
const char *kh_mx_path_name(kh_mx_path p);
/* The function of path p, or NULL if p is not built in or this CPU lacks it. */
kh_mx_block_fn kh_mx_path_fn(kh_mx_path p);
/* The path kh_mx_block uses here. A caller in a hot loop may keep
 * kh_mx_path_fn(kh_mx_path_best()) in its own state to skip the check. */
kh_mx_path kh_mx_path_best(void);
void kh_mx_block_portable(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);

/* Accumulator mantissa width: FP22 is MW 14 (the built default), FP24 16,
 * FP20 12 (numerics §6). Word: [MW+7] sign, [MW+6:MW] exponent (bias 63),
 * [MW-1:0] fraction. Functions taking mw clamp it to [MIN, MAX]. */
#define KH_ACC_MW_DEFAULT 14u
#define KH_ACC_MW_MIN 11u /* the FP16 drain rounds MW bits to 10 plus a guard */
#define KH_ACC_MW_MAX 24u
#define KH_ACC_BITS(mw) (8u + (mw)) /* word width: 1 + 7 + mw bits */

/* Scale application and normalisation to the accumulator format
 * (numerics §5): C times the two E5M3 scales, offset by anchor (the 8-bit
 * GEMM field, 40 for real programs; bits above 7 are ignored). The stored exponent wraps modulo 128
 * as the RTL's does for other anchors; C = 0 gives the all-zero word.
 * Exact for |c| <= 131072 (what one K block can produce). */
uint32_t kh_acc_from_product(int32_t c, uint8_t sa, uint8_t sb, unsigned anchor, unsigned mw);
/* add(a, b) exactly as the accumulate stage computes it (numerics §6.1);
 * a_zero / b_zero are the forced-zero flags. One zero operand returns the
 * other verbatim; the lost bits of the smaller operand only set the sticky;
 * results below the smallest exponent flush to +0, above it saturate. */
uint32_t kh_acc_add(uint32_t a, int a_zero, uint32_t b, int b_zero, unsigned mw);
/* The LOAD tile command on 16 lanes: out[l] = kh_acc_add(0, 1, chain[l], 0, mw)
 * (the chain verbatim, +0 where its exponent is 0), one call per block. By
 * the symmetry of §6.1 it is also the pass-through add(tile, forced zero). */
void kh_acc_load16(const uint32_t chain[16], unsigned mw, uint32_t out[16]);
/* Drain conversion to FP16 (numerics §7): flush below 2^-14, saturate to
 * +-65504, never Inf, never a subnormal. */
uint16_t kh_acc_to_f16(uint32_t v, unsigned mw);
/* The FP16 word of a sub-tile (numerics §7, cluster.md §6): lane e converted
 * by kh_acc_to_f16 at bits [16e+15:16e] of the 256-bit word. */
void kh_acc_to_f16_word(const uint32_t v[16], unsigned mw, uint64_t word[4]);
/* A unit's drained FP16 word (16 lanes, lane e at [16e+15:16e]) counted as
 * what a user would call suspicious: lanes at +-65504 (the drain's
 * saturation, numerics §7) added to *saturated, Inf or NaN lanes (which
 * the cluster's drain never makes; another path may) to *nonfinite. */
void kh_f16_word_extremes(const uint64_t word[4], uint64_t *saturated, uint64_t *nonfinite);

/* One K block through the whole accumulate pipeline (numerics §4-§6.2),
 * chain[4i+j] = kh_acc_from_product(c[i][j], a->scale[i], b->scale[j], ...)
 * and, for _accumulate, tile[4i+j] = kh_acc_add(tile[4i+j], 0, chain, 0)
 * (the ADD tile command). anchor is the 8-bit GEMM field (bits above 7 are
 * ignored here). Fastest path of this CPU. */
void kh_mx_block_chain(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t chain[16]);
void kh_mx_block_accumulate(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                            uint32_t tile[16]);
/* The same on a chosen path (the portable one if p is not available here):
 * its product instructions and, where the lanes are exact for mw (AVX-512:
 * MW <= 22, AVX2: MW <= 14), the 16 lanes' scale and add in vector registers.
 * Every path gives the same words. */
void kh_mx_block_chain_on(kh_mx_path p, const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                          uint32_t chain[16]);
void kh_mx_block_accumulate_on(kh_mx_path p, const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor,
                               unsigned mw, uint32_t tile[16]);

/* A path's functions resolved once. The calls above test the CPU on every
 * block (several __builtin_cpu_supports, and CPUID for AVX-VNNI); a GEMM
 * loop resolves them at setup with kh_mx_kernels_get and calls these. */
typedef void (*kh_mx_lanes_fn)(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                               uint32_t out[16]);
typedef void (*kh_mx_strip_fn)(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n, unsigned anchor,
                               unsigned mw, uint32_t *const *tile);
typedef struct kh_mx_kernels {
    kh_mx_path path;         /* the path resolved (portable if the one asked for is absent) */
    kh_mx_block_fn block;
    kh_mx_lanes_fn chain;    /* fused product + scale, NULL: product then scalar lanes */
    kh_mx_lanes_fn accum;    /* fused product + scale + add, NULL likewise */
    unsigned lanes_mw_max;   /* widest MW the fused lanes are exact for */
    kh_mx_strip_fn strip;    /* accum for one A against n B into n tiles, NULL: n accum calls */
} kh_mx_kernels;
void kh_mx_kernels_get(kh_mx_path p, kh_mx_kernels *k);
void kh_mx_kernels_chain(const kh_mx_kernels *k, const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor,
                         unsigned mw, uint32_t chain[16]);
void kh_mx_kernels_accumulate(const kh_mx_kernels *k, const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor,
                              unsigned mw, uint32_t tile[16]);
/* kh_mx_kernels_accumulate of (a, b0) into tile0, then of (a, b1) into
 * tile1, bit for bit: kh_mx_kernels_accumulate_strip of the two. */
void kh_mx_kernels_accumulate2(const kh_mx_kernels *k, const kh_mx_entry *a, const kh_mx_entry *b0,
                               const kh_mx_entry *b1, unsigned anchor, unsigned mw, uint32_t tile0[16],
                               uint32_t tile1[16]);
/* kh_mx_kernels_accumulate of (a, b[h]) into tile[h] for h = 0, 1, .. n - 1
 * in that order, bit for bit (a tile named twice gets both adds, the second
 * onto the first). One A against a strip of B: A's share of the work is
 * done once for the strip. */
void kh_mx_kernels_accumulate_strip(const kh_mx_kernels *k, const kh_mx_entry *a, const kh_mx_entry *const *b,
                                    unsigned n, unsigned anchor, unsigned mw, uint32_t *const *tile);

#endif
