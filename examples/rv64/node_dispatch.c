/* The node processor dispatches through its mailbox (docs/rv64.md §9): a
 * CU_INST with an opcode the cluster at (1,0) retires at once as a no-op
 * (cluster.md §2), sent with GO; the unit's completion comes back to the
 * processor at (0,0) and waits in the completion queue. Three rounds; each
 * completion must name (1,0), code BATCH_COMPLETE (the mailbox sends with
 * last = 1) and carry the round's transaction number. Exit: 0, or the
 * round and the part that was wrong. */
#include "kohaku_rv64.h"

#define UNIT_X 1ul
#define UNIT_Y 0ul
#define SIG_BATCH_COMPLETE 0x01ul /* isa/flit.isa cu_signal code */

int main(void)
{
    for (u64 round = 0; round < 3; round++) {
        *MB_DST = UNIT_Y << 8 | UNIT_X;
        *MB_ARG(0) = round;
        *MB_ARG(1) = 0;
        *MB_ARG(2) = 0;
        *MB_ARG(3) = 0xful << 60; /* op [255:252] = 15: no cluster opcode */
        *MB_GO = 1;
        while (MB_STAT_COUNT(*MB_STAT) == 0) {
        }
        u64 c = *MB_HEAD;
        *MB_HEAD = 0; /* drop it */
        if (CQ_SRC_X(c) != UNIT_X || CQ_SRC_Y(c) != UNIT_Y) return (int)(0x100 * (round + 1) + 1);
        if (CQ_CODE(c) != SIG_BATCH_COMPLETE) return (int)(0x100 * (round + 1) + 2);
        if (CQ_ARG(c) != round) return (int)(0x100 * (round + 1) + 3); /* txn counts GOs from 0 */
    }
    if (MB_STAT_COUNT(*MB_STAT) != 0) return 0x400;
    const char *s = "dispatch ok\n";
    while (*s) *R_CONSOLE = (u64)*s++;
    return 0;
}
