/* Table checks of one word: reserved fields zero, max=, closed enums, lint.
 * On a layout with opcodes only the fields the opcode's print set covers
 * (and views) are checked: a field that overlaps a used one carries no
 * meaning of its own in that word. */
#include <stdio.h>
#include <string.h>

#include "isa/isa_int.h"
#include "kohaku/bufcat.h"

static void report_field(const kh_isa_layout *l, unsigned f, const kh_isa_val *v, kh_isa_sev sev,
                         const char *rule, kh_isa_report_fn report, void *ctx)
{
    char val[96], range[96], msg[512];
    kh_isa_format_value(l, f, v, val, sizeof val);
    kh_isa_range_text(&l->fields[f], range, sizeof range);
    snprintf(msg, sizeof msg, "%s %s=%s %s (%s.isa: %s %s)", l->name, l->fields[f].name, val, rule,
             l->table, l->fields[f].name, range);
    if (report) report(ctx, sev, msg);
}

static int check_field(const kh_isa_layout *l, const uint64_t *w, unsigned f,
                       kh_isa_report_fn report, void *ctx)
{
    const isa_field *fd = &l->fields[f];
    kh_isa_val v;
    char rule[256];
    int errors = 0;
    kh_isa_get(l, w, f, &v);
    if (kh_isa_val_is_zero(&v)) return 0;
    if (fd->flags & ISA_F_RESERVED) {
        report_field(l, f, &v, KH_ISA_ERROR, "is reserved and must be 0", report, ctx);
        return 1;
    }
    if (fd->flags & ISA_F_LINT)
        report_field(l, f, &v, KH_ISA_WARN, "is not read by the hardware and should be 0", report,
                     ctx);
    if ((fd->flags & ISA_F_MAX) && v.w[0] > fd->max) {
        snprintf(rule, sizeof rule, "exceeds the largest legal value %llu",
                 (unsigned long long)fd->max);
        report_field(l, f, &v, KH_ISA_ERROR, rule, report, ctx);
        errors++;
    }
    if (fd->nenums && !(fd->flags & ISA_F_OPEN)) {
        int named = 0;
        size_t k = 0;
        for (unsigned i = 0; i < fd->nenums; i++) named |= fd->enums[i].value == v.w[0];
        if (!named) {
            k = (size_t)snprintf(rule, sizeof rule, "is not one of");
            for (unsigned i = 0; i < fd->nenums && k < sizeof rule; i++)
                k += (size_t)snprintf(rule + k, sizeof rule - k, "%s %s=%llu", i ? "," : "",
                                      fd->enums[i].name, (unsigned long long)fd->enums[i].value);
            report_field(l, f, &v, KH_ISA_ERROR, rule, report, ctx);
            errors++;
        }
    }
    return errors;
}

/* The layout's encoder rules for this word's opcode: reported as broken
 * rules (the assembler turns them into warnings); not counted as errors. */
static void check_rules(const kh_isa_layout *l, const uint64_t *w, const isa_opcode *op, kh_isa_report_fn report,
                        void *ctx)
{
    for (unsigned i = 0; i < l->nrules && report; i++) {
        const isa_rule *r = &l->rules[i];
        if (&l->ops[r->op] != op) continue;
        uint64_t v = kh_isa_get64(l, w, r->field);
        char msg[600];
        if (!r->when && v > r->max) {
            snprintf(msg, sizeof msg, "%s %s %s=%llu is above %llu: %s (%s.isa)", l->name, op->name,
                     l->fields[r->field].name, (unsigned long long)v, (unsigned long long)r->max, r->doc, l->table);
            report(ctx, KH_ISA_ERROR, msg);
        } else if (r->when && v) {
            int any = 0;
            for (unsigned k = 0; k < r->nneed; k++) any |= kh_isa_get64(l, w, r->need[k]) != 0;
            if (any) continue;
            char names[4 * ISA_NAME] = "";
            size_t used = 0;
            for (unsigned k = 0; k < r->nneed; k++)
                kh_bufcat(names, sizeof names, &used, "%s%s", k ? ", " : "", l->fields[r->need[k]].name);
            snprintf(msg, sizeof msg, "%s %s with %s=0x%llx and %s = 0: %s (%s.isa)", l->name, op->name,
                     l->fields[r->field].name, (unsigned long long)v, names, r->doc, l->table);
            report(ctx, KH_ISA_ERROR, msg);
        }
    }
}

int kh_isa_validate(const kh_isa_layout *l, const uint64_t *w, kh_isa_report_fn report, void *ctx)
{
    int errors = 0;
    unsigned nshow;
    const unsigned *show = l->raw_show;
    nshow = l->nraw_show;
    if (l->opfield >= 0) {
        const isa_opcode *op;
        uint64_t opv = kh_isa_get64(l, w, (unsigned)l->opfield);
        show = kh_isa_show_set(l, opv, &nshow, &op);
        if (op) check_rules(l, w, op, report, ctx);
        if (!op && report) {
            char msg[256];
            snprintf(msg, sizeof msg, "%s %s=%llu names no opcode (%s.isa)", l->name,
                     l->fields[l->opfield].name, (unsigned long long)opv, l->table);
            report(ctx, KH_ISA_WARN, msg);
        }
    }
    for (unsigned f = 0; f < l->nfields; f++) {
        int check = (l->fields[f].flags & ISA_F_VIEW) != 0;
        for (unsigned i = 0; i < nshow && !check; i++) check = show[i] == f;
        if (check) errors += check_field(l, w, f, report, ctx);
    }
    return errors;
}
