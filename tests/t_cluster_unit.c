/* mx_cluster_cu on the unit bench (cluster.md): the worked example of §9.5,
 * tiled programs (§9.3) against the independent reference, zero-means-one,
 * peers and the leader rule (§4.2), emit + fused drain (§6.3), node drains
 * into another cluster with DATA_RECEIVED (§6.2, §7), CU_DATA into L1,
 * remote framing (§6.2), completions and faults (§8), hangs and hazards. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/hex.h"
#include "support/clbench.h"
#include "support/mxref.h"
#include "support/test.h"

/* ---- §9.5: the end-to-end worked example ---- */

static void worked_example_end_to_end(void)
{
    static const char *aw[4] = {"760800000000000000000000000000000000000000000000000000007da0a0a0",
                                "000000000000000000000000000000000000000000000000000000007da0a0a0",
                                "000000000000000000000000000000000000000000000000000000007da0a0a0",
                                "000000000000000000000000000000000000000000000000000000007da0a0a0"};
    static const char *bw[4] = {"2f1c00074000000000000000000000000000000000000000000000007b69a0a0",
                                "000000000000000000000000000000000000000000000000000000007b69a0a0",
                                "000000000000000000000000000000000000000000000000000000007b69a0a0",
                                "000000000000000000000000000000000000000000000000000000007b69a0a0"};
    uint64_t a[16], bb[16];
    char err[100];
    for (unsigned k = 0; k < 4; k++) {
        kh_hex_parse(aw[k], a + 4 * k, 256, 1, err, sizeof err);
        kh_hex_parse(bw[k], bb + 4 * k, 256, 1, err, sizeof err);
    }
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    clb_put_words(b, 0x0, a, 4);
    clb_put_words(b, 0x1000, bb, 4);
    clb_send(b, clb_fill(0, 0x0, 1, 0, 0), 0);
    clb_send(b, clb_fill(1, 0x1000, 1, 0, 0), 0);
    clb_send(b, clb_gemm(1, 1, 1, 0, 0), 0);
    clb_send(b, clb_drain(0x2000, 1), 1);
    if (clb_run_ok(b) == 1) {
        uint8_t by[32], want[32] = {0x6e, 0x42, 0x01, 0xbe};
        kh_ubench_mem_read(b, 0x2000, by, 32);
        CHECK(!memcmp(by, want, 32));
        unsigned code, arg;
        for (unsigned k = 0; k < 3; k++) {
            CHECK(clb_completion(b, k, &code, &arg));
            CHECK_EQ(code, KH_SIG_INST_COMPLETE); /* §8: exec_result = retired count */
            CHECK_EQ(arg, k + 1);
        }
        CHECK(clb_completion(b, 3, &code, &arg));
        CHECK_EQ(code, KH_SIG_BATCH_COMPLETE); /* last = 1: arg = txn */
        CHECK_EQ(arg, 0x40);
        /* §4.2: one streaming request per FILL, count n[7:0], txn = eoff */
        CHECK_EQ(kh_ubench_nreq(b), 3);
        const uint64_t *rq = kh_ubench_req(b, 1)->f.w;
        CHECK_EQ(kh_hdr_type(rq), KH_T_MEM_RD_REQ);
        CHECK_EQ(kh_mem_rd_req_addr(rq), 0x1000);
        CHECK_EQ(kh_mem_rd_req_flags(rq), 0x40);
        CHECK_EQ(kh_mem_rd_req_count(rq), 1);
        CHECK_EQ(kh_mem_rd_req_len(rq), 3);
        CHECK_EQ(kh_hdr_dst_x(rq), 1);
        CHECK_EQ(kh_hdr_src_x(rq), 2);
        CHECK_EQ(kh_hdr_src_y(rq), 1);
    }
    kh_ubench_free(b);
}

/* ---- §9.1 / §9.3: a tiled program against the reference ---- */

typedef struct shape {
    unsigned gm, gn, bc, gi, gj, ch;
} shape;

