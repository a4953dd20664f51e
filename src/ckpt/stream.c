/* The checkpoint stream (include/kohaku/ckpt.h): one object that writes or
 * reads, little-endian, bounds-checked, with sticky errors and sections. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"

struct kh_ck {
    int loading;
    /* writer */
    uint8_t *buf;
    size_t n, cap;
    size_t sec_start; /* offset of the open section's header, SIZE_MAX: none */
    size_t sec_payload;
    /* reader */
    const uint8_t *in;
    size_t inlen, pos, end; /* end: the open section's end, else inlen */
    int oom;
    char where[400];
    char err[1024];
};

kh_ck *kh_ck_writer(void)
{
    kh_ck *ck = calloc(1, sizeof *ck);
    if (!ck) return NULL;
    ck->sec_start = SIZE_MAX;
    return ck;
}

kh_ck *kh_ck_reader(const uint8_t *bytes, size_t n)
{
    kh_ck *ck = calloc(1, sizeof *ck);
    if (!ck) return NULL;
    ck->loading = 1;
    ck->in = bytes;
    ck->inlen = ck->end = n;
    ck->sec_start = SIZE_MAX;
    snprintf(ck->where, sizeof ck->where, "the file header");
    return ck;
}

void kh_ck_free(kh_ck *ck)
{
    if (!ck) return;
    free(ck->buf);
    free(ck);
}

int kh_ck_loading(const kh_ck *ck) { return ck->loading; }
const uint8_t *kh_ck_data(const kh_ck *ck, size_t *n)
{
    *n = ck->n;
    return ck->buf;
}
size_t kh_ck_left(const kh_ck *ck) { return ck->end - ck->pos; }
int kh_ck_failed(const kh_ck *ck) { return ck->err[0] != 0; }
const char *kh_ck_error(const kh_ck *ck) { return ck->err; }
const char *kh_ck_where(const kh_ck *ck) { return ck->where; }

int kh_ck_fail(kh_ck *ck, const char *fmt, ...)
{
    if (ck->err[0]) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ck->err, sizeof ck->err, fmt, ap);
    va_end(ap);
    if (!ck->err[0]) snprintf(ck->err, sizeof ck->err, "refused");
    return -1;
}

/* ---- raw bytes ---- */

static void put(kh_ck *ck, const void *p, size_t n)
{
    if (ck->err[0] || !n) return; /* nothing: p may be NULL (an empty array) */
    if (ck->cap - ck->n < n) {
        size_t cap = ck->cap ? ck->cap : 4096;
        while (cap - ck->n < n) {
            if (cap > SIZE_MAX / 2) {
                kh_ck_fail(ck, "out of memory writing the checkpoint");
                return;
            }
            cap *= 2;
        }
        uint8_t *b = realloc(ck->buf, cap);
        if (!b) {
            kh_ck_fail(ck, "out of memory writing the checkpoint (%zu bytes)", cap);
            return;
        }
        ck->buf = b;
        ck->cap = cap;
    }
    memcpy(ck->buf + ck->n, p, n);
    ck->n += n;
}

/* n bytes from the input, or zeros and a refusal naming where it ends. */
static void get(kh_ck *ck, void *p, size_t n)
{
    if (!n) return; /* nothing: p may be NULL (an empty array) */
    if (ck->err[0] || ck->end - ck->pos < n) {
        if (!ck->err[0])
            kh_ck_fail(ck, "%s ends early: %zu bytes wanted at offset %zu, %zu left", ck->where, n, ck->pos,
                       ck->end - ck->pos);
        memset(p, 0, n);
        return;
    }
    memcpy(p, ck->in + ck->pos, n);
    ck->pos += n;
}

void kh_ck_bytes(kh_ck *ck, void *p, size_t n)
{
    if (ck->loading) get(ck, p, n);
    else put(ck, p, n);
}

/* ---- scalars, little-endian ---- */

