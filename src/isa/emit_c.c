/* The C header generator: accessors for every field of one table
 * (docs/isa-format.md, "Generated C API"). */
#include <stdlib.h>
#include <string.h>

#include "isa/isa_int.h"

#define MAX_LAYOUTS 128

typedef struct names {
    char (*v)[160];
    unsigned n, cap;
} names;

/* Record a generated identifier; refuse a duplicate (two layouts or fields
 * whose names map to the same C name). */
static int name_add(names *ns, const char *s, char *err, size_t errlen)
{
    for (unsigned i = 0; i < ns->n; i++)
        if (!strcmp(ns->v[i], s)) {
            kh_isa_errf(err, errlen, "generated name %s is defined twice (rename a field, enum or opcode)", s);
            return -1;
        }
    if (ns->n == ns->cap) {
        ns->cap = ns->cap ? 2 * ns->cap : 256;
        void *p = realloc(ns->v, ns->cap * sizeof *ns->v);
        if (!p) {
            kh_isa_errf(err, errlen, "out of memory");
            return -1;
        }
        ns->v = p;
    }
    snprintf(ns->v[ns->n++], sizeof ns->v[0], "%s", s);
    return 0;
}

/* One-line comment text: no comment terminators. */
static void comment_text(const char *s, char *out, size_t outlen)
{
    size_t k = 0;
    for (; s && *s && k + 1 < outlen; s++) {
        if (s[0] == '*' && s[1] == '/') {
            out[k++] = '*';
            if (k + 1 < outlen) out[k++] = ' ';
            continue;
        }
        out[k++] = *s;
    }
    out[k] = '\0';
}

static void attr_text(const isa_field *fd, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s%s%s%s%s", fd->flags & ISA_F_SIGNED ? " signed" : "",
             fd->flags & ISA_F_RESERVED ? " reserved" : "", fd->flags & ISA_F_IGNORED ? " ignored" : "",
             fd->flags & ISA_F_VIEW ? " view" : "", fd->flags & ISA_F_LINT ? " lint" : "");
}

