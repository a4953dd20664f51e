/* The host memory window and the DRAM map (memory.md §1, §7, §8, §9;
 * control.md §9). */
#include "node_rig.h"

/* §9: a write changes exactly its bytes; a read returns exactly the bytes,
 * little-endian, across word and page boundaries; unwritten memory is 0. */
static void host_access_is_byte_exact(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    char err[256];
    uint8_t b[64], back[64];
    for (int i = 0; i < 64; i++) b[i] = (uint8_t)(0xA0 + i);
    CHECK_EQ(kh_node_host_write(r.n, 0xFF8, b, 8, err, sizeof err), 0); /* 8 bytes below a 4 KiB page end */
    CHECK_EQ(kh_node_host_write(r.n, 0x1000, b + 8, 13, err, sizeof err), 0);
    CHECK_EQ(kh_node_host_read(r.n, 0xFF0, back, 40, err, sizeof err), 0);
    for (int i = 0; i < 8; i++) CHECK_EQ(back[i], 0);
    for (int i = 0; i < 21; i++) CHECK_EQ(back[8 + i], 0xA0 + i);
    for (int i = 29; i < 40; i++) CHECK_EQ(back[i], 0);
    rig_free(&r);
}

/* §1, control.md §9.2 worked form: mesh 2, DRAM offset 0x1000 at inside
 * 0x20_0000_1000, staging at 0xA0_0000_0000 + S. */
static void canonical_inside_addresses(void)
{
    rig r;
    rig_init(&r, NULL, 1, 2, 0);
    uint64_t w[4] = {1, 2, 3, 4}, s[4] = {5, 6, 7, 8}, g[4];
    host_put_word(&r, 0x2000001000ull, w);
    host_put_word(&r, 0xA000000040ull, s);
    /* the DRAM index ignores the mesh field: offset 0x1000 is the same word */
    host_get_word(&r, 0x0000001000ull, g);
    CHECK(!memcmp(g, w, 32));
    host_get_word(&r, 0xA000000040ull, g);
    CHECK(!memcmp(g, s, 32));
    /* staging and DRAM are different stores */
    host_get_word(&r, 0x2000000040ull, g);
    CHECK(!g[0] && !g[1]);
    rig_free(&r);
}

/* §7: word = (addr[35:0] >> 5) mod DRAM_WORDS: beyond the populated size
 * the address wraps, with a warning once (Open point 3). */
static void dram_index_wraps_at_populated_size(void)
{
    kh_params p;
    kh_params_default(&p);
    p.dram_words_log2 = 12; /* 128 KiB */
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    uint64_t w[4] = {9, 8, 7, 6}, g[4];
    host_put_word(&r, 0x20040ull + (1ull << 17) * 3, w); /* 3 x 128 KiB above */
    host_get_word(&r, 0x20040ull, g);
    CHECK(!memcmp(g, w, 32));
    CHECK(strstr(r.lastlog, "Open point 3") != NULL);
    unsigned logs = r.logs;
    host_get_word(&r, 0xF00020040ull, g); /* offset bits above 4 GiB too */
    CHECK(!memcmp(g, w, 32));
    CHECK_EQ(r.logs, logs); /* warned once */
    rig_free(&r);
}

/* Open point 16: another mesh's staging through this window fails with a
 * message naming the window and the mesh field; nothing changes. */