static int host_le(void)
{
    const uint16_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

static uint64_t load_host(const void *p, size_t size)
{
    switch (size) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static void store_host(void *p, size_t size, uint64_t x)
{
    switch (size) {
    case 1: { uint8_t v = (uint8_t)x; memcpy(p, &v, 1); break; }
    case 2: { uint16_t v = (uint16_t)x; memcpy(p, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)x; memcpy(p, &v, 4); break; }
    default: memcpy(p, &x, 8); break;
    }
}

void kh_ck_scalar(kh_ck *ck, void *p, size_t size)
{
    uint8_t b[8];
    if (size != 1 && size != 2 && size != 4 && size != 8) abort(); /* a state function's bug */
    if (ck->loading) {
        get(ck, b, size);
        uint64_t x = 0;
        for (size_t i = 0; i < size; i++) x |= (uint64_t)b[i] << (8 * i);
        store_host(p, size, x);
    } else {
        uint64_t x = load_host(p, size);
        for (size_t i = 0; i < size; i++) b[i] = (uint8_t)(x >> (8 * i));
        put(ck, b, size);
    }
}

void kh_ck_array(kh_ck *ck, void *p, size_t size, size_t n)
{
    if (size == 1 || host_le()) { /* the bytes are already in disk order */
        if (n && size > SIZE_MAX / n) abort();
        kh_ck_bytes(ck, p, size * n);
        return;
    }
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++) kh_ck_scalar(ck, b + i * size, size);
}

void kh_ck_same(kh_ck *ck, uint64_t built, const char *what)
{
    uint64_t v = built;
    KH_CK(ck, v);
    if (ck->loading && !ck->err[0] && v != built)
        kh_ck_fail(ck, "%s: %s is %llu in the file, %llu in the machine built from its description", ck->where,
                   what, (unsigned long long)v, (unsigned long long)built);
}

uint64_t kh_ck_count(kh_ck *ck, uint64_t n, uint64_t max, const char *what)
{
    KH_CK(ck, n);
    if (ck->err[0]) return 0;
    if (n > max) {
        kh_ck_fail(ck, "%s: %s %llu is more than %llu", ck->where, what, (unsigned long long)n,
                   (unsigned long long)max);
        return 0;
    }
    return n;
}

void kh_ck_below(kh_ck *ck, uint64_t v, uint64_t n, const char *what)
{
    if (ck->loading && !ck->err[0] && v >= n)
        kh_ck_fail(ck, "%s: %s is %llu, not below %llu", ck->where, what, (unsigned long long)v,
                   (unsigned long long)n);
}

static int all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i]) return 0;
    return 1;
}

void kh_ck_sparse(kh_ck *ck, void *a, size_t size, size_t n, const char *what)
{
    uint8_t *b = a;
    uint64_t nz = 0;
    if (!ck->loading)
        for (size_t i = 0; i < n; i++) nz += !all_zero(b + i * size, size);
    nz = kh_ck_count(ck, nz, n, what);
    if (ck->loading) memset(a, 0, size * n);
    uint64_t next = 0; /* restore: indices strictly rising, as saved */
    for (size_t i = 0, k = 0; k < nz && !ck->err[0]; i++) {
        if (!ck->loading) {
            if (all_zero(b + i * size, size)) continue;
            uint64_t at = i;
            KH_CK(ck, at);
            kh_ck_scalar(ck, b + i * size, size);
        } else {
            uint64_t at = 0;
            KH_CK(ck, at);
            kh_ck_below(ck, at, n, what);
            if (ck->err[0]) return;
            if (at < next) {
                kh_ck_fail(ck, "%s: %s: index %llu after %llu (not in order)", ck->where, what,
                           (unsigned long long)at, (unsigned long long)(next - 1));
                return;
            }
            next = at + 1;
            kh_ck_scalar(ck, b + at * size, size);
        }
        k++;
    }
}

void kh_ck_flit(kh_ck *ck, kh_flit *f) { KH_CK_ARR(ck, f->w, 5); }

void kh_ck_str(kh_ck *ck, char *buf, size_t len)
{
    uint64_t n = ck->loading ? 0 : strnlen(buf, len - 1);
    n = kh_ck_count(ck, n, len - 1, "a string's length");
    kh_ck_bytes(ck, buf, (size_t)n);
    if (ck->loading) buf[ck->err[0] ? 0 : n] = 0;
}

void *kh_ck_index(kh_ck *ck, void *p, void *base, size_t size, size_t n, const char *what)
{
    uint64_t i = n;
    if (!ck->loading && p) i = (uint64_t)(((const char *)p - (const char *)base) / (ptrdiff_t)size);
    i = kh_ck_count(ck, i, n, what);
    if (!ck->loading) return p;
    return i < n ? (char *)base + i * size : NULL;
}

