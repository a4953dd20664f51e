/* The exact integer block product (numerics.md §4), its run-time path
 * choice, and one K block through scale application and accumulation. */
#include "kohaku/num.h"

#include <stddef.h>

#include "acc_int.h"
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

#ifdef KH_MX_HAVE_AVXVNNI
#include <cpuid.h>

/* AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4 (not every compiler's
 * __builtin_cpu_supports knows the name); AVX2 vouches for the OS saving
 * the YMM state. Read once, by read_avxvnni, before main runs, into a
 * variable only read afterwards (as simd.c's ceiling): under a hypervisor
 * CPUID traps, and a check per cluster built cost bench (1) 5 % of its CPU
 * on a CPU without AVX-512, where the path choice reaches this test. */
static int avxvnni_cpu;

__attribute__((constructor)) static void read_avxvnni(void)
{
    unsigned eax, ebx, ecx, edx;
    __builtin_cpu_init(); /* a constructor may run before libgcc's own */
    avxvnni_cpu = __builtin_cpu_supports("avx2") && __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax >> 4 & 1);
}

static int has_avxvnni(void) { return avxvnni_cpu; }
#endif

/* What one path runs (kh_mx_kernels, num.h): the block product and the
 * fused pipelines. */
typedef kh_mx_kernels path_impl;

/* The implementation of path p if this CPU runs it. */
static int path_impl_get(kh_mx_path p, path_impl *impl)
{
    *impl = (path_impl){KH_MX_PORTABLE, kh_mx_block_portable, NULL, NULL, 0, NULL};
    switch (p) {
    case KH_MX_PORTABLE:
        return 1;
#ifdef KH_MX_HAVE_X86
    case KH_MX_AVX2:
        if (!kh_simd_allows(KH_SIMD_AVX2) || !__builtin_cpu_supports("avx2")) return 0;
        *impl = (path_impl){p, kh_mx_block_avx2, kh_mx_chain_avx2, kh_mx_accum_avx2, KH_ACC_LANES_MW_MAX_AVX2,
                            kh_mx_strip_avx2};
        return 1;
    case KH_MX_AVX512VNNI:
        if (!kh_simd_allows(KH_SIMD_AVX512) || !__builtin_cpu_supports("avx512vnni") || !__builtin_cpu_supports("avx512vl") ||
            !__builtin_cpu_supports("avx512cd"))
            return 0;
        *impl = (path_impl){p, kh_mx_block_avx512vnni, kh_mx_chain_avx512vnni, kh_mx_accum_avx512vnni,
                            KH_ACC_LANES_MW_MAX_AVX512, kh_mx_strip_avx512vnni};
        return 1;
#ifdef KH_MX_HAVE_AVXVNNI
    case KH_MX_AVXVNNI:
        if (!kh_simd_allows(KH_SIMD_AVXVNNI) || !has_avxvnni()) return 0;
        *impl = (path_impl){p, kh_mx_block_avxvnni, kh_mx_chain_avxvnni, kh_mx_accum_avxvnni,
                            KH_ACC_LANES_MW_MAX_AVX2, kh_mx_strip_avxvnni};
        return 1;
#endif
#endif
    default:
        return 0;
    }
}

kh_mx_block_fn kh_mx_path_fn(kh_mx_path p)
{
    path_impl impl;
    return path_impl_get(p, &impl) ? impl.block : NULL;
}

kh_mx_path kh_mx_path_best(void)
{
    static const kh_mx_path order[] = {KH_MX_AVX512VNNI, KH_MX_AVXVNNI, KH_MX_AVX2};
    path_impl impl;
    for (unsigned i = 0; i < sizeof order / sizeof order[0]; i++)
        if (path_impl_get(order[i], &impl)) return order[i];
    return KH_MX_PORTABLE;
}

void kh_mx_block(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    kh_mx_path_fn(kh_mx_path_best())(a, b, c);
}

static unsigned clamp_mw(unsigned mw)
{
    return mw < KH_ACC_MW_MIN ? KH_ACC_MW_MIN : mw > KH_ACC_MW_MAX ? KH_ACC_MW_MAX : mw;
}

