/* Loading a table text (docs/isa-format.md): tokenise, parse, check.
 * A table is added to the set only when every layout in it passed every
 * load-time check, so a refused table changes nothing. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa/isa_int.h"
#include "kohaku/file.h"
#include "kohaku/hex.h"

#define MAX_TOKENS 64

typedef struct parser {
    const char *path;
    unsigned lineno;
    char *err;
    size_t errlen;
    kh_isa_layout **layouts; /* of this table */
    unsigned n, cap;
    kh_isa_layout *cur;      /* open layout, or NULL */
    /* unresolved names of the open layout, resolved at `end` */
    char opfield_name[ISA_NAME];
    char (*use_names)[ISA_NAME]; /* per opcode, a flat list */
    unsigned *use_start, *use_count;
    char (*ext_names)[ISA_NAME]; /* ext layout per opcode in the whole table */
    const kh_isa_layout **ext_owner;
    unsigned *ext_op;
    unsigned next, ext_cap;
    unsigned nuse, use_cap;
} parser;

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        /* Out of memory is not user input; there is nothing sane to do. */
        fprintf(stderr, "kohaku: out of memory\n");
        abort();
    }
    return q;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xrealloc(NULL, n);
    memcpy(d, s, n);
    return d;
}

static void layout_free(kh_isa_layout *l)
{
    if (!l) return;
    for (unsigned i = 0; i < l->nfields; i++) {
        free(l->fields[i].zero);
        free(l->fields[i].doc);
        free(l->fields[i].enums);
    }
    for (unsigned i = 0; i < l->nops; i++) {
        free(l->ops[i].uses);
        free(l->ops[i].show);
        free(l->ops[i].doc);
    }
    for (unsigned i = 0; i < l->nrules; i++) free(l->rules[i].doc);
    free(l->rules);
    free(l->fields);
    free(l->ops);
    free(l->raw_show);
    free(l->path);
    free(l->doc);
    free(l);
}

kh_isa *kh_isa_new(void)
{
    kh_isa *isa = xrealloc(NULL, sizeof *isa);
    memset(isa, 0, sizeof *isa);
    return isa;
}

void kh_isa_free(kh_isa *isa)
{
    if (!isa) return;
    for (unsigned i = 0; i < isa->n; i++) layout_free(isa->layouts[i]);
    free(isa->layouts);
    free(isa->tables);
    free(isa);
}

/* ---- tokens ---- */

/* Split a line into tokens in place. A '"' quotes blanks and '#' until the
 * next '"'; the quotes themselves are removed. Returns the count, or -1 for
 * an unterminated quote. */
static int tokenize(char *line, char **tok, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r') p++;
        if (!*p || *p == '#') break;
        if (n == max) return -2;
        char *out = p;
        tok[n++] = p;
        int quoted = 0;
        while (*p && (quoted || (*p != ' ' && *p != '\t' && *p != '\r' && *p != '#'))) {
            if (*p == '"') {
                quoted = !quoted;
                p++;
                continue;
            }
            *out++ = *p++;
        }
        if (quoted) return -1;
        int end = *p == '\0';
        char stop = *p;
        *out = '\0';
        if (end) break;
        if (stop == '#') break; /* the comment starts right after the token */
        p++;
    }
    return n;
}

static int perr(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int perr(parser *ps, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kh_isa_errf(ps->err, ps->errlen, "%s:%u: %s", ps->path, ps->lineno, msg);
    return -1;
}

static int valid_name(const char *s, int allow_upper)
{
    if (!*s || strlen(s) >= ISA_NAME) return 0;
    if (!(islower((unsigned char)s[0]) || (allow_upper && isupper((unsigned char)s[0]))))
        return 0;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (!(islower(c) || isdigit(c) || c == '_' || c == '-' || (allow_upper && isupper(c))))
            return 0;
    }
    return 1;
}

