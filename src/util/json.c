/* The JSON reader of json.h: an iterative parser into a flat tree.
 *
 * Values live in one array; a container's children are a contiguous run of
 * a second array (`kids`, key and value index pairs for objects) written
 * when the container closes, so the tree needs no per-node allocation and
 * the parse needs no recursion: the open containers are an explicit stack.
 * Strings are decoded into one character arena. Stage-1 source: it includes
 * no generated header. */
#include "kohaku/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KH_JSON_MAX_DEPTH 65536u /* open containers; deeper input is refused */

enum numkind {
    NUM_UINT,   /* integer syntax, 0 <= value < 2^64 (mag holds it) */
    NUM_NEG,    /* integer syntax, -2^64 < value < 0 (mag holds |value|) */
    NUM_BIG,    /* integer syntax, |value| >= 2^64 */
    NUM_REAL,   /* fraction or exponent present */
};

struct kh_json_val {
    const kh_json *doc;
    unsigned line, col;
    unsigned char type;
    unsigned char numkind;
    size_t n;   /* string: byte length; array/object: element/member count */
    size_t off; /* string: offset in chars; container: first index in kids */
    uint64_t mag;
    double d;
};

struct kh_json {
    kh_json_val *vals;
    size_t nvals, capvals;
    size_t *kids; /* array: value indices; object: key, value index pairs */
    size_t nkids, capkids;
    char *chars;
    size_t nchars, capchars;
    size_t root;
};

typedef struct frame {
    size_t val;   /* index of the container value */
    size_t count; /* members or elements so far */
    int state;
} frame;

enum {
    ST_VALUE_OR_END, /* array just opened */
    ST_VALUE,        /* after ',' in an array, or after ':' in an object */
    ST_KEY_OR_END,   /* object just opened */
    ST_KEY,          /* after ',' in an object */
    ST_COMMA_OR_END, /* after a complete element or member */
};

typedef struct parser {
    const unsigned char *s;
    size_t len, pos;
    unsigned line;
    size_t line_start;
    kh_json *doc;
    size_t *tmp; /* children of the open containers, innermost last */
    size_t ntmp, captmp;
    frame *stack;
    size_t depth, capstack;
    kh_json_error *err;
    int failed;
} parser;

static void fail_at(parser *p, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_at(parser *p, size_t pos, const char *fmt, ...)
{
    if (p->failed) return;
    p->failed = 1;
    if (!p->err) return;
    p->err->line = p->line;
    p->err->col = (unsigned)(pos - p->line_start + 1);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err->msg, sizeof p->err->msg, fmt, ap);
    va_end(ap);
}

/* Grow *buf (elements of size sz) so that it holds at least need. */
static int grow(void **buf, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / sz) return -1;
        ncap *= 2;
    }
    void *nb = realloc(*buf, ncap * sz);
    if (!nb) return -1;
    *buf = nb;
    *cap = ncap;
    return 0;
}

static size_t new_val(parser *p, int type, size_t at)
{
    kh_json *d = p->doc;
    if (grow((void **)&d->vals, &d->capvals, d->nvals + 1, sizeof *d->vals)) {
        fail_at(p, at, "out of memory");
        return 0;
    }
    kh_json_val *v = &d->vals[d->nvals];
    memset(v, 0, sizeof *v);
    v->type = (unsigned char)type;
    v->line = p->line;
    v->col = (unsigned)(at - p->line_start + 1);
    return d->nvals++;
}

static int put_char(parser *p, unsigned char c)
{
    kh_json *d = p->doc;
    if (grow((void **)&d->chars, &d->capchars, d->nchars + 1, 1)) {
        fail_at(p, p->pos, "out of memory");
        return -1;
    }
    d->chars[d->nchars++] = (char)c;
    return 0;
}

/* Printable ASCII other than '"' and '\\': copied as it stands. */
static int plain_char(unsigned char c) { return (unsigned)(c - 0x20) < 0x5Fu && c != '"' && c != '\\'; }

/* Are the 8 bytes at s all plain_char? Each test below is exact for "some
 * byte of x is ..." (not for which byte): a byte below 0x20, a byte above
 * 0x7E (0x7F and every byte with its top bit), a '"', a '\\'. The scan of a
 * string skips 8 bytes at a time while this holds, then goes byte by byte,
 * so it stops where the byte loop alone stops (the recorded replays' long
 * hex strings: ~10 instructions a byte before). */
