/* KOHAKU_SIMD: the widest instruction set the dispatched x86 paths may use
 * (docs/num.md), so that a machine with AVX-512 can run what a CPU without
 * it runs (CI, a user's laptop) and measure it. */
#include "kohaku/num.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static const char *const level_names[] = {"portable", "avx2", "avx-vnni", "avx512"};

/* Written once, by read_ceiling, before main runs (as libgcc fills the
 * table __builtin_cpu_supports reads); only read afterwards, so two
 * simulations or threads see the same value and never race on it. A check
 * per call instead would put getenv in the quantiser's per-entry path. */
static kh_simd ceiling = KH_SIMD_AVX512;
static const char *bad_value;

#if defined(__GNUC__) || defined(__clang__)
__attribute__((constructor)) static void read_ceiling(void)
{
    const char *v = getenv("KOHAKU_SIMD");
    if (!v || !*v) return;
    for (unsigned l = 0; l < sizeof level_names / sizeof level_names[0]; l++)
        if (!strcmp(v, level_names[l])) {
            ceiling = (kh_simd)l;
            return;
        }
    bad_value = v; /* no restriction; the CLI refuses to start (kh_simd_bad_value) */
}
#endif

int kh_simd_allows(kh_simd level) { return level <= ceiling; }

kh_simd kh_simd_ceiling(void) { return ceiling; }

const char *kh_simd_name(kh_simd level)
{
    return (unsigned)level < sizeof level_names / sizeof level_names[0] ? level_names[level] : "?";
}

const char *kh_simd_bad_value(void) { return bad_value; }
