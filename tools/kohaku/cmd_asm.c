/* kohaku asm --unit UNIT [FILE]: assemble a unit program (../shared/cli.md). */
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
            "usage: kohaku asm --unit UNIT [FILE]\n\n"
            "Assemble a program for UNIT (%s) from FILE\n"
            "or standard input. A line is `MNEMONIC field=value ...`; '#' starts a comment.\n"
            "Values are decimal or 0x hex, negative decimals for signed fields, or enum names.\n"
            "An omitted field takes the table's default (cluster: nk 1, anchor 40; else 0).\n"
            "A word whose opcode has no name is written `OP op=N ...`. Any field of the layout\n"
            "is accepted on any opcode (a warning names a field the opcode does not use).\n"
            "Prints one word per line in hex (64 digits; 8 for vector-inner, where VSETI\n"
            "prints two lines). `kohaku isa UNIT` lists the fields.\n\n"
            "Exit status: 0 ok, 1 a line was refused (line number, field and value named),\n"
            "2 usage.\n",
            units);
}

int kh_cmd_asm(int argc, char **argv)
{
    cli_unit_input in;
    int rc = cli_unit_input_open("asm", argc, argv, help, &in);
    if (rc >= 0) return rc;
    const kh_isa_layout *l = in.layout;
    cli_report r = {"asm", in.where, 0, 0};
    uint64_t *w;
    size_t n;
    int errors = kh_isa_asm_text(l, in.text, &w, &n, cli_report_fn, &r);
    if (!errors) {
        unsigned width = kh_isa_layout_width(l), words = kh_isa_layout_words(l);
        char hex[KH_ISA_MAX_WIDTH / 4 + 1];
        for (size_t i = 0; i < n; i++) {
            kh_hex_format(w + i * words, (width + 3) / 4 * 4, hex);
            printf("%s\n", hex);
        }
    }
    free(w);
    cli_unit_input_free(&in);
    return errors ? 1 : 0;
}
