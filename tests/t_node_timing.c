/* Cycle figures of the node that the spec states (memory.md §7, §10;
 * parameters.md §2.5): a plain read's first beat is DRAM_LAT after the AR
 * handshake (default model) or 8 cycles after it (the recording's AXI RAM
 * through its DRAM port), beats follow one per cycle, and each flit leaves
 * through the port's output register one cycle after it is loaded. The AR
 * handshake is two cycles after the request reaches the head of the read
 * queue (FWFT fall-through fifo_latency after the link transfer): the
 * port's ARVALID is a register (memory.md §10) and the older RTL's
 * mag_dram_port registers every requester's valid (rd_req_r) before its
 * round-robin (docs/timing.md "Memory port"). Each R beat passes the port's
 * registered skid (one cycle) before it becomes a flit. */
#include "node_rig.h"

static void first_beat_after(int axi_ram, unsigned expect_lat)
{
    kh_params p;
    kh_params_default(&p);
    p.axi_ram_model = (uint64_t)axi_ram;
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    kh_flit f = mk_rd(2, 1, 0x40, 3, 0);
    tep_send_at(r.src[0], &f, 10);
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 4);
    kh_cycle handshake = 10 + p.fifo_latency + 2;
    CHECK_EQ(s->got_at[0], handshake + expect_lat + 1 + 1);
    for (unsigned i = 1; i < s->ngot; i++) CHECK_EQ(s->got_at[i], s->got_at[i - 1] + 1);
    rig_free(&r);
}

/* memory.md §7, Open point 14: DRAM_LAT = 51 from the accepted AR. */
static void default_dram_first_beat_after_dram_lat(void) { first_beat_after(0, 51); }

/* parameters.md §2.5: AR handshake at t, first beat back at t + 8. */
static void axi_ram_first_beat_after_8(void) { first_beat_after(1, 8); }

/* Two ports read `words` words each in the same cycle through the AXI RAM;
 * the gap between their first beats. */
static kh_cycle two_port_first_beat_gap(unsigned words)
{
    kh_params p;
    kh_params_default(&p);
    p.axi_ram_model = 1;
    rig r;
    rig_init(&r, &p, 2, 0, 0);
    kh_flit f = mk_rd(2, 1, 0x0, words - 1, 0);
    tep_send_at(r.src[0], &f, 10);
    f = mk_rd(2, 3, 0x1000, words - 1, 0);
    tep_send_at(r.src[1], &f, 10);
    rig_run(&r);
    CHECK_EQ(r.sink[0]->ngot, words);
    CHECK_EQ(r.sink[1]->ngot, words);
    kh_cycle a = r.sink[0]->got_at[0], b = r.sink[1]->got_at[0];
    rig_free(&r);
    return a < b ? b - a : a - b;
}

/* parameters.md §2.5: the AXI RAM serves one read burst at a time; a second
 * requester's read waits for the first burst's RAM beats: for 8 words, at
 * least 4 RAM beats (64 bytes each) + 1 later. */
static void axi_ram_one_read_burst_at_a_time(void) { CHECK(two_port_first_beat_gap(8) >= 5); }

/* The second burst's beats then wait in the DRAM port's R FIFO behind the
 * first burst's, which hands out one 32-byte beat per cycle (mag_dram_port
 * u_rq): for 4 words its first beat is 4 cycles after the first burst's.
 * Upstream 7703ee8 under Verilator on the 2x2 mesh: port 0's entry out
 * from 142, port 1's, handshaken a cycle later, from 146 (docs/timing.md
 * "Memory port"). */
static void axi_ram_second_burst_waits_for_the_return_path(void) { CHECK_EQ(two_port_first_beat_gap(4), 4); }

/* §8: a staging read returns a word every stage_rd_lat + 1 cycles (one word
 * outstanding); DRAM streams one per cycle. */
static void staging_read_one_word_outstanding(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit f = mk_rd(2, 1, 0x8000000000ull, 3, 0);
    tep_send(r.src[0], &f);
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 4);
    for (unsigned i = 1; i < s->ngot; i++) CHECK_EQ(s->got_at[i] - s->got_at[i - 1], 5);
    rig_free(&r);
}

/* §3.2, §10: streaming entries come out back to back at one flit per cycle
 * once the pipeline is full (entry i+1's AR goes out on entry i's last beat). */
