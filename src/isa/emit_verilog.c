/* The Verilog generator: one decode wire per field, sliced from the word the
 * way the RTL writes it (`wire [3:0] i_op = inst_flit[255 -: 4];`), split
 * fields as concatenations, plus localparams for opcodes and enum values. */
#include <string.h>

#include "isa/isa_int.h"

#define MAX_LAYOUTS 128

/* The vector the wires slice: a unit instruction is inst_flit (256-bit
 * payload, as noc_cu_base hands it over) or inst (a core's own word); flit
 * layouts slice flit; register words slice wdata. */
static const char *source_name(const kh_isa_layout *l)
{
    if (l->unit[0]) return l->width == 256 ? "inst_flit" : "inst";
    if (l->type >= 0 || l->width == 288) return "flit";
    return "wdata";
}

static void slice(FILE *out, const char *vec, const isa_part *p)
{
    unsigned w = p->hi - p->lo + 1;
    if (w == 1)
        fprintf(out, "%s[%u]", vec, p->hi);
    else
        fprintf(out, "%s[%u -: %u]", vec, p->hi, w);
}

int kh_isa_emit_verilog(const kh_isa *isa, const char *table, FILE *out, char *err, size_t errlen)
{
    const kh_isa_layout *ls[MAX_LAYOUTS];
    unsigned n = kh_isa_table_layouts(isa, table, ls, MAX_LAYOUTS);
    if (n == 0 || n > MAX_LAYOUTS) {
        kh_isa_errf(err, errlen, "no table named %s", table);
        return -1;
    }
    fprintf(out, "// generated from %s by kohaku isa --emit verilog; do not edit\n", ls[0]->path);
    for (unsigned i = 0; i < n; i++) {
        const kh_isa_layout *l = ls[i];
        const char *vec = source_name(l);
        char uc[ISA_NAME];
        kh_isa_cname(l->name, 1, uc, sizeof uc);
        fprintf(out, "\n// ==== layout %s (%u bits), sliced from %s [%u:0]%s%s ====\n", l->name,
                l->width, vec, l->width - 1, l->doc ? ": " : "", l->doc ? l->doc : "");
        if (l->opfield >= 0) {
            unsigned ow = l->fields[l->opfield].width;
            for (unsigned k = 0; k < l->nops; k++) {
                char on[ISA_NAME];
                kh_isa_cname(l->ops[k].name, 1, on, sizeof on);
                fprintf(out, "localparam %s_OP_%s = %u'd%llu;\n", uc, on, ow,
                        (unsigned long long)l->ops[k].value);
            }
        }
        for (unsigned f = 0; f < l->nfields; f++) {
            const isa_field *fd = &l->fields[f];
            char fu[ISA_NAME], fl[ISA_NAME], wname[2 * ISA_NAME + 2], decl[32];
            kh_isa_cname(fd->name, 1, fu, sizeof fu);
            kh_isa_cname(fd->name, 0, fl, sizeof fl);
            for (unsigned e = 0; e < fd->nenums; e++) {
                char en[ISA_NAME];
                kh_isa_cname(fd->enums[e].name, 1, en, sizeof en);
                fprintf(out, "localparam %s_%s_%s = %u'h%llx;\n", uc, fu, en, fd->width,
                        (unsigned long long)fd->enums[e].value);
            }
            if (l->unit[0]) {
                snprintf(wname, sizeof wname, "i_%s", fl);
            } else {
                char lc[ISA_NAME];
                kh_isa_cname(l->name, 0, lc, sizeof lc);
                snprintf(wname, sizeof wname, "%s_%s", lc, fl);
            }
            if (fd->width == 1)
                snprintf(decl, sizeof decl, "wire%s", fd->flags & ISA_F_SIGNED ? " signed" : "");
            else
                snprintf(decl, sizeof decl, "wire%s [%u:0]", fd->flags & ISA_F_SIGNED ? " signed" : "",
                         fd->width - 1);
            fprintf(out, "%-18s %s = ", decl, wname);
            if (fd->nparts == 1) {
                slice(out, vec, &fd->part[0]);
            } else {
                fputc('{', out);
                for (unsigned p = 0; p < fd->nparts; p++) {
                    if (p) fputs(", ", out);
                    slice(out, vec, &fd->part[p]);
                }
                fputc('}', out);
            }
            fputc(';', out);
            const char *kind = fd->flags & ISA_F_RESERVED ? "reserved, must be 0"
                               : fd->flags & ISA_F_IGNORED ? "ignored by the hardware"
                               : fd->flags & ISA_F_VIEW    ? "view"
                                                           : NULL;
            if (kind || fd->doc)
                fprintf(out, "  // %s%s%s", kind ? kind : "", kind && fd->doc ? "; " : "",
                        fd->doc ? fd->doc : "");
            fputc('\n', out);
        }
    }
    return 0;
}
