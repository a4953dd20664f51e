/* GEMMs on a whole machine (cluster.md §9): the mover's quantisation by
 * recipe 1 and recipe 2 gives the same MXFP7 bytes as the quantiser on the
 * host (§9.2, numerics §3); tiled programs on every cluster give results
 * bit-identical to the exact MX reference and to the independent reference
 * of tests/support/mxref.c, with images in DRAM or in the staging store. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gemm.h"
#include "kohaku/gen/cluster.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/num.h"
#include "support/mxref.h"
#include "support/test.h"

/* The six-cluster machine: the default map once every unit kind of it is
 * built, else its matmul-only twin (mesh_2x2_6+0: same routers, same ports,
 * same cluster coordinates). */
static kh_machine *machine(void)
{
    char err[400];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    if (m) return m;
    char path[512];
    snprintf(path, sizeof path, "%s/maps/mesh_2x2_6+0.txt", kh_test_data_dir());
    m = kh_machine_load(path, NULL, err, sizeof err);
    if (!m) kh_test_fail(__FILE__, __LINE__, "machine: %s", err);
    return m;
}

static uint64_t rs = 0x0123456789ABCDEFull;
static uint16_t rnd_f16(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    if (rs % 11 == 0) return 0;
    return (uint16_t)((rs >> 4 & 1) << 15 | (10 + (rs >> 5) % 7) << 10 | (rs >> 8) % 1024);
}

static void random_matrix(uint16_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = rnd_f16();
}

static int read_img(kh_machine *mc, uint64_t fabric, uint8_t *out, size_t n)
{
    char err[200];
    uint64_t host = fabric >> 39 ? kh_host_staging(0, fabric & ((1ull << 36) - 1)) : kh_host_dram(0, fabric);
    if (kh_card_read_block(kh_machine_card(mc), host, out, n, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "read: %s", err);
        return -1;
    }
    return 0;
}

