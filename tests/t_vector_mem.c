/* VFILL / VDRAIN with the single-word framing (vector.md §1.3, §3, §5.7,
 * §8): request fields, the L1-index tags and their 9th bit, multi-dimension
 * walks with negative strides, the split 40-bit base, L1 wrap, and the peer
 * drain's CU_DATA burst (§8.3). */
#include "vec_kit.h"

static void fill_image(kh_ubench *b, uint64_t addr, unsigned words, uint8_t tag)
{
    for (unsigned i = 0; i < words; i++) {
        uint8_t by[32];
        for (int j = 0; j < 32; j++) by[j] = (uint8_t)(tag + i * 3 + j);
        kh_ubench_mem_write(b, addr + 32ull * i, by, 32);
    }
}

/* One plain one-beat MEM_RD_REQ per word: txn = L1 index[7:0], last 1,
 * len 0, flags 0, to the memory port, src = the unit; words land by tag
 * (crossing L1 word 256 keeps the 9th bit inside the unit). */
static void vfill_sends_one_tagged_read_per_word(void)
{
    kh_ubench *b = vk_bench(0);
    fill_image(b, 0x40000, 64, 0x10);
    vk_desc_base(b, 0, 0x40000);
    vk_desc_dim(b, 0, 0, 64, 4);   /* 4 x 64 B */
    vk_desc_dim(b, 0, 1, 1024, 3); /* x 3 rows of 1 KiB */
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vfill(0, 250)); /* L1 250..261 */
    vk_emit(&p, vk_vbar());
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(kh_ubench_nreq(b), 12);
    vec_core *c = vk_core(b);
    for (unsigned i = 0; i < 12; i++) {
        const kh_flit *f = &kh_ubench_req(b, i)->f;
        uint64_t addr = 0x40000 + 64 * (i % 4) + 1024 * (i / 4);
        CHECK_EQ(kh_hdr_type(f->w), KH_T_MEM_RD_REQ);
        CHECK_EQ(kh_hdr_dst_x(f->w), VK_MEM_X);
        CHECK_EQ(kh_hdr_dst_y(f->w), VK_MEM_Y);
        CHECK_EQ(kh_hdr_src_x(f->w), VK_CU_X);
        CHECK_EQ(kh_hdr_src_y(f->w), VK_CU_Y);
        CHECK_EQ(kh_hdr_txn(f->w), (250 + i) & 0xFF);
        CHECK_EQ(kh_hdr_last(f->w), 1);
        CHECK_EQ(kh_hdr_rsvd(f->w), 0);
        CHECK_EQ(kh_mem_rd_req_addr(f->w), addr);
        CHECK_EQ(kh_mem_rd_req_len(f->w), 0);
        CHECK_EQ(kh_mem_rd_req_flags(f->w), 0);
        uint8_t want[32];
        kh_ubench_mem_read(b, addr, want, 32);
        CHECK_EQ(c->st.l1[250 + i][0] & 0xFF, want[0]);
        CHECK_EQ(c->st.l1[250 + i][3] >> 56, want[31]);
    }
    kh_ubench_free(b);
}

/* VDRAIN: MEM_WR_REQ (txn 1, last 0, len 0) then MEM_WR_DATA (txn 1, last
 * 1) per word, in walk order; a negative stride walks down; L1 wraps at 512. */
static void vdrain_writes_word_by_word(void)
{
    kh_ubench *b = vk_bench(0);
    fill_image(b, 0x40000, 20, 0x30);
    vk_desc1(b, 0, 0x40000, 32, 20);
    vk_desc1(b, 1, 0x60160, -32, 12); /* 0x60160 down to 0x60000 */
    vk_desc1(b, 2, 0x70000, 32, 20);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vfill(0, 500)); /* L1 500..511, 0..7 */
    vk_emit(&p, vk_vbar());
    vk_emit(&p, vk_vdrain(1, 500));
    vk_emit(&p, vk_vdrain(2, 500));
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(vk_last(b).code, 0);
    unsigned nwr = 0;
    for (size_t i = 0; i < kh_ubench_nreq(b); i++) {
        const kh_flit *f = &kh_ubench_req(b, i)->f;
        if (kh_hdr_type(f->w) != KH_T_MEM_WR_REQ) continue;
        CHECK_EQ(kh_hdr_txn(f->w), 1);
        CHECK_EQ(kh_hdr_last(f->w), 0);
        CHECK_EQ(kh_mem_wr_req_len(f->w), 0);
        uint64_t want = nwr < 12 ? 0x60160 - 32ull * nwr : 0x70000 + 32ull * (nwr - 12);
        CHECK_EQ(kh_mem_wr_req_addr(f->w), want);
        nwr++;
    }
    CHECK_EQ(nwr, 32);
    for (unsigned i = 0; i < 20; i++) {
        uint8_t src[32], dst[32];
        kh_ubench_mem_read(b, 0x40000 + 32ull * i, src, 32);
        kh_ubench_mem_read(b, 0x70000 + 32ull * i, dst, 32);
        CHECK(!memcmp(src, dst, 32));
        if (i < 12) {
            kh_ubench_mem_read(b, 0x60160 - 32ull * i, dst, 32);
            CHECK(!memcmp(src, dst, 32));
        }
    }
    kh_ubench_free(b);
}

