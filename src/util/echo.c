/* Bounded quotes of user text (include/kohaku/echo.h). Stage-1 source. */
#include "kohaku/echo.h"

#include <stdio.h>
#include <string.h>

static int is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

/* Bytes in the sequence a lead byte starts (1 for ASCII or a stray byte). */
static size_t seq_len(unsigned char c)
{
    return c >= 0xF0 && c < 0xF8 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

size_t kh_utf8_cut(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    if (len < n) return len;
    size_t lead = n;
    while (lead > 0 && n - lead < 4 && is_cont((unsigned char)s[lead - 1])) lead--;
    if (lead == 0 || n - lead >= 4) return n; /* no lead byte near: not UTF-8, cut anywhere */
    unsigned char c = (unsigned char)s[lead - 1];
    if (c < 0xC0) return n; /* the run follows an ASCII byte: stray bytes */
    return lead - 1 + seq_len(c) <= n ? n : lead - 1;
}

const char *kh_echo(const char *s, kh_echo_buf *b)
{
    size_t len = strlen(s);
    if (len <= KH_ECHO_MAX) return s;
    size_t keep = kh_utf8_cut(s, KH_ECHO_MAX);
    snprintf(b->s, sizeof b->s, "%.*s... (%zu bytes)", (int)keep, s, len);
    return b->s;
}

void kh_utf8_trim(char *msg)
{
    size_t len = strlen(msg);
    msg[kh_utf8_cut(msg, len)] = '\0';
}
