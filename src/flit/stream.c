/* The stream rules V30-V39 of flits.md §9: state kept per (source,
 * destination) pair, per unit and per open read. Coordinates are 4-bit, so
 * a node has an index y * 16 + x (0..255) and a pair the index
 * src * 256 + dst: table indices of this checker, not flit fields. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flit/findings.h"
#include "kohaku/ckpt.h"
#include "kohaku/gen/flit.h"

#define NODES 256   /* {y,x} with 4-bit coordinates */
#define PAIRS 65536 /* src node * 256 + dst node */

/* An expected read-response sequence from a port to one destination (V39). */
typedef struct rd_seq {
    uint8_t port, dst;   /* node indices */
    uint8_t tag;         /* request txn */
    uint16_t entries;    /* count_eff, 1 on a plain read */
    uint16_t words;      /* words per entry (plain: len + 1 beats, up to 256, one entry) */
    uint8_t stream;      /* streaming read: txn + i and rsvd word index */
    uint16_t i, wd;      /* progress: entry, word */
} rd_seq;

struct kh_flitstream {
    kh_flitstream_cfg cfg;
    uint16_t wr_left[PAIRS];   /* MEM_WR_DATA still due, per (source, port) (V30, V31) */
    uint16_t cud_left[PAIRS];  /* CU_DATA data flits still due, per (source, dst) (V32) */
    uint8_t cud_rsvd[PAIRS];   /* rsvd of the open burst's descriptor (V34) */
    uint8_t cud_txn[PAIRS];    /* txn of the open burst's descriptor (V34) */
    uint8_t cud_remote[PAIRS]; /* the open burst's descriptor carries rsvd[2] (V34) */
    int16_t cud_open_by[NODES];  /* source with an open burst into dst, -1 none (V33) */
    int16_t send_burst_to[NODES]; /* dst of the burst a source is sending, -1 none (V32) */
    uint32_t inst_out[NODES];  /* CU_INST delivered - completions sent, per unit (V35, V36) */
    uint8_t *txn_fifo[NODES];  /* txns of CU_INSTs awaiting completion, per unit (V36) */
    uint32_t fifo_head[NODES]; /* ring of fifo_cap entries: inst_depth, more once a sender overran it */
    uint32_t fifo_cap[NODES];
    uint32_t rd_out[NODES];    /* MEM_RD_RESP flits outstanding, per destination (V37) */
    uint8_t ctrl_open[NODES];  /* a CU_CTRL request is outstanding at the unit (V38) */
    rd_seq *seqs;              /* expected read responses (V39) */
    size_t nseq, capseq;
};

kh_flitstream *kh_flitstream_new(const kh_flitstream_cfg *cfg)
{
    kh_flitstream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (cfg) s->cfg = *cfg;
    if (!s->cfg.inst_depth) s->cfg.inst_depth = 512;
    if (!s->cfg.recv_depth) s->cfg.recv_depth = 512;
    for (int i = 0; i < NODES; i++) s->cud_open_by[i] = s->send_burst_to[i] = -1;
    return s;
}

void kh_flitstream_free(kh_flitstream *s)
{
    if (!s) return;
    for (int i = 0; i < NODES; i++) free(s->txn_fifo[i]);
    free(s->seqs);
    free(s);
}

static unsigned node(unsigned x, unsigned y) { return y % 16 * 16 + x % 16; }
static unsigned nx(unsigned node_index) { return node_index % 16; }
static unsigned ny(unsigned node_index) { return node_index / 16 % 16; }
static unsigned src_of(const kh_flit *f) { return node((unsigned)kh_hdr_src_x(f->w), (unsigned)kh_hdr_src_y(f->w)); }
static unsigned dst_of(const kh_flit *f) { return node((unsigned)kh_hdr_dst_x(f->w), (unsigned)kh_hdr_dst_y(f->w)); }

static void add_seq(kh_flitstream *s, unsigned port, unsigned dst, const rd_seq *proto)
{
    if (s->nseq == s->capseq) {
        size_t cap = s->capseq ? 2 * s->capseq : 16;
        rd_seq *p = realloc(s->seqs, cap * sizeof *p);
        if (!p) return; /* a checker that cannot grow checks less; it never lies */
        s->seqs = p;
        s->capseq = cap;
    }
    rd_seq *q = &s->seqs[s->nseq++];
    *q = *proto;
    q->port = (uint8_t)port;
    q->dst = (uint8_t)dst;
}

/* A read request reaching its memory port registers what the port owes
 * (V37 budget at each destination, V39 sequence). Only a streaming read has
 * peers; a plain read answers its requester alone (memory.md §3.1). */
