/* Transform occupant 1: FP16 entry -> MXFP7 entry with a shared E5M3 scale
 * per lane (numerics.md §3, memory.md §13). Integer arithmetic only. */
#include "kohaku/num.h"

#include "mx_block_int.h"

#define SEXP_MIN (-20) /* scale exponent clamp (memory.md §13) */
#define SEXP_MAX 11

/* round(32768 / m8) for m8 = 8..15 (numerics §3 step 4) */
static const uint32_t recip[8] = {4096, 3641, 3277, 2979, 2731, 2520, 2341, 2185};

/* A 15-bit FP16 magnitude as sig * 2^(e - 25); exponent field 31 is an
 * ordinary exponent here (Inf and NaN quantise as large numbers). */
static void decode(unsigned h, int *e, unsigned *sig)
{
    unsigned f = h >> 10, m = h & 0x3FF;
    *e = f ? (int)f : 1;
    *sig = f ? 1024 + m : m;
}

/* Scale of one lane from its peak magnitude: E5M3 byte, sbase and rc. */
static void lane_scale(unsigned peak, uint8_t *byte, int *sbase, uint32_t *rc)
{
    int e, sexp;
    unsigned sig, m8;
    decode(peak, &e, &sig);
    while (sig != 0 && sig < 1024) {
        sig *= 2;
        e -= 1;
    }
    if (sig == 0) {
        sexp = 0;
        m8 = 8;
    } else if (sig > 1890) {
        sexp = e - 20;
        m8 = sig > 2016 ? 9 : 8;
    } else {
        /* ceil(sig / 126): the scale rounds up so peak / scale <= 63 */
        static const unsigned bound[6] = {1764, 1638, 1512, 1386, 1260, 1134};
        sexp = e - 21;
        m8 = 9;
        for (unsigned i = 0; i < 6; i++)
            if (sig > bound[i]) {
                m8 = 15 - i;
                break;
            }
    }
    if (sexp < SEXP_MIN) sexp = SEXP_MIN;
    if (sexp > SEXP_MAX) sexp = SEXP_MAX;
    *byte = (uint8_t)((unsigned)(sexp + 20) << 3 | (m8 - 8));
    *sbase = sexp + 21;
    *rc = recip[m8 - 8];
}

/* One element: half-away rounding of |x| / scale, clamped to 63, signed.
 * Branch-free (the element's cases are data): t >= 8 and sig = 0 both shift
 * the product down to 0 (t clamped to 8 keeps the shift defined), t < 0 with
 * sig != 0 is the clamp to 63. The AVX-512 lanes below do the same steps. */
static int8_t quant_one(unsigned x, int sbase, uint32_t rc)
{
    unsigned f = (x >> 10) & 0x1F, m = x & 0x3FF;
    int e = f ? (int)f : 1;
    unsigned sig = f ? 1024 + m : m;
    int t = sbase - e;
    unsigned sh = t < 0 || t > 8 ? 8 : (unsigned)t;
    uint32_t p = sig * rc; /* < 2^23 */
    unsigned x8 = ((p >> 15) & 0xFF) >> sh;
    unsigned r = (x8 >> 1) + (x8 & 1);
    unsigned mag = (t < 0 && sig) || r > 63 ? 63 : r;
    return (int8_t)(x >> 15 ? -(int)mag : (int)mag);
}

/* Element n = 32·lane + k of the entry (bits [16n+15:16n]). */
static unsigned element(const uint64_t in[32], unsigned n) { return (unsigned)(in[n / 4] >> (16 * (n % 4))) & 0xFFFF; }

static unsigned lane_peak(const uint64_t in[32], unsigned lane)
{
    unsigned peak = 0;
    for (unsigned k = 0; k < 32; k++) {
        unsigned x = element(in, 32 * lane + k) & 0x7FFF;
        peak = x > peak ? x : peak;
    }
    return peak;
}

static void quant_lanes_portable(const uint64_t in[32], kh_mx_entry *e)
{
    for (unsigned lane = 0; lane < 4; lane++) {
        int sbase;
        uint32_t rc;
        lane_scale(lane_peak(in, lane), &e->scale[lane], &sbase, &rc);
        for (unsigned k = 0; k < 32; k++) e->q[lane][k] = quant_one(element(in, 32 * lane + k), sbase, rc);
    }
}

#ifdef KH_MX_HAVE_X86
#include <immintrin.h>