static int tiled_program(const shape *s, unsigned anchor)
{
    unsigned na = s->gi * s->ch * s->gm * s->bc, nb = s->gj * s->ch * s->gn * s->bc;
    uint64_t(*A)[16] = calloc(na, sizeof *A), (*B)[16] = calloc(nb, sizeof *B);
    const uint64_t A_img = 0x100000, B_img = 0x400000, C_img = 0x800000;
    int bad = 0;
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b || !A || !B) goto out;
    for (unsigned e = 0; e < na; e++) clb_random_entry(A[e]);
    for (unsigned e = 0; e < nb; e++) clb_random_entry(B[e]);
    clb_put_words(b, A_img, A[0], 4 * na);
    clb_put_words(b, B_img, B[0], 4 * nb);
    unsigned n_inst = 0;
    for (unsigned ti = 0; ti < s->gi; ti++)
        for (unsigned tj = 0; tj < s->gj; tj++) {
            for (unsigned c = 0; c < s->ch; c++) {
                unsigned bank = c % 2;
                clb_send(b, clb_fill(0, A_img + 128ull * ((ti * s->ch + c) * s->gm * s->bc), s->gm * s->bc, 0, bank), 0);
                clb_send(b, clb_fill(1, B_img + 128ull * ((tj * s->ch + c) * s->gn * s->bc), s->gn * s->bc, 0, bank), 0);
                ins g = clb_gemm(s->gm, s->gn, s->bc, c > 0, bank);
                g.anchor = anchor;
                clb_send(b, g, 0);
                n_inst += 3;
            }
            clb_send(b, clb_drain(C_img + 32ull * ((ti * s->gj + tj) * s->gm * s->gn), s->gm * s->gn), 0);
            n_inst++;
        }
    if (clb_run_ok(b) != 1) {
        bad = 1;
        goto out;
    }
    /* reference: the same sweeps over entries unpacked by mxref */
    mxref_entry ra[512], rb[512];
    uint32_t rtile[256][16];
    for (unsigned ti = 0; ti < s->gi && !bad; ti++)
        for (unsigned tj = 0; tj < s->gj && !bad; tj++) {
            for (unsigned c = 0; c < s->ch; c++) {
                unsigned bank = c % 2;
                for (unsigned e = 0; e < s->gm * s->bc; e++)
                    mxref_unpack(A[(ti * s->ch + c) * s->gm * s->bc + e], 0, &ra[bank * 256 + e]);
                for (unsigned e = 0; e < s->gn * s->bc; e++)
                    mxref_unpack(B[(tj * s->ch + c) * s->gn * s->bc + e], 1, &rb[bank * 256 + e]);
                mxref_gemm g = {s->gm, s->gn, s->bc, c > 0, anchor, 0, 0, bank, bank, 0};
                mxref_sweep(&g, ra, 512, rb, 512, rtile, 256, NULL);
            }
            for (unsigned t = 0; t < s->gm * s->gn && !bad; t++) {
                uint16_t want[16];
                mxref_drain(rtile[t], want);
                uint64_t w = C_img + 32ull * ((ti * s->gj + tj) * s->gm * s->gn + t);
                for (unsigned e = 0; e < 16; e++)
                    if (clb_get_f16(b, w, e) != want[e]) {
                        kh_test_fail(__FILE__, __LINE__,
                                     "gm=%u gn=%u bc=%u: tile (%u,%u) sub-tile %u element %u: 0x%04x, reference "
                                     "0x%04x",
                                     s->gm, s->gn, s->bc, ti, tj, t, e, clb_get_f16(b, w, e), want[e]);
                        bad = 1;
                        break;
                    }
            }
        }
    unsigned code, arg;
    CHECK(clb_completion(b, n_inst - 1, &code, &arg));
    CHECK_EQ(arg, n_inst); /* every FILL, GEMM and DRAIN counted (§8) */
out:
    kh_ubench_free(b);
    free(A);
    free(B);
    return bad;
}

