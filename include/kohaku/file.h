/* Whole text files in memory: the one reader behind every command and
 * loader that takes a file (tables, vector files, programs). */
#ifndef KOHAKU_FILE_H
#define KOHAKU_FILE_H

#include <stddef.h>
#include <stdio.h>

/* The most any of these reads (a device such as /dev/zero or a pipe could
 * feed bytes without end): a longer input is refused. */
#define KH_FILE_MAX ((size_t)1 << 28)

/* Read f to its end into a NUL-terminated buffer the caller frees; *len
 * (if not NULL) gets the byte count, which an embedded NUL does not end.
 * NULL on a read error, out of memory or past KH_FILE_MAX bytes, with a
 * message naming `what` (a path, "standard input") and why in err. */
char *kh_file_read_stream(FILE *f, const char *what, size_t *len, char *err, size_t errlen);
/* The same for the file at path: "cannot open 'PATH': <system error>" when
 * it cannot be opened. */
char *kh_file_read(const char *path, size_t *len, char *err, size_t errlen);
/* The same for text (maps, sessions, tables, assembly): a file holding a
 * NUL byte is refused, "'WHAT' is not a text file (it holds a NUL byte)". */
char *kh_file_read_text_stream(FILE *f, const char *what, char *err, size_t errlen);
char *kh_file_read_text(const char *path, char *err, size_t errlen);

#endif
