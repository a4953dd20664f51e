/* MX entry <-> four 256-bit words, A and B packing (numerics.md §2.2). The
 * word is the table mxfp7_word of isa/mxfp7.isa; its 32 slot accessors are
 * spelled out once below (through SLOTS) so every position is a constant:
 * no per-field position arithmetic on the GEMM's hot path; with AVX-512
 * VBMI one word's 32 slots come out in two shuffles. */
#include <string.h>

#include "kohaku/bits.h"
#include "kohaku/gen/mxfp7.h"
#include "kohaku/num.h"
#include "mx_block_int.h"

#define SLOTS(X)                                                                                                    \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) \
        X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31)

/* The slots of group g (8g .. 8g+7, lane g of the A packing) are one run
 * of 56 bits, slot 8g + i at 7·(7 - i) above the lowest (checked against
 * the table below); each comes out as 8 sign-extended bytes by spreading
 * the 7-bit fields apart in three doubling steps, no per-slot shifts. */
#define GLO(g) KH_MXFP7_WORD_S##g##_LO
#define RUN(o, n) _Static_assert(KH_MXFP7_WORD_S##o##_LO == KH_MXFP7_WORD_S##n##_LO + 7, "slots " #o " and " #n " are not adjacent");
RUN(0, 1) RUN(1, 2) RUN(2, 3) RUN(3, 4) RUN(4, 5) RUN(5, 6) RUN(6, 7)
RUN(8, 9) RUN(9, 10) RUN(10, 11) RUN(11, 12) RUN(12, 13) RUN(13, 14) RUN(14, 15)
RUN(16, 17) RUN(17, 18) RUN(18, 19) RUN(19, 20) RUN(20, 21) RUN(21, 22) RUN(22, 23)
RUN(24, 25) RUN(25, 26) RUN(26, 27) RUN(27, 28) RUN(28, 29) RUN(29, 30) RUN(30, 31)
#undef RUN
static const unsigned group_lo[4] = {GLO(7), GLO(15), GLO(23), GLO(31)};
#undef GLO

/* Group g's eight slots as bytes: byte i (bits 8i..8i+7) is slot 8g + i,
 * sign-extended. */
static uint64_t group_bytes(const uint64_t *word, unsigned g)
{
    const unsigned lo = group_lo[g], limb = lo / 64, sh = lo % 64;
    uint64_t v = word[limb] >> sh;
    if (sh > 8 && limb < 3) v |= word[limb + 1] << (64 - sh);
    v &= (UINT64_C(1) << 56) - 1; /* field j (slot 8g + 7 - j) at bit 7j */
    v = (v & UINT64_C(0x000000000FFFFFFF)) | (v & UINT64_C(0x00FFFFFFF0000000)) << 4;
    v = (v & UINT64_C(0x00003FFF00003FFF)) | (v & UINT64_C(0x0FFFC0000FFFC000)) << 2;
    v = (v & UINT64_C(0x007F007F007F007F)) | (v & UINT64_C(0x3F803F803F803F80)) << 1; /* field j in byte j */
    /* 7-bit two's complement to 8 in every byte at once: a field's bit 6
     * copied into bit 7, a shift that stays inside its byte (the generated
     * signed getter branches); slot 8g + i is field 7 - i */
    v |= (v & UINT64_C(0x4040404040404040)) << 1;
    return __builtin_bswap64(v);
}

/* Bytes 0..3 of x to the even bytes, bytes 4..7 to the odd ones: halfword
 * L is byte L | byte L + 4 << 8. */
static uint64_t pair_bytes(uint64_t x)
{
    uint64_t lo = x & 0xFFFFFFFFu, hi = x >> 32;
    lo = (lo | lo << 16) & UINT64_C(0x0000FFFF0000FFFF);
    lo = (lo | lo << 8) & UINT64_C(0x00FF00FF00FF00FF);
    hi = (hi | hi << 16) & UINT64_C(0x0000FFFF0000FFFF);
    hi = (hi | hi << 8) & UINT64_C(0x00FF00FF00FF00FF);
    return lo | hi << 8;
}

/* One word's four groups as lanes, k = 8w .. 8w + 7. A packing: group g is
 * lane g. B packing: slot o is lane o % 4, k = 8w + o / 4, so lane L takes
 * bytes L and L + 4 of every group in turn: pair_bytes, then a 4 x 4
 * transpose of halfwords in two steps. */
static void word_lanes(const uint64_t *word, int b_packing, unsigned w, kh_mx_entry *e)
{
    uint64_t t[4];
    for (unsigned g = 0; g < 4; g++) t[g] = group_bytes(word, g);
    if (b_packing) {
        const uint64_t h02 = UINT64_C(0x0000FFFF0000FFFF), lo32 = 0xFFFFFFFFu;
        for (unsigned g = 0; g < 4; g++) t[g] = pair_bytes(t[g]);
        uint64_t a0 = (t[0] & h02) | (t[1] & h02) << 16, a1 = (t[0] >> 16 & h02) | (t[1] & ~h02);
        uint64_t a2 = (t[2] & h02) | (t[3] & h02) << 16, a3 = (t[2] >> 16 & h02) | (t[3] & ~h02);
        t[0] = (a0 & lo32) | a2 << 32;
        t[1] = (a1 & lo32) | a3 << 32;
        t[2] = a0 >> 32 | (a2 & ~lo32);
        t[3] = a1 >> 32 | (a3 & ~lo32);
    }
    for (unsigned lane = 0; lane < 4; lane++) kh_words_to_bytes(&t[lane], 1, (uint8_t *)&e->q[lane][8 * w]);
}

