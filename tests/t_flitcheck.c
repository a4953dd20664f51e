/* The validator checklist of flits.md §9: one test per rule, each with a
 * flit that keeps the rule and one that breaks it. */
#include <string.h>

#include "kohaku/flitcheck.h"
#include "kohaku/gen/flit.h"
#include "support/test.h"

static uint64_t errs, warns; /* bit n = rule Vn reported */
static char last_msg[240];

static void collect(void *ctx, const kh_flitcheck_issue *is)
{
    (void)ctx;
    if (is->warn) warns |= UINT64_C(1) << is->rule;
    else errs |= UINT64_C(1) << is->rule;
    memcpy(last_msg, is->msg, sizeof last_msg);
}

static int run(const kh_flit *f, const kh_flitcheck_ctx *x)
{
    errs = warns = 0;
    return kh_flitcheck(f, x, collect, NULL);
}

static kh_flit mk(unsigned type, unsigned last)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_type(f.w, type);
    kh_hdr_set_last(f.w, last);
    kh_hdr_set_dst_x(f.w, 2);
    kh_hdr_set_dst_y(f.w, 2);
    kh_hdr_set_src_x(f.w, 0);
    kh_hdr_set_src_y(f.w, 1);
    return f;
}

#define ERR(n) (errs >> (n) & 1)
#define WARN(n) (warns >> (n) & 1)

static void clean_flits_of_every_type_pass(void)
{
    unsigned lasts[9] = {1, 0, 1, 1, 1, 1, 1, 1, 0};
    for (unsigned t = 0; t <= 8; t++) {
        kh_flit f = mk(t, lasts[t]);
        CHECK_EQ(run(&f, NULL), 0);
        CHECK_EQ(errs | warns, 0);
    }
}

static void v1_type_codes_9_to_f_are_never_sent(void)
{
    for (unsigned t = 9; t <= 15; t++) {
        kh_flit f = mk(t, 1);
        CHECK(run(&f, NULL) >= 1 && ERR(1));
    }
}

static void v2_rsvd_low_bits_zero_without_remote(void)
{
    kh_flit f = mk(KH_HDR_TYPE_CU_SIGNAL, 1);
    kh_hdr_set_rsvd(f.w, 1);
    CHECK(run(&f, NULL) && ERR(2));
    CHECK(strstr(last_msg, "rsvd=1") != NULL);
    f = mk(KH_HDR_TYPE_MEM_RD_RESP, 1);
    kh_hdr_set_rsvd(f.w, 3); /* word index: legal on a read response */
    CHECK_EQ(run(&f, NULL), 0);
}

static void v3_read_response_never_remote(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_RD_RESP, 1);
    kh_hdr_set_rsvd(f.w, 4);
    CHECK(run(&f, NULL) && ERR(3));
}

static void v4_remote_flits(void)
{
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    x.nports = 1, x.port_x[0] = 0, x.port_y[0] = 1;
    kh_flit f = mk(KH_HDR_TYPE_CU_DATA, 0); /* flits.md §10 row 3 */
    kh_hdr_set_dst_x(f.w, 0), kh_hdr_set_dst_y(f.w, 1), kh_hdr_set_src_x(f.w, 2);
    kh_hdr_set_txn(f.w, 0x23), kh_hdr_set_rsvd(f.w, 6);
    kh_cu_data_set_ack_y(f.w, 1);
    CHECK_EQ(run(&f, &x), 0);
    kh_hdr_set_txn(f.w, 0); /* no final node */
    CHECK(run(&f, &x) && ERR(4));
    kh_hdr_set_txn(f.w, 0x23), kh_hdr_set_dst_x(f.w, 3); /* not a port */
    CHECK(run(&f, &x) && ERR(4));
    f = mk(KH_HDR_TYPE_CU_SIGNAL, 1);
    kh_hdr_set_rsvd(f.w, 4), kh_hdr_set_txn(f.w, 1);
    CHECK(run(&f, NULL) && ERR(4));
    f = mk(KH_HDR_TYPE_MEM_WR_DATA, 1); /* legal, but memory requests do not cross */
    kh_hdr_set_rsvd(f.w, 4), kh_hdr_set_txn(f.w, 1);
    CHECK(run(&f, NULL) == 0 && WARN(4));
}