static int plain8(const unsigned char *s)
{
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    uint64_t x;
    memcpy(&x, s, sizeof x);
    const uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
    uint64_t bad = (x - ones * 0x20) & ~x;     /* a byte < 0x20 */
    bad |= (x + ones * (0x7F - 0x7E)) | x;     /* a byte > 0x7E */
    bad |= (q - ones) & ~q;                    /* a zero byte of q: a '"' */
    bad |= (b - ones) & ~b;                    /* a '\\' */
    return !(bad & highs);
}

/* n bytes at once: the run of plain characters a string mostly is. */
static int put_chars(parser *p, const unsigned char *src, size_t n)
{
    kh_json *d = p->doc;
    if (grow((void **)&d->chars, &d->capchars, d->nchars + n, 1)) {
        fail_at(p, p->pos, "out of memory");
        return -1;
    }
    memcpy(d->chars + d->nchars, src, n);
    d->nchars += n;
    return 0;
}

static int put_utf8(parser *p, uint32_t cp)
{
    if (cp < 0x80) return put_char(p, (unsigned char)cp);
    if (cp < 0x800)
        return put_char(p, (unsigned char)(0xC0 | cp >> 6)) | put_char(p, (unsigned char)(0x80 | (cp & 0x3F)));
    if (cp < 0x10000)
        return put_char(p, (unsigned char)(0xE0 | cp >> 12)) | put_char(p, (unsigned char)(0x80 | ((cp >> 6) & 0x3F))) |
               put_char(p, (unsigned char)(0x80 | (cp & 0x3F)));
    return put_char(p, (unsigned char)(0xF0 | cp >> 18)) | put_char(p, (unsigned char)(0x80 | ((cp >> 12) & 0x3F))) |
           put_char(p, (unsigned char)(0x80 | ((cp >> 6) & 0x3F))) | put_char(p, (unsigned char)(0x80 | (cp & 0x3F)));
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c == '\n') {
            p->line++;
            p->line_start = p->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        p->pos++;
    }
}

/* Length of the well-formed UTF-8 sequence at s[0..avail), or 0 (RFC 3629:
 * no overlong forms, no surrogates, nothing above U+10FFFF). */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (avail < n || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return n;
}

static int hex4(const unsigned char *s, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v << 4 | (uint32_t)d;
    }
    *out = v;
    return 0;
}

/* A string starting at the opening quote; returns its value index. */
static size_t parse_string(parser *p)
{
    size_t start = p->pos;
    size_t vi = new_val(p, KH_JSON_STRING, start);
    if (p->failed) return 0;
    size_t off = p->doc->nchars;
    p->pos++; /* opening quote */
    for (;;) {
        if (p->pos >= p->len) {
            fail_at(p, start, "string not closed before the end of the text");
            return 0;
        }
        size_t run = p->pos; /* printable ASCII other than '"' and '\\' needs no check */
        while (p->len - run >= 8 && plain8(p->s + run)) run += 8;
        while (run < p->len && plain_char((unsigned char)p->s[run])) run++;
        if (run > p->pos) {
            if (put_chars(p, p->s + p->pos, run - p->pos)) return 0;
            p->pos = run;
            continue;
        }
        unsigned char c = p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            fail_at(p, p->pos, "control character 0x%02x inside a string (must be escaped)", c);
            return 0;
        }
        if (c == '\\') {
            if (p->pos + 1 >= p->len) {
                fail_at(p, p->pos, "string not closed before the end of the text");
                return 0;
            }
            unsigned char e = p->s[p->pos + 1];
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = e ? strchr(from, e) : NULL;
            if (k) {
                if (put_char(p, (unsigned char)to[k - from])) return 0;
                p->pos += 2;
                continue;
            }
            if (e != 'u') {
                fail_at(p, p->pos, "unknown escape '\\%c' in a string", e >= 0x20 && e < 0x7F ? e : '?');
                return 0;
            }
            uint32_t cp;
            if (p->pos + 6 > p->len || hex4(p->s + p->pos + 2, &cp)) {
                fail_at(p, p->pos, "\\u must be followed by 4 hex digits");
                return 0;
            }
            size_t esc = p->pos;
            p->pos += 6;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                fail_at(p, esc, "\\u%04X is a low surrogate without a high surrogate before it", (unsigned)cp);
                return 0;
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                uint32_t lo;
                if (p->pos + 6 > p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u' ||
                    hex4(p->s + p->pos + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
                    fail_at(p, esc, "\\u%04X is a high surrogate not followed by a \\u low surrogate", (unsigned)cp);
                    return 0;
                }
                p->pos += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            }
            if (put_utf8(p, cp)) return 0;
            continue;
        }
        size_t n = utf8_len(p->s + p->pos, p->len - p->pos);
        if (!n) {
            fail_at(p, p->pos, "invalid UTF-8 byte 0x%02x in a string", c);
            return 0;
        }
        for (size_t i = 0; i < n; i++)
            if (put_char(p, p->s[p->pos + i])) return 0;
        p->pos += n;
    }
    if (put_char(p, 0)) return 0;
    kh_json_val *v = &p->doc->vals[vi];
    v->off = off;
    v->n = p->doc->nchars - off - 1;
    return vi;
}

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

