/* MX entry <-> four 256-bit words, A and B packing (numerics.md §2.2). The
 * word is the table mxfp7_word of isa/mxfp7.isa; its 32 slot accessors are
 * spelled out once below (through SLOTS) so every position is a constant:
 * no per-field position arithmetic on the GEMM's hot path. */
#include <string.h>

#include "kohaku/gen/mxfp7.h"
#include "kohaku/num.h"

#define SLOTS(X)                                                                                                    \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) \
        X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)

/* 7-bit two's complement: flip the sign bit and subtract its weight (two
 * instructions; the generated signed getter branches). */
static int8_t sext7(uint64_t v) { return (int8_t)((int)(v ^ 0x40) - 0x40); }

/* The 32 slots of one word, slot order. */
static void word_slots(const uint64_t *word, int8_t s[32])
{
#define GET(o) s[o] = sext7(kh_mxfp7_word_s##o(word));
    SLOTS(GET)
#undef GET
}

static void word_set_slots(uint64_t *word, const int8_t s[32])
{
#define SET(o) kh_mxfp7_word_set_s##o(word, (uint8_t)s[o]);
    SLOTS(SET)
#undef SET
}

/* Slot o of word w holds lane o / 8, k = 8w + o % 8 (A packing), or lane
 * o % 4, k = 8w + o / 4 (B packing). */
void kh_mx_unpack(const uint64_t words[16], int b_packing, kh_mx_entry *e)
{
    for (unsigned w = 0; w < 4; w++) {
        int8_t s[32];
        word_slots(words + 4 * w, s);
        if (b_packing)
            for (unsigned o = 0; o < 32; o++) e->q[o % 4][8 * w + o / 4] = s[o];
        else
            for (unsigned lane = 0; lane < 4; lane++) memcpy(&e->q[lane][8 * w], s + 8 * lane, 8);
    }
    e->scale[0] = (uint8_t)kh_mxfp7_word_scale0(words);
    e->scale[1] = (uint8_t)kh_mxfp7_word_scale1(words);
    e->scale[2] = (uint8_t)kh_mxfp7_word_scale2(words);
    e->scale[3] = (uint8_t)kh_mxfp7_word_scale3(words);
}

void kh_mx_pack(const kh_mx_entry *e, int b_packing, uint64_t words[16])
{
    for (unsigned w = 0; w < 4; w++) {
        uint64_t *word = words + 4 * w;
        int8_t s[32];
        if (b_packing)
            for (unsigned o = 0; o < 32; o++) s[o] = e->q[o % 4][8 * w + o / 4];
        else
            for (unsigned lane = 0; lane < 4; lane++) memcpy(s + 8 * lane, &e->q[lane][8 * w], 8);
        word_set_slots(word, s);
        kh_mxfp7_word_set_scale0(word, e->scale[0]);
        kh_mxfp7_word_set_scale1(word, e->scale[1]);
        kh_mxfp7_word_set_scale2(word, e->scale[2]);
        kh_mxfp7_word_set_scale3(word, e->scale[3]);
    }
}
