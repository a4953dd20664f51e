/* The exact block product (numerics.md §4) on every path this CPU runs,
 * the pipeline helpers, and cluster.md §9.5 end to end: FP16 in, quantise,
 * product, scale, LOAD, FP16 out. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/bits.h"
#include "kohaku/hex.h"
#include "kohaku/isa.h"
#include "kohaku/num.h"
#include "num/mx_block_int.h"
#include "support/test.h"

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

static void ref_block(const kh_mx_entry *a, const kh_mx_entry *b, int32_t c[4][4])
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            long s = 0;
            for (int k = 0; k < 32; k++) s += (long)a->q[i][k] * (long)b->q[j][k];
            c[i][j] = (int32_t)s;
        }
}

static void fill(kh_mx_entry *e, uint64_t *s, int kind)
{
    for (int L = 0; L < 4; L++) {
        for (int k = 0; k < 32; k++) {
            int v = (int)(rng_next(s) % 128) - 64;
            if (kind == 1) v = -64;                 /* the extreme: c = 131072 */
            if (kind == 2) v = (k + L) % 2 ? 63 : -64; /* alternating extremes */
            if (kind == 3 && rng_next(s) % 3) v = 0;
            if (kind == 4) v = rng_next(s) % 16 ? -64 + (int)(rng_next(s) % 3) : 63; /* |c| near 2^17, any low bits */
            e->q[L][k] = (int8_t)v;
        }
        e->scale[L] = (uint8_t)rng_next(s);
        if (kind == 4) e->scale[L] |= 4; /* mantissa 4..7: |c| * mm reaches 2^24 and beyond */
    }
}

/* Every available path equals the reference on random and extreme blocks. */
static void mx_block_every_path_is_exact(void)
{
    int tested = 0;
    for (int p = 0; p < KH_MX_NPATHS; p++) {
        kh_mx_block_fn fn = kh_mx_path_fn((kh_mx_path)p);
        if (!fn) {
            printf("# note: path %s not available on this CPU, not tested\n", kh_mx_path_name((kh_mx_path)p));
            continue;
        }
        tested++;
        uint64_t s = 1234;
        for (int r = 0; r < 20000; r++) {
            kh_mx_entry a, b;
            int32_t got[4][4], want[4][4];
            fill(&a, &s, r < 4 ? r : 0);
            fill(&b, &s, r < 4 ? r : (r % 4 == 3 ? 3 : 0));
            ref_block(&a, &b, want);
            fn(&a, &b, got);
            if (memcmp(got, want, sizeof got)) {
                kh_test_fail(__FILE__, __LINE__, "path %s round %d: c[0][0] %d want %d", kh_mx_path_name((kh_mx_path)p),
                             r, got[0][0], want[0][0]);
                break;
            }
        }
    }
    CHECK(tested >= 1);
    /* the extreme block: every element -64 */
    kh_mx_entry a;
    int32_t c[4][4];
    memset(a.q, 0xC0, sizeof a.q);
    kh_mx_block(&a, &a, c);
    CHECK_EQ(c[3][2], 131072);
}

/* kh_mx_block is the best path and the best path exists. */
static void mx_block_dispatch_names_a_running_path(void)
{
    kh_mx_path best = kh_mx_path_best();
    CHECK(kh_mx_path_fn(best) != NULL);
    CHECK(kh_mx_path_fn(KH_MX_PORTABLE) == kh_mx_block_portable);
    CHECK(kh_mx_path_fn(KH_MX_NPATHS) == NULL);
    CHECK_STR(kh_mx_path_name(KH_MX_AVX2), "avx2");
    CHECK_STR(kh_mx_path_name(KH_MX_NPATHS), "?");
    printf("# note: kh_mx_block uses %s\n", kh_mx_path_name(best));
}

/* A tile word for the pipeline tests: any bits, with zeros (E = 0, any
 * fraction), the top binade and tiny values over-represented. */
static uint32_t tile_word(uint64_t *s, unsigned mw)
{
    uint64_t r = rng_next(s);
    uint32_t w = (uint32_t)(r & ((UINT64_C(1) << (mw + 8)) - 1));
    uint32_t emask = 127u << mw;
    switch ((r >> 40) % 6) {
    case 0: return w & ~emask;              /* E = 0: zero whatever the rest */
    case 1: return w | emask;               /* E = 127 */
    case 2: return (w & ~emask) | (1u << mw); /* E = 1 */
    default: return w;
    }
}

