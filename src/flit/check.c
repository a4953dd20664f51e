/* Per-flit checks V1-V23 of flits.md §9, through the accessors generated
 * from isa/flit.isa. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "flit/findings.h"
#include "kohaku/gen/flit.h"

void kh_finding(kh_findings *o, unsigned rule, int warn, const char *fmt, ...)
{
    kh_flitcheck_issue is;
    int k;
    va_list ap;
    is.rule = rule;
    is.warn = warn;
    k = snprintf(is.msg, sizeof is.msg, "V%u ", rule);
    va_start(ap, fmt);
    vsnprintf(is.msg + k, sizeof is.msg - (size_t)k, fmt, ap);
    va_end(ap);
    if (!warn) o->errors++;
    if (o->report) o->report(o->rctx, &is);
}

static const char *type_name(unsigned t)
{
    static const char *const names[16] = {
        "MEM_RD_REQ", "MEM_WR_REQ", "MEM_RD_RESP", "MEM_WR_ACK", "MEM_WR_DATA", "CU_INST",
        "CU_SIGNAL", "CU_CTRL", "CU_DATA", "type 0x9", "type 0xA", "type 0xB", "type 0xC",
        "type 0xD", "type 0xE", "ERROR"};
    return names[t & 15];
}

/* Is the wide field (n words read by get) all zero? */
static int zero_words(const uint64_t *v, unsigned n)
{
    uint64_t acc = 0;
    for (unsigned i = 0; i < n; i++) acc |= v[i];
    return acc == 0;
}

static int is_port(const kh_flitcheck_ctx *x, unsigned px, unsigned py)
{
    for (unsigned i = 0; i < x->nports && i < KH_FLITCHECK_MAX_PORTS; i++)
        if (x->port_x[i] == px && x->port_y[i] == py) return 1;
    return 0;
}

static void check_header(kh_findings *c, const kh_flit *f, const kh_flitcheck_ctx *x)
{
    const uint64_t *w = f->w;
    unsigned type = (unsigned)kh_hdr_type(w), rsvd = (unsigned)kh_hdr_rsvd(w);
    unsigned remote = (unsigned)kh_hdr_rsvd_remote(w), low = (unsigned)kh_hdr_rsvd_mesh(w);
    unsigned last = (unsigned)kh_hdr_last(w), txn = (unsigned)kh_hdr_txn(w);
    if (type >= 0x9)
        kh_finding(c, 1, 0, "type=0x%X is %s: never sent (flits.md §3)", type,
              type == 0xF ? "ERROR, declared and unimplemented" : "unallocated");
    if (!remote && low && type != KH_HDR_TYPE_MEM_RD_RESP)
        kh_finding(c, 2, 0, "%s rsvd=%u: rsvd[1:0] must be 0 without the remote marker (flits.md §2.4)",
              type_name(type), rsvd);
    if (type == KH_HDR_TYPE_MEM_RD_RESP && remote)
        kh_finding(c, 3, 0, "MEM_RD_RESP rsvd=%u: a read response never carries rsvd[2] (flits.md §2.4)", rsvd);
    if (remote) {
        if (type != KH_HDR_TYPE_CU_DATA && type != KH_HDR_TYPE_MEM_WR_REQ &&
            type != KH_HDR_TYPE_MEM_WR_DATA)
            kh_finding(c, 4, 0, "%s rsvd=%u: only CU_DATA and MEM_WR_* may carry the remote marker (flits.md §7)",
                  type_name(type), rsvd);
        else if (type != KH_HDR_TYPE_CU_DATA)
            kh_finding(c, 4, 1, "%s rsvd=%u: a remote memory write; memory requests do not cross meshes "
                  "(flits.md open point 3)", type_name(type), rsvd);
        if (txn == 0)
            kh_finding(c, 4, 0, "%s txn=0x00 with rsvd[2]=1: txn must name the final node {fin_y,fin_x} (flits.md §7)",
                  type_name(type));
        if (x && x->nports && !is_port(x, (unsigned)kh_hdr_dst_x(w), (unsigned)kh_hdr_dst_y(w)))
            kh_finding(c, 4, 0, "%s dst=(%u,%u) with rsvd[2]=1 is not a memory port of this mesh (flits.md §7)",
                  type_name(type), (unsigned)kh_hdr_dst_x(w), (unsigned)kh_hdr_dst_y(w));
    }
    if (type == KH_HDR_TYPE_CU_INST && rsvd)
        kh_finding(c, 5, 0, "CU_INST rsvd=%u must be 0 (instruction-encoding.md §5)", rsvd);
    if ((type == KH_HDR_TYPE_MEM_WR_ACK || type == KH_HDR_TYPE_CU_SIGNAL || type == KH_HDR_TYPE_CU_CTRL) &&
        !last)
        kh_finding(c, 6, 0, "%s last=0: single-flit messages carry last=1 (flits.md §2.3)", type_name(type));
    if (type == KH_HDR_TYPE_MEM_WR_REQ && last)
        kh_finding(c, 7, 0, "MEM_WR_REQ last=1: the burst continues, last must be 0 (flits.md §2.3)");
    if (x && x->origin != KH_ORIGIN_UNKNOWN && x->origin != KH_ORIGIN_MAILBOX &&
        x->origin != KH_ORIGIN_INTERLINK) {
        unsigned sx = (unsigned)kh_hdr_src_x(w), sy = (unsigned)kh_hdr_src_y(w);
        if (x->origin == KH_ORIGIN_DISPATCH) {
            if (x->nports && (sx != x->port_x[0] || sy != x->port_y[0]))
                kh_finding(c, 8, 0, "%s src=(%u,%u) from the dispatcher must be memory port 0 (%u,%u) (flits.md §2.1)",
                      type_name(type), sx, sy, x->port_x[0], x->port_y[0]);
        } else if (x->know_src && (sx != x->src_x || sy != x->src_y)) {
            kh_finding(c, 8, 0, "%s src=(%u,%u) is not the sender's own coordinate (%u,%u) (flits.md §2.1)",
                  type_name(type), sx, sy, x->src_x, x->src_y);
        }
    }
    if (type == KH_HDR_TYPE_CU_INST && x && x->origin != KH_ORIGIN_UNKNOWN &&
        x->origin != KH_ORIGIN_DISPATCH && x->origin != KH_ORIGIN_MAILBOX &&
        x->origin != KH_ORIGIN_INTERLINK && x->origin != KH_ORIGIN_CPU) /* the processor's dispatch region, cpu.md §4.5 */
        kh_finding(c, 23, 0, "CU_INST injected by something other than the orchestrator, the node processor or an "
                             "interlink (flits.md §9)");
}

