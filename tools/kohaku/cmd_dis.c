/* kohaku dis --unit UNIT [FILE]: disassemble words of a unit program
 * (../shared/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "isa_util.h"
#include "kohaku/hex.h"

static void help(FILE *out)
{
    fprintf(out,
            "usage: kohaku dis --unit UNIT [FILE]\n\n"
            "Disassemble words for UNIT (cluster, vector, vector-inner, matmul, saxpy) from FILE or\n"
            "standard input: one word per line in hex (64 digits; 8 for vector-inner), '_' allowed,\n"
            "'#' starts a comment. Prints the mnemonic and every field that differs from its\n"
            "default, in table order; `OP op=N ...` for an opcode without a name. The output\n"
            "assembles back to the same words (kohaku asm).\n\n"
            "Exit status: 0 ok, 1 a line is not a word (line number named), 2 usage.\n");
}

int kh_cmd_dis(int argc, char **argv)
{
    const char *unit = NULL, *file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--unit") && i + 1 < argc) {
            unit = argv[++i];
        } else if (!strncmp(argv[i], "--unit=", 7)) {
            unit = argv[i] + 7;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "kohaku dis: unknown option '%s'\n", argv[i]);
            help(stderr);
            return 2;
        } else if (!file) {
            file = argv[i];
        } else {
            help(stderr);
            return 2;
        }
    }
    if (!unit) {
        fprintf(stderr, "kohaku dis: --unit UNIT is required\n");
        help(stderr);
        return 2;
    }
    kh_isa *isa = cli_open_isa("dis");
    if (!isa) return 1;
    const kh_isa_layout *l = cli_unit("dis", isa, unit);
    char *text = l ? cli_read_text("dis", file) : NULL;
    if (!text) {
        kh_isa_free(isa);
        return l ? 1 : 2;
    }
    unsigned width = kh_isa_layout_width(l), words = kh_isa_layout_words(l), lineno = 0;
    size_t n = 0, cap = 0;
    uint64_t *w = NULL;
    int bad = 0;
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        lineno++;
        char *hash = strchr(p, '#');
        if (hash) *hash = '\0';
        char *s = p + strspn(p, " \t\r");
        size_t len = strcspn(s, " \t\r");
        if (s[len] && s[len + strspn(s + len, " \t\r")]) {
            fprintf(stderr, "kohaku dis: %s: line %u: one word per line\n", file ? file : "-", lineno);
            bad++;
        } else if (len) {
            s[len] = '\0';
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                uint64_t *q = realloc(w, cap * words * sizeof *w);
                if (!q) break;
                w = q;
            }
            char err[128];
            if (kh_hex_parse(s, w + n * words, (width + 3) / 4 * 4, 1, err, sizeof err)) {
                fprintf(stderr, "kohaku dis: %s: line %u: '%s' is not a %u-bit word: %s\n",
                        file ? file : "-", lineno, s, width, err);
                bad++;
            } else {
                n++;
            }
        }
        p = nl ? nl + 1 : p + strlen(p);
    }
    if (!bad) {
        char *out = kh_isa_dis_text(l, w, n);
        if (out) fputs(out, stdout);
        free(out);
    }
    free(w);
    free(text);
    kh_isa_free(isa);
    return bad ? 1 : 0;
}
