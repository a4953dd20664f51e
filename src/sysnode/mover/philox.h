/* The mover's counter-based generator (memory.md §11.7): Philox4x32-10,
 * Random123-compatible, and the GENERATE word built from it. */
#ifndef KH_SYSNODE_PHILOX_H
#define KH_SYSNODE_PHILOX_H

#include <stdint.h>

/* ctr[0] is c0 (the lowest 32 bits of the 128-bit counter); key[0] is k0.
 * Returns the four output words in out[0..3] (c0..c3). */
void kh_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* gen_word(A): the 256-bit GENERATE word for 32-byte-aligned destination
 * address A (40-bit) under `seed`, little-endian words (out[0] = bits 63:0). */
void kh_mover_gen_word(uint64_t addr, uint64_t seed, uint64_t out[4]);

#endif
