/* Private to src/num: the x86-64 paths of the block product (mx_block_x86.c). */
#ifndef KOHAKU_NUM_MX_BLOCK_INT_H
#define KOHAKU_NUM_MX_BLOCK_INT_H

#include "kohaku/num.h"

/* Defined when the compiler can build the x86-64 paths (GCC or Clang). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define KH_MX_HAVE_X86 1
void kh_mx_block_avx2(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);
void kh_mx_block_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);
#if defined(__clang__) ? __clang_major__ >= 12 : __GNUC__ >= 11
#define KH_MX_HAVE_AVXVNNI 1 /* the compiler knows the VEX form of vpdpbusd */
void kh_mx_block_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4]);
#endif
#endif

#endif
