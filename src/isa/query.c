/* Looking up loaded layouts, fields and opcodes. */
#include <string.h>

#include "isa/isa_int.h"

unsigned kh_isa_count(const kh_isa *isa) { return isa->n; }

const kh_isa_layout *kh_isa_at(const kh_isa *isa, unsigned i)
{
    return i < isa->n ? isa->layouts[i] : NULL;
}

const kh_isa_layout *kh_isa_find(const kh_isa *isa, const char *name)
{
    for (unsigned i = 0; i < isa->n; i++)
        if (!strcmp(isa->layouts[i]->name, name)) return isa->layouts[i];
    return NULL;
}

const kh_isa_layout *kh_isa_find_unit(const kh_isa *isa, const char *unit)
{
    for (unsigned i = 0; i < isa->n; i++)
        if (isa->layouts[i]->unit[0] && !strcmp(isa->layouts[i]->unit, unit)) return isa->layouts[i];
    return NULL;
}

const kh_isa_layout *kh_isa_find_type(const kh_isa *isa, unsigned type)
{
    for (unsigned i = 0; i < isa->n; i++)
        if (isa->layouts[i]->type == (int)type) return isa->layouts[i];
    return NULL;
}

unsigned kh_isa_table_count(const kh_isa *isa) { return isa->ntables; }

const char *kh_isa_table_name(const kh_isa *isa, unsigned i)
{
    return i < isa->ntables ? isa->tables[i] : NULL;
}

unsigned kh_isa_table_layouts(const kh_isa *isa, const char *table, const kh_isa_layout **out,
                           unsigned max)
{
    unsigned n = 0;
    for (unsigned i = 0; i < isa->n; i++)
        if (!strcmp(isa->layouts[i]->table, table)) {
            if (n < max) out[n] = isa->layouts[i];
            n++;
        }
    return n;
}

const char *kh_isa_layout_name(const kh_isa_layout *l) { return l->name; }
const char *kh_isa_layout_table(const kh_isa_layout *l) { return l->table; }
const char *kh_isa_layout_path(const kh_isa_layout *l) { return l->path; }
const char *kh_isa_layout_doc(const kh_isa_layout *l) { return l->doc ? l->doc : ""; }
const char *kh_isa_layout_unit(const kh_isa_layout *l) { return l->unit[0] ? l->unit : NULL; }
unsigned kh_isa_layout_width(const kh_isa_layout *l) { return l->width; }
unsigned kh_isa_layout_words(const kh_isa_layout *l) { return l->words; }
int kh_isa_layout_type(const kh_isa_layout *l) { return l->type; }

unsigned kh_isa_field_count(const kh_isa_layout *l) { return l->nfields; }

int kh_isa_field_find(const kh_isa_layout *l, const char *name)
{
    for (unsigned i = 0; i < l->nfields; i++)
        if (!strcmp(l->fields[i].name, name)) return (int)i;
    return -1;
}

const char *kh_isa_field_name(const kh_isa_layout *l, unsigned f) { return l->fields[f].name; }
unsigned kh_isa_field_width(const kh_isa_layout *l, unsigned f) { return l->fields[f].width; }
int kh_isa_field_is_view(const kh_isa_layout *l, unsigned f)
{
    return (l->fields[f].flags & ISA_F_VIEW) != 0;
}
int kh_isa_field_is_signed(const kh_isa_layout *l, unsigned f)
{
    return (l->fields[f].flags & ISA_F_SIGNED) != 0;
}
unsigned kh_isa_field_msb(const kh_isa_layout *l, unsigned f) { return l->fields[f].part[0].hi; }

void kh_isa_field_range(const kh_isa_layout *l, unsigned f, char *out, size_t outlen)
{
    kh_isa_range_text(&l->fields[f], out, outlen);
}

unsigned kh_isa_op_count(const kh_isa_layout *l) { return l->nops; }
const char *kh_isa_op_name(const kh_isa_layout *l, unsigned i) { return l->ops[i].name; }
uint64_t kh_isa_op_value(const kh_isa_layout *l, unsigned i) { return l->ops[i].value; }

int kh_isa_op_find(const kh_isa_layout *l, const char *mnemonic)
{
    for (unsigned i = 0; i < l->nops; i++)
        if (kh_isa_strieq(l->ops[i].name, mnemonic)) return (int)i;
    return -1;
}

const unsigned *kh_isa_show_set(const kh_isa_layout *l, uint64_t op, unsigned *n,
                             const isa_opcode **opc)
{
    for (unsigned i = 0; i < l->nops; i++)
        if (l->ops[i].value == op) {
            if (opc) *opc = &l->ops[i];
            *n = l->ops[i].nshow;
            return l->ops[i].show;
        }
    if (opc) *opc = NULL;
    *n = l->nraw_show;
    return l->raw_show;
}
