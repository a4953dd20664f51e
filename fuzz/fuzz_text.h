/* The fuzzer's bytes as the NUL-terminated text the readers take (a NUL
 * among them ends the text early, as in a C string). Shared by the
 * targets that fuzz a text reader; the caller frees. */
#ifndef KOHAKU_FUZZ_TEXT_H
#define KOHAKU_FUZZ_TEXT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return NULL;
    memcpy(text, data, size);
    text[size] = 0;
    return text;
}

#endif
