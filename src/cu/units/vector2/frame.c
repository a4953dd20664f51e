/* vec_cu around the V2 core (upstream 54cc4015, docs/vector2.md §9): the
 * outer ISA (IMEM with address bit 9, DESC, RUN), the inbound flits (fill
 * responses tagged through the run queue, CU_DATA bursts into L1 with their
 * DATA_RECEIVED), and the outbound ones (a fill run as one STREAM read, a
 * drain as write bursts or a peer CU_DATA burst). Cycle by cycle against a
 * shell face (v2_frame_io), so the replay bench and the mesh unit share it. */
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/gen/vector.h"

#include "cu/units/vector2/frame.h"

enum { C_IDLE, C_ACT, C_RUNW, C_RET };
enum { W_IDLE, W_BURST };
#define SIG_DATA_RECEIVED 0x03
#define FQ 32

void kh_v2_frame_reset(v2_frame *f)
{
    f->rr_valid = f->cd_valid = f->cd_fault = 0;
    f->cd_st = f->cd_drop = f->cd_sig = 0;
    f->cd_left = f->cd_ptr = 0;
    f->sg_pend = 0;
    f->sg_buf = f->sg_x = f->sg_y = f->cd_sx = f->cd_sy = 0;
    f->recv_ready = 0;
    f->fq_rp = f->fq_wp = 0;
    f->fq_seen = 0;
    f->send_valid = 0;
    kh_flit_clear(&f->send_flit);
    f->rd_req_ready = 0;
    f->wst = W_IDLE;
    f->nd_hdr = 0;
    f->nd_cnt = 0;
    f->w_left = 0;
    f->cst = C_IDLE;
    f->inst_ready = f->exec_done = f->exec_fault = 0;
    f->exec_result = 0;
    f->ld_en = 0;
    f->start = 0;
    f->start_pc = 0;
    kh_v2_core_reset(&f->core);
}

static void hdr(v2_frame *f, kh_flit *o, unsigned dx, unsigned dy, unsigned type, unsigned txn, unsigned last)
{
    kh_flit_clear(o);
    kh_flit_set_hdr(o, &(kh_flit_hdr){.dst_x = dx, .dst_y = dy, .src_x = f->x, .src_y = f->y, .type = type,
                                      .txn = txn, .last = last});
}

int kh_v2_frame_init(v2_frame *f, const v2_cfg *cfg, unsigned x, unsigned y, unsigned mem_x, unsigned mem_y)
{
    memset(f, 0, sizeof *f);
    if (kh_v2_core_init(&f->core, cfg)) return -1;
    f->x = x;
    f->y = y;
    f->mem_x = mem_x;
    f->mem_y = mem_y;
    hdr(f, &f->t_rd, mem_x, mem_y, KH_T_MEM_RD_REQ, 0, 1);
    hdr(f, &f->t_wr, mem_x, mem_y, KH_T_MEM_WR_REQ, 0x01, 0);
    hdr(f, &f->t_wd[0], mem_x, mem_y, KH_T_MEM_WR_DATA, 0x01, 0);
    hdr(f, &f->t_wd[1], mem_x, mem_y, KH_T_MEM_WR_DATA, 0x01, 1);
    kh_v2_frame_reset(f);
    return 0;
}

/* CU_DATA to a peer: every flit repeats the header; a far-mesh drain names
 * the final node in txn and the mesh in rsvd. */
static void peer_hdr(v2_frame *f, kh_flit *o, unsigned last)
{
    const v2_core *c = &f->core;
    hdr(f, o, c->nd_x, c->nd_y, KH_T_CU_DATA, c->nd_fin ? c->nd_fin : 0, last);
    if (c->nd_fin) {
        kh_hdr_set_rsvd_remote(o->w, 1);
        kh_hdr_set_rsvd_mesh(o->w, c->nd_mesh);
    }
}

/* The outer ISA's registers at the edge, from the core's before it. */
static inline __attribute__((always_inline)) void outer_isa(v2_frame *f, const v2_frame_io *io)
{
    const v2_core *c = &f->core;
    int halted = c->halted, faulted = c->fault;
    unsigned fcode = c->fault_code;
    uint32_t cycles = c->cycles;
    int inst_ready = f->inst_ready;
    f->inst_ready = 0;
    f->exec_done = 0;
    f->exec_fault = 0;
    f->ld_en = 0;
    f->start = 0;
    switch (f->cst) {
    case C_IDLE:
        if (io->inst_valid && !inst_ready) {
            const uint64_t *p = io->inst->w;
            f->inst_ready = 1;
            switch ((unsigned)kh_vec_op(p)) {
            case 1: /* IMEM */
                f->ld_en = 1;
                f->ld_kind = 0;
                f->ld_addr = (unsigned)kh_vec_addr(p);
                f->ld_data = (uint64_t)kh_vec_addr9(p) << 32 | kh_vec_word(p);
                f->cst = C_RET;
                break;
            case 2: /* DESC */
                f->ld_en = 1;
                f->ld_kind = 1;
                f->ld_addr = (unsigned)(kh_vec_ad(p) << 3 | kh_vec_fld(p));
                f->ld_data = kh_vec_value(p);
                f->cst = C_RET;
                break;
            case 3: /* RUN */
                f->start = 1;
                f->start_pc = (unsigned)kh_vec_addr(p);
                f->cst = C_ACT;
                break;
            default: f->cst = C_RET; break;
            }
        }
        break;
    case C_ACT: f->cst = C_RUNW; break; /* one cycle for start to be seen */
    case C_RUNW:
        if (halted || faulted) {
            f->exec_done = 1;
            f->exec_fault = faulted;
            f->exec_result = faulted ? fcode : cycles;
            f->cst = C_IDLE;
        }
        break;
    default:
        f->exec_done = 1;
        f->exec_result = 0;
        f->cst = C_IDLE;
        break;
    }
}

