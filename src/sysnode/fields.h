/* The protocol fields the system node reads and writes, as thin names over
 * the accessors generated from isa/flit.isa, isa/ilink.isa, isa/addr.isa, isa/mover.isa
 * and isa/regs.isa. No field position is written here. */
#ifndef KH_SYSNODE_FIELDS_H
#define KH_SYSNODE_FIELDS_H

#include "kohaku/flit.h"
#include "kohaku/gen/addr.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/ilink.h"
#include "kohaku/gen/mover.h"
#include "kohaku/gen/regs.h"
#include "kohaku/gen/xform.h"

/* ---- header (flits.md §2) ---- */
static inline unsigned kf_dst_x(const kh_flit *f) { return (unsigned)kh_hdr_dst_x(f->w); }
static inline unsigned kf_dst_y(const kh_flit *f) { return (unsigned)kh_hdr_dst_y(f->w); }
static inline unsigned kf_src_x(const kh_flit *f) { return (unsigned)kh_hdr_src_x(f->w); }
static inline unsigned kf_src_y(const kh_flit *f) { return (unsigned)kh_hdr_src_y(f->w); }
static inline unsigned kf_type(const kh_flit *f) { return (unsigned)kh_hdr_type(f->w); }
static inline unsigned kf_txn(const kh_flit *f) { return (unsigned)kh_hdr_txn(f->w); }
static inline unsigned kf_rsvd(const kh_flit *f) { return (unsigned)kh_hdr_rsvd(f->w); }
static inline unsigned kf_remote(const kh_flit *f) { return (unsigned)kh_hdr_rsvd_remote(f->w); }
static inline unsigned kf_remote_mesh(const kh_flit *f) { return (unsigned)kh_hdr_rsvd_mesh(f->w); }
static inline void kf_set_word_index(kh_flit *f, unsigned w) { kh_hdr_set_rsvd_word(f->w, w); }

/* ---- MEM_RD_REQ / MEM_WR_REQ descriptor (flits.md §4.1) ---- */
static inline uint64_t kf_addr(const kh_flit *f) { return kh_mem_rd_req_addr(f->w); }
static inline unsigned kf_len(const kh_flit *f) { return (unsigned)kh_mem_rd_req_len(f->w); }
static inline unsigned kf_stream(const kh_flit *f) { return (unsigned)kh_mem_rd_req_flag_stream(f->w); }
static inline unsigned kf_count(const kh_flit *f) { return (unsigned)kh_mem_rd_req_count(f->w); }
static inline unsigned kf_n_peer(const kh_flit *f) { return (unsigned)kh_mem_rd_req_n_peer(f->w); }
static inline unsigned kf_entry_words(const kh_flit *f) { return (unsigned)kh_mem_rd_req_entry_words(f->w); }
/* peer byte j (0..2) = {y[3:0], x[3:0]} */
static inline unsigned kf_peer_x(const kh_flit *f, unsigned j)
{
    return (unsigned)(j == 0 ? kh_mem_rd_req_peer0_x(f->w) : j == 1 ? kh_mem_rd_req_peer1_x(f->w)
                                                                    : kh_mem_rd_req_peer2_x(f->w));
}
static inline unsigned kf_peer_y(const kh_flit *f, unsigned j)
{
    return (unsigned)(j == 0 ? kh_mem_rd_req_peer0_y(f->w) : j == 1 ? kh_mem_rd_req_peer1_y(f->w)
                                                                    : kh_mem_rd_req_peer2_y(f->w));
}

/* ---- MEM_WR_ACK (flits.md §4.4, profile L drop flag) ---- */
static inline void kf_set_ack_drop(kh_flit *f, unsigned v) { kh_mem_wr_ack_set_drop(f->w, v); }

/* ---- the 40-bit address (memory.md §1) ---- */
static inline unsigned ka_aperture(uint64_t a) { return (unsigned)kh_addr_aperture(&a); }
static inline unsigned ka_bit38(uint64_t a) { return (unsigned)kh_addr_rsv38(&a); }
static inline unsigned ka_mesh(uint64_t a) { return (unsigned)kh_addr_mesh(&a); }
static inline unsigned ka_apidx(uint64_t a) { return (unsigned)kh_addr_apidx(&a); }
static inline uint64_t ka_local(uint64_t a) { return kh_addr_local(&a); }