static void streaming_emits_one_flit_per_cycle(void)
{
    kh_params p;
    kh_params_default(&p);
    p.dram_lat = 2; /* shorter than an entry's emission: the emitter is the bottleneck */
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    kh_flit f = mk_stream(2, 1, 0x0, 8, 4, 0);
    kh_mem_rd_req_set_n_peer(f.w, 1);
    kh_mem_rd_req_set_peer0(f.w, 0x13);
    tep_send(r.src[0], &f);
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 64);
    unsigned gaps = 0;
    for (unsigned i = 1; i < s->ngot; i++) gaps += (unsigned)(s->got_at[i] - s->got_at[i - 1] - 1);
    CHECK(gaps <= 8 * 2); /* at most the capture-to-emit hand-over per entry */
    rig_free(&r);
}

/* Two plain reads of n words from one requester, queued together: their
 * first beats are 11 + n cycles apart through the recording's AXI RAM. The
 * port returns to S_IDLE the cycle after the last beat leaves its skid,
 * issues the next AR from there, and mag_dram_port handshakes it two
 * cycles later (rd_req_r); the first beat is back 8 after that. Upstream
 * 7703ee8 under Verilator: 12 for one word (saxpy.jsonl case 0: responses
 * at 126 and 138), 19 for eight (docs/timing.md "Memory port"). */
static void plain_reads_back_to_back(unsigned words)
{
    kh_params p;
    kh_params_default(&p);
    p.axi_ram_model = 1;
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    kh_flit f = mk_rd(2, 1, 0x1000, words - 1, 0);
    tep_send_at(r.src[0], &f, 10);
    f = mk_rd(2, 1, 0x8000, words - 1, 0);
    tep_send_at(r.src[0], &f, 11);
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 2 * words);
    CHECK_EQ(s->got_at[words] - s->got_at[0], 11 + words);
    rig_free(&r);
}

static void plain_reads_of_one_word_start_12_apart(void) { plain_reads_back_to_back(1); }
static void plain_reads_of_eight_words_start_19_apart(void) { plain_reads_back_to_back(8); }

/* A write of n beats, descriptor taken at T and its data at T+1..T+n, in
 * the recording's environment (stand-in FIFOs, AXI RAM): the MEM_WR_ACK
 * leaves the port 17 cycles after T for one beat, 31 for eight. Upstream
 * 7703ee8 under Verilator (saxpy.jsonl case 0: descriptor at 150, ack at
 * 167): the slot is ready when the last beat is taken (visible one cycle
 * later), `ws_issue` the next cycle, the AW handshake two later
 * (`wr_req_r`), W beats from the handshake + 3, B at the port 8 after the
 * last W beat, the ack one cycle after B (docs/timing.md "Memory port"). */
static void write_ack_after(unsigned beats, kh_cycle expect)
{
    kh_params p;
    kh_params_default(&p);
    p.fifo_latency = 1;
    p.fifo_extra_cap = 2;
    p.axi_ram_model = 1;
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    kh_flit f = mk_wr(2, 1, 0x8000, beats - 1, 5);
    tep_send_at(r.src[0], &f, 10);
    for (unsigned k = 0; k < beats; k++) {
        f = mk_data(2, 1, 7, k, k + 1 == beats);
        tep_send_at(r.src[0], &f, 11 + k);
    }
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 1);
    CHECK_EQ(kh_hdr_type(s->got[0].w), KH_T_MEM_WR_ACK);
    CHECK_EQ(s->got_at[0] - 10, expect);
    rig_free(&r);
}

static void write_of_one_beat_is_acked_after_17(void) { write_ack_after(1, 17); }
static void write_of_eight_beats_is_acked_after_31(void) { write_ack_after(8, 31); }

int main(void)
{
    KH_RUN(default_dram_first_beat_after_dram_lat);
    KH_RUN(axi_ram_first_beat_after_8);
    KH_RUN(axi_ram_one_read_burst_at_a_time);
    KH_RUN(axi_ram_second_burst_waits_for_the_return_path);
    KH_RUN(plain_reads_of_one_word_start_12_apart);
    KH_RUN(plain_reads_of_eight_words_start_19_apart);
    KH_RUN(write_of_one_beat_is_acked_after_17);
    KH_RUN(write_of_eight_beats_is_acked_after_31);
    KH_RUN(staging_read_one_word_outstanding);
    KH_RUN(streaming_emits_one_flit_per_cycle);
    return kh_test_end("t_node_timing");
}
