/* Memory ports (memory.md §2–§6, §10): reads, streaming with peers and
 * tags, writes with reassembly by source, acks, the fault and drop cases. */
#include "node_rig.h"

static unsigned hdr32(const kh_flit *f) { return (unsigned)kh_hdr_dst_x(f->w) << 28 | (unsigned)(f->w[4] & 0x0FFFFFFF); }

/* §3.1: one MEM_RD_RESP per beat, dst = requester, src = port, txn
 * unchanged, last on the final beat, rsvd 0, data verbatim. */
static void plain_read_returns_len_plus_one_beats(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], got[4];
    for (int i = 0; i < 4; i++) {
        pattern(0x1000 + 32 * i, w);
        host_put_word(&r, 0x1000 + 32 * i, w);
    }
    kh_flit rq = mk_rd(2, 1, 0x1000, 3, 0x42);
    tep_send(r.src[0], &rq);
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 4);
    for (unsigned i = 0; i < s->ngot; i++) {
        kh_flit *f = &s->got[i];
        CHECK_EQ(kh_hdr_type(f->w), KH_T_MEM_RD_RESP);
        CHECK_EQ(kh_hdr_dst_x(f->w), 2);
        CHECK_EQ(kh_hdr_dst_y(f->w), 1);
        CHECK_EQ(kh_hdr_src_x(f->w), 0);
        CHECK_EQ(kh_hdr_src_y(f->w), 1);
        CHECK_EQ(kh_hdr_txn(f->w), 0x42);
        CHECK_EQ(kh_hdr_last(f->w), i == 3);
        CHECK_EQ(kh_hdr_rsvd(f->w), 0);
        pattern(0x1000 + 32 * i, w);
        memcpy(got, f->w, 32);
        CHECK(!memcmp(got, w, 32));
    }
    CHECK(!rig_stuck(&r, r.lastlog, sizeof r.lastlog));
    rig_free(&r);
}

/* flits.md §10 worked header: streaming response from port (0,1) to (2,2),
 * txn 0x10, word 3, last 1 = 0x2201210B. */
static void streaming_header_worked_example(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit rq = mk_stream(2, 2, 0x2000, 1, 4, 0x10);
    tep_send(r.src[0], &rq);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 4);
    CHECK_EQ(r.sink[0]->got[3].w[4], 0x2201210Bu);
    (void)hdr32;
    rig_free(&r);
}

/* §3.2: each destination gets every word of every entry exactly once,
 * entries ascending, destination-major, txn = tag + i, rsvd = word, last on
 * word ew-1, data from addr + i*E. */
static void streaming_multicast_every_word_once(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    const unsigned n = 5, ew = 3, txn = 0x20;
    const uint64_t base = 0x8000;
    uint64_t w[4];
    for (unsigned i = 0; i < n * ew; i++) {
        pattern(base + 32 * i, w);
        host_put_word(&r, base + 32 * i, w);
    }
    kh_flit rq = mk_stream(2, 1, base, n, ew, txn);
    kh_mem_rd_req_set_n_peer(rq.w, 3);
    kh_mem_rd_req_set_peer0(rq.w, 0x13); /* {y, x}: (3,1) */
    kh_mem_rd_req_set_peer1(rq.w, 0x24); /* (4,2) */
    kh_mem_rd_req_set_peer2(rq.w, 0x35); /* (5,3) */
    tep_send(r.src[0], &rq);
    rig_run(&r);
    static const unsigned dx[4] = {2, 3, 4, 5}, dy[4] = {1, 1, 2, 3};
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, n * ew * 4);
    unsigned seen[4][5][3] = {{{0}}};
    unsigned k = 0;
    for (unsigned i = 0; i < n; i++)
        for (unsigned d = 0; d < 4; d++)
            for (unsigned wd = 0; wd < ew; wd++, k++) {
                kh_flit *f = &s->got[k];
                CHECK_EQ(kh_hdr_dst_x(f->w), dx[d]);
                CHECK_EQ(kh_hdr_dst_y(f->w), dy[d]);
                CHECK_EQ(kh_hdr_txn(f->w), txn + i);
                CHECK_EQ(kh_hdr_rsvd_word(f->w), wd);
                CHECK_EQ(kh_hdr_rsvd_remote(f->w), 0);
                CHECK_EQ(kh_hdr_last(f->w), wd == ew - 1);
                pattern(base + 32 * (i * ew + wd), w);
                CHECK(!memcmp(f->w, w, 32));
                seen[d][i][wd]++;
            }
    for (unsigned d = 0; d < 4; d++)
        for (unsigned i = 0; i < n; i++)
            for (unsigned wd = 0; wd < ew; wd++) CHECK_EQ(seen[d][i][wd], 1);
    rig_free(&r);
}