/* The frame's edge with nothing on the link (kh_v2_frame_cycle's quiet
 * case): the outer ISA, and the core with inputs at rest. */
static void quiet_isa_and_core(v2_frame *f, const v2_frame_io *io)
{
    v2_in in = {.ld_en = f->ld_en, .ld_kind = f->ld_kind, .ld_addr = f->ld_addr, .ld_data = f->ld_data,
                .start = f->start, .start_pc = f->start_pc};
    outer_isa(f, io);
    kh_v2_core_cycle(&f->core, &in);
}

void kh_v2_frame_cycle(v2_frame *f, const v2_frame_io *io)
{
    v2_core *c = &f->core;
    if (!io->recv_valid && !f->send_valid && !f->sg_pend && !c->rd_req_valid && !c->wr_req_valid && !f->rr_valid &&
        !f->cd_valid && !f->cd_fault && !f->rd_req_ready && !c->ref) {
        /* no flit in or out, none owed and no request from the core: the
         * wires below are all 0 (tx_ok 1), inbound and outbound move only
         * recv_ready (to 1), and the core sees no fill, CU_DATA or ready.
         * The fast engine's only: the reference works the link out at
         * every edge, so comparing the engines checks this shortcut too */
        f->recv_ready = 1;
        quiet_isa_and_core(f, io);
        return;
    }
    const kh_flit *rf = io->recv;
    /* ---- wires ---- */
    int tx_ok = !f->send_valid || io->send_ready;
    int fq_full = ((f->fq_wp - f->fq_rp) & 63) == FQ;
    int rd_go = f->wst == W_IDLE && !f->sg_pend && c->rd_req_valid && !f->rd_req_ready && !fq_full;
    int wr_req_ready = tx_ok && c->wr_req_valid &&
                       (f->wst == W_BURST || (f->wst == W_IDLE && !f->sg_pend && !rd_go && c->nd_valid && f->nd_hdr));
    int sg_go = f->sg_pend && f->wst == W_IDLE && tx_ok;
    int take = io->recv_valid && f->recv_ready;
    unsigned rtype = take ? (unsigned)kh_hdr_type(rf->w) : 0;
    int cd_end_now = take && rtype == KH_T_CU_DATA && f->cd_st && f->cd_left == 0;

    /* the core's inputs: the frame's registers before this edge */
    v2_in in;
    uint64_t rr[4], cd[4];
    in.ld_en = f->ld_en;
    in.ld_kind = f->ld_kind;
    in.ld_addr = f->ld_addr;
    in.ld_data = f->ld_data;
    in.start = f->start;
    in.start_pc = f->start_pc;
    in.rd_req_ready = f->rd_req_ready;
    in.rr_valid = f->rr_valid;
    in.rr_tag = f->rr_tag;
    in.rr_data = rr;
    if (f->rr_valid) memcpy(rr, f->rr_data, sizeof rr);
    in.cd_valid = f->cd_valid;
    in.cd_addr = f->cd_addr;
    in.cd_data = cd;
    if (f->cd_valid) memcpy(cd, f->cd_data, sizeof cd);
    in.cd_fault = f->cd_fault;
    in.wr_req_ready = wr_req_ready;

    /* ---- inbound: one pop a cycle keeps rr_valid and cd_valid exclusive ---- */
    f->rr_valid = 0;
    f->cd_valid = 0;
    f->cd_fault = 0;
    if (sg_go) f->sg_pend = 0;
    f->recv_ready = !((f->sg_pend || (cd_end_now && f->cd_sig)) && !sg_go);
    if (take && rtype == KH_T_MEM_RD_RESP) {
        unsigned head = f->fq[f->fq_rp & (FQ - 1)];
        f->rr_valid = 1;
        f->rr_tag = (head & 256) | (unsigned)kh_hdr_txn(rf->w);
        kh_mem_rd_resp_data_get(rf->w, f->rr_data);
        if (f->fq_seen + 1 == (head & 255)) {
            f->fq_rp = (f->fq_rp + 1) & 63;
            f->fq_seen = 0;
        } else {
            f->fq_seen = (f->fq_seen + 1) & 255;
        }
    } else if (take && rtype == KH_T_CU_DATA) {
        unsigned sx = (unsigned)kh_hdr_src_x(rf->w), sy = (unsigned)kh_hdr_src_y(rf->w);
        if (!f->cd_st) {
            unsigned buf = (unsigned)kh_cu_data_buf_id(rf->w), off = (unsigned)kh_cu_data_offset(rf->w);
            unsigned len = (unsigned)kh_cu_data_len(rf->w), flg = (unsigned)kh_cu_data_flags(rf->w);
            unsigned ack = (unsigned)kh_cu_data_ack_y(rf->w) << 4 | (unsigned)kh_cu_data_ack_x(rf->w);
            /* one flat L1: buf_id 0, and the burst inside it (no wrap) */
            int bad = buf != 0 || off + len >= V2_L1;
            f->cd_st = 1;
            f->cd_left = len;
            f->cd_ptr = off & (V2_L1 - 1);
            f->cd_drop = bad;
            f->cd_fault = bad;
            f->cd_sig = (flg & 1) && !bad;
            f->sg_buf = buf;
            f->sg_x = ack ? ack & 15 : sx;
            f->sg_y = ack ? ack >> 4 : sy;
            f->cd_sx = sx;
            f->cd_sy = sy;
        } else {
            int alien = sx != f->cd_sx || sy != f->cd_sy;
            f->cd_valid = !f->cd_drop && !alien;
            f->cd_addr = f->cd_ptr;
            kh_cu_data_data_data_get(rf->w, f->cd_data);
            f->cd_ptr = (f->cd_ptr + 1) & (V2_L1 - 1);
            if (alien) { /* a second burst: neither can be completed; the kernel is told */
                f->cd_fault = 1;
                f->cd_drop = 1;
                f->cd_sig = 0;
            }
            if (f->cd_left == 0) {
                f->cd_st = 0;
                if (f->cd_sig && !alien) f->sg_pend = 1;
            } else {
                f->cd_left--;
            }
        }
    }

    /* ---- outbound ---- */
    f->rd_req_ready = 0;
    if (f->send_valid && io->send_ready) f->send_valid = 0;
    if (tx_ok) {
        kh_flit *o = &f->send_flit;
        if (f->wst == W_IDLE) {
            if (f->sg_pend) {
                hdr(f, o, f->sg_x, f->sg_y, KH_T_CU_SIGNAL, 0, 1);
                kh_cu_signal_set_code(o->w, SIG_DATA_RECEIVED);
                kh_cu_signal_set_arg(o->w, f->sg_buf);
                f->send_valid = 1;
            } else if (rd_go) { /* a fill run: one STREAM read of 1-word entries */
                *o = f->t_rd; /* hdr(mem, MEM_RD_REQ, last 1); txn set below, per flit */
                kh_hdr_set_txn(o->w, c->rd_req_tag & 255);
                kh_mem_rd_req_set_addr(o->w, c->rd_req_addr);
                kh_mem_rd_req_set_flags(o->w, 0x40);
                kh_mem_rd_req_set_count(o->w, c->rd_req_cnt);
                kh_mem_rd_req_set_entry_words(o->w, 1);
                f->send_valid = 1;
                f->rd_req_ready = 1;
                f->fq[f->fq_wp & (FQ - 1)] = (uint16_t)((c->rd_req_tag & 256) | (c->rd_req_cnt & 255));
                f->fq_wp = (f->fq_wp + 1) & 63;
            } else if (c->wr_req_valid && c->nd_valid) { /* a peer drain: one descriptor, then the words */
                if (!f->nd_hdr) {
                    peer_hdr(f, o, 0);
                    kh_cu_data_set_buf_id(o->w, c->nd_buf);
                    kh_cu_data_set_offset(o->w, c->nd_off);
                    kh_cu_data_set_len(o->w, c->nd_len);
                    kh_cu_data_set_flags(o->w, (unsigned)c->nd_sig);
                    kh_cu_data_set_ack_y(o->w, c->nd_ack >> 4);
                    kh_cu_data_set_ack_x(o->w, c->nd_ack & 15);
                    f->send_valid = 1;
                    f->nd_hdr = 1;
                    f->nd_cnt = 0;
                } else {
                    peer_hdr(f, o, f->nd_cnt == c->nd_len);
                    kh_cu_data_data_set_data(o->w, c->wr_req_data);
                    f->send_valid = 1;
                    if (f->nd_cnt == c->nd_len) f->nd_hdr = 0;
                    f->nd_cnt = (f->nd_cnt + 1) & 255;
                }
            } else if (c->wr_req_valid && c->wr_req_first) { /* a write burst of wr_req_cnt words */
                *o = f->t_wr;
                kh_mem_wr_req_set_addr(o->w, c->wr_req_addr);
                kh_mem_wr_req_set_len(o->w, (c->wr_req_cnt - 1) & 255);
                f->send_valid = 1;
                f->w_left = c->wr_req_cnt;
                f->wst = W_BURST;
            }
        } else if (c->wr_req_valid) {
            *o = f->t_wd[f->w_left == 1];
            kh_mem_wr_data_set_data(o->w, c->wr_req_data);
            f->send_valid = 1;
            f->w_left = (f->w_left - 1) & 15;
            if (f->w_left == 0) f->wst = W_IDLE;
        }
    }

    outer_isa(f, io);
    kh_v2_core_cycle(c, &in);
}
