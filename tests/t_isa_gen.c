/* The generated accessors (<kohaku/gen/flit.h>, mover.h, regs.h) against the
 * worked examples of the spec. Expected words are written from the spec
 * text (flits.md §2, §4, §10; memory.md §11.1; control.md §2.2, §2.6). */
#include <string.h>

#include "kohaku/flit.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/mover.h"
#include "kohaku/gen/regs.h"
#include "support/test.h"

/* Build a header word with the accessors; H = flit[287:256] = w[4][31:0]. */
static uint64_t header(unsigned dx, unsigned dy, unsigned sx, unsigned sy, unsigned type,
                       unsigned txn, unsigned last, unsigned rsvd)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, dx);
    kh_hdr_set_dst_y(f.w, dy);
    kh_hdr_set_src_x(f.w, sx);
    kh_hdr_set_src_y(f.w, sy);
    kh_hdr_set_type(f.w, type);
    kh_hdr_set_txn(f.w, txn);
    kh_hdr_set_last(f.w, last);
    kh_hdr_set_rsvd(f.w, rsvd);
    CHECK_EQ(f.w[0] | f.w[1] | f.w[2] | f.w[3], 0); /* the payload is untouched */
    return f.w[4];
}

/* flits.md §10, row 1: CU_INST to (3,2) from (0,1), txn 0x2A, last 1. */
static void hdr_worked_cu_inst(void)
{
    CHECK_EQ(header(3, 2, 0, 1, 5, 0x2A, 1, 0), 0x320152A8);
}

/* Row 2: streaming MEM_RD_RESP from (0,1) to (2,2), txn 0x10, word 3, last. */
static void hdr_worked_mem_rd_resp(void)
{
    CHECK_EQ(header(2, 2, 0, 1, 2, 0x10, 1, 3), 0x2201210B);
}

/* Row 3: remote CU_DATA descriptor, mesh 2, final node (3,2) in txn. */
static void hdr_worked_remote_cu_data(void)
{
    CHECK_EQ(header(0, 1, 2, 1, 8, 0x23, 0, 6), 0x01218236);
}

/* Row 4: CU_SIGNAL completion from (3,2) to (0,1), txn 0x2A. */
static void hdr_worked_cu_signal(void)
{
    CHECK_EQ(header(0, 1, 3, 2, 6, 0x2A, 1, 0), 0x013262A8);
}

/* flits.md §10 row 3: the remote descriptor for final node (3,2) carries
 * txn 0x23 = {fin_y, fin_x}; the txn_fin views read and write its halves. */
static void hdr_txn_views_name_the_far_node(void)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_txn(f.w, 0x23);
    CHECK_EQ(kh_hdr_txn_fin_x(f.w), 3);
    CHECK_EQ(kh_hdr_txn_fin_y(f.w), 2);
    kh_flit_clear(&f);
    kh_hdr_set_txn_fin_x(f.w, 3);
    kh_hdr_set_txn_fin_y(f.w, 2);
    CHECK_EQ(kh_hdr_txn(f.w), 0x23);
}

/* kh_flit_set_hdr writes the same four worked words of flits.md §10 and
 * leaves the payload alone. */
static void flit_set_hdr_writes_the_worked_headers(void)
{
    static const struct {
        kh_flit_hdr h;
        uint64_t want;
    } rows[] = {
        {{.dst_x = 3, .dst_y = 2, .src_x = 0, .src_y = 1, .type = 5, .txn = 0x2A, .last = 1}, 0x320152A8},
        {{.dst_x = 2, .dst_y = 2, .src_x = 0, .src_y = 1, .type = 2, .txn = 0x10, .last = 1, .rsvd = 3}, 0x2201210B},
        {{.dst_x = 0, .dst_y = 1, .src_x = 2, .src_y = 1, .type = 8, .txn = 0x23, .rsvd = 6}, 0x01218236},
        {{.dst_x = 0, .dst_y = 1, .src_x = 3, .src_y = 2, .type = 6, .txn = 0x2A, .last = 1}, 0x013262A8},
    };
    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        kh_flit f;
        kh_flit_clear(&f);
        f.w[1] = 0x5A5A;
        kh_flit_set_hdr(&f, &rows[i].h);
        CHECK_EQ(f.w[4], rows[i].want);
        CHECK_EQ(f.w[1], 0x5A5A);
    }
}

