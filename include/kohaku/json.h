/* A small JSON reader for the vector files (../shared/vectors/README.md).
 *
 * kh_json_parse() turns one JSON text (RFC 8259) into a read-only tree owned
 * by the returned document; values are reached by key or index and read
 * through typed getters. The parser is iterative (nesting costs heap, never
 * C stack), checks UTF-8, decodes every string escape (\uXXXX surrogate pairs
 * included) and keeps integers exact up to 64 bits. On bad input it returns
 * NULL and fills a kh_json_error with the 1-based line and column (in bytes)
 * of the first offending character and what was wrong.
 *
 * Typical use (one JSON object per line, as the *.jsonl files):
 *
 *     kh_jsonl r;  kh_json_error e;  kh_json *doc;  char msg[200];
 *     if (kh_jsonl_open(&r, path, msg, sizeof msg)) { ...refuse...; }
 *     while (kh_jsonl_next(&r, &doc, &e) > 0) {
 *         if (!doc) { printf("line %u column %u: %s\n", r.line, e.col, e.msg); continue; }
 *         uint64_t mode;
 *         if (kh_json_get_u64(kh_json_root(doc), "mode", &mode, msg, sizeof msg)) ...
 *         kh_json_free(doc);
 *     }
 *     kh_jsonl_close(&r);
 */
#ifndef KOHAKU_JSON_H
#define KOHAKU_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum kh_json_type {
    KH_JSON_NULL,
    KH_JSON_FALSE,
    KH_JSON_TRUE,
    KH_JSON_NUMBER,
    KH_JSON_STRING,
    KH_JSON_ARRAY,
    KH_JSON_OBJECT,
} kh_json_type;

typedef struct kh_json kh_json;         /* a parsed document; owns every value */
typedef struct kh_json_val kh_json_val; /* one value inside a document */

typedef struct kh_json_error {
    unsigned line, col; /* 1-based; col counts bytes from the line start */
    char msg[128];
} kh_json_error;

/* Parse len bytes of text (need not be NUL-terminated). Exactly one value,
 * surrounded by optional white space (and an optional UTF-8 BOM). Returns the
 * document, or NULL with *err filled (err may be NULL). */
kh_json *kh_json_parse(const char *text, size_t len, kh_json_error *err);
void kh_json_free(kh_json *doc);
const kh_json_val *kh_json_root(const kh_json *doc);

/* --- Navigation. Every function accepts NULL and then answers "absent". --- */
kh_json_type kh_json_type_of(const kh_json_val *v);  /* KH_JSON_NULL for NULL */
const char *kh_json_type_name(kh_json_type t);       /* "null", "string", ... */
/* Members of an object or elements of an array; 0 for anything else. */
size_t kh_json_len(const kh_json_val *v);
/* Element i of an array, or the value of member i of an object; NULL if out
 * of range. Members keep their order in the text. */
const kh_json_val *kh_json_at(const kh_json_val *v, size_t i);
/* Key of member i of an object (NUL-terminated); NULL if not an object. */
const char *kh_json_key_at(const kh_json_val *v, size_t i);
/* The value of the first member named key, or NULL (absent / not an object). */
const kh_json_val *kh_json_get(const kh_json_val *obj, const char *key);
/* Where the value starts in the text (1-based), for messages. */
unsigned kh_json_line(const kh_json_val *v);
unsigned kh_json_col(const kh_json_val *v);

/* --- Typed reads of one value. Each returns 0 on success, -1 if the value
 * is absent, has another type, or (numbers) is not exactly representable. */
/* A string's decoded UTF-8 bytes, NUL-terminated; *len (if not NULL) gets
 * the length, which counts an embedded \u0000. */
const char *kh_json_str(const kh_json_val *v, size_t *len);
int kh_json_u64(const kh_json_val *v, uint64_t *out); /* integer syntax, 0..2^64-1 */
int kh_json_i64(const kh_json_val *v, int64_t *out);  /* integer syntax, -2^63..2^63-1 */
int kh_json_double(const kh_json_val *v, double *out); /* any number (nearest double) */
int kh_json_bool(const kh_json_val *v, int *out);     /* true -> 1, false -> 0 */

/* --- Member getters with messages: on failure they return -1 and write to
 * err a sentence naming the field, what it holds and what was expected, e.g.
 * "field 'mode': string \"a\" is not an unsigned integer". */
int kh_json_get_str(const kh_json_val *obj, const char *key, const char **out, char *err, size_t errlen);
int kh_json_get_u64(const kh_json_val *obj, const char *key, uint64_t *out, char *err, size_t errlen);
int kh_json_get_i64(const kh_json_val *obj, const char *key, int64_t *out, char *err, size_t errlen);
int kh_json_get_bool(const kh_json_val *obj, const char *key, int *out, char *err, size_t errlen);
/* Member key must be an array / an object; *out receives it. */
int kh_json_get_array(const kh_json_val *obj, const char *key, const kh_json_val **out, char *err, size_t errlen);
int kh_json_get_object(const kh_json_val *obj, const char *key, const kh_json_val **out, char *err, size_t errlen);

/* --- JSON Lines files: one value per line, blank lines skipped. --- */
typedef struct kh_jsonl {
    char *text;       /* the whole file */
    size_t len, pos;  /* next unread byte */
    unsigned line;    /* line number of the value kh_jsonl_next returned */
    unsigned next_line;
} kh_jsonl;

/* Read the whole file. 0 ok; -1 with a message naming the file and the
 * system error in err. */
int kh_jsonl_open(kh_jsonl *r, const char *path, char *err, size_t errlen);
/* Same over a caller's buffer (copied). */
int kh_jsonl_open_mem(kh_jsonl *r, const char *text, size_t len);
/* Next non-blank line. Returns 1 and sets *doc (caller frees), or 1 with
 * *doc = NULL and *err filled (col relative to the line; err->line = r->line)
 * when the line is not one valid JSON value; 0 at end of file. */
int kh_jsonl_next(kh_jsonl *r, kh_json **doc, kh_json_error *err);
void kh_jsonl_close(kh_jsonl *r);

#endif
