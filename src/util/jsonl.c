/* JSON Lines reading (json.h): a file read whole, then one value per line. */
#include "kohaku/json.h"
#include "kohaku/file.h"

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
    size_t len;
    char *text = kh_file_read(path, &len, err, errlen);
    if (!text) return -1;
    r->text = text;
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
