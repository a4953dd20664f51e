/* The converged path (memory.md §7, §8): every requester of a node (each
 * memory port, the host upload window, the mover; the interlink landing
 * channel later) reaches the staging store and the one DRAM master through
 * two round-robins, one for reads and one for writes.
 *
 * A requester pushes whole bursts; the path answers with read beats and
 * write responses stamped with the cycle they reach the requester, and
 * wakes the requester's component then. Requests pushed in cycle t are
 * seen from t + 2 (the older RTL's mag_dram_port registers every
 * requester's valid before arbitrating), and answers always lie in the
 * future, so the order in which components are stepped never matters. Functional requests read
 * and write memory at the grant; timing-only requests (the mover, whose
 * data moves in element order, memory.md §11.3) only occupy the path. */
#ifndef KH_SYSNODE_CONV_H
#define KH_SYSNODE_CONV_H

#include <stdint.h>

#include "kohaku/sim.h"
#include "sysnode/port/ring.h"

typedef struct kh_node kh_node;
typedef struct kh_conv kh_conv;
typedef struct kh_creq kh_creq;

#define KH_CONV_MAX_BEATS 16 /* data carried by a functional write (len & 15) + 1 */

/* Read beats are answered a record per burst (up to KH_CONV_MAX_BEATS of
 * them; a longer burst takes several), written once at the grant: the
 * record is the head beat's view (kh_conv_beat_head) until its last beat is
 * popped. */
typedef struct kh_conv_beat {
    kh_cycle at;     /* cycle the head beat reaches the requester */
    kh_cycle step;   /* cycles from one beat to the next */
    uint64_t tag;    /* the requester's cookie of the burst */
    unsigned k, n;   /* the head beat's index in the record, beats in it */
    unsigned ends;   /* the record's final beat is the burst's */
    uint64_t d[KH_CONV_MAX_BEATS][4]; /* data (zeros on timing-only reads) */
} kh_conv_beat;
/* The head beat's data words and whether it is the burst's final one. */
static inline const uint64_t *kh_conv_beat_data(const kh_conv_beat *b) { return b->d[b->k]; }
static inline int kh_conv_beat_last(const kh_conv_beat *b) { return b->ends && b->k + 1 == b->n; }

typedef struct kh_conv_b {
    kh_cycle at;     /* cycle the write response reaches the requester */
    uint64_t tag;
} kh_conv_b;

/* nch: requester channels the round-robins scan (memory.md §7). */
kh_conv *kh_conv_new(kh_node *n, unsigned nch);

/* Attach requester channel `ch` (memory.md §7 order: ports 0..P-1, host P,
 * mover P+1, interlink landing P+2), woken through `owner`. */
kh_creq *kh_conv_requester(kh_conv *cv, unsigned ch, kh_comp *owner, const char *what);

/* Requester-side latencies: r_skid cycles between the AXI R handshake and
 * the requester's engine seeing the beat (a register stage), w_lead cycles
 * from the AW handshake to the first W beat the requester offers. */
void kh_conv_set_lat(kh_creq *r, unsigned r_skid, unsigned w_lead);

/* No requester but `owner` has a request waiting, granted or answered and
 * not yet taken: what the path does next is only `owner`'s (docs/mpi.md
 * "Lane promises"). */
int kh_conv_serves_only(const kh_conv *cv, const kh_comp *owner);

/* Push one read burst of `beats` 32-byte beats from addr (low 5 bits
 * ignored). functional: return the data. 0 ok, -1 out of memory. */
int kh_conv_read(kh_creq *r, uint64_t addr, unsigned beats, uint64_t tag, int functional,
                 kh_cycle now);
/* Push one write burst; data (beats <= KH_CONV_MAX_BEATS) is written at the
 * grant, NULL makes it timing-only. */
int kh_conv_write(kh_creq *r, uint64_t addr, unsigned beats, uint64_t tag,
                  const uint64_t (*data)[4], kh_cycle now);

/* Push one functional single-beat write with byte strobes (bit i = byte
 * i): bytes whose strobe is clear keep what memory holds. */
int kh_conv_write_strb(kh_creq *r, uint64_t addr, const uint64_t data[4], uint32_t strb, uint64_t tag,
                       kh_cycle now);

/* A channel's answers, the first member of kh_creq: its owner reads them
 * on every step, so the reads below are inline. */
typedef struct kh_creq_answers {
    kh_ring beats;    /* kh_conv_beat records, in delivery order */
    kh_ring bs;       /* kh_conv_b, in delivery order */
    unsigned wr_open; /* writes granted, response not yet delivered */
    kh_cycle due;     /* the earlier of the two heads' cycles, KH_NEVER if none:
                       * kept by every push into an empty ring and every pop,
                       * as the owner asks for it on every step */
} kh_creq_answers;

/* due from the read beats' head time beat_at (KH_NEVER: none) and the
 * write responses' head */
static inline void kh_conv_due_with(kh_creq_answers *a, kh_cycle beat_at)
{
    const kh_conv_b *w = kh_ring_head(&a->bs);
    a->due = w && w->at < beat_at ? w->at : beat_at;
}
/* due again from the heads: after a pop, and after a push into an empty ring. */
static inline void kh_conv_answers_due(kh_creq_answers *a)
{
    const kh_conv_beat *b = kh_ring_head(&a->beats);
    kh_conv_due_with(a, b ? b->at : KH_NEVER);
}

/* The oldest read beat due by now, or NULL; pop it when consumed. */
static inline const kh_conv_beat *kh_conv_beat_head(const kh_creq *r, kh_cycle now)
{
    const kh_creq_answers *a = (const kh_creq_answers *)(const void *)r;
    if (a->due > now) return NULL; /* neither head is due: no lookup */
    const kh_conv_beat *b = kh_ring_head(&a->beats);
    return b && b->at <= now ? b : NULL;
}
/* kh_conv_beat_pop of the head b that kh_conv_beat_head just returned: the
 * record is not looked up again, and while it has beats left it stays the
 * head, so only the write responses' head is read for due. */
static inline void kh_conv_beat_pop_head(kh_creq *r, const kh_conv_beat *head)
{
    kh_creq_answers *a = (kh_creq_answers *)(void *)r;
    kh_conv_beat *b = (kh_conv_beat *)head; /* the ring's own record, read through a const view */
    if (++b->k == b->n) {
        kh_ring_pop(&a->beats);
        kh_conv_answers_due(a);
        return;
    }
    b->at += b->step;
    kh_conv_due_with(a, b->at);
}
static inline void kh_conv_beat_pop(kh_creq *r)
{
    const kh_conv_beat *b = kh_ring_head(&((kh_creq_answers *)(void *)r)->beats);
    if (b) kh_conv_beat_pop_head(r, b);
}
/* Pop a write response due by now: 1 and its tag, or 0. */
static inline int kh_conv_b_pop(kh_creq *r, kh_cycle now, uint64_t *tag)
{
    kh_creq_answers *a = (kh_creq_answers *)(void *)r;
    if (a->due > now) return 0;
    const kh_conv_b *b = kh_ring_head(&a->bs);
    if (!b || b->at > now) return 0;
    *tag = b->tag;
    kh_ring_pop(&a->bs);
    a->wr_open--;
    kh_conv_answers_due(a);
    return 1;
}
/* Earliest cycle an answer already scheduled is due, KH_NEVER if none. */
static inline kh_cycle kh_conv_next_answer(const kh_creq *r)
{
    return ((const kh_creq_answers *)(const void *)r)->due;
}

#endif
