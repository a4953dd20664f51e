/* The transform slot (memory.md §12): occupants selected by id, the one
 * table of built-ins, per-node registration, and the bank registers. */
#include <stdio.h>

#include "sysnode/fields.h"
#include "sysnode/node_int.h"
#include "sysnode/mover/xform.h"

/* The one table of built-in occupants, by id. A new built-in adds its file
 * (xform_NAME.c) and one row here; the mover never changes. */
static const kh_xform_occupant *const builtin[] = {
    &kh_xform_bypass,
    &kh_xform_quant,
};

const kh_xform_occupant *kh_xform_builtin(unsigned id)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (builtin[i]->id == id) return builtin[i];
    return NULL;
}

void kh_xform_slot_init(kh_node *n)
{
    for (unsigned id = 0; id < KH_XFORM_IDS; id++) n->occ[id] = kh_xform_builtin(id);
    n->bank_fault = 0;
}

const kh_xform_occupant *kh_xform_pick(const kh_node *n, unsigned id, int *unknown)
{
    const kh_xform_occupant *o = id < KH_XFORM_IDS ? n->occ[id] : NULL;
    *unknown = o == NULL;
    return o ? o : &kh_xform_bypass; /* an unknown id is answered by the bypass path */
}

int kh_node_xform_register(kh_node *n, const kh_xform_occupant *occ, char *err, size_t errlen)
{
    if (!occ || !occ->convert) {
        snprintf(err, errlen, "transform occupant without a convert function");
        return -1;
    }
    if (occ->id == 0 || occ->id >= KH_XFORM_IDS) {
        snprintf(err, errlen, "transform occupant '%s' id %u: ids 1..15 (XFORM_ID is 4 bits, 0 is the "
                 "bypass; memory.md §11.1, §12)", occ->name ? occ->name : "?", occ->id);
        return -1;
    }
    if (!occ->in_bits || occ->in_bits % 256 || occ->in_bits / 256 > KH_XFORM_MAX_BEATS) {
        snprintf(err, errlen, "transform occupant '%s' IN_BITS %u: a multiple of 256 up to %u "
                 "(memory.md §12)", occ->name ? occ->name : "?", occ->in_bits, 256 * KH_XFORM_MAX_BEATS);
        return -1;
    }
    if (occ->out_words < 1 || occ->out_words > 4) {
        snprintf(err, errlen, "transform occupant '%s' OUT_WORDS %u: 1..4 (memory.md §12)",
                 occ->name ? occ->name : "?", occ->out_words);
        return -1;
    }
    n->occ[occ->id] = occ;
    return 0;
}

uint32_t kh_node_xform_bank_read(kh_node *n, unsigned id, unsigned reg)
{
    if (reg == 0x00) return kx_bank_fault(n->bank_fault); /* {28'b0, fault[3:0]} */
    if (reg == 0x04) {                            /* {8'b0, OUT_WORDS, IN_BITS} of id */
        const kh_xform_occupant *o = id < KH_XFORM_IDS ? n->occ[id] : NULL;
        return o ? kx_bank_geometry(o->out_words, o->in_bits) : 0;
    }
    return 0;
}

void kh_node_xform_bank_clear(kh_node *n) { n->bank_fault = 0; }
