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
    char units[256];
    cli_unit_names(units, sizeof units);
    fprintf(out,
            "usage: kohaku dis --unit UNIT [FILE]\n\n"
            "Disassemble words for UNIT (%s) from FILE or\n"
            "standard input: one word per line in hex (64 digits; 8 for vector-inner), '_' allowed,\n"
            "'#' starts a comment. Prints the mnemonic and every field that differs from its\n"
            "default, in table order; `OP op=N ...` for an opcode without a name. The output\n"
            "assembles back to the same words (kohaku asm).\n\n"
            "Exit status: 0 ok, 1 a line is not a word (line number named), 2 usage.\n",
            units);
}

int kh_cmd_dis(int argc, char **argv)
{
    cli_unit_input in;
    int rc = cli_unit_input_open("dis", argc, argv, help, &in);
    if (rc >= 0) return rc;
    const kh_isa_layout *l = in.layout;
    unsigned width = kh_isa_layout_width(l), words = kh_isa_layout_words(l), lineno = 0;
    size_t n = 0, cap = 0;
    uint64_t *w = NULL;
    int bad = 0;
    for (char *p = in.text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        lineno++;
        char *hash = strchr(p, '#');
        if (hash) *hash = '\0';
        char *s = p + strspn(p, " \t\r");
        size_t len = strcspn(s, " \t\r");
        if (s[len] && s[len + strspn(s + len, " \t\r")]) {
            fprintf(stderr, "kohaku dis: %s: line %u: one word per line\n", in.where, lineno);
            bad++;
        } else if (len) {
            s[len] = '\0';
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                uint64_t *q = realloc(w, cap * words * sizeof *w);
                if (!q) {
                    fprintf(stderr, "kohaku dis: out of memory after %zu words\n", n);
                    bad++;
                    break;
                }
                w = q;
            }
            char err[128];
            if (kh_hex_parse(s, w + n * words, (width + 3) / 4 * 4, 1, err, sizeof err)) {
                fprintf(stderr, "kohaku dis: %s: line %u: '%s' is not a %u-bit word: %s\n",
                        in.where, lineno, s, width, err);
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
    cli_unit_input_free(&in);
    return bad ? 1 : 0;
}
