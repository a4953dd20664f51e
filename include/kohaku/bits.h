/* Bit fields of little-endian word arrays.
 *
 * Every layout in kohaku (a 288-bit flit, a 256-bit payload, a 64-bit
 * register, a 32-bit vector-core word) is stored as an array of uint64_t,
 * least significant word first: bit i of the layout is bit (i % 64) of
 * word i / 64. These two helpers are the only place that shifts and masks a
 * field; the accessors generated from isa/ *.isa call them with constants,
 * which the compiler folds. Hand-written protocol shifts elsewhere are a bug
 * (docs/design.md, "one encoding, one description"). */
#ifndef KOHAKU_BITS_H
#define KOHAKU_BITS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Bits [lo + width - 1 : lo] of w, 1 <= width <= 64. */
static inline uint64_t kh_bits_get(const uint64_t *w, unsigned lo, unsigned width)
{
    unsigned word = lo >> 6, off = lo & 63;
    uint64_t v = w[word] >> off;
    if (off + width > 64) v |= w[word + 1] << (64 - off);
    return width == 64 ? v : v & ((UINT64_C(1) << width) - 1);
}

/* Store the low `width` bits of v at [lo + width - 1 : lo]; other bits keep. */
static inline void kh_bits_set(uint64_t *w, unsigned lo, unsigned width, uint64_t v)
{
    unsigned word = lo >> 6, off = lo & 63;
    uint64_t mask = width == 64 ? ~UINT64_C(0) : ((UINT64_C(1) << width) - 1);
    v &= mask;
    w[word] = (w[word] & ~(mask << off)) | (v << off);
    if (off + width > 64) {
        unsigned hi = off + width - 64; /* bits that spill into the next word */
        uint64_t hmask = (UINT64_C(1) << hi) - 1;
        w[word + 1] = (w[word + 1] & ~hmask) | ((v >> (64 - off)) & hmask);
    }
}

/* Memory images: nwords words as 8 * nwords bytes in memory order, byte j =
 * bits [8j+7:8j] (little-endian, as a 32-byte beat lands in memory). */
static inline void kh_words_to_bytes(const uint64_t *w, size_t nwords, uint8_t *out)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the host's own order is the image's: one copy (a burst at a time);
     * none for no words, where either pointer may be NULL */
    if (nwords) memcpy(out, w, 8 * nwords);
#else
    /* spelt out per byte: compilers merge the eight stores into one where
     * they can */
    for (size_t k = 0; k < nwords; k++, out += 8) {
        uint64_t v = w[k];
        out[0] = (uint8_t)v, out[1] = (uint8_t)(v >> 8), out[2] = (uint8_t)(v >> 16), out[3] = (uint8_t)(v >> 24);
        out[4] = (uint8_t)(v >> 32), out[5] = (uint8_t)(v >> 40), out[6] = (uint8_t)(v >> 48), out[7] = (uint8_t)(v >> 56);
    }
#endif
}
static inline void kh_words_from_bytes(uint64_t *w, size_t nwords, const uint8_t *in)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (nwords) memcpy(w, in, 8 * nwords);
#else
    /* likewise one load per word */
    for (size_t k = 0; k < nwords; k++, in += 8)
        w[k] = (uint64_t)in[0] | (uint64_t)in[1] << 8 | (uint64_t)in[2] << 16 | (uint64_t)in[3] << 24 |
               (uint64_t)in[4] << 32 | (uint64_t)in[5] << 40 | (uint64_t)in[6] << 48 | (uint64_t)in[7] << 56;
#endif
}

#endif
