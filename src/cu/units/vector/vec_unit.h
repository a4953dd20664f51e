/* What tests and tools may reach inside vec_cu beyond the unit interface. */
#ifndef KOHAKU_VEC_UNIT_H
#define KOHAKU_VEC_UNIT_H

#include "kohaku/params.h"

#include "cu/units/vector/vec.h"

/* The core of a vec_cu unit (the `void *unit` kh_cu_unit() returns). */
vec_core *kh_vec_unit_core(void *unit);
/* The cycle the unit took its first instruction (the recordings' origin of
 * time, vectors/README.md `cycles`), KH_NEVER before. */
kh_cycle kh_vec_unit_first_inst(void *unit);

#endif