static size_t parse_number(parser *p)
{
    size_t start = p->pos;
    size_t vi = new_val(p, KH_JSON_NUMBER, start);
    if (p->failed) return 0;
    int neg = 0, big = 0, real = 0;
    uint64_t mag = 0;
    if (p->s[p->pos] == '-') {
        neg = 1;
        p->pos++;
    }
    if (p->pos >= p->len || !is_digit(p->s[p->pos])) {
        fail_at(p, start, "'-' not followed by a digit");
        return 0;
    }
    if (p->s[p->pos] == '0') {
        p->pos++;
        if (p->pos < p->len && is_digit(p->s[p->pos])) {
            fail_at(p, start, "number with a leading zero");
            return 0;
        }
    } else {
        while (p->pos < p->len && is_digit(p->s[p->pos])) {
            uint64_t dg = (uint64_t)(p->s[p->pos] - '0');
            if (mag > (UINT64_MAX - dg) / 10) big = 1;
            else mag = mag * 10 + dg;
            p->pos++;
        }
    }
    if (p->pos < p->len && p->s[p->pos] == '.') {
        real = 1;
        p->pos++;
        if (p->pos >= p->len || !is_digit(p->s[p->pos])) {
            fail_at(p, p->pos, "no digit after the decimal point");
            return 0;
        }
        while (p->pos < p->len && is_digit(p->s[p->pos])) p->pos++;
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        real = 1;
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-')) p->pos++;
        if (p->pos >= p->len || !is_digit(p->s[p->pos])) {
            fail_at(p, p->pos, "no digit in the exponent");
            return 0;
        }
        while (p->pos < p->len && is_digit(p->s[p->pos])) p->pos++;
    }
    /* strtod needs a terminated copy; the C locale reads '.' */
    size_t n = p->pos - start;
    char small[64], *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf) {
        fail_at(p, start, "out of memory");
        return 0;
    }
    memcpy(buf, p->s + start, n);
    buf[n] = 0;
    double d = strtod(buf, NULL);
    if (buf != small) free(buf);
    kh_json_val *v = &p->doc->vals[vi];
    v->numkind = (unsigned char)(real ? NUM_REAL : big ? NUM_BIG : neg && mag ? NUM_NEG : NUM_UINT);
    v->mag = mag;
    v->d = d;
    return vi;
}

static size_t parse_literal(parser *p)
{
    static const struct {
        const char *word;
        int type;
    } lits[] = {{"true", KH_JSON_TRUE}, {"false", KH_JSON_FALSE}, {"null", KH_JSON_NULL}};
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(lits[i].word);
        if (p->len - p->pos >= n && !memcmp(p->s + p->pos, lits[i].word, n)) {
            size_t vi = new_val(p, lits[i].type, p->pos);
            p->pos += n;
            return vi;
        }
    }
    unsigned char c = p->s[p->pos];
    if (c >= 0x20 && c < 0x7F)
        fail_at(p, p->pos, "unexpected character '%c' where a value should start", c);
    else
        fail_at(p, p->pos, "unexpected byte 0x%02x where a value should start", c);
    return 0;
}