static void read_request(kh_flitstream *s, const kh_flit *f, kh_findings *o)
{
    const uint64_t *w = f->w;
    rd_seq proto;
    memset(&proto, 0, sizeof proto);
    proto.tag = (uint8_t)kh_hdr_txn(w);
    proto.stream = (uint8_t)kh_mem_rd_req_flag_stream(w);
    unsigned port = dst_of(f), dsts[4], nd = 0;
    dsts[nd++] = src_of(f);
    if (proto.stream) {
        unsigned count = (unsigned)kh_mem_rd_req_count(w), ew = (unsigned)kh_mem_rd_req_entry_words(w);
        proto.entries = (uint16_t)(count ? count : 1);
        proto.words = (uint16_t)(ew == 0 || ew > 4 ? 4 : ew);
        unsigned n_peer = (unsigned)kh_mem_rd_req_n_peer(w);
        unsigned px[3] = {(unsigned)kh_mem_rd_req_peer0_x(w), (unsigned)kh_mem_rd_req_peer1_x(w),
                          (unsigned)kh_mem_rd_req_peer2_x(w)};
        unsigned py[3] = {(unsigned)kh_mem_rd_req_peer0_y(w), (unsigned)kh_mem_rd_req_peer1_y(w),
                          (unsigned)kh_mem_rd_req_peer2_y(w)};
        for (unsigned i = 0; i < n_peer && i < 3; i++) dsts[nd++] = node(px[i], py[i]);
    } else {
        proto.entries = 1;
        proto.words = (uint16_t)(kh_mem_rd_req_len(w) + 1);
    }
    unsigned flits = (unsigned)proto.entries * proto.words;
    for (unsigned i = 0; i < nd; i++) {
        s->rd_out[dsts[i]] += flits;
        if (s->rd_out[dsts[i]] > s->cfg.recv_depth)
            kh_finding(o, 37, 1, "node (%u,%u) has %u read-response flits outstanding, above RECV_DEPTH %u: "
                  "the port will stall (flits.md §9)", nx(dsts[i]), ny(dsts[i]), s->rd_out[dsts[i]],
                  s->cfg.recv_depth);
        add_seq(s, port, dsts[i], &proto);
    }
}

/* A response leaving its port must be the next word the port owes (V39). */
static void read_response_sent(kh_flitstream *s, const kh_flit *f, kh_findings *o)
{
    unsigned port = src_of(f), dst = dst_of(f);
    rd_seq *q = NULL;
    size_t qi = 0;
    for (size_t i = 0; i < s->nseq; i++)
        if (s->seqs[i].port == port && s->seqs[i].dst == dst) {
            q = &s->seqs[i];
            qi = i;
            break;
        }
    if (!q) {
        kh_finding(o, 39, 0, "MEM_RD_RESP from (%u,%u) to (%u,%u) txn=0x%02x answers no read request", nx(port),
              ny(port), nx(dst), ny(dst), (unsigned)kh_hdr_txn(f->w));
        return;
    }
    unsigned txn = (unsigned)kh_hdr_txn(f->w), word = (unsigned)kh_hdr_rsvd(f->w), last = (unsigned)kh_hdr_last(f->w);
    unsigned want_txn = q->stream ? (q->tag + q->i) % 256 /* txn wraps at 8 bits (memory.md §3.2) */ : q->tag;
    unsigned want_word = q->stream ? q->wd : 0;
    unsigned want_last = q->wd + 1u == q->words;
    if (txn != want_txn || word != want_word || last != want_last)
        kh_finding(o, 39, 0, "MEM_RD_RESP to (%u,%u): txn=0x%02x rsvd=%u last=%u, expected entry %u word %u: "
              "txn=0x%02x rsvd=%u last=%u (flits.md §9)", nx(dst), ny(dst), txn, word, last, q->i, q->wd,
              want_txn, want_word, want_last);
    if (++q->wd == q->words) {
        q->wd = 0;
        if (++q->i == q->entries) memmove(q, q + 1, (s->nseq - qi - 1) * sizeof *q), s->nseq--;
    }
}

/* Remember the txn of a CU_INST delivered to unit u, oldest first (V36).
 * The ring holds inst_depth entries and doubles when a sender overran the
 * credit; without memory the order check is dropped, never faked. */