/* ---- mover registers (memory.md §11.1) ---- */
static inline unsigned km_ctrl_mode(uint64_t v) { return (unsigned)kh_mover_ctrl_mode(&v); }
static inline unsigned km_ctrl_ewidth(uint64_t v) { return (unsigned)kh_mover_ctrl_ewidth(&v); }
static inline unsigned km_ctrl_coalesce(uint64_t v) { return (unsigned)kh_mover_ctrl_coalesce(&v); }
static inline unsigned km_ctrl_burst(uint64_t v) { return (unsigned)kh_mover_ctrl_burst_cap(&v); }
static inline unsigned km_ctrl_go(uint64_t v) { return (unsigned)kh_mover_ctrl_go(&v); }
static inline unsigned km_hdr_sel(uint64_t v) { return (unsigned)kh_mover_hdr_sel(&v); }
static inline uint64_t km_hdr_base(uint64_t v) { return kh_mover_hdr_base(&v); }
static inline unsigned km_hdr_ndim(uint64_t v) { return (unsigned)kh_mover_hdr_ndim(&v); }
static inline unsigned km_hdr_xform_id(uint64_t v) { return (unsigned)kh_mover_hdr_xform_id(&v); }
static inline unsigned km_hdr_xform_mode(uint64_t v) { return (unsigned)kh_mover_hdr_xform_mode(&v); }
static inline unsigned km_dim_sel(uint64_t v) { return (unsigned)kh_mover_dim_sel(&v); }
static inline unsigned km_dim_dim(uint64_t v) { return (unsigned)kh_mover_dim_dim(&v); }
static inline unsigned km_dim_count(uint64_t v) { return (unsigned)kh_mover_dim_count(&v); }
static inline int32_t km_dim_stride(uint64_t v) { return (int32_t)kh_mover_dim_stride_s(&v); }
static inline unsigned km_axis_axis(uint64_t v) { return (unsigned)kh_mover_axis_axis(&v); }
static inline int16_t km_axis_astep(uint64_t v) { return (int16_t)kh_mover_axis_astep_s(&v); }
static inline unsigned km_bound_sel(uint64_t v) { return (unsigned)kh_mover_bound_sel(&v); }
static inline unsigned km_bound_ax(uint64_t v) { return (unsigned)kh_mover_bound_ax(&v); }
static inline int16_t km_bound_abase(uint64_t v) { return (int16_t)kh_mover_bound_abase_s(&v); }
static inline unsigned km_bound_aext(uint64_t v) { return (unsigned)kh_mover_bound_aext(&v); }
static inline uint64_t km_idx_base(uint64_t v) { return kh_mover_idx_idx_base(&v); }
static inline unsigned km_idx_count(uint64_t v) { return (unsigned)kh_mover_idx_idx_count(&v); }
static inline uint64_t km_seed(uint64_t v) { return kh_mover_seed_seed(&v); }
static inline uint32_t km_imm(uint64_t v) { return (uint32_t)kh_mover_imm_imm(&v); }
static inline uint32_t km_gather_pitch(uint64_t v) { return (uint32_t)kh_mover_gather_pitch(&v); }
static inline unsigned km_gather_gwords(uint64_t v) { return (unsigned)kh_mover_gather_gwords(&v); }

/* ---- AUX_STAT (control.md §2.8) ---- */
static inline uint64_t km_aux_stat(uint32_t done, unsigned ar, unsigned wr, unsigned fault, unsigned busy)
{
    uint64_t v = 0;
    kh_orch_aux_stat_set_moves(&v, done);
    kh_orch_aux_stat_set_ar_count(&v, ar);
    kh_orch_aux_stat_set_wr_bursts(&v, wr);
    kh_orch_aux_stat_set_mover_fault(&v, fault);
    kh_orch_aux_stat_set_mover_busy(&v, busy);
    return v;
}

/* ---- transform bank register 0x04 (memory.md §12): {8'b0, OUT_WORDS, IN_BITS} ---- */
static inline uint32_t kx_bank_geometry(unsigned out_words, unsigned in_bits)
{
    uint64_t v = 0;
    kh_xform_bank_geom_set_out_words(&v, out_words);
    kh_xform_bank_geom_set_in_bits(&v, in_bits);
    return (uint32_t)v;
}
static inline uint32_t kx_bank_fault(unsigned fault)
{
    uint64_t v = 0;
    kh_xform_bank_fault_set_fault(&v, fault);
    return (uint32_t)v;
}

#endif