/* A number in a table: decimal or 0x hex; negative allowed when neg != NULL. */
static int parse_num(const char *s, uint64_t *v, int *neg)
{
    if (neg) *neg = 0;
    if (*s == '-') {
        if (!neg) return -1;
        *neg = 1;
        s++;
    }
    return kh_parse_u64(s, v);
}

static uint64_t mask_of(unsigned width)
{
    return width >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << width) - 1;
}

/* ---- directives ---- */

static int field_find(const kh_isa_layout *l, const char *name)
{
    for (unsigned i = 0; i < l->nfields; i++)
        if (!strcmp(l->fields[i].name, name)) return (int)i;
    return -1;
}

static int parse_enum(parser *ps, isa_field *fd, const char *spec)
{
    char buf[1024];
    if (strlen(spec) >= sizeof buf) return perr(ps, "enum list of field %s is too long", fd->name);
    strcpy(buf, spec);
    char *save = NULL; /* strtok_r: strtok keeps hidden state shared by every caller */
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        uint64_t v;
        if (!colon) return perr(ps, "enum item '%s' of field %s: expected NAME:VALUE", item, fd->name);
        *colon = '\0';
        if (!valid_name(item, 1))
            return perr(ps, "enum name '%s' of field %s: letters, digits, '_' and '-' only", item,
                        fd->name);
        if (parse_num(colon + 1, &v, NULL))
            return perr(ps, "enum %s of field %s: bad value '%s'", item, fd->name, colon + 1);
        for (unsigned i = 0; i < fd->nenums; i++) {
            if (kh_isa_strieq(fd->enums[i].name, item))
                return perr(ps, "enum name %s appears twice in field %s", item, fd->name);
            if (fd->enums[i].value == v)
                return perr(ps, "enum value %llu appears twice in field %s (%s, %s)",
                            (unsigned long long)v, fd->name, fd->enums[i].name, item);
        }
        fd->enums = xrealloc(fd->enums, (fd->nenums + 1) * sizeof *fd->enums);
        snprintf(fd->enums[fd->nenums].name, ISA_NAME, "%s", item);
        fd->enums[fd->nenums].value = v;
        fd->nenums++;
    }
    if (!fd->nenums) return perr(ps, "empty enum list on field %s", fd->name);
    return 0;
}

