/* mx_cluster_cu: the instruction word (cluster.md §2). Decode is a fixed
 * slice, independent of the opcode; every field comes from the accessors
 * generated from isa/cluster.isa. */
#include "cu/units/cluster/cluster_int.h"

#include <kohaku/gen/cluster.h>
#include <kohaku/gen/flit.h>

void kh_cl_decode(const kh_flit *inst, kh_cl_inst *o)
{
    const uint64_t *w = inst->w;
    o->op = (unsigned)kh_cluster_op(w);
    o->d.base = kh_cluster_addr(w); /* {addr_hi [68:63], addr [251:218]} */
    o->n = (unsigned)kh_cluster_n(w);
    o->sel = (unsigned)kh_cluster_sel(w);
    o->preq = (unsigned)kh_cluster_preq(w);
    o->acc = (unsigned)kh_cluster_acc(w);
    o->gm = (unsigned)kh_cluster_gm(w);
    o->gn = (unsigned)kh_cluster_gn(w);
    o->nk = (unsigned)kh_cluster_nk(w);
    o->anchor = (unsigned)kh_cluster_anchor(w);
    o->peers = (unsigned)kh_cluster_peers(w);
    o->npeer = (unsigned)kh_cluster_npeer(w);
    o->eoff = (unsigned)kh_cluster_eoff(w);
    o->aoff = (unsigned)kh_cluster_aoff(w);
    o->boff = (unsigned)kh_cluster_boff(w);
    o->emit = (unsigned)kh_cluster_emit(w);
    o->fuse = (unsigned)kh_cluster_fuse(w);
    o->abank = (unsigned)kh_cluster_abank(w);
    o->bbank = (unsigned)kh_cluster_bbank(w);
    o->fbank = (unsigned)kh_cluster_fbank(w);
    o->d.dnode = (unsigned)kh_cluster_dnode(w);
    o->d.dst_x = (unsigned)kh_cluster_dst_x(w);
    o->d.dst_y = (unsigned)kh_cluster_dst_y(w);
    o->d.dbuf = (unsigned)kh_cluster_dbuf(w);
    o->d.dflags = (unsigned)kh_cluster_dflags(w);
    o->d.dack_y = (unsigned)kh_cluster_dack_y(w);
    o->d.dack_x = (unsigned)kh_cluster_dack_x(w);
    o->d.dmesh = (unsigned)kh_cluster_dmesh(w);
    o->d.dfin = (unsigned)kh_cluster_dfin(w);
    o->txn = (unsigned)kh_hdr_txn(w);
    o->last = (unsigned)kh_hdr_last(w);
}

/* §1: an L1 index is {bank, off8} truncated to log2(size) bits; an 8-bit
 * offset never carries into the bank bit. size is a power of two. */
unsigned kh_cl_l1ix(unsigned bank, unsigned off, unsigned size)
{
    return ((bank & 1u) * 256u + (off & 255u)) & (size - 1u);
}
