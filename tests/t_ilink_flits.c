/* Remote flits across the interlink (control.md §7.2, §7.3, flits.md §7):
 * encapsulation at a memory port, injection at the far mesh, transit, and
 * the faults ACK0, SWITCH and INJ. Flits are sent through mesh 0's raw TX
 * mailbox, which stamps nothing (control.md §2.7). */
#include "ilink_kit.h"

#define FIN_ORCH 0x10 /* {fin_y, fin_x} = (0,1): the far orchestrator's coordinate */
#define FIN_VEC 0x11  /* (1,1): the far vector core */

static void send_all(kit *k, unsigned mesh, const kh_flit *f, unsigned n)
{
    for (unsigned i = 0; i < n; i++) kit_tx(k, mesh, &f[i]);
}

/* Pop every flit the far orchestrator's RX mailbox got (up to max). */
static unsigned drain_rx(kit *k, unsigned mesh, kh_flit *out, unsigned max)
{
    unsigned n = 0;
    kh_sim_run_until_idle(k->sim, 200000);
    while (n < max && kit_rx_has(k, mesh, 0)) out[n++] = kit_rx_pop(k, mesh);
    return n;
}

/* The flit as control.md §7.3 says it arrives: dst = txn, txn = 0,
 * rsvd = 0; src, type, last and payload unchanged. */
static void check_injected(const kh_flit *got, const kh_flit *sent)
{
    CHECK_EQ(kh_hdr_dst_x(got->w), kh_hdr_txn_fin_x(sent->w));
    CHECK_EQ(kh_hdr_dst_y(got->w), kh_hdr_txn_fin_y(sent->w));
    CHECK_EQ(kh_hdr_src_x(got->w), kh_hdr_src_x(sent->w));
    CHECK_EQ(kh_hdr_src_y(got->w), kh_hdr_src_y(sent->w));
    CHECK_EQ(kh_hdr_type(got->w), kh_hdr_type(sent->w));
    CHECK_EQ(kh_hdr_last(got->w), kh_hdr_last(sent->w));
    CHECK_EQ(kh_hdr_txn(got->w), 0);
    CHECK_EQ(kh_hdr_rsvd(got->w), 0);
    CHECK(!memcmp(got->w, sent->w, 32)); /* payload */
}

/* flits.md §7, control.md §7.3: a remote CU_DATA burst from mesh 0 reaches
 * the far orchestrator's RX mailbox with its sender's coordinate and txn 0. */
static void remote_burst_arrives_with_src_preserved_and_txn_0(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kh_flit b[3], got[8];
    unsigned n = kit_remote_burst(b, 1, FIN_ORCH, 2, 3, 2, 0, 1); /* ack (0,1) */
    send_all(&k, 0, b, n);
    CHECK_EQ(drain_rx(&k, 1, got, 8), 3);
    for (unsigned i = 0; i < 3; i++) check_injected(&got[i], &b[i]);
    CHECK_EQ(drain_rx(&k, 0, got, 8), 0); /* nothing stayed in mesh 0 */
    CHECK_EQ(kit_fault(&k, 0), 0);
    CHECK_EQ(kit_fault(&k, 1), 0);
    /* one packet of three beats on each side of the link */
    uint64_t w = kit_statw(&k, 0, KH_ILINK_STAT_L1_TX);
    CHECK_EQ(kh_ilink_count_packets(&w), 1);
    CHECK_EQ(kh_ilink_count_beats(&w), 3);
    w = kit_statw(&k, 1, KH_ILINK_STAT_L0_RX);
    CHECK_EQ(kh_ilink_count_packets(&w), 1);
    CHECK_EQ(kh_ilink_count_beats(&w), 3);
    kit_free(&k);
}

/* vector.md §1.4 through the interlink: the far vector core takes the
 * burst and, asked to signal, sends DATA_RECEIVED to the named ack (its
 * own mesh's orchestrator), which counts it. */
static void remote_burst_reaches_a_far_unit(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kh_flit b[5];
    unsigned n = kit_remote_burst(b, 1, FIN_VEC, 1, 1, 4, 0, 1);
    kh_cu_data_set_flag_signal(b[0].w, 1);
    send_all(&k, 0, b, n);
    kh_sim_run_until_idle(k.sim, 200000);
    CHECK_EQ(kit_r(&k, 1, KH_ORCH_SIG_DONE), 1);
    uint64_t st = kit_r(&k, 1, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 1));
    CHECK_EQ(kh_orch_node_status_valid(&st), 1);
    CHECK_EQ(kh_orch_node_status_code(&st), 0x03); /* DATA_RECEIVED */
    CHECK_EQ(kh_orch_node_status_arg(&st), 0);     /* buf_id 0 */
    CHECK_EQ(kit_r(&k, 0, KH_ORCH_SIG_DONE), 0);
    kit_free(&k);
}

/* flits.md §9 V21, control.md §7.3: a remote CU_DATA descriptor with
 * ack 0 raises ACK0 at the sending side; the burst is still forwarded. */