static int push_tmp(parser *p, size_t vi)
{
    if (grow((void **)&p->tmp, &p->captmp, p->ntmp + 1, sizeof *p->tmp)) {
        fail_at(p, p->pos, "out of memory");
        return -1;
    }
    p->tmp[p->ntmp++] = vi;
    return 0;
}

static void open_container(parser *p, int type)
{
    if (p->depth >= KH_JSON_MAX_DEPTH) {
        fail_at(p, p->pos, "nesting deeper than %u", KH_JSON_MAX_DEPTH);
        return;
    }
    size_t vi = new_val(p, type, p->pos);
    if (p->failed) return;
    if (grow((void **)&p->stack, &p->capstack, p->depth + 1, sizeof *p->stack)) {
        fail_at(p, p->pos, "out of memory");
        return;
    }
    p->stack[p->depth++] = (frame){vi, 0, type == KH_JSON_ARRAY ? ST_VALUE_OR_END : ST_KEY_OR_END};
    p->pos++;
}

/* The innermost container ends: move its children from tmp to kids. */
static size_t close_container(parser *p)
{
    frame *f = &p->stack[--p->depth];
    kh_json *d = p->doc;
    kh_json_val *v = &d->vals[f->val];
    size_t nk = v->type == KH_JSON_OBJECT ? 2 * f->count : f->count;
    if (grow((void **)&d->kids, &d->capkids, d->nkids + nk, sizeof *d->kids)) {
        fail_at(p, p->pos, "out of memory");
        return 0;
    }
    if (nk) memcpy(d->kids + d->nkids, p->tmp + p->ntmp - nk, nk * sizeof *d->kids);
    v->off = d->nkids;
    v->n = f->count;
    d->nkids += nk;
    p->ntmp -= nk;
    p->pos++;
    return f->val;
}

/* A scalar value, or open a container (returns SIZE_MAX then). */
static size_t start_value(parser *p)
{
    if (p->pos >= p->len) {
        fail_at(p, p->pos, "text ends where a value should start");
        return 0;
    }
    unsigned char c = p->s[p->pos];
    if (c == '{' || c == '[') {
        open_container(p, c == '{' ? KH_JSON_OBJECT : KH_JSON_ARRAY);
        return SIZE_MAX;
    }
    if (c == '"') return parse_string(p);
    if (c == '-' || is_digit(c)) return parse_number(p);
    return parse_literal(p);
}

static void run(parser *p)
{
    size_t done = SIZE_MAX; /* a value just completed */
    skip_ws(p);
    done = start_value(p);
    while (!p->failed) {
        if (done != SIZE_MAX) {
            if (p->depth == 0) {
                p->doc->root = done;
                return;
            }
            if (push_tmp(p, done)) return;
            frame *f = &p->stack[p->depth - 1];
            f->count++;
            f->state = ST_COMMA_OR_END;
            done = SIZE_MAX;
        }
        frame *f = &p->stack[p->depth - 1];
        int is_obj = p->doc->vals[f->val].type == KH_JSON_OBJECT;
        char closer = is_obj ? '}' : ']';
        skip_ws(p);
        if (p->pos >= p->len) {
            size_t at = p->pos;
            kh_json_val *cv = &p->doc->vals[f->val];
            fail_at(p, at, "text ends inside the %s opened at line %u column %u", is_obj ? "object" : "array",
                    cv->line, cv->col);
            return;
        }
        unsigned char c = p->s[p->pos];
        switch (f->state) {
        case ST_VALUE_OR_END:
        case ST_KEY_OR_END:
            if (c == (unsigned char)closer) {
                done = close_container(p);
                continue;
            }
            f->state = f->state == ST_VALUE_OR_END ? ST_VALUE : ST_KEY;
            continue;
        case ST_VALUE:
            if (c == ']' || c == '}') {
                fail_at(p, p->pos, "'%c' where a value should be (trailing comma?)", c);
                return;
            }
            done = start_value(p);
            continue;
        case ST_KEY: {
            if (c != '"') {
                if (c == '}') fail_at(p, p->pos, "'}' where a member name should be (trailing comma?)");
                else fail_at(p, p->pos, "member name expected (a string in double quotes)");
                return;
            }
            size_t ki = parse_string(p);
            if (p->failed || push_tmp(p, ki)) return;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                fail_at(p, p->pos, "':' expected after member name \"%.40s\"", p->doc->chars + p->doc->vals[ki].off);
                return;
            }
            p->pos++;
            skip_ws(p);
            f = &p->stack[p->depth - 1];
            f->state = ST_VALUE;
            done = start_value(p);
            continue;
        }
        case ST_COMMA_OR_END:
            if (c == ',') {
                p->pos++;
                f->state = is_obj ? ST_KEY : ST_VALUE;
                continue;
            }
            if (c == (unsigned char)closer) {
                done = close_container(p);
                continue;
            }
            fail_at(p, p->pos, "',' or '%c' expected after %s", closer, is_obj ? "a member" : "an element");
            return;
        }
    }
}