/* kh_mx_block_chain / _accumulate on every path are §5 and §6.1 applied per
 * lane, for every MW and anchors around 40 (wrapping ones included). */
static void mx_block_pipeline_is_product_scale_add(void)
{
    uint64_t s = 77;
    for (int p = 0; p < KH_MX_NPATHS; p++) {
        if (!kh_mx_path_fn((kh_mx_path)p)) continue;
        for (unsigned mw = KH_ACC_MW_MIN; mw <= KH_ACC_MW_MAX; mw++)
            for (int r = 0; r < 1500; r++) {
                kh_mx_entry a, b;
                fill(&a, &s, r < 4 ? r : r % 4 == 3 ? 3 : 0);
                fill(&b, &s, r < 4 ? r : 0);
                unsigned anchor = r % 5 ? 40 : (unsigned)(rng_next(&s) % 256);
                if (r % 7 == 0) anchor += 256; /* bits above the 8-bit field are ignored */
                int32_t c[4][4];
                uint32_t chain[16], tile[16], want[16];
                ref_block(&a, &b, c);
                for (int n = 0; n < 16; n++) tile[n] = want[n] = tile_word(&s, mw);
                if (r % 3 == 0) /* tiles near the chain: cancellation and carries */
                    for (int n = 0; n < 16; n++)
                        tile[n] = want[n] = kh_acc_from_product(-c[n / 4][n % 4] + (int)(rng_next(&s) % 3) - 1,
                                                                a.scale[n / 4], b.scale[n % 4], anchor, mw);
                kh_mx_block_chain_on((kh_mx_path)p, &a, &b, anchor, mw, chain);
                kh_mx_block_accumulate_on((kh_mx_path)p, &a, &b, anchor, mw, tile);
                for (int n = 0; n < 16; n++) {
                    uint32_t ch = kh_acc_from_product(c[n / 4][n % 4], a.scale[n / 4], b.scale[n % 4], anchor & 255, mw);
                    want[n] = kh_acc_add(want[n], 0, ch, 0, mw);
                    if (chain[n] != ch || tile[n] != want[n]) {
                        kh_test_fail(__FILE__, __LINE__, "path %s mw %u anchor %u lane %d: chain 0x%x want 0x%x, tile 0x%x want 0x%x",
                                     kh_mx_path_name((kh_mx_path)p), mw, anchor, n, chain[n], ch, tile[n], want[n]);
                        return;
                    }
                }
            }
    }
    /* the default-path entry points agree with the best path */
    kh_mx_entry a, b;
    fill(&a, &s, 0);
    fill(&b, &s, 0);
    uint32_t t1[16] = {0}, t2[16] = {0};
    kh_mx_block_accumulate(&a, &b, 40, 14, t1);
    kh_mx_block_accumulate_on(kh_mx_path_best(), &a, &b, 40, 14, t2);
    CHECK(!memcmp(t1, t2, sizeof t1));
    kh_mx_block_accumulate_on(KH_MX_NPATHS, &a, &b, 40, 14, t2); /* unknown path: portable */
    kh_mx_block_accumulate_on(KH_MX_PORTABLE, &a, &b, 40, 14, t1);
    CHECK(!memcmp(t1, t2, sizeof t1));
}

/* kh_mx_kernels_accumulate2 on every path: (a, b0) into tile0 then (a, b1)
 * into tile1, each lane §5 and §6.1; and the same tile twice in sequence. */