/* Decoding the same word gives the fields back, and the rsvd views split
 * rsvd[2] from rsvd[1:0] (flits.md §2.4). */
static void hdr_decode_and_rsvd_views(void)
{
    kh_flit f;
    kh_flit_clear(&f);
    f.w[4] = 0x01218236;
    CHECK_EQ(kh_hdr_dst_x(f.w), 0);
    CHECK_EQ(kh_hdr_dst_y(f.w), 1);
    CHECK_EQ(kh_hdr_src_x(f.w), 2);
    CHECK_EQ(kh_hdr_src_y(f.w), 1);
    CHECK_EQ(kh_hdr_type(f.w), KH_HDR_TYPE_CU_DATA);
    CHECK_EQ(kh_hdr_txn(f.w), 0x23);
    CHECK_EQ(kh_hdr_last(f.w), 0);
    CHECK_EQ(kh_hdr_rsvd(f.w), 6);
    CHECK_EQ(kh_hdr_rsvd_remote(f.w), 1);
    CHECK_EQ(kh_hdr_rsvd_mesh(f.w), 2);
}

/* The type codes of flit.isa agree with enum kh_flit_type (ORDER TYPE). */
static void hdr_type_codes_match_flit_h(void)
{
    CHECK_EQ(KH_HDR_TYPE_MEM_RD_REQ, KH_T_MEM_RD_REQ);
    CHECK_EQ(KH_HDR_TYPE_MEM_WR_REQ, KH_T_MEM_WR_REQ);
    CHECK_EQ(KH_HDR_TYPE_MEM_RD_RESP, KH_T_MEM_RD_RESP);
    CHECK_EQ(KH_HDR_TYPE_MEM_WR_ACK, KH_T_MEM_WR_ACK);
    CHECK_EQ(KH_HDR_TYPE_MEM_WR_DATA, KH_T_MEM_WR_DATA);
    CHECK_EQ(KH_HDR_TYPE_CU_INST, KH_T_CU_INST);
    CHECK_EQ(KH_HDR_TYPE_CU_SIGNAL, KH_T_CU_SIGNAL);
    CHECK_EQ(KH_HDR_TYPE_CU_CTRL, KH_T_CU_CTRL);
    CHECK_EQ(KH_HDR_TYPE_CU_DATA, KH_T_CU_DATA);
    CHECK_EQ(KH_HDR_TYPE_ERROR, KH_T_ERROR);
    CHECK_EQ(KH_MEM_RD_REQ_TYPE, 0x0);
    CHECK_EQ(KH_MEM_WR_REQ_TYPE, 0x1);
    CHECK_EQ(KH_MEM_RD_RESP_TYPE, 0x2);
    CHECK_EQ(KH_MEM_WR_ACK_TYPE, 0x3);
    CHECK_EQ(KH_MEM_WR_DATA_TYPE, 0x4);
    CHECK_EQ(KH_CU_INST_TYPE, 0x5);
    CHECK_EQ(KH_CU_SIGNAL_TYPE, 0x6);
    CHECK_EQ(KH_CU_CTRL_TYPE, 0x7);
    CHECK_EQ(KH_CU_CTRL_REPLY_TYPE, 0x7);
    CHECK_EQ(KH_CU_DATA_TYPE, 0x8);
    CHECK_EQ(KH_CU_DATA_DATA_TYPE, 0x8);
}

/* flits.md §4.1: addr is the whole 40 bits at [255:216], i.e. the top 40
 * bits of w[3]; the 34-bit-with-spare reading would be 64x too high. */
