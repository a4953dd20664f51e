/* The inner word's field views (vector.md §4.1), read only through the
 * accessors generated from isa/vector_inner.isa. */
#include "kohaku/gen/vector_inner.h"

#include "cu/units/vector/vec.h"

void kh_vec_decode(uint32_t word, vec_insn *in)
{
    const uint64_t w[1] = {word};
    in->word = word;
    in->op = (unsigned)kh_vinner_op(w);
    in->sa = (unsigned)kh_vinner_sa(w);
    in->sb = (unsigned)kh_vinner_sb(w);
    in->sc = (unsigned)kh_vinner_sc(w);
    in->vd = (unsigned)kh_vinner_vd(w);
    in->va = (unsigned)kh_vinner_va(w);
    in->vb = (unsigned)kh_vinner_vb(w);
    in->vc = (unsigned)kh_vinner_vc(w);
    in->pr = (unsigned)kh_vinner_pr(w);
    in->pm = (unsigned)kh_vinner_pm(w);
    in->dt = (unsigned)kh_vinner_dt(w);
    in->ad = (unsigned)kh_vinner_ad(w);
    in->off = (int)kh_vinner_off_s(w);
    in->kind = (unsigned)kh_vinner_kind(w);
    in->mode = (unsigned)kh_vinner_mode(w);
    in->l1 = (unsigned)kh_vinner_start(w);
    in->peer = (unsigned)kh_vinner_peer(w);
    in->sig = (unsigned)kh_vinner_sig(w);
    in->dx = (unsigned)kh_vinner_dst_x(w);
    in->dy = (unsigned)kh_vinner_dst_y(w);
    in->buf = (unsigned)kh_vinner_buf(w);
}

uint32_t kh_vec_decode_imm(uint32_t word)
{
    const uint64_t w[1] = {word};
    return (uint32_t)kh_vseti_imm_imm(w);
}