#define T512 __attribute__((target("avx2,avx512f")))

/* quant_one on 16 elements. */
static inline T512 __m128i quant16(__m512i x, int sbase, uint32_t rc)
{
    const __m512i zero = _mm512_setzero_si512(), eight = _mm512_set1_epi32(8), c63 = _mm512_set1_epi32(63);
    __m512i f = _mm512_and_si512(_mm512_srli_epi32(x, 10), _mm512_set1_epi32(0x1F));
    __m512i m = _mm512_and_si512(x, _mm512_set1_epi32(0x3FF));
    __mmask16 normal = _mm512_test_epi32_mask(f, f);
    __m512i e = _mm512_mask_mov_epi32(_mm512_set1_epi32(1), normal, f);
    __m512i sig = _mm512_mask_or_epi32(m, normal, m, _mm512_set1_epi32(1024));
    __m512i t = _mm512_sub_epi32(_mm512_set1_epi32(sbase), e);
    __mmask16 below = _mm512_cmplt_epi32_mask(t, zero) & _mm512_test_epi32_mask(sig, sig);
    __m512i sh = _mm512_min_epu32(t, eight); /* t < 0 is a huge unsigned: 8 */
    __m512i p = _mm512_mullo_epi32(sig, _mm512_set1_epi32((int)rc));
    __m512i x8 = _mm512_srlv_epi32(_mm512_and_si512(_mm512_srli_epi32(p, 15), _mm512_set1_epi32(0xFF)), sh);
    __m512i r = _mm512_add_epi32(_mm512_srli_epi32(x8, 1), _mm512_and_si512(x8, _mm512_set1_epi32(1)));
    __m512i mag = _mm512_mask_mov_epi32(_mm512_min_epu32(r, c63), below, c63);
    __mmask16 neg = _mm512_test_epi32_mask(x, _mm512_set1_epi32(0x8000));
    return _mm512_cvtepi32_epi8(_mm512_mask_sub_epi32(mag, neg, zero, mag));
}

static T512 void quant_lanes_avx512(const uint64_t in[32], kh_mx_entry *e)
{
    /* x86 is little-endian: element n is the n-th halfword of in */
    const uint16_t *h = (const uint16_t *)(const void *)in;
    for (unsigned lane = 0; lane < 4; lane++) {
        __m512i x0 = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(h + 32 * lane)));
        __m512i x1 = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(h + 32 * lane + 16)));
        const __m512i mag = _mm512_set1_epi32(0x7FFF);
        unsigned peak = _mm512_reduce_max_epu32(_mm512_max_epu32(_mm512_and_si512(x0, mag), _mm512_and_si512(x1, mag)));
        int sbase;
        uint32_t rc;
        lane_scale(peak, &e->scale[lane], &sbase, &rc);
        _mm_storeu_si128((__m128i *)(void *)e->q[lane], quant16(x0, sbase, rc));
        _mm_storeu_si128((__m128i *)(void *)(e->q[lane] + 16), quant16(x1, sbase, rc));
    }
}

static int have_avx512(void) { return kh_simd_allows(KH_SIMD_AVX512) && __builtin_cpu_supports("avx512f"); }

#define T256 __attribute__((target("avx2")))

/* quant_one on 8 elements (x zero-extended halfwords), as quant16. */
static inline T256 __m256i quant8(__m256i x, __m256i vsbase, __m256i vrc)
{
    const __m256i zero = _mm256_setzero_si256(), eight = _mm256_set1_epi32(8), c63 = _mm256_set1_epi32(63);
    const __m256i one = _mm256_set1_epi32(1);
    __m256i f = _mm256_and_si256(_mm256_srli_epi32(x, 10), _mm256_set1_epi32(0x1F));
    __m256i m = _mm256_and_si256(x, _mm256_set1_epi32(0x3FF));
    __m256i sub = _mm256_cmpeq_epi32(f, zero); /* subnormal: e = 1, no leading one */
    __m256i e = _mm256_blendv_epi8(f, one, sub);
    __m256i sig = _mm256_or_si256(m, _mm256_andnot_si256(sub, _mm256_set1_epi32(1024)));
    __m256i t = _mm256_sub_epi32(vsbase, e);
    __m256i below = _mm256_andnot_si256(_mm256_cmpeq_epi32(sig, zero), _mm256_cmpgt_epi32(zero, t));
    __m256i sh = _mm256_min_epu32(t, eight); /* t < 0 is a huge unsigned: 8 */
    __m256i p = _mm256_mullo_epi32(sig, vrc);
    __m256i x8 = _mm256_srlv_epi32(_mm256_and_si256(_mm256_srli_epi32(p, 15), _mm256_set1_epi32(0xFF)), sh);
    __m256i r = _mm256_add_epi32(_mm256_srli_epi32(x8, 1), _mm256_and_si256(x8, one));
    __m256i mag = _mm256_blendv_epi8(_mm256_min_epu32(r, c63), c63, below);
    __m256i neg = _mm256_srai_epi32(_mm256_slli_epi32(x, 16), 31); /* bit 15 */
    return _mm256_sub_epi32(_mm256_xor_si256(mag, neg), neg);
}