static void mem_rd_req_addr_is_40_bits_at_255_216(void)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_mem_rd_req_set_addr(f.w, UINT64_C(0x123456789A));
    CHECK_EQ(f.w[3], UINT64_C(0x123456789A) << 24);
    CHECK_EQ(f.w[0] | f.w[1] | f.w[2] | f.w[4], 0);
    CHECK_EQ(kh_mem_rd_req_addr(f.w), UINT64_C(0x123456789A));
    /* address bit 37:36 is the mesh id, [35:0] the local offset */
    kh_mem_rd_req_set_addr(f.w, (UINT64_C(2) << 36) | 0x1000);
    CHECK_EQ(kh_mem_rd_req_addr_mesh(f.w), 2);
    CHECK_EQ(kh_mem_rd_req_addr_local(f.w), 0x1000);
    CHECK_EQ(kh_mem_rd_req_addr_aperture(f.w), 0);
    /* staging: aperture bit 39, index 0 */
    kh_mem_rd_req_set_addr(f.w, UINT64_C(1) << 39);
    CHECK_EQ(kh_mem_rd_req_addr_aperture(f.w), 1);
    CHECK_EQ(kh_mem_rd_req_addr_apidx(f.w), 0);
    CHECK_EQ(f.w[3], UINT64_C(1) << 63);
}

/* flits.md §4.1: len [215:208], flags [207:200], count [199:192], peer
 * bytes at [175:168], [183:176], [191:184], n_peer [167:166], entry_words
 * [165:158]; STREAM is flags[6] = flit bit 206. */
static void mem_rd_req_descriptor_fields(void)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_mem_rd_req_set_len(f.w, 3);
    kh_mem_rd_req_set_flags(f.w, 0x40);
    kh_mem_rd_req_set_count(f.w, 5);
    kh_mem_rd_req_set_peer(f.w, 0x332211);
    kh_mem_rd_req_set_n_peer(f.w, 3);
    kh_mem_rd_req_set_entry_words(f.w, 4);
    /* w[3] holds flit[255:192]: len at [23:16], flags [15:8], count [7:0] */
    CHECK_EQ(f.w[3], 0x034005);
    /* w[2] holds flit[191:128]: peer at [63:40], n_peer [39:38], ew [37:30] */
    CHECK_EQ(f.w[2], (UINT64_C(0x332211) << 40) | (UINT64_C(3) << 38) | (UINT64_C(4) << 30));
    CHECK_EQ(kh_mem_rd_req_flag_stream(f.w), 1);
    CHECK_EQ(kh_mem_rd_req_peer0(f.w), 0x11);
    CHECK_EQ(kh_mem_rd_req_peer1(f.w), 0x22);
    CHECK_EQ(kh_mem_rd_req_peer2(f.w), 0x33);
}

/* Wide fields go through word arrays: payload[157:0] of a request. */
static void mem_rd_req_reserved_tail_is_158_bits(void)
{
    kh_flit f;
    uint64_t rsv[3], ones[3] = {~UINT64_C(0), ~UINT64_C(0), ~UINT64_C(0)};
    kh_flit_clear(&f);
    CHECK_EQ(KH_MEM_RD_REQ_RSV_WIDTH, 158);
    kh_mem_rd_req_set_rsv(f.w, ones);
    CHECK_EQ(f.w[0], ~UINT64_C(0));
    CHECK_EQ(f.w[1], ~UINT64_C(0));
    CHECK_EQ(f.w[2], (UINT64_C(1) << 30) - 1);
    CHECK_EQ(f.w[3], 0);
    kh_mem_rd_req_rsv_get(f.w, rsv);
    CHECK_EQ(rsv[2], (UINT64_C(1) << 30) - 1);
}

/* flits.md §4.6 / §5: a completion payload, code at [255:248], arg below. */
static void cu_signal_code_and_arg(void)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_cu_signal_set_code(f.w, KH_CU_SIGNAL_CODE_BATCH_COMPLETE);
    kh_cu_signal_set_arg(f.w, 0x2A);
    CHECK_EQ(f.w[3], (UINT64_C(0x01) << 56) | (UINT64_C(0x2A) << 24));
}

