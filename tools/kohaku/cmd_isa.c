/* kohaku isa [--emit c-header|verilog|markdown] [NAME]: list the tables or
 * generate from them (../shared/cli.md). */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "isa_util.h"

static void help(FILE *out)
{
    char units[256];
    cli_unit_names(units, sizeof units);
    fprintf(out,
            "usage: kohaku isa                         list every table and layout\n"
            "       kohaku isa NAME                    the fields and opcodes of a unit or layout\n"
            "       kohaku isa --emit KIND NAME        generate from a table\n\n"
            "KIND: c-header (the accessors of <kohaku/gen/TABLE.h>), verilog (decode wires,\n"
            "e.g. `wire [3:0] i_op = inst_flit[255 -: 4];`) or markdown (the field tables).\n"
            "NAME: a unit (%s), a layout (hdr,\n"
            "mem_rd_req, mover_ctrl, ...) or a table (flit, mover, regs, ...); the whole table\n"
            "holding it is emitted. The tables are isa/*.isa, embedded in the binary.\n\n"
            "Exit status: 0 ok, 1 unknown NAME, 2 usage.\n",
            units);
}

/* The table a unit, layout or table name refers to; NULL if none. */
static const char *table_of(const kh_isa *isa, const char *name)
{
    for (unsigned i = 0; i < kh_isa_table_count(isa); i++)
        if (!strcmp(kh_isa_table_name(isa, i), name)) return kh_isa_table_name(isa, i);
    const kh_isa_layout *l = kh_isa_find_unit(isa, name);
    if (!l) l = kh_isa_find(isa, name);
    return l ? kh_isa_layout_table(l) : NULL;
}

static void list_all(const kh_isa *isa)
{
    for (unsigned t = 0; t < kh_isa_table_count(isa); t++) {
        const char *tn = kh_isa_table_name(isa, t);
        printf("table %s\n", tn);
        for (unsigned i = 0; i < kh_isa_count(isa); i++) {
            const kh_isa_layout *l = kh_isa_at(isa, i);
            if (strcmp(kh_isa_layout_table(l), tn)) continue;
            printf("  %-16s %3u bits", kh_isa_layout_name(l), kh_isa_layout_width(l));
            if (kh_isa_layout_unit(l)) printf("  unit %s", kh_isa_layout_unit(l));
            if (kh_isa_layout_type(l) >= 0) printf("  type 0x%X", (unsigned)kh_isa_layout_type(l));
            printf("\n");
        }
    }
}

static void list_layout(const kh_isa_layout *l)
{
    printf("%s: %u bits, table %s (%s)\n", kh_isa_layout_name(l), kh_isa_layout_width(l),
           kh_isa_layout_table(l), kh_isa_layout_path(l));
    if (*kh_isa_layout_doc(l)) printf("  %s\n", kh_isa_layout_doc(l));
    for (unsigned f = 0; f < kh_isa_field_count(l); f++) {
        char range[96];
        kh_isa_field_range(l, f, range, sizeof range);
        printf("  %-22s %-14s %3u bits%s%s\n", range, kh_isa_field_name(l, f), kh_isa_field_width(l, f),
               kh_isa_field_is_signed(l, f) ? " signed" : "", kh_isa_field_is_view(l, f) ? " view" : "");
    }
    for (unsigned i = 0; i < kh_isa_op_count(l); i++)
        printf("  opcode %-10s = %llu\n", kh_isa_op_name(l, i), (unsigned long long)kh_isa_op_value(l, i));
}

int kh_cmd_isa(int argc, char **argv)
{
    const char *emit = NULL, *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--emit") && i + 1 < argc) {
            emit = argv[++i];
        } else if (!strncmp(argv[i], "--emit=", 7)) {
            emit = argv[i] + 7;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "kohaku isa: unknown option '%s'\n", argv[i]);
            help(stderr);
            return 2;
        } else if (!name) {
            name = argv[i];
        } else {
            help(stderr);
            return 2;
        }
    }
    if (emit && (!name || (strcmp(emit, "c-header") && strcmp(emit, "verilog") && strcmp(emit, "markdown")))) {
        fprintf(stderr, "kohaku isa: --emit takes c-header, verilog or markdown and a NAME\n");
        help(stderr);
        return 2;
    }
    kh_isa *isa = cli_open_isa("isa");
    if (!isa) return 1;
    int rc = 0;
    if (!name) {
        list_all(isa);
    } else if (!emit) {
        const kh_isa_layout *l = kh_isa_find_unit(isa, name);
        if (!l) l = kh_isa_find(isa, name);
        const char *table = table_of(isa, name);
        if (l) {
            list_layout(l);
        } else if (table) {
            for (unsigned i = 0; i < kh_isa_count(isa); i++)
                if (!strcmp(kh_isa_layout_table(kh_isa_at(isa, i)), table)) list_layout(kh_isa_at(isa, i));
        } else {
            fprintf(stderr, "kohaku isa: no unit, layout or table named '%s' (kohaku isa lists them)\n", name);
            rc = 1;
        }
    } else {
        const char *table = table_of(isa, name);
        char err[256];
        if (!table) {
            fprintf(stderr, "kohaku isa: no unit, layout or table named '%s' (kohaku isa lists them)\n", name);
            rc = 1;
        } else {
            int r = !strcmp(emit, "c-header") ? kh_isa_emit_c_header(isa, table, stdout, err, sizeof err)
                    : !strcmp(emit, "verilog") ? kh_isa_emit_verilog(isa, table, stdout, err, sizeof err)
                                               : kh_isa_emit_markdown(isa, table, stdout, err, sizeof err);
            if (r) {
                fprintf(stderr, "kohaku isa: %s\n", err);
                rc = 1;
            }
        }
    }
    kh_isa_free(isa);
    return rc;
}