/* §3.2: count 0 means 1; entry_words 0 and > 4 mean 4; txn wraps mod 256. */
static void streaming_zero_means_defaults_and_txn_wraps(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit a = mk_stream(2, 1, 0x0, 0, 0, 0x05);
    kh_flit b = mk_stream(2, 1, 0x0, 3, 9, 0xFE);
    tep_send(r.src[0], &a);
    tep_send(r.src[0], &b);
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 4 + 12);
    CHECK_EQ(kh_hdr_txn(s->got[3].w), 0x05);
    CHECK_EQ(kh_hdr_last(s->got[3].w), 1);
    CHECK_EQ(kh_hdr_txn(s->got[4].w), 0xFE);
    CHECK_EQ(kh_hdr_txn(s->got[8].w), 0xFF);
    CHECK_EQ(kh_hdr_txn(s->got[12].w), 0x00);
    rig_free(&r);
}

/* §4, §5: descriptors and data of three sources interleaved at one port
 * reassemble by source; one ack per write, dst = writer, txn = descriptor
 * txn, last 1, payload 0; the data lands. */
static void interleaved_writers_reassemble(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    static const unsigned sx[3] = {2, 3, 4}, sy[3] = {1, 2, 3}, len[3] = {7, 2, 4};
    static const uint64_t addr[3] = {0x10000, 0x20000, 0x30040};
    kh_flit f;
    for (int s = 0; s < 3; s++) {
        f = mk_wr(sx[s], sy[s], addr[s], len[s], 0x30 + s);
        tep_send(r.src[0], &f);
    }
    unsigned k[3] = {0, 0, 0};
    for (int round = 0; round < 8; round++)
        for (int s = 2; s >= 0; s--)
            if (k[s] <= len[s]) {
                f = mk_data(sx[s], sy[s], 0x100 + s, k[s], k[s] == len[s]);
                tep_send(r.src[0], &f);
                k[s]++;
            }
    rig_run(&r);
    tep *sk = r.sink[0];
    CHECK_EQ(sk->ngot, 3);
    unsigned acked = 0;
    for (unsigned i = 0; i < sk->ngot; i++) {
        kh_flit *a = &sk->got[i];
        CHECK_EQ(kh_hdr_type(a->w), KH_T_MEM_WR_ACK);
        CHECK_EQ(kh_hdr_last(a->w), 1);
        CHECK_EQ(kh_hdr_rsvd(a->w), 0);
        CHECK(!a->w[0] && !a->w[1] && !a->w[2] && !a->w[3]);
        for (int s = 0; s < 3; s++)
            if (kh_hdr_dst_x(a->w) == sx[s] && kh_hdr_dst_y(a->w) == sy[s]) {
                CHECK_EQ(kh_hdr_txn(a->w), 0x30 + s);
                acked |= 1u << s;
            }
    }
    CHECK_EQ(acked, 7);
    for (int s = 0; s < 3; s++)
        for (unsigned b = 0; b <= len[s]; b++) {
            uint64_t w[4];
            kh_flit d = mk_data(sx[s], sy[s], 0x100 + s, b, 0);
            host_get_word(&r, addr[s] + 32 * b, w);
            CHECK(!memcmp(w, d.w, 32));
        }
    rig_free(&r);
}

/* §6, Open point 2: data with no open write is dropped and logged; the
 * queue goes on. */