/* The scalar lanes of one block: scale, then add into the tile. */
static inline void accum_lanes(const int32_t *c, const uint8_t sa[4], const uint8_t sb[4], unsigned anchor,
                               unsigned mw, uint32_t tile[16])
{
    for (int n = 0; n < 16; n++)
        tile[n] = kh_acc_sum(tile[n], 0, kh_acc_scale(c[n], sa[n >> 2], sb[n & 3], anchor, mw), 0, mw);
}

void kh_mx_kernels_get(kh_mx_path p, kh_mx_kernels *k)
{
    if (!path_impl_get(p, k)) path_impl_get(KH_MX_PORTABLE, k);
}

void kh_mx_kernels_chain(const kh_mx_kernels *k, const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor,
                         unsigned mw, uint32_t chain[16])
{
    int32_t c[4][4];
    mw = clamp_mw(mw);
    anchor &= 0xFF; /* the 8-bit GEMM field */
    if (k->chain && mw <= k->lanes_mw_max) {
        k->chain(a, b, anchor, mw, chain);
        return;
    }
    k->block(a, b, c);
    for (int n = 0; n < 16; n++) chain[n] = kh_acc_scale(c[n >> 2][n & 3], a->scale[n >> 2], b->scale[n & 3], anchor, mw);
}

void kh_mx_kernels_accumulate(const kh_mx_kernels *k, const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor,
                              unsigned mw, uint32_t tile[16])
{
    int32_t c[4][4];
    mw = clamp_mw(mw);
    anchor &= 0xFF;
    if (k->accum && mw <= k->lanes_mw_max) {
        k->accum(a, b, anchor, mw, tile);
        return;
    }
    k->block(a, b, c);
    if (mw == KH_ACC_MW_DEFAULT)
        accum_lanes(&c[0][0], a->scale, b->scale, anchor, KH_ACC_MW_DEFAULT, tile); /* constants fold */
    else
        accum_lanes(&c[0][0], a->scale, b->scale, anchor, mw, tile);
}

void kh_mx_kernels_accumulate2(const kh_mx_kernels *k, const kh_mx_entry *a, const kh_mx_entry *b0,
                               const kh_mx_entry *b1, unsigned anchor, unsigned mw, uint32_t tile0[16],
                               uint32_t tile1[16])
{
    const kh_mx_entry *b[2] = {b0, b1};
    uint32_t *tile[2] = {tile0, tile1};
    kh_mx_kernels_accumulate_strip(k, a, b, 2, anchor, mw, tile);
}

void kh_mx_kernels_accumulate_strip(const kh_mx_kernels *k, const kh_mx_entry *a, const kh_mx_entry *const *b,
                                    unsigned n, unsigned anchor, unsigned mw, uint32_t *const *tile)
{
    if (k->strip && clamp_mw(mw) <= k->lanes_mw_max) {
        k->strip(a, b, n, anchor & 0xFF, clamp_mw(mw), tile);
        return;
    }
    for (unsigned h = 0; h < n; h++) kh_mx_kernels_accumulate(k, a, b[h], anchor, mw, tile[h]);
}

void kh_mx_block_chain_on(kh_mx_path p, const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                          uint32_t chain[16])
{
    kh_mx_kernels k;
    kh_mx_kernels_get(p, &k);
    kh_mx_kernels_chain(&k, a, b, anchor, mw, chain);
}

void kh_mx_block_accumulate_on(kh_mx_path p, const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor,
                               unsigned mw, uint32_t tile[16])
{
    kh_mx_kernels k;
    kh_mx_kernels_get(p, &k);
    kh_mx_kernels_accumulate(&k, a, b, anchor, mw, tile);
}

void kh_mx_block_chain(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw, uint32_t chain[16])
{
    kh_mx_block_chain_on(kh_mx_path_best(), a, b, anchor, mw, chain);
}

void kh_mx_block_accumulate(const kh_mx_entry *a, const kh_mx_entry *b, unsigned anchor, unsigned mw,
                            uint32_t tile[16])
{
    kh_mx_block_accumulate_on(kh_mx_path_best(), a, b, anchor, mw, tile);
}
