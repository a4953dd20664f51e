/* mx_cluster_cu: CU_DATA reception into L1 and the tile (cluster.md §7),
 * faults and exec_result (§8), remote framing (§6.2), hangs the RTL has
 * (§4.1) and hazards the sequential model flags (§5.4, §6.3). */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "support/clbench.h"
#include "support/mxref.h"
#include "support/test.h"

/* A CU_DATA burst from (0,2) to the cluster at (2,1), injected at `at`. */
static void cu_data(kh_ubench *b, unsigned buf, unsigned off, unsigned n, unsigned flags, const uint64_t *data,
                    kh_cycle at)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, 2);
    kh_hdr_set_dst_y(f.w, 1);
    kh_hdr_set_src_x(f.w, 0);
    kh_hdr_set_src_y(f.w, 2);
    kh_hdr_set_type(f.w, KH_T_CU_DATA);
    kh_hdr_set_txn(f.w, 7);
    kh_cu_data_set_buf_id(f.w, buf);
    kh_cu_data_set_offset(f.w, off);
    kh_cu_data_set_len(f.w, n - 1);
    kh_cu_data_set_flags(f.w, flags);
    kh_ubench_inject(b, &f, at);
    for (unsigned d = 0; d < n; d++) {
        kh_flit g = f;
        uint64_t zero[4] = {0};
        kh_cu_data_data_set_data(g.w, data ? data + 4 * d : zero);
        kh_hdr_set_last(g.w, d == n - 1);
        kh_ubench_inject(b, &g, at);
    }
}

static unsigned data_received(kh_ubench *b, unsigned *arg, unsigned *dx, unsigned *dy)
{
    unsigned n = 0;
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_flit *f = &kh_ubench_out(b, i)->f;
        if (kh_hdr_type(f->w) != KH_T_CU_SIGNAL || kh_cu_signal_code(f->w) != KH_SIG_DATA_RECEIVED) continue;
        *arg = (unsigned)kh_cu_signal_arg(f->w);
        *dx = (unsigned)kh_hdr_dst_x(f->w);
        *dy = (unsigned)kh_hdr_dst_y(f->w);
        n++;
    }
    return n;
}

/* §7: buffers 0 and 1 take whole entries by granule: entry g >> 2, word
 * g & 3, the side's own permutation; the GEMM then reads them like FILLed
 * entries. */
static void cu_data_into_l1_by_granule(void)
{
    uint64_t A[2][16], B[16];
    clb_random_entry(A[0]);
    clb_random_entry(A[1]);
    clb_random_entry(B);
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    cu_data(b, 0, 4 * 300, 8, 0, A[0], 0); /* entries 300, 301 = bank 1, offsets 44, 45 */
    cu_data(b, 1, 4 * 7, 4, 0, B, 0);
    if (clb_run_ok(b) != 1) goto out;
    ins g = clb_gemm(2, 1, 1, 0, 0);
    g.abank = 1;
    g.aoff = 44;
    g.boff = 7;
    clb_send(b, g, 0);
    clb_send(b, clb_drain(0x3000, 2), 0);
    if (clb_run_ok(b) != 1) goto out;
    mxref_entry ra[512], rb[512];
    uint32_t rt[4][16];
    mxref_unpack(A[0], 0, &ra[300]);
    mxref_unpack(A[1], 0, &ra[301]);
    mxref_unpack(B, 1, &rb[7]);
    mxref_gemm rg = {2, 1, 1, 0, 40, 44, 7, 1, 0, 0};
    mxref_sweep(&rg, ra, 512, rb, 512, rt, 4, NULL);
    for (unsigned t = 0; t < 2; t++) {
        uint16_t want[16];
        mxref_drain(rt[t], want);
        for (unsigned e = 0; e < 16; e++) CHECK_EQ(clb_get_f16(b, 0x3000 + 32ull * t, e), want[e]);
    }
    unsigned arg, dx, dy;
    CHECK_EQ(data_received(b, &arg, &dx, &dy), 0); /* flags[0] = 0: no signal */
out:
    kh_ubench_free(b);
}

/* §7 range checks and §8: a rejected burst is consumed, writes nothing,
 * is still acknowledged, and turns the next retirement into SIG_FAULT whose
 * arg is the retirement count; the latch clears when reported. */
static void rejected_burst(unsigned buf, unsigned off, unsigned n, int accepted)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    clb_send(b, clb_fill(0, 0, 1, 0, 0), 0);
    clb_send(b, clb_fill(1, 0, 1, 0, 0), 0);
    clb_send(b, clb_gemm(1, 1, 1, 0, 0), 0);
    if (clb_run_ok(b) != 1) goto out;
    cu_data(b, buf, off, n, 1, NULL, kh_sim_now(kh_ubench_sim(b)));
    if (clb_run_ok(b) != 1) goto out;
    clb_send(b, clb_drain(0x1000, 1), 0);
    clb_send(b, clb_drain(0x1000, 1), 0);
    if (clb_run_ok(b) != 1) goto out;
    unsigned code, arg, dx, dy;
    CHECK(clb_completion(b, 3, &code, &arg));
    CHECK_EQ(code, accepted ? KH_SIG_INST_COMPLETE : KH_SIG_FAULT);
    CHECK_EQ(arg, 4);
    CHECK(clb_completion(b, 4, &code, &arg));
    CHECK_EQ(code, KH_SIG_INST_COMPLETE); /* reported once */
    CHECK_EQ(arg, 5);
    CHECK_EQ(data_received(b, &arg, &dx, &dy), 1); /* accepted or rejected */
    CHECK_EQ(arg, buf);
    CHECK_EQ(dx, 0); /* {ack_y, ack_x} = 0: back to the descriptor's source */
    CHECK_EQ(dy, 2);
