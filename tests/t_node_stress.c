/* Random traffic at two memory ports with a sink that refuses at random:
 * every write lands and is acked exactly once, every streaming read reaches
 * every destination once per word with the right tags (memory.md §3-§5). */
#include "node_rig.h"

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

static void random_writes_then_reads(void)
{
    rig r;
    rig_init(&r, NULL, 2, 0, 0);
    for (int p = 0; p < 2; p++) r.sink[p]->refuse_mod = 3;
    uint64_t seed = 99;
    /* Phase 1: 12 sources (6 per port) each write 4 bursts to their own
     * region, interleaved flit by flit across sources. */
    enum { NS = 12, NB = 4 };
    unsigned len[NS][NB];
    unsigned pos[NS] = {0}, burst[NS] = {0};
    for (int s = 0; s < NS; s++)
        for (int b = 0; b < NB; b++) len[s][b] = rnd(&seed) % 8;
    int left = NS;
    while (left) {
        int s = (int)(rnd(&seed) % NS);
        if (burst[s] == NB) continue;
        unsigned b = burst[s], sx = 2 + (unsigned)s % 6, sy = 1 + (unsigned)s / 6 * 2, port = (unsigned)s / 6;
        uint64_t a = 0x100000ull * (unsigned)(s + 1) + 0x1000ull * b;
        kh_flit f = pos[s] == 0 ? mk_wr(sx, sy, a, len[s][b], (unsigned)(s * 16) + b)
                                : mk_data(sx, sy, (uint64_t)s * 100 + b, pos[s] - 1, pos[s] - 1 == len[s][b]);
        tep_send(r.src[port], &f);
        if (++pos[s] == len[s][b] + 2) {
            pos[s] = 0;
            if (++burst[s] == NB) left--;
        }
    }
    rig_run(&r);
    unsigned acks[NS][NB] = {{0}};
    for (int p = 0; p < 2; p++)
        for (unsigned i = 0; i < r.sink[p]->ngot; i++) {
            kh_flit *f = &r.sink[p]->got[i];
            CHECK_EQ(kh_hdr_type(f->w), KH_T_MEM_WR_ACK);
            unsigned t = (unsigned)kh_hdr_txn(f->w);
            if (t / 16 < NS && t % 16 < NB) acks[t / 16][t % 16]++;
        }
    for (int s = 0; s < NS; s++)
        for (int b = 0; b < NB; b++) {
            CHECK_EQ(acks[s][b], 1);
            for (unsigned k = 0; k <= len[s][b]; k++) {
                uint64_t w[4];
                kh_flit d = mk_data(0, 0, (uint64_t)s * 100 + (unsigned)b, k, 0);
                host_get_word(&r, 0x100000ull * (unsigned)(s + 1) + 0x1000ull * (unsigned)b + 32 * k, w);
                CHECK(!memcmp(w, d.w, 32));
            }
        }
    /* Phase 2: streaming reads with peers from both ports; count per
     * (destination, txn, word). */
    for (int p = 0; p < 2; p++) r.sink[p]->ngot = 0;
    enum { NR = 40 };
    unsigned n[NR], ew[NR], np[NR], port[NR];
    uint64_t base[NR];
    for (int q = 0; q < NR; q++) {
        n[q] = 1 + rnd(&seed) % 4;
        ew[q] = 1 + rnd(&seed) % 4;
        np[q] = rnd(&seed) % 4;
        port[q] = (unsigned)q % 2;
        int s = (int)(rnd(&seed) % NS);
        base[q] = 0x100000ull * (unsigned)(s + 1);
        kh_flit f = mk_stream(9, (unsigned)q % 16, base[q], n[q], ew[q], (unsigned)q * 6);
        kh_mem_rd_req_set_n_peer(f.w, np[q]);
        kh_mem_rd_req_set_peer0_x(f.w, 10); /* peers at x = 10, 11, 12, same row */
        kh_mem_rd_req_set_peer1_x(f.w, 11);
        kh_mem_rd_req_set_peer2_x(f.w, 12);
        kh_mem_rd_req_set_peer0_y(f.w, (unsigned)q % 16);
        kh_mem_rd_req_set_peer1_y(f.w, (unsigned)q % 16);
        kh_mem_rd_req_set_peer2_y(f.w, (unsigned)q % 16);
        tep_send(r.src[port[q]], &f);
    }
    rig_run(&r);
    static unsigned seen[NR][4][4][4];
    memset(seen, 0, sizeof seen);
    for (int p = 0; p < 2; p++)
        for (unsigned i = 0; i < r.sink[p]->ngot; i++) {
            kh_flit *f = &r.sink[p]->got[i];
            unsigned t = (unsigned)kh_hdr_txn(f->w), q = t / 6, e = t % 6, dx = (unsigned)kh_hdr_dst_x(f->w);
            unsigned d = dx == 9 ? 0 : dx - 9, wd = (unsigned)kh_hdr_rsvd_word(f->w);
            if (q >= NR || e >= n[q] || d > np[q] || wd >= ew[q] || (unsigned)p != port[q]) {
                CHECK(0);
                continue;
            }
            CHECK_EQ(kh_hdr_dst_y(f->w), q % 16);
            CHECK_EQ(kh_hdr_last(f->w), wd == ew[q] - 1);
            uint64_t w[4];
            host_get_word(&r, base[q] + 32ull * (e * ew[q] + wd), w);
            CHECK(!memcmp(f->w, w, 32));
            seen[q][e][d][wd]++;
        }
    for (int q = 0; q < NR; q++)
        for (unsigned e = 0; e < n[q]; e++)
            for (unsigned d = 0; d <= np[q]; d++)
                for (unsigned wd = 0; wd < ew[q]; wd++) CHECK_EQ(seen[q][e][d][wd], 1);
    char buf[2048];
    CHECK_EQ(rig_stuck(&r, buf, sizeof buf), 0);
    rig_free(&r);
}

int main(void)
{
    KH_RUN(random_writes_then_reads);
    return kh_test_end("t_node_stress");
}
