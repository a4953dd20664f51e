/* The cluster's arithmetic against the independent reference of
 * tests/support/mxref.c (numerics.md §2, §4-§7; cluster.md §4.3, §5.1,
 * §6.1): random MX operands over many shapes, accumulate chains, banks,
 * offsets, anchors and tile sizes, bit for bit. No timing, no flits: the
 * unit's state without a shell. */
#include <stdlib.h>
#include <string.h>

#include "cu/units/cluster/cluster_int.h"
#include "support/mxref.h"
#include "support/test.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}
static unsigned rndn(unsigned n) { return (unsigned)(rnd() % n); }

typedef struct fixture {
    kh_cluster *u;
    mxref_entry *ra, *rb;
    uint32_t (*rtile)[16];
    unsigned tiles, ga, gb;
} fixture;

static int fx_open(fixture *fx, unsigned tiles, unsigned ga, unsigned gb)
{
    kh_params p;
    char err[200];
    kh_params_default(&p);
    p.cluster_tiles = tiles;
    p.cluster_ga = ga;
    p.cluster_gb = gb;
    fx->u = kh_cluster_alloc(&p, err, sizeof err);
    if (!fx->u) {
        kh_test_fail(__FILE__, __LINE__, "kh_cluster_alloc: %s", err);
        return -1;
    }
    fx->tiles = tiles;
    fx->ga = ga;
    fx->gb = gb;
    fx->ra = calloc(ga, sizeof *fx->ra);
    fx->rb = calloc(gb, sizeof *fx->rb);
    fx->rtile = calloc(tiles, sizeof *fx->rtile);
    return 0;
}

static void fx_close(fixture *fx)
{
    kh_cluster_free(fx->u);
    free(fx->ra);
    free(fx->rb);
    free(fx->rtile);
}

/* A random entry image: any 7-bit slot (-64 included), realistic or wild
 * scale bytes. Placed into both models through their own word paths. */
static void random_words(uint64_t w[16], int wild_scales)
{
    for (unsigned i = 0; i < 16; i++) w[i] = rnd();
    uint8_t sc[4];
    for (unsigned l = 0; l < 4; l++)
        sc[l] = wild_scales ? (uint8_t)rnd() : (uint8_t)(((12 + rndn(8)) << 3) | rndn(8));
    for (unsigned wd = 0; wd < 4; wd++) {
        uint64_t *x = w + 4 * wd;
        x[0] &= ~0xFFFFFFFFull; /* word's [31:0] = the scale bytes, lane 0 highest */
        x[0] |= (uint64_t)sc[0] << 24 | (uint64_t)sc[1] << 16 | (uint64_t)sc[2] << 8 | sc[3];
    }
}

static void load_side(fixture *fx, int b, unsigned slot, const uint64_t w[16])
{
    kh_mx_entry *side = b ? fx->u->l1b : fx->u->l1a;
    for (unsigned wd = 0; wd < 4; wd++) kh_cl_place_word(fx->u, wd, w + 4 * wd, b, &side[slot]);
    mxref_unpack(w, b, b ? &fx->rb[slot] : &fx->ra[slot]);
}

static void fill_all(fixture *fx, int wild)
{
    uint64_t w[16];
    for (unsigned s = 0; s < fx->ga; s++) {
        random_words(w, wild);
        load_side(fx, 0, s, w);
    }
    for (unsigned s = 0; s < fx->gb; s++) {
        random_words(w, wild);
        load_side(fx, 1, s, w);
    }
}

/* Run one GEMM in both models and compare the tile and the emitted words. */
static int run_gemm(fixture *fx, const mxref_gemm *g)
{
    kh_cl_inst in;
    memset(&in, 0, sizeof in);
    in.op = KH_CL_OP_GEMM;
    in.gm = g->gm;
    in.gn = g->gn;
    in.nk = g->nk;
    in.acc = g->acc;
    in.anchor = g->anchor;
    in.aoff = g->aoff;
    in.boff = g->boff;
    in.abank = g->abank;
    in.bbank = g->bbank;
    in.emit = g->emit;
    unsigned cap = (g->gm ? g->gm : 1) * (g->gn ? g->gn : 1);
    uint64_t(*ue)[4] = calloc(cap, sizeof *ue);
    uint16_t(*re)[16] = calloc(cap, sizeof *re);
    kh_cl_sweep_compute(fx->u, &in, ue);
    unsigned ne = mxref_sweep(g, fx->ra, fx->ga, fx->rb, fx->gb, fx->rtile, fx->tiles, re);
    int bad = 0;
    for (unsigned t = 0; t < fx->tiles && !bad; t++)
        for (unsigned l = 0; l < 16; l++)
            if (fx->u->tile[t][l] != fx->rtile[t][l]) {
                kh_test_fail(__FILE__, __LINE__,
                             "gm=%u gn=%u nk=%u acc=%u anchor=%u aoff=%u boff=%u banks=%u/%u: tile %u lane %u "
                             "unit 0x%06x reference 0x%06x",
                             g->gm, g->gn, g->nk, g->acc, g->anchor, g->aoff, g->boff, g->abank, g->bbank, t, l,
                             fx->u->tile[t][l], fx->rtile[t][l]);
                bad = 1;
                break;
            }
    for (unsigned e = 0; e < ne && !bad; e++)
        for (unsigned l = 0; l < 16; l++) {
            uint16_t got = (uint16_t)kh_bits_get(ue[e], 16 * l, 16);
            if (got != re[e][l]) {
                kh_test_fail(__FILE__, __LINE__, "emitted granule %u lane %u: unit 0x%04x reference 0x%04x", e,
                             l, got, re[e][l]);
                bad = 1;
                break;
            }
        }
    free(ue);
    free(re);
    return bad;
}

