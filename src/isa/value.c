/* Field values: reading and writing them in words, parsing and printing. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "isa/isa_int.h"
#include "kohaku/bits.h"
#include "kohaku/echo.h"
#include "kohaku/hex.h"

int kh_isa_val_is_zero(const kh_isa_val *v)
{
    return !(v->w[0] | v->w[1] | v->w[2] | v->w[3]);
}

/* Does the field's value fit its width as given (v beyond width nonzero?) */
static int isa_val_fits(const kh_isa_val *v, unsigned width)
{
    for (unsigned k = 0; k < 4; k++) {
        unsigned lo = 64 * k;
        if (width >= lo + 64) continue;
        uint64_t keep = width > lo ? (UINT64_C(1) << (width - lo)) - 1 : 0;
        if (v->w[k] & ~keep) return 0;
    }
    return 1;
}

/* Parts are stored most significant first; field bit 0 is the last part's lo. */
void kh_isa_get(const kh_isa_layout *l, const uint64_t *w, unsigned f, kh_isa_val *v)
{
    const isa_field *fd = &l->fields[f];
    unsigned pos = 0;
    memset(v, 0, sizeof *v);
    for (unsigned i = fd->nparts; i-- > 0;) {
        unsigned pw = fd->part[i].hi - fd->part[i].lo + 1;
        for (unsigned k = 0; k < pw; k += 64) {
            unsigned n = pw - k < 64 ? pw - k : 64;
            kh_bits_set(v->w, pos + k, n, kh_bits_get(w, fd->part[i].lo + k, n));
        }
        pos += pw;
    }
}

uint64_t kh_isa_get64(const kh_isa_layout *l, const uint64_t *w, unsigned f)
{
    kh_isa_val v;
    kh_isa_get(l, w, f, &v);
    return v.w[0];
}

void kh_isa_set(const kh_isa_layout *l, uint64_t *w, unsigned f, const kh_isa_val *v)
{
    const isa_field *fd = &l->fields[f];
    unsigned pos = 0;
    for (unsigned i = fd->nparts; i-- > 0;) {
        unsigned pw = fd->part[i].hi - fd->part[i].lo + 1;
        for (unsigned k = 0; k < pw; k += 64) {
            unsigned n = pw - k < 64 ? pw - k : 64;
            kh_bits_set(w, fd->part[i].lo + k, n, kh_bits_get(v->w, pos + k, n));
        }
        pos += pw;
    }
}

void kh_isa_set64(const kh_isa_layout *l, uint64_t *w, unsigned f, uint64_t v)
{
    kh_isa_val x;
    memset(&x, 0, sizeof x);
    x.w[0] = v;
    kh_isa_set(l, w, f, &x);
}

static void where(const kh_isa_layout *l, const isa_field *fd, char *out, size_t outlen)
{
    char range[96];
    kh_isa_range_text(fd, range, sizeof range);
    snprintf(out, outlen, "%s.isa: %s %s", l->table, fd->name, range);
}

