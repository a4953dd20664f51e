#include "sysnode/mover/fillword.h"

void kh_mover_fill_word(uint32_t imm, unsigned ewidth, uint64_t out[4])
{
    uint64_t lane;
    switch (ewidth) {
    case 0: lane = (imm & 0xFFu) * UINT64_C(0x0101010101010101); break;
    case 1: lane = (imm & 0xFFFFu) * UINT64_C(0x0001000100010001); break;
    default: lane = (uint64_t)imm * UINT64_C(0x0000000100000001); break;
    }
    for (int i = 0; i < 4; i++) out[i] = lane;
}
