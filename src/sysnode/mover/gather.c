#include "sysnode/mover/gather.h"

#include "kohaku/addr.h"


unsigned kh_gather_load_words(unsigned idx_count)
{
    unsigned n = (idx_count + 7) / 8;
    return n ? n : 1;
}

/* Index r (wrapping modulo 2048): word r >> 3, lane r & 7 (32-bit, LE). */
static uint32_t kh_gather_index(const kh_gather_buf *b, uint64_t r)
{
    r %= KH_GATHER_MAX_IDX; /* rows >= 2048 wrap (memory.md §11.5) */
    uint64_t word = b->w[r >> 3][(r & 7) >> 1];
    return (uint32_t)(word >> (32 * (r & 1)));
}

uint64_t kh_gather_addr(const kh_gather_buf *b, uint64_t src_base, uint32_t pitch,
                        unsigned gwords, uint64_t e)
{
    uint64_t g = gwords ? gwords : 65536;
    uint64_t r = e / g, j = e % g;
    uint32_t rowoff = kh_gather_index(b, r) * pitch; /* mod 2^32, zero-extended */
    return kh_addr_wrap(src_base + rowoff + 32 * j);
}