out:
    kh_ubench_free(b);
}

static void cu_data_range_checks_and_fault(void)
{
    rejected_burst(0, 2046, 2, 1); /* end 2047 < 4·GA */
    rejected_burst(0, 2047, 2, 0); /* end 2048: rejected, never wrapped */
    rejected_burst(1, 0, 1, 1);
    rejected_burst(2, 510, 2, 1);  /* end 511 < 2·TILES (TILES 256) */
    rejected_burst(2, 511, 1, 0);  /* odd offset */
    rejected_burst(2, 510, 3, 0);  /* end 512 */
    rejected_burst(3, 0, 1, 0);    /* staging adapter's id: never */
    rejected_burst(9, 0, 2, 0);
}

/* A rejected buffer-2 burst leaves the tile as it was. */
static void rejected_burst_writes_nothing(void)
{
    uint64_t A[16], B[16], junk[8];
    clb_random_entry(A);
    clb_random_entry(B);
    for (unsigned i = 0; i < 8; i++) junk[i] = clb_rnd();
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    clb_put_words(b, 0, A, 4);
    clb_put_words(b, 0x1000, B, 4);
    clb_send(b, clb_fill(0, 0, 1, 0, 0), 0);
    clb_send(b, clb_fill(1, 0x1000, 1, 0, 0), 0);
    clb_send(b, clb_gemm(1, 1, 1, 0, 0), 0);
    clb_send(b, clb_drain(0x2000, 1), 0);
    if (clb_run_ok(b) != 1) goto out;
    cu_data(b, 2, 1, 2, 0, junk, kh_sim_now(kh_ubench_sim(b))); /* odd offset: rejected */
    if (clb_run_ok(b) != 1) goto out;
    clb_send(b, clb_drain(0x2020, 1), 0);
    if (clb_run_ok(b) != 1) goto out;
    uint8_t x[32], y[32];
    kh_ubench_mem_read(b, 0x2000, x, 32);
    kh_ubench_mem_read(b, 0x2020, y, 32);
    CHECK(!memcmp(x, y, 32));
out:
    kh_ubench_free(b);
}

/* §2, §8: any other opcode retires at once as a no-op with the unchanged
 * count; last = 1 gives SIG_BATCH_COMPLETE with the txn. */
static void unknown_opcode_retires_unchanged_count(void)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    ins o = clb_drain(0, 1);
    o.op = 7;
    clb_send(b, o, 0);
    clb_send(b, clb_fill(0, 0, 1, 0, 0), 0);
    o.op = 0;
    clb_send(b, o, 0);
    o.op = 15;
    clb_send(b, o, 1);
    if (clb_run_ok(b) == 1) {
        unsigned code, arg;
        CHECK(clb_completion(b, 0, &code, &arg));
        CHECK_EQ(code, KH_SIG_INST_COMPLETE);
        CHECK_EQ(arg, 0);
        CHECK(clb_completion(b, 2, &code, &arg));
        CHECK_EQ(arg, 1);
        CHECK(clb_completion(b, 3, &code, &arg));
        CHECK_EQ(code, KH_SIG_BATCH_COMPLETE);
        CHECK_EQ(arg, 0x40);
        CHECK_EQ(kh_ubench_nreq(b), 1); /* no memory traffic from the no-ops */
    }
    kh_ubench_free(b);
}

/* §4.1: the request count is n[7:0]; the unit waits for n entries. The RTL
 * hangs; the hang is diagnosed with the rule. */
static void fill_over_255_hangs_as_the_rtl(void)
{
    logcap log;
    kh_ubench *b = clb_bench_at(2, 1, &log);
    if (!b) return;
    clb_send(b, clb_fill(0, 0, 300, 0, 0), 0);
    char err[2400];
    CHECK_EQ(kh_ubench_run(b, 100000, err, sizeof err), -1);
    CHECK_EQ(kh_mem_rd_req_count(kh_ubench_req(b, 0)->f.w), 300 & 255);
    CHECK(strstr(err, "n[7:0]=44") != NULL);
    CHECK(strstr(err, "§4.1") != NULL);
    CHECK(strstr(log.text, "never retires") != NULL);
    kh_ubench_free(b);
}

/* §6.2: dfin != 0 makes every flit of the burst remote: txn = dfin,
 * rsvd = {1, dmesh}; the header destination stays (MEM) or (dst). */
