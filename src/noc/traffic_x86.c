/* The arrival gap's search (traffic_gap.h) eight draws at a time: the
 * states s + GAMMA, ..., s + 8 GAMMA mixed in the lanes of one AVX-512
 * register (vpmullq for the two products), compared with the threshold,
 * the first lane below it taken. At rate 0.1 a gap takes ten draws on
 * average: two passes instead of ten dependent scalar rounds. */
#include "noc/traffic_gap.h"

#include "kohaku/num.h"

#ifdef KH_TRAFFIC_HAVE_X86
#include <immintrin.h>

#define T512 __attribute__((target("avx512f,avx512dq")))

int kh_traffic_gap_avx512_ok(void)
{
    return kh_simd_allows(KH_SIMD_AVX512) && __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512dq");
}

T512 uint64_t kh_traffic_gap_avx512(uint64_t *s, uint64_t thr)
{
    const uint64_t g = KH_SPLITMIX_GAMMA;
    __m512i st = _mm512_add_epi64(_mm512_set1_epi64((long long)*s),
                                  _mm512_setr_epi64((long long)g, (long long)(2 * g), (long long)(3 * g),
                                                    (long long)(4 * g), (long long)(5 * g), (long long)(6 * g),
                                                    (long long)(7 * g), (long long)(8 * g)));
    const __m512i step = _mm512_set1_epi64((long long)(8 * g));
    const __m512i m1 = _mm512_set1_epi64((long long)KH_SPLITMIX_M1), m2 = _mm512_set1_epi64((long long)KH_SPLITMIX_M2);
    const __m512i t = _mm512_set1_epi64((long long)thr);
    for (uint64_t k0 = 0;; k0 += 8) {
        __m512i z = _mm512_xor_si512(st, _mm512_srli_epi64(st, 30));
        z = _mm512_mullo_epi64(z, m1);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 27));
        z = _mm512_mullo_epi64(z, m2);
        z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
        __mmask8 hit = _mm512_cmplt_epu64_mask(z, t);
        if (hit) {
            uint64_t k = k0 + (uint64_t)__builtin_ctz(hit) + 1;
            *s += k * g;
            return k;
        }
        st = _mm512_add_epi64(st, step);
    }
}
#else
typedef int kh_traffic_x86_unused; /* ISO C wants a declaration */
#endif