/* DESC fld 0 joins [68:63] and [245:212]: a 40-bit base reaches the flit. */
static void the_base_is_forty_bits(void)
{
    kh_ubench *b = vk_bench(0);
    vk_desc1(b, 3, 0x8012345600ull, 32, 2);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vfill(3, 0));
    vk_emit(&p, vk_vbar());
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(kh_mem_rd_req_addr(kh_ubench_req(b, 0)->f.w), 0x8012345600ull);
    CHECK_EQ(kh_mem_rd_req_addr(kh_ubench_req(b, 1)->f.w), 0x8012345620ull);
    kh_ubench_free(b);
}

/* §8.3: bit 24 set drains L1 to a peer as one CU_DATA burst; the base is a
 * record {fin, mesh, ack, offset}; bounds give the length. */
static void peer_drain_sends_one_cu_data_burst(void)
{
    kh_ubench *b = vk_bench(0);
    uint64_t rec = 0;
    kh_vec_peer_set_offset(&rec, 0x1234);
    kh_vec_peer_set_ack_x(&rec, 3);
    kh_vec_peer_set_ack_y(&rec, 3);
    vk_desc1(b, 4, rec, 777, 3); /* stride ignored */
    uint64_t remote = 0;
    kh_vec_peer_set_offset(&remote, 8);
    kh_vec_peer_set_mesh(&remote, 2);
    kh_vec_peer_set_fin_x(&remote, 5);
    kh_vec_peer_set_fin_y(&remote, 6);
    vk_desc1(b, 5, remote, 0, 1);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vdrain_peer(4, 510, 1, 2, 7, 1)); /* L1 510, 511, 0 to (1,2) buffer 7 */
    vk_emit(&p, vk_vdrain_peer(5, 3, 4, 0, 2, 0));
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vec_core *c = vk_core(b);
    c->st.l1[510][0] = 0x510;
    c->st.l1[511][0] = 0x511;
    c->st.l1[0][0] = 0x1000;
    c->st.l1[3][0] = 0x3000;
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(vk_last(b).code, 0);
    CHECK_EQ(kh_ubench_nreq(b), 0);
    unsigned n = 0;
    static const uint64_t data[] = {0x510, 0x511, 0x1000};
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_flit *f = &kh_ubench_out(b, i)->f;
        if (kh_hdr_type(f->w) != KH_T_CU_DATA) continue;
        int local = n < 4;
        CHECK_EQ(kh_hdr_dst_x(f->w), local ? 1 : 4);
        CHECK_EQ(kh_hdr_dst_y(f->w), local ? 2 : 0);
        CHECK_EQ(kh_hdr_src_x(f->w), VK_CU_X);
        CHECK_EQ(kh_hdr_txn(f->w), local ? 0 : 0x65);         /* fin {y, x} when remote */
        CHECK_EQ(kh_hdr_rsvd(f->w), local ? 0 : 4 + 2);        /* {1, mesh} */
        if (n == 0 || n == 4) {                                /* descriptors */
            CHECK_EQ(kh_hdr_last(f->w), 0);
            CHECK_EQ(kh_cu_data_buf_id(f->w), local ? 7 : 2);
            CHECK_EQ(kh_cu_data_offset(f->w), local ? 0x1234 : 8);
            CHECK_EQ(kh_cu_data_len(f->w), local ? 2 : 0);
            CHECK_EQ(kh_cu_data_flags(f->w), local ? 1 : 0);
            CHECK_EQ(kh_cu_data_ack_x(f->w), local ? 3 : 0);
            CHECK_EQ(kh_cu_data_ack_y(f->w), local ? 3 : 0);
        } else {
            CHECK_EQ(f->w[0], local ? data[n - 1] : 0x3000u);
            CHECK_EQ(kh_hdr_last(f->w), n == 3 || n == 5);
        }
        n++;
    }
    CHECK_EQ(n, 6);
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(vfill_sends_one_tagged_read_per_word);
    KH_RUN(vdrain_writes_word_by_word);
    KH_RUN(the_base_is_forty_bits);
    KH_RUN(peer_drain_sends_one_cu_data_burst);
    return kh_test_end("t_vector_mem");
}