static void check_mem_req(kh_findings *c, const uint64_t *w, int write)
{
    uint64_t rsv[3];
    const char *tn = write ? "MEM_WR_REQ" : "MEM_RD_REQ";
    if (kh_mem_rd_req_addr_rsv38(w))
        kh_finding(c, 9, 0, "%s addr=0x%010llx: address bit 38 (flit bit 254) must be 0 (flits.md §4.1)", tn,
              (unsigned long long)kh_mem_rd_req_addr(w));
    kh_mem_rd_req_rsv_get(w, rsv);
    if (!zero_words(rsv, 3))
        kh_finding(c, 9, 0, "%s rsv=0x%08llx%016llx%016llx: payload[157:0] must be 0 (flits.md §4.1)", tn,
              (unsigned long long)rsv[2], (unsigned long long)rsv[1], (unsigned long long)rsv[0]);
    if (write) {
        if (kh_mem_wr_req_len(w) > KH_MEM_WR_REQ_LEN_MAX)
            kh_finding(c, 13, 0, "MEM_WR_REQ len=%llu exceeds 7: a write is at most 8 beats (flits.md §4.1)",
                  (unsigned long long)kh_mem_wr_req_len(w));
        if (kh_mem_wr_req_flags(w) || kh_mem_wr_req_count(w) || kh_mem_wr_req_peer(w) ||
            kh_mem_wr_req_n_peer(w) || kh_mem_wr_req_entry_words(w))
            kh_finding(c, 14, 1, "MEM_WR_REQ flags=0x%02llx count=%llu peer=0x%06llx n_peer=%llu entry_words=%llu: "
                  "read on MEM_RD_REQ only, should be 0 (flits.md §4.1)",
                  (unsigned long long)kh_mem_wr_req_flags(w), (unsigned long long)kh_mem_wr_req_count(w),
                  (unsigned long long)kh_mem_wr_req_peer(w), (unsigned long long)kh_mem_wr_req_n_peer(w),
                  (unsigned long long)kh_mem_wr_req_entry_words(w));
        return;
    }
    unsigned flags = (unsigned)kh_mem_rd_req_flags(w);
    if (kh_mem_rd_req_flag_rsv3(w) || kh_mem_rd_req_flag_rsv7(w))
        kh_finding(c, 10, 0, "MEM_RD_REQ flags=0x%02x: flags bits 3 and 7 are unallocated and must be 0 (flits.md §4.1.1)",
              flags);
    if (kh_mem_rd_req_flag_quant(w) || kh_mem_rd_req_flag_blayout(w))
        kh_finding(c, 10, 1, "MEM_RD_REQ flags=0x%02x: bits 4/5 (QUANT, BLAYOUT) are reserved and ignored; "
              "the read is untransformed (flits.md §4.1.1)", flags);
    if (kh_mem_rd_req_flag_stream(w)) {
        unsigned txn = (unsigned)kh_hdr_txn(w), count = (unsigned)kh_mem_rd_req_count(w);
        unsigned ew = (unsigned)kh_mem_rd_req_entry_words(w);
        unsigned eff = count ? count : 1;
        if (txn + eff - 1 > 255)
            kh_finding(c, 11, 0, "MEM_RD_REQ txn=0x%02x count=%u: txn + count - 1 = %u passes 255 (flits.md §9)",
                  txn, count, txn + eff - 1);
        if (ew < 1 || ew > 4)
            kh_finding(c, 12, 1, "MEM_RD_REQ entry_words=%u: legal, but means 4 (flits.md §4.1)", ew);
    }
}