static void unmatched_data_dropped_and_logged(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit f = mk_data(5, 5, 1, 0, 1);
    tep_send(r.src[0], &f);
    f = mk_wr(2, 1, 0x40, 0, 7);
    tep_send(r.src[0], &f);
    f = mk_data(2, 1, 9, 0, 1);
    tep_send(r.src[0], &f);
    rig_run(&r);
    kh_node_counts c;
    kh_node_get_counts(r.n, &c);
    CHECK_EQ(c.unmatched_data, 1);
    CHECK(strstr(r.lastlog, "MEM_WR_DATA") || r.logs > 0);
    CHECK_EQ(r.sink[0]->ngot, 1); /* the later write still completes */
    char buf[4096];
    CHECK_EQ(rig_stuck(&r, buf, sizeof buf), 0);
    rig_free(&r);
}

/* Open point 2 with rtl_compat: the unmatched data is never popped and the
 * write queue wedges; the hang report names it. */
static void unmatched_data_wedges_in_rtl_compat(void)
{
    kh_params p;
    kh_params_default(&p);
    p.rtl_compat = 1;
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    kh_flit f = mk_data(5, 5, 1, 0, 1);
    tep_send(r.src[0], &f);
    f = mk_wr(2, 1, 0x40, 0, 7);
    tep_send(r.src[0], &f);
    f = mk_data(2, 1, 9, 0, 1);
    tep_send(r.src[0], &f);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 0);
    char buf[4096];
    CHECK(rig_stuck(&r, buf, sizeof buf) >= 1);
    CHECK(strstr(buf, "MEM_WR_DATA from (5,5)") != NULL);
    CHECK(strstr(buf, "Open point 2") != NULL);
    rig_free(&r);
}

/* §4, §6: a descriptor with no free slot waits at the queue head, blocking
 * later data (here the data that would free a slot: under-sizing
 * deadlocks); the report names it. */
static void descriptor_waits_for_free_slot(void)
{
    kh_params p;
    kh_params_default(&p);
    p.wr_slots = 2;
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    kh_flit f;
    for (int s = 0; s < 3; s++) {
        f = mk_wr(2 + s, 1, 0x1000 * (s + 1), 0, s);
        tep_send(r.src[0], &f);
    }
    f = mk_data(4, 1, 3, 0, 1); /* data of the third, stuck behind it */
    tep_send(r.src[0], &f);
    rig_run(&r);
    char buf[4096];
    CHECK(rig_stuck(&r, buf, sizeof buf) >= 1);
    CHECK(strstr(buf, "waits at the write-queue head for a free slot") != NULL);
    CHECK(strstr(buf, "holds 0 of 1 data beats") != NULL);
    rig_free(&r);
}

/* §4: with every slot taken, the next descriptor waits until an ack frees
 * one, then proceeds (slots free when the ack is sent). */
static void descriptor_proceeds_when_ack_frees_slot(void)
{
    kh_params p;
    kh_params_default(&p);
    p.wr_slots = 2;
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    kh_flit f;
    for (int s = 0; s < 3; s++) {
        f = mk_wr(2 + s, 1, 0x1000 * (s + 1), 0, s);
        tep_send(r.src[0], &f);
        f = mk_data(2 + s, 1, s, 0, 1);
        tep_send(r.src[0], &f);
    }
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 3);
    CHECK_EQ(kh_hdr_txn(r.sink[0]->got[2].w), 2);
    CHECK_EQ(rig_stuck(&r, r.lastlog, sizeof r.lastlog), 0);
    rig_free(&r);
}

/* §6: a streaming read of another mesh's staging or of aperture index != 0
 * is consumed and dropped; nothing comes back; the hang report names it. */
static void aperture_streaming_read_dropped(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit a = mk_stream(2, 1, 0x9000000000ull | 0x100, 1, 4, 1); /* mesh 1 staging */
    kh_flit b = mk_stream(2, 1, 0x8100000000ull, 1, 4, 2);         /* aperture index 1 */
    tep_send(r.src[0], &a);
    tep_send(r.src[0], &b);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 0);
    kh_node_counts c;
    kh_node_get_counts(r.n, &c);
    CHECK_EQ(c.dropped_reads, 2);
    char buf[4096];
    CHECK(rig_stuck(&r, buf, sizeof buf) >= 1);
    CHECK(strstr(buf, "never be answered") != NULL);
    CHECK(strstr(buf, "another mesh's staging") != NULL);
    rig_free(&r);
}