static void v5_cu_inst_rsvd_zero(void)
{
    kh_flit f = mk(KH_HDR_TYPE_CU_INST, 1);
    kh_hdr_set_rsvd(f.w, 4);
    CHECK(run(&f, NULL) && ERR(5));
}

static void v6_single_flit_messages_carry_last(void)
{
    unsigned types[] = {KH_HDR_TYPE_MEM_WR_ACK, KH_HDR_TYPE_CU_SIGNAL, KH_HDR_TYPE_CU_CTRL};
    for (int i = 0; i < 3; i++) {
        kh_flit f = mk(types[i], 0);
        CHECK(run(&f, NULL) && ERR(6));
    }
}

static void v7_write_descriptor_last_zero(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_WR_REQ, 1);
    CHECK(run(&f, NULL) && ERR(7));
}

static void v8_src_is_the_sender(void)
{
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    x.origin = KH_ORIGIN_UNIT, x.know_src = 1, x.src_x = 0, x.src_y = 1;
    kh_flit f = mk(KH_HDR_TYPE_MEM_RD_REQ, 1);
    CHECK_EQ(run(&f, &x), 0);
    x.src_x = 3;
    CHECK(run(&f, &x) && ERR(8));
    x.origin = KH_ORIGIN_MAILBOX; /* the mailbox stamps nothing */
    CHECK_EQ(run(&f, &x), 0);
    x.origin = KH_ORIGIN_DISPATCH, x.nports = 1, x.port_x[0] = 0, x.port_y[0] = 1;
    f = mk(KH_HDR_TYPE_CU_INST, 1);
    CHECK_EQ(run(&f, &x), 0);
    x.port_x[0] = 1;
    CHECK(run(&f, &x) && ERR(8));
}

static void v9_request_addr38_and_tail_zero(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_RD_REQ, 1);
    kh_mem_rd_req_set_addr(f.w, UINT64_C(1) << 38);
    CHECK(run(&f, NULL) && ERR(9));
    f = mk(KH_HDR_TYPE_MEM_WR_REQ, 0);
    f.w[0] = 1; /* payload bit 0 */
    CHECK(run(&f, NULL) && ERR(9));
    kh_mem_wr_req_set_addr(f.w, (UINT64_C(1) << 39) | (UINT64_C(3) << 36)); /* staging of mesh 3 is fine */
    f.w[0] = 0;
    CHECK_EQ(run(&f, NULL), 0);
}

static void v10_read_flags(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_RD_REQ, 1);
    kh_mem_rd_req_set_flags(f.w, 0x08);
    CHECK(run(&f, NULL) && ERR(10));
    kh_mem_rd_req_set_flags(f.w, 0x80);
    CHECK(run(&f, NULL) && ERR(10));
    kh_mem_rd_req_set_flags(f.w, 0x60); /* the older cluster's B fill: BLAYOUT set */
    kh_mem_rd_req_set_entry_words(f.w, 4);
    CHECK(run(&f, NULL) == 0 && WARN(10));
}

static void v11_stream_txn_does_not_wrap(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_RD_REQ, 1);
    kh_mem_rd_req_set_flags(f.w, 0x40), kh_mem_rd_req_set_entry_words(f.w, 4);
    kh_hdr_set_txn(f.w, 0xF0), kh_mem_rd_req_set_count(f.w, 16); /* 0xF0 + 15 = 0xFF */
    CHECK_EQ(run(&f, NULL), 0);
    kh_mem_rd_req_set_count(f.w, 17);
    CHECK(run(&f, NULL) && ERR(11));
    kh_hdr_set_txn(f.w, 0xFF), kh_mem_rd_req_set_count(f.w, 0); /* count 0 means 1 */
    CHECK_EQ(run(&f, NULL), 0);
}

static void v12_stream_entry_words_outside_1_to_4_warns(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_RD_REQ, 1);
    kh_mem_rd_req_set_flags(f.w, 0x40), kh_mem_rd_req_set_entry_words(f.w, 0);
    CHECK(run(&f, NULL) == 0 && WARN(12));
    kh_mem_rd_req_set_entry_words(f.w, 2);
    CHECK(run(&f, NULL) == 0 && !WARN(12));
}

