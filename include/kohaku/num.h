/* KohakuTPU matmul numerics (numerics.md §2-§7): the MXFP7 block format,
 * the quantiser (transform occupant 1), the exact integer block product, the
 * scale/anchor application, the accumulator float (FP22 at ACC_MW = 14)
 * and its drain conversion to FP16. Pure functions, bit-exact to the RTL. */
#ifndef KOHAKU_NUM_H
#define KOHAKU_NUM_H

#include <stdint.h>

/* One MX entry (numerics.md §2.2): 4 lanes x 32 K of 7-bit two's-complement
 * elements (stored sign-extended in int8_t, -64..63) and 4 E5M3 scales. For A
 * a lane is a row; for B a lane is a column (a row of the stored [N][K]). */
typedef struct kh_mx_entry {
    int8_t q[4][32];
    uint8_t scale[4];
} kh_mx_entry;

/* Quantise one FP16 source entry (8 beats of 256 bits = in[0..31], beat b in
 * in[4b..4b+3], little-endian) into one MXFP7 entry (4 words = out[0..15],
 * word w in out[4w..4w+3]); mode bit 0 selects the B packing (numerics §3). */
void kh_quant_entry(const uint64_t in[32], unsigned mode, uint64_t out[16]);

/* Word <-> entry, A packing (b_packing = 0) or B packing (1), numerics §2.2.
 * Scales are taken from word 0 only; pack writes them into every word. */
void kh_mx_unpack(const uint64_t words[16], int b_packing, kh_mx_entry *e);
void kh_mx_pack(const kh_mx_entry *e, int b_packing, uint64_t words[16]);

/* The 16 exact integer dot products of one K block (numerics §4):
 * c[i][j] = sum over k of a->q[i][k] * b->q[j][k]. The hot loop of every
 * GEMM: vectorised, with the fastest path picked at run time. */
void kh_mx_block(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);

/* Accumulator word width for a mantissa width mw: 1 + 7 + mw bits. */
#define KH_ACC_BITS(mw) (8u + (mw))

/* Scale application and normalisation to the accumulator format
 * (numerics §5): C times the two E5M3 scales, offset by anchor. */
uint32_t kh_acc_from_product(int32_t c, uint8_t sa, uint8_t sb, unsigned anchor, unsigned mw);
/* add(a, b) exactly as the accumulate stage computes it (numerics §6.1);
 * a_zero / b_zero are the forced-zero flags. */
uint32_t kh_acc_add(uint32_t a, int a_zero, uint32_t b, int b_zero, unsigned mw);
/* Drain conversion to FP16 (numerics §7): flush below 2^-14, saturate. */
uint16_t kh_acc_to_f16(uint32_t v, unsigned mw);

#endif