kh_json *kh_json_parse(const char *text, size_t len, kh_json_error *err)
{
    parser p = {0};
    p.s = (const unsigned char *)text;
    p.len = len;
    p.line = 1;
    p.err = err;
    if (err) memset(err, 0, sizeof *err);
    p.doc = calloc(1, sizeof *p.doc);
    if (!p.doc) {
        if (err) {
            err->line = err->col = 1;
            snprintf(err->msg, sizeof err->msg, "out of memory");
        }
        return NULL;
    }
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) {
        p.pos = 3;
        p.line_start = 3;
    }
    run(&p);
    if (!p.failed) {
        skip_ws(&p);
        if (p.pos < p.len) fail_at(&p, p.pos, "unexpected text after the value");
    }
    free(p.tmp);
    free(p.stack);
    if (p.failed) {
        kh_json_free(p.doc);
        return NULL;
    }
    for (size_t i = 0; i < p.doc->nvals; i++) p.doc->vals[i].doc = p.doc;
    return p.doc;
}

void kh_json_free(kh_json *doc)
{
    if (!doc) return;
    free(doc->vals);
    free(doc->kids);
    free(doc->chars);
    free(doc);
}

const kh_json_val *kh_json_root(const kh_json *doc) { return doc ? &doc->vals[doc->root] : NULL; }

kh_json_type kh_json_type_of(const kh_json_val *v) { return v ? (kh_json_type)v->type : KH_JSON_NULL; }

const char *kh_json_type_name(kh_json_type t)
{
    static const char *names[] = {"null", "false", "true", "number", "string", "array", "object"};
    return (unsigned)t < sizeof names / sizeof names[0] ? names[t] : "?";
}

size_t kh_json_len(const kh_json_val *v)
{
    return v && (v->type == KH_JSON_ARRAY || v->type == KH_JSON_OBJECT) ? v->n : 0;
}

const kh_json_val *kh_json_at(const kh_json_val *v, size_t i)
{
    if (!v || i >= kh_json_len(v)) return NULL;
    const kh_json *d = v->doc;
    size_t k = v->type == KH_JSON_OBJECT ? d->kids[v->off + 2 * i + 1] : d->kids[v->off + i];
    return &d->vals[k];
}

const char *kh_json_key_at(const kh_json_val *v, size_t i)
{
    if (!v || v->type != KH_JSON_OBJECT || i >= v->n) return NULL;
    const kh_json *d = v->doc;
    return d->chars + d->vals[d->kids[v->off + 2 * i]].off;
}

const kh_json_val *kh_json_get(const kh_json_val *obj, const char *key)
{
    if (!obj || obj->type != KH_JSON_OBJECT || !key) return NULL;
    const kh_json *d = obj->doc;
    size_t klen = strlen(key);
    for (size_t i = 0; i < obj->n; i++) {
        const kh_json_val *k = &d->vals[d->kids[obj->off + 2 * i]];
        if (k->n == klen && !memcmp(d->chars + k->off, key, klen)) return &d->vals[d->kids[obj->off + 2 * i + 1]];
    }
    return NULL;
}

unsigned kh_json_line(const kh_json_val *v) { return v ? v->line : 0; }
unsigned kh_json_col(const kh_json_val *v) { return v ? v->col : 0; }

const char *kh_json_str(const kh_json_val *v, size_t *len)
{
    if (!v || v->type != KH_JSON_STRING) return NULL;
    if (len) *len = v->n;
    return v->doc->chars + v->off;
}

int kh_json_u64(const kh_json_val *v, uint64_t *out)
{
    if (!v || v->type != KH_JSON_NUMBER || v->numkind != NUM_UINT) return -1;
    *out = v->mag;
    return 0;
}