static void v13_write_len_at_most_7(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_WR_REQ, 0);
    kh_mem_wr_req_set_len(f.w, 7);
    CHECK_EQ(run(&f, NULL), 0);
    kh_mem_wr_req_set_len(f.w, 8);
    CHECK(run(&f, NULL) && ERR(13));
    CHECK(strstr(last_msg, "len=8") != NULL);
}

static void v14_write_read_only_fields_warn(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_WR_REQ, 0);
    kh_mem_wr_req_set_count(f.w, 3);
    CHECK(run(&f, NULL) == 0 && WARN(14));
}

static void v15_signal_codes_and_tail(void)
{
    kh_flit f = mk(KH_HDR_TYPE_CU_SIGNAL, 1);
    kh_cu_signal_set_code(f.w, 0x40); /* unit-defined */
    CHECK_EQ(run(&f, NULL), 0);
    kh_cu_signal_set_code(f.w, 0x05);
    CHECK(run(&f, NULL) && ERR(15));
    kh_cu_signal_set_code(f.w, 0x02);
    CHECK(run(&f, NULL) && ERR(15));
    kh_cu_signal_set_code(f.w, 0x03);
    f.w[1] = 1;
    CHECK(run(&f, NULL) && ERR(15));
}

static void v16_framework_codes_not_from_a_unit(void)
{
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    x.origin = KH_ORIGIN_UNIT;
    kh_flit f = mk(KH_HDR_TYPE_CU_SIGNAL, 1);
    kh_cu_signal_set_code(f.w, KH_CU_SIGNAL_CODE_INST_COMPLETE);
    CHECK(run(&f, &x) && ERR(16));
    x.origin = KH_ORIGIN_SHELL;
    CHECK_EQ(run(&f, &x), 0);
    x.origin = KH_ORIGIN_UNIT;
    kh_cu_signal_set_code(f.w, KH_CU_SIGNAL_CODE_DATA_RECEIVED);
    CHECK_EQ(run(&f, &x), 0);
}

static void v17_ctrl_request(void)
{
    kh_flit f = mk(KH_HDR_TYPE_CU_CTRL, 1);
    kh_cu_ctrl_set_op(f.w, 3);
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    x.ctrl = KH_CTRL_REQUEST;
    CHECK(run(&f, &x) && ERR(17));
    kh_cu_ctrl_set_op(f.w, KH_CU_CTRL_OP_WRITE);
    x.dest = KH_DEST_UNIT; /* a unit answers a write as a read */
    CHECK(run(&f, &x) == 0 && WARN(17));
    f.w[0] = 1;
    CHECK(run(&f, &x) && ERR(17));
}

static void v18_ctrl_reply(void)
{
    kh_flit f = mk(KH_HDR_TYPE_CU_CTRL, 1);
    kh_cu_ctrl_reply_set_op(f.w, KH_CU_CTRL_REPLY_OP_READ_RESP);
    kh_cu_ctrl_reply_set_index(f.w, 4);
    CHECK_EQ(run(&f, NULL), 0); /* op 2 decides: a reply */
    kh_cu_ctrl_reply_set_value(f.w, 5);
    CHECK(run(&f, NULL) && ERR(18));
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    x.ctrl = KH_CTRL_REPLY;
    f = mk(KH_HDR_TYPE_CU_CTRL, 1); /* op 0 as a reply */
    CHECK(run(&f, &x) && ERR(18));
}

static void v19_data_descriptor_flags_and_tail(void)
{
    kh_flit f = mk(KH_HDR_TYPE_CU_DATA, 0);
    kh_cu_data_set_flags(f.w, 1);
    CHECK_EQ(run(&f, NULL), 0);
    kh_cu_data_set_flags(f.w, 2);
    CHECK(run(&f, NULL) && ERR(19));
    kh_cu_data_set_flags(f.w, 0);
    f.w[0] = 0x10;
    CHECK(run(&f, NULL) && ERR(19));
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    x.cu_data_data = 1; /* a data flit's 256 bits are free */
    CHECK_EQ(run(&f, &x), 0);
}

static void v20_buffer_3_is_the_staging_adapters(void)
{
    kh_flit f = mk(KH_HDR_TYPE_CU_DATA, 0);
    kh_cu_data_set_buf_id(f.w, 3);
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    CHECK_EQ(run(&f, &x), 0); /* destination unknown: not checked */
    x.dest = KH_DEST_UNIT;
    CHECK(run(&f, &x) && ERR(20));
}