static void check_payload(kh_findings *c, const kh_flit *f, const kh_flitcheck_ctx *x)
{
    const uint64_t *w = f->w;
    unsigned type = (unsigned)kh_hdr_type(w);
    uint64_t big[4];
    switch (type) {
    case KH_HDR_TYPE_MEM_RD_REQ:
        check_mem_req(c, w, 0);
        break;
    case KH_HDR_TYPE_MEM_WR_REQ:
        check_mem_req(c, w, 1);
        break;
    case KH_HDR_TYPE_CU_SIGNAL: {
        unsigned code = (unsigned)kh_cu_signal_code(w);
        kh_cu_signal_rsv_get(w, big);
        if (!zero_words(big, 4))
            kh_finding(c, 15, 0, "CU_SIGNAL code=0x%02x: payload[215:0] must be 0 (flits.md §4.6)", code);
        if (code >= 0x05 && code <= 0x3F)
            kh_finding(c, 15, 0, "CU_SIGNAL code=0x%02x is reserved to the framework (flits.md §5)", code);
        if (code == KH_CU_SIGNAL_CODE_BARRIER_REACHED)
            kh_finding(c, 15, 0, "CU_SIGNAL code=0x02 BARRIER_REACHED is allocated and never emitted (flits.md §5)");
        int fw = code == KH_CU_SIGNAL_CODE_INST_COMPLETE || code == KH_CU_SIGNAL_CODE_BATCH_COMPLETE ||
                 code == KH_CU_SIGNAL_CODE_FAULT;
        if (fw && x && x->origin == KH_ORIGIN_UNIT)
            kh_finding(c, 16, 0, "CU_SIGNAL code=0x%02x from a unit's send path: only the framework emits it (flits.md §5)",
                  code);
        break;
    }
    case KH_HDR_TYPE_CU_CTRL: {
        unsigned op = (unsigned)kh_cu_ctrl_op(w);
        int reply = x && x->ctrl != KH_CTRL_BY_OP ? x->ctrl == KH_CTRL_REPLY : op == KH_CU_CTRL_REPLY_OP_READ_RESP;
        kh_cu_ctrl_rsv_get(w, big);
        if (!reply) {
            if (op > KH_CU_CTRL_OP_WRITE)
                kh_finding(c, 17, 0, "CU_CTRL request op=0x%02x is neither 0 (read) nor 1 (write) (flits.md §4.8)", op);
            if (!zero_words(big, 3))
                kh_finding(c, 17, 0, "CU_CTRL request: payload[175:0] must be 0 (flits.md §4.8)");
            if (op == KH_CU_CTRL_OP_WRITE && x && x->dest == KH_DEST_UNIT)
                kh_finding(c, 17, 1, "CU_CTRL op=1 to a compute unit performs a read: compare the reply (flits.md open point 6)");
        } else {
            if (op != KH_CU_CTRL_REPLY_OP_READ_RESP)
                kh_finding(c, 18, 0, "CU_CTRL reply op=0x%02x must be 0x02 (flits.md §4.8)", op);
            if (!zero_words(big, 3))
                kh_finding(c, 18, 0, "CU_CTRL reply: payload[175:0] must be 0 (flits.md §4.8)");
            if (kh_cu_ctrl_reply_index(w) >= 4 && kh_cu_ctrl_reply_value(w))
                kh_finding(c, 18, 0, "CU_CTRL reply index=%llu value=0x%llx: indices 4-255 read 0 (control.md §5.6)",
                      (unsigned long long)kh_cu_ctrl_reply_index(w),
                      (unsigned long long)kh_cu_ctrl_reply_value(w));
        }
        break;
    }
    case KH_HDR_TYPE_CU_DATA:
        if (x && x->cu_data_data) break; /* a data flit: 256 free bits */
        kh_cu_data_rsv_get(w, big);
        if (kh_cu_data_flag_rsv(w))
            kh_finding(c, 19, 0, "CU_DATA flags=0x%02llx: bits 7:1 are unallocated and must be 0 (flits.md §4.7)",
                  (unsigned long long)kh_cu_data_flags(w));
        if (!zero_words(big, 4)) kh_finding(c, 19, 0, "CU_DATA descriptor: payload[207:0] must be 0 (flits.md §4.7)");
        if (x && x->dest == KH_DEST_UNIT && kh_cu_data_buf_id(w) == KH_CU_DATA_BUF_ID_STAGING)
            kh_finding(c, 20, 0, "CU_DATA buf_id=3 to a compute unit: index 3 is the staging adapter's (flits.md §4.7.1)");
        if (kh_hdr_rsvd_remote(w) && !kh_cu_data_ack_y(w) && !kh_cu_data_ack_x(w))
            kh_finding(c, 21, 0, "remote CU_DATA ack_y=0 ack_x=0: a burst crossing meshes must name its ack (flits.md §4.7)");
        break;
    case KH_HDR_TYPE_MEM_WR_ACK:
        kh_mem_wr_ack_rsv_get(w, big);
        if (x && x->profile_l) big[0] &= ~UINT64_C(1); /* bit 0 is the drop flag in profile L */
        if (!zero_words(big, 4))
            kh_finding(c, 22, 0, "MEM_WR_ACK payload must be 0%s (flits.md §4.4)",
                  x && x->profile_l ? " above bit 0" : "");
        break;
    default:
        break;
    }
}

