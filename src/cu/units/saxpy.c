/* saxpy_cu: placeholder row until the unit lands. */
#include <stdio.h>

#include "cu/units/units.h"

static void *create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    (void)shell;
    (void)p;
    snprintf(err, errlen, "unit saxpy_cu is not built yet");
    return NULL;
}

const kh_unit_kind kh_unit_saxpy = {
    .token = "sax",
    .name = "saxpy_cu",
    .cu_type = 0x5358,
    .cu_version = 1,
    .n_buffers = 1,
    .create = create,
};
