/* A sparse byte store: 4 KiB pages allocated on first write, found through
 * an open-addressing hash keyed by page number (docs/design.md §5). Pages
 * never written read as zero, so a 64 GiB address space costs only what is
 * touched. Used for each mesh's DRAM and staging store (src/sysnode) and
 * the unit bench's memory model (src/cu/unitbench.c). Nothing depends on
 * hash order: every access names its page by number. */
#ifndef KH_UTIL_PAGES_H
#define KH_UTIL_PAGES_H

#include <stddef.h>
#include <stdint.h>

#define KH_PAGE_BYTES 4096u

typedef struct kh_page_slot {
    uint64_t key;   /* page number + 1; 0 = empty slot */
    uint8_t *bytes; /* KH_PAGE_BYTES */
} kh_page_slot;

typedef struct kh_pages {
    kh_page_slot *tab;
    size_t cap;  /* power of two, 0 before the first write */
    size_t used; /* pages allocated */
} kh_pages;

void kh_pages_init(kh_pages *p);
void kh_pages_free(kh_pages *p);
/* Copy n bytes starting at byte address a (pages may be crossed). */
void kh_pages_read(const kh_pages *p, uint64_t a, uint8_t *out, size_t n);
/* Store n bytes at a. 0 ok, -1 out of memory (then nothing is changed). */
int kh_pages_write(kh_pages *p, uint64_t a, const uint8_t *in, size_t n);
/* The KH_PAGE_BYTES bytes of the page holding byte a, for an access that
 * stays inside it (one lookup, no copy through a buffer): _find gives NULL
 * for a page never written (it reads as zero), _get allocates it (NULL:
 * out of memory, nothing changed). */
const uint8_t *kh_pages_find(const kh_pages *p, uint64_t a);
uint8_t *kh_pages_get(kh_pages *p, uint64_t a);

#endif
