/* Appending formatted text to a fixed buffer (hang reports, stats JSON,
 * messages). One helper so no caller computes `len - used` after a
 * truncation (a size_t underflow) or forms a pointer past the buffer. */
#ifndef KOHAKU_BUFCAT_H
#define KOHAKU_BUFCAT_H

#include <stdarg.h>
#include <stddef.h>

/* Append printf-style text at buf[*used]. The text is cut to fit; buf stays
 * NUL-terminated and *used stays below len (nothing happens when len is 0).
 * Returns 1 if the whole text fit, 0 if it was cut. */
int kh_bufcat(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int kh_vbufcat(char *buf, size_t len, size_t *used, const char *fmt, va_list ap);

#endif
