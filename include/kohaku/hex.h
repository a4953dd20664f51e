/* Hex text <-> little-endian word arrays (../shared/cli.md: most significant
 * digit first, no 0x, either case, '_' allowed as a separator on input). */
#ifndef KOHAKU_HEX_H
#define KOHAKU_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Parse s into nbits bits of w (ceil(nbits/64) words, zero-filled).
 * Requires exactly nbits/4 digits when exact != 0, else at most that many
 * (shorter input is zero-extended at the top). Returns 0, or -1 with a
 * message naming the problem (bad digit and its position, length) in err. */
int kh_hex_parse(const char *s, uint64_t *w, unsigned nbits, int exact, char *err, size_t errlen);
/* Write nbits (a multiple of 4) of w as nbits/4 lower-case digits + NUL. */
void kh_hex_format(const uint64_t *w, unsigned nbits, char *out);
/* Bytes in address order (byte i first, two digits each) <-> words, as the
 * vector files' "bytes" fields: byte i = bits [8i+7:8i]. */
int kh_hex_bytes_parse(const char *s, uint8_t *out, size_t n, char *err, size_t errlen);
void kh_hex_bytes_format(const uint8_t *b, size_t n, char *out);
/* A decimal or 0x-hex unsigned integer, whole string. 0 ok; KH_PARSE_NAN
 * not a number; KH_PARSE_TOO_BIG a number that does not fit 64 bits (so a
 * message can say which). */
#define KH_PARSE_NAN (-1)
#define KH_PARSE_TOO_BIG (-2)
int kh_parse_u64(const char *s, uint64_t *out);

#endif