static int do_field(parser *ps, char **tok, int n)
{
    kh_isa_layout *l = ps->cur;
    if (n < 3) return perr(ps, "expected: field NAME RANGE [ATTR ...]");
    if (!valid_name(tok[1], 0))
        return perr(ps, "field name '%s': lower-case letters, digits, '_' and '-' only", tok[1]);
    if (field_find(l, tok[1]) >= 0)
        return perr(ps, "field %s is declared twice in layout %s", tok[1], l->name);
    l->fields = xrealloc(l->fields, (l->nfields + 1) * sizeof *l->fields);
    isa_field *fd = &l->fields[l->nfields++];
    memset(fd, 0, sizeof *fd);
    snprintf(fd->name, ISA_NAME, "%s", tok[1]);
    if (kh_isa_parse_range(tok[2], fd))
        return perr(ps, "field %s: bad range '%s' (expected [hi:lo], [bit] or {[hi:lo],...})",
                    fd->name, tok[2]);
    if (fd->width > KH_ISA_MAX_FIELD)
        return perr(ps, "field %s is %u bits wide; at most %u", fd->name, fd->width,
                    KH_ISA_MAX_FIELD);
    for (unsigned i = 0; i < fd->nparts; i++) {
        if (fd->part[i].hi >= l->width)
            return perr(ps, "field %s: bit %u is outside the layout's %u bits", fd->name,
                        fd->part[i].hi, l->width);
        for (unsigned j = 0; j < i; j++)
            if (fd->part[i].lo <= fd->part[j].hi && fd->part[j].lo <= fd->part[i].hi)
                return perr(ps, "field %s: its parts overlap", fd->name);
    }
    int have_default = 0, dneg = 0;
    uint64_t dval = 0;
    for (int i = 3; i < n; i++) {
        const char *a = tok[i];
        if (!strcmp(a, "signed")) fd->flags |= ISA_F_SIGNED;
        else if (!strcmp(a, "reserved")) fd->flags |= ISA_F_RESERVED;
        else if (!strcmp(a, "ignored")) fd->flags |= ISA_F_IGNORED;
        else if (!strcmp(a, "view")) fd->flags |= ISA_F_VIEW;
        else if (!strcmp(a, "lint")) fd->flags |= ISA_F_LINT;
        else if (!strcmp(a, "open")) fd->flags |= ISA_F_OPEN;
        else if (!strcmp(a, "hex")) fd->flags |= ISA_F_HEX;
        else if (!strcmp(a, "dec")) fd->flags |= ISA_F_DEC;
        else if (!strncmp(a, "default=", 8)) {
            if (parse_num(a + 8, &dval, &dneg))
                return perr(ps, "field %s: bad default '%s'", fd->name, a + 8);
            have_default = 1;
        } else if (!strncmp(a, "max=", 4)) {
            if (parse_num(a + 4, &fd->max, NULL))
                return perr(ps, "field %s: bad max '%s'", fd->name, a + 4);
            fd->flags |= ISA_F_MAX;
        } else if (!strncmp(a, "zero=", 5)) {
            free(fd->zero);
            fd->zero = xstrdup(a + 5);
        } else if (!strncmp(a, "doc=", 4)) {
            free(fd->doc);
            fd->doc = xstrdup(a + 4);
        } else if (!strncmp(a, "enum=", 5)) {
            if (parse_enum(ps, fd, a + 5)) return -1;
        } else {
            return perr(ps, "field %s: unknown attribute '%s'", fd->name, a);
        }
    }
    uint64_t m = mask_of(fd->width);
    if ((fd->flags & ISA_F_HEX) && (fd->flags & ISA_F_DEC))
        return perr(ps, "field %s: hex and dec both given", fd->name);
    if ((fd->flags & ISA_F_RESERVED) && (fd->flags & (ISA_F_IGNORED | ISA_F_LINT)))
        return perr(ps, "field %s: reserved excludes ignored and lint", fd->name);
    if ((fd->flags & ISA_F_OPEN) && !fd->nenums)
        return perr(ps, "field %s: open needs an enum", fd->name);
    if (fd->width > 64 && (fd->nenums || have_default || (fd->flags & (ISA_F_MAX | ISA_F_SIGNED))))
        return perr(ps, "field %s: a field wider than 64 bits takes no enum, default, max or signed",
                    fd->name);
    if (have_default) {
        if (dneg) {
            if (!(fd->flags & ISA_F_SIGNED))
                return perr(ps, "field %s: negative default on an unsigned field", fd->name);
            if (fd->width < 64 && dval > (UINT64_C(1) << (fd->width - 1)))
                return perr(ps, "field %s: default -%llu does not fit %u signed bits", fd->name,
                            (unsigned long long)dval, fd->width);
            dval = (0 - dval) & m;
        } else if (dval & ~m) {
            return perr(ps, "field %s: default %llu does not fit %u bits", fd->name,
                        (unsigned long long)dval, fd->width);
        }
        fd->dflt = dval;
    }
    if ((fd->flags & ISA_F_MAX) && (fd->max & ~m))
        return perr(ps, "field %s: max %llu does not fit %u bits", fd->name,
                    (unsigned long long)fd->max, fd->width);
    for (unsigned i = 0; i < fd->nenums; i++)
        if (fd->enums[i].value & ~m)
            return perr(ps, "field %s: enum %s = %llu does not fit %u bits", fd->name,
                        fd->enums[i].name, (unsigned long long)fd->enums[i].value, fd->width);
    if ((fd->flags & ISA_F_VIEW) && fd->dflt)
        return perr(ps, "field %s: a view takes no default (its owner's default applies)",
                    fd->name);
    return 0;
}