static void remote_drain_framing(void)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    clb_send(b, clb_fill(0, 0, 3, 0, 0), 0);
    clb_send(b, clb_fill(1, 0, 1, 0, 0), 0);
    clb_send(b, clb_gemm(3, 1, 1, 0, 0), 0);
    ins d = clb_drain(0x5000, 3);
    d.dfin = 0x21;
    d.dmesh = 2;
    clb_send(b, d, 0);
    d.dnode = 1;
    d.dst_x = 3;
    d.dst_y = 2;
    d.dfin = 0x45;
    d.dmesh = 1;
    d.dack_x = 1;
    d.dack_y = 1;
    clb_send(b, d, 0);
    if (clb_run_ok(b) != 1) goto out;
    unsigned mem_flits = 0, node_flits = 0;
    for (size_t i = 0; i < kh_ubench_nreq(b); i++) {
        const uint64_t *f = kh_ubench_req(b, i)->f.w;
        if (kh_hdr_type(f) != KH_T_MEM_WR_REQ) continue;
        CHECK_EQ(kh_hdr_txn(f), 0x21);
        CHECK_EQ(kh_hdr_rsvd_remote(f), 1);
        CHECK_EQ(kh_hdr_rsvd_mesh(f), 2);
        CHECK_EQ(kh_hdr_dst_x(f), 1);
        CHECK_EQ(kh_hdr_dst_y(f), 1);
        CHECK_EQ(kh_mem_wr_req_addr(f), 0x5000);
        CHECK_EQ(kh_mem_wr_req_len(f), 2);
        mem_flits++;
    }
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const uint64_t *f = kh_ubench_out(b, i)->f.w;
        if (kh_hdr_type(f) != KH_T_CU_DATA) continue;
        CHECK_EQ(kh_hdr_txn(f), 0x45);
        CHECK_EQ(kh_hdr_rsvd_remote(f), 1);
        CHECK_EQ(kh_hdr_rsvd_mesh(f), 1);
        CHECK_EQ(kh_hdr_dst_x(f), 3);
        CHECK_EQ(kh_hdr_dst_y(f), 2);
        if (node_flits == 0) CHECK_EQ(kh_cu_data_offset(f), 0x5000 >> 5);
        node_flits++;
    }
    CHECK_EQ(mem_flits, 1);
    CHECK_EQ(node_flits, 4);
out:
    kh_ubench_free(b);
}

/* §5.4: a FILL landing on entries the running sweep still reads is flagged;
 * §6.3: a fused DRAIN whose destination differs from its GEMM's is flagged. */
static void hazards_are_flagged(void)
{
    logcap log;
    kh_ubench *b = clb_bench_at(2, 1, &log);
    if (!b) return;
    clb_send(b, clb_fill(0, 0, 16, 0, 0), 0);
    clb_send(b, clb_fill(1, 0, 16, 0, 0), 0);
    clb_send(b, clb_gemm(16, 16, 1, 0, 0), 0);
    clb_send(b, clb_fill(0, 0x8000, 1, 3, 0), 0); /* same bank, offset 3, while 256 commands run */
    ins g = clb_gemm(2, 2, 1, 1, 0);
    g.emit = 1;
    g.addr = 0x9000;
    clb_send(b, g, 0);
    ins d = clb_drain(0xA000, 4);
    d.fuse = 1;
    clb_send(b, d, 0);
    if (clb_run_ok(b) == 1) {
        CHECK(strstr(log.text, "§5.4") != NULL);
        CHECK(strstr(log.text, "differs") != NULL);
    }
    kh_ubench_free(b);
}

/* §7: MEM_WR_ACK is dropped at the port (profile S). */
static void write_acks_are_dropped(void)
{
    kh_ubench_cfg cfg;
    char err[200];
    memset(&cfg, 0, sizeof cfg);
    cfg.kind = kh_unit_by_name("mx_cluster_cu");
    cfg.cu_x = 2;
    cfg.cu_y = 1;
    cfg.mem_x = 1;
    cfg.mem_y = 1;
    cfg.src_x = 3;
    cfg.src_y = 3;
    cfg.rd_lat = 4;
    cfg.send_acks = 1;
    kh_params_default(&cfg.params);
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    if (!b) return;
    logcap log = {{0}, 0};
    kh_sim_set_log(kh_ubench_sim(b), clb_cap_log, &log, KH_LOG_WARN);
    clb_send(b, clb_drain(0x100, 3), 0);
    clb_send(b, clb_fill(0, 0, 2, 0, 0), 0);
    clb_send(b, clb_drain(0x200, 1), 0);
    if (clb_run_ok(b) == 1) {
        unsigned code, arg;
        CHECK(clb_completion(b, 2, &code, &arg));
        CHECK_EQ(arg, 3);
    }
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(cu_data_into_l1_by_granule);
    KH_RUN(cu_data_range_checks_and_fault);
    KH_RUN(rejected_burst_writes_nothing);
    KH_RUN(unknown_opcode_retires_unchanged_count);
    KH_RUN(fill_over_255_hangs_as_the_rtl);
    KH_RUN(remote_drain_framing);
    KH_RUN(hazards_are_flagged);
    KH_RUN(write_acks_are_dropped);
    return kh_test_end("t_cluster_rx");
}