static void word_set_slots(uint64_t *word, const int8_t s[32])
{
#define SET(o) kh_mxfp7_word_set_s##o(word, (uint8_t)s[o]);
    SLOTS(SET)
#undef SET
}

#ifdef KH_MX_HAVE_X86
#include <immintrin.h>

/* AVX-512 VBMI: the eight slots of a group (8g .. 8g+7) lie in 56 bits
 * that start at byte GB(g) of the word, so vpermb brings each group's bytes
 * into qword g and vpmultishiftqb picks every slot's 8 bits out of its
 * qword; the positions come from the table (KH_MXFP7_WORD_S*_LO). */
#define LO(o) KH_MXFP7_WORD_S##o##_LO
#define GB(o) ((o) < 8 ? LO(7) / 8 : (o) < 16 ? LO(15) / 8 : (o) < 24 ? LO(23) / 8 : LO(31) / 8)
#define FITS(o) _Static_assert(LO(o) >= 8 * GB(o) && LO(o) - 8 * GB(o) + 7 <= 63, "slot " #o " leaves its qword");
SLOTS(FITS)
#undef FITS
#define PERM(o) (char)((GB(o) + (o) % 8) % 32),
#define SHIFT(o) (char)(LO(o) - 8 * GB(o)),
static const char slot_perm[32] = {SLOTS(PERM)}, slot_shift[32] = {SLOTS(SHIFT)};
#undef PERM
#undef SHIFT
#undef GB
#undef LO

#define TVBMI __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi")))
/* B packing's order: byte 8L + i of the result is slot 4i + L (lane L, k 8w + i). */
#define BORDER(o) (char)(4 * ((o) % 8) + (o) / 8),
static const char b_order[32] = {SLOTS(BORDER)};
#undef BORDER

/* One word's slots, sign-extended, in lane order: byte 8L + i is lane L,
 * k = 8w + i, for either packing. */
static TVBMI void word_lanes_vbmi(const uint64_t *word, int b_packing, int8_t s[32])
{
    /* the limbs as bytes: byte i = bits [8i+7:8i] (x86 is little-endian) */
    __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)word);
    __m256i g = _mm256_permutexvar_epi8(_mm256_loadu_si256((const __m256i *)(const void *)slot_perm), w);
    __m256i x = _mm256_multishift_epi64_epi8(_mm256_loadu_si256((const __m256i *)(const void *)slot_shift), g);
    const __m256i m7 = _mm256_set1_epi8(0x7F), sign = _mm256_set1_epi8(0x40);
    x = _mm256_sub_epi8(_mm256_xor_si256(_mm256_and_si256(x, m7), sign), sign); /* 7-bit two's complement */
    if (b_packing) x = _mm256_permutexvar_epi8(_mm256_loadu_si256((const __m256i *)(const void *)b_order), x);
    _mm256_storeu_si256((__m256i *)(void *)s, x);
}

static int have_vbmi(void)
{
    return kh_simd_allows(KH_SIMD_AVX512) && __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vl");
}
#else
static void word_lanes_vbmi(const uint64_t *word, int b_packing, int8_t s[32])
{
    (void)word, (void)b_packing, (void)s; /* never called: have_vbmi() is 0 */
}
static int have_vbmi(void) { return 0; }
#endif

/* Slot o of word w holds lane o / 8, k = 8w + o % 8 (A packing), or lane
 * o % 4, k = 8w + o / 4 (B packing). */
static void unpack_with(int vbmi, const uint64_t words[16], int b_packing, kh_mx_entry *e)
{
    for (unsigned w = 0; w < 4; w++) {
        if (vbmi) {
            int8_t s[32];
            word_lanes_vbmi(words + 4 * w, b_packing, s);
            for (unsigned lane = 0; lane < 4; lane++) memcpy(&e->q[lane][8 * w], s + 8 * lane, 8);
        } else {
            word_lanes(words + 4 * w, b_packing, w, e);
        }
    }
    e->scale[0] = (uint8_t)kh_mxfp7_word_scale0(words);
    e->scale[1] = (uint8_t)kh_mxfp7_word_scale1(words);
    e->scale[2] = (uint8_t)kh_mxfp7_word_scale2(words);
    e->scale[3] = (uint8_t)kh_mxfp7_word_scale3(words);
}

void kh_mx_unpack(const uint64_t words[16], int b_packing, kh_mx_entry *e)
{
    unpack_with(have_vbmi(), words, b_packing, e);
}

void kh_mx_unpack_portable(const uint64_t words[16], int b_packing, kh_mx_entry *e)
{
    unpack_with(0, words, b_packing, e);
}

void kh_mx_pack(const kh_mx_entry *e, int b_packing, uint64_t words[16])
{
    for (unsigned w = 0; w < 4; w++) {
        uint64_t *word = words + 4 * w;
        int8_t s[32];
        if (b_packing)
            for (unsigned o = 0; o < 32; o++) s[o] = e->q[o % 4][8 * w + o / 4];
        else
            for (unsigned lane = 0; lane < 4; lane++) memcpy(s + 8 * lane, &e->q[lane][8 * w], 8);
        word_set_slots(word, s);
        kh_mxfp7_word_set_scale0(word, e->scale[0]);
        kh_mxfp7_word_set_scale1(word, e->scale[1]);
        kh_mxfp7_word_set_scale2(word, e->scale[2]);
        kh_mxfp7_word_set_scale3(word, e->scale[3]);
    }
}
