/* The whole parameter table: the kernel's rows and checks (src/sim/params.c)
 * and every unit kind's, from its registry row (kh_unit_kind.params). */
#include <stdio.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/cu.h"
#include "kohaku/echo.h"
#include "kohaku/hex.h"

const kh_param_info *kh_params_row(size_t i)
{
    size_t n;
    const kh_param_info *core = kh_params_core_rows(&n);
    if (i < n) return &core[i];
    i -= n;
    unsigned nk;
    const kh_unit_kind *const *kinds = kh_unit_kinds(&nk);
    for (unsigned k = 0; k < nk; k++) {
        if (i < kinds[k]->nparams) return &kinds[k]->params[i];
        i -= kinds[k]->nparams;
    }
    return NULL;
}

int kh_params_check(const kh_params *p, char *err, size_t errlen)
{
    if (kh_params_core_check(p, err, errlen)) return -1;
    unsigned nk;
    const kh_unit_kind *const *kinds = kh_unit_kinds(&nk);
    for (unsigned k = 0; k < nk; k++) {
        if (kh_param_rows_check(p, kinds[k]->params, kinds[k]->nparams, err, errlen)) return -1;
        if (kinds[k]->check_params && kinds[k]->check_params(p, err, errlen)) return -1;
    }
    return 0;
}

int kh_params_set(kh_params *p, const char *name, const char *value, char *err, size_t errlen)
{
    const kh_param_info *row = NULL;
    for (size_t i = 0; !row && kh_params_row(i); i++)
        if (!strcmp(kh_params_row(i)->name, name)) row = kh_params_row(i);
    kh_echo_buf b;
    if (!row) {
        snprintf(err, errlen, "unknown parameter '%s' (kohaku params lists them)", kh_echo(name, &b));
        return -1;
    }
    uint64_t v;
    int prc = kh_parse_u64(value, &v);
    if (prc == KH_PARSE_TOO_BIG) {
        snprintf(err, errlen, "parameter %s: %s does not fit 64 bits", name, kh_echo(value, &b));
        return -1;
    }
    if (prc && kh_param_choice(name, value, &v)) {
        char names[128];
        kh_param_choice_names(name, names, sizeof names);
        snprintf(err, errlen, "parameter %s: '%s' is not a decimal or 0x number%s", name, kh_echo(value, &b), names);
        return -1;
    }
    kh_params trial = *p; /* a refused value changes nothing */
    memcpy((char *)&trial + row->offset, &v, sizeof v);
    if (kh_params_check(&trial, err, errlen)) return -1;
    *p = trial;
    return 0;
}

int kh_params_set_assign(kh_params *p, const char *assign, char *err, size_t errlen)
{
    const char *eq = strchr(assign, '=');
    char name[64];
    if (!eq || (size_t)(eq - assign) >= sizeof name || eq == assign) {
        kh_echo_buf b;
        snprintf(err, errlen, "parameter '%s': expected NAME=VALUE", kh_echo(assign, &b));
        return -1;
    }
    memcpy(name, assign, (size_t)(eq - assign));
    name[eq - assign] = '\0';
    return kh_params_set(p, name, eq + 1, err, errlen);
}

int kh_params_profile(kh_params *p, const char *profile, char *err, size_t errlen)
{
    if (kh_params_core_profile(p, profile)) return 0;
    unsigned nk;
    const kh_unit_kind *const *kinds = kh_unit_kinds(&nk);
    for (unsigned k = 0; k < nk; k++)
        if (kinds[k]->profile && !strcmp(kinds[k]->profile, profile)) {
            kinds[k]->apply_profile(p);
            return 0;
        }
    size_t used = 0;
    kh_bufcat(err, errlen, &used, "unknown profile '%s' (machine, host-zero, upstream-7703ee8, rec", profile);
    for (unsigned k = 0; k < nk; k++)
        if (kinds[k]->profile) kh_bufcat(err, errlen, &used, ", %s", kinds[k]->profile);
    kh_bufcat(err, errlen, &used, ")");
    return -1;
}
