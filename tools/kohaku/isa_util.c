#include "isa_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_report_fn(void *ctx, kh_isa_sev sev, const char *msg)
{
    cli_report *r = ctx;
    if (sev == KH_ISA_ERROR) r->errors++;
    else r->warnings++;
    fprintf(stderr, "kohaku %s: %s: %s\n", r->cmd, r->where, msg);
}

kh_isa *cli_open_isa(const char *cmd)
{
    char err[512];
    kh_isa *isa = kh_isa_open_builtin(err, sizeof err);
    if (!isa) fprintf(stderr, "kohaku %s: embedded tables: %s\n", cmd, err);
    return isa;
}

char *cli_read_text(const char *cmd, const char *path)
{
    int use_stdin = !path || !strcmp(path, "-");
    FILE *f = use_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "kohaku %s: %s: cannot open\n", cmd, path);
        return NULL;
    }
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *p = realloc(buf, cap *= 2);
            if (!p) free(buf);
            buf = p;
        }
    }
    if (!use_stdin) fclose(f);
    if (!buf) {
        fprintf(stderr, "kohaku %s: out of memory\n", cmd);
        return NULL;
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        fprintf(stderr, "kohaku %s: %s: contains a NUL byte; not a text file\n", cmd,
                use_stdin ? "standard input" : path);
        free(buf);
        return NULL;
    }
    return buf;
}

const kh_isa_layout *cli_unit(const char *cmd, const kh_isa *isa, const char *unit)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, unit);
    if (l) return l;
    fprintf(stderr, "kohaku %s: unknown unit '%s'; units:", cmd, unit);
    for (unsigned i = 0; i < kh_isa_count(isa); i++)
        if (kh_isa_layout_unit(kh_isa_at(isa, i))) fprintf(stderr, " %s", kh_isa_layout_unit(kh_isa_at(isa, i)));
    fprintf(stderr, "\n");
    return NULL;
}
