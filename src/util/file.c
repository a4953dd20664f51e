/* Whole-file reading (include/kohaku/file.h). Stage-1 source: the table
 * loader uses it, so it includes no generated header. */
#include "kohaku/file.h"
#include "kohaku/echo.h"

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
        if (cap >= KH_FILE_MAX) { /* a device or a pipe may never end: nothing grows without bound */
            snprintf(err, errlen, "'%s' is larger than %u MiB: not an input this reads whole", what,
                     (unsigned)(KH_FILE_MAX >> 20));
            free(buf);
            return NULL;
        }
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
        kh_echo_buf b;
        snprintf(err, errlen, "cannot open '%s': %s", kh_echo(path, &b), strerror(errno));
        return NULL;
    }
    char *buf = kh_file_read_stream(f, path, len, err, errlen);
    fclose(f);
    return buf;
}

/* buf (n bytes) if it is text, else NULL with the message (buf freed). */
static char *text_only(char *buf, size_t n, const char *what, char *err, size_t errlen)
{
    if (buf && memchr(buf, '\0', n)) {
        snprintf(err, errlen, "'%s' is not a text file (it holds a NUL byte)", what);
        free(buf);
        return NULL;
    }
    return buf;
}

char *kh_file_read_text_stream(FILE *f, const char *what, char *err, size_t errlen)
{
    size_t n = 0;
    char *buf = kh_file_read_stream(f, what, &n, err, errlen);
    return text_only(buf, n, what, err, errlen);
}

char *kh_file_read_text(const char *path, char *err, size_t errlen)
{
    size_t n = 0;
    char *buf = kh_file_read(path, &n, err, errlen);
    return text_only(buf, n, path, err, errlen);
}
