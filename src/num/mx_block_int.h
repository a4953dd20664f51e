/* Private to src/num: the x86-64 paths of the block product (mx_block_x86.c)
 * and of the fused per-block pipeline (acc_x86.c). */
#ifndef KOHAKU_NUM_MX_BLOCK_INT_H
#define KOHAKU_NUM_MX_BLOCK_INT_H

#include "kohaku/num.h"

/* kh_mx_lanes_fn (num.h): one block through the pipeline, product then the
 * 16 lanes' scale application (chain) or scale and add into a tile (accum). */

/* kh_mx_unpack without the VBMI shuffles, whatever the CPU (tests compare). */
void kh_mx_unpack_portable(const uint64_t words[16], int b_packing, kh_mx_entry *e);
/* kh_quant_entry without the AVX-512 lanes, whatever the CPU (tests compare). */
void kh_quant_entry_portable(const uint64_t in[32], unsigned mode, uint64_t out[16]);
/* kh_quant_entry with the AVX2 lanes (what a CPU without AVX-512 runs); 0,
 * and nothing written, where the CPU lacks AVX2 or KOHAKU_SIMD forbids it. */
int kh_quant_entry_avx2(const uint64_t in[32], unsigned mode, uint64_t out[16]);

/* Defined when the compiler can build the x86-64 paths (GCC or Clang);
 * -DKH_NUM_PORTABLE_ONLY builds what a non-x86 machine gets. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(KH_NUM_PORTABLE_ONLY)
#define KH_MX_HAVE_X86 1
/* Widest MW the vector lanes hold exactly: AVX-512 (vplzcntd) 22, AVX2
 * (leading one through an exact int -> float conversion) 14. */
#define KH_ACC_LANES_MW_MAX_AVX512 22u
#define KH_ACC_LANES_MW_MAX_AVX2 14u
void kh_mx_block_avx2(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);
void kh_mx_chain_avx2(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t chain[16]);
void kh_mx_accum_avx2(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t tile[16]);
void kh_mx_strip_avx2(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n, unsigned anchor, unsigned mw,
                      uint32_t *const *tile);
void kh_mx_block_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);
void kh_mx_chain_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                            uint32_t chain[16]);
void kh_mx_accum_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                            uint32_t tile[16]);
void kh_mx_strip_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n, unsigned anchor,
                            unsigned mw, uint32_t *const *tile);
/* kh_acc_to_f16_word for FP22 on 16 lanes with AVX-512; 0 if the CPU lacks it. */
int kh_acc_to_f16_word_fp22_avx512(const uint32_t v[16], uint64_t word[4]);
/* The same with AVX2 (8 lanes twice); 0 if the CPU lacks it or KOHAKU_SIMD forbids it. */
int kh_acc_to_f16_word_fp22_avx2(const uint32_t v[16], uint64_t word[4]);
#if defined(__clang__) ? __clang_major__ >= 12 : __GNUC__ >= 11
#define KH_MX_HAVE_AVXVNNI 1 /* the compiler knows the VEX form of vpdpbusd */
void kh_mx_block_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);
void kh_mx_chain_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t chain[16]);
void kh_mx_accum_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t tile[16]);
void kh_mx_strip_avxvnni(const kh_mx_entry *a, const kh_mx_entry *const *b, unsigned n, unsigned anchor, unsigned mw,
                         uint32_t *const *tile);
#endif
#endif

#endif
