/* Scalar, mode and control instructions (vector.md §5.6, §10.1). */
#include "cu/units/vector/vec.h"

int kh_vec_exec_vsetvl(vec_core *c, const vec_insn *in, vec_exec *x)
{
    uint32_t v = c->st.s[in->va] & 0xFFFFFFu; /* an unsigned integer here (§2) */
    x->next = x->e + 1;
    if (v == 0 || v > VEC_MAXVL) {
        x->fault = VEC_F_VL;
        return VX_FAULT;
    }
    c->st.vl = v;
    return VX_NEXT;
}

int kh_vec_exec_vsetmode(vec_core *c, const vec_insn *in, vec_exec *x)
{
    c->st.vmode = in->mode;
    /* EXEC repeats while the lanes are not empty */
    x->next = (c->lanes.idle > x->e ? c->lanes.idle : x->e) + 1;
    return VX_NEXT;
}

int kh_vec_exec_vseti(vec_core *c, const vec_insn *in, vec_exec *x)
{
    uint32_t imm = kh_vec_decode_imm(kh_vec_fetch_extra(c, "immediate"));
    if (in->sa == 3) /* sa = 3 -> K3 (§5.6) */
        c->st.k3 = imm;
    else
        c->st.s[in->vd] = imm;
    x->next = x->e + 3; /* SETI, SETI2 */
    return VX_NEXT;
}

int kh_vec_exec_vloop(vec_core *c, const vec_insn *in, vec_exec *x)
{
    vec_state *st = &c->st;
    x->next = x->e + 1;
    if (st->loop_active) {
        x->fault = VEC_F_LOOP;
        return VX_FAULT;
    }
    st->loop_count = st->s[in->va] & 0xFFFFFFu;
    st->loop_top = st->pc; /* pc + 1 */
    st->loop_end = (st->pc + in->vb) % VEC_IMEM; /* the literal field, not S[vb] */
    st->loop_active = 1;
    if (in->vb == 0 && st->loop_count > 1) {
        c->stats.loop_warnings++;
        kh_vec_core_log(c, KH_LOG_WARN,
                     "VLOOP at pc %u has an empty body and count %u: it runs nothing and stays "
                     "armed, so a later VLOOP in this RUN faults F_LOOP (vector.md §5.6)",
                     c->cur_pc, st->loop_count);
    }
    return VX_NEXT;
}

int kh_vec_exec_vbar(vec_core *c, const vec_insn *in, vec_exec *x)
{
    (void)in;
    c->phase = VP_WAIT_FILL;
    c->wait_kind = VW_BAR;
    c->t = x->e + 1; /* BAR >= 1 */
    return VX_PHASE;
}

int kh_vec_exec_vhalt(vec_core *c, const vec_insn *in, vec_exec *x)
{
    (void)in;
    c->phase = VP_WAIT_FILL;
    c->wait_kind = VW_HALT;
    c->t = x->e + 1; /* WAITP >= 1, then HALT */
    return VX_PHASE;
}
