/* Shared by the table-driven subcommands (flit, asm, dis, isa, demo). */
#ifndef KOHAKU_TOOLS_ISA_UTIL_H
#define KOHAKU_TOOLS_ISA_UTIL_H

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
/* The unit layout for --unit NAME; NULL after printing the known units. */
const kh_isa_layout *cli_unit(const char *cmd, const kh_isa *isa, const char *unit);

#endif
