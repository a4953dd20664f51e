#include "sysnode/port/ring.h"

#include <stdlib.h>
#include <string.h>

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