int kh_isa_parse_value(const kh_isa_layout *l, unsigned f, const char *text, kh_isa_val *v,
                       char *err, size_t errlen)
{
    const isa_field *fd = &l->fields[f];
    char at[256];
    memset(v, 0, sizeof *v);
    where(l, fd, at, sizeof at);
    for (unsigned i = 0; i < fd->nenums; i++)
        if (kh_isa_strieq(fd->enums[i].name, text)) {
            v->w[0] = fd->enums[i].value;
            return 0;
        }
    kh_echo_buf eb;
    const char *shown = kh_echo(text, &eb);
    if (fd->width > 64) {
        const char *h = text;
        char herr[96];
        if (h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) h += 2;
        if (kh_hex_parse(h, v->w, 256, 0, herr, sizeof herr) || !isa_val_fits(v, fd->width)) {
            memset(v, 0, sizeof *v);
            kh_isa_errf(err, errlen, "%s=%s is not a hex value of at most %u bits (%s)", fd->name,
                     shown, fd->width, at);
            return -1;
        }
        /* A wide field is a bit pattern: a short one (data=1234) is far
         * more often a mistake than a number meant to be zero-extended. */
        unsigned digits = 0, want = (fd->width + 3) / 4;
        for (const char *c = h; *c; c++) digits += *c != '_';
        if (digits != want && !kh_isa_val_is_zero(v)) {
            memset(v, 0, sizeof *v);
            kh_isa_errf(err, errlen, "%s=%s has %u hex digits: the field is %u bits, written as all %u digits "
                     "(or 0) (%s)", fd->name, shown, digits, fd->width, want, at);
            return -1;
        }
        return 0;
    }
    uint64_t x, m = fd->width == 64 ? ~UINT64_C(0) : (UINT64_C(1) << fd->width) - 1;
    if (text[0] == '-') {
        if (!(fd->flags & ISA_F_SIGNED)) {
            kh_isa_errf(err, errlen, "%s=%s: the field is unsigned, a negative value does not fit (%s)",
                     fd->name, shown, at);
            return -1;
        }
        if (text[1] < '0' || text[1] > '9' || kh_parse_u64(text + 1, &x) ||
            x > (UINT64_C(1) << (fd->width - 1))) {
            kh_isa_errf(err, errlen, "%s=%s does not fit %u signed bits (%s)", fd->name, shown,
                     fd->width, at);
            return -1;
        }
        v->w[0] = (0 - x) & m;
        return 0;
    }
    int prc = kh_parse_u64(text, &x);
    if (prc == KH_PARSE_TOO_BIG) {
        kh_isa_errf(err, errlen, "%s=%s does not fit %u bits (%s)", fd->name, shown, fd->width, at);
        return -1;
    }
    if (prc) {
        if (fd->nenums) {
            char names[400];
            size_t k = 0;
            names[0] = '\0';
            for (unsigned i = 0; i < fd->nenums && k + 2 < sizeof names; i++) {
                int r = snprintf(names + k, sizeof names - k, "%s%s", i ? ", " : "", fd->enums[i].name);
                if (r < 0) break;
                k += (size_t)r;
                if (k >= sizeof names) k = sizeof names - 1;
            }
            kh_isa_errf(err, errlen, "%s=%s is neither a number nor one of %s (%s)", fd->name, shown,
                     names, at);
        } else {
            kh_isa_errf(err, errlen, "%s=%s is not a number (decimal or 0x hex%s) (%s)", fd->name, shown,
                     fd->flags & ISA_F_SIGNED ? ", or a negative decimal" : "", at);
        }
        return -1;
    }
    if (x & ~m) {
        kh_isa_errf(err, errlen, "%s=%s does not fit %u bits (%s)", fd->name, shown, fd->width, at);
        return -1;
    }
    v->w[0] = x;
    return 0;
}

void kh_isa_format_value(const kh_isa_layout *l, unsigned f, const kh_isa_val *v, char *out,
                         size_t outlen)
{
    const isa_field *fd = &l->fields[f];
    if (fd->width > 64) {
        char hex[KH_ISA_MAX_FIELD / 4 + 1];
        unsigned nb = (fd->width + 3) / 4 * 4;
        kh_hex_format(v->w, nb, hex);
        snprintf(out, outlen, "0x%s", hex);
        return;
    }
    uint64_t x = v->w[0];
    for (unsigned i = 0; i < fd->nenums; i++)
        if (fd->enums[i].value == x) {
            snprintf(out, outlen, "%s", fd->enums[i].name);
            return;
        }
    if (fd->flags & ISA_F_SIGNED) {
        uint64_t m = fd->width == 64 ? ~UINT64_C(0) : (UINT64_C(1) << fd->width) - 1;
        if ((x >> (fd->width - 1)) & 1)
            snprintf(out, outlen, "-%" PRIu64, ((~x) & m) + 1);
        else
            snprintf(out, outlen, "%" PRIu64, x);
        return;
    }
    int hex = (fd->flags & ISA_F_HEX) || (fd->width > 9 && !(fd->flags & ISA_F_DEC));
    if (hex && x > 9)
        snprintf(out, outlen, "0x%" PRIx64, x);
    else
        snprintf(out, outlen, "%" PRIu64, x);
}