static void v21_remote_burst_names_its_ack(void)
{
    kh_flit f = mk(KH_HDR_TYPE_CU_DATA, 0);
    kh_hdr_set_rsvd(f.w, 4), kh_hdr_set_txn(f.w, 0x32);
    CHECK(run(&f, NULL) && ERR(21));
    kh_cu_data_set_ack_x(f.w, 1);
    CHECK_EQ(run(&f, NULL), 0);
}

static void v22_write_ack_payload_zero(void)
{
    kh_flit f = mk(KH_HDR_TYPE_MEM_WR_ACK, 1);
    kh_mem_wr_ack_set_drop(f.w, 1);
    CHECK(run(&f, NULL) && ERR(22));
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    x.profile_l = 1; /* the drop flag of profile L */
    CHECK_EQ(run(&f, &x), 0);
    f.w[3] = 1;
    CHECK(run(&f, &x) && ERR(22));
}

static void v23_cu_inst_from_the_orchestrator(void)
{
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    kh_flit f = mk(KH_HDR_TYPE_CU_INST, 1);
    x.origin = KH_ORIGIN_UNIT;
    CHECK(run(&f, &x) && ERR(23));
    x.origin = KH_ORIGIN_INTERLINK;
    CHECK_EQ(run(&f, &x), 0);
}

static void skipped_checks_are_named(void)
{
    char s[512];
    kh_flit f = mk(KH_HDR_TYPE_CU_INST, 1);
    kh_flitcheck_skipped(&f, NULL, s, sizeof s);
    CHECK(strstr(s, "V8") && strstr(s, "V23") && strstr(s, "V30-V39"));
    kh_flitcheck_ctx x;
    memset(&x, 0, sizeof x);
    x.origin = KH_ORIGIN_DISPATCH;
    kh_flitcheck_skipped(&f, &x, s, sizeof s);
    CHECK(!strstr(s, "V23"));
    CHECK(strstr(s, "V8")); /* the dispatcher's src is port 0's, unknown here */
    x.nports = 1, x.port_x[0] = 0, x.port_y[0] = 1;
    kh_flitcheck_skipped(&f, &x, s, sizeof s);
    CHECK(!strstr(s, "V8")); /* checked against port 0 */
}

/* ---- stream rules ---- */

static int sent(kh_flitstream *s, const kh_flit *f)
{
    errs = warns = 0;
    return kh_flitstream_sent(s, f, collect, NULL);
}

static int got(kh_flitstream *s, const kh_flit *f)
{
    errs = warns = 0;
    return kh_flitstream_delivered(s, f, collect, NULL);
}

/* A flit from (sx,sy) to (dx,dy). */
static kh_flit fl(unsigned type, unsigned sx, unsigned sy, unsigned dx, unsigned dy, unsigned last)
{
    kh_flit f = mk(type, last);
    kh_hdr_set_src_x(f.w, sx), kh_hdr_set_src_y(f.w, sy), kh_hdr_set_dst_x(f.w, dx), kh_hdr_set_dst_y(f.w, dy);
    return f;
}

static void v30_v31_write_framing(void)
{
    kh_flitstream *s = kh_flitstream_new(NULL);
    kh_flit rq = fl(KH_HDR_TYPE_MEM_WR_REQ, 2, 2, 0, 1, 0);
    kh_mem_wr_req_set_len(rq.w, 1);
    kh_flit d0 = fl(KH_HDR_TYPE_MEM_WR_DATA, 2, 2, 0, 1, 0), d1 = fl(KH_HDR_TYPE_MEM_WR_DATA, 2, 2, 0, 1, 1);
    CHECK_EQ(got(s, &rq) + got(s, &d0) + got(s, &d1), 0);
    CHECK(got(s, &d1) && ERR(31)); /* no open write */
    CHECK_EQ(got(s, &rq), 0);
    CHECK(got(s, &d1) && ERR(30)); /* last on the first of two */
    CHECK(got(s, &rq) && ERR(30)); /* a new write before the old one's data */
    kh_flitstream_free(s);
}

