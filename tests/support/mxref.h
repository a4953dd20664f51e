/* A slow, independent reading of numerics.md §2, §4-§7 and cluster.md §4.3,
 * §5.1, §6.1 (accumulator mantissa 14 only), written from the spec text for
 * the cluster tests. It shares no code with src/num or the unit: bits are
 * taken one at a time, every step is spelled out as the digest words it. */
#ifndef KH_TEST_MXREF_H
#define KH_TEST_MXREF_H

#include <stdint.h>

typedef struct mxref_entry {
    int q[4][32];     /* lane, k: -64..63 */
    unsigned sc[4];   /* E5M3 scale bytes */
} mxref_entry;

/* numerics §2.2: four 256-bit words (w[4w'..4w'+3], little-endian) <-> an
 * entry, A packing (b = 0) or B packing (b = 1); scales from word 0. */
void mxref_unpack(const uint64_t words[16], int b, mxref_entry *e);
void mxref_pack(const mxref_entry *e, int b, uint64_t words[16]);

/* numerics §4 + §5: the chain float of one integer product. */
uint32_t mxref_chain(long c, unsigned sa, unsigned sb, unsigned anchor);
/* numerics §6.1: add with forced-zero flags. */
uint32_t mxref_add(uint32_t a, int az, uint32_t b, int bz);
/* numerics §7: FP22 -> FP16. */
uint16_t mxref_f16(uint32_t v);

/* One GEMM in the sequential form of cluster.md §5.1 over the given L1
 * sides (ga / gb entries, powers of two) and tile (tiles x 16). If emit is
 * non-NULL it receives the FP16 words of the emitted sub-tiles, 16 halves
 * each, at index g·gn' + h; returns how many were emitted. */
typedef struct mxref_gemm {
    unsigned gm, gn, nk, acc, anchor, aoff, boff, abank, bbank, emit;
} mxref_gemm;
unsigned mxref_sweep(const mxref_gemm *g, const mxref_entry *l1a, unsigned ga, const mxref_entry *l1b,
                     unsigned gb, uint32_t (*tile)[16], unsigned tiles, uint16_t (*emit)[16]);

/* cluster.md §6.1 EMIT of one sub-tile: FP16 of the pass-through value. */
void mxref_drain(const uint32_t v[16], uint16_t out[16]);

#endif