static int do_opcode(parser *ps, char **tok, int n)
{
    kh_isa_layout *l = ps->cur;
    uint64_t v;
    if (n < 4 || strcmp(tok[2], "="))
        return perr(ps, "expected: opcode MNEMONIC = VALUE uses FIELD ... [ext LAYOUT]");
    if (!valid_name(tok[1], 1) || kh_isa_strieq(tok[1], "OP"))
        return perr(ps, "bad mnemonic '%s' (letters, digits, '_'; OP is kept for unnamed opcodes)",
                    tok[1]);
    if (parse_num(tok[3], &v, NULL)) return perr(ps, "opcode %s: bad value '%s'", tok[1], tok[3]);
    for (unsigned i = 0; i < l->nops; i++) {
        if (kh_isa_strieq(l->ops[i].name, tok[1]))
            return perr(ps, "opcode %s is declared twice in layout %s", tok[1], l->name);
        if (l->ops[i].value == v)
            return perr(ps, "opcodes %s and %s both have value %llu", l->ops[i].name, tok[1],
                        (unsigned long long)v);
    }
    l->ops = xrealloc(l->ops, (l->nops + 1) * sizeof *l->ops);
    ps->use_start = xrealloc(ps->use_start, (l->nops + 1) * sizeof *ps->use_start);
    ps->use_count = xrealloc(ps->use_count, (l->nops + 1) * sizeof *ps->use_count);
    isa_opcode *op = &l->ops[l->nops];
    memset(op, 0, sizeof *op);
    snprintf(op->name, ISA_NAME, "%s", tok[1]);
    op->value = v;
    ps->use_start[l->nops] = ps->nuse;
    ps->use_count[l->nops] = 0;
    int i = 4, in_uses = 0;
    for (; i < n; i++) {
        if (!strcmp(tok[i], "uses")) {
            in_uses = 1;
        } else if (!strcmp(tok[i], "ext")) {
            if (i + 1 >= n) return perr(ps, "opcode %s: ext needs a layout name", op->name);
            if (ps->next == ps->ext_cap) {
                ps->ext_cap = ps->ext_cap ? 2 * ps->ext_cap : 8;
                ps->ext_names = xrealloc(ps->ext_names, ps->ext_cap * sizeof *ps->ext_names);
                ps->ext_owner = xrealloc(ps->ext_owner, ps->ext_cap * sizeof *ps->ext_owner);
                ps->ext_op = xrealloc(ps->ext_op, ps->ext_cap * sizeof *ps->ext_op);
            }
            snprintf(ps->ext_names[ps->next], ISA_NAME, "%s", tok[++i]);
            ps->ext_owner[ps->next] = l;
            ps->ext_op[ps->next] = l->nops;
            ps->next++;
            in_uses = 0;
        } else if (!strncmp(tok[i], "doc=", 4)) {
            free(op->doc);
            op->doc = xstrdup(tok[i] + 4);
            in_uses = 0;
        } else if (in_uses) {
            if (ps->nuse == ps->use_cap) {
                ps->use_cap = ps->use_cap ? 2 * ps->use_cap : 64;
                ps->use_names = xrealloc(ps->use_names, ps->use_cap * sizeof *ps->use_names);
            }
            snprintf(ps->use_names[ps->nuse++], ISA_NAME, "%s", tok[i]);
            ps->use_count[l->nops]++;
        } else {
            return perr(ps, "opcode %s: unexpected '%s' (expected uses, ext or doc=)", op->name,
                        tok[i]);
        }
    }
    l->nops++;
    return 0;
}

/* `rule OP FIELD max=V doc="..."` or `rule OP when FIELD need F... doc="..."`
 * (docs/isa-format.md): OP and every field must already be declared. */
