/* The assembler and disassembler of one layout (../shared/cli.md, asm/dis).
 *
 * A word is built from the opcode's defaults: every field of the opcode's
 * print set (docs/isa-format.md) takes its default, the opfield the
 * opcode's value, then each field=value of the line is written. The
 * disassembler prints exactly the print-set fields that differ from their
 * defaults; since the print set covers every bit, asm(dis(w)) == w. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_int.h"

#define MAX_ASM_TOKENS 96
#define MAX_LINE 4096

typedef struct asm_ctx {
    kh_isa_report_fn report;
    void *ctx;
    unsigned lineno;
} asm_ctx;

static int asm_err(asm_ctx *a, kh_isa_sev sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int asm_err(asm_ctx *a, kh_isa_sev sev, const char *fmt, ...)
{
    char msg[600];
    int k = snprintf(msg, sizeof msg, "line %u: %s", a->lineno, sev == KH_ISA_WARN ? "warning: " : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + k, sizeof msg - (size_t)k, fmt, ap);
    va_end(ap);
    if (a->report) a->report(a->ctx, sev, msg);
    return -1;
}

static int field_by_name(const kh_isa_layout *l, const char *name)
{
    for (unsigned i = 0; i < l->nfields; i++)
        if (!strcmp(l->fields[i].name, name)) return (int)i;
    return -1;
}

static int overlaps(const isa_field *a, const isa_field *b)
{
    for (unsigned i = 0; i < a->nparts; i++)
        for (unsigned j = 0; j < b->nparts; j++)
            if (a->part[i].lo <= b->part[j].hi && b->part[j].lo <= a->part[i].hi) return 1;
    return 0;
}

static void set_defaults(const kh_isa_layout *l, uint64_t *w, const unsigned *show, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (l->fields[show[i]].dflt) kh_isa_set64(l, w, show[i], l->fields[show[i]].dflt);
}

/* Validator errors become assembler warnings; its own warnings (lint, an
 * unnamed opcode) repeat what the assembler already says. */
static void validate_as_warning(void *ctx, kh_isa_sev sev, const char *msg)
{
    if (sev == KH_ISA_ERROR) asm_err(ctx, KH_ISA_WARN, "%s", msg);
}

typedef struct assign {
    const kh_isa_layout *l;
    unsigned f;
    kh_isa_val v;
} assign;

