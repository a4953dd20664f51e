/* kohaku asm --unit UNIT [FILE]: assemble a unit program (../shared/cli.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "isa_util.h"
#include "kohaku/hex.h"

static void help(FILE *out)
{
    fprintf(out,
            "usage: kohaku asm --unit UNIT [FILE]\n\n"
            "Assemble a program for UNIT (cluster, vector, vector-inner, matmul, saxpy) from FILE\n"
            "or standard input. A line is `MNEMONIC field=value ...`; '#' starts a comment.\n"
            "Values are decimal or 0x hex, negative decimals for signed fields, or enum names.\n"
            "An omitted field takes the table's default (cluster: nk 1, anchor 40; else 0).\n"
            "A word whose opcode has no name is written `OP op=N ...`. Any field of the layout\n"
            "is accepted on any opcode (a warning names a field the opcode does not use).\n"
            "Prints one word per line in hex (64 digits; 8 for vector-inner, where VSETI\n"
            "prints two lines). `kohaku isa UNIT` lists the fields.\n\n"
            "Exit status: 0 ok, 1 a line was refused (line number, field and value named),\n"
            "2 usage.\n");
}

int kh_cmd_asm(int argc, char **argv)
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
            fprintf(stderr, "kohaku asm: unknown option '%s'\n", argv[i]);
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
        fprintf(stderr, "kohaku asm: --unit UNIT is required\n");
        help(stderr);
        return 2;
    }
    kh_isa *isa = cli_open_isa("asm");
    if (!isa) return 1;
    const kh_isa_layout *l = cli_unit("asm", isa, unit);
    char *text = l ? cli_read_text("asm", file) : NULL;
    if (!text) {
        kh_isa_free(isa);
        return l ? 1 : 2;
    }
    cli_report r = {"asm", file ? file : "-", 0, 0};
    uint64_t *w;
    size_t n;
    int errors = kh_isa_asm_text(l, text, &w, &n, cli_report_fn, &r);
    if (!errors) {
        unsigned width = kh_isa_layout_width(l), words = kh_isa_layout_words(l);
        char hex[KH_ISA_MAX_WIDTH / 4 + 1];
        for (size_t i = 0; i < n; i++) {
            kh_hex_format(w + i * words, (width + 3) / 4 * 4, hex);
            printf("%s\n", hex);
        }
    }
    free(w);
    free(text);
    kh_isa_free(isa);
    return errors ? 1 : 0;
}