static int emit_field(const isa_field *fd, const char *lc, const char *uc,
                      FILE *out, names *ns, char *err, size_t errlen)
{
    char fl[ISA_NAME], fu[ISA_NAME], id[160], range[96], doc[400], attrs[64];
    kh_isa_cname(fd->name, 0, fl, sizeof fl);
    kh_isa_cname(fd->name, 1, fu, sizeof fu);
    kh_isa_range_text(fd, range, sizeof range);
    comment_text(fd->doc, doc, sizeof doc);
    attr_text(fd, attrs, sizeof attrs);
    fprintf(out, "\n/* %s %s%s%s%s */\n", fd->name, range, attrs, doc[0] ? ": " : "", doc);
    snprintf(id, sizeof id, "KH_%s_%s_WIDTH", uc, fu);
    if (name_add(ns, id, err, errlen)) return -1;
    fprintf(out, "#define %s %u\n", id, fd->width);
    if (fd->nparts == 1) { /* a contiguous field's lowest bit, for code that derives positions */
        snprintf(id, sizeof id, "KH_%s_%s_LO", uc, fu);
        if (name_add(ns, id, err, errlen)) return -1;
        fprintf(out, "#define %s %u\n", id, fd->part[0].lo);
    }
    if (fd->dflt) {
        snprintf(id, sizeof id, "KH_%s_%s_DEFAULT", uc, fu);
        if (name_add(ns, id, err, errlen)) return -1;
        fprintf(out, "#define %s UINT64_C(%llu) /* value an omitted field takes */\n", id,
                (unsigned long long)fd->dflt);
    }
    if (fd->flags & ISA_F_MAX) {
        snprintf(id, sizeof id, "KH_%s_%s_MAX", uc, fu);
        if (name_add(ns, id, err, errlen)) return -1;
        fprintf(out, "#define %s UINT64_C(%llu) /* largest legal value */\n", id,
                (unsigned long long)fd->max);
    }
    for (unsigned i = 0; i < fd->nenums; i++) {
        char en[ISA_NAME];
        kh_isa_cname(fd->enums[i].name, 1, en, sizeof en);
        snprintf(id, sizeof id, "KH_%s_%s_%s", uc, fu, en);
        if (name_add(ns, id, err, errlen)) return -1;
        fprintf(out, "#define %s 0x%llx /* %s = %s */\n", id, (unsigned long long)fd->enums[i].value,
                fd->name, fd->enums[i].name);
    }
    if (fd->width <= 64) {
        snprintf(id, sizeof id, "kh_%s_%s", lc, fl);
        if (name_add(ns, id, err, errlen)) return -1;
        fprintf(out, "static inline uint64_t %s(const uint64_t *w)\n{\n    return ", id);
        unsigned shift = fd->width;
        for (unsigned i = 0; i < fd->nparts; i++) {
            unsigned pw = fd->part[i].hi - fd->part[i].lo + 1;
            shift -= pw;
            if (i) fprintf(out, " | ");
            if (shift)
                fprintf(out, "kh_bits_get(w, %u, %u) << %u", fd->part[i].lo, pw, shift);
            else
                fprintf(out, "kh_bits_get(w, %u, %u)", fd->part[i].lo, pw);
        }
        fprintf(out, ";\n}\n");
        snprintf(id, sizeof id, "kh_%s_set_%s", lc, fl);
        if (name_add(ns, id, err, errlen)) return -1;
        fprintf(out, "static inline void %s(uint64_t *w, uint64_t v)\n{\n", id);
        shift = fd->width;
        for (unsigned i = 0; i < fd->nparts; i++) {
            unsigned pw = fd->part[i].hi - fd->part[i].lo + 1;
            shift -= pw;
            if (shift)
                fprintf(out, "    kh_bits_set(w, %u, %u, v >> %u);\n", fd->part[i].lo, pw, shift);
            else
                fprintf(out, "    kh_bits_set(w, %u, %u, v);\n", fd->part[i].lo, pw);
        }
        fprintf(out, "}\n");
        if (fd->flags & ISA_F_SIGNED) {
            snprintf(id, sizeof id, "kh_%s_%s_s", lc, fl);
            if (name_add(ns, id, err, errlen)) return -1;
            uint64_t m = fd->width == 64 ? ~UINT64_C(0) : (UINT64_C(1) << fd->width) - 1;
            fprintf(out,
                    "static inline int64_t %s(const uint64_t *w)\n{\n"
                    "    uint64_t v = kh_%s_%s(w);\n"
                    "    return (v >> %u) & 1 ? -(int64_t)(~v & UINT64_C(0x%llx)) - 1 : (int64_t)v;\n}\n",
                    id, lc, fl, fd->width - 1, (unsigned long long)m);
        }
        return 0;
    }
    /* Wider than 64 bits: whole words in and out, ceil(width / 64) of them. */
    unsigned nw = (fd->width + 63) / 64;
    snprintf(id, sizeof id, "kh_%s_%s_get", lc, fl);
    if (name_add(ns, id, err, errlen)) return -1;
    fprintf(out, "static inline void %s(const uint64_t *w, uint64_t *out)\n{\n", id);
    for (unsigned k = 0; k < nw; k++) fprintf(out, "    out[%u] = 0;\n", k);
    unsigned pos = 0;
    for (unsigned i = fd->nparts; i-- > 0;) {
        unsigned pw = fd->part[i].hi - fd->part[i].lo + 1;
        for (unsigned k = 0; k < pw; k += 64) {
            unsigned n = pw - k < 64 ? pw - k : 64;
            fprintf(out, "    kh_bits_set(out, %u, %u, kh_bits_get(w, %u, %u));\n", pos + k, n,
                    fd->part[i].lo + k, n);
        }
        pos += pw;
    }
    fprintf(out, "}\n");
    snprintf(id, sizeof id, "kh_%s_set_%s", lc, fl);
    if (name_add(ns, id, err, errlen)) return -1;
    fprintf(out, "static inline void %s(uint64_t *w, const uint64_t *in)\n{\n", id);
    pos = 0;
    for (unsigned i = fd->nparts; i-- > 0;) {
        unsigned pw = fd->part[i].hi - fd->part[i].lo + 1;
        for (unsigned k = 0; k < pw; k += 64) {
            unsigned n = pw - k < 64 ? pw - k : 64;
            fprintf(out, "    kh_bits_set(w, %u, %u, kh_bits_get(in, %u, %u));\n", fd->part[i].lo + k,
                    n, pos + k, n);
        }
        pos += pw;
    }
    fprintf(out, "}\n");
    return 0;
}

