/* Which components the kernel holds anything for (docs/mpi.md "Lane
 * promises"): a wake in the wheel or the heap, or work the end of the run
 * will settle. Read between windows only; nothing changes. */
#include <string.h>

#include "sim/sim_int.h"

int kh_sim_pending(const kh_sim *sim, uint64_t *mask, unsigned nwords)
{
    memset(mask, 0, (size_t)nwords * sizeof *mask);
    const kh_sched *s = &sim->sched;
    /* only the slots occ marks hold a wake or a timer (between cycles) */
    int timer = 0;
    for (uint64_t occ = s->occ; occ; occ &= occ - 1) {
        unsigned k = (unsigned)__builtin_ctzll(occ);
        for (unsigned w = 0; w < s->nwords && w < nwords; w++) mask[w] |= s->wheel[w * KH_WHEEL + k];
        timer |= s->timers[k] != NULL;
    }
    for (size_t i = 0; i < sim->nheap; i++)
        if (sim->heap[i].id / 64 < nwords) mask[sim->heap[i].id / 64] |= UINT64_C(1) << (sim->heap[i].id % 64);
    /* partitioned runs settle both lists at each run's end; read both anyway */
    const kh_comp *lists[2] = {sim->unsettled, sim->unread};
    for (unsigned l = 0; l < 2; l++)
        for (const kh_comp *c = lists[l]; c; c = c->next_unsettled)
            if (c->id / 64 < nwords) mask[c->id / 64] |= UINT64_C(1) << (c->id % 64);
    /* a timer belongs to no component id: the caller cannot tell whose */
    return timer;
}