/* §6: a write to an unserved aperture is taken and dropped, no ack in
 * profile S; with the profile-L drop flag an ack with payload[0] = 1. */
static void aperture_write_dropped(void)
{
    for (int l = 0; l < 2; l++) {
        kh_params p;
        kh_params_default(&p);
        p.l_ack_dropflag = (uint64_t)l;
        rig r;
        rig_init(&r, &p, 1, 0, 0);
        kh_flit f = mk_wr(2, 1, 0xA000000000ull, 1, 0x77); /* mesh 2 staging */
        tep_send(r.src[0], &f);
        for (unsigned k = 0; k < 2; k++) {
            f = mk_data(2, 1, 1, k, k == 1);
            tep_send(r.src[0], &f);
        }
        rig_run(&r);
        kh_node_counts c;
        kh_node_get_counts(r.n, &c);
        CHECK_EQ(c.dropped_writes, 1);
        CHECK_EQ(r.sink[0]->ngot, (unsigned)l);
        if (l) {
            CHECK_EQ(kh_hdr_type(r.sink[0]->got[0].w), KH_T_MEM_WR_ACK);
            CHECK_EQ(kh_mem_wr_ack_drop(r.sink[0]->got[0].w), 1);
            CHECK_EQ(kh_hdr_txn(r.sink[0]->got[0].w), 0x77);
        }
        CHECK_EQ(kh_node_aux_stat(r.n, kh_sim_now(r.sim)) >> 8 & 0xFFFF, 0); /* no burst issued */
        CHECK_EQ(rig_stuck(&r, r.lastlog, sizeof r.lastlog), 0);
        rig_free(&r);
    }
}

/* §1.1, §7: a plain read of an unserved aperture is not dropped: it goes
 * to the DRAM master and is never answered; the report names requester
 * and address. */
static void plain_read_of_aperture_hangs_at_dram(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit f = mk_rd(3, 2, 0x8300000040ull, 0, 9);
    tep_send(r.src[0], &f);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 0);
    char buf[4096];
    CHECK(rig_stuck(&r, buf, sizeof buf) >= 2);
    CHECK(strstr(buf, "DRAM master") != NULL);
    CHECK(strstr(buf, "0x8300000040") != NULL);
    CHECK(strstr(buf, "mem_port0(0,1) read") != NULL);
    CHECK(strstr(buf, "plain read for (3,2) txn 9") != NULL);
    rig_free(&r);
}

/* §8: a NoC write to own-mesh staging is written like DRAM and acked; a
 * streaming read of it is served from the store; the 2 MiB store aliases
 * across aperture 0. */
static void staging_by_noc_and_alias(void)
{
    rig r;
    rig_init(&r, NULL, 1, 2, 0);
    const uint64_t st = 0xA000000000ull; /* mesh 2 staging offset 0 (memory.md §1) */
    kh_flit f = mk_wr(2, 1, st + 0x40, 1, 1);
    tep_send(r.src[0], &f);
    for (unsigned k = 0; k < 2; k++) {
        f = mk_data(2, 1, 0x55, k, k == 1);
        tep_send(r.src[0], &f);
    }
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 1);
    f = mk_stream(2, 1, st + 0x200040, 1, 2, 0x60); /* + 2 MiB: the same bytes */
    tep_send(r.src[0], &f);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 3);
    kh_flit d0 = mk_data(2, 1, 0x55, 0, 0), d1 = mk_data(2, 1, 0x55, 1, 0);
    CHECK(!memcmp(r.sink[0]->got[1].w, d0.w, 32));
    CHECK(!memcmp(r.sink[0]->got[2].w, d1.w, 32));
    /* the DRAM at the same offset is untouched */
    uint64_t w[4];
    host_get_word(&r, 0x2000000040ull, w);
    CHECK(!w[0] && !w[1] && !w[2] && !w[3]);
    rig_free(&r);
}

/* §2, §6: a request naming another mesh without the remote marker raises
 * bad_remote_req (with an interlink) and is served locally. */
