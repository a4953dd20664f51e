#include "sysnode/port/ring.h"

#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"

void kh_ring_init(kh_ring *r, size_t esize)
{
    memset(r, 0, sizeof *r);
    r->esize = esize;
}

void kh_ring_free(kh_ring *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = r->head = r->count = 0;
}

int kh_ring_grow(kh_ring *r)
{
    size_t ncap = r->cap ? 2 * r->cap : 16;
    unsigned char *nb = malloc(ncap * r->esize);
    if (!nb) return -1;
    for (size_t i = 0; i < r->count; i++)
        memcpy(nb + i * r->esize, r->buf + ((r->head + i) & (r->cap - 1)) * r->esize, r->esize);
    free(r->buf);
    r->buf = nb;
    r->cap = ncap;
    r->head = 0;
    return 0;
}

void kh_ck_ring(kh_ck *ck, kh_ring *r, void (*rec)(kh_ck *ck, void *e), const char *what)
{
    /* a record is at least a few bytes in the file: the count is bounded
     * by what is left, so a corrupted count allocates nothing */
    size_t n = (size_t)kh_ck_count(ck, r->count, kh_ck_loading(ck) ? kh_ck_left(ck) : r->count, what);
    if (!kh_ck_loading(ck)) {
        for (size_t i = 0; i < n; i++) rec(ck, kh_ring_at(r, i));
        return;
    }
    r->head = r->count = 0;
    for (size_t i = 0; i < n && !kh_ck_failed(ck); i++) {
        void *e = kh_ring_push_slot(r);
        if (!e) {
            kh_ck_fail(ck, "out of memory restoring %s", what);
            return;
        }
        memset(e, 0, r->esize);
        rec(ck, e);
    }
}
