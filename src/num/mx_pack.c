/* MX entry <-> four 256-bit words, A and B packing (numerics.md §2.2). */
#include "kohaku/bits.h"
#include "kohaku/num.h"

#define SLOTS 32u /* element slots per word */

/* Bit position of slot o: [255 - 7o : 249 - 7o] (slot 0 at the top). */
static unsigned slot_lo(unsigned o) { return 249u - 7u * o; }

/* Lane and k of slot o of word w: A packing o = 8 * lane + k % 8,
 * B packing o = 4 * (k % 8) + lane. */
static void slot_place(unsigned o, unsigned w, int b_packing, unsigned *lane, unsigned *k)
{
    if (b_packing) {
        *lane = o % 4;
        *k = 8 * w + o / 4;
    } else {
        *lane = o / 8;
        *k = 8 * w + o % 8;
    }
}

/* Scale byte of lane L at [31 - 8L : 24 - 8L]. */
static unsigned scale_lo(unsigned lane) { return 24u - 8u * lane; }

void kh_mx_unpack(const uint64_t words[16], int b_packing, kh_mx_entry *e)
{
    for (unsigned w = 0; w < 4; w++) {
        for (unsigned o = 0; o < SLOTS; o++) {
            unsigned lane, k;
            slot_place(o, w, b_packing, &lane, &k);
            unsigned v = (unsigned)kh_bits_get(words + 4 * w, slot_lo(o), 7);
            e->q[lane][k] = (int8_t)((int)v - (v & 0x40 ? 128 : 0)); /* 7-bit two's complement */
        }
    }
    for (unsigned lane = 0; lane < 4; lane++) e->scale[lane] = (uint8_t)kh_bits_get(words, scale_lo(lane), 8);
}

void kh_mx_pack(const kh_mx_entry *e, int b_packing, uint64_t words[16])
{
    for (unsigned w = 0; w < 4; w++) {
        uint64_t *word = words + 4 * w;
        for (unsigned o = 0; o < SLOTS; o++) {
            unsigned lane, k;
            slot_place(o, w, b_packing, &lane, &k);
            kh_bits_set(word, slot_lo(o), 7, (uint64_t)(uint8_t)e->q[lane][k] & 0x7F);
        }
        for (unsigned lane = 0; lane < 4; lane++) kh_bits_set(word, scale_lo(lane), 8, e->scale[lane]);
    }
}