static int do_rule(parser *ps, char **tok, int n)
{
    kh_isa_layout *l = ps->cur;
    const char *form = "expected: rule OPCODE FIELD max=V doc=\"...\" or rule OPCODE when FIELD need FIELD... doc=\"...\"";
    if (n < 4) return perr(ps, "%s", form);
    isa_rule r;
    memset(&r, 0, sizeof r);
    unsigned k = 0;
    while (k < l->nops && !kh_isa_strieq(l->ops[k].name, tok[1])) k++;
    if (k == l->nops) return perr(ps, "rule: opcode %s is not declared (above) in layout %s", tok[1], l->name);
    r.op = k;
    int i = 2;
    r.when = !strcmp(tok[2], "when");
    if (r.when) i++;
    if (i >= n) return perr(ps, "%s", form);
    int f = field_find(l, tok[i]);
    if (f < 0) return perr(ps, "rule: layout %s has no field %s", l->name, tok[i]);
    if (l->fields[f].width > 64) return perr(ps, "rule: field %s is wider than 64 bits", tok[i]);
    r.field = (unsigned)f;
    i++;
    if (!r.when) {
        if (i >= n || strncmp(tok[i], "max=", 4) || parse_num(tok[i] + 4, &r.max, NULL))
            return perr(ps, "%s", form);
        i++;
    } else {
        if (i >= n || strcmp(tok[i], "need")) return perr(ps, "%s", form);
        for (i++; i < n && strncmp(tok[i], "doc=", 4); i++) {
            int g = field_find(l, tok[i]);
            if (g < 0) return perr(ps, "rule: layout %s has no field %s", l->name, tok[i]);
            if (r.nneed == ISA_RULE_NEED) return perr(ps, "rule: at most %d fields after need", ISA_RULE_NEED);
            r.need[r.nneed++] = (unsigned)g;
        }
        if (!r.nneed) return perr(ps, "%s", form);
    }
    if (i != n - 1 || strncmp(tok[i], "doc=", 4) || !tok[i][4])
        return perr(ps, "rule: ends with doc=\"...\" naming the encoder and its rule");
    r.doc = xstrdup(tok[i] + 4);
    l->rules = xrealloc(l->rules, (l->nrules + 1) * sizeof *l->rules);
    l->rules[l->nrules++] = r;
    return 0;
}