static void mx_block_pair_accumulates_in_order(void)
{
    uint64_t s = 91;
    for (int p = 0; p < KH_MX_NPATHS; p++) {
        if (!kh_mx_path_fn((kh_mx_path)p)) continue;
        kh_mx_kernels k;
        kh_mx_kernels_get((kh_mx_path)p, &k);
        for (unsigned mw = KH_ACC_MW_MIN; mw <= KH_ACC_MW_MAX; mw++)
            for (int r = 0; r < 600; r++) {
                kh_mx_entry a, b[2];
                fill(&a, &s, r < 4 ? r : r % 4 == 3 ? 3 : 0);
                fill(&b[0], &s, r < 4 ? r : 0);
                fill(&b[1], &s, r % 5 == 1 ? 3 : 0);
                unsigned anchor = r % 5 ? 40 : (unsigned)(rng_next(&s) % 256);
                int same = r % 9 == 0; /* one tile for both: the second adds onto the first */
                uint32_t tile[2][16], want[2][16];
                for (int t = 0; t < 2; t++)
                    for (int n = 0; n < 16; n++) tile[t][n] = want[t][n] = tile_word(&s, mw);
                kh_mx_kernels_accumulate2(&k, &a, &b[0], &b[1], anchor, mw, tile[0], tile[same ? 0 : 1]);
                for (int t = 0; t < 2; t++) {
                    int32_t c[4][4];
                    ref_block(&a, &b[t], c);
                    uint32_t *w = want[same ? 0 : t];
                    for (int n = 0; n < 16; n++)
                        w[n] = kh_acc_add(w[n], 0, kh_acc_from_product(c[n / 4][n % 4], a.scale[n / 4], b[t].scale[n % 4],
                                                                       anchor, mw), 0, mw);
                }
                if (memcmp(tile, want, sizeof tile)) {
                    kh_test_fail(__FILE__, __LINE__, "path %s mw %u anchor %u same %d: pair differs",
                                 kh_mx_path_name((kh_mx_path)p), mw, anchor, same);
                    return;
                }
            }
    }
}

/* kh_mx_kernels_accumulate_strip on every path: (a, b[h]) into tile[h] for
 * h in order, each lane §5 and §6.1, strips of 0 to 9 blocks, some naming
 * one tile twice (the later add reads the earlier one's result). */
static void mx_block_strip_accumulates_in_order(void)
{
    uint64_t s = 4242;
    for (int p = 0; p < KH_MX_NPATHS; p++) {
        if (!kh_mx_path_fn((kh_mx_path)p)) continue;
        kh_mx_kernels k;
        kh_mx_kernels_get((kh_mx_path)p, &k);
        for (unsigned mw = KH_ACC_MW_MIN; mw <= KH_ACC_MW_MAX; mw++)
            for (int r = 0; r < 300; r++) {
                enum { MAXN = 9 };
                kh_mx_entry a, b[MAXN];
                const kh_mx_entry *bp[MAXN];
                uint32_t tile[MAXN][16], want[MAXN][16], *tp[MAXN];
                unsigned n = (unsigned)(r % (MAXN + 1));
                fill(&a, &s, r < 4 ? r : r % 4 == 3 ? 3 : 0);
                unsigned anchor = r % 5 ? 40 : (unsigned)(rng_next(&s) % 256);
                for (unsigned h = 0; h < MAXN; h++) {
                    fill(&b[h], &s, r % 7 == 1 ? 3 : h == 0 && r < 4 ? r : 0);
                    bp[h] = &b[h];
                    for (int l = 0; l < 16; l++) tile[h][l] = want[h][l] = tile_word(&s, mw);
                    /* every third strip sends two of its blocks to an earlier tile */
                    unsigned t = r % 3 == 0 && h >= 2 && h % 3 != 2 ? h - 2 : h;
                    tp[h] = tile[t];
                }
                kh_mx_kernels_accumulate_strip(&k, &a, bp, n, anchor, mw, tp);
                for (unsigned h = 0; h < n; h++) {
                    int32_t c[4][4];
                    ref_block(&a, &b[h], c);
                    uint32_t *w = want[(tp[h] - &tile[0][0]) / 16];
                    for (int l = 0; l < 16; l++)
                        w[l] = kh_acc_add(w[l], 0, kh_acc_from_product(c[l / 4][l % 4], a.scale[l / 4],
                                                                       b[h].scale[l % 4], anchor, mw), 0, mw);
                }
                if (memcmp(tile, want, sizeof tile)) {
                    kh_test_fail(__FILE__, __LINE__, "path %s mw %u anchor %u n %u round %d: strip differs",
                                 kh_mx_path_name((kh_mx_path)p), mw, anchor, n, r);
                    return;
                }
            }
    }
}

/* The strip on every path where the scaled product is widest: |c| near
 * 2^17 with any low bits, times scale mantissas whose product is 96..225,
 * so that |c| * mm crosses 2^24 (where the AVX2 lanes' float conversion
 * would no longer be exact) with rounding and sticky bits that matter. */