static void inst_push(kh_flitstream *s, unsigned u, uint8_t txn)
{
    if (!s->txn_fifo[u] && s->inst_out[u] == 0) {
        s->txn_fifo[u] = calloc(s->cfg.inst_depth, 1);
        s->fifo_cap[u] = s->cfg.inst_depth;
        s->fifo_head[u] = 0;
    }
    if (!s->txn_fifo[u]) return;
    if (s->inst_out[u] == s->fifo_cap[u]) {
        uint32_t cap = 2 * s->fifo_cap[u];
        uint8_t *v = malloc(cap);
        if (v)
            for (uint32_t i = 0; i < s->inst_out[u]; i++)
                v[i] = s->txn_fifo[u][(s->fifo_head[u] + i) % s->fifo_cap[u]];
        free(s->txn_fifo[u]);
        s->txn_fifo[u] = v;
        s->fifo_cap[u] = cap;
        s->fifo_head[u] = 0;
        if (!v) return;
    }
    s->txn_fifo[u][(s->fifo_head[u] + s->inst_out[u]) % s->fifo_cap[u]] = txn;
}

int kh_flitstream_sent(kh_flitstream *s, const kh_flit *f, kh_flitcheck_report_fn report, void *rctx)
{
    kh_findings o = {report, rctx, 0};
    unsigned type = (unsigned)kh_hdr_type(f->w), src = src_of(f), dst = dst_of(f);
    switch (type) {
    case KH_HDR_TYPE_CU_DATA: {
        /* V32: a sender emits descriptor and data without another CU_DATA between */
        int open = s->send_burst_to[src];
        if (open >= 0 && (unsigned)open != dst)
            kh_finding(&o, 32, 0, "CU_DATA from (%u,%u) to (%u,%u) while its burst to (%u,%u) is still open", nx(src),
                  ny(src), nx(dst), ny(dst), nx((unsigned)open), ny((unsigned)open));
        if (open < 0 && !kh_hdr_last(f->w)) s->send_burst_to[src] = (int16_t)dst;
        if (open >= 0 && kh_hdr_last(f->w)) s->send_burst_to[src] = -1;
        break;
    }
    case KH_HDR_TYPE_CU_SIGNAL: {
        unsigned code = (unsigned)kh_cu_signal_code(f->w);
        if (code != KH_CU_SIGNAL_CODE_INST_COMPLETE && code != KH_CU_SIGNAL_CODE_BATCH_COMPLETE &&
            code != KH_CU_SIGNAL_CODE_FAULT)
            break;
        if (!s->inst_out[src]) {
            kh_finding(&o, 36, 0, "completion code=0x%02x from (%u,%u) with no CU_INST outstanding there", code,
                  nx(src), ny(src));
            break;
        }
        unsigned want = s->txn_fifo[src] ? s->txn_fifo[src][s->fifo_head[src] % s->fifo_cap[src]] : 0;
        if (s->txn_fifo[src] && kh_hdr_txn(f->w) != want)
            kh_finding(&o, 36, 0, "completion from (%u,%u) txn=0x%02x, but the oldest outstanding CU_INST has txn=0x%02x",
                  nx(src), ny(src), (unsigned)kh_hdr_txn(f->w), want);
        if (s->txn_fifo[src]) s->fifo_head[src] = (s->fifo_head[src] + 1) % s->fifo_cap[src];
        s->inst_out[src]--;
        break;
    }
    case KH_HDR_TYPE_CU_CTRL:
        if (kh_cu_ctrl_reply_op(f->w) == KH_CU_CTRL_REPLY_OP_READ_RESP) s->ctrl_open[src] = 0;
        break;
    case KH_HDR_TYPE_MEM_RD_RESP:
        read_response_sent(s, f, &o);
        break;
    default:
        break;
    }
    return o.errors;
}

