/* GATHER addressing (memory.md §11.5): the 2048-entry index buffer and the
 * source address of destination element e. */
#ifndef KH_SYSNODE_GATHER_H
#define KH_SYSNODE_GATHER_H

#include <stdint.h>

#define KH_GATHER_IDX_WORDS 256  /* index buffer: 256 words = 2048 indices (memory.md §11.5) */
#define KH_GATHER_MAX_IDX 2048   /* idx_count above this is fault 1 (memory.md §11.4) */

typedef struct kh_gather_buf {
    uint64_t w[KH_GATHER_IDX_WORDS][4]; /* persists across moves: stale rows stay */
} kh_gather_buf;

/* Words the index load reads: max(1, ceil(idx_count / 8)). */
unsigned kh_gather_load_words(unsigned idx_count);
/* Source address of destination element e: row e / G, word e % G, where G
 * = gwords (0 means 65536). (src_base + (index * pitch mod 2^32) + 32 j)
 * mod 2^40. */
uint64_t kh_gather_addr(const kh_gather_buf *b, uint64_t src_base, uint32_t pitch,
                        unsigned gwords, uint64_t e);

#endif
