/* Every flit vec_cu builds or reads (vector.md §1.3, §1.4, §8.3), through
 * the accessors generated from isa/flit.isa. */
#include "kohaku/gen/flit.h"

#include "cu/units/vector/vec.h"

#define FILL_TXN_LAST 1 /* §1.3: plain one-beat read, last 1 */
#define DRAIN_TXN 0x01  /* §1.3: VDRAIN MEM_WR_REQ / MEM_WR_DATA txn */
#define SIG_DATA_RECEIVED 0x03 /* flits.md §5 */

/* A cleared flit with the header of this core's flits to its memory port
 * (§1.3). */
static void to_memory(kh_flit *f, const vec_core *c, unsigned type, unsigned txn, unsigned last)
{
    kh_flit_clear(f);
    kh_flit_set_hdr(f, &(kh_flit_hdr){.dst_x = c->mem_x, .dst_y = c->mem_y, .src_x = c->x, .src_y = c->y,
                                      .type = type, .txn = txn, .last = last});
}

void kh_vec_flit_rd_req(const vec_core *c, uint64_t addr, unsigned tag, kh_flit *f)
{
    to_memory(f, c, KH_T_MEM_RD_REQ, tag, FILL_TXN_LAST); /* txn keeps tag[7:0] */
    kh_mem_rd_req_set_addr(f->w, addr);
    kh_mem_rd_req_set_len(f->w, 0);   /* one beat */
    kh_mem_rd_req_set_flags(f->w, 0); /* plain read */
}

void kh_vec_flit_wr_req(const vec_core *c, uint64_t addr, kh_flit *f)
{
    to_memory(f, c, KH_T_MEM_WR_REQ, DRAIN_TXN, 0);
    kh_mem_wr_req_set_addr(f->w, addr);
    kh_mem_wr_req_set_len(f->w, 0); /* one data flit */
}

void kh_vec_flit_wr_data(const vec_core *c, const uint64_t word[4], kh_flit *f)
{
    to_memory(f, c, KH_T_MEM_WR_DATA, DRAIN_TXN, 1);
    kh_mem_wr_data_set_data(f->w, word);
}

void kh_vec_flit_peer_desc(const vec_core *c, const vec_insn *in, const vec_peer_rec *r,
                        unsigned total, kh_flit *f)
{
    kh_flit_clear(f);
    kh_flit_set_hdr(f, &(kh_flit_hdr){.dst_x = in->dx, .dst_y = in->dy, .src_x = c->x, .src_y = c->y,
                                      .type = KH_T_CU_DATA});
    if (r->fin_x || r->fin_y) { /* a far-mesh node: txn {fin_y, fin_x}, rsvd {1, mesh} (§8.3) */
        kh_hdr_set_txn_fin_x(f->w, r->fin_x);
        kh_hdr_set_txn_fin_y(f->w, r->fin_y);
        kh_hdr_set_rsvd_remote(f->w, 1);
        kh_hdr_set_rsvd_mesh(f->w, r->mesh);
    }
    kh_cu_data_set_buf_id(f->w, in->buf);
    kh_cu_data_set_offset(f->w, r->offset);
    kh_cu_data_set_len(f->w, total - 1);
    kh_cu_data_set_flags(f->w, in->sig);
    kh_cu_data_set_ack_y(f->w, r->ack_y);
    kh_cu_data_set_ack_x(f->w, r->ack_x);
}

void kh_vec_flit_peer_data(const kh_flit *desc, const uint64_t word[4], int last, kh_flit *f)
{
    *f = *desc;
    kh_cu_data_data_set_data(f->w, word);
    kh_hdr_set_last(f->w, last ? 1 : 0);
}

void kh_vec_flit_data_received(const vec_core *c, unsigned dst_x, unsigned dst_y, unsigned buf,
                            kh_flit *f)
{
    kh_flit_clear(f);
    kh_flit_set_hdr(f, &(kh_flit_hdr){.dst_x = dst_x, .dst_y = dst_y, .src_x = c->x, .src_y = c->y,
                                      .type = KH_T_CU_SIGNAL, .txn = 0x00, .last = 1}); /* txn 0 (§1.4) */
    kh_cu_signal_set_code(f->w, SIG_DATA_RECEIVED);
    kh_cu_signal_set_arg(f->w, buf);
}

unsigned kh_vec_flit_type(const kh_flit *f) { return (unsigned)kh_hdr_type(f->w); }
unsigned kh_vec_flit_txn(const kh_flit *f) { return (unsigned)kh_hdr_txn(f->w); }
unsigned kh_vec_flit_src_x(const kh_flit *f) { return (unsigned)kh_hdr_src_x(f->w); }
unsigned kh_vec_flit_src_y(const kh_flit *f) { return (unsigned)kh_hdr_src_y(f->w); }

void kh_vec_flit_cudata_desc(const kh_flit *f, vec_cudata_desc *d)
{
    d->buf = (unsigned)kh_cu_data_buf_id(f->w);
    d->offset = (unsigned)kh_cu_data_offset(f->w);
    d->len = (unsigned)kh_cu_data_len(f->w);
    d->flags = (unsigned)kh_cu_data_flags(f->w);
    d->ack_x = (unsigned)kh_cu_data_ack_x(f->w);
    d->ack_y = (unsigned)kh_cu_data_ack_y(f->w);
}