static void v32_v33_v34_cu_data_framing(void)
{
    kh_flitstream *s = kh_flitstream_new(NULL);
    kh_flit de = fl(KH_HDR_TYPE_CU_DATA, 1, 1, 2, 2, 0);
    kh_cu_data_set_len(de.w, 1);
    kh_flit a = fl(KH_HDR_TYPE_CU_DATA, 1, 1, 2, 2, 0), b = fl(KH_HDR_TYPE_CU_DATA, 1, 1, 2, 2, 1);
    CHECK_EQ(got(s, &de) + got(s, &a) + got(s, &b), 0);
    CHECK_EQ(got(s, &de), 0);
    CHECK(got(s, &b) && ERR(32)); /* last on the first data flit */
    CHECK_EQ(got(s, &b), 0);       /* the burst's real end */
    kh_flit other = fl(KH_HDR_TYPE_CU_DATA, 3, 1, 2, 2, 0);
    kh_cu_data_set_len(other.w, 0);
    CHECK_EQ(got(s, &de), 0);
    CHECK(got(s, &other) && ERR(33)); /* second burst into an open receiver */
    /* sender side: no other CU_DATA between a descriptor and its data */
    kh_flitstream *t = kh_flitstream_new(NULL);
    kh_flit elsewhere = fl(KH_HDR_TYPE_CU_DATA, 1, 1, 3, 3, 0);
    CHECK_EQ(sent(t, &de), 0);
    CHECK(sent(t, &elsewhere) && ERR(32));
    kh_flitstream_free(t);
    /* remote burst: rsvd and txn identical on every flit */
    kh_flitstream *u = kh_flitstream_new(NULL);
    kh_flit rd = fl(KH_HDR_TYPE_CU_DATA, 1, 1, 0, 1, 0);
    kh_hdr_set_rsvd(rd.w, 5), kh_hdr_set_txn(rd.w, 0x32), kh_cu_data_set_len(rd.w, 0);
    kh_flit rdd = rd;
    kh_hdr_set_last(rdd.w, 1), kh_hdr_set_txn(rdd.w, 0x33);
    CHECK_EQ(got(u, &rd), 0);
    CHECK(got(u, &rdd) && ERR(34));
    kh_flitstream_free(u);
    kh_flitstream_free(s);
}

static void v35_v36_credit_and_completion_order(void)
{
    kh_flitstream_cfg cfg = {2, 0, 0};
    kh_flitstream *s = kh_flitstream_new(&cfg);
    kh_flit i1 = fl(KH_HDR_TYPE_CU_INST, 0, 1, 2, 2, 0), i2 = i1, i3 = i1;
    kh_hdr_set_txn(i1.w, 1), kh_hdr_set_txn(i2.w, 2), kh_hdr_set_txn(i3.w, 3);
    CHECK_EQ(got(s, &i1) + got(s, &i2), 0);
    CHECK(got(s, &i3) && ERR(35)); /* depth 2 */
    kh_flit c = fl(KH_HDR_TYPE_CU_SIGNAL, 2, 2, 0, 1, 1);
    kh_hdr_set_txn(c.w, 2); /* the oldest is txn 1 */
    CHECK(sent(s, &c) && ERR(36));
    kh_hdr_set_txn(c.w, 2);
    CHECK_EQ(sent(s, &c), 0);
    CHECK(sent(s, &c) && ERR(36)); /* i3 (txn 3) is the oldest now */
    CHECK(sent(s, &c) && ERR(36)); /* nothing outstanding */
    kh_flitstream_free(s);
}

/* A CU_INST delivered past the credit (V35) was taken by the unit, so its
 * completion is due like any other: one V35, no V36 for the completions
 * that follow in order (the live checker found a V36 after every V35 when
 * the over-credit instruction was left uncounted). */
