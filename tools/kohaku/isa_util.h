/* Shared by the table-driven subcommands (flit, asm, dis, isa, demo). */
#ifndef KOHAKU_TOOLS_ISA_UTIL_H
#define KOHAKU_TOOLS_ISA_UTIL_H

#include <stdio.h>

#include "kohaku/isa.h"

/* Collects diagnostics from the engine and prints them to stderr as
 * "kohaku CMD: WHERE: message". */
typedef struct cli_report {
    const char *cmd;   /* "asm" */
    const char *where; /* file name, or "-" */
    int errors, warnings;
} cli_report;

void cli_report_fn(void *ctx, kh_isa_sev sev, const char *msg);
/* The embedded tables; NULL after printing why. */
kh_isa *cli_open_isa(const char *cmd);
/* A whole file, or standard input for NULL or "-"; NULL after printing why. */
char *cli_read_text(const char *cmd, const char *path);
/* "cluster, vector, ..." : the units the embedded tables define, in table
 * order, for help texts (empty if the tables do not load). */
void cli_unit_names(char *buf, size_t len);
/* The unit layout for --unit NAME; NULL after printing the known units. */
const kh_isa_layout *cli_unit(const char *cmd, const kh_isa *isa, const char *unit);

/* What `kohaku asm|dis --unit UNIT [FILE]` works on: the tables, the unit's
 * layout and the text of FILE (standard input without one). */
typedef struct cli_unit_input {
    kh_isa *isa;
    const kh_isa_layout *layout;
    char *text;
    const char *where; /* FILE, or "-" */
} cli_unit_input;

/* Parse `--unit UNIT [FILE]` (and --help, printed by help), open the tables,
 * find the unit, read the text. -1 when *in is ready (free it with
 * cli_unit_input_free); otherwise the exit status to return at once: 0
 * after --help, 1 input refused, 2 usage. */
int cli_unit_input_open(const char *cmd, int argc, char **argv, void (*help)(FILE *),
                        cli_unit_input *in);
void cli_unit_input_free(cli_unit_input *in);

#endif