/* Mark a field's bits in a bitmap; returns the first bit already set, or -1. */
static int mark_bits(unsigned char *map, const isa_field *fd, int set)
{
    for (unsigned i = 0; i < fd->nparts; i++)
        for (unsigned b = fd->part[i].lo; b <= fd->part[i].hi; b++)
            if (map[b]) return (int)b;
    if (set)
        for (unsigned i = 0; i < fd->nparts; i++)
            for (unsigned b = fd->part[i].lo; b <= fd->part[i].hi; b++) map[b] = 1;
    return -1;
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

/* The print set of an opcode: its used fields, then (table order) every
 * other non-view field whose bits are all still uncovered. Every bit of the
 * layout must end up covered: that is what makes asm(dis(w)) == w. */
static int build_show(parser *ps, kh_isa_layout *l, const unsigned *uses, unsigned nuses,
                      const char *what, unsigned **out, unsigned *nout)
{
    unsigned char map[KH_ISA_MAX_WIDTH];
    unsigned *set = xrealloc(NULL, (l->nfields + 1) * sizeof *set);
    unsigned n = 0;
    memset(map, 0, sizeof map);
    for (unsigned i = 0; i < nuses; i++) {
        const isa_field *fd = &l->fields[uses[i]];
        if (fd->flags & ISA_F_VIEW) continue;
        int b = mark_bits(map, fd, 1);
        if (b >= 0) {
            free(set);
            return perr(ps, "%s of layout %s: field %s overlaps another field it uses at bit %d",
                        what, l->name, fd->name, b);
        }
        set[n++] = uses[i];
    }
    for (unsigned f = 0; f < l->nfields; f++) {
        const isa_field *fd = &l->fields[f];
        int taken = 0;
        for (unsigned i = 0; i < n; i++) taken |= set[i] == f;
        if (taken || (fd->flags & ISA_F_VIEW)) continue;
        if (mark_bits(map, fd, 0) < 0) {
            mark_bits(map, fd, 1);
            set[n++] = f;
        }
    }
    for (unsigned b = 0; b < l->width; b++) {
        if (map[b]) continue;
        unsigned hi = b;
        while (hi + 1 < l->width && !map[hi + 1]) hi++;
        free(set);
        return perr(ps,
                    "%s of layout %s leaves bits [%u:%u] without a field, so such a word could "
                    "not be written back (add an ignored field there)",
                    what, l->name, hi, b);
    }
    qsort(set, n, sizeof *set, cmp_unsigned);
    *out = set;
    *nout = n;
    return 0;
}

static int do_end(parser *ps)
{
    kh_isa_layout *l = ps->cur;
    if (ps->opfield_name[0]) {
        int f = field_find(l, ps->opfield_name);
        if (f < 0) return perr(ps, "layout %s: opfield %s is not a field", l->name, ps->opfield_name);
        if ((l->fields[f].flags & ISA_F_VIEW) || l->fields[f].width > 64)
            return perr(ps, "layout %s: opfield %s must be a non-view field of at most 64 bits",
                        l->name, ps->opfield_name);
        l->opfield = f;
    } else if (l->nops) {
        return perr(ps, "layout %s has opcodes but no opfield", l->name);
    }
    for (unsigned i = 0; i < l->nops; i++) {
        isa_opcode *op = &l->ops[i];
        if (op->value & ~mask_of(l->fields[l->opfield].width))
            return perr(ps, "opcode %s = %llu does not fit opfield %s (%u bits)", op->name,
                        (unsigned long long)op->value, l->fields[l->opfield].name,
                        l->fields[l->opfield].width);
        op->uses = xrealloc(NULL, (ps->use_count[i] + 1) * sizeof *op->uses);
        op->uses[op->nuses++] = (unsigned)l->opfield;
        for (unsigned k = 0; k < ps->use_count[i]; k++) {
            const char *name = ps->use_names[ps->use_start[i] + k];
            int f = field_find(l, name);
            if (f < 0) return perr(ps, "opcode %s uses %s, which is not a field of %s", op->name, name, l->name);
            int dup = 0;
            for (unsigned j = 0; j < op->nuses; j++) dup |= op->uses[j] == (unsigned)f;
            if (dup && f != l->opfield) return perr(ps, "opcode %s lists field %s twice", op->name, name);
            if (!dup) op->uses[op->nuses++] = (unsigned)f;
        }
        char what[ISA_NAME + 16];
        snprintf(what, sizeof what, "opcode %s", op->name);
        if (build_show(ps, l, op->uses, op->nuses, what, &op->show, &op->nshow)) return -1;
    }
    unsigned opf = (unsigned)l->opfield;
    if (build_show(ps, l, &opf, l->opfield >= 0 ? 1 : 0,
                   l->nops ? "a word whose opcode has no name" : "a word", &l->raw_show,
                   &l->nraw_show))
        return -1;
    ps->cur = NULL;
    ps->nuse = 0;
    ps->opfield_name[0] = '\0';
    return 0;
}

static int do_layout(parser *ps, char **tok, int n)
{
    uint64_t w;
    if (ps->cur) return perr(ps, "layout %s is still open (missing end)", ps->cur->name);
    if (n != 3) return perr(ps, "expected: layout NAME WIDTH");
    if (!valid_name(tok[1], 0))
        return perr(ps, "layout name '%s': lower-case letters, digits, '_' and '-' only", tok[1]);
    if (parse_num(tok[2], &w, NULL) || w < 1 || w > KH_ISA_MAX_WIDTH)
        return perr(ps, "layout %s: width '%s' is not 1..%u", tok[1], tok[2], KH_ISA_MAX_WIDTH);
    for (unsigned i = 0; i < ps->n; i++)
        if (!strcmp(ps->layouts[i]->name, tok[1]))
            return perr(ps, "layout %s is declared twice", tok[1]);
    kh_isa_layout *l = xrealloc(NULL, sizeof *l);
    memset(l, 0, sizeof *l);
    snprintf(l->name, ISA_NAME, "%s", tok[1]);
    l->path = xstrdup(ps->path);
    l->width = (unsigned)w;
    l->words = (l->width + 63) / 64;
    l->type = -1;
    l->opfield = -1;
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 16;
        ps->layouts = xrealloc(ps->layouts, ps->cap * sizeof *ps->layouts);
    }
    ps->layouts[ps->n++] = l;
    ps->cur = l;
    return 0;
}

