/* fuzz-max-len: 4096 */
/* libFuzzer target: kohaku serve's line protocol (docs/serve.md). Any
 * bytes on its input are answered line by line with OK, V ... or E ...,
 * nothing else, without a crash, a hang or a sanitizer report, on the
 * smallest machine (data/maps/mesh_1x1_min.txt, built per input). The
 * command's source is compiled in here: it is not part of the library.
 * Seeds: fuzz/seeds/fuzz_serve/. */
#include "../tools/kohaku/cmd_serve.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every reply line starts with OK, "V " or "E ". */
static int replies_ok(const char *text, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(text + i, '\n', len - i);
        if (!nl) return 0; /* every reply ends its line */
        if (strncmp(text + i, "OK\n", 3) && strncmp(text + i, "V ", 2) && strncmp(text + i, "E ", 2)) return 0;
        i = (size_t)(nl - text) + 1;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size) return 0; /* fmemopen refuses an empty buffer */
    FILE *in = fmemopen((void *)data, size, "r");
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!in || !out) abort();
    serve s = {.out = out, .card_map = 1};
    char err[512];
    if (kh_dev_open(&s.d, "data/maps/mesh_1x1_min.txt", NULL, NULL, 0, err, sizeof err)) abort();
    if (serve_lines(&s, in)) abort();
    kh_dev_close(s.d);
    fclose(in);
    fclose(out);
    if (!replies_ok(text, len)) abort();
    free(text);
    return 0;
}
