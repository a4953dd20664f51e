/* Transform occupant 1: FP16 -> MXFP7 with the shared E5M3 scale
 * (memory.md §13, numerics.md §3). The arithmetic is the num module's
 * kh_quant_entry; this file only plugs it into the slot. */
#include "kohaku/num.h"
#include "sysnode/mover/xform.h"

static unsigned quant_latency(const kh_params *p)
{
    return (unsigned)p->quant_latency; /* parameters.md row 86 */
}

static void quant(const uint64_t *in, unsigned mode, uint64_t *out)
{
    kh_quant_entry(in, mode, out); /* XFORM_MODE[0] selects the B packing */
}

const kh_xform_occupant kh_xform_quant = {
    .id = 1,
    .name = "fp16-mxfp7",
    .in_bits = 2048, /* 8 beats = 128 FP16 values */
    .out_words = 4,
    .latency = quant_latency,
    .convert = quant,
};
