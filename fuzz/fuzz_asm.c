/* libFuzzer target: the assembler on arbitrary text, for every unit. The
 * first byte picks the unit. Whatever assembles must disassemble to text
 * that assembles back to the same words; no input may crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/isa.h"

static kh_isa *isa;
static const char *const units[] = {"cluster", "vector", "vector-inner", "matmul", "saxpy"};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char err[256];
    (void)argc;
    (void)argv;
    isa = kh_isa_open_builtin(err, sizeof err);
    if (!isa) abort();
    return 0;
}

static void ignore(void *ctx, kh_isa_sev s, const char *m) { (void)ctx, (void)s, (void)m; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192) return 0;
    const kh_isa_layout *l = kh_isa_find_unit(isa, units[data[0] % 5]);
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    uint64_t *w, *back;
    size_t n, nb;
    int errors = kh_isa_asm_text(l, text, &w, &n, ignore, NULL);
    if (!errors && n) {
        char *dis = kh_isa_dis_text(l, w, n);
        if (!dis) abort();
        if (kh_isa_asm_text(l, dis, &back, &nb, ignore, NULL) || nb != n ||
            memcmp(back, w, n * kh_isa_layout_words(l) * sizeof *w))
            abort(); /* asm(dis(w)) != w */
        for (size_t i = 0; i < n; i++) kh_isa_validate(l, w + i * kh_isa_layout_words(l), ignore, NULL);
        free(back);
        free(dis);
    }
    free(w);
    free(text);
    return 0;
}
