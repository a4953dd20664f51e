/* The arrival gap's search (traffic_gap.h) eight or thirty-two draws at a
 * time: the states s + GAMMA, ..., s + 8 GAMMA (or 32 GAMMA) mixed in the
 * lanes of one or four AVX-512 registers (vpmullq for the two products),
 * compared with the threshold, the first lane below it taken. At rate 0.1
 * a gap takes ten draws on average: one pass instead of ten dependent
 * scalar rounds. */
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

/* One draw per lane of x: splitmix64's mix of the states in x. */
static inline T512 __m512i mix8(__m512i x, __m512i m1, __m512i m2)
{
    __m512i z = _mm512_xor_si512(x, _mm512_srli_epi64(x, 30));
    z = _mm512_mullo_epi64(z, m1);
    z = _mm512_xor_si512(z, _mm512_srli_epi64(z, 27));
    z = _mm512_mullo_epi64(z, m2);
    return _mm512_xor_si512(z, _mm512_srli_epi64(z, 31));
}

/* The states s + GAMMA, ..., s + 8 GAMMA: a pass's first eight draws. */
static inline T512 __m512i states8(uint64_t s, uint64_t g)
{
    return _mm512_add_epi64(_mm512_set1_epi64((long long)s),
                            _mm512_setr_epi64((long long)g, (long long)(2 * g), (long long)(3 * g), (long long)(4 * g),
                                              (long long)(5 * g), (long long)(6 * g), (long long)(7 * g),
                                              (long long)(8 * g)));
}

/* Eight draws a pass: at rates of 0.2 and above the first pass nearly
 * always holds the arrival, and mixing 32 would be mostly waste (rate 0.4:
 * about 5 % more CPU time than eight). */
T512 uint64_t kh_traffic_gap8_avx512(uint64_t *s, uint64_t thr)
{
    const uint64_t g = KH_SPLITMIX_GAMMA;
    __m512i a = states8(*s, g);
    const __m512i step = _mm512_set1_epi64((long long)(8 * g));
    const __m512i m1 = _mm512_set1_epi64((long long)KH_SPLITMIX_M1), m2 = _mm512_set1_epi64((long long)KH_SPLITMIX_M2);
    const __m512i t = _mm512_set1_epi64((long long)thr);
    for (uint64_t k0 = 0;; k0 += 8) {
        uint32_t hit = (uint32_t)_mm512_cmplt_epu64_mask(mix8(a, m1, m2), t);
        if (hit) {
            uint64_t k = k0 + (uint64_t)__builtin_ctz(hit) + 1;
            *s += k * g;
            return k;
        }
        a = _mm512_add_epi64(a, step);
    }
}

/* Thirty-two draws a pass, four registers mixed side by side: at rate 0.1
 * the first pass holds the arrival 97 times in 100 (eight draws: not quite
 * three in five), so the loop's exit is predicted, and the four multiply
 * chains overlap (bench noc 4x4 at 0.1: about 6 % less CPU time than
 * eight, 3 % less than sixteen). */
T512 uint64_t kh_traffic_gap32_avx512(uint64_t *s, uint64_t thr)
{
    const uint64_t g = KH_SPLITMIX_GAMMA;
    __m512i a = states8(*s, g);
    const __m512i eight = _mm512_set1_epi64((long long)(8 * g)), step = _mm512_set1_epi64((long long)(32 * g));
    __m512i b = _mm512_add_epi64(a, eight), c = _mm512_add_epi64(b, eight), d = _mm512_add_epi64(c, eight);
    const __m512i m1 = _mm512_set1_epi64((long long)KH_SPLITMIX_M1), m2 = _mm512_set1_epi64((long long)KH_SPLITMIX_M2);
    const __m512i t = _mm512_set1_epi64((long long)thr);
    for (uint64_t k0 = 0;; k0 += 32) {
        uint32_t hit = (uint32_t)_mm512_cmplt_epu64_mask(mix8(a, m1, m2), t) |
                       (uint32_t)_mm512_cmplt_epu64_mask(mix8(b, m1, m2), t) << 8 |
                       (uint32_t)_mm512_cmplt_epu64_mask(mix8(c, m1, m2), t) << 16 |
                       (uint32_t)_mm512_cmplt_epu64_mask(mix8(d, m1, m2), t) << 24;
        if (hit) {
            uint64_t k = k0 + (uint64_t)__builtin_ctz(hit) + 1;
            *s += k * g;
            return k;
        }
        a = _mm512_add_epi64(a, step);
        b = _mm512_add_epi64(b, step);
        c = _mm512_add_epi64(c, step);
        d = _mm512_add_epi64(d, step);
    }
}
#else
typedef int kh_traffic_x86_unused; /* ISO C wants a declaration */
#endif
