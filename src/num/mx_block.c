/* The exact integer block product (numerics.md §4), its run-time path
 * choice, and one K block through scale application and accumulation. */
#include "kohaku/num.h"

#include <stddef.h>

#include "mx_block_int.h"

void kh_mx_block_portable(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    /* int16 products, int32 sums over 32 lanes: the compiler vectorises it */
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            int32_t s = 0;
            for (int k = 0; k < 32; k++) s += (int16_t)(a->q[i][k] * b->q[j][k]);
            c[i][j] = s;
        }
}

static const char *const path_names[KH_MX_NPATHS] = {"portable", "avx2", "avx-vnni", "avx512-vnni"};

const char *kh_mx_path_name(kh_mx_path p) { return (unsigned)p < KH_MX_NPATHS ? path_names[p] : "?"; }

kh_mx_block_fn kh_mx_path_fn(kh_mx_path p)
{
    switch (p) {
    case KH_MX_PORTABLE:
        return kh_mx_block_portable;
#ifdef KH_MX_HAVE_X86
    case KH_MX_AVX2:
        return __builtin_cpu_supports("avx2") ? kh_mx_block_avx2 : NULL;
    case KH_MX_AVX512VNNI:
        return __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vl") ? kh_mx_block_avx512vnni
                                                                                           : NULL;
#ifdef KH_MX_HAVE_AVXVNNI
    case KH_MX_AVXVNNI:
        return __builtin_cpu_supports("avxvnni") ? kh_mx_block_avxvnni : NULL;
#endif
#endif
    default:
        return NULL;
    }
}

kh_mx_path kh_mx_path_best(void)
{
    static const kh_mx_path order[] = {KH_MX_AVX512VNNI, KH_MX_AVXVNNI, KH_MX_AVX2};
    for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++)
        if (kh_mx_path_fn(order[i])) return order[i];
    return KH_MX_PORTABLE;
}

void kh_mx_block(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    kh_mx_path_fn(kh_mx_path_best())(a, b, c);
}

void kh_mx_block_chain(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t chain[16])
{
    int32_t c[4][4];
    kh_mx_block(a, b, c);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) chain[4 * i + j] = kh_acc_from_product(c[i][j], a->scale[i], b->scale[j], anchor, mw);
}

void kh_mx_block_accumulate(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                            uint32_t tile[16])
{
    uint32_t chain[16];
    kh_mx_block_chain(a, b, anchor, mw, chain);
    for (int n = 0; n < 16; n++) tile[n] = kh_acc_add(tile[n], 0, chain[n], 0, mw);
}
