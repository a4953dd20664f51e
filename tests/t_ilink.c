/* The interlink's memory side, registers and timing (control.md §7.1,
 * §7.4-§7.6, memory.md §14), end to end through the host card of a
 * machine of several meshes. */
#include "ilink_kit.h"

#define SRC 0x1000ull   /* source words in mesh 0's DRAM */
#define NW 16u          /* words moved */

static void put_source(kit *k, unsigned mesh, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t w[4];
        kit_pattern(i, w);
        kit_put(k, mesh, SRC + 32ull * i, w);
    }
}

static int words_equal(kit *k, unsigned mesh, uint64_t inside, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint64_t w[4], want[4];
        kit_get(k, mesh, inside + 32ull * i, w);
        kit_pattern(i, want);
        if (memcmp(w, want, 32)) return 0;
    }
    return 1;
}

static int word_zero(kit *k, unsigned mesh, uint64_t inside)
{
    uint64_t w[4];
    kit_get(k, mesh, inside, w);
    return !w[0] && !w[1] && !w[2] && !w[3];
}

/* memory.md §14: a mover write naming mesh 1 (addr[37:36] = 1, bit 39
 * clear) lands in mesh 1's DRAM at the LOW 32 BITS of the address: offset
 * 0x2_0000_0400 lands at 0x400. Mesh 0 keeps nothing of it. */
static void mover_remote_dram_lands_by_low_32_bits(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    put_source(&k, 0, NW);
    uint64_t dst = (1ull << 36) | 0x200000400ull;
    kit_copy(&k, 0, SRC, dst, NW);
    CHECK(kit_until(&k, kit_idle_mover, 0, 0, 100000) != KH_NEVER);
    kh_sim_run_until_idle(k.sim, 100000);
    CHECK(words_equal(&k, 1, (1ull << 36) | 0x400, NW));
    CHECK(word_zero(&k, 0, 0x400));
    uint64_t st = kit_r(&k, 0, KH_ORCH_AUX_STAT);
    CHECK_EQ(kh_orch_aux_stat_mover_fault(&st), 0);
    CHECK_EQ(kh_orch_aux_stat_moves(&st), 1);
    CHECK(strstr(k.lastwarn, "low 32 bits") != NULL); /* memory.md Open point 5: warned */
    kh_ilink_counts c;
    kh_ilink_get_counts(kh_node_ilink(kh_machine_node_at(k.m, 1)), &c);
    CHECK_EQ(c.words_landed, NW);
    kit_free(&k);
}

/* memory.md §14: bit 39 set keeps the whole 40-bit address, so mesh 1's
 * staging store claims it (aperture 0, mesh field 1). */
static void mover_remote_staging_keeps_the_full_address(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    put_source(&k, 0, NW);
    uint64_t dst = (1ull << 39) | (1ull << 36) | 0x800;
    kit_copy(&k, 0, SRC, dst, NW);
    CHECK(kit_until(&k, kit_idle_mover, 0, 0, 100000) != KH_NEVER);
    kh_sim_run_until_idle(k.sim, 100000);
    CHECK(words_equal(&k, 1, dst, NW));
    CHECK(word_zero(&k, 1, (1ull << 36) | 0x800)); /* not in its DRAM at the aperture offset */
    kit_free(&k);
}

/* control.md §7.4: the mover's remote writes are posted (it goes idle while
 * they are still on their way); a doorbell rung after it is idle is held at
 * the far side until every write ahead of it has its response, so when the
 * counter moves the data is there. The ring also carries its tag. */
static void doorbell_after_mover_idle_releases_landed_data(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    put_source(&k, 0, NW);
    uint64_t dst = (1ull << 36) | 0x3000;
    kit_copy(&k, 0, SRC, dst, NW);
    CHECK(kit_until(&k, kit_idle_mover, 0, 0, 100000) != KH_NEVER);
    CHECK(word_zero(&k, 1, dst + 32 * (NW - 1))); /* posted: the last word has not landed yet */
    kit_ring(&k, 0, 1, 0x5A);
    int seen = 0;
    for (unsigned i = 0; i < 100000 && !seen; i++) {
        if (kit_received(&k, 1, 0) == 1) {
            seen = 1;
            CHECK(words_equal(&k, 1, dst, NW)); /* the data is visible when the count is */
        } else {
            kh_sim_run(k.sim, 1);
        }
    }
    CHECK(seen);
    uint64_t w = kit_statw(&k, 1, KH_ILINK_STAT_DBELL + 0);
    CHECK_EQ(kh_ilink_dbell_received(&w), 1);
    CHECK_EQ(kh_ilink_dbell_tag(&w), 0x5A);
    CHECK_EQ(kh_ilink_dbell_sent(&w), 0);
    w = kit_statw(&k, 0, KH_ILINK_STAT_DBELL + 1);
    CHECK_EQ(kh_ilink_dbell_sent(&w), 1); /* mesh 0 sent one to mesh 1 */
    CHECK_EQ(kh_ilink_dbell_received(&w), 0);
    w = kit_statw(&k, 0, KH_ILINK_STAT_SENT);
    CHECK_EQ(kh_ilink_total_count(&w), 1);
    kit_free(&k);
}

