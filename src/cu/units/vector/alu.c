/* ALU instructions (opcodes 0x00-0x11): FLAT, D2/D4 chains and the TREE-mode
 * refusal (vector.md §5.1-§5.3, §7, §10.1). Every element goes through
 * kh_valu (numerics §9); a chain stage rounds like any ALU op. */
#include <string.h>

#include "cu/units/vector/vec.h"

static unsigned mode_depth(unsigned vmode)
{
    static const unsigned d[4] = {1, 2, 4, 4}; /* FLAT, D2, D4; TREE gathers 4 (§5.3) */
    return d[vmode & 3];
}

/* One operand, src(sel, r, e) of §5, resolved once per instruction: a
 * vector register read element-wise, the chain value, or a value sampled at
 * issue (S broadcast, K constant). */
typedef struct operand {
    const kh_e8 *v; /* selector V */
    int chain;      /* selector C */
    kh_e8 k;        /* selector S or K */
} operand;

static operand resolve(const vec_state *st, unsigned sel, unsigned r)
{
    operand o = {NULL, 0, 0};
    if (sel == VEC_SEL_V)
        o.v = st->v[r];
    else if (sel == VEC_SEL_C)
        o.chain = 1;
    else
        o.k = sel == VEC_SEL_S ? st->s[r] & 0xFFFFFFu : kh_vec_kreg(st, r);
    return o;
}

/* Selector rules (§5.1, §5.2, §9): a head must not name C, a later stage
 * must not name V, on all three selectors whether the op reads them or not. */
static unsigned check_selectors(const vec_insn *stage, unsigned depth)
{
    for (unsigned t = 0; t < depth; t++) {
        const unsigned sel[3] = {stage[t].sa, stage[t].sb, stage[t].sc};
        for (int k = 0; k < 3; k++) {
            if (t == 0 && sel[k] == VEC_SEL_C) return VEC_F_CHAIN;
            if (t > 0 && sel[k] == VEC_SEL_V) return VEC_F_VSRC;
        }
    }
    return VEC_F_NONE;
}

int kh_vec_exec_alu(vec_core *c, const vec_insn *head, vec_exec *x)
{
    vec_state *st = &c->st;
    unsigned depth = mode_depth(st->vmode);
    vec_insn stage[4];
    int alu[4];
    stage[0] = *head;
    for (unsigned t = 1; t < depth; t++) kh_vec_decode(kh_vec_fetch_extra(c, "chain group"), &stage[t]);
    kh_cycle gathered = x->e + 4 * (kh_cycle)(depth - 1); /* (D-1) x 4 gather cycles */

    unsigned f = check_selectors(stage, depth);
    for (unsigned t = 0; t < depth && !f; t++) {
        alu[t] = kh_vec_opdef_of(stage[t].op)->alu;
        if (alu[t] < 0) { /* a non-ALU word gathered as a stage: undefined upstream */
            kh_vec_core_log(c, KH_LOG_WARN,
                         "chain stage %u of the instruction at pc %u is %s, not an ALU op: "
                         "faulting F_OPCODE (simulator choice)",
                         t, c->cur_pc, kh_vec_opdef_of(stage[t].op)->name);
            f = VEC_F_OPCODE;
        }
    }
    if (!f && st->vmode == VEC_TREE) { /* undefined upstream; Open point 5: fault */
        kh_vec_core_log(c, KH_LOG_WARN,
                     "%s at pc %u issued in TREE mode: only VRED is defined there; faulting "
                     "F_OPCODE (vector.md §5.3, Open point 5)",
                     kh_vec_opdef_of(head->op)->name, c->cur_pc);
        f = VEC_F_OPCODE;
    }
    if (f) {
        x->fault = f;
        x->next = gathered + 1;
        return VX_FAULT;
    }

    const vec_insn *last = &stage[depth - 1];
    int cmp = kh_vec_is_compare((unsigned)alu[depth - 1]);
    unsigned nc = vec_nchunk(st->vl);

    /* timing: hazard stall on every register field named, then nc·D beats */
    unsigned regs[16], nreg = 0;
    for (unsigned t = 0; t < depth; t++) {
        regs[nreg++] = stage[t].vd;
        regs[nreg++] = stage[t].va;
        regs[nreg++] = stage[t].vb;
        regs[nreg++] = stage[t].vc;
    }
    kh_cycle b0 = kh_vec_lanes_haz(&c->lanes, gathered + 1, regs, nreg);
    if (!cmp && last->pm != 0)
        kh_vec_hazard_check(c, last->pr, b0, depth, nc, kh_vec_opdef_of(last->op)->name);
    kh_vec_lanes_issue(&c->lanes, b0, nc, depth, cmp ? -1 : (int)last->vd, cmp ? (int)last->pr : -1,
                    c->alat);
    x->next = b0 + (kh_cycle)nc * depth + 1;

    /* the older core's port-a register holds the head's last chunk read */
    for (unsigned s = 0; s < VEC_SLICES; s++)
        st->porta[s] = st->v[head->va][VEC_SLICES * (nc - 1) + s];

    /* stage by stage over the elements (each element's chain is its own, so
     * this is the element-by-element order of §5.2 with the loops swapped);
     * elements past VL are computed by the lanes but never written */
    unsigned n = st->vl;
    kh_e8 val[VEC_MAXVL], in[3][VEC_MAXVL];
    int pred[VEC_MAXVL];
    for (unsigned t = 0; t < depth; t++) {
        const unsigned sel[3] = {stage[t].sa, stage[t].sb, stage[t].sc};
        const unsigned reg[3] = {stage[t].va, stage[t].vb, stage[t].vc};
        const kh_e8 *arg[3];
        for (unsigned k = 0; k < 3; k++) {
            operand o = resolve(st, sel[k], reg[k]);
            if (o.v) {
                arg[k] = o.v;
            } else if (o.chain) {
                arg[k] = val; /* the previous stage's results (all 0 before the first) */
                if (t == 0) memset(val, 0, n * sizeof val[0]);
            } else {
                for (unsigned e = 0; e < n; e++) in[k][e] = o.k;
                arg[k] = in[k];
            }
        }
        kh_valu_n((unsigned)alu[t], arg[0], arg[1], arg[2], val, pred, n, c->opt.valu);
    }
    if (!cmp && last->pm == 0) { /* unpredicated: wr_ok holds for every e < VL */
        memcpy(st->v[last->vd], val, n * sizeof val[0]);
        n = 0;
    }
    for (unsigned e = 0; e < n; e++) {
        if (cmp)
            vec_pset(st, last->pr, e, pred[e]); /* pm ignored (§5.1) */
        else if (kh_vec_wr_ok(st, e, last->pm, last->pr))
            st->v[last->vd][e] = val[e];
    }
    st->last_pm = last->pm;
    st->last_pr = last->pr;
    return VX_NEXT;
}