static void wrong_mesh_request_served_locally(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 1);
    uint64_t w[4];
    pattern(0x500, w);
    host_put_word(&r, 0x500, w);
    kh_flit f = mk_rd(2, 1, 0x3000000500ull, 0, 1); /* mesh 3, offset 0x500 */
    tep_send(r.src[0], &f);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 1);
    CHECK(!memcmp(r.sink[0]->got[0].w, w, 32));
    kh_node_counts c;
    kh_node_get_counts(r.n, &c);
    CHECK_EQ(c.bad_remote_req, 1);
    rig_free(&r);
}

/* Without an interlink the sticky bit does not exist. */
static void wrong_mesh_without_interlink_no_fault_bit(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit f = mk_rd(2, 1, 0x1000000000ull, 0, 1);
    tep_send(r.src[0], &f);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 1);
    kh_node_counts c;
    kh_node_get_counts(r.n, &c);
    CHECK_EQ(c.bad_remote_req, 0);
    rig_free(&r);
}

/* AUX_STAT [39:24] counts ARs (one per plain read, one per streaming
 * entry), [23:8] write bursts (§10, control.md §2.8). */
static void aux_stat_counts_ars_and_write_bursts(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit f = mk_rd(2, 1, 0, 3, 0);
    tep_send(r.src[0], &f);
    f = mk_stream(2, 1, 0, 6, 2, 0);
    tep_send(r.src[0], &f);
    for (int s = 0; s < 2; s++) {
        f = mk_wr(2, 1 + s, 0x100 * s, 0, 0);
        tep_send(r.src[0], &f);
        f = mk_data(2, 1 + s, 0, 0, 1);
        tep_send(r.src[0], &f);
    }
    rig_run(&r);
    uint64_t st = kh_node_aux_stat(r.n, kh_sim_now(r.sim));
    CHECK_EQ(st >> 24 & 0xFFFF, 1 + 6);
    CHECK_EQ(st >> 8 & 0xFFFF, 2);
    rig_free(&r);
}

/* §10: a plain read holds the shared FSM, so no write is issued while it
 * runs; the write's ack comes after the read's last beat. */
static void plain_read_blocks_writes(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit f = mk_rd(2, 1, 0, 15, 0);
    tep_send(r.src[0], &f);
    f = mk_wr(3, 1, 0x4000, 0, 0);
    tep_send(r.src[0], &f);
    f = mk_data(3, 1, 0, 0, 1);
    tep_send(r.src[0], &f);
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 17);
    CHECK_EQ(kh_hdr_type(s->got[16].w), KH_T_MEM_WR_ACK);
    rig_free(&r);
}

/* §1.1: bit 38 set is neither claimed nor dropped: a streaming read of it
 * reaches the DRAM master and hangs; both the port and the path say so. */
static void bit38_streaming_read_hangs_at_dram(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit f = mk_stream(4, 2, 0xC000000000ull, 2, 4, 0x31);
    tep_send(r.src[0], &f);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, 0);
    char buf[4096];
    CHECK(rig_stuck(&r, buf, sizeof buf) >= 2);
    CHECK(strstr(buf, "reserved bit 38") != NULL);
    CHECK(strstr(buf, "streaming read for (4,2) txn 49") != NULL);
    rig_free(&r);
}

int main(void)
{
    KH_RUN(plain_read_returns_len_plus_one_beats);
    KH_RUN(streaming_header_worked_example);
    KH_RUN(streaming_multicast_every_word_once);
    KH_RUN(streaming_zero_means_defaults_and_txn_wraps);
    KH_RUN(interleaved_writers_reassemble);
    KH_RUN(unmatched_data_dropped_and_logged);
    KH_RUN(unmatched_data_wedges_in_rtl_compat);
    KH_RUN(descriptor_waits_for_free_slot);
    KH_RUN(descriptor_proceeds_when_ack_frees_slot);
    KH_RUN(aperture_streaming_read_dropped);
    KH_RUN(aperture_write_dropped);
    KH_RUN(plain_read_of_aperture_hangs_at_dram);
    KH_RUN(staging_by_noc_and_alias);
    KH_RUN(wrong_mesh_request_served_locally);
    KH_RUN(wrong_mesh_without_interlink_no_fault_bit);
    KH_RUN(aux_stat_counts_ars_and_write_bursts);
    KH_RUN(plain_read_blocks_writes);
    KH_RUN(bit38_streaming_read_hangs_at_dram);
    return kh_test_end("t_node_port");
}