/* flits.md §4.8: CU_CTRL op [255:248], index [247:240], value [239:176]. */
static void cu_ctrl_value_spans_two_words(void)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_cu_ctrl_set_op(f.w, KH_CU_CTRL_OP_WRITE);
    kh_cu_ctrl_set_index(f.w, KH_CU_CTRL_INDEX_CU_DBG);
    kh_cu_ctrl_set_value(f.w, UINT64_C(0x0123456789ABCDEF));
    CHECK_EQ(f.w[3], (UINT64_C(1) << 56) | (UINT64_C(3) << 48) | UINT64_C(0x0123456789AB));
    CHECK_EQ(f.w[2], UINT64_C(0xCDEF) << 48);
    CHECK_EQ(kh_cu_ctrl_value(f.w), UINT64_C(0x0123456789ABCDEF));
    CHECK_EQ(kh_cu_ctrl_reply_op(f.w), 1); /* same bits, other layout */
    CHECK_EQ(KH_CU_CTRL_REPLY_OP_READ_RESP, 2);
}

/* flits.md §4.7: CU_DATA descriptor. */
static void cu_data_descriptor_fields(void)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_cu_data_set_buf_id(f.w, 2);
    kh_cu_data_set_offset(f.w, 0x1234);
    kh_cu_data_set_len(f.w, 7);
    kh_cu_data_set_flags(f.w, 1);
    kh_cu_data_set_ack_y(f.w, 1);
    kh_cu_data_set_ack_x(f.w, 0);
    CHECK_EQ(f.w[3], UINT64_C(0x0212340701100000));
    CHECK_EQ(kh_cu_data_flag_signal(f.w), 1);
}

/* memory.md §11.1: walker header base [43:4], ndim [46:44], XFORM_ID
 * [50:47], XFORM_MODE [58:55]. */
static void mover_hdr_fields(void)
{
    uint64_t r = 0;
    kh_mover_hdr_set_sel(&r, KH_MOVER_HDR_SEL_SRC);
    kh_mover_hdr_set_base(&r, UINT64_C(0x8000000040));
    kh_mover_hdr_set_ndim(&r, 2);
    kh_mover_hdr_set_xform_id(&r, 1);
    kh_mover_hdr_set_xform_mode(&r, 1);
    CHECK_EQ(r, (UINT64_C(0x8000000040) << 4) | (UINT64_C(2) << 44) | (UINT64_C(1) << 47) |
                    (UINT64_C(1) << 55));
}

/* memory.md §11.1: stride [51:20] is signed; count [19:4], dim [3:1]. */
static void mover_dim_signed_stride(void)
{
    uint64_t r = 0;
    kh_mover_dim_set_sel(&r, 1);
    kh_mover_dim_set_dim(&r, 5);
    kh_mover_dim_set_count(&r, 0xFFFF);
    kh_mover_dim_set_stride(&r, (uint64_t)-32);
    CHECK_EQ(r, (UINT64_C(0xFFFFFFE0) << 20) | (UINT64_C(0xFFFF) << 4) | (5 << 1) | 1);
    CHECK(kh_mover_dim_stride_s(&r) == -32);
    kh_mover_dim_set_stride(&r, 0x7FFFFFFF);
    CHECK(kh_mover_dim_stride_s(&r) == 0x7FFFFFFF);
    CHECK_EQ(KH_MOVER_DIM_DIM_MAX, 5);
}

/* memory.md §11.1: ctrl word, flags[3] = register bit 11, burst cap flags[7:5]. */
static void mover_ctrl_flag_views(void)
{
    uint64_t r = 0;
    kh_mover_ctrl_set_mode(&r, KH_MOVER_CTRL_MODE_XFORM);
    kh_mover_ctrl_set_ewidth(&r, KH_MOVER_CTRL_EWIDTH_E16);
    kh_mover_ctrl_set_coalesce(&r, 1);
    kh_mover_ctrl_set_burst_cap(&r, 5);
    kh_mover_ctrl_set_go(&r, 1);
    CHECK_EQ(r, 5 | (1 << 3) | (1 << 11) | (5 << 13) | (1 << 16));
    CHECK_EQ(kh_mover_ctrl_flags(&r), 0xA8);
}

