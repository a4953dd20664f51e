#include "isa_util.h"
#include "kohaku/bufcat.h"
#include "kohaku/echo.h"
#include "kohaku/file.h"

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
    const char *what = use_stdin ? "standard input" : path;
    char err[512];
    char *buf = use_stdin ? kh_file_read_text_stream(stdin, what, err, sizeof err)
                          : kh_file_read_text(path, err, sizeof err);
    if (!buf) fprintf(stderr, "kohaku %s: %s\n", cmd, err);
    return buf;
}

void cli_unit_names(char *buf, size_t len)
{
    char err[200];
    size_t used = 0;
    if (len) buf[0] = '\0';
    kh_isa *isa = kh_isa_open_builtin(err, sizeof err);
    for (unsigned i = 0; isa && i < kh_isa_count(isa); i++)
        if (kh_isa_layout_unit(kh_isa_at(isa, i)))
            kh_bufcat(buf, len, &used, "%s%s", used ? ", " : "", kh_isa_layout_unit(kh_isa_at(isa, i)));
    kh_isa_free(isa);
}

const kh_isa_layout *cli_unit(const char *cmd, const kh_isa *isa, const char *unit)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, unit);
    if (l) return l;
    kh_echo_buf b;
    fprintf(stderr, "kohaku %s: unknown unit '%s'; units:", cmd, kh_echo(unit, &b));
    for (unsigned i = 0; i < kh_isa_count(isa); i++)
        if (kh_isa_layout_unit(kh_isa_at(isa, i))) fprintf(stderr, " %s", kh_isa_layout_unit(kh_isa_at(isa, i)));
    fprintf(stderr, "\n");
    return NULL;
}

int cli_unit_input_open(const char *cmd, int argc, char **argv, void (*help)(FILE *),
                        cli_unit_input *in)
{
    const char *unit = NULL, *file = NULL;
    memset(in, 0, sizeof *in);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--unit")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku %s: --unit needs a value (a unit name)\n", cmd);
                help(stderr);
                return 2;
            }
            if (unit) {
                fprintf(stderr, "kohaku %s: --unit is given twice\n", cmd);
                return 2;
            }
            unit = argv[++i];
        } else if (!strncmp(argv[i], "--unit=", 7)) {
            if (unit) {
                fprintf(stderr, "kohaku %s: --unit is given twice\n", cmd);
                return 2;
            }
            unit = argv[i] + 7;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            kh_echo_buf b;
            fprintf(stderr, "kohaku %s: unknown option '%s'\n", cmd, kh_echo(argv[i], &b));
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
        fprintf(stderr, "kohaku %s: --unit UNIT is required\n", cmd);
        help(stderr);
        return 2;
    }
    in->isa = cli_open_isa(cmd);
    if (!in->isa) return 1;
    in->layout = cli_unit(cmd, in->isa, unit);
    in->text = in->layout ? cli_read_text(cmd, file) : NULL;
    if (!in->text) {
        int rc = 1; /* an unknown unit is a refused value, like an unreadable file */
        cli_unit_input_free(in);
        return rc;
    }
    in->where = file ? file : "-";
    return -1;
}

void cli_unit_input_free(cli_unit_input *in)
{
    free(in->text);
    kh_isa_free(in->isa);
    memset(in, 0, sizeof *in);
}