static void mx_block_strip_is_exact_on_the_widest_products(void)
{
    uint64_t s = 9090;
    for (int p = 0; p < KH_MX_NPATHS; p++) {
        if (!kh_mx_path_fn((kh_mx_path)p)) continue;
        kh_mx_kernels k;
        kh_mx_kernels_get((kh_mx_path)p, &k);
        long wide = 0;
        for (unsigned mw = KH_ACC_MW_MIN; mw <= KH_ACC_MW_MAX; mw++)
            for (int r = 0; r < 200; r++) {
                enum { N = 4 };
                kh_mx_entry a, b[N];
                const kh_mx_entry *bp[N];
                uint32_t tile[N][16], want[N][16], *tp[N];
                fill(&a, &s, 4);
                for (unsigned h = 0; h < N; h++) {
                    fill(&b[h], &s, 4);
                    bp[h] = &b[h];
                    tp[h] = tile[h];
                    for (int l = 0; l < 16; l++) tile[h][l] = want[h][l] = tile_word(&s, mw);
                }
                kh_mx_kernels_accumulate_strip(&k, &a, bp, N, 40, mw, tp);
                for (unsigned h = 0; h < N; h++) {
                    int32_t c[4][4];
                    ref_block(&a, &b[h], c);
                    for (int l = 0; l < 16; l++) {
                        long mag = labs((long)c[l / 4][l % 4]) * (8 + (a.scale[l / 4] & 7)) * (8 + (b[h].scale[l % 4] & 7));
                        wide += mag >= (1L << 24);
                        want[h][l] = kh_acc_add(want[h][l], 0, kh_acc_from_product(c[l / 4][l % 4], a.scale[l / 4],
                                                                                   b[h].scale[l % 4], 40, mw), 0, mw);
                    }
                }
                if (memcmp(tile, want, sizeof tile)) {
                    kh_test_fail(__FILE__, __LINE__, "path %s mw %u round %d: strip differs", kh_mx_path_name((kh_mx_path)p),
                                 mw, r);
                    return;
                }
            }
        CHECK(wide > 1000); /* the inputs do reach past 2^24 */
    }
}

/* The strip on every path at the add's edges: a chain word of exponent E
 * (c = +-1, both scales 0, the anchor placing it) meets tiles of exponent
 * E - 1, E, E + 1 with fractions 0, 1, half and all ones, of either sign,
 * for E at the bottom (results of exponent 1, flushes below it, exact
 * cancellation, zero operands) and at the top (saturation) of the range. */
static void mx_block_strip_is_exact_at_flush_and_saturation(void)
{
    static const unsigned exps[] = {1, 2, 3, 125, 126, 127};
    for (int p = 0; p < KH_MX_NPATHS; p++) {
        if (!kh_mx_path_fn((kh_mx_path)p)) continue;
        kh_mx_kernels k;
        kh_mx_kernels_get((kh_mx_path)p, &k);
        for (unsigned mw = KH_ACC_MW_MIN; mw <= KH_ACC_MW_MAX; mw++)
            for (unsigned x = 0; x < sizeof exps / sizeof exps[0]; x++)
                for (int neg = 0; neg < 2; neg++) {
                    enum { N = 2 };
                    kh_mx_entry a, b;
                    memset(&a, 0, sizeof a);
                    memset(&b, 0, sizeof b);
                    for (int l = 0; l < 4; l++) a.q[l][0] = (int8_t)(neg ? -1 : 1), b.q[l][0] = 1;
                    /* exponent of |c| * 64 * 2^(0 + 0 - anchor - 6): 6 - anchor - 6 + 63 */
                    unsigned anchor = (63u - exps[x]) & 127u;
                    uint32_t chain = kh_acc_from_product(neg ? -1 : 1, 0, 0, anchor, mw);
                    CHECK_EQ((chain >> mw) & 127u, exps[x]);
                    const kh_mx_entry *bp[N] = {&b, &b};
                    uint32_t tile[N][16], want[N][16], *tp[N] = {tile[0], tile[1]};
                    const uint32_t fracs[4] = {0, 1, 1u << (mw - 1), (1u << mw) - 1};
                    for (int t = 0; t < N; t++)
                        for (int l = 0; l < 16; l++) {
                            unsigned combo = (unsigned)(16 * t + l) % 24;
                            unsigned e = exps[x] + combo % 3 - 1;
                            e = e > 127 ? 127 : e;
                            tile[t][l] = (combo / 12) << (mw + 7) | e << mw | fracs[combo / 3 % 4];
                            want[t][l] = kh_acc_add(tile[t][l], 0, chain, 0, mw);
                        }
                    kh_mx_kernels_accumulate_strip(&k, &a, bp, N, anchor, mw, tp);
                    if (memcmp(tile, want, sizeof tile)) {
                        kh_test_fail(__FILE__, __LINE__, "path %s mw %u E %u neg %d: strip differs",
                                     kh_mx_path_name((kh_mx_path)p), mw, exps[x], neg);
                        return;
                    }
                }
    }
}