static void random_gemm(mxref_gemm *g, unsigned max_groups, int wild_anchor)
{
    g->gm = rndn(max_groups + 1); /* 0 means 1 */
    g->gn = rndn(max_groups + 1);
    g->nk = rndn(5);
    g->acc = rndn(2);
    g->anchor = wild_anchor ? rndn(256) : 40;
    g->aoff = rndn(256);
    g->boff = rndn(256);
    g->abank = rndn(2);
    g->bbank = rndn(2);
    g->emit = rndn(2);
}

/* Every tile starts defined: one LOADing sweep over the whole tile. */
static void open_tiles(fixture *fx)
{
    mxref_gemm g = {0};
    unsigned side = 1;
    while (side * side < fx->tiles) side++;
    g.gm = side;
    g.gn = side;
    g.anchor = 40;
    run_gemm(fx, &g);
}

static void random_programs(unsigned tiles, unsigned ga, unsigned gb, unsigned programs, unsigned max_groups,
                            int wild)
{
    fixture fx;
    if (fx_open(&fx, tiles, ga, gb)) return;
    fill_all(&fx, wild);
    open_tiles(&fx);
    for (unsigned p = 0; p < programs; p++) {
        mxref_gemm g;
        random_gemm(&g, max_groups, wild);
        if (run_gemm(&fx, &g)) break;
        if (rndn(4) == 0) fill_all(&fx, wild);
    }
    fx_close(&fx);
}

/* numerics §4-§6, cluster §5.1: production build, realistic scales, anchor 40 */
static void gemm_matches_reference_production_build(void)
{
    random_programs(512, 512, 512, 60, 12, 0);
}

/* numerics §5 wrap (Open point 2), any scale byte, any anchor */
static void gemm_matches_reference_wild_scales_and_anchors(void)
{
    random_programs(512, 512, 512, 60, 10, 1);
}

/* cluster §1: recording build (TILES 256) and one-bank L1 (the bank bit
 * falls away), small tiles that alias (g·gn' + h mod TILES) */
static void gemm_matches_reference_small_builds(void)
{
    random_programs(256, 512, 512, 30, 8, 0);
    random_programs(16, 256, 256, 40, 9, 0);
    random_programs(8, 32, 64, 40, 6, 1);
}

/* cluster §5.1: long accumulate chains (acc = 1 across many GEMMs) */
static void gemm_acc_chain_matches_reference(void)
{
    fixture fx;
    if (fx_open(&fx, 64, 512, 512)) return;
    fill_all(&fx, 0);
    mxref_gemm g = {.gm = 4, .gn = 4, .nk = 3, .anchor = 40};
    run_gemm(&fx, &g);
    for (unsigned c = 0; c < 40; c++) {
        g.acc = 1;
        g.nk = 1 + rndn(4);
        g.aoff = rndn(256);
        g.boff = rndn(256);
        g.abank = c & 1;
        g.bbank = (c >> 1) & 1;
        g.emit = c == 39;
        if (run_gemm(&fx, &g)) break;
    }
    fx_close(&fx);
}

/* numerics §5 worked example: C = 798, A byte 0x7D, B byte 0x71, anchor 40
 * -> chain 0x0F9B2E; §6.2: plus C = -123 with bytes 0x80 / 0x71 -> 0x0F89E2,
 * FP16 0x389E; §7: 0x0F9B2E -> 0x39B3. */
