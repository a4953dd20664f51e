/* fill_word of memory.md §11.3: the FILL value and the padding value. */
#ifndef KH_SYSNODE_FILLWORD_H
#define KH_SYSNODE_FILLWORD_H

#include <stdint.h>

/* ewidth 0: imm[7:0] in all 32 bytes; 1: imm[15:0] in all 16 halfwords;
 * 2: imm[31:0] in all 8 words (lane i at bits [w*i+w-1 : w*i]). ewidth 3 is
 * refused at GO (fault 5) and never reaches here; it is treated as 2. */
void kh_mover_fill_word(uint32_t imm, unsigned ewidth, uint64_t out[4]);

#endif