int kh_json_i64(const kh_json_val *v, int64_t *out)
{
    if (!v || v->type != KH_JSON_NUMBER) return -1;
    if (v->numkind == NUM_UINT && v->mag <= (uint64_t)INT64_MAX) {
        *out = (int64_t)v->mag;
        return 0;
    }
    if (v->numkind == NUM_NEG && v->mag <= (uint64_t)INT64_MAX + 1) {
        *out = v->mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v->mag;
        return 0;
    }
    return -1;
}

int kh_json_double(const kh_json_val *v, double *out)
{
    if (!v || v->type != KH_JSON_NUMBER || !isfinite(v->d)) return -1;
    *out = v->d;
    return 0;
}

int kh_json_bool(const kh_json_val *v, int *out)
{
    if (!v || (v->type != KH_JSON_TRUE && v->type != KH_JSON_FALSE)) return -1;
    *out = v->type == KH_JSON_TRUE;
    return 0;
}

/* "field 'k': number 1.5 is not an unsigned integer" and the like. */
static int refuse(const kh_json_val *v, const char *key, const char *want, char *err, size_t errlen)
{
    if (!err || !errlen) return -1;
    if (!v) {
        snprintf(err, errlen, "field '%s': missing (%s expected)", key, want);
        return -1;
    }
    const kh_json *d = v->doc;
    switch (v->type) {
    case KH_JSON_STRING:
        snprintf(err, errlen, "field '%s': string \"%.32s%s\" is not %s", key, d->chars + v->off, v->n > 32 ? "..." : "",
                 want);
        break;
    case KH_JSON_NUMBER:
        if (v->numkind == NUM_UINT) snprintf(err, errlen, "field '%s': number %llu is not %s", key, (unsigned long long)v->mag, want);
        else if (v->numkind == NUM_NEG)
            snprintf(err, errlen, "field '%s': number -%llu is not %s", key, (unsigned long long)v->mag, want);
        else if (v->numkind == NUM_BIG)
            snprintf(err, errlen, "field '%s': integer beyond 64 bits is not %s", key, want);
        else snprintf(err, errlen, "field '%s': number %.17g is not %s", key, v->d, want);
        break;
    default:
        snprintf(err, errlen, "field '%s': %s is not %s", key, kh_json_type_name((kh_json_type)v->type), want);
        break;
    }
    return -1;
}

int kh_json_get_str(const kh_json_val *obj, const char *key, const char **out, char *err, size_t errlen)
{
    const kh_json_val *v = kh_json_get(obj, key);
    const char *s = kh_json_str(v, NULL);
    if (!s) return refuse(v, key, "a string", err, errlen);
    *out = s;
    return 0;
}

int kh_json_get_u64(const kh_json_val *obj, const char *key, uint64_t *out, char *err, size_t errlen)
{
    const kh_json_val *v = kh_json_get(obj, key);
    if (kh_json_u64(v, out)) return refuse(v, key, "an unsigned 64-bit integer", err, errlen);
    return 0;
}

int kh_json_get_i64(const kh_json_val *obj, const char *key, int64_t *out, char *err, size_t errlen)
{
    const kh_json_val *v = kh_json_get(obj, key);
    if (kh_json_i64(v, out)) return refuse(v, key, "a signed 64-bit integer", err, errlen);
    return 0;
}

int kh_json_get_bool(const kh_json_val *obj, const char *key, int *out, char *err, size_t errlen)
{
    const kh_json_val *v = kh_json_get(obj, key);
    if (kh_json_bool(v, out)) return refuse(v, key, "true or false", err, errlen);
    return 0;
}

int kh_json_get_array(const kh_json_val *obj, const char *key, const kh_json_val **out, char *err, size_t errlen)
{
    const kh_json_val *v = kh_json_get(obj, key);
    if (!v || v->type != KH_JSON_ARRAY) return refuse(v, key, "an array", err, errlen);
    *out = v;
    return 0;
}

int kh_json_get_object(const kh_json_val *obj, const char *key, const kh_json_val **out, char *err, size_t errlen)
{
    const kh_json_val *v = kh_json_get(obj, key);
    if (!v || v->type != KH_JSON_OBJECT) return refuse(v, key, "an object", err, errlen);
    *out = v;
    return 0;
}