int kh_flitstream_delivered(kh_flitstream *s, const kh_flit *f, kh_flitcheck_report_fn report, void *rctx)
{
    kh_findings o = {report, rctx, 0};
    unsigned type = (unsigned)kh_hdr_type(f->w), src = src_of(f), dst = dst_of(f), pair = src * NODES + dst;
    unsigned last = (unsigned)kh_hdr_last(f->w);
    switch (type) {
    case KH_HDR_TYPE_MEM_WR_REQ:
        if (s->wr_left[pair])
            kh_finding(&o, 30, 0, "MEM_WR_REQ from (%u,%u) at port (%u,%u) while %u data flits of its previous write "
                  "are still due", nx(src), ny(src), nx(dst), ny(dst), s->wr_left[pair]);
        s->wr_left[pair] = (uint16_t)(kh_mem_wr_req_len(f->w) + 1);
        break;
    case KH_HDR_TYPE_MEM_WR_DATA:
        if (!s->wr_left[pair]) {
            kh_finding(&o, 31, 0, "MEM_WR_DATA from (%u,%u) at port (%u,%u) with no open write from that source",
                  nx(src), ny(src), nx(dst), ny(dst));
            break;
        }
        s->wr_left[pair]--;
        if (last != (s->wr_left[pair] == 0))
            kh_finding(&o, 30, 0, "MEM_WR_DATA from (%u,%u) last=%u with %u data flits still due (last marks the final one)",
                  nx(src), ny(src), last, s->wr_left[pair]);
        break;
    case KH_HDR_TYPE_CU_DATA:
        if (s->cud_left[pair]) { /* a data flit of the open burst */
            s->cud_left[pair]--;
            if (last != (s->cud_left[pair] == 0))
                kh_finding(&o, 32, 0, "CU_DATA data flit from (%u,%u) to (%u,%u) last=%u with %u still due", nx(src),
                      ny(src), nx(dst), ny(dst), last, s->cud_left[pair]);
            unsigned rsvd = (unsigned)kh_hdr_rsvd(f->w), txn = (unsigned)kh_hdr_txn(f->w);
            if ((kh_hdr_rsvd_remote(f->w) || s->cud_remote[pair]) &&
                (rsvd != s->cud_rsvd[pair] || txn != s->cud_txn[pair]))
                kh_finding(&o, 34, 0, "remote CU_DATA burst from (%u,%u): rsvd=%u txn=0x%02x differ from the "
                      "descriptor's rsvd=%u txn=0x%02x", nx(src), ny(src), rsvd, txn, s->cud_rsvd[pair],
                      s->cud_txn[pair]);
            if (!s->cud_left[pair] && s->cud_open_by[dst] == (int16_t)src) s->cud_open_by[dst] = -1;
        } else { /* a descriptor */
            if (last)
                kh_finding(&o, 32, 0, "CU_DATA descriptor from (%u,%u) with last=1 (flits.md §2.3)", nx(src), ny(src));
            if (!s->cfg.multi_burst && s->cud_open_by[dst] >= 0 && s->cud_open_by[dst] != (int16_t)src)
                kh_finding(&o, 33, 0, "CU_DATA burst from (%u,%u) begins at (%u,%u) while the burst from (%u,%u) is open",
                      nx(src), ny(src), nx(dst), ny(dst), nx((unsigned)s->cud_open_by[dst]),
                      ny((unsigned)s->cud_open_by[dst]));
            s->cud_left[pair] = (uint16_t)(kh_cu_data_len(f->w) + 1);
            s->cud_rsvd[pair] = (uint8_t)kh_hdr_rsvd(f->w);
            s->cud_txn[pair] = (uint8_t)kh_hdr_txn(f->w);
            s->cud_remote[pair] = (uint8_t)kh_hdr_rsvd_remote(f->w);
            s->cud_open_by[dst] = (int16_t)src;
        }
        break;
    case KH_HDR_TYPE_CU_INST:
        if (s->inst_out[dst] >= s->cfg.inst_depth)
            kh_finding(&o, 35, 0, "CU_INST to (%u,%u) with %u already outstanding: beyond INST_DEPTH %u (credit rule)",
                  nx(dst), ny(dst), s->inst_out[dst], s->cfg.inst_depth);
        /* counted all the same: it was delivered, so its completion will come (V36) */
        inst_push(s, dst, (uint8_t)kh_hdr_txn(f->w));
        s->inst_out[dst]++;
        break;
    case KH_HDR_TYPE_CU_CTRL:
        if (kh_cu_ctrl_op(f->w) == KH_CU_CTRL_REPLY_OP_READ_RESP) break; /* a reply reaching a controller */
        if (s->ctrl_open[dst])
            kh_finding(&o, 38, 0, "CU_CTRL request to (%u,%u) while another is outstanding: it gets no reply", nx(dst),
                  ny(dst));
        s->ctrl_open[dst] = 1;
        break;
    case KH_HDR_TYPE_MEM_RD_REQ:
        read_request(s, f, &o);
        break;
    case KH_HDR_TYPE_MEM_RD_RESP:
        if (s->rd_out[dst]) s->rd_out[dst]--;
        break;
    default:
        break;
    }
    return o.errors;
}

/* A unit's ring of outstanding CU_INST txns is saved oldest first (its
 * head is not state: a restore starts the ring at 0 with the same
 * capacity, so the same pushes fit and the same doublings happen). */
