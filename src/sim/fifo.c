/* Bounded flit FIFOs with start-of-cycle semantics (docs/design.md §2). */
#include <stdlib.h>

#include "kohaku/sim.h"

int kh_fifo_init(kh_fifo *q, unsigned cap, unsigned latency)
{
    q->flit = calloc(cap ? cap : 1, sizeof *q->flit);
    q->ready = calloc(cap ? cap : 1, sizeof *q->ready);
    q->cap = cap;
    q->head = q->count = 0;
    q->latency = latency ? latency : 1; /* a register between writer and reader at least */
    q->pop_cycle = KH_NEVER;
    q->pops = 0;
    q->high_water = 0;
    if (!q->flit || !q->ready) {
        kh_fifo_free(q);
        return -1;
    }
    return 0;
}

void kh_fifo_free(kh_fifo *q)
{
    free(q->flit);
    free(q->ready);
    q->flit = NULL;
    q->ready = NULL;
    q->cap = q->count = 0;
}

unsigned kh_fifo_used(const kh_fifo *q, kh_cycle now)
{
    return q->count + (q->pop_cycle == now ? q->pops : 0);
}

int kh_fifo_full(const kh_fifo *q, kh_cycle now) { return kh_fifo_used(q, now) >= q->cap; }

int kh_fifo_empty(const kh_fifo *q) { return q->count == 0; }

void kh_fifo_push(kh_fifo *q, const kh_flit *f, kh_cycle now)
{
    if (q->count >= q->cap) abort(); /* caller must check kh_fifo_full: a lost flit is a bug */
    unsigned tail = (q->head + q->count) % q->cap;
    q->flit[tail] = *f;
    q->ready[tail] = now + q->latency;
    q->count++;
    unsigned used = kh_fifo_used(q, now);
    if (used > q->high_water) q->high_water = used;
}

const kh_flit *kh_fifo_head(const kh_fifo *q, kh_cycle now)
{
    if (!q->count || q->ready[q->head] > now) return NULL;
    return &q->flit[q->head];
}

kh_cycle kh_fifo_head_ready(const kh_fifo *q) { return q->count ? q->ready[q->head] : KH_NEVER; }

void kh_fifo_pop(kh_fifo *q, kh_cycle now)
{
    if (!q->count) return;
    q->head = (q->head + 1) % q->cap;
    q->count--;
    if (q->pop_cycle != now) {
        q->pop_cycle = now;
        q->pops = 0;
    }
    q->pops++;
}
