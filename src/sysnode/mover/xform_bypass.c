/* Transform occupant 0, the bypass (memory.md §12): 4 beats in, output
 * word i = input beat i. Also answers ids that name no occupant. */
#include <string.h>

#include "sysnode/mover/xform.h"

static void bypass(const uint64_t *in, unsigned mode, uint64_t *out)
{
    (void)mode;
    memcpy(out, in, 16 * sizeof *out);
}

const kh_xform_occupant kh_xform_bypass = {
    .id = 0,
    .name = "bypass",
    .in_bits = 1024, /* 4 beats (per-id geometry, memory.md Open point 6) */
    .out_words = 4,
    .latency = NULL,
    .convert = bypass,
};
