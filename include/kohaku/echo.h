/* Quoting what a user typed in a message: a bounded, whole-character copy.
 * A 100,000-digit argument must not fill the terminal, and a cut must not
 * leave half a UTF-8 character behind. */
#ifndef KOHAKU_ECHO_H
#define KOHAKU_ECHO_H

#include <stddef.h>

#define KH_ECHO_MAX 64 /* bytes of the text kept before "..." */

typedef struct kh_echo_buf {
    char s[KH_ECHO_MAX + 40];
} kh_echo_buf;

/* s itself if it has at most KH_ECHO_MAX bytes, else its first bytes cut on
 * a character boundary followed by "... (N bytes)", in b. */
const char *kh_echo(const char *s, kh_echo_buf *b);

/* The length of s's first n bytes cut back to a character boundary (a
 * UTF-8 sequence is kept whole or dropped). */
size_t kh_utf8_cut(const char *s, size_t n);

/* Drop a trailing incomplete UTF-8 sequence from msg (a snprintf that hit
 * its buffer's end may cut one in two). */
void kh_utf8_trim(char *msg);

#endif
