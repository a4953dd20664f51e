/* The node processor loads and starts a program on an RV64 mesh unit
 * (docs/rv64.md §9, §11) with nothing but its mailbox: typed flits
 * (DST[24] set, type CU_DATA) carry a word-form burst of four instructions
 * into the unit's instruction memory, a CU_INST with opcode 1 boots it, and
 * the unit's completion comes back to the processor's completion queue.
 * The mailbox sends every flit with last = 1, so the completion is
 * BATCH_COMPLETE carrying the kick's transaction number (the unit's exit
 * word does not travel; upstream's own caveat). Exit 0, or which check
 * failed. */
#include "kohaku_rv64.h"

#define PE_X 1ul
#define PE_Y 0ul
#define T_CU_DATA 0x8ul
#define SIG_BATCH_COMPLETE 0x01ul

/* one flit through the mailbox; the next GO waits until this one is taken */
static void send(u64 typed, u64 type, u64 a0, u64 a3)
{
    *MB_DST = typed << 24 | type << 20 | PE_Y << 8 | PE_X;
    *MB_ARG(0) = a0;
    *MB_ARG(1) = 0;
    *MB_ARG(2) = 0;
    *MB_ARG(3) = a3;
    *MB_GO = 1;
    while (*MB_STAT & MB_STAT_OFFERED) {
    }
}

/* the unit's program: li a0, 0x77; lui t0, 0x20; sd a0, 0(t0); j . */
static const u32 prog[4] = {0x07700513u, 0x000202b7u, 0x00a2b023u, 0x0000006fu};

int main(void)
{
    /* the burst header: buf_id 5 (instruction words) [255:248], offset 0 [247:232], len 3 [231:224] */
    send(1, T_CU_DATA, 0, 5ul << 56 | 0ul << 40 | 3ul << 32);
    for (int i = 0; i < 4; i++) send(1, T_CU_DATA, prog[i], 0); /* each word in payload [63:0] */
    u64 txn_before = 5;                                       /* five GOs so far: txn 0-4 */
    send(0, 0, 0, 1ul << 56);                                 /* CU_INST, opcode 1: boot */
    while (MB_STAT_COUNT(*MB_STAT) == 0) {
    }
    u64 c = *MB_HEAD;
    *MB_HEAD = 0;
    if (CQ_SRC_X(c) != PE_X || CQ_SRC_Y(c) != PE_Y) return 1;
    if (CQ_CODE(c) != SIG_BATCH_COMPLETE) return 2;
    if (CQ_ARG(c) != txn_before) return 3;
    const char *s = "pe kicked ok\n";
    while (*s) *R_CONSOLE = (u64)*s++;
    return 0;
}
