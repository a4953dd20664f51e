/* MX entry <-> four 256-bit words, A and B packing (numerics.md §2.2). The
 * word's layout is isa/num.isa's mx_word: positions come from it, and the
 * asserts hold the code's stride to the table. */
#include "kohaku/bits.h"
#include "kohaku/gen/num.h"
#include "kohaku/num.h"

#define SLOTS 32u /* element slots per word */

_Static_assert(KH_MX_WORD_S0_WIDTH == 7 && KH_MX_WORD_S1_LO == KH_MX_WORD_S0_LO - 7 &&
                   KH_MX_WORD_S31_LO == KH_MX_WORD_S0_LO - 7 * 31,
               "mx_word slots: 7 bits each, slot 0 at the top (isa/num.isa)");
_Static_assert(KH_MX_WORD_SCALE0_WIDTH == 8 && KH_MX_WORD_SCALE1_LO == KH_MX_WORD_SCALE0_LO - 8 &&
                   KH_MX_WORD_SCALE3_LO == KH_MX_WORD_SCALE0_LO - 24,
               "mx_word scales: a byte per lane, lane 0 highest (isa/num.isa)");

/* Bit position of slot o (slot 0 at the top). */
static unsigned slot_lo(unsigned o) { return KH_MX_WORD_S0_LO - KH_MX_WORD_S0_WIDTH * o; }

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

/* Scale byte of lane L (lane 0 highest). */
static unsigned scale_lo(unsigned lane) { return KH_MX_WORD_SCALE0_LO - KH_MX_WORD_SCALE0_WIDTH * lane; }

void kh_mx_unpack(const uint64_t words[16], int b_packing, kh_mx_entry *e)
{
    for (unsigned w = 0; w < 4; w++) {
        for (unsigned o = 0; o < SLOTS; o++) {
            unsigned lane, k;
            slot_place(o, w, b_packing, &lane, &k);
            unsigned v = (unsigned)kh_bits_get(words + 4 * w, slot_lo(o), KH_MX_WORD_S0_WIDTH);
            e->q[lane][k] = (int8_t)((int)v - (v & 0x40 ? 128 : 0)); /* 7-bit two's complement */
        }
    }
    for (unsigned lane = 0; lane < 4; lane++) e->scale[lane] = (uint8_t)kh_bits_get(words, scale_lo(lane), KH_MX_WORD_SCALE0_WIDTH);
}

void kh_mx_pack(const kh_mx_entry *e, int b_packing, uint64_t words[16])
{
    for (unsigned w = 0; w < 4; w++) {
        uint64_t *word = words + 4 * w;
        for (unsigned o = 0; o < SLOTS; o++) {
            unsigned lane, k;
            slot_place(o, w, b_packing, &lane, &k);
            kh_bits_set(word, slot_lo(o), KH_MX_WORD_S0_WIDTH, (uint64_t)(uint8_t)e->q[lane][k] & 0x7F);
        }
        for (unsigned lane = 0; lane < 4; lane++) kh_bits_set(word, scale_lo(lane), KH_MX_WORD_SCALE0_WIDTH, e->scale[lane]);
    }
}