/* control.md §2.2: the CAPS example of a generated 2x2 mesh. */
static void orch_caps_example(void)
{
    uint64_t r = UINT64_C(0x0000000201040120);
    CHECK_EQ(kh_orch_caps_flit_width(&r), 288);
    CHECK_EQ(kh_orch_caps_pos_width(&r), 4);
    CHECK_EQ(kh_orch_caps_grid_lo(&r), 1);
    CHECK_EQ(kh_orch_caps_grid_hi(&r), 2);
}

/* control.md §2.6: a NODE_STATUS word recorded after a saxpy batch
 * (shared/vectors saxpy.jsonl case 0: 0100000040000201). */
static void orch_node_status_word(void)
{
    uint64_t r = UINT64_C(0x0100000040000201);
    CHECK_EQ(kh_orch_node_status_code(&r), 1);
    CHECK_EQ(kh_orch_node_status_arg(&r), 0x40);
    CHECK_EQ(kh_orch_node_status_count(&r), 2);
    CHECK_EQ(kh_orch_node_status_valid(&r), 1);
}

/* control.md §2.2: PROG_STAT run [0], left [16:1], credit [32:17]. */
static void orch_prog_stat_fields(void)
{
    uint64_t r = 0;
    kh_orch_prog_stat_set_run(&r, 1);
    kh_orch_prog_stat_set_left(&r, 3);
    kh_orch_prog_stat_set_credit(&r, 4);
    CHECK_EQ(r, 1 | (3 << 1) | (UINT64_C(4) << 17));
}

/* control.md §5.6: CU_CAPS of the vector core ('VC', version 4, 2 buffers,
 * INST_DEPTH 512). */
static void cu_caps_word(void)
{
    uint64_t r = 0;
    kh_cu_caps_set_cu_type(&r, 0x5643);
    kh_cu_caps_set_cu_version(&r, 4);
    kh_cu_caps_set_n_buffers(&r, 2);
    kh_cu_caps_set_inst_depth(&r, 512);
    CHECK_EQ(r, UINT64_C(0x5643042000000000) | (UINT64_C(512) << 20));
}

/* control.md §7.5: the interlink capability word of mesh 1. */
static void ilink_cap_word(void)
{
    uint64_t r = 0;
    kh_ilink_cap_set_magic(&r, 0x494C);
    kh_ilink_cap_set_version(&r, 2);
    kh_ilink_cap_set_mesh_id(&r, 1);
    kh_ilink_cap_set_max_mesh(&r, 4);
    kh_ilink_cap_set_links(&r, 1);
    CHECK_EQ(r, 0x1412494C);
}

int main(void)
{
    KH_RUN(hdr_worked_cu_inst);
    KH_RUN(hdr_worked_mem_rd_resp);
    KH_RUN(hdr_worked_remote_cu_data);
    KH_RUN(hdr_worked_cu_signal);
    KH_RUN(flit_set_hdr_writes_the_worked_headers);
    KH_RUN(hdr_txn_views_name_the_far_node);
    KH_RUN(hdr_decode_and_rsvd_views);
    KH_RUN(hdr_type_codes_match_flit_h);
    KH_RUN(mem_rd_req_addr_is_40_bits_at_255_216);
    KH_RUN(mem_rd_req_descriptor_fields);
    KH_RUN(mem_rd_req_reserved_tail_is_158_bits);
    KH_RUN(cu_signal_code_and_arg);
    KH_RUN(cu_ctrl_value_spans_two_words);
    KH_RUN(cu_data_descriptor_fields);
    KH_RUN(mover_hdr_fields);
    KH_RUN(mover_dim_signed_stride);
    KH_RUN(mover_ctrl_flag_views);
    KH_RUN(orch_caps_example);
    KH_RUN(orch_node_status_word);
    KH_RUN(orch_prog_stat_fields);
    KH_RUN(cu_caps_word);
    KH_RUN(ilink_cap_word);
    return kh_test_end("t_isa_gen");
}
