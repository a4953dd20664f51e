/* The unit registry: one row per unit kind (map token, CU_TYPE, ops). A new
 * unit adds its file under units/ and one row here. */
#include <string.h>

#include "cu/units/units.h"

static const kh_unit_kind *const kinds[] = {
    &kh_unit_cluster,
    &kh_unit_vector,
    &kh_unit_vector2,
    &kh_unit_matmul,
    &kh_unit_saxpy,
    &kh_unit_rv64_sys_pe,
};

const kh_unit_kind *const *kh_unit_kinds(unsigned *n)
{
    *n = sizeof kinds / sizeof kinds[0];
    return kinds;
}

const kh_unit_kind *kh_unit_by_token(const char *token)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i]->token && !strcmp(kinds[i]->token, token)) return kinds[i];
    return NULL;
}

const kh_unit_kind *kh_unit_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (!strcmp(kinds[i]->name, name)) return kinds[i];
    return NULL;
}