int kh_flitcheck(const kh_flit *f, const kh_flitcheck_ctx *ctx, kh_flitcheck_report_fn report, void *rctx)
{
    kh_findings c = {report, rctx, 0};
    if (f->w[4] >> 32)
        kh_finding(&c, 1, 0, "flit word 4 bits [63:32] = 0x%08llx: outside the 288-bit flit, must be 0 (flits.md §8)",
              (unsigned long long)(f->w[4] >> 32));
    check_header(&c, f, ctx);
    check_payload(&c, f, ctx);
    return c.errors;
}

static void add(char *out, size_t outlen, size_t *k, const char *s)
{
    kh_bufcat(out, outlen, k, "%s%s", *k ? "; " : "", s);
}

void kh_flitcheck_skipped(const kh_flit *f, const kh_flitcheck_ctx *x, char *out, size_t outlen)
{
    size_t k = 0;
    unsigned type = (unsigned)kh_hdr_type(f->w);
    if (!outlen) return;
    out[0] = '\0';
    int origin = x && x->origin != KH_ORIGIN_UNKNOWN;
    if (kh_hdr_rsvd_remote(f->w) && !(x && x->nports))
        add(out, outlen, &k, "V4 dst is a memory port (needs the mesh's port coordinates)");
    /* V8 compares src with the injector's coordinate; a dispatcher's is port 0's */
    int v8_known = origin && (x->origin == KH_ORIGIN_MAILBOX || x->origin == KH_ORIGIN_INTERLINK ||
                              (x->origin == KH_ORIGIN_DISPATCH ? x->nports > 0 : x->know_src));
    if (!v8_known) add(out, outlen, &k, "V8 src is the sender (needs the injecting endpoint)");
    if (type == KH_HDR_TYPE_CU_SIGNAL && !origin)
        add(out, outlen, &k, "V16 framework codes come from the shell (needs the origin)");
    if ((type == KH_HDR_TYPE_CU_DATA && !(x && x->cu_data_data)) && !(x && x->dest != KH_DEST_UNKNOWN))
        add(out, outlen, &k, "V20 buf_id 3 to a unit (needs the destination kind)");
    if (type == KH_HDR_TYPE_CU_INST && !origin)
        add(out, outlen, &k, "V23 CU_INST from the orchestrator (needs the origin)");
    add(out, outlen, &k, "V30-V39 need the flit stream");
}