static void other_mesh_staging_refused(void)
{
    rig r;
    rig_init(&r, NULL, 1, 1, 0);
    char err[256];
    uint8_t b[8] = {1, 2, 3, 4, 5, 6, 7, 8}, g[8];
    CHECK_EQ(kh_node_host_write(r.n, 0xA000000000ull, b, 8, err, sizeof err), -1);
    CHECK(strstr(err, "mesh 1 memory window") != NULL);
    CHECK(strstr(err, "mesh field 2") != NULL);
    CHECK(strstr(err, "Open point 16") != NULL);
    CHECK_EQ(kh_node_host_read(r.n, 0x8100000000ull, g, 8, err, sizeof err), -1); /* aperture 1 */
    CHECK(strstr(err, "aperture 1") != NULL);
    /* a block that straddles into a refused word changes nothing at all */
    uint8_t big[64];
    memset(big, 0xEE, sizeof big);
    /* DRAM, then a word with the reserved bit 38 set (memory.md §1: the
     * words just below the aperture all have it) */
    CHECK_EQ(kh_node_host_write(r.n, 0x3FFFFFFFE0ull, big, 64, err, sizeof err), -1);
    CHECK(strstr(err, "reserved bit 38") != NULL);
    CHECK_EQ(kh_node_host_read(r.n, 0x3FFFFFFFE0ull, g, 8, err, sizeof err), 0);
    for (int i = 0; i < 8; i++) CHECK_EQ(g[i], 0);
    /* bit 38 would alias a DRAM write onto offset 0: refused, read or write */
    CHECK_EQ(kh_node_host_write(r.n, 0x4000000000ull, b, 8, err, sizeof err), -1);
    CHECK_EQ(kh_node_host_read(r.n, 0x4000000000ull, g, 8, err, sizeof err), -1);
    CHECK_EQ(kh_node_host_read(r.n, 0, g, 8, err, sizeof err), 0);
    for (int i = 0; i < 8; i++) CHECK_EQ(g[i], 0);
    CHECK_EQ(kh_node_host_read(r.n, 0x9000000000ull, g, 8, err, sizeof err), 0); /* own staging */
    rig_free(&r);
}

/* Open point 4: the host reaches its own mesh's staging; without a staging
 * store built, no aperture is served. */
static void own_staging_reachable_unless_not_built(void)
{
    kh_params p;
    kh_params_default(&p);
    p.stage_built = 0;
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    char err[256];
    uint8_t b[8] = {1};
    CHECK_EQ(kh_node_host_write(r.n, 0x8000000000ull, b, 8, err, sizeof err), -1);
    CHECK(strstr(err, "no staging store") != NULL);
    rig_free(&r);
}

/* The window carries 40 bits. */
static void access_past_the_window_refused(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    char err[256];
    uint8_t b[16] = {0};
    CHECK_EQ(kh_node_host_write(r.n, (1ull << 40) - 8, b, 16, err, sizeof err), -1);
    CHECK(strstr(err, "40-bit") != NULL);
    rig_free(&r);
}

/* §8: the host sees what a NoC write put in staging (one store, every
 * requester) and the NoC sees the host's upload. */
static void host_and_noc_share_staging(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4];
    pattern(0x80, w);
    host_put_word(&r, 0x8000000080ull, w);
    kh_flit f = mk_rd(2, 1, 0x8000000080ull, 0, 1);
    tep_send(r.src[0], &f);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 1);
    CHECK(!memcmp(r.sink[0]->got[0].w, w, 32));
    rig_free(&r);
}

/* Node configuration is checked: ids, port counts, coordinates. */
static void node_cfg_refused_with_reason(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    char err[256];
    kh_node_cfg c = {.mesh_id = 4, .nports = 1};
    CHECK(!kh_node_new(sim, &c, err, sizeof err));
    CHECK(strstr(err, "mesh_id 4") != NULL);
    c.mesh_id = 0;
    c.nports = 5;
    CHECK(!kh_node_new(sim, &c, err, sizeof err));
    CHECK(strstr(err, "5 memory ports") != NULL);
    c.nports = 2;
    c.port[0].y = c.port[1].y = 1;
    CHECK(!kh_node_new(sim, &c, err, sizeof err));
    CHECK(strstr(err, "different routers") != NULL);
    kh_sim_destroy(sim);
}

int main(void)
{
    KH_RUN(host_access_is_byte_exact);
    KH_RUN(canonical_inside_addresses);
    KH_RUN(dram_index_wraps_at_populated_size);
    KH_RUN(other_mesh_staging_refused);
    KH_RUN(own_staging_reachable_unless_not_built);
    KH_RUN(access_past_the_window_refused);
    KH_RUN(host_and_noc_share_staging);
    KH_RUN(node_cfg_refused_with_reason);
    return kh_test_end("t_node_host");
}