/* cluster.md §9.5, every intermediate the text gives. */
static void cluster_end_to_end_worked_example(void)
{
    uint64_t a_src[32] = {0}, b_src[32] = {0}, a_img[16], b_img[16];
    kh_bits_set(a_src, 16 * 0, 16, 0x4200);             /* A[0][0] = 3.0 */
    kh_bits_set(a_src, 16 * 1, 16, 0x2E66);             /* A[0][1] = 0.1 */
    kh_bits_set(b_src, 16 * 0, 16, 0x3C00);             /* Bt[0][0] = 1.0 */
    kh_bits_set(b_src, 16 * 1, 16, 0x4100);             /* Bt[0][1] = 2.5 */
    kh_bits_set(b_src, 16 * (32 * 1 + 0), 16, 0xB800);  /* Bt[1][0] = -0.5 */
    kh_quant_entry(a_src, 0, a_img);
    kh_quant_entry(b_src, 1, b_img);
    char hex[65];
    kh_hex_format(a_img, 256, hex);
    CHECK_STR(hex, "760800000000000000000000000000000000000000000000000000007da0a0a0");
    kh_hex_format(b_img, 256, hex);
    CHECK_STR(hex, "2f1c00074000000000000000000000000000000000000000000000007b69a0a0");
    for (unsigned w = 1; w < 4; w++) {
        kh_hex_format(a_img + 4 * w, 256, hex);
        CHECK_STR(hex, "000000000000000000000000000000000000000000000000000000007da0a0a0");
        kh_hex_format(b_img + 4 * w, 256, hex);
        CHECK_STR(hex, "000000000000000000000000000000000000000000000000000000007b69a0a0");
    }
    kh_mx_entry a, b;
    kh_mx_unpack(a_img, 0, &a);
    kh_mx_unpack(b_img, 1, &b);
    CHECK_EQ(a.q[0][0], 59);
    CHECK_EQ(a.q[0][1], 2);
    CHECK_EQ(b.q[0][0], 23);
    CHECK_EQ(b.q[0][1], 58);
    CHECK_EQ(b.q[1][0], -57);
    int32_t c[4][4];
    kh_mx_block(&a, &b, c);
    CHECK_EQ(c[0][0], 1473);
    CHECK_EQ(c[0][1], -3363);
    int nonzero = 0;
    for (int n = 0; n < 16; n++) nonzero += c[n / 4][n % 4] != 0;
    CHECK_EQ(nonzero, 2);
    uint32_t chain[16], tile[16];
    kh_mx_block_chain(&a, &b, 40, 14, chain);
    CHECK_EQ(chain[0], 0x1026DA);
    CHECK_EQ(chain[1], 0x2FE010);
    uint64_t out[4] = {0};
    for (int n = 0; n < 16; n++) {
        tile[n] = kh_acc_add(0xABCDE, 1, chain[n], 0, 14); /* LOAD: acc = 0, first block */
        kh_bits_set(out, 16 * (unsigned)n, 16, kh_acc_to_f16(tile[n], 14));
    }
    CHECK_EQ(tile[0], 0x1026DA);
    CHECK_EQ(tile[1], 0x2FE010);
    kh_hex_format(out, 256, hex);
    CHECK_STR(hex, "00000000000000000000000000000000000000000000000000000000be01426e");
}

/* The MXFP7 word is described once (isa/mxfp7.isa's mxfp7_word): the packer puts
 * every slot and scale where the embedded table says, read back through the
 * table engine, not through the packer's own positions. */
