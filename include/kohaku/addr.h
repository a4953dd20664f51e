/* The 40-bit fabric address (memory.md §1); its fields are isa/addr.isa's
 * (kohaku/gen/addr.h). */
#ifndef KOHAKU_ADDR_H
#define KOHAKU_ADDR_H

#include <stdint.h>

#include "kohaku/gen/addr.h"

/* a in the fabric's 40 bits: address arithmetic (walks, bursts) wraps there. */
static inline uint64_t kh_addr_wrap(uint64_t a) { return a & ((UINT64_C(1) << KH_ADDR_WIDTH) - 1); }

#endif