static void v35_an_instruction_past_credit_still_expects_its_completion(void)
{
    kh_flitstream_cfg cfg = {2, 0, 0};
    kh_flitstream *s = kh_flitstream_new(&cfg);
    kh_flit in[5];
    for (unsigned i = 0; i < 5; i++) {
        in[i] = fl(KH_HDR_TYPE_CU_INST, 0, 1, 2, 2, 0);
        kh_hdr_set_txn(in[i].w, 10 + i);
    }
    CHECK_EQ(got(s, &in[0]) + got(s, &in[1]), 0);
    CHECK(got(s, &in[2]) && ERR(35));
    CHECK(got(s, &in[3]) && ERR(35)); /* the ring behind V36 grows past INST_DEPTH */
    kh_flit c = fl(KH_HDR_TYPE_CU_SIGNAL, 2, 2, 0, 1, 1);
    for (unsigned i = 0; i < 4; i++) {
        kh_hdr_set_txn(c.w, 10 + i);
        CHECK_EQ(sent(s, &c), 0);
    }
    CHECK_EQ(got(s, &in[4]), 0); /* credit is back */
    kh_hdr_set_txn(c.w, 14);
    CHECK_EQ(sent(s, &c), 0);
    kh_flitstream_free(s);
}

static void v37_read_budget_warns(void)
{
    kh_flitstream_cfg cfg = {0, 8, 0};
    kh_flitstream *s = kh_flitstream_new(&cfg);
    kh_flit rq = fl(KH_HDR_TYPE_MEM_RD_REQ, 2, 2, 0, 1, 1);
    kh_mem_rd_req_set_flags(rq.w, 0x40), kh_mem_rd_req_set_count(rq.w, 2), kh_mem_rd_req_set_entry_words(rq.w, 4);
    CHECK_EQ(got(s, &rq), 0); /* 8 flits: at the budget */
    CHECK(got(s, &rq) == 0 && WARN(37));
    kh_flitstream_free(s);
}

static void v38_one_ctrl_request_per_unit(void)
{
    kh_flitstream *s = kh_flitstream_new(NULL);
    kh_flit rq = fl(KH_HDR_TYPE_CU_CTRL, 0, 1, 2, 2, 1);
    CHECK_EQ(got(s, &rq), 0);
    CHECK(got(s, &rq) && ERR(38));
    kh_flit rp = fl(KH_HDR_TYPE_CU_CTRL, 2, 2, 0, 1, 1);
    kh_cu_ctrl_reply_set_op(rp.w, 2);
    CHECK_EQ(sent(s, &rp), 0);
    CHECK_EQ(got(s, &rq), 0);
    kh_flitstream_free(s);
}

static void v39_streaming_responses_in_order(void)
{
    kh_flitstream *s = kh_flitstream_new(NULL);
    kh_flit rq = fl(KH_HDR_TYPE_MEM_RD_REQ, 2, 2, 0, 1, 1);
    kh_hdr_set_txn(rq.w, 0x10);
    kh_mem_rd_req_set_flags(rq.w, 0x40), kh_mem_rd_req_set_count(rq.w, 2), kh_mem_rd_req_set_entry_words(rq.w, 2);
    CHECK_EQ(got(s, &rq), 0);
    /* entry 0: txn 0x10 words 0,1; entry 1: txn 0x11 words 0,1; last on word 1 */
    for (unsigned e = 0; e < 2; e++)
        for (unsigned wd = 0; wd < 2; wd++) {
            kh_flit r = fl(KH_HDR_TYPE_MEM_RD_RESP, 0, 1, 2, 2, wd == 1);
            kh_hdr_set_txn(r.w, 0x10 + e), kh_hdr_set_rsvd(r.w, wd);
            CHECK_EQ(sent(s, &r), 0);
        }
    kh_flit r = fl(KH_HDR_TYPE_MEM_RD_RESP, 0, 1, 2, 2, 1);
    CHECK(sent(s, &r) && ERR(39)); /* nothing owed */
    CHECK_EQ(got(s, &rq), 0);
    kh_hdr_set_txn(r.w, 0x10), kh_hdr_set_rsvd(r.w, 1); /* word 1 before word 0 */
    CHECK(sent(s, &r) && ERR(39));
    kh_flitstream_free(s);
}

/* A plain read of len 255 is one AXI burst of 256 beats (flits.md §4.1):
 * 256 responses, last on the final one only, each owed to the requester. */