/* control.md §7.5: capability word of each mesh, 0 while disabled; 0x88
 * changes the live id; 0x80 bit 0 turns it back on. */
static void capability_word_and_runtime_registers(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    for (unsigned mesh = 0; mesh < 2; mesh++) {
        uint64_t w = kit_statw(&k, mesh, KH_ILINK_STAT_CAP);
        CHECK_EQ(kh_ilink_cap_magic(&w), 0x494C);
        CHECK_EQ(kh_ilink_cap_version(&w), 2);
        CHECK_EQ(kh_ilink_cap_mesh_id(&w), mesh);
        CHECK_EQ(kh_ilink_cap_max_mesh(&w), 4);
        CHECK_EQ(kh_ilink_cap_links(&w), 1);
        CHECK_EQ(w >> 32, 0);
    }
    /* the whole word of mesh 1, written out: [31:28] 1, [27:24] 4, [21:20] 1, [19:16] 2, [15:0] 'IL' */
    CHECK_EQ(kit_statw(&k, 1, 0), 0x1412494Cull);
    uint64_t v = 0;
    kh_ilink_mesh_set_id(&v, 3);
    kit_ilink_w(&k, 1, KH_ILINK_REG_MESH, v);
    uint64_t w = kit_statw(&k, 1, KH_ILINK_STAT_CAP);
    CHECK_EQ(kh_ilink_cap_mesh_id(&w), 3);
    v = 0;
    kh_ilink_ctrl_set_enable(&v, 0);
    kit_ilink_w(&k, 1, KH_ILINK_REG_CTRL, v);
    CHECK_EQ(kit_statw(&k, 1, KH_ILINK_STAT_CAP), 0);
    kh_ilink_ctrl_set_enable(&v, 1);
    kit_ilink_w(&k, 1, KH_ILINK_REG_CTRL, v);
    CHECK(kit_statw(&k, 1, KH_ILINK_STAT_CAP) != 0);
    /* AUX_CFG 0x98 is not a profile S register: ignored, warned */
    kit_ilink_w(&k, 1, 0x98, 1);
    kh_sim_run(k.sim, 2);
    CHECK(strstr(k.lastwarn, "0x98") != NULL);
    kit_free(&k);
}

/* control.md §7.5: 0x80 bit 1 clears the inbound doorbell counters, bit 2
 * the sticky faults; both keep enable from bit 0. A doorbell to this mesh
 * itself is a forbidden turn (SWITCH). */
static void clears_and_the_switch_fault(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kit_ring(&k, 0, 1, 1);
    kit_ring(&k, 0, 1, 2);
    kh_sim_run_until_idle(k.sim, 100000);
    CHECK_EQ(kit_received(&k, 1, 0), 2);
    uint64_t w = kit_statw(&k, 1, KH_ILINK_STAT_DBELL + 0);
    CHECK_EQ(kh_ilink_dbell_tag(&w), 2);
    kit_ring(&k, 1, 1, 3); /* to itself */
    kh_sim_run_until_idle(k.sim, 100000);
    CHECK_EQ(kit_fault(&k, 1), KH_ILINK_F_SWITCH);
    CHECK_EQ(kit_received(&k, 1, 1), 0);
    uint64_t v = 0;
    kh_ilink_ctrl_set_enable(&v, 1);
    kh_ilink_ctrl_set_clr_dbell(&v, 1);
    kh_ilink_ctrl_set_clr_fault(&v, 1);
    kit_ilink_w(&k, 1, KH_ILINK_REG_CTRL, v);
    CHECK_EQ(kit_received(&k, 1, 0), 0);
    CHECK_EQ(kit_fault(&k, 1), 0);
    CHECK(kit_statw(&k, 1, KH_ILINK_STAT_CAP) != 0); /* still enabled */
    kit_free(&k);
}

/* One-way cycles from a ring on `from` to the count at `to`. */
static kh_cycle ring_time(unsigned meshes, unsigned lat, unsigned from, unsigned to)
{
    kh_params p;
    kh_params_default(&p);
    p.ilink_lat = lat;
    kit k;
    if (kit_init(&k, meshes, &p)) return KH_NEVER;
    kh_cycle t0 = kh_sim_now(k.sim);
    kit_ring(&k, from, to, 9);
    kh_cycle t = KH_NEVER;
    for (unsigned i = 0; i < 10000 && t == KH_NEVER; i++) {
        if (kit_received(&k, to, from)) t = kh_sim_now(k.sim) - t0;
        else kh_sim_run(k.sim, 1);
    }
    kit_free(&k);
    return t;
}

