/* Every protocol field the system node reads or writes, in one place.
 * TEMPORARY: raw positions from flits.md §2, §4 and memory.md §11.1 until
 * the generated accessors (<kohaku/gen/flit.h>, <kohaku/gen/mover.h>) land
 * on main; then each body becomes the generated call and this file the only
 * one that changes. */
#ifndef KH_SYSNODE_FIELDS_H
#define KH_SYSNODE_FIELDS_H

#include "kohaku/bits.h"
#include "kohaku/flit.h"

/* ---- header (flits.md §2) ---- */
static inline unsigned kf_dst_x(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 284, 4); }
static inline unsigned kf_dst_y(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 280, 4); }
static inline unsigned kf_src_x(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 276, 4); }
static inline unsigned kf_src_y(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 272, 4); }
static inline unsigned kf_type(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 268, 4); }
static inline unsigned kf_txn(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 260, 8); }
static inline unsigned kf_last(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 259, 1); }
static inline unsigned kf_rsvd(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 256, 3); }
static inline unsigned kf_remote(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 258, 1); }
static inline void kf_set_hdr(kh_flit *f, unsigned dx, unsigned dy, unsigned sx, unsigned sy,
                              unsigned type, unsigned txn, unsigned last, unsigned rsvd)
{
    kh_bits_set(f->w, 284, 4, dx);
    kh_bits_set(f->w, 280, 4, dy);
    kh_bits_set(f->w, 276, 4, sx);
    kh_bits_set(f->w, 272, 4, sy);
    kh_bits_set(f->w, 268, 4, type);
    kh_bits_set(f->w, 260, 8, txn);
    kh_bits_set(f->w, 259, 1, last);
    kh_bits_set(f->w, 256, 3, rsvd);
}

/* ---- MEM_RD_REQ / MEM_WR_REQ descriptor (flits.md §4.1) ---- */
static inline uint64_t kf_addr(const kh_flit *f) { return kh_bits_get(f->w, 216, 40); }
static inline unsigned kf_len(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 208, 8); }
static inline unsigned kf_stream(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 206, 1); }
static inline unsigned kf_count(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 192, 8); }
static inline unsigned kf_n_peer(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 166, 2); }
static inline unsigned kf_entry_words(const kh_flit *f) { return (unsigned)kh_bits_get(f->w, 158, 8); }
/* peer byte j (0..2) = {y[3:0], x[3:0]} */
static inline unsigned kf_peer_x(const kh_flit *f, unsigned j) { return (unsigned)kh_bits_get(f->w, 168 + 8 * j, 4); }
static inline unsigned kf_peer_y(const kh_flit *f, unsigned j) { return (unsigned)kh_bits_get(f->w, 172 + 8 * j, 4); }

/* ---- MEM_WR_ACK (flits.md §4.4, profile L drop flag) ---- */
static inline void kf_set_ack_drop(kh_flit *f, unsigned v) { kh_bits_set(f->w, 0, 1, v); }

/* ---- the 40-bit address (memory.md §1) ---- */
static inline unsigned ka_aperture(uint64_t a) { return (unsigned)kh_bits_get(&a, 39, 1); }
static inline unsigned ka_bit38(uint64_t a) { return (unsigned)kh_bits_get(&a, 38, 1); }
static inline unsigned ka_mesh(uint64_t a) { return (unsigned)kh_bits_get(&a, 36, 2); }
static inline unsigned ka_apidx(uint64_t a) { return (unsigned)kh_bits_get(&a, 32, 4); }
static inline uint64_t ka_local(uint64_t a) { return kh_bits_get(&a, 0, 36); }

/* ---- mover registers (memory.md §11.1) ---- */
static inline unsigned km_ctrl_mode(uint64_t v) { return (unsigned)kh_bits_get(&v, 0, 3); }
static inline unsigned km_ctrl_ewidth(uint64_t v) { return (unsigned)kh_bits_get(&v, 3, 2); }
static inline unsigned km_ctrl_coalesce(uint64_t v) { return (unsigned)kh_bits_get(&v, 11, 1); }
static inline unsigned km_ctrl_burst(uint64_t v) { return (unsigned)kh_bits_get(&v, 13, 3); }
static inline unsigned km_ctrl_go(uint64_t v) { return (unsigned)kh_bits_get(&v, 16, 1); }
static inline unsigned km_hdr_sel(uint64_t v) { return (unsigned)kh_bits_get(&v, 0, 1); }
static inline uint64_t km_hdr_base(uint64_t v) { return kh_bits_get(&v, 4, 40); }
static inline unsigned km_hdr_ndim(uint64_t v) { return (unsigned)kh_bits_get(&v, 44, 3); }
static inline unsigned km_hdr_xform_id(uint64_t v) { return (unsigned)kh_bits_get(&v, 47, 4); }
static inline unsigned km_hdr_xform_mode(uint64_t v) { return (unsigned)kh_bits_get(&v, 55, 4); }
static inline unsigned km_dim_sel(uint64_t v) { return (unsigned)kh_bits_get(&v, 0, 1); }
static inline unsigned km_dim_dim(uint64_t v) { return (unsigned)kh_bits_get(&v, 1, 3); }
static inline unsigned km_dim_count(uint64_t v) { return (unsigned)kh_bits_get(&v, 4, 16); }
static inline uint32_t km_dim_stride(uint64_t v) { return (uint32_t)kh_bits_get(&v, 20, 32); }
static inline unsigned km_axis_axis(uint64_t v) { return (unsigned)kh_bits_get(&v, 0, 2); }
static inline unsigned km_axis_astep(uint64_t v) { return (unsigned)kh_bits_get(&v, 2, 16); }
static inline unsigned km_bound_sel(uint64_t v) { return (unsigned)kh_bits_get(&v, 0, 1); }
static inline unsigned km_bound_ax(uint64_t v) { return (unsigned)kh_bits_get(&v, 1, 1); }
static inline unsigned km_bound_abase(uint64_t v) { return (unsigned)kh_bits_get(&v, 2, 16); }
static inline unsigned km_bound_aext(uint64_t v) { return (unsigned)kh_bits_get(&v, 18, 16); }
static inline uint64_t km_idx_base(uint64_t v) { return kh_bits_get(&v, 0, 40); }
static inline unsigned km_idx_count(uint64_t v) { return (unsigned)kh_bits_get(&v, 40, 16); }
static inline uint64_t km_seed(uint64_t v) { return v; }
static inline uint32_t km_imm(uint64_t v) { return (uint32_t)kh_bits_get(&v, 0, 32); }
static inline uint32_t km_gather_pitch(uint64_t v) { return (uint32_t)kh_bits_get(&v, 0, 32); }
static inline unsigned km_gather_gwords(uint64_t v) { return (unsigned)kh_bits_get(&v, 32, 16); }

/* ---- transform bank register 0x04 (memory.md §12) ---- */
static inline uint32_t kx_bank_geometry(unsigned out_words, unsigned in_bits)
{
    uint64_t v = 0;
    kh_bits_set(&v, 16, 8, out_words);
    kh_bits_set(&v, 0, 16, in_bits);
    return (uint32_t)v;
}

/* ---- AUX_STAT (control.md §2.8) ---- */
static inline uint64_t km_aux_stat(uint32_t done, unsigned ar, unsigned wr, unsigned fault, unsigned busy)
{
    uint64_t v = 0;
    kh_bits_set(&v, 40, 24, done);
    kh_bits_set(&v, 24, 16, ar);
    kh_bits_set(&v, 8, 16, wr);
    kh_bits_set(&v, 4, 4, fault);
    kh_bits_set(&v, 0, 1, busy);
    return v;
}

#endif
