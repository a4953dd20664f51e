/* The markdown generator: the field table and opcode table of each layout
 * of one table, as docs/isa/ shows them. */
#include <string.h>

#include "isa/isa_int.h"

#define MAX_LAYOUTS 128

/* Table cells must not contain '|'. */
static void cell(FILE *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            fputs("\\|", out);
        else
            fputc(*s, out);
    }
}

static int op_uses(const isa_opcode *op, unsigned f)
{
    for (unsigned i = 0; i < op->nuses; i++)
        if (op->uses[i] == f) return 1;
    return 0;
}

static void field_notes(FILE *out, const kh_isa_layout *l, const isa_field *fd)
{
    const char *sep = "";
    (void)l;
    if (fd->flags & ISA_F_SIGNED) fprintf(out, "%ssigned", sep), sep = "; ";
    if (fd->flags & ISA_F_RESERVED) fprintf(out, "%sreserved, must be 0", sep), sep = "; ";
    if (fd->flags & ISA_F_IGNORED) fprintf(out, "%signored by the hardware", sep), sep = "; ";
    if (fd->flags & ISA_F_LINT) fprintf(out, "%snot read; nonzero draws a warning", sep), sep = "; ";
    if (fd->flags & ISA_F_VIEW) fprintf(out, "%sview", sep), sep = "; ";
    if (fd->flags & ISA_F_MAX) fprintf(out, "%smax %llu", sep, (unsigned long long)fd->max), sep = "; ";
    if (fd->zero) {
        fprintf(out, "%s0 means ", sep);
        cell(out, fd->zero);
        sep = "; ";
    }
    if (fd->nenums) {
        fprintf(out, "%s", sep);
        for (unsigned e = 0; e < fd->nenums; e++)
            fprintf(out, "%s%s = %llu", e ? ", " : "", fd->enums[e].name,
                    (unsigned long long)fd->enums[e].value);
        if (fd->flags & ISA_F_OPEN) fprintf(out, ", others legal");
        sep = "; ";
    }
    if (fd->doc) {
        fprintf(out, "%s", sep);
        cell(out, fd->doc);
    }
}

int kh_isa_emit_markdown(const kh_isa *isa, const char *table, FILE *out, char *err, size_t errlen)
{
    const kh_isa_layout *ls[MAX_LAYOUTS];
    unsigned n = kh_isa_table_layouts(isa, table, ls, MAX_LAYOUTS);
    if (n == 0 || n > MAX_LAYOUTS) {
        kh_isa_errf(err, errlen, "no table named %s", table);
        return -1;
    }
    fprintf(out, "<!-- generated from %s by kohaku isa --emit markdown; do not edit -->\n", ls[0]->path);
    fprintf(out, "# Table `%s`\n", table);
    for (unsigned i = 0; i < n; i++) {
        const kh_isa_layout *l = ls[i];
        fprintf(out, "\n## `%s` (%u bits)\n\n", l->name, l->width);
        if (l->doc) {
            cell(out, l->doc);
            fprintf(out, "\n\n");
        }
        if (l->unit[0]) fprintf(out, "Unit: `%s` (`kohaku asm --unit %s`).\n\n", l->unit, l->unit);
        if (l->type >= 0) fprintf(out, "Header type code: 0x%X.\n\n", (unsigned)l->type);
        if (l->nops) {
            fprintf(out, "| bits | field | width | default | used by | notes |\n|---|---|---|---|---|---|\n");
        } else {
            fprintf(out, "| bits | field | width | default | notes |\n|---|---|---|---|---|\n");
        }
        for (unsigned f = 0; f < l->nfields; f++) {
            const isa_field *fd = &l->fields[f];
            char range[96], dflt[80];
            kh_isa_val v;
            memset(&v, 0, sizeof v);
            v.w[0] = fd->dflt;
            kh_isa_range_text(fd, range, sizeof range);
            if (fd->flags & ISA_F_VIEW)
                snprintf(dflt, sizeof dflt, "—");
            else
                kh_isa_format_value(l, f, &v, dflt, sizeof dflt);
            fprintf(out, "| %s | %s | %u | %s |", range, fd->name, fd->width, dflt);
            if (l->nops) {
                fputc(' ', out);
                if ((int)f == l->opfield) {
                    fputs("all", out);
                } else {
                    int any = 0;
                    for (unsigned k = 0; k < l->nops; k++)
                        if (op_uses(&l->ops[k], f)) fprintf(out, "%s%s", any++ ? ", " : "", l->ops[k].name);
                    if (!any) fputs("—", out);
                }
                fputs(" |", out);
            }
            fputc(' ', out);
            field_notes(out, l, fd);
            fputs(" |\n", out);
        }
        if (l->nops) {
            fprintf(out, "\n| opcode | %s | uses | notes |\n|---|---|---|---|\n",
                     l->fields[l->opfield].name);
            for (unsigned k = 0; k < l->nops; k++) {
                const isa_opcode *op = &l->ops[k];
                fprintf(out, "| %s | %llu |", op->name, (unsigned long long)op->value);
                for (unsigned u = 1; u < op->nuses; u++)
                    fprintf(out, "%s%s", u > 1 ? ", " : " ", l->fields[op->uses[u]].name);
                if (op->nuses <= 1) fputs(" —", out);
                fputs(" | ", out);
                if (op->ext) fprintf(out, "second word: `%s`. ", op->ext->name);
                cell(out, op->doc);
                fputs(" |\n", out);
            }
        }
    }
    return 0;
}
