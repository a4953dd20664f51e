/* vec_cu around the V2 core (frame.c): its registers and the shell face it
 * is clocked against. */
#ifndef KOHAKU_V2_FRAME_H
#define KOHAKU_V2_FRAME_H

#include "kohaku/flit.h"

#include "cu/units/vector2/v2.h"

/* What the shell (noc_cu_base) shows the frame in one cycle. */
typedef struct v2_frame_io {
    int recv_valid;
    const kh_flit *recv;   /* the receive FIFO's head when recv_valid */
    int inst_valid;
    const kh_flit *inst;   /* the instruction FIFO's head when inst_valid */
    int send_ready;
} v2_frame_io;

typedef struct v2_frame {
    v2_core core;
    unsigned x, y, mem_x, mem_y;
    /* inbound */
    int rr_valid, cd_valid, cd_fault;
    unsigned rr_tag, cd_addr;
    uint64_t rr_data[4], cd_data[4];
    int cd_st, cd_drop, cd_sig, sg_pend, recv_ready;
    unsigned cd_left, cd_ptr, sg_buf, sg_x, sg_y, cd_sx, cd_sy;
    uint16_t fq[32];       /* per fill run: {L1 bank, words} */
    unsigned fq_rp, fq_wp, fq_seen;
    /* outbound */
    int send_valid;
    kh_flit send_flit;
    int rd_req_ready, wst, nd_hdr;
    unsigned nd_cnt, w_left;
    /* the outer ISA */
    int cst, inst_ready, exec_done, exec_fault;
    uint32_t exec_result;
    int ld_en, ld_kind, start;
    unsigned ld_addr, start_pc;
    uint64_t ld_data;
    /* not registers: the memory flits' headers, built once at init from x,
     * y, mem_x and mem_y (no checkpoint holds them) */
    kh_flit t_rd, t_wr, t_wd[2]; /* MEM_RD_REQ (txn 0), MEM_WR_REQ, MEM_WR_DATA last 0 and 1 */
} v2_frame;

int kh_v2_frame_init(v2_frame *f, const v2_cfg *cfg, unsigned x, unsigned y, unsigned mem_x, unsigned mem_y);
void kh_v2_frame_reset(v2_frame *f);
/* One clock of vec_cu and the core: the shell's outputs of this cycle in,
 * the frame's registers (send, recv_ready, inst_ready, exec_done) out. */
void kh_v2_frame_cycle(v2_frame *f, const v2_frame_io *io);
/* Checkpoints (ckpt.c): the frame's and the core's registers, saved or restored. */
struct kh_ck;
void kh_v2_frame_ckpt(v2_frame *f, struct kh_ck *ck);

#endif
