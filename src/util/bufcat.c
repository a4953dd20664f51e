#include "kohaku/bufcat.h"

#include <stdio.h>

int kh_vbufcat(char *buf, size_t len, size_t *used, const char *fmt, va_list ap)
{
    if (!len) return 0;
    if (*used >= len) *used = len - 1; /* a caller's count past the end: clamp */
    size_t room = len - *used;
    int w = vsnprintf(buf + *used, room, fmt, ap);
    if (w < 0) {
        buf[*used] = '\0';
        return 0;
    }
    if ((size_t)w < room) {
        *used += (size_t)w;
        return 1;
    }
    *used = len - 1; /* cut: vsnprintf wrote room - 1 characters and the NUL */
    return 0;
}

int kh_bufcat(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int fit = kh_vbufcat(buf, len, used, fmt, ap);
    va_end(ap);
    return fit;
}
