/* Whole-file reading (include/kohaku/file.h). Stage-1 source: the table
 * loader uses it, so it includes no generated header. */
#include "kohaku/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

char *kh_file_read_stream(FILE *f, const char *what, size_t *len, char *err, size_t errlen)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f); /* one byte kept for the NUL */
        if (n + 1 < cap) break;                 /* short read: end of file or an error */
        char *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!nb) free(buf);
        buf = nb;
        cap *= 2;
    }
    if (!buf) {
        snprintf(err, errlen, "'%s': out of memory after %zu bytes", what, n);
        return NULL;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "cannot read '%s': %s", what, strerror(errno));
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

char *kh_file_read(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    char *buf = kh_file_read_stream(f, path, len, err, errlen);
    fclose(f);
    return buf;
}