/* Quantise one operand image both ways and on the host; all three agree. */
static void recipes_agree(unsigned m, unsigned n, unsigned k, unsigned gm, unsigned gn, unsigned bc, int staged)
{
    kh_machine *mc1 = machine(), *mc2 = machine();
    if (!mc1 || !mc2) goto out;
    kh_gemm_target t;
    kh_gemm_target_of(mc1, &t);
    t.gm = gm;
    t.gn = gn;
    t.bc = bc;
    if (!staged) t.staging_bytes = 0;
    kh_gemm_plan p;
    char err[400];
    if (kh_gemm_plan_make(&p, m, n, k, &t, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "plan: %s", err);
        goto out;
    }
    CHECK_EQ(p.staged, staged);
    uint16_t *a = malloc((size_t)m * k * 2), *bt = malloc((size_t)n * k * 2);
    random_matrix(a, (size_t)m * k);
    random_matrix(bt, (size_t)n * k);
    if (kh_gemm_upload(mc1, &p, KH_GEMM_RECIPE_TILED, a, bt, err, sizeof err) ||
        kh_gemm_quantise(mc1, &p, KH_GEMM_RECIPE_TILED, NULL, err, sizeof err) ||
        kh_gemm_upload(mc2, &p, KH_GEMM_RECIPE_ROWMAJOR, a, bt, err, sizeof err) ||
        kh_gemm_quantise(mc2, &p, KH_GEMM_RECIPE_ROWMAJOR, NULL, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
    } else {
        for (int side = 0; side < 2; side++) {
            unsigned groups = side ? p.gn : p.gm, tiles = side ? p.gj : p.gi, rows = side ? n : m;
            size_t entries = (size_t)tiles * p.ch * groups * p.bc, nb = entries * 128;
            uint8_t *x = malloc(nb), *y = malloc(nb), *z = malloc(nb);
            uint16_t *src = malloc(entries * 256);
            read_img(mc1, side ? p.b_img : p.a_img, x, nb);
            read_img(mc2, side ? p.b_img : p.a_img, y, nb);
            /* the host's quantiser over the same tile-major source (§9.1) */
            kh_gemm_pack_fp16_tiled(&p, side ? bt : a, rows, groups, tiles, src);
            for (size_t e = 0; e < entries; e++) {
                uint64_t in[32] = {0}, o[16];
                for (unsigned q = 0; q < 128; q++) in[q / 4] |= (uint64_t)src[e * 128 + q] << (16 * (q % 4));
                kh_quant_entry(in, (unsigned)side, o);
                for (unsigned j = 0; j < 128; j++) z[e * 128 + j] = (uint8_t)(o[j / 8] >> (8 * (j % 8)));
            }
            CHECK(!memcmp(x, y, nb)); /* recipe 1 == recipe 2 */
            CHECK(!memcmp(y, z, nb)); /* == the quantiser on the host */
            free(x);
            free(y);
            free(z);
            free(src);
        }
    }
    free(a);
    free(bt);
out:
    kh_machine_free(mc1);
    kh_machine_free(mc2);
}

static void quantise_recipe_1_equals_recipe_2(void)
{
    recipes_agree(64, 64, 64, 8, 8, 2, 0);
    recipes_agree(40, 24, 96, 4, 2, 3, 1); /* padded rows and K */
}

/* The machine's C against two references: the driver's exact MX result
 * and the independent sweep of mxref over the host-quantised entries. */
static void machine_gemm(unsigned m, unsigned n, unsigned k, int staged, unsigned gm, unsigned gn, unsigned bc)
{
    kh_machine *mc = machine();
    if (!mc) return;
    char err[2000];
    kh_gemm_target t;
    kh_gemm_target_of(mc, &t);
    if (!staged) t.staging_bytes = 0;
    t.gm = gm;
    t.gn = gn;
    t.bc = bc;
    kh_gemm_plan p;
    kh_gemm_stats st;
    uint16_t *a = malloc((size_t)m * k * 2), *bt = malloc((size_t)n * k * 2);
    uint16_t *c = malloc((size_t)m * n * 2), *cref = malloc((size_t)m * n * 2);
    random_matrix(a, (size_t)m * k);
    random_matrix(bt, (size_t)n * k);
    if (kh_gemm_plan_make(&p, m, n, k, &t, err, sizeof err) ||
        kh_gemm_machine(mc, &p, KH_GEMM_RECIPE_ROWMAJOR, a, bt, c, &st, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%ux%ux%u: %s", m, n, k, err);
        goto out;
    }
    CHECK_EQ(st.clusters, 6);
    CHECK(st.gemm_cycles > 0);
    CHECK_EQ(kh_gemm_reference_mx(&p, a, bt, cref), 0);
    size_t bad = 0;
    for (size_t i = 0; i < (size_t)m * n; i++) bad += c[i] != cref[i];
    CHECK_EQ(bad, 0);
    /* independent: mxref over the machine's own images, tile by tile */
    size_t na = (size_t)p.gi * p.ch * p.gm * p.bc, nb = (size_t)p.gj * p.ch * p.gn * p.bc;
    uint8_t *ia = malloc(na * 128), *ib = malloc(nb * 128);
    if (read_img(mc, p.a_img, ia, na * 128) || read_img(mc, p.b_img, ib, nb * 128)) goto out2;
    uint32_t(*tile)[16] = calloc((size_t)p.gm * p.gn, sizeof *tile);
    mxref_entry *ra = calloc(512, sizeof *ra), *rb = calloc(512, sizeof *rb);
    size_t wrong = 0;
    for (unsigned ti = 0; ti < p.gi; ti++)
        for (unsigned tj = 0; tj < p.gj; tj++) {
            for (unsigned ch = 0; ch < p.ch; ch++) {
                for (unsigned e = 0; e < p.gm * p.bc; e++) {
                    uint64_t w[16] = {0};
                    const uint8_t *src = ia + 128 * (((size_t)ti * p.ch + ch) * p.gm * p.bc + e);
                    for (unsigned j = 0; j < 128; j++) w[j / 8] |= (uint64_t)src[j] << (8 * (j % 8));
                    mxref_unpack(w, 0, &ra[e]);
                }
                for (unsigned e = 0; e < p.gn * p.bc; e++) {
                    uint64_t w[16] = {0};
                    const uint8_t *src = ib + 128 * (((size_t)tj * p.ch + ch) * p.gn * p.bc + e);
                    for (unsigned j = 0; j < 128; j++) w[j / 8] |= (uint64_t)src[j] << (8 * (j % 8));
                    mxref_unpack(w, 1, &rb[e]);
                }
                mxref_gemm g = {p.gm, p.gn, p.bc, ch > 0, 40, 0, 0, 0, 0, 0};
                mxref_sweep(&g, ra, 512, rb, 512, tile, p.gm * p.gn, NULL);
            }
            for (unsigned s = 0; s < p.gm * p.gn; s++) {
                uint16_t h[16];
                mxref_drain(tile[s], h);
                for (unsigned l = 0; l < 16; l++) {
                    unsigned row = 4 * (ti * p.gm + s / p.gn) + l / 4, col = 4 * (tj * p.gn + s % p.gn) + l % 4;
                    if (row < m && col < n) wrong += c[(size_t)row * n + col] != h[l];
                }
            }
        }
    CHECK_EQ(wrong, 0);
    free(tile);
    free(ra);
    free(rb);
out2:
    free(ia);
    free(ib);
out:
    free(a);
    free(bt);
    free(c);
    free(cref);
    kh_machine_free(mc);
}

static void gemm_on_every_cluster_matches_references(void)
{
    machine_gemm(128, 96, 160, 1, 0, 0, 0);  /* chosen tiling, staged images */
    machine_gemm(72, 40, 200, 0, 4, 2, 3);   /* DRAM images, padding in every dimension */
    machine_gemm(32, 256, 64, 1, 2, 16, 1);  /* many chunks of one K block */
}

/* A cluster's next tile with the same rows of A skips its A FILLs: with at
 * most two chunks both A banks still hold them (§9.3). */
static void consecutive_tiles_reuse_a_in_l1(void)
{
    kh_gemm_plan p;
    memset(&p, 0, sizeof p);
    p.gi = 2;
    p.gj = 6;
    p.ch = 2;
    CHECK(!kh_gemm_tile_reuses_a(&p, 6, 0));
    CHECK(kh_gemm_tile_reuses_a(&p, 6, 1));  /* tiles 0, 1 on cluster 0, same ti */
    CHECK(!kh_gemm_tile_reuses_a(&p, 6, 2)); /* cluster 1 starts */
    p.ch = 3;
    CHECK(!kh_gemm_tile_reuses_a(&p, 6, 1)); /* chunk 2 overwrote bank 0 */
    machine_gemm(16, 96, 64, 1, 4, 2, 2);    /* one chunk */
    machine_gemm(16, 96, 128, 0, 4, 2, 2);   /* two chunks */
}

/* ---- shared fetch on the whole machine (cluster.md §4.2, §4.3) ---- */

static kh_flit cl_inst(unsigned op, uint64_t addr, unsigned n, unsigned sel, unsigned peers, unsigned npeer)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_cluster_set_op(f.w, op);
    kh_cluster_set_addr(f.w, addr);
    kh_cluster_set_n(f.w, n);
    kh_cluster_set_sel(f.w, sel);
    kh_cluster_set_peers(f.w, peers);
    kh_cluster_set_npeer(f.w, npeer);
    kh_cluster_set_gm(f.w, n);
    kh_cluster_set_nk(f.w, 1);
    kh_cluster_set_anchor(f.w, 40);
    return f;
}

/* Stage a program in slots base.. and dispatch it to (x, y) (control.md §4). */
static int dispatch(kh_machine *mc, unsigned base, unsigned x, unsigned y, const kh_flit *p, unsigned n)
{
    kh_card *c = kh_machine_card(mc);
    char err[200];
    for (unsigned i = 0; i < n; i++) {
        kh_flit f = p[i];
        kh_hdr_set_type(f.w, KH_T_CU_INST);
        kh_hdr_set_txn(f.w, 9);
        kh_hdr_set_last(f.w, i == n - 1);
        uint8_t by[40];
        for (unsigned j = 0; j < 40; j++) by[j] = (uint8_t)(f.w[j / 8] >> (8 * (j % 8)));
        if (kh_card_write_block(c, kh_host_ctrl(0, KH_ORCH_STAGE + 40 * (base + i)), by, 40, err, sizeof err))
            return -1;
    }
    uint64_t dst = 0, st = 1;
    kh_orch_prog_dst_set_x(&dst, x);
    kh_orch_prog_dst_set_y(&dst, y);
    if (kh_card_write64(c, kh_host_ctrl(0, KH_ORCH_PROG_BASE), base, err, sizeof err) ||
        kh_card_write64(c, kh_host_ctrl(0, KH_ORCH_PROG_LEN), n, err, sizeof err) ||
        kh_card_write64(c, kh_host_ctrl(0, KH_ORCH_PROG_DST), dst, err, sizeof err) ||
        kh_card_write64(c, kh_host_ctrl(0, KH_ORCH_PROG_CRED), n, err, sizeof err) ||
        kh_card_write64(c, kh_host_ctrl(0, KH_ORCH_PROG_KICK), 1, err, sizeof err))
        return -1;
    for (unsigned guard = 0; kh_orch_prog_stat_run(&st) && guard < 100000; guard++) {
        kh_sim_run(kh_machine_sim(mc), 4);
        if (kh_card_read64(c, kh_host_ctrl(0, KH_ORCH_PROG_STAT), &st, err, sizeof err)) return -1;
    }
    return 0;
}

/* Two clusters share one A fetch: the lower coordinate (1,1) leads and
 * sends the one request, the memory agent delivers every entry to both, and
 * each multiplies it by its own B. */
static void keep_log(void *ctx, kh_log_level lvl, const char *msg)
{
    char *buf = ctx;
    (void)lvl;
    size_t used = strlen(buf);
    snprintf(buf + used, 2048 - used, "%s\n", msg);
}

static void shared_fetch_feeds_both_clusters(void)
{
    enum { N = 6 };
    kh_machine *mc = machine();
    char log[2048] = "";
    if (!mc) return;
    kh_sim_set_log(kh_machine_sim(mc), keep_log, log, KH_LOG_WARN);
    uint64_t A[N][16], B1[16], B2[16];
    mxref_entry ra[512], rb[512];
    uint32_t tile[N][16];
    char err[200];
    for (unsigned e = 0; e < N; e++)
        for (unsigned i = 0; i < 16; i++) A[e][i] = (uint64_t)rnd_f16() << 48 | (uint64_t)rnd_f16() << 16 | rnd_f16();
    for (unsigned i = 0; i < 16; i++) {
        B1[i] = (uint64_t)rnd_f16() << 40 | rnd_f16();
        B2[i] = (uint64_t)rnd_f16() << 33 | rnd_f16();
    }
    uint8_t by[N * 128];
    for (unsigned j = 0; j < sizeof by; j++) by[j] = (uint8_t)(A[j / 128][j % 128 / 8] >> (8 * (j % 8)));
    kh_card_write_block(kh_machine_card(mc), kh_host_dram(0, 0x10000), by, N * 128, err, sizeof err);
    for (unsigned j = 0; j < 128; j++) by[j] = (uint8_t)(B1[j / 8] >> (8 * (j % 8)));
    kh_card_write_block(kh_machine_card(mc), kh_host_dram(0, 0x20000), by, 128, err, sizeof err);
    for (unsigned j = 0; j < 128; j++) by[j] = (uint8_t)(B2[j / 8] >> (8 * (j % 8)));
    kh_card_write_block(kh_machine_card(mc), kh_host_dram(0, 0x30000), by, 128, err, sizeof err);
    uint64_t ar0;
    kh_card_read64(kh_machine_card(mc), kh_host_ctrl(0, KH_ORCH_AUX_STAT), &ar0, err, sizeof err);
    kh_flit lead[4] = {cl_inst(1, 0x10000, N, 0, 0x12, 1), cl_inst(1, 0x20000, 1, 1, 0, 0),
                       cl_inst(2, 0, N, 0, 0, 0), cl_inst(3, 0x40000, N, 0, 0, 0)};
    kh_flit foll[4] = {cl_inst(1, 0x10000, N, 0, 0x11, 1), cl_inst(1, 0x30000, 1, 1, 0, 0),
                       cl_inst(2, 0, N, 0, 0, 0), cl_inst(3, 0x50000, N, 0, 0, 0)};
    if (dispatch(mc, 0, 2, 1, foll, 4) || dispatch(mc, 8, 1, 1, lead, 4)) {
        kh_test_fail(__FILE__, __LINE__, "dispatch failed");
        goto out;
    }
    if (!kh_sim_run_until_idle(kh_machine_sim(mc), 10000000)) {
        kh_test_fail(__FILE__, __LINE__, "the shared fetch did not finish");
        goto out;
    }
    uint64_t ns, ar1;
    kh_card_read64(kh_machine_card(mc), kh_host_ctrl(0, KH_ORCH_AUX_STAT), &ar1, err, sizeof err);
    /* entries read: N for the shared A, one B each (one AR per entry, memory.md §10) */
    CHECK_EQ((kh_orch_aux_stat_ar_count(&ar1) - kh_orch_aux_stat_ar_count(&ar0)) & 0xFFFF, N + 2);
    CHECK(strstr(log, "mat(1,1): FILL with npeer=1") != NULL); /* flagged on both members */
    CHECK(strstr(log, "mat(2,1): FILL with npeer=1") != NULL);
    for (int m = 0; m < 2; m++) {
        kh_card_read64(kh_machine_card(mc), kh_host_ctrl(0, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(m ? 2 : 1, 1)),
                       &ns, err, sizeof err);
        CHECK_EQ(kh_orch_node_status_code(&ns), KH_SIG_BATCH_COMPLETE);
        for (unsigned e = 0; e < N; e++) mxref_unpack(A[e], 0, &ra[e]);
        mxref_unpack(m ? B2 : B1, 1, &rb[0]);
        mxref_gemm g = {N, 1, 1, 0, 40, 0, 0, 0, 0, 0};
        mxref_sweep(&g, ra, 512, rb, 512, tile, N, NULL);
        uint8_t out[N * 32];
        kh_card_read_block(kh_machine_card(mc), kh_host_dram(0, m ? 0x50000 : 0x40000), out, sizeof out, err,
                           sizeof err);
        for (unsigned t = 0; t < N; t++) {
            uint16_t h[16];
            mxref_drain(tile[t], h);
            for (unsigned l = 0; l < 16; l++) CHECK_EQ(out[32 * t + 2 * l] | out[32 * t + 2 * l + 1] << 8, h[l]);
        }
    }
out:
    kh_machine_free(mc);
}

/* Bad shapes are refused with the rule. */
static void plan_refuses_bad_shapes(void)
{
    kh_gemm_target t;
    memset(&t, 0, sizeof t);
    t.tiles = 512;
    t.clusters = 6;
    kh_gemm_plan p;
    char err[300];
    CHECK_EQ(kh_gemm_plan_make(&p, 0, 4, 4, &t, err, sizeof err), -1);
    t.gm = 32;
    t.gn = 32;
    CHECK_EQ(kh_gemm_plan_make(&p, 128, 128, 64, &t, err, sizeof err), -1); /* 1024 sub-tiles > TILES */
    CHECK(strstr(err, "TILES") != NULL);
    t.gm = 16;
    t.gn = 16;
    t.bc = 16;
    CHECK_EQ(kh_gemm_plan_make(&p, 128, 128, 1024, &t, err, sizeof err), -1); /* FILL of 256 entries */
    CHECK(strstr(err, "255") != NULL);
}

/* The driver's topology query: the default map's picture (data/maps/
 * mesh_2x2_6+2.txt) read row-major, each unit with its CU_TYPE and port. */
static void topology_query_lists_the_units_row_major(void)
{
    kh_params p;
    char err[300];
    kh_params_default(&p);
    kh_machine *m = kh_machine_new(NULL, &p, err, sizeof err);
    CHECK(m != NULL);
    if (!m) return;
    kh_machine_unit_info u[16];
    CHECK_EQ(kh_machine_units(m, 0, u, 16), 9);
    /* first the node's control processor at (0,0), "RC" (cpu.md §7.1), bound to port 0 */
    static const struct { unsigned x, y, type, my; } want[9] = {
        {0, 0, 0x5243, 1},
        {1, 0, 0x4D47, 1}, {2, 0, 0x5643, 1}, {1, 1, 0x4D47, 1}, {2, 1, 0x4D47, 1},
        {1, 2, 0x4D47, 2}, {2, 2, 0x4D47, 2}, {1, 3, 0x4D47, 2}, {2, 3, 0x5643, 2},
    };
    for (unsigned i = 0; i < 9; i++) {
        CHECK_EQ(u[i].x, want[i].x);
        CHECK_EQ(u[i].y, want[i].y);
        CHECK_EQ(u[i].cu_type, want[i].type); /* "MG" cluster, "VC" vector core */
        CHECK_EQ(u[i].mem_x, 0);
        CHECK_EQ(u[i].mem_y, want[i].my);
    }
    CHECK_EQ(kh_machine_units(m, 1, u, 16), 0); /* one mesh */
    CHECK_EQ(kh_machine_units(m, 0, u, 2), 9);  /* the count, two filled */
    kh_machine_free(m);
}

int main(void)
{
    KH_RUN(topology_query_lists_the_units_row_major);
    KH_RUN(plan_refuses_bad_shapes);
    KH_RUN(quantise_recipe_1_equals_recipe_2);
    KH_RUN(gemm_on_every_cluster_matches_references);
    KH_RUN(consecutive_tiles_reuse_a_in_l1);
    KH_RUN(shared_fetch_feeds_both_clusters);
    return kh_test_end("t_cluster_gemm");
}