static void worked_example_scale_and_add(void)
{
    fixture fx;
    if (fx_open(&fx, 512, 512, 512)) return;
    kh_mx_entry *a = &fx.u->l1a[0], *b = &fx.u->l1b[0];
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->q[0][0] = 57; /* 57 · 14 = 798 */
    b->q[0][0] = 14;
    a->scale[0] = 0x7D;
    b->scale[0] = 0x71;
    kh_cl_inst in = {.op = KH_CL_OP_GEMM, .anchor = 40};
    kh_cl_sweep_compute(fx.u, &in, NULL);
    CHECK_EQ(fx.u->tile[0][0], 0x0F9B2E);
    CHECK_EQ(kh_acc_to_f16(fx.u->tile[0][0], 14), 0x39B3);
    a->q[0][0] = 41; /* 41 · -3 = -123 */
    b->q[0][0] = -3;
    a->scale[0] = 0x80; /* E 16 M 0 */
    b->scale[0] = 0x71; /* E 14 M 1 */
    in.acc = 1;
    in.emit = 1;
    uint64_t out[1][4];
    kh_cl_sweep_compute(fx.u, &in, out);
    CHECK_EQ(fx.u->tile[0][0], 0x0F89E2);
    CHECK_EQ(kh_bits_get(out[0], 0, 16), 0x389E);
    CHECK_EQ(fx.u->tile[0][1], 0); /* the other lanes: C = 0 -> +0 */
    fx_close(&fx);
}

/* kohaku/cluster.h, the interface kohaku bench gemm uses: the L1 sides
 * as the caller fills them, and one sweep (the worked example of numerics
 * §5 again: 0x0F9B2E, then ADD with C = -123 -> 0x0F89E2). */
static void public_interface_sweeps_the_l1_it_hands_out(void)
{
    kh_params p;
    char err[200];
    kh_params_default(&p);
    p.cluster_ga = 64;
    kh_cluster *u = kh_cluster_alloc(&p, err, sizeof err);
    if (!u) {
        kh_test_fail(__FILE__, __LINE__, "kh_cluster_alloc: %s", err);
        return;
    }
    unsigned na = 0, nb = 0;
    kh_mx_entry *a = kh_cluster_l1(u, 0, &na), *b = kh_cluster_l1(u, 1, &nb);
    CHECK_EQ(na, 64);
    CHECK_EQ(nb, 512);
    CHECK(a == u->l1a && b == u->l1b);
    a->q[0][0] = 57;
    b->q[0][0] = 14;
    a->scale[0] = 0x7D;
    b->scale[0] = 0x71;
    kh_cluster_sweep(u, 1, 1, 1, 0);
    CHECK_EQ(u->tile[0][0], 0x0F9B2E);
    a->q[0][0] = 41;
    b->q[0][0] = -3;
    a->scale[0] = 0x80;
    kh_cluster_sweep(u, 1, 1, 1, 1);
    CHECK_EQ(u->tile[0][0], 0x0F89E2);
    kh_cluster_free(u);
    p.cluster_ga = 48; /* not a power of two: refused, naming it */
    CHECK(kh_cluster_alloc(&p, err, sizeof err) == NULL);
    CHECK(strstr(err, "cluster_ga") != NULL);
}

/* The reference itself against the digest's worked numbers, so a shared
 * misreading of the spec cannot hide. */
static void reference_agrees_with_worked_examples(void)
{
    CHECK_EQ(mxref_chain(798, 0x7D, 0x71, 40), 0x0F9B2E);
    CHECK_EQ(mxref_chain(-123, 0x80, 0x71, 40), 0x2F0530);
    CHECK_EQ(mxref_add(0x0F9B2E, 0, 0x2F0530, 0), 0x0F89E2);
    CHECK_EQ(mxref_add(0x1FFFFF, 0, 0x1FFFFF, 0), 0x1FFFFF);
    CHECK_EQ(mxref_f16(0x0F89E2), 0x389E);
    CHECK_EQ(mxref_f16(0x0F9B2E), 0x39B3);
    CHECK_EQ(mxref_f16(0x142000), 0x7BFF);
    CHECK_EQ(mxref_f16(0x284100), 0x8000);
    CHECK_EQ(mxref_chain(1473, 0x7D, 0x7B, 40), 0x1026DA); /* cluster §9.5 */
    CHECK_EQ(mxref_chain(-3363, 0x7D, 0x69, 40), 0x2FE010);
    CHECK_EQ(mxref_f16(0x1026DA), 0x426E);
    CHECK_EQ(mxref_f16(0x2FE010), 0xBE01);
}

int main(void)
{
    KH_RUN(reference_agrees_with_worked_examples);
    KH_RUN(worked_example_scale_and_add);
    KH_RUN(gemm_matches_reference_production_build);
    KH_RUN(gemm_matches_reference_wild_scales_and_anchors);
    KH_RUN(gemm_matches_reference_small_builds);
    KH_RUN(gemm_acc_chain_matches_reference);
    KH_RUN(public_interface_sweeps_the_l1_it_hands_out);
    return kh_test_end("t_cluster_arith");
}