/* The largest of 16 halfwords: phminposuw finds the least of their complements. */
static inline T256 unsigned max_epu16(__m256i v)
{
    __m128i m = _mm_max_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return 0xFFFFu - ((unsigned)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(m, _mm_set1_epi16(-1)))) & 0xFFFFu);
}

static T256 void quant_lanes_avx2(const uint64_t in[32], kh_mx_entry *e)
{
    const uint16_t *h = (const uint16_t *)(const void *)in;
    const __m256i mag15 = _mm256_set1_epi16(0x7FFF), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (unsigned lane = 0; lane < 4; lane++) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)(h + 32 * lane));
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(h + 32 * lane + 16));
        unsigned peak = max_epu16(_mm256_max_epu16(_mm256_and_si256(x0, mag15), _mm256_and_si256(x1, mag15)));
        int sbase;
        uint32_t rc;
        lane_scale(peak, &e->scale[lane], &sbase, &rc);
        const __m256i vs = _mm256_set1_epi32(sbase), vr = _mm256_set1_epi32((int)rc);
        __m256i q0 = quant8(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(x0)), vs, vr);
        __m256i q1 = quant8(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(x0, 1)), vs, vr);
        __m256i q2 = quant8(_mm256_cvtepu16_epi32(_mm256_castsi256_si128(x1)), vs, vr);
        __m256i q3 = quant8(_mm256_cvtepu16_epi32(_mm256_extracti128_si256(x1, 1)), vs, vr);
        /* -63..63: the packs saturate nothing; dword d of the result holds
         * elements of q(d % 4) half d / 4, put back in order */
        __m256i b = _mm256_packs_epi16(_mm256_packs_epi32(q0, q1), _mm256_packs_epi32(q2, q3));
        _mm256_storeu_si256((__m256i *)(void *)e->q[lane], _mm256_permutevar8x32_epi32(b, order));
    }
}

static int have_avx2(void) { return kh_simd_allows(KH_SIMD_AVX2) && __builtin_cpu_supports("avx2"); }
#else
static void quant_lanes_avx512(const uint64_t in[32], kh_mx_entry *e)
{
    quant_lanes_portable(in, e); /* never called: have_avx512() is 0 */
}
static int have_avx512(void) { return 0; }
static void quant_lanes_avx2(const uint64_t in[32], kh_mx_entry *e)
{
    quant_lanes_portable(in, e); /* never called: have_avx2() is 0 */
}
static int have_avx2(void) { return 0; }
#endif

/* One entry through the given lanes, then packed (mode bit 0: the B
 * packing). Inline: the portable and AVX2 entry points call their lanes
 * directly; kh_quant_entry calls the lanes it picked for this CPU. */
static inline void quant_with(void (*lanes)(const uint64_t in[32], kh_mx_entry *e), const uint64_t in[32],
                              unsigned mode, uint64_t out[16])
{
    kh_mx_entry e;
    lanes(in, &e);
    kh_mx_pack(&e, (int)(mode & 1), out);
}

void kh_quant_entry(const uint64_t in[32], unsigned mode, uint64_t out[16])
{
    quant_with(have_avx512() ? quant_lanes_avx512 : have_avx2() ? quant_lanes_avx2 : quant_lanes_portable, in, mode,
               out);
}

void kh_quant_entry_portable(const uint64_t in[32], unsigned mode, uint64_t out[16])
{
    quant_with(quant_lanes_portable, in, mode, out);
}

int kh_quant_entry_avx2(const uint64_t in[32], unsigned mode, uint64_t out[16])
{
    if (!have_avx2()) return 0;
    quant_with(quant_lanes_avx2, in, mode, out);
    return 1;
}
