/* The Bernoulli source's arrival gap (traffic.c): the draws of splitmix64
 * one per cycle until one falls below the threshold. The portable search
 * is traffic.c's; traffic_x86.c tries 8 or 32 cycles' draws at once. */
#ifndef KOHAKU_NOC_TRAFFIC_GAP_H
#define KOHAKU_NOC_TRAFFIC_GAP_H

#include <stdint.h>

/* splitmix64's increment and multipliers: one draw adds GAMMA to the state */
#define KH_SPLITMIX_GAMMA UINT64_C(0x9e3779b97f4a7c15)
#define KH_SPLITMIX_M1 UINT64_C(0xbf58476d1ce4e5b9)
#define KH_SPLITMIX_M2 UINT64_C(0x94d049bb133111eb)

/* x86-64 under GCC or Clang: the AVX-512 search exists (chosen at run time,
 * docs/num.md "KOHAKU_SIMD"); -DKH_NUM_PORTABLE_ONLY builds without it. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(KH_NUM_PORTABLE_ONLY)
#define KH_TRAFFIC_HAVE_X86 1
/* The CPU has AVX-512 F and DQ (64-bit lane products) and KOHAKU_SIMD allows it. */
int kh_traffic_gap_avx512_ok(void);
/* The gap from state *s for threshold thr > 0: the first k >= 1 whose draw
 * (the state after k increments, mixed) is below thr; *s left after that
 * draw. The same k and *s as the one-draw-a-cycle loop, searched 8 or 32
 * draws a pass (32 pays below a rate of about 0.2, 8 above). */
uint64_t kh_traffic_gap8_avx512(uint64_t *s, uint64_t thr);
uint64_t kh_traffic_gap32_avx512(uint64_t *s, uint64_t thr);
/* Rates below this threshold (0.2 of 2^64) search 32 draws a pass */
#define KH_TRAFFIC_GAP32_BELOW UINT64_C(0x3333333333333333)
#endif

#endif
