#include "util/pages.h"

#include <stdlib.h>
#include <string.h>

void kh_pages_init(kh_pages *p) { memset(p, 0, sizeof *p); }

void kh_pages_free(kh_pages *p)
{
    for (size_t i = 0; i < p->cap; i++) free(p->tab[i].bytes);
    free(p->tab);
    memset(p, 0, sizeof *p);
}

static size_t slot_of(uint64_t key, size_t cap)
{
    /* Fibonacci hashing of the page number; cap is a power of two. */
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (cap - 1);
}

static uint8_t *find(const kh_pages *p, uint64_t page)
{
    if (!p->cap) return NULL;
    uint64_t key = page + 1;
    for (size_t i = slot_of(key, p->cap);; i = (i + 1) & (p->cap - 1)) {
        if (p->tab[i].key == key) return p->tab[i].bytes;
        if (p->tab[i].key == 0) return NULL;
    }
}

static int grow(kh_pages *p)
{
    size_t ncap = p->cap ? p->cap * 2 : 64;
    kh_page_slot *nt = calloc(ncap, sizeof *nt);
    if (!nt) return -1;
    for (size_t i = 0; i < p->cap; i++) {
        if (!p->tab[i].key) continue;
        size_t j = slot_of(p->tab[i].key, ncap);
        while (nt[j].key) j = (j + 1) & (ncap - 1);
        nt[j] = p->tab[i];
    }
    free(p->tab);
    p->tab = nt;
    p->cap = ncap;
    return 0;
}

static uint8_t *find_or_add(kh_pages *p, uint64_t page)
{
    uint8_t *b = find(p, page);
    if (b) return b;
    if ((p->used + 1) * 4 > p->cap * 3 && grow(p)) return NULL;
    b = calloc(1, KH_PAGE_BYTES);
    if (!b) return NULL;
    uint64_t key = page + 1;
    size_t i = slot_of(key, p->cap);
    while (p->tab[i].key) i = (i + 1) & (p->cap - 1);
    p->tab[i].key = key;
    p->tab[i].bytes = b;
    p->used++;
    return b;
}

void kh_pages_read(const kh_pages *p, uint64_t a, uint8_t *out, size_t n)
{
    while (n) {
        uint64_t off = a % KH_PAGE_BYTES;
        size_t chunk = KH_PAGE_BYTES - (size_t)off;
        if (chunk > n) chunk = n;
        const uint8_t *b = find(p, a / KH_PAGE_BYTES);
        if (b) memcpy(out, b + off, chunk);
        else memset(out, 0, chunk);
        out += chunk;
        a += chunk;
        n -= chunk;
    }
}

int kh_pages_write(kh_pages *p, uint64_t a, const uint8_t *in, size_t n)
{
    /* Allocate every page first so a failure changes nothing. */
    for (uint64_t pg = a / KH_PAGE_BYTES; n && pg <= (a + n - 1) / KH_PAGE_BYTES; pg++)
        if (!find_or_add(p, pg)) return -1;
    while (n) {
        uint64_t off = a % KH_PAGE_BYTES;
        size_t chunk = KH_PAGE_BYTES - (size_t)off;
        if (chunk > n) chunk = n;
        memcpy(find(p, a / KH_PAGE_BYTES) + off, in, chunk);
        in += chunk;
        a += chunk;
        n -= chunk;
    }
    return 0;
}

const uint8_t *kh_pages_find(const kh_pages *p, uint64_t a) { return find(p, a / KH_PAGE_BYTES); }

uint8_t *kh_pages_get(kh_pages *p, uint64_t a) { return find_or_add(p, a / KH_PAGE_BYTES); }
