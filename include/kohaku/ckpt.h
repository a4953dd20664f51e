/* Checkpoints (docs/checkpoint.md): the stream a component's state
 * function reads or writes, and the sections of the file around it.
 *
 * One function per component visits its dynamic state field by field with
 * KH_CK and friends; the same function saves (the stream is writing) and
 * restores (reading), so the two cannot drift apart. What the machine
 * description builds (pointers, callbacks, tables, capacities) is not in
 * the file: a restore builds a fresh machine from the description first,
 * then loads the dynamic state over it.
 *
 * Errors are sticky: the first refusal (kh_ck_fail, a read past a
 * section's end, a structural value that differs from the built one) is
 * kept with its message, and every later read yields zeros, so a state
 * function need not test after each field. The caller looks once at the
 * end (kh_ck_failed, kh_ck_error).
 *
 * On disk everything is little-endian whatever the host; a scalar is
 * written with its host width (KH_CK: 1, 2, 4 or 8 bytes).
 */
#ifndef KOHAKU_CKPT_H
#define KOHAKU_CKPT_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/flit.h"

typedef struct kh_ck kh_ck;

#define KH_CK_MAGIC "KOHAKUCK" /* 8 bytes at offset 0 */
#define KH_CK_VERSION 1u       /* the format version: another one is refused */

/* ---- the stream ---- */

/* A writer into a growing buffer; NULL on no memory. */
kh_ck *kh_ck_writer(void);
/* A reader over bytes[0..n) (not copied: they must outlive the reader). */
kh_ck *kh_ck_reader(const uint8_t *bytes, size_t n);
void kh_ck_free(kh_ck *ck);
int kh_ck_loading(const kh_ck *ck); /* 1: reading (restore), 0: writing (save) */
/* The writer's bytes so far. */
const uint8_t *kh_ck_data(const kh_ck *ck, size_t *n);
/* Bytes of the input (the open section's) not read yet (reader). */
size_t kh_ck_left(const kh_ck *ck);

/* Refuse: keeps the first message (printf format), later reads yield 0.
 * Returns -1 for `return kh_ck_fail(...)`. */
int kh_ck_fail(kh_ck *ck, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int kh_ck_failed(const kh_ck *ck);
const char *kh_ck_error(const kh_ck *ck); /* "" when none */
/* What a reader is reading, for messages ("section COMP 'router(1,1)'"). */
const char *kh_ck_where(const kh_ck *ck);

/* ---- primitives (symmetric: save writes *p, restore fills it) ---- */

/* An integer or float of `size` bytes (1, 2, 4, 8) at p. */
void kh_ck_scalar(kh_ck *ck, void *p, size_t size);
/* n elements of `size` bytes each. */
void kh_ck_array(kh_ck *ck, void *p, size_t size, size_t n);
#define KH_CK(ck, x) kh_ck_scalar((ck), &(x), sizeof(x))
#define KH_CK_ARR(ck, a, n) kh_ck_array((ck), (a), sizeof *(a), (n))
/* A value that the machine description fixes (a capacity, a count): saved,
 * and on restore compared with the freshly built one; a difference refuses
 * naming `what`. */
void kh_ck_same(kh_ck *ck, uint64_t built, const char *what);
/* A count saved and read back, refused on restore when above max
 * (bounds a later loop or allocation). Returns the count (0 after a
 * failure). */
uint64_t kh_ck_count(kh_ck *ck, uint64_t n, uint64_t max, const char *what);
/* A position or count read from the file (restore) must be below n: else
 * refused naming `what` (a ring's head: n its size; a count: its size + 1).
 * Nothing is read or written; call it after the field's KH_CK. */
void kh_ck_below(kh_ck *ck, uint64_t v, uint64_t n, const char *what);
/* A mostly-zero table a[0..n) of `size`-byte elements: the count of
 * non-zero elements, then each as its index and value. Restore zeroes the
 * table first and refuses an index outside it or out of order. */
void kh_ck_sparse(kh_ck *ck, void *a, size_t size, size_t n, const char *what);
/* A flit (five words). */
void kh_ck_flit(kh_ck *ck, kh_flit *f);
/* A string into buf[len] (NUL-terminated; restore refuses one too long). */
void kh_ck_str(kh_ck *ck, char *buf, size_t len);
/* Raw bytes (no conversion). */
void kh_ck_bytes(kh_ck *ck, void *p, size_t n);
/* A pointer into base[0..n) kept as an index (n: none, NULL). Returns the
 * pointer restored (or p on save). */
void *kh_ck_index(kh_ck *ck, void *p, void *base, size_t size, size_t n, const char *what);

/* A sparse store (src/util/pages.h): its pages in page order; restore
 * fills an empty store, refusing a page number >= max_pages. */
struct kh_pages;
void kh_ck_pages(kh_ck *ck, struct kh_pages *p, uint64_t max_pages);

/* ---- sections: a tag, a name, a length and a CRC-32 over the payload ---- */

/* Writer: open a section (they do not nest). */
void kh_ck_section_begin(kh_ck *ck, const char *tag4, const char *name);
void kh_ck_section_end(kh_ck *ck);
/* Reader: the next section must have this tag and name (name NULL: any,
 * copied into got[gotlen] when got is not NULL); its length and checksum
 * are checked before anything in it is read, and reads stop at its end. */
int kh_ck_section_open(kh_ck *ck, const char *tag4, const char *name, char *got, size_t gotlen);
/* Reader: the section must be read to its end. */
int kh_ck_section_close(kh_ck *ck);
/* Reader: the tag of the next section without reading it ("" at the end). */
void kh_ck_section_peek(kh_ck *ck, char tag[5]);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of p[0..n), continued from crc. */
uint32_t kh_crc32(uint32_t crc, const void *p, size_t n);
/* FNV-1a 64 of p[0..n), continued from h (start: KH_FNV_INIT). */
#define KH_FNV_INIT UINT64_C(0xcbf29ce484222325)
uint64_t kh_fnv64(uint64_t h, const void *p, size_t n);

#endif
