/* JSON Lines reading (json.h): a file read whole, then one value per line. */
#include "kohaku/json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kh_jsonl_open_mem(kh_jsonl *r, const char *text, size_t len)
{
    memset(r, 0, sizeof *r);
    r->text = malloc(len + 1);
    if (!r->text) return -1;
    if (len) memcpy(r->text, text, len);
    r->text[len] = 0;
    r->len = len;
    r->next_line = 1;
    return 0;
}

int kh_jsonl_open(kh_jsonl *r, const char *path, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            snprintf(err, errlen, "'%s': out of memory", path);
            return -1;
        }
        len += fread(buf + len, 1, cap - len, f);
        if (len < cap) break;
        char *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!nb) free(buf);
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        snprintf(err, errlen, "cannot read '%s'", path);
        return -1;
    }
    r->text = buf;
    r->len = len;
    r->next_line = 1;
    return 0;
}

int kh_jsonl_next(kh_jsonl *r, kh_json **doc, kh_json_error *err)
{
    *doc = NULL;
    while (r->pos < r->len) {
        size_t start = r->pos;
        const char *nl = memchr(r->text + start, '\n', r->len - start);
        size_t end = nl ? (size_t)(nl - r->text) : r->len;
        r->pos = nl ? end + 1 : r->len;
        r->line = r->next_line++;
        int blank = 1;
        for (size_t i = start; i < end && blank; i++)
            blank = r->text[i] == ' ' || r->text[i] == '\t' || r->text[i] == '\r';
        if (blank) continue;
        *doc = kh_json_parse(r->text + start, end - start, err);
        if (!*doc && err) err->line = r->line;
        return 1;
    }
    return 0;
}

void kh_jsonl_close(kh_jsonl *r)
{
    free(r->text);
    memset(r, 0, sizeof *r);
}