int kh_isa_asm_line(const kh_isa_layout *l, const char *line, unsigned lineno, uint64_t *out,
                    unsigned *nout, kh_isa_report_fn report, void *ctx)
{
    asm_ctx a = {report, ctx, lineno};
    char buf[MAX_LINE];
    char *tok[MAX_ASM_TOKENS];
    int n = 0;
    *nout = 0;
    size_t len = strcspn(line, "#\n");
    if (len >= sizeof buf) return asm_err(&a, KH_ISA_ERROR, "line is longer than %d characters", MAX_LINE - 1);
    memcpy(buf, line, len);
    buf[len] = '\0';
    char *save = NULL; /* strtok_r: strtok keeps hidden state shared by every caller */
    for (char *p = strtok_r(buf, " \t\r", &save); p; p = strtok_r(NULL, " \t\r", &save)) {
        if (n == MAX_ASM_TOKENS) return asm_err(&a, KH_ISA_ERROR, "more than %d fields", MAX_ASM_TOKENS - 1);
        tok[n++] = p;
    }
    if (n == 0) return 0;

    const isa_opcode *op = NULL;
    const unsigned *show = l->raw_show;
    unsigned nshow = l->nraw_show, first = 0;
    const char *mn = "";
    int raw = 0;
    if (l->opfield < 0 && !strchr(tok[0], '=')) {
        /* a layout without opcodes: its name may stand where a mnemonic would */
        if (strcmp(tok[0], l->name))
            return asm_err(&a, KH_ISA_ERROR, "'%s' is neither field=value nor the layout name %s", tok[0],
                           l->name);
        first = 1;
        mn = l->name;
    } else if (l->opfield >= 0) {
        first = 1;
        mn = tok[0];
        if (kh_isa_strieq(tok[0], "OP")) {
            raw = 1;
        } else {
            int k = kh_isa_op_find(l, tok[0]);
            if (k < 0) {
                char names[400];
                size_t m = 0;
                names[0] = '\0';
                for (unsigned i = 0; i < l->nops && m < sizeof names; i++)
                    m += (size_t)snprintf(names + m, sizeof names - m, "%s ", l->ops[i].name);
                return asm_err(&a, KH_ISA_ERROR, "unknown mnemonic '%s' for %s (%sor OP %s=N)", tok[0],
                               l->unit[0] ? l->unit : l->name, names, l->fields[l->opfield].name);
            }
            op = &l->ops[k];
            show = op->show;
            nshow = op->nshow;
            mn = op->name;
        }
    }
    const kh_isa_layout *ext = op ? op->ext : NULL;
    assign as[MAX_ASM_TOKENS];
    unsigned nas = 0;
    int have_op = 0;
    uint64_t opv = op ? op->value : 0;
    for (int i = (int)first; i < n; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq || eq == tok[i] || !eq[1])
            return asm_err(&a, KH_ISA_ERROR, "%s: '%s' is not field=value", mn, tok[i]);
        *eq = '\0';
        const char *name = tok[i], *val = eq + 1;
        const kh_isa_layout *fl = l;
        int f = field_by_name(l, name);
        if (f < 0 && ext) {
            fl = ext;
            f = field_by_name(ext, name);
        }
        if (f < 0)
            return asm_err(&a, KH_ISA_ERROR, "%s has no field '%s' (%s.isa, layout %s)", mn[0] ? mn : l->name,
                           name, l->table, l->name);
        if (fl->fields[f].flags & ISA_F_VIEW)
            return asm_err(&a, KH_ISA_ERROR,
                           "%s: field %s is a view of bits another field owns; write that field", mn,
                           name);
        assign *x = &as[nas];
        char err[400];
        if (kh_isa_parse_value(fl, (unsigned)f, val, &x->v, err, sizeof err))
            return asm_err(&a, KH_ISA_ERROR, "%s %s", mn[0] ? mn : l->name, err);
        if (fl == l && f == l->opfield) {
            if (!raw)
                return asm_err(&a, KH_ISA_ERROR, "%s: %s is set by the mnemonic (write OP %s=N instead)",
                               mn, name, name);
            if (have_op) return asm_err(&a, KH_ISA_ERROR, "OP: %s is given twice", name);
            have_op = 1;
            opv = x->v.w[0];
            continue;
        }
        for (unsigned k = 0; k < nas; k++) {
            if (as[k].l != fl) continue;
            if (as[k].f == (unsigned)f)
                return asm_err(&a, KH_ISA_ERROR, "%s: field %s is given twice", mn, name);
            if (overlaps(&fl->fields[as[k].f], &fl->fields[f]))
                return asm_err(&a, KH_ISA_ERROR, "%s: fields %s and %s overlap; give only one", mn,
                               fl->fields[as[k].f].name, name);
        }
        if (fl == l && l->opfield >= 0 && overlaps(&l->fields[l->opfield], &l->fields[f]))
            return asm_err(&a, KH_ISA_ERROR, "%s: field %s overlaps the opcode field %s", mn, name,
                           l->fields[l->opfield].name);
        x->l = fl;
        x->f = (unsigned)f;
        nas++;
    }
    if (raw && !have_op)
        return asm_err(&a, KH_ISA_ERROR, "OP needs %s=N (the opcode value)", l->fields[l->opfield].name);
    /* Warnings only once the line is known to assemble. */
    for (unsigned k = 0; k < nas && op; k++) {
        if (as[k].l != l) continue;
        int used = 0;
        for (unsigned u = 0; u < op->nuses; u++) used |= op->uses[u] == as[k].f;
        if (!used)
            asm_err(&a, KH_ISA_WARN, "%s does not use field %s (the hardware ignores it)", op->name,
                    l->fields[as[k].f].name);
    }
    unsigned words = l->words;
    memset(out, 0, (ext ? 2 : 1) * words * sizeof *out);
    set_defaults(l, out, show, nshow);
    if (l->opfield >= 0) kh_isa_set64(l, out, (unsigned)l->opfield, opv);
    if (ext) set_defaults(ext, out + words, ext->raw_show, ext->nraw_show);
    for (unsigned k = 0; k < nas; k++)
        kh_isa_set(as[k].l, as[k].l == l ? out : out + words, as[k].f, &as[k].v);
    /* A word that assembles may still break a table rule (reserved bits,
     * max=, a closed enum): say so, but write it, since recorded words must
     * be writable back. */
    kh_isa_validate(l, out, validate_as_warning, &a);
    if (ext) kh_isa_validate(ext, out + words, validate_as_warning, &a);
    *nout = ext ? 2 : 1;
    return 0;
}

/* Append to out, never past outlen. */
static void put(char *out, size_t outlen, size_t *k, const char *s)
{
    size_t n = strlen(s);
    if (*k + n + 1 > outlen) n = outlen > *k + 1 ? outlen - *k - 1 : 0;
    memcpy(out + *k, s, n);
    *k += n;
    out[*k] = '\0';
}

