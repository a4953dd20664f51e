#include "kohaku/hex.h"

#include <stdio.h>
#include <string.h>

static int hexval(int c)
{
    unsigned d = (unsigned)c - '0', l = ((unsigned)c | 0x20u) - 'a'; /* | 0x20: 'A'-'F' to 'a'-'f' */
    return d < 10 ? (int)d : l < 6 ? (int)l + 10 : -1;
}

int kh_hex_parse(const char *s, uint64_t *w, unsigned nbits, int exact, char *err, size_t errlen)
{
    unsigned nwords = (nbits + 63) / 64, want = (nbits + 3) / 4, ndig = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '_') continue;
        if (hexval((unsigned char)*p) < 0) {
            if ((unsigned char)*p >= 0x80) /* part of a character: do not print half of it */
                snprintf(err, errlen, "bad hex digit: a non-ASCII byte 0x%02x at position %u", (unsigned char)*p,
                         (unsigned)(p - s) + 1);
            else
                snprintf(err, errlen, "bad hex digit '%c' at position %u", *p, (unsigned)(p - s) + 1);
            return -1;
        }
        ndig++;
    }
    if (ndig == 0 || ndig > want || (exact && ndig != want)) {
        snprintf(err, errlen, "%u hex digits given, %s%u expected", ndig, exact ? "" : "at most ", want);
        return -1;
    }
    memset(w, 0, nwords * sizeof *w);
    unsigned k = 0; /* digit index from the least significant end */
    for (size_t i = strlen(s); i-- > 0;) {
        if (s[i] == '_') continue;
        uint64_t d = (uint64_t)hexval((unsigned char)s[i]);
        w[(4 * k) / 64] |= d << ((4 * k) % 64);
        k++;
    }
    if (nbits % 64 && (w[nwords - 1] >> (nbits % 64))) {
        snprintf(err, errlen, "value does not fit %u bits", nbits);
        return -1;
    }
    return 0;
}

void kh_hex_format(const uint64_t *w, unsigned nbits, char *out)
{
    static const char digits[] = "0123456789abcdef";
    unsigned n = nbits / 4;
    for (unsigned k = 0; k < n; k++) {
        unsigned bit = 4 * (n - 1 - k);
        out[k] = digits[(w[bit / 64] >> (bit % 64)) & 0xF];
    }
    out[n] = '\0';
}

int kh_hex_bytes_parse(const char *s, uint8_t *out, size_t n, char *err, size_t errlen)
{
    size_t len = strlen(s);
    if (len != 2 * n) {
        snprintf(err, errlen, "%zu hex digits given, %zu expected (%zu bytes)", len, 2 * n, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int hi = hexval((unsigned char)s[2 * i]), lo = hexval((unsigned char)s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            snprintf(err, errlen, "bad hex digit at position %zu", 2 * i + (hi < 0 ? 1 : 2));
            return -1;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

void kh_hex_bytes_format(const uint8_t *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 0xF];
    }
    out[2 * n] = '\0';
}

int kh_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    int big = 0; /* every digit is read before a value that does not fit is reported */
    const char *p = s;
    if (!*p) return KH_PARSE_NAN;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (!*p) return KH_PARSE_NAN;
        for (; *p; p++) {
            if (*p == '_') continue;
            int d = hexval((unsigned char)*p);
            if (d < 0) return KH_PARSE_NAN;
            if (v >> 60) big = 1;
            v = v << 4 | (uint64_t)d;
        }
    } else {
        for (; *p; p++) {
            if (*p < '0' || *p > '9') return KH_PARSE_NAN;
            uint64_t d = (uint64_t)(*p - '0');
            if (v > (UINT64_MAX - d) / 10) big = 1;
            v = v * 10 + d;
        }
    }
    if (big) return KH_PARSE_TOO_BIG;
    *out = v;
    return 0;
}