static void ack_0_is_a_fault_and_still_forwarded(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kh_flit b[3], got[8];
    unsigned n = kit_remote_burst(b, 1, FIN_ORCH, 2, 3, 2, 0, 0);
    send_all(&k, 0, b, n);
    CHECK_EQ(drain_rx(&k, 1, got, 8), 3);
    CHECK_EQ(kit_fault(&k, 0), KH_ILINK_F_ACK0);
    CHECK_EQ(kit_fault(&k, 1), 0);
    kit_free(&k);
}

/* control.md §7.2: a burst longer than MAX_BEATS leaves as several packets
 * (closed at 32 flits); ACK0 is judged on the descriptor only, so a data
 * flit opening the second packet with a zero byte [215:208] is no fault.
 * (The far vector core takes all 41 flits at wire speed and signals.) */
static void long_burst_is_cut_at_32_flits_and_judged_once(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    static kh_flit b[41];
    unsigned n = kit_remote_burst(b, 1, FIN_VEC, 2, 3, 40, 0, 1);
    kh_cu_data_set_flag_signal(b[0].w, 1);
    uint64_t zero[4] = {0, 0, 0, 0};
    kh_cu_data_data_set_data(b[32].w, zero); /* first flit of the second packet */
    send_all(&k, 0, b, n);
    kh_sim_run_until_idle(k.sim, 200000);
    uint64_t w = kit_statw(&k, 0, KH_ILINK_STAT_L1_TX);
    CHECK_EQ(kh_ilink_count_packets(&w), 2);
    CHECK_EQ(kh_ilink_count_beats(&w), 41);
    CHECK_EQ(kit_fault(&k, 0), 0);
    CHECK_EQ(kit_r(&k, 1, KH_ORCH_SIG_DONE), 1); /* DATA_RECEIVED: the whole burst arrived */
    uint64_t st = kit_r(&k, 1, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 1));
    CHECK_EQ(kh_orch_node_status_code(&st), 0x03);
    kit_free(&k);
}

/* control.md §7.1: in a line of three, mesh 1 forwards a burst from mesh 0
 * to mesh 2 (transit) and keeps nothing of it. */
static void transit_through_the_middle_mesh(void)
{
    kit k;
    if (kit_init(&k, 3, NULL)) return;
    kh_flit b[4], got[8];
    unsigned n = kit_remote_burst(b, 2, FIN_ORCH, 1, 1, 3, 0, 1);
    send_all(&k, 0, b, n);
    CHECK_EQ(drain_rx(&k, 2, got, 8), 4);
    for (unsigned i = 0; i < 4; i++) check_injected(&got[i], &b[i]);
    CHECK_EQ(drain_rx(&k, 1, got, 8), 0);
    uint64_t w = kit_statw(&k, 1, KH_ILINK_STAT_FWD);
    CHECK_EQ(kh_ilink_fwd_packets(&w), 1);
    w = kit_statw(&k, 1, KH_ILINK_STAT_L0_RX);
    CHECK_EQ(kh_ilink_count_beats(&w), 4);
    w = kit_statw(&k, 1, KH_ILINK_STAT_L1_TX);
    CHECK_EQ(kh_ilink_count_beats(&w), 4);
    w = kit_statw(&k, 2, KH_ILINK_STAT_L0_RX);
    CHECK_EQ(kh_ilink_count_packets(&w), 1);
    /* and back down from mesh 2 to mesh 0 */
    n = kit_remote_burst(b, 0, FIN_ORCH, 1, 1, 3, 0, 1);
    send_all(&k, 2, b, n);
    CHECK_EQ(drain_rx(&k, 0, got, 8), 4);
    w = kit_statw(&k, 1, KH_ILINK_STAT_FWD);
    CHECK_EQ(kh_ilink_fwd_packets(&w), 2);
    kit_free(&k);
}

/* control.md §7.2, Open point 12: with the interlink disabled, remote flits
 * are consumed and dropped (INJ), and the port's memory traffic goes on. */
static void disabled_interlink_drops_remote_flits(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    uint64_t v = 0;
    kh_ilink_ctrl_set_enable(&v, 0);
    kit_ilink_w(&k, 0, KH_ILINK_REG_CTRL, v);
    kh_flit b[3], got[8];
    unsigned n = kit_remote_burst(b, 1, FIN_ORCH, 2, 3, 2, 0, 1);
    send_all(&k, 0, b, n);
    kh_flit rd = kit_hdr(KH_T_MEM_RD_REQ, 0, 1, 0, 1, 3, 1, 0); /* a local read behind them */
    kit_tx(&k, 0, &rd);
    CHECK_EQ(drain_rx(&k, 0, got, 8), 1);
    CHECK_EQ(kh_hdr_type(got[0].w), KH_T_MEM_RD_RESP);
    CHECK_EQ(drain_rx(&k, 1, got, 8), 0);
    CHECK_EQ(kit_fault(&k, 0), KH_ILINK_F_INJ);
    kh_ilink_counts c;
    kh_ilink_get_counts(kh_node_ilink(kh_machine_node_at(k.m, 0)), &c);
    CHECK_EQ(c.flits_dropped, 3);
    kh_node_counts nc;
    kh_node_get_counts(kh_machine_node_at(k.m, 0), &nc);
    CHECK_EQ(nc.ilink_drops, 3);
    kit_free(&k);
}