int kh_isa_emit_c_header(const kh_isa *isa, const char *table, FILE *out, char *err, size_t errlen)
{
    const kh_isa_layout *ls[MAX_LAYOUTS];
    unsigned n = kh_isa_table_layouts(isa, table, ls, MAX_LAYOUTS);
    names ns = {0};
    int rc = 0;
    char tu[ISA_NAME];
    if (n == 0) {
        kh_isa_errf(err, errlen, "no table named %s", table);
        return -1;
    }
    if (n > MAX_LAYOUTS) {
        kh_isa_errf(err, errlen, "table %s has %u layouts; at most %d", table, n, MAX_LAYOUTS);
        return -1;
    }
    kh_isa_cname(table, 1, tu, sizeof tu);
    fprintf(out, "/* generated from %s by isagen; do not edit */\n", ls[0]->path);
    fprintf(out, "#ifndef KOHAKU_GEN_%s_H\n#define KOHAKU_GEN_%s_H\n\n", tu, tu);
    fprintf(out, "#include <stdint.h>\n\n#include \"kohaku/bits.h\"\n");
    for (unsigned i = 0; i < n && !rc; i++) {
        const kh_isa_layout *l = ls[i];
        char lc[ISA_NAME], uc[ISA_NAME], id[160], doc[400];
        kh_isa_cname(l->name, 0, lc, sizeof lc);
        kh_isa_cname(l->name, 1, uc, sizeof uc);
        comment_text(l->doc, doc, sizeof doc);
        fprintf(out, "\n/* ==== layout %s (%u bits)%s%s ==== */\n", l->name, l->width,
                doc[0] ? ": " : "", doc);
        snprintf(id, sizeof id, "KH_%s_WIDTH", uc);
        if ((rc = name_add(&ns, id, err, errlen))) break;
        fprintf(out, "#define %s %u\n", id, l->width);
        if (l->type >= 0) {
            snprintf(id, sizeof id, "KH_%s_TYPE", uc);
            if ((rc = name_add(&ns, id, err, errlen))) break;
            fprintf(out, "#define %s 0x%x /* header type code of this payload */\n", id, l->type);
        }
        for (unsigned k = 0; k < l->nops && !rc; k++) {
            char on[ISA_NAME], od[400];
            kh_isa_cname(l->ops[k].name, 1, on, sizeof on);
            comment_text(l->ops[k].doc, od, sizeof od);
            snprintf(id, sizeof id, "KH_%s_OP_%s", uc, on);
            if ((rc = name_add(&ns, id, err, errlen))) break;
            fprintf(out, "#define %s 0x%llx /* opcode %s%s%s */\n", id,
                    (unsigned long long)l->ops[k].value, l->ops[k].name, od[0] ? ": " : "", od);
        }
        for (unsigned f = 0; f < l->nfields && !rc; f++)
            rc = emit_field(&l->fields[f], lc, uc, out, &ns, err, errlen);
    }
    free(ns.v);
    if (rc) return -1;
    fprintf(out, "\n#endif\n");
    return 0;
}