static void tiled_gemm_matches_reference(void)
{
    static const shape shapes[] = {
        {1, 1, 1, 1, 1, 1}, {2, 3, 2, 2, 1, 3}, {4, 4, 1, 1, 2, 4}, {1, 5, 3, 2, 2, 2},
        {8, 8, 2, 1, 1, 2}, {3, 1, 4, 3, 1, 1}, {6, 4, 3, 1, 1, 3}, {16, 16, 1, 1, 1, 1},
    };
    for (unsigned i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        if (tiled_program(&shapes[i], 40)) break;
    shape s = {2, 2, 2, 1, 1, 2};
    tiled_program(&s, 37); /* another anchor: the exponent wraps (numerics §5) */
}

/* §2: zero means one for n, gm, gn, nk */
static void zero_means_one(void)
{
    uint64_t a[16], bb[16];
    clb_random_entry(a);
    clb_random_entry(bb);
    kh_ubench *b1 = clb_bench_at(2, 1, NULL), *b2 = clb_bench_at(2, 1, NULL);
    if (!b1 || !b2) return;
    clb_put_words(b1, 0, a, 4);
    clb_put_words(b1, 0x1000, bb, 4);
    clb_put_words(b2, 0, a, 4);
    clb_put_words(b2, 0x1000, bb, 4);
    clb_send(b1, clb_fill(0, 0, 0, 0, 0), 0);
    clb_send(b1, clb_fill(1, 0x1000, 0, 0, 0), 0);
    clb_send(b1, clb_gemm(0, 0, 0, 0, 0), 0);
    clb_send(b1, clb_drain(0x2000, 0), 0);
    clb_send(b2, clb_fill(0, 0, 1, 0, 0), 0);
    clb_send(b2, clb_fill(1, 0x1000, 1, 0, 0), 0);
    clb_send(b2, clb_gemm(1, 1, 1, 0, 0), 0);
    clb_send(b2, clb_drain(0x2000, 1), 0);
    if (clb_run_ok(b1) == 1 && clb_run_ok(b2) == 1) {
        uint8_t x[64], y[64];
        kh_ubench_mem_read(b1, 0x2000, x, 64);
        kh_ubench_mem_read(b2, 0x2000, y, 64);
        CHECK(!memcmp(x, y, 64)); /* one sub-tile written, the next word untouched */
        CHECK_EQ(kh_mem_rd_req_count(kh_ubench_req(b1, 0)->f.w), 0); /* n[7:0] copied as is */
    }
    kh_ubench_free(b1);
    kh_ubench_free(b2);
}

/* ---- §6.3 emit + fused drain ---- */

static void emit_and_fused_drain(void)
{
    enum { GM = 4, GN = 5, NK = 2 };
    uint64_t A[GM * NK][16], B[GN * NK][16];
    for (unsigned e = 0; e < GM * NK; e++) clb_random_entry(A[e]);
    for (unsigned e = 0; e < GN * NK; e++) clb_random_entry(B[e]);
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    clb_put_words(b, 0x0, A[0], 4 * GM * NK);
    clb_put_words(b, 0x10000, B[0], 4 * GN * NK);
    clb_send(b, clb_fill(0, 0x0, GM * NK, 0, 0), 0);
    clb_send(b, clb_fill(1, 0x10000, GN * NK, 0, 0), 0);
    ins g = clb_gemm(GM, GN, NK, 0, 0);
    g.emit = 1;
    g.addr = 0x20000;
    clb_send(b, g, 0);
    ins d = clb_drain(0x20000, GM * GN);
    d.fuse = 1;
    clb_send(b, d, 1);
    if (clb_run_ok(b) == 1) {
        mxref_entry ra[512], rb[512];
        uint32_t rt[256][16];
        uint16_t em[GM * GN][16];
        for (unsigned e = 0; e < GM * NK; e++) mxref_unpack(A[e], 0, &ra[e]);
        for (unsigned e = 0; e < GN * NK; e++) mxref_unpack(B[e], 1, &rb[e]);
        mxref_gemm rg = {GM, GN, NK, 0, 40, 0, 0, 0, 0, 1};
        CHECK_EQ(mxref_sweep(&rg, ra, 512, rb, 512, rt, 256, em), GM * GN);
        for (unsigned t = 0; t < GM * GN; t++)
            for (unsigned e = 0; e < 16; e++) CHECK_EQ(clb_get_f16(b, 0x20000 + 32ull * t, e), em[t][e]);
        /* bursts cut at G = 0, 8, 16 (§6.4): 8 + 8 + 4 */
        unsigned nw = 0;
        for (size_t i = 0; i < kh_ubench_nreq(b); i++) {
            const uint64_t *f = kh_ubench_req(b, i)->f.w;
            if (kh_hdr_type(f) != KH_T_MEM_WR_REQ) continue;
            CHECK_EQ(kh_mem_wr_req_addr(f), 0x20000 + 256ull * nw);
            CHECK_EQ(kh_mem_wr_req_len(f), nw < 2 ? 7 : 3);
            CHECK_EQ(kh_hdr_txn(f), 0x02);
            nw++;
        }
        CHECK_EQ(nw, 3);
    }
    kh_ubench_free(b);
}

/* §5.1: emit with acc = 0 and nk = 1 LOADs and emits nothing; the fused
 * DRAIN then waits forever, and the hang is diagnosed (§6.3). */
static void fused_drain_without_emission_hangs(void)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    clb_send(b, clb_fill(0, 0, 1, 0, 0), 0);
    clb_send(b, clb_fill(1, 0, 1, 0, 0), 0);
    ins g = clb_gemm(1, 1, 1, 0, 0);
    g.emit = 1;
    clb_send(b, g, 0);
    ins d = clb_drain(0, 1);
    d.fuse = 1;
    clb_send(b, d, 0);
    char err[2400];
    CHECK_EQ(kh_ubench_run(b, 100000, err, sizeof err), -1);
    CHECK(strstr(err, "fused DRAIN") != NULL);
    CHECK(strstr(err, "§6.3") != NULL);
    kh_ubench_free(b);
}

