/* mx_cluster_cu: placeholder row until the unit lands. */
#include <stdio.h>

#include "cu/units/units.h"

static void *create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    (void)shell;
    (void)p;
    snprintf(err, errlen, "unit mx_cluster_cu is not built yet");
    return NULL;
}

const kh_unit_kind kh_unit_cluster = {
    .token = "mat",
    .name = "mx_cluster_cu",
    .cu_type = 0x4D47,
    .cu_version = 4,
    .n_buffers = 2,
    .create = create,
};