static void mx_pack_follows_the_table(void)
{
    char err[200];
    kh_isa *isa = kh_isa_open_builtin(err, sizeof err);
    CHECK(isa != NULL);
    const kh_isa_layout *l = isa ? kh_isa_find(isa, "mxfp7_word") : NULL;
    CHECK(l != NULL);
    if (!l) {
        kh_isa_free(isa);
        return;
    }
    for (int b = 0; b < 2; b++) {
        kh_mx_entry e;
        for (unsigned lane = 0; lane < 4; lane++) {
            e.scale[lane] = (uint8_t)(0x51 + 0x22 * lane);
            for (unsigned k = 0; k < 32; k++) e.q[lane][k] = (int8_t)((int)(lane * 32 + k) % 127 - 63);
        }
        uint64_t words[16];
        kh_mx_pack(&e, b, words);
        for (unsigned w = 0; w < 4; w++) {
            for (unsigned o = 0; o < 32; o++) {
                char name[8];
                snprintf(name, sizeof name, "s%u", o);
                kh_isa_val v;
                kh_isa_get(l, words + 4 * w, (unsigned)kh_isa_field_find(l, name), &v);
                unsigned lane = b ? o % 4 : o / 8, k = b ? 8 * w + o / 4 : 8 * w + o % 8; /* numerics.md §2.2 */
                CHECK_EQ(v.w[0], (uint8_t)e.q[lane][k] & 0x7F);
            }
            for (unsigned lane = 0; lane < 4; lane++) {
                char name[8];
                snprintf(name, sizeof name, "scale%u", lane);
                kh_isa_val v;
                kh_isa_get(l, words + 4 * w, (unsigned)kh_isa_field_find(l, name), &v);
                CHECK_EQ(v.w[0], e.scale[lane]);
            }
        }
    }
    kh_isa_free(isa);
}

/* kh_mx_unpack reads any four words (packed or not) as the embedded table
 * places the slots and scales: each value read back through the table
 * engine, sign-extended from 7 bits (numerics.md §2.2), for both packings
 * and whichever path this CPU takes (kh_mx_unpack_portable too). */
static void mx_unpack_follows_the_table(void)
{
    char err[200];
    kh_isa *isa = kh_isa_open_builtin(err, sizeof err);
    const kh_isa_layout *l = isa ? kh_isa_find(isa, "mxfp7_word") : NULL;
    CHECK(l != NULL);
    if (!l) {
        kh_isa_free(isa);
        return;
    }
    int slot_field[32], scale_field[4];
    for (unsigned o = 0; o < 32; o++) {
        char name[8];
        snprintf(name, sizeof name, "s%u", o);
        slot_field[o] = kh_isa_field_find(l, name);
    }
    int found = 1;
    for (unsigned o = 0; o < 32; o++) found &= slot_field[o] >= 0;
    for (unsigned lane = 0; lane < 4; lane++) {
        char name[8];
        snprintf(name, sizeof name, "scale%u", lane);
        scale_field[lane] = kh_isa_field_find(l, name);
        found &= scale_field[lane] >= 0;
    }
    CHECK(found);
    if (!found) {
        kh_isa_free(isa);
        return;
    }
    uint64_t st = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 300; round++) {
        uint64_t words[16];
        for (int i = 0; i < 16; i++) words[i] = rng_next(&st);
        for (int b = 0; b < 2; b++)
            for (int portable = 0; portable < 2; portable++) {
                kh_mx_entry e;
                if (portable)
                    kh_mx_unpack_portable(words, b, &e);
                else
                    kh_mx_unpack(words, b, &e);
                for (unsigned w = 0; w < 4; w++) {
                    for (unsigned o = 0; o < 32; o++) {
                        kh_isa_val v;
                        kh_isa_get(l, words + 4 * w, (unsigned)slot_field[o], &v);
                        int want = (int)(v.w[0] & 0x7F) - (v.w[0] & 0x40 ? 128 : 0);
                        unsigned lane = b ? o % 4 : o / 8, k = b ? 8 * w + o / 4 : 8 * w + o % 8;
                        CHECK_EQ(e.q[lane][k], want);
                    }
                }
                for (unsigned lane = 0; lane < 4; lane++) {
                    kh_isa_val v;
                    kh_isa_get(l, words, (unsigned)scale_field[lane], &v);
                    CHECK_EQ(e.scale[lane], v.w[0]);
                }
            }
    }
    kh_isa_free(isa);
}

int main(void)
{
    KH_RUN(mx_pack_follows_the_table);
    KH_RUN(mx_unpack_follows_the_table);
    KH_RUN(mx_block_every_path_is_exact);
    KH_RUN(mx_block_dispatch_names_a_running_path);
    KH_RUN(mx_block_pipeline_is_product_scale_add);
    KH_RUN(mx_block_pair_accumulates_in_order);
    KH_RUN(mx_block_strip_accumulates_in_order);
    KH_RUN(mx_block_strip_is_exact_on_the_widest_products);
    KH_RUN(mx_block_strip_is_exact_at_flush_and_saturation);
    KH_RUN(cluster_end_to_end_worked_example);
    return kh_test_end("t_num_block");
}
