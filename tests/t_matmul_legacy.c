/* mx_matmul_cu (matmul_saxpy.md §1): BLOCK loads or accumulates one 4x4
 * sub-tile from one A and one B entry, EMIT writes it as FP16. The entries
 * are packed here from numerics §2.2; the expected sub-tiles are the worked
 * example of numerics §5-§7 and, for random entries, integer dot products
 * computed here scaled through the FP22 arithmetic of numerics §5-§7. */
#include "vec_kit.h"

#include "kohaku/gen/matmul.h"
#include "kohaku/num.h"

#define A_AT 0x2000u
#define B_AT 0x3000u
#define O_AT 0x9000u

/* numerics §2.2: word w, slot o at [255-7o : 249-7o]; A packing slot o =
 * lane o/8, k = 8w + o%8; B packing lane o%4, k = 8w + o/4; scale of lane L
 * at [31-8L : 24-8L] in every word. */
static void pack(const int q[4][32], const uint8_t sc[4], int bpack, uint8_t out[128])
{
    memset(out, 0, 128);
    for (unsigned w = 0; w < 4; w++) {
        uint64_t word[4] = {0, 0, 0, 0};
        for (unsigned o = 0; o < 32; o++) {
            unsigned lane = bpack ? o % 4 : o / 8, k = 8 * w + (bpack ? o / 4 : o % 8);
            kh_bits_set(word, 249 - 7 * o, 7, (uint64_t)(q[lane][k] & 0x7F));
        }
        for (unsigned l = 0; l < 4; l++) kh_bits_set(word, 24 - 8 * l, 8, sc[l]);
        for (unsigned i = 0; i < 32; i++) out[32 * w + i] = (uint8_t)(word[i / 8] >> (8 * (i % 8)));
    }
}

static void put_entry(kh_ubench *b, uint64_t at, const int q[4][32], const uint8_t sc[4], int bpack)
{
    uint8_t bytes[128];
    pack(q, sc, bpack, bytes);
    kh_ubench_mem_write(b, at, bytes, 128);
}

static void inst(kh_ubench *b, unsigned op, uint64_t a, uint64_t bb, unsigned tile, unsigned first)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_matmul_set_op(f.w, op);
    kh_matmul_set_addr_a(f.w, a);
    kh_matmul_set_addr_b(f.w, bb);
    kh_matmul_set_tile(f.w, tile);
    kh_matmul_set_first(f.w, first);
    kh_matmul_set_anchor(f.w, 40);
    kh_ubench_inst(b, &f, 0x21, 0);
}

static int QA[4][32], QB[4][32];

/* numerics §5 and §6.2: C = 798 with A byte 0x7D, B byte 0x71 -> FP22
 * 0x0F9B2E -> FP16 0x39B3; then C = -123 with 0x80 / 0x71 added -> 0x389E. */
static void worked_example_block_then_accumulate(void)
{
    kh_ubench *b = vk_bench_kind(&kh_unit_matmul, 0);
    memset(QA, 0, sizeof QA);
    memset(QB, 0, sizeof QB);
    QA[0][0] = 38;
    QB[0][0] = 21;
    const uint8_t sa1[4] = {0x7D, 0xA0, 0xA0, 0xA0}, sb1[4] = {0x71, 0xA0, 0xA0, 0xA0};
    put_entry(b, A_AT, QA, sa1, 0);
    put_entry(b, B_AT, QB, sb1, 1);
    QA[0][0] = -41;
    QB[0][0] = 3;
    const uint8_t sa2[4] = {0x80, 0xA0, 0xA0, 0xA0};
    put_entry(b, A_AT + 0x100, QA, sa2, 0);
    put_entry(b, B_AT + 0x100, QB, sb1, 1);
    inst(b, KH_MATMUL_OP_BLOCK, A_AT, B_AT, 3, 1);
    inst(b, KH_MATMUL_OP_EMIT, O_AT, 0, 3, 0);
    inst(b, KH_MATMUL_OP_BLOCK, A_AT + 0x100, B_AT + 0x100, 3, 0);
    inst(b, KH_MATMUL_OP_EMIT, O_AT + 32, 0, 3, 0);
    vk_go(b);
    CHECK_EQ(vk_rd_f16(b, O_AT), 0x39B3);
    CHECK_EQ(vk_rd_f16(b, O_AT + 32), 0x389E);
    for (unsigned e = 1; e < 16; e++) CHECK_EQ(vk_rd_f16(b, O_AT + 2 * e), 0);
    /* exec_result: {0, blocks} for BLOCK, {1, emits} for EMIT */
    static const uint32_t args[4] = {1, 0x10001, 2, 0x10002};
    for (unsigned i = 0; i < 4; i++) {
        vk_comp c;
        CHECK(vk_completion(b, i, &c));
        CHECK_EQ(c.code, 0);
        CHECK_EQ(c.arg, args[i]);
    }
    kh_ubench_free(b);
}

/* Random full entries, two blocks into one tile: each lane (i, j) is the
 * integer dot product of A row i and B column j, scaled and accumulated. */