/* control.md §7.6: each link direction delays by ilink_lat, so a path of h
 * hops costs h * ilink_lat plus fixed work at the ends (lines of 3 and 4). */
static void latency_is_ilink_lat_per_hop(void)
{
    kh_cycle a1 = ring_time(3, 8, 0, 1), b1 = ring_time(3, 20, 0, 1);
    kh_cycle a2 = ring_time(3, 8, 0, 2), b2 = ring_time(3, 20, 0, 2);
    kh_cycle c2 = ring_time(3, 20, 2, 0);
    CHECK(a1 != KH_NEVER && b1 != KH_NEVER && a2 != KH_NEVER && b2 != KH_NEVER);
    CHECK_EQ(b1 - a1, 1 * (20 - 8));
    CHECK_EQ(b2 - a2, 2 * (20 - 8));
    CHECK_EQ(b2 - b1, 20); /* the transit hop costs exactly one link */
    CHECK_EQ(c2, b2);      /* and the line is symmetric */
    /* four meshes: two transit hops, either way */
    CHECK_EQ(ring_time(4, 20, 0, 3), b1 + 2 * 20);
    CHECK_EQ(ring_time(4, 20, 3, 0), b1 + 2 * 20);
}

/* control.md §7.6, Open point 17: ilink_lat must be at least 1. */
static void zero_latency_is_refused(void)
{
    kh_params p;
    kh_params_default(&p);
    p.ilink_lat = 0;
    const char *maps[2] = {kit_map, kit_map};
    char err[512] = "";
    kh_machine *m = kh_machine_new_meshes(maps, 2, &p, err, sizeof err);
    CHECK(m == NULL);
    CHECK(strstr(err, "ilink_lat 0") != NULL);
    CHECK(strstr(err, "at least 1") != NULL);
    kh_machine_free(m);
}

/* control.md Open point 12: with the interlink disabled, the mover's
 * "remote" writes are written locally at their full address (DRAM: the
 * index rule ignores the mesh field), with a warning. */
static void disabled_interlink_mover_writes_land_locally(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    put_source(&k, 0, NW);
    uint64_t v = 0;
    kh_ilink_ctrl_set_enable(&v, 0);
    kit_ilink_w(&k, 0, KH_ILINK_REG_CTRL, v);
    kit_copy(&k, 0, SRC, (1ull << 36) | 0x6000, NW);
    kh_sim_run_until_idle(k.sim, 100000);
    CHECK(words_equal(&k, 0, 0x6000, NW));
    CHECK(word_zero(&k, 1, (1ull << 36) | 0x6000));
    uint64_t st = kit_r(&k, 0, KH_ORCH_AUX_STAT);
    CHECK_EQ(kh_orch_aux_stat_moves(&st), 1);
    kit_free(&k);
}

/* memory.md §14: byte strobes travel with the word; the far side writes
 * only the strobed bytes. */
static void strobes_travel_with_the_word(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    uint64_t old[4] = {0x1111111111111111ull, 0x2222222222222222ull, 0x3333333333333333ull, 0x4444444444444444ull};
    uint64_t nw[4] = {0xAAAAAAAAAAAAAAAAull, 0xBBBBBBBBBBBBBBBBull, 0xCCCCCCCCCCCCCCCCull, 0xDDDDDDDDDDDDDDDDull};
    kit_put(&k, 1, (1ull << 36) | 0x700, old);
    char err[256];
    kh_ilink *il = kh_node_ilink(kh_machine_node_at(k.m, 0));
    /* bytes 0-3 of word 0 and all of word 3 (bytes 24-31) */
    CHECK_EQ(kh_ilink_store(il, (1ull << 36) | 0x700, nw, 0xFF00000Fu, kh_sim_now(k.sim), err, sizeof err), 0);
    CHECK_EQ(kh_ilink_store(il, 0x700, nw, ~0u, kh_sim_now(k.sim), err, sizeof err), -1); /* names this mesh */
    CHECK(strstr(err, "names this mesh") != NULL);
    kh_sim_run_until_idle(k.sim, 100000);
    uint64_t w[4];
    kit_get(&k, 1, (1ull << 36) | 0x700, w);
    CHECK_EQ(w[0], 0x11111111AAAAAAAAull);
    CHECK_EQ(w[1], old[1]);
    CHECK_EQ(w[2], old[2]);
    CHECK_EQ(w[3], nw[3]);
    kit_free(&k);
}

/* memory.md §2, control.md §7.5: a NoC memory request naming another mesh
 * without the remote marker is served locally and sets RD_REMOTE. */
