/* x86-64 paths of the block product (numerics.md §4), each compiled for its
 * own instruction set with a target attribute and run only where
 * kh_mx_path_fn() found the CPU able to (the same binary runs anywhere).
 * The kernels are in mx_x86_kernels.h. */
#include "mx_block_int.h"

#ifdef KH_MX_HAVE_X86
#include "mx_x86_kernels.h"

KH_T_AVX2 void kh_mx_block_avx2(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    __m256i out[2];
    kh_product_avx2(a, b, out);
    _mm256_storeu_si256((__m256i *)&c[0][0], out[0]);
    _mm256_storeu_si256((__m256i *)&c[2][0], out[1]);
}

KH_T_AVX512VNNI void kh_mx_block_avx512vnni(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    __m256i out[2];
    kh_product_avx512vnni(a, b, out);
    _mm256_storeu_si256((__m256i *)&c[0][0], out[0]);
    _mm256_storeu_si256((__m256i *)&c[2][0], out[1]);
}

#ifdef KH_MX_HAVE_AVXVNNI
KH_T_AVXVNNI void kh_mx_block_avxvnni(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    __m256i out[2];
    kh_product_avxvnni(a, b, out);
    _mm256_storeu_si256((__m256i *)&c[0][0], out[0]);
    _mm256_storeu_si256((__m256i *)&c[2][0], out[1]);
}
#endif

#else
/* Not x86-64 (or not GCC/Clang): only the portable path exists. ISO C
 * wants at least one declaration in a translation unit. */
typedef int kh_mx_block_x86_unused;
#endif