/* ---- §4.2 peers ---- */

static void leader_rule_from_own_coordinate(void)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL); /* me = 0x12 */
    if (!b) return;
    /* peers {y,x}: 0x13 and 0x21 are above 0x12 -> leader; 0x11 is below */
    ins f = clb_fill(0, 0, 1, 0, 0);
    f.peers = 0x2113;
    f.npeer = 2;
    clb_send(b, f, 0);
    f.peers = 0x111321; /* peer 0 = the low byte; the third counts only with npeer 3 */
    f.npeer = 2;
    clb_send(b, f, 0);
    if (clb_run_ok(b) == 1) {
        CHECK_EQ(kh_ubench_nreq(b), 2);
        const uint64_t *rq = kh_ubench_req(b, 0)->f.w;
        CHECK_EQ(kh_mem_rd_req_peer(rq), 0x2113); /* copied verbatim */
        CHECK_EQ(kh_mem_rd_req_n_peer(rq), 2);
    }
    kh_ubench_free(b);
    b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    f.peers = 0x111321;
    f.npeer = 3; /* 0x11 < 0x12: not the leader, nobody sends, it waits */
    clb_send(b, f, 0);
    char err[2400];
    CHECK_EQ(kh_ubench_run(b, 100000, err, sizeof err), -1);
    CHECK_EQ(kh_ubench_nreq(b), 0);
    CHECK(strstr(err, "follower") != NULL);
    kh_ubench_free(b);
}

/* One fetch feeds every member: the leader's request brings the entries to
 * both (the memory agent multicasts; here the follower's copy is injected
 * as the agent would send it), and each member computes its own result
 * with its own second operand. */
static void peers_share_one_fetch(void)
{
    enum { N = 3 };
    uint64_t A[N][16], B1[16], B2[16];
    for (unsigned e = 0; e < N; e++) clb_random_entry(A[e]);
    clb_random_entry(B1);
    clb_random_entry(B2);
    logcap log;
    kh_ubench *lead = clb_bench_at(2, 1, &log), *foll = clb_bench_at(3, 2, NULL); /* 0x12 < 0x23 */
    if (!lead || !foll) return;
    clb_put_words(lead, 0x0, A[0], 4 * N);
    clb_put_words(lead, 0x1000, B1, 4);
    clb_put_words(foll, 0x1000, B2, 4);
    ins fl = clb_fill(0, 0x0, N, 5, 1);
    fl.peers = 0x23;
    fl.npeer = 1;
    ins ff = fl;
    ff.peers = 0x12;
    clb_send(lead, fl, 0);
    clb_send(foll, ff, 0);
    for (unsigned e = 0; e < N; e++)
        for (unsigned w = 0; w < 4; w++) { /* the agent's copy for the peer (§4.3) */
            kh_flit r;
            kh_flit_clear(&r);
            kh_hdr_set_dst_x(r.w, 3);
            kh_hdr_set_dst_y(r.w, 2);
            kh_hdr_set_src_x(r.w, 1);
            kh_hdr_set_src_y(r.w, 1);
            kh_hdr_set_type(r.w, KH_T_MEM_RD_RESP);
            kh_hdr_set_txn(r.w, 5 + e);
            kh_hdr_set_rsvd_word(r.w, w);
            kh_hdr_set_last(r.w, w == 3);
            kh_mem_rd_resp_set_data(r.w, A[e] + 4 * w);
            kh_ubench_inject(foll, &r, 30 + 4 * e + w);
        }
    for (int m = 0; m < 2; m++) {
        kh_ubench *b = m ? foll : lead;
        clb_send(b, clb_fill(1, 0x1000, 1, 0, 0), 0);
        ins g = clb_gemm(N, 1, 1, 0, 0);
        g.aoff = 5;
        g.abank = 1;
        clb_send(b, g, 0);
        clb_send(b, clb_drain(0x2000, N), 1);
    }
    if (clb_run_ok(lead) == 1 && clb_run_ok(foll) == 1) {
        unsigned reads = 0;
        for (size_t i = 0; i < kh_ubench_nreq(foll); i++)
            reads += kh_hdr_type(kh_ubench_req(foll, i)->f.w) == KH_T_MEM_RD_REQ;
        CHECK_EQ(reads, 1); /* the follower fetched only its own B */
        CHECK(strstr(log.text, "npeer") != NULL); /* shared fetch is flagged */
        for (int m = 0; m < 2; m++) {
            kh_ubench *b = m ? foll : lead;
            mxref_entry ra[512], rb[512];
            uint32_t rt[8][16];
            for (unsigned e = 0; e < N; e++) mxref_unpack(A[e], 0, &ra[256 + 5 + e]);
            mxref_unpack(m ? B2 : B1, 1, &rb[0]);
            mxref_gemm g = {N, 1, 1, 0, 40, 5, 0, 1, 0, 0};
            mxref_sweep(&g, ra, 512, rb, 512, rt, 8, NULL);
            for (unsigned t = 0; t < N; t++) {
                uint16_t want[16];
                mxref_drain(rt[t], want);
                for (unsigned e = 0; e < 16; e++) CHECK_EQ(clb_get_f16(b, 0x2000 + 32ull * t, e), want[e]);
            }
        }
    }
    kh_ubench_free(lead);
    kh_ubench_free(foll);
}

