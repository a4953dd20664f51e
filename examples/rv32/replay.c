/* A step list run from the scratchpad, so a host hands the processor a
 * whole job at once (docs/cpu.md): mover descriptors replayed with MVGO,
 * CU_INSTs sent through the dispatch region, completions awaited. The list
 * sits at scratchpad byte 0x1000 (KR_SCRIPT), 32-bit words:
 *   1 MOVE      desc      (scratchpad byte offset of a descriptor)
 *   2 DISPATCH  dst       ({last, txn, y, x} = last << 16 | txn << 8 | y << 4 | x), op, pc, arg
 *   3 WAIT      n         (n completions from the dispatched instructions)
 *   0 END
 * Returns 0, or (step number + 1) << 16 | what went wrong (a mover fault
 * code, or a completion code other than INST_COMPLETE / BATCH_COMPLETE). */
#include "kohaku_rv32.h"

#define KR_SCRIPT (KR_SPAD + 0x1000)

uint32_t main(uint32_t arg);
uint32_t main(uint32_t arg)
{
    const volatile uint32_t *s = (const volatile uint32_t *)(uintptr_t)KR_SCRIPT;
    (void)arg;
    for (uint32_t step = 1;; step++) {
        uint32_t op = *s++;
        if (op == 0) return 0;
        if (op == 1) {
            unsigned f = kr_mvgo((const void *)(uintptr_t)(KR_SPAD + *s++));
            if (f) return step << 16 | f;
        } else if (op == 2) {
            uint32_t d = s[0];
            kr_dispatch(d & 15, (d >> 4) & 15, (d >> 8) & 0xFF, (d >> 16) & 1, (uint8_t)s[1], s[2], s[3]);
            s += 4;
        } else if (op == 3) {
            unsigned bad = kr_wait_completions(*s++);
            if (bad) return step << 16 | bad;
        } else {
            return step << 16 | 0xFFFF;
        }
    }
}