/* ---- sections ---- */

void kh_ck_section_begin(kh_ck *ck, const char *tag4, const char *name)
{
    if (ck->sec_start != SIZE_MAX) abort(); /* sections do not nest */
    ck->sec_start = ck->n;
    put(ck, tag4, 4);
    uint16_t len = (uint16_t)strnlen(name, 255);
    KH_CK(ck, len);
    put(ck, name, len);
    uint64_t plen = 0;
    uint32_t crc = 0;
    KH_CK(ck, plen);
    KH_CK(ck, crc);
    ck->sec_payload = ck->n;
}

void kh_ck_section_end(kh_ck *ck)
{
    if (ck->sec_start == SIZE_MAX) abort();
    if (!ck->err[0]) {
        uint64_t plen = ck->n - ck->sec_payload;
        uint32_t crc = kh_crc32(0, ck->buf + ck->sec_payload, (size_t)plen);
        for (int i = 0; i < 8; i++) ck->buf[ck->sec_payload - 12 + i] = (uint8_t)(plen >> (8 * i));
        for (int i = 0; i < 4; i++) ck->buf[ck->sec_payload - 4 + i] = (uint8_t)(crc >> (8 * i));
    }
    ck->sec_start = SIZE_MAX;
}

void kh_ck_section_peek(kh_ck *ck, char tag[5])
{
    tag[0] = 0;
    if (ck->err[0] || ck->inlen - ck->pos < 4) return;
    memcpy(tag, ck->in + ck->pos, 4);
    tag[4] = 0;
}

static void printable(char *out, const char *in, size_t n)
{
    for (size_t i = 0; i < n; i++) out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : '?';
    out[n] = 0;
}

int kh_ck_section_open(kh_ck *ck, const char *tag4, const char *name, char *got, size_t gotlen)
{
    if (ck->err[0]) return -1;
    size_t at = ck->pos;
    ck->end = ck->inlen;
    snprintf(ck->where, sizeof ck->where, "the section header at offset %zu", at);
    char tag[4], tagp[5];
    get(ck, tag, 4);
    uint16_t len = 0;
    KH_CK(ck, len);
    char nm[256];
    if (!ck->err[0] && len > 255) /* the writer keeps names below 256 bytes */
        return kh_ck_fail(ck, "section header at offset %zu: a name of %u bytes (at most 255)", at, len);
    get(ck, nm, len);
    uint64_t plen = 0;
    uint32_t crc = 0;
    KH_CK(ck, plen);
    KH_CK(ck, crc);
    if (ck->err[0]) return -1;
    char nmp[256];
    printable(tagp, tag, 4);
    printable(nmp, nm, len);
    if (memcmp(tag, tag4, 4))
        return kh_ck_fail(ck, "section at offset %zu: expected a %.4s section%s%s%s, found %s '%s'", at, tag4,
                          name ? " '" : "", name ? name : "", name ? "'" : "", tagp, nmp);
    if (name && (strlen(name) != len || memcmp(name, nm, len)))
        return kh_ck_fail(ck, "section %s at offset %zu: expected '%s', found '%s' (the machine built from the "
                          "file's description has another component there)", tagp, at, name, nmp);
    if (got) snprintf(got, gotlen, "%s", nmp);
    snprintf(ck->where, sizeof ck->where, "section %s '%s' (offset %zu)", tagp, nmp, at);
    if (plen > ck->inlen - ck->pos)
        return kh_ck_fail(ck, "%s: the file is truncated: the section says %llu bytes, %zu are left", ck->where,
                          (unsigned long long)plen, ck->inlen - ck->pos);
    uint32_t have = kh_crc32(0, ck->in + ck->pos, (size_t)plen);
    if (have != crc)
        return kh_ck_fail(ck, "%s: the checksum does not match (CRC-32 0x%08x in the file, 0x%08x of the "
                          "bytes): the file is corrupted", ck->where, crc, have);
    ck->end = ck->pos + (size_t)plen;
    return 0;
}

int kh_ck_section_close(kh_ck *ck)
{
    if (ck->err[0]) return -1;
    if (ck->pos != ck->end)
        return kh_ck_fail(ck, "%s: %zu bytes left unread at its end (a state this build does not read)",
                          ck->where, ck->end - ck->pos);
    ck->end = ck->inlen;
    return 0;
}