static void random_blocks_against_dot_products(void)
{
    kh_ubench *b = vk_bench_kind(&kh_unit_matmul, 0);
    uint32_t seed = 7, want[16];
    for (unsigned blk = 0; blk < 2; blk++) {
        uint8_t sa[4], sb[4];
        for (unsigned l = 0; l < 4; l++) {
            for (unsigned k = 0; k < 32; k++) {
                seed = seed * 1103515245u + 12345u;
                QA[l][k] = (int)((seed >> 16) % 127) - 63;
                seed = seed * 1103515245u + 12345u;
                QB[l][k] = (int)((seed >> 16) % 127) - 63;
            }
            seed = seed * 1103515245u + 12345u;
            sa[l] = (uint8_t)(0x60 + (seed >> 20) % 0x40);
            sb[l] = (uint8_t)(0x60 + (seed >> 12) % 0x40);
        }
        put_entry(b, A_AT + 0x100 * blk, QA, sa, 0);
        put_entry(b, B_AT + 0x100 * blk, QB, sb, 1);
        for (unsigned i = 0; i < 4; i++)
            for (unsigned j = 0; j < 4; j++) {
                int32_t c = 0;
                for (unsigned k = 0; k < 32; k++) c += QA[i][k] * QB[j][k];
                uint32_t ch = kh_acc_from_product(c, sa[i], sb[j], 40, 14);
                want[4 * i + j] = blk ? kh_acc_add(want[4 * i + j], 0, ch, 0, 14) : kh_acc_add(0, 1, ch, 0, 14);
            }
        inst(b, KH_MATMUL_OP_BLOCK, A_AT + 0x100 * blk, B_AT + 0x100 * blk, 15, blk == 0);
    }
    inst(b, 7, O_AT, 0, 15, 0); /* any opcode other than 1 is EMIT */
    vk_go(b);
    for (unsigned e = 0; e < 16; e++)
        CHECK_EQ(vk_rd_f16(b, O_AT + 2 * e), kh_acc_to_f16(kh_acc_add(want[e], 0, 0, 1, 14), 14));
    kh_ubench_free(b);
}

/* §1.5: plain 4-beat reads (txn 1, last 1, len 3), A before B; EMIT writes
 * one descriptor (txn 2, last 0, len 0) and one data flit (txn 2, last 1).
 * Intended framing: the 34-bit address as a byte address, data typed
 * MEM_WR_DATA. rtl_compat: 64x the address, data typed MEM_WR_REQ. */
static void framing_intended_and_recorded(void)
{
    for (int compat = 0; compat < 2; compat++) {
        kh_ubench *b = vk_bench_kind(&kh_unit_matmul, compat);
        inst(b, KH_MATMUL_OP_BLOCK, A_AT, B_AT, 0, 1);
        inst(b, KH_MATMUL_OP_EMIT, O_AT, 0, 0, 0);
        char err[300];
        kh_ubench_run(b, 10000, err, sizeof err); /* compat leaves the write open */
        uint64_t k = compat ? 64 : 1;
        CHECK(kh_ubench_nreq(b) >= 3);
        const kh_flit *ra = &kh_ubench_req(b, 0)->f, *rb = &kh_ubench_req(b, 1)->f,
                      *wr = &kh_ubench_req(b, 2)->f;
        CHECK_EQ(kh_hdr_type(ra->w), KH_T_MEM_RD_REQ);
        CHECK_EQ(kh_hdr_txn(ra->w), 1);
        CHECK_EQ(kh_hdr_last(ra->w), 1);
        CHECK_EQ(kh_mem_rd_req_len(ra->w), 3);
        CHECK_EQ(kh_mem_rd_req_addr(ra->w), A_AT * k);
        CHECK_EQ(kh_mem_rd_req_addr(rb->w), B_AT * k);
        CHECK_EQ(kh_hdr_type(wr->w), KH_T_MEM_WR_REQ);
        CHECK_EQ(kh_hdr_txn(wr->w), 2);
        CHECK_EQ(kh_hdr_last(wr->w), 0);
        CHECK_EQ(kh_mem_wr_req_addr(wr->w), O_AT * k);
        CHECK_EQ(kh_mem_wr_req_len(wr->w), 0);
        if (compat) { /* the data flit is recorded as a second MEM_WR_REQ */
            CHECK_EQ(kh_ubench_nreq(b), 4);
            CHECK_EQ(kh_hdr_last(kh_ubench_req(b, 3)->f.w), 1);
            CHECK_EQ(kh_ubench_nwrites(b), 0);
        } else {
            CHECK_EQ(kh_ubench_nreq(b), 3);
            CHECK_EQ(kh_ubench_nwrites(b), 1);
            CHECK_EQ(kh_ubench_writes(b, 0)->addr, O_AT);
        }
        kh_ubench_free(b);
    }
}

int main(void)
{
    KH_RUN(worked_example_block_then_accumulate);
    KH_RUN(random_blocks_against_dot_products);
    KH_RUN(framing_intended_and_recorded);
    return kh_test_end("t_matmul_legacy");
}
