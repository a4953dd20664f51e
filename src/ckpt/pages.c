/* A sparse store in a checkpoint: the pages written so far, in page order
 * (not hash order, so that save, restore, save gives the same bytes). */
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "util/pages.h"

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void kh_ck_pages(kh_ck *ck, kh_pages *p, uint64_t max_pages)
{
    if (!kh_ck_loading(ck)) {
        uint64_t *keys = malloc((p->used ? p->used : 1) * sizeof *keys);
        if (!keys) {
            kh_ck_fail(ck, "out of memory listing %zu pages", p->used);
            return;
        }
        size_t n = 0;
        for (size_t i = 0; i < p->cap; i++)
            if (p->tab[i].key) keys[n++] = p->tab[i].key - 1;
        qsort(keys, n, sizeof *keys, cmp_u64);
        kh_ck_count(ck, n, max_pages, "pages");
        for (size_t i = 0; i < n; i++) {
            KH_CK(ck, keys[i]);
            kh_ck_bytes(ck, (void *)(uintptr_t)kh_pages_find(p, keys[i] * KH_PAGE_BYTES), KH_PAGE_BYTES);
        }
        free(keys);
        return;
    }
    if (p->used) {
        kh_ck_fail(ck, "%s: the fresh machine's memory is not empty", kh_ck_where(ck));
        return;
    }
    uint64_t n = kh_ck_count(ck, 0, max_pages, "pages");
    uint64_t prev = 0;
    for (uint64_t i = 0; i < n && !kh_ck_failed(ck); i++) {
        uint64_t page = 0;
        KH_CK(ck, page);
        if (kh_ck_failed(ck)) break;
        if ((i && page <= prev) || page >= max_pages) {
            kh_ck_fail(ck, "%s: page %llu is out of order or past the memory's %llu pages", kh_ck_where(ck),
                       (unsigned long long)page, (unsigned long long)max_pages);
            break;
        }
        prev = page;
        if (kh_ck_left(ck) < KH_PAGE_BYTES) { /* before allocating: a short file costs nothing */
            kh_ck_fail(ck, "%s ends inside page %llu", kh_ck_where(ck), (unsigned long long)page);
            break;
        }
        uint8_t *b = kh_pages_get(p, page * KH_PAGE_BYTES);
        if (!b) {
            kh_ck_fail(ck, "out of memory restoring page %llu", (unsigned long long)page);
            break;
        }
        kh_ck_bytes(ck, b, KH_PAGE_BYTES);
    }
}