static void wrong_mesh_request_sets_rd_remote(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kh_flit rd = kit_hdr(KH_T_MEM_RD_REQ, 0, 1, 0, 1, 7, 1, 0);
    kh_mem_rd_req_set_addr(rd.w, (1ull << 36) | 0x40);
    kit_tx(&k, 0, &rd);
    CHECK(kit_until(&k, kit_rx_has, 0, 0, 10000) != KH_NEVER); /* the local answer came back to RX */
    kh_flit resp = kit_rx_pop(&k, 0);
    CHECK_EQ(kh_hdr_type(resp.w), KH_T_MEM_RD_RESP);
    CHECK_EQ(kit_fault(&k, 0), KH_ILINK_F_RD_REMOTE);
    CHECK_EQ(kit_fault(&k, 1), 0);
    kit_free(&k);
}

/* control.md §7.6: credits come back (in batches, or after an idle
 * spell), so an idle line holds its whole receive buffer per class again;
 * a doorbell counts one packet of one beat on each side's counters. */
static void counters_and_credits_after_a_doorbell(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kit_ring(&k, 0, 1, 4);
    kh_sim_run_until_idle(k.sim, 100000);
    uint64_t w = kit_statw(&k, 0, KH_ILINK_STAT_L1_TX);
    CHECK_EQ(kh_ilink_count_packets(&w), 1);
    CHECK_EQ(kh_ilink_count_beats(&w), 1);
    w = kit_statw(&k, 1, KH_ILINK_STAT_L0_RX);
    CHECK_EQ(kh_ilink_count_packets(&w), 1);
    CHECK_EQ(kh_ilink_count_beats(&w), 1);
    CHECK_EQ(kit_statw(&k, 0, KH_ILINK_STAT_L0_TX), 0); /* mesh 0 has no link 0 */
    w = kit_statw(&k, 0, KH_ILINK_STAT_CREDIT);
    CHECK_EQ(kh_ilink_credit_l1_c0(&w), 64);
    CHECK_EQ(kh_ilink_credit_l1_c1(&w), 64);
    CHECK_EQ(kh_ilink_credit_l0_c0(&w), 0);
    w = kit_statw(&k, 0, KH_ILINK_STAT_L1_STALL);
    CHECK_EQ(kh_ilink_stall_stalled(&w), 0);
    CHECK_EQ(kh_ilink_stall_idle(&w), kh_sim_now(k.sim) - 2); /* every cycle but the two flits */
    kit_free(&k);
}

/* control.md §7.4, §7.1: a doorbell and remote writes from mesh 0 to mesh 2
 * cross mesh 1 (transit, class 1 then class 0) in order. */
static void three_mesh_line_carries_writes_and_rings_through_transit(void)
{
    kit k;
    if (kit_init(&k, 3, NULL)) return;
    put_source(&k, 0, NW);
    kit_copy(&k, 0, SRC, (2ull << 36) | 0x4000, NW);
    CHECK(kit_until(&k, kit_idle_mover, 0, 0, 100000) != KH_NEVER);
    kit_ring(&k, 0, 2, 0x77);
    int seen = 0;
    for (unsigned i = 0; i < 100000 && !seen; i++) {
        if (kit_received(&k, 2, 0)) {
            seen = 1;
            CHECK(words_equal(&k, 2, (2ull << 36) | 0x4000, NW));
        } else {
            kh_sim_run(k.sim, 1);
        }
    }
    CHECK(seen);
    kh_sim_run_until_idle(k.sim, 100000);
    CHECK(word_zero(&k, 1, (1ull << 36) | 0x4000));
    uint64_t w = kit_statw(&k, 1, KH_ILINK_STAT_FWD);
    CHECK_EQ(kh_ilink_fwd_packets(&w), NW + 1); /* every word and the ring */
    w = kit_statw(&k, 1, KH_ILINK_STAT_L1_TX);
    CHECK_EQ(kh_ilink_count_packets(&w), NW + 1);
    CHECK_EQ(kit_received(&k, 1, 0), 0);
    kit_free(&k);
}

int main(void)
{
    KH_RUN(mover_remote_dram_lands_by_low_32_bits);
    KH_RUN(mover_remote_staging_keeps_the_full_address);
    KH_RUN(doorbell_after_mover_idle_releases_landed_data);
    KH_RUN(capability_word_and_runtime_registers);
    KH_RUN(clears_and_the_switch_fault);
    KH_RUN(latency_is_ilink_lat_per_hop);
    KH_RUN(zero_latency_is_refused);
    KH_RUN(disabled_interlink_mover_writes_land_locally);
    KH_RUN(strobes_travel_with_the_word);
    KH_RUN(wrong_mesh_request_sets_rd_remote);
    KH_RUN(counters_and_credits_after_a_doorbell);
    KH_RUN(three_mesh_line_carries_writes_and_rings_through_transit);
    return kh_test_end("t_ilink");
}