/* ---- §6.2 / §7: a node drain into another cluster ---- */

/* Cluster A at (2,1) SENDs its FP22 sub-tiles (dbuf 2) to cluster B at
 * (2,2); B adds them into its own tile (ADD_PEER), acknowledges each burst
 * with DATA_RECEIVED to the ack node, and drains the sum. */
static void node_drain_peer_add_with_data_received(void)
{
    enum { T = 5 };
    uint64_t A1[T][16], B1[16], A2[T + 1][16], B2[16];
    for (unsigned e = 0; e < T; e++) clb_random_entry(A1[e]);
    for (unsigned e = 0; e <= T; e++) clb_random_entry(A2[e]);
    clb_random_entry(B1);
    clb_random_entry(B2);
    kh_ubench *ca = clb_bench_at(2, 1, NULL), *cb = clb_bench_at(2, 2, NULL);
    if (!ca || !cb) return;
    clb_put_words(ca, 0, A1[0], 4 * T);
    clb_put_words(ca, 0x1000, B1, 4);
    clb_put_words(cb, 0, A2[0], 4 * (T + 1));
    clb_put_words(cb, 0x1000, B2, 4);
    clb_send(ca, clb_fill(0, 0, T, 0, 0), 0);
    clb_send(ca, clb_fill(1, 0x1000, 1, 0, 0), 0);
    clb_send(ca, clb_gemm(T, 1, 1, 0, 0), 0);
    clb_send(cb, clb_fill(0, 0, T + 1, 0, 0), 0);
    clb_send(cb, clb_fill(1, 0x1000, 1, 0, 0), 0);
    clb_send(cb, clb_gemm(T + 1, 1, 1, 0, 0), 0);
    ins d = clb_drain(32ull * 2, T); /* granule offset = base40[20:5] = 2 */
    d.dnode = 1;
    d.dst_x = 2;
    d.dst_y = 2;
    d.dbuf = 2;
    d.dflags = 1;
    d.dack_x = 3;
    d.dack_y = 3;
    clb_send(ca, d, 0);
    if (clb_run_ok(ca) != 1 || clb_run_ok(cb) != 1) goto out;
    /* A's CU_DATA: 2T granules (SEND), bursts cut at G = 8: 8 + 2 */
    kh_cycle at = kh_sim_now(kh_ubench_sim(cb));
    unsigned left = 0, ndesc = 0, ndata = 0;
    for (size_t i = 0; i < kh_ubench_nout(ca); i++) {
        const kh_flit *f = &kh_ubench_out(ca, i)->f;
        if (kh_hdr_type(f->w) != KH_T_CU_DATA) continue;
        CHECK_EQ(kh_hdr_dst_x(f->w), 2);
        CHECK_EQ(kh_hdr_dst_y(f->w), 2);
        CHECK_EQ(kh_hdr_txn(f->w), 0x02);
        if (!left) { /* a descriptor (§6.4 node drain) */
            CHECK_EQ(kh_cu_data_buf_id(f->w), 2);
            CHECK_EQ(kh_cu_data_offset(f->w), 2 + ndata);
            CHECK_EQ(kh_cu_data_len(f->w), ndesc ? 1 : 7);
            CHECK_EQ(kh_cu_data_flags(f->w), 1);
            CHECK_EQ(kh_cu_data_ack_x(f->w), 3);
            CHECK_EQ(kh_cu_data_ack_y(f->w), 3);
            CHECK_EQ(kh_hdr_last(f->w), 0);
            left = (unsigned)kh_cu_data_len(f->w) + 1;
            ndesc++;
        } else {
            CHECK_EQ(kh_hdr_last(f->w), left == 1);
            left--;
            ndata++;
        }
        kh_ubench_inject(cb, f, at);
    }
    CHECK_EQ(ndesc, 2);
    CHECK_EQ(ndata, 2 * T);
    /* the DRAIN is sent only once both bursts are in: between two bursts no
     * stream is open, and a DRAIN would start (a race of the program) */
    if (clb_run_ok(cb) != 1) goto out;
    clb_send(cb, clb_drain(0x8000, T + 1), 0);
    if (clb_run_ok(cb) != 1) goto out;
    /* reference: B's own tile plus A's pass-through lanes (numerics §6.2) */
    mxref_entry ra[512], rb[512];
    uint32_t ta[8][16], tb[8][16];
    for (unsigned e = 0; e < T; e++) mxref_unpack(A1[e], 0, &ra[e]);
    mxref_unpack(B1, 1, &rb[0]);
    mxref_gemm g = {T, 1, 1, 0, 40, 0, 0, 0, 0, 0};
    mxref_sweep(&g, ra, 512, rb, 512, ta, 8, NULL);
    for (unsigned e = 0; e <= T; e++) mxref_unpack(A2[e], 0, &ra[e]);
    mxref_unpack(B2, 1, &rb[0]);
    g.gm = T + 1;
    mxref_sweep(&g, ra, 512, rb, 512, tb, 8, NULL);
    for (unsigned t = 1; t <= T; t++)
        for (unsigned l = 0; l < 16; l++) tb[t][l] = mxref_add(tb[t][l], 0, mxref_add(ta[t - 1][l], 0, 0, 1), 0);
    for (unsigned t = 0; t <= T; t++) {
        uint16_t want[16];
        mxref_drain(tb[t], want);
        for (unsigned e = 0; e < 16; e++)
            if (clb_get_f16(cb, 0x8000 + 32ull * t, e) != want[e])
                kh_test_fail(__FILE__, __LINE__, "sub-tile %u element %u: 0x%04x, reference 0x%04x", t, e,
                             clb_get_f16(cb, 0x8000 + 32ull * t, e), want[e]);
    }
    /* §7: one DATA_RECEIVED per burst to the ack node, arg = buf, txn of the burst */
    unsigned nsig = 0;
    for (size_t i = 0; i < kh_ubench_nout(cb); i++) {
        const kh_flit *f = &kh_ubench_out(cb, i)->f;
        if (kh_hdr_type(f->w) != KH_T_CU_SIGNAL || kh_cu_signal_code(f->w) != KH_SIG_DATA_RECEIVED) continue;
        CHECK_EQ(kh_cu_signal_arg(f->w), 2);
        CHECK_EQ(kh_hdr_dst_x(f->w), 3);
        CHECK_EQ(kh_hdr_dst_y(f->w), 3);
        CHECK_EQ(kh_hdr_src_x(f->w), 2);
        CHECK_EQ(kh_hdr_src_y(f->w), 2);
        CHECK_EQ(kh_hdr_txn(f->w), 0x02);
        CHECK_EQ(kh_hdr_last(f->w), 1);
        nsig++;
    }
    CHECK_EQ(nsig, 2);
out:
    kh_ubench_free(ca);
    kh_ubench_free(cb);
}

int main(void)
{
    KH_RUN(worked_example_end_to_end);
    KH_RUN(tiled_gemm_matches_reference);
    KH_RUN(zero_means_one);
    KH_RUN(emit_and_fused_drain);
    KH_RUN(fused_drain_without_emission_hangs);
    KH_RUN(leader_rule_from_own_coordinate);
    KH_RUN(peers_share_one_fetch);
    KH_RUN(node_drain_peer_add_with_data_received);
    return kh_test_end("t_cluster_unit");
}
