/* fuzz-max-len: 40000 */
/* The checkpoint reader (docs/checkpoint.md) on arbitrary bytes: refused
 * with a message or restored, never a crash, a leak or a hang. The seeds
 * are the saxpy map at cycle 0 with small FIFOs (kohaku run --param ...),
 * once with the flit checker on (its CHCK section). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "kohaku/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[2048];
    kh_machine *m = kh_machine_restore_bytes(data, size, NULL, NULL, err, sizeof err);
    kh_machine_free(m);
    return 0;
}