static void put_fields(const kh_isa_layout *l, const uint64_t *w, const unsigned *show, unsigned n,
                       int skip, char *out, size_t outlen, size_t *k)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned f = show[i];
        if ((int)f == skip) continue;
        kh_isa_val v;
        kh_isa_get(l, w, f, &v);
        if (v.w[0] == l->fields[f].dflt && !(v.w[1] | v.w[2] | v.w[3])) continue;
        char val[96];
        kh_isa_format_value(l, f, &v, val, sizeof val);
        if (*k) put(out, outlen, k, " ");
        put(out, outlen, k, l->fields[f].name);
        put(out, outlen, k, "=");
        put(out, outlen, k, val);
    }
}

void kh_isa_dis_word(const kh_isa_layout *l, const uint64_t *w, const uint64_t *next,
                     unsigned *used, char *out, size_t outlen)
{
    size_t k = 0;
    if (outlen) out[0] = '\0';
    *used = 1;
    if (l->opfield < 0) {
        put(out, outlen, &k, l->name);
        put_fields(l, w, l->raw_show, l->nraw_show, -1, out, outlen, &k);
        return;
    }
    unsigned nshow;
    const isa_opcode *op;
    uint64_t opv = kh_isa_get64(l, w, (unsigned)l->opfield);
    const unsigned *show = kh_isa_show_set(l, opv, &nshow, &op);
    if (op && op->ext && !next) {
        /* A two-word instruction without its second word: write it raw, so
         * it assembles back to the one word it is. */
        op = NULL;
        show = l->raw_show;
        nshow = l->nraw_show;
    }
    if (op) {
        put(out, outlen, &k, op->name);
    } else {
        char val[96];
        kh_isa_val v;
        kh_isa_get(l, w, (unsigned)l->opfield, &v);
        kh_isa_format_value(l, (unsigned)l->opfield, &v, val, sizeof val);
        put(out, outlen, &k, "OP ");
        put(out, outlen, &k, l->fields[l->opfield].name);
        put(out, outlen, &k, "=");
        put(out, outlen, &k, val);
    }
    put_fields(l, w, show, nshow, l->opfield, out, outlen, &k);
    if (op && op->ext) {
        put_fields(op->ext, next, op->ext->raw_show, op->ext->nraw_show, -1, out, outlen, &k);
        *used = 2;
    }
}

int kh_isa_asm_text(const kh_isa_layout *l, const char *text, uint64_t **out, size_t *nwords,
                    kh_isa_report_fn report, void *ctx)
{
    size_t cap = 0, n = 0;
    uint64_t *w = NULL;
    int errors = 0;
    unsigned lineno = 0, words = l->words;
    const char *p = text;
    *out = NULL;
    *nwords = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[MAX_LINE];
        uint64_t got[2 * KH_ISA_MAX_WORDS];
        unsigned ngot;
        lineno++;
        if (len >= sizeof line) {
            asm_ctx a = {report, ctx, lineno};
            asm_err(&a, KH_ISA_ERROR, "line is longer than %d characters", MAX_LINE - 1);
            errors++;
        } else {
            memcpy(line, p, len);
            line[len] = '\0';
            if (kh_isa_asm_line(l, line, lineno, got, &ngot, report, ctx)) {
                errors++;
            } else if (ngot) {
                if (n + ngot > cap) {
                    cap = cap ? 2 * cap : 64;
                    uint64_t *q = realloc(w, cap * words * sizeof *w);
                    if (!q) {
                        free(w);
                        return errors + 1;
                    }
                    w = q;
                }
                memcpy(w + n * words, got, ngot * words * sizeof *w);
                n += ngot;
            }
        }
        p = nl ? nl + 1 : p + len;
    }
    *out = w;
    *nwords = n;
    return errors;
}

char *kh_isa_dis_text(const kh_isa_layout *l, const uint64_t *w, size_t n)
{
    size_t cap = 256, k = 0;
    char *text = malloc(cap);
    if (!text) return NULL;
    text[0] = '\0';
    for (size_t i = 0; i < n;) {
        char line[4096];
        unsigned used;
        kh_isa_dis_word(l, w + i * l->words, i + 1 < n ? w + (i + 1) * l->words : NULL, &used, line,
                        sizeof line);
        size_t len = strlen(line);
        if (k + len + 2 > cap) {
            while (k + len + 2 > cap) cap *= 2;
            char *q = realloc(text, cap);
            if (!q) {
                free(text);
                return NULL;
            }
            text = q;
        }
        memcpy(text + k, line, len);
        k += len;
        text[k++] = '\n';
        text[k] = '\0';
        i += used;
    }
    return text;
}