static int do_line(parser *ps, char **tok, int n)
{
    kh_isa_layout *l = ps->cur;
    uint64_t v;
    if (!strcmp(tok[0], "layout")) return do_layout(ps, tok, n);
    if (!l) return perr(ps, "'%s' outside a layout (start one with: layout NAME WIDTH)", tok[0]);
    if (!strcmp(tok[0], "end")) {
        if (n != 1) return perr(ps, "end takes nothing after it");
        return do_end(ps);
    }
    if (!strcmp(tok[0], "field")) return do_field(ps, tok, n);
    if (!strcmp(tok[0], "opcode")) return do_opcode(ps, tok, n);
    if (!strcmp(tok[0], "rule")) return do_rule(ps, tok, n);
    if (n != 2) return perr(ps, "expected: %s VALUE", tok[0]);
    if (!strcmp(tok[0], "doc")) {
        free(l->doc);
        l->doc = xstrdup(tok[1]);
    } else if (!strcmp(tok[0], "type")) {
        if (parse_num(tok[1], &v, NULL) || v > 15)
            return perr(ps, "layout %s: type '%s' is not a 4-bit header type code", l->name, tok[1]);
        l->type = (int)v;
    } else if (!strcmp(tok[0], "unit")) {
        if (!valid_name(tok[1], 0)) return perr(ps, "layout %s: bad unit name '%s'", l->name, tok[1]);
        snprintf(l->unit, ISA_NAME, "%s", tok[1]);
    } else if (!strcmp(tok[0], "opfield")) {
        snprintf(ps->opfield_name, ISA_NAME, "%s", tok[1]);
    } else {
        return perr(ps, "unknown directive '%s'", tok[0]);
    }
    return 0;
}

static kh_isa_layout *table_find(parser *ps, const char *name)
{
    for (unsigned i = 0; i < ps->n; i++)
        if (!strcmp(ps->layouts[i]->name, name)) return ps->layouts[i];
    return NULL;
}