static void v39_plain_read_of_256_beats(void)
{
    kh_flitstream *s = kh_flitstream_new(NULL);
    kh_flit rq = fl(KH_HDR_TYPE_MEM_RD_REQ, 2, 2, 0, 1, 1);
    kh_hdr_set_txn(rq.w, 0x21);
    kh_mem_rd_req_set_len(rq.w, 255);
    CHECK_EQ(got(s, &rq), 0);
    unsigned bad = 0;
    for (unsigned b = 0; b < 256; b++) {
        kh_flit r = fl(KH_HDR_TYPE_MEM_RD_RESP, 0, 1, 2, 2, b == 255);
        kh_hdr_set_txn(r.w, 0x21);
        bad += (unsigned)sent(s, &r);
    }
    CHECK_EQ(bad, 0);
    kh_flit extra = fl(KH_HDR_TYPE_MEM_RD_RESP, 0, 1, 2, 2, 1);
    kh_hdr_set_txn(extra.w, 0x21);
    CHECK(sent(s, &extra) && ERR(39)); /* the burst is over */
    kh_flitstream_free(s);
}

/* Peers are read only on a streaming read (memory.md §3.1: a plain read
 * has no peers), so a plain read's n_peer charges no peer's budget. */
static void v37_plain_read_charges_no_peer(void)
{
    kh_flitstream_cfg cfg = {0, 4, 0};
    kh_flitstream *s = kh_flitstream_new(&cfg);
    kh_flit rq = fl(KH_HDR_TYPE_MEM_RD_REQ, 2, 2, 0, 1, 1);
    kh_mem_rd_req_set_len(rq.w, 3);
    kh_mem_rd_req_set_n_peer(rq.w, 1);
    kh_mem_rd_req_set_peer0_x(rq.w, 3), kh_mem_rd_req_set_peer0_y(rq.w, 3);
    CHECK_EQ(got(s, &rq), 0);
    CHECK_EQ(warns, 0);
    CHECK_EQ(got(s, &rq), 0); /* 4 more at (2,2): over its budget of 4 ... */
    CHECK(WARN(37) && strstr(last_msg, "(2,2)"));
    kh_flit to_peer = fl(KH_HDR_TYPE_MEM_RD_REQ, 3, 3, 0, 1, 1);
    kh_mem_rd_req_set_len(to_peer.w, 3);
    CHECK_EQ(got(s, &to_peer), 0); /* ... but (3,3) was charged nothing */
    CHECK_EQ(warns, 0);
    kh_flitstream_free(s);
}

int main(void)
{
    KH_RUN(clean_flits_of_every_type_pass);
    KH_RUN(v1_type_codes_9_to_f_are_never_sent);
    KH_RUN(v2_rsvd_low_bits_zero_without_remote);
    KH_RUN(v3_read_response_never_remote);
    KH_RUN(v4_remote_flits);
    KH_RUN(v5_cu_inst_rsvd_zero);
    KH_RUN(v6_single_flit_messages_carry_last);
    KH_RUN(v7_write_descriptor_last_zero);
    KH_RUN(v8_src_is_the_sender);
    KH_RUN(v9_request_addr38_and_tail_zero);
    KH_RUN(v10_read_flags);
    KH_RUN(v11_stream_txn_does_not_wrap);
    KH_RUN(v12_stream_entry_words_outside_1_to_4_warns);
    KH_RUN(v13_write_len_at_most_7);
    KH_RUN(v14_write_read_only_fields_warn);
    KH_RUN(v15_signal_codes_and_tail);
    KH_RUN(v16_framework_codes_not_from_a_unit);
    KH_RUN(v17_ctrl_request);
    KH_RUN(v18_ctrl_reply);
    KH_RUN(v19_data_descriptor_flags_and_tail);
    KH_RUN(v20_buffer_3_is_the_staging_adapters);
    KH_RUN(v21_remote_burst_names_its_ack);
    KH_RUN(v22_write_ack_payload_zero);
    KH_RUN(v23_cu_inst_from_the_orchestrator);
    KH_RUN(skipped_checks_are_named);
    KH_RUN(v30_v31_write_framing);
    KH_RUN(v32_v33_v34_cu_data_framing);
    KH_RUN(v35_v36_credit_and_completion_order);
    KH_RUN(v35_an_instruction_past_credit_still_expects_its_completion);
    KH_RUN(v37_read_budget_warns);
    KH_RUN(v38_one_ctrl_request_per_unit);
    KH_RUN(v39_streaming_responses_in_order);
    KH_RUN(v39_plain_read_of_256_beats);
    KH_RUN(v37_plain_read_charges_no_peer);
    return kh_test_end("t_flitcheck");
}
