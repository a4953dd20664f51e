/* A growable FIFO of fixed-size records (the node's internal queues:
 * converged-path requests and responses, mover elements). Order is the
 * order of pushes; nothing depends on addresses. */
#ifndef KH_SYSNODE_RING_H
#define KH_SYSNODE_RING_H

#include <stddef.h>
#include <string.h>

typedef struct kh_ring {
    unsigned char *buf;
    size_t esize, cap, head, count; /* cap: 0 or a power of two, so positions wrap by a mask */
} kh_ring;

void kh_ring_init(kh_ring *r, size_t esize);
void kh_ring_free(kh_ring *r);
/* Double the capacity (a full ring's push). 0 ok, -1 out of memory. */
int kh_ring_grow(kh_ring *r);
/* Append a record to fill in place (no copy through a local); NULL when
 * out of memory. */
static inline void *kh_ring_push_slot(kh_ring *r)
{
    if (r->count == r->cap && kh_ring_grow(r)) return NULL;
    return r->buf + ((r->head + r->count++) & (r->cap - 1)) * r->esize;
}
/* Append a copy of *e. 0 ok, -1 out of memory. Inline: a push per beat. */
static inline int kh_ring_push(kh_ring *r, const void *e)
{
    void *slot = kh_ring_push_slot(r);
    if (!slot) return -1;
    memcpy(slot, e, r->esize);
    return 0;
}
/* The i-th record from the head (i < count), or NULL. Inline with pop: the
 * ports call them for every beat. */
static inline void *kh_ring_at(const kh_ring *r, size_t i)
{
    if (i >= r->count) return NULL;
    return r->buf + ((r->head + i) & (r->cap - 1)) * r->esize;
}
/* The head record, or NULL: kh_ring_at(r, 0) without the wrap, as head
 * is always below cap. */
static inline void *kh_ring_head(const kh_ring *r)
{
    return r->count ? r->buf + r->head * r->esize : NULL;
}
static inline void kh_ring_pop(kh_ring *r)
{
    if (!r->count) return;
    r->head = (r->head + 1) & (r->cap - 1);
    r->count--;
}
static inline size_t kh_ring_count(const kh_ring *r) { return r->count; }

/* Checkpoints (kohaku/ckpt.h): the count, then each record in order
 * through rec (which visits its fields); restore refills the ring. */
struct kh_ck;
void kh_ck_ring(struct kh_ck *ck, kh_ring *r, void (*rec)(struct kh_ck *ck, void *e), const char *what);

#endif