static int finish_table(parser *ps, const kh_isa *isa, const char *name)
{
    if (ps->cur) return perr(ps, "layout %s is not closed (missing end)", ps->cur->name);
    for (unsigned i = 0; i < ps->next; i++) {
        kh_isa_layout *owner = (kh_isa_layout *)ps->ext_owner[i];
        isa_opcode *op = &owner->ops[ps->ext_op[i]];
        kh_isa_layout *e = table_find(ps, ps->ext_names[i]);
        if (!e)
            return perr(ps, "opcode %s: ext layout %s is not in this table", op->name, ps->ext_names[i]);
        if (e->width != owner->width || e->nops)
            return perr(ps, "opcode %s: ext layout %s must be %u bits wide and have no opcodes",
                        op->name, e->name, owner->width);
        for (unsigned f = 0; f < e->nfields; f++)
            if (field_find(owner, e->fields[f].name) >= 0)
                return perr(ps, "opcode %s: field %s is in both %s and its ext layout %s; the "
                            "assembler could not tell them apart", op->name, e->fields[f].name,
                            owner->name, e->name);
        op->ext = e;
    }
    for (unsigned t = 0; t < isa->ntables; t++)
        if (!strcmp(isa->tables[t], name)) return perr(ps, "table %s is already loaded", name);
    for (unsigned i = 0; i < ps->n; i++) {
        const kh_isa_layout *l = ps->layouts[i];
        for (unsigned j = 0; j < isa->n; j++) {
            if (!strcmp(isa->layouts[j]->name, l->name))
                return perr(ps, "layout %s is already defined in %s", l->name, isa->layouts[j]->path);
            if (l->unit[0] && !strcmp(isa->layouts[j]->unit, l->unit))
                return perr(ps, "unit %s is already defined by layout %s", l->unit, isa->layouts[j]->name);
        }
        for (unsigned j = 0; j < i; j++)
            if (l->unit[0] && !strcmp(ps->layouts[j]->unit, l->unit))
                return perr(ps, "unit %s is defined by layouts %s and %s", l->unit,
                            ps->layouts[j]->name, l->name);
    }
    return 0;
}

static void parser_free(parser *ps, int keep_layouts)
{
    if (!keep_layouts)
        for (unsigned i = 0; i < ps->n; i++) layout_free(ps->layouts[i]);
    free(ps->layouts);
    free(ps->use_names);
    free(ps->use_start);
    free(ps->use_count);
    free(ps->ext_names);
    free(ps->ext_owner);
    free(ps->ext_op);
}

int kh_isa_load(kh_isa *isa, const char *name, const char *path, const char *text, char *err,
                size_t errlen)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.path = path;
    ps.err = err;
    ps.errlen = errlen;
    if (!valid_name(name, 0)) {
        kh_isa_errf(err, errlen, "%s: table name '%s': lower-case letters, digits, '_' and '-' only",
                 path, name);
        return -1;
    }
    int rc = 0;
    const char *p = text;
    while (*p && !rc) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[2048];
        char *tok[MAX_TOKENS];
        ps.lineno++;
        if (len >= sizeof line) {
            rc = perr(&ps, "line is longer than %zu characters", sizeof line - 1);
            break;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl ? nl + 1 : p + len;
        int n = tokenize(line, tok, MAX_TOKENS);
        if (n == -1) rc = perr(&ps, "unterminated quoted string");
        else if (n == -2) rc = perr(&ps, "more than %d tokens on one line", MAX_TOKENS);
        else if (n > 0) rc = do_line(&ps, tok, n);
    }
    if (!rc) {
        ps.lineno++;
        rc = finish_table(&ps, isa, name);
    }
    if (rc) {
        parser_free(&ps, 0);
        return -1;
    }
    isa->layouts = xrealloc(isa->layouts, (isa->n + ps.n) * sizeof *isa->layouts);
    for (unsigned i = 0; i < ps.n; i++) {
        snprintf(ps.layouts[i]->table, ISA_NAME, "%s", name);
        isa->layouts[isa->n++] = ps.layouts[i];
    }
    isa->tables = xrealloc(isa->tables, (isa->ntables + 1) * sizeof *isa->tables);
    snprintf(isa->tables[isa->ntables++], ISA_NAME, "%s", name);
    parser_free(&ps, 1);
    return 0;
}

int kh_isa_load_file(kh_isa *isa, const char *path, char *err, size_t errlen)
{
    char *buf = kh_file_read_text(path, err, errlen);
    if (!buf) return -1;
    /* name = the file's stem */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[ISA_NAME];
    size_t k = 0;
    for (; base[k] && base[k] != '.' && k + 1 < sizeof name; k++) name[k] = base[k];
    name[k] = '\0';
    int rc = kh_isa_load(isa, name, path, buf, err, errlen);
    free(buf);
    return rc;
}
