/* fuzz-line-seeds: vectors */
/* fuzz-max-len: 8192 */
/* libFuzzer target: the JSON reader (json.h) must accept or refuse any bytes
 * without crashing; a refusal says why and where, an accepted tree is
 * consistent (lengths, indices and keys agree). The seeds are the lines
 * of the JSON Lines vector files, one each (whole files made it crawl at
 * 57 exec/s); the input is also read line by line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const kh_json_val *root)
{
    size_t cap = 64, n = 0;
    const kh_json_val **stack = malloc(cap * sizeof *stack);
    if (!stack) return;
    stack[n++] = root;
    while (n) {
        const kh_json_val *v = stack[--n];
        kh_json_type t = kh_json_type_of(v);
        size_t len = kh_json_len(v);
        if ((t != KH_JSON_ARRAY && t != KH_JSON_OBJECT) && len) abort();
        if (kh_json_line(v) < 1 || kh_json_col(v) < 1) abort();
        if (t == KH_JSON_STRING) {
            size_t sl;
            const char *s = kh_json_str(v, &sl);
            if (!s || s[sl] != 0) abort();
        }
        for (size_t i = 0; i < len; i++) {
            const kh_json_val *c = kh_json_at(v, i);
            if (!c) abort();
            if (t == KH_JSON_OBJECT) {
                const char *k = kh_json_key_at(v, i);
                if (!k) abort();
                /* found by its key unless the key holds a \u0000 (C strings end there) */
                const kh_json_val *found = kh_json_get(v, k);
                if (found && kh_json_type_of(found) > KH_JSON_OBJECT) abort();
            }
            if (n == cap) {
                const kh_json_val **ns = realloc(stack, 2 * cap * sizeof *stack);
                if (!ns) break;
                stack = ns;
                cap *= 2;
            }
            stack[n++] = c;
        }
        if (kh_json_at(v, len) != NULL) abort();
    }
    free(stack);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kh_json_error e;
    kh_json *d = kh_json_parse((const char *)data, size, &e);
    if (d) {
        walk(kh_json_root(d));
        kh_json_free(d);
    } else if (!e.msg[0] || e.line < 1 || e.col < 1) {
        abort(); /* a refusal always says why and where */
    }
    kh_jsonl r;
    if (kh_jsonl_open_mem(&r, (const char *)data, size)) return 0;
    while (kh_jsonl_next(&r, &d, &e) > 0) {
        if (d) walk(kh_json_root(d));
        else if (!e.msg[0] || e.line != r.line) abort();
        kh_json_free(d);
    }
    kh_jsonl_close(&r);
    return 0;
}