static void fifo_ckpt(kh_flitstream *s, unsigned u, kh_ck *ck)
{
    uint8_t has = s->txn_fifo[u] != NULL;
    uint32_t cap = s->fifo_cap[u];
    KH_CK(ck, has);
    if (!has) {
        if (kh_ck_loading(ck)) {
            free(s->txn_fifo[u]);
            s->txn_fifo[u] = NULL;
            s->fifo_head[u] = s->fifo_cap[u] = 0;
        }
        return;
    }
    KH_CK(ck, cap);
    if (kh_ck_failed(ck)) return;
    if (kh_ck_loading(ck)) {
        /* the ring starts at inst_depth and only doubles */
        uint32_t c = s->cfg.inst_depth;
        while (c && c < cap && c <= UINT32_MAX / 2) c *= 2;
        if (c != cap || s->inst_out[u] > cap) {
            kh_ck_fail(ck, "%s: unit node %u's CU_INST ring of %u entries holds %u (INST_DEPTH %u)",
                       kh_ck_where(ck), u, cap, s->inst_out[u], s->cfg.inst_depth);
            return;
        }
        free(s->txn_fifo[u]);
        s->txn_fifo[u] = calloc(cap, 1);
        if (!s->txn_fifo[u]) {
            kh_ck_fail(ck, "out of memory restoring the flit checker");
            return;
        }
        s->fifo_cap[u] = cap;
        s->fifo_head[u] = 0;
    }
    for (uint32_t i = 0; i < s->inst_out[u]; i++) KH_CK(ck, s->txn_fifo[u][(s->fifo_head[u] + i) % cap]);
}

void kh_flitstream_ckpt(kh_flitstream *s, kh_ck *ck)
{
    kh_ck_same(ck, s->cfg.inst_depth, "the checker's INST_DEPTH");
    kh_ck_same(ck, s->cfg.recv_depth, "the checker's RECV_DEPTH");
    kh_ck_same(ck, (uint64_t)s->cfg.multi_burst, "the checker's multi-burst receivers");
    kh_ck_sparse(ck, s->wr_left, sizeof *s->wr_left, PAIRS, "a pair's write flits due");
    kh_ck_sparse(ck, s->cud_left, sizeof *s->cud_left, PAIRS, "a pair's CU_DATA flits due");
    kh_ck_sparse(ck, s->cud_rsvd, sizeof *s->cud_rsvd, PAIRS, "a burst's rsvd");
    kh_ck_sparse(ck, s->cud_txn, sizeof *s->cud_txn, PAIRS, "a burst's txn");
    kh_ck_sparse(ck, s->cud_remote, sizeof *s->cud_remote, PAIRS, "a burst's remote mark");
    KH_CK_ARR(ck, s->cud_open_by, NODES);
    KH_CK_ARR(ck, s->send_burst_to, NODES);
    KH_CK_ARR(ck, s->inst_out, NODES);
    KH_CK_ARR(ck, s->rd_out, NODES);
    KH_CK_ARR(ck, s->ctrl_open, NODES);
    for (unsigned u = 0; u < NODES && !kh_ck_failed(ck); u++) {
        if (kh_ck_loading(ck) && (s->cud_open_by[u] < -1 || s->cud_open_by[u] >= NODES ||
                                  s->send_burst_to[u] < -1 || s->send_burst_to[u] >= NODES)) {
            kh_ck_fail(ck, "%s: node %u's open burst names node %d/%d", kh_ck_where(ck), u, s->cud_open_by[u],
                       s->send_burst_to[u]);
            return;
        }
        fifo_ckpt(s, u, ck);
    }
    /* the expected read responses, each bounded by the bytes it takes */
    size_t n = (size_t)kh_ck_count(ck, s->nseq, kh_ck_loading(ck) ? kh_ck_left(ck) / 12 : s->nseq,
                                   "expected read responses");
    if (kh_ck_loading(ck) && n > s->capseq) {
        rd_seq *v = realloc(s->seqs, n * sizeof *v);
        if (!v) {
            kh_ck_fail(ck, "out of memory restoring the flit checker");
            return;
        }
        s->seqs = v;
        s->capseq = n;
    }
    for (size_t i = 0; i < n && !kh_ck_failed(ck); i++) {
        rd_seq *q = &s->seqs[i];
        KH_CK(ck, q->port);
        KH_CK(ck, q->dst);
        KH_CK(ck, q->tag);
        KH_CK(ck, q->entries);
        KH_CK(ck, q->words);
        KH_CK(ck, q->stream);
        KH_CK(ck, q->i);
        KH_CK(ck, q->wd);
    }
    if (kh_ck_loading(ck)) s->nseq = kh_ck_failed(ck) ? 0 : n;
}
