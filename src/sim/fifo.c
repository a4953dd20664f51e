/* Bounded flit FIFOs with start-of-cycle semantics (docs/design.md §2). */
#include <stdlib.h>
#include <string.h>

#include "kohaku/sim.h"

int kh_fifo_init(kh_fifo *q, unsigned cap, unsigned latency)
{
    /* + 1: the spare entry (kh_fifo_pop). Not zeroed: an entry is read
     * only after a push wrote it, and a 513-deep ring cleared is 20 KiB of
     * pages touched that a lightly loaded FIFO never uses (bench (3): 143
     * page faults). A checkpoint saves the held entries and the one before
     * the head, which a pop, the event engine's conversion or a load wrote
     * whenever the head is past 0; at head 0 it is the last entry, zeroed
     * here, so a save is defined bytes, the same in every save. */
    q->ent = malloc(((size_t)cap + 1) * sizeof *q->ent);
    if (q->ent) memset(&q->ent[cap], 0, sizeof *q->ent);
    q->cap = cap;
    q->size = cap + 1;
    q->head = q->count = 0;
    q->latency = latency ? latency : 1; /* a register between writer and reader at least */
    q->pop_cycle = KH_NEVER;
    q->pops = 0;
    q->high_water = 0;
    if (!q->ent) {
        kh_fifo_free(q);
        return -1;
    }
    return 0;
}

void kh_fifo_free(kh_fifo *q)
{
    free(q->ent);
    q->ent = NULL;
    q->cap = q->size = q->count = 0;
}

_Noreturn void kh_fifo_overflow(const kh_fifo *q)
{
    (void)q;
    abort(); /* caller must check kh_fifo_full: a lost flit is a bug */
}