/* control.md §7.5 SWITCH: a packet routed past the end of the line is
 * dropped, at the mesh where no link leads on (source or transit). */
static void past_the_line_end_is_a_switch_fault(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kh_flit b[3], got[8];
    unsigned n = kit_remote_burst(b, 3, FIN_ORCH, 2, 3, 2, 0, 1); /* mesh 3 does not exist */
    send_all(&k, 0, b, n);
    kh_sim_run_until_idle(k.sim, 200000);
    CHECK_EQ(kit_fault(&k, 0), 0);                /* mesh 0 forwards it up its link 1 */
    CHECK_EQ(kit_fault(&k, 1), KH_ILINK_F_SWITCH); /* mesh 1 has nowhere to send it */
    CHECK_EQ(drain_rx(&k, 1, got, 8), 0);
    n = kit_remote_burst(b, 2, FIN_ORCH, 2, 3, 2, 0, 1); /* from mesh 1 up: no link 1 at all */
    send_all(&k, 1, b, n);
    kh_sim_run_until_idle(k.sim, 200000);
    kh_ilink_counts c;
    kh_ilink_get_counts(kh_node_ilink(kh_machine_node_at(k.m, 1)), &c);
    CHECK_EQ(c.pkts_dropped, 2);
    kit_free(&k);
}

/* control.md §7.2: a flit of another group waits, holding the port, until
 * the open packet closes; a packet that never closes is a hang, and the
 * hang report says so. */
static void an_open_packet_without_last_is_diagnosed(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kh_flit a[3], b[3];
    kit_remote_burst(a, 1, FIN_ORCH, 2, 3, 2, 0, 1);
    kit_remote_burst(b, 1, FIN_VEC, 2, 3, 2, 0, 1);
    kit_tx(&k, 0, &a[0]); /* group A opens */
    kit_tx(&k, 0, &b[0]); /* group B waits behind it */
    CHECK(kh_sim_run_until_idle(k.sim, 200000));
    char diag[4096];
    CHECK(kh_machine_diagnose(k.m, diag, sizeof diag) > 0);
    CHECK(strstr(diag, "waits for a flit with last = 1") != NULL);
    CHECK(strstr(diag, "another group waits") != NULL);
    kit_free(&k);
}

/* cluster.md §6.2/§6.4 (a remote memory drain): MEM_WR_REQ and its data
 * marked remote cross as one packet and are injected at the far memory
 * port named by txn, which writes its DRAM; the ack goes to the src
 * coordinate, here the far port itself (so its orchestrator sees it). */
static void remote_memory_write_flits_land_through_the_far_port(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    kh_flit f[3], got[4];
    f[0] = kit_hdr(KH_T_MEM_WR_REQ, 0, 1, 0, 1, FIN_ORCH, 0, 4 | 1);
    kh_mem_wr_req_set_addr(f[0].w, (1ull << 36) | 0x5000);
    kh_mem_wr_req_set_len(f[0].w, 1);
    uint64_t d[2][4];
    for (unsigned i = 0; i < 2; i++) {
        f[1 + i] = kit_hdr(KH_T_MEM_WR_DATA, 0, 1, 0, 1, FIN_ORCH, i == 1, 4 | 1);
        kit_pattern(70 + i, d[i]);
        kh_mem_wr_data_set_data(f[1 + i].w, d[i]);
    }
    send_all(&k, 0, f, 3);
    CHECK_EQ(drain_rx(&k, 1, got, 4), 1);
    CHECK_EQ(kh_hdr_type(got[0].w), KH_T_MEM_WR_ACK);
    for (unsigned i = 0; i < 2; i++) {
        uint64_t w[4];
        kit_get(&k, 1, (1ull << 36) | (0x5000 + 32 * i), w);
        CHECK(!memcmp(w, d[i], 32));
    }
    uint64_t w[4];
    kit_get(&k, 0, 0x5000, w);
    CHECK(!w[0] && !w[1] && !w[2] && !w[3]);
    CHECK_EQ(kit_fault(&k, 0) | kit_fault(&k, 1), 0);
    kit_free(&k);
}

int main(void)
{
    KH_RUN(remote_memory_write_flits_land_through_the_far_port);
    KH_RUN(remote_burst_arrives_with_src_preserved_and_txn_0);
    KH_RUN(remote_burst_reaches_a_far_unit);
    KH_RUN(ack_0_is_a_fault_and_still_forwarded);
    KH_RUN(long_burst_is_cut_at_32_flits_and_judged_once);
    KH_RUN(transit_through_the_middle_mesh);
    KH_RUN(disabled_interlink_drops_remote_flits);
    KH_RUN(past_the_line_end_is_a_switch_fault);
    KH_RUN(an_open_packet_without_last_is_diagnosed);
    return kh_test_end("t_ilink_flits");
}
