/* The V2 front end (docs/vector2.md §1, §4, §7): fetch, decode, the faults,
 * dispatch into the engines' queues, loops, and the scalar and configuration
 * state. Fields come only through the accessors generated from
 * isa/vector2.isa. */
#include <string.h>

#include "kohaku/gen/vector2.h"

#include "cu/units/vector2/v2.h"

void kh_v2_decode(uint32_t word, v2_dec *d)
{
    const uint64_t w[1] = {word};
    d->w = word;
    d->op = (uint8_t)kh_v2_op(w);
    d->vd = (uint8_t)kh_v2_vd(w);
    d->va = (uint8_t)kh_v2_va(w);
    d->vb = (uint8_t)kh_v2_vb(w);
    d->vc = (uint8_t)kh_v2_vc(w);
    d->sa = (uint8_t)kh_v2_sa(w);
    d->sb = (uint8_t)kh_v2_sb(w);
    d->sc = (uint8_t)kh_v2_sc(w);
    d->om = (uint8_t)kh_v2_om(w);
    d->sel = (uint8_t)kh_v2_sel(w);
    d->pay = (uint32_t)kh_v2_payload(w);
    d->mode = (uint8_t)kh_v2_mode(w);
    d->n = (uint8_t)kh_v2_n(w);
    d->cb = (uint8_t)kh_v2_cb(w);
    d->rel = (uint8_t)kh_v2_rel(w);
    d->q = (uint8_t)kh_v2_q(w);
    d->off = (uint16_t)kh_v2_off(w);
    d->wt = (uint8_t)kh_v2_waiter(w);
    d->on = (uint8_t)kh_v2_on(w);
    d->slack = (uint8_t)kh_v2_slack(w);
    d->mk = (uint8_t)kh_v2_mk(w);
    d->mid = (uint8_t)kh_v2_mark(w);
    d->sq = (uint8_t)kh_v2_sq(w);
    d->sreg = (uint8_t)kh_v2_sreg(w);
    d->skip = (uint8_t)kh_v2_skip(w);
    d->tok = (uint8_t)kh_v2_tok(w);
    d->vsreg = (uint8_t)kh_v2_vsreg(w);
    d->body = (uint16_t)kh_v2_body(w);
    d->frel = (uint8_t)kh_v2_frel(w);
    d->ad = (uint8_t)kh_v2_ad(w);
}

int kh_v2_sync_ok(const v2_core *c, unsigned on, uint16_t tgt)
{
    return (uint16_t)(c->n_done[on] - tgt) < 0x8000u;
}

/* The kind a VSYNC names: with one queue, queue 1's kinds are queue 0's. */
static unsigned sync_on(const v2_core *c, unsigned on)
{
    if (c->cfg.dualq) return on;
    return on == V2_K_U1 ? V2_K_U : on == V2_K_P1 ? V2_K_P : on;
}

static int is_math(unsigned op) { return op <= V2_O_EXP2D; }
static int is_cmp(unsigned op) { return op >= 0x0B && op <= 0x0D; }

/* S[r & 15] or K[r & 3] for a constant operand (0 for a vector one). */
static uint32_t pick(const v2_core *c, unsigned sel, unsigned r)
{
    return sel == V2_SRC_S ? c->sreg[r & 15] : sel == V2_SRC_K ? c->kreg[r & 3] : 0;
}

/* A decoded math op, VUNPK or VPACK that would dispatch but for a full
 * queue (no fault of its own). */
static int queue_wait(const v2_core *c, const v2_dec *d)
{
    unsigned op = d->op, qd = c->cfg.qd, q = c->cfg.dualq && d->q;
    if (is_math(op)) return d->sa != 2 && d->sb != 2 && d->sc != 2 && v2_q_full(c->mq.count, qd);
    int gt4_bad = d->mode == V2_MD_GT4 && (d->n & 3) != 3;
    if (op == V2_O_VUNPK) return d->mode != 3 && !gt4_bad && v2_q_full(c->uq[q].count, qd);
    if (op == V2_O_VPACK) {
        int mx_bad = !c->cfg.has_mx || d->n != 7 || (d->cb >> 1) != 0;
        return !(d->mode == V2_MD_MX7 && mx_bad) && !gt4_bad && v2_q_full(c->pq[q].count, qd);
    }
    return 0;
}

void kh_v2_fe_wires(v2_core *c, v2_wires *w)
{
    const v2_dec *d = &c->ir;
    unsigned op = d->op;
    w->fe_fault = 0;
    w->fe_ok = 0;
    if (!c->ref && c->d_v && c->run && !c->cd_err && queue_wait(c, d)) {
        /* the commonest waits: what the wires below give then (no dispatch,
         * no advance, no redirect, the fetch holds; the redirect and loop
         * wires are read only on an advance) */
        w->d_q = c->cfg.dualq && ((op == V2_O_VUNPK || op == V2_O_VPACK) ? d->q : d->sq);
        w->redirect = 0;
        w->redir_pc = 0;
        w->adv = 0;
        w->lp_back = w->lp_exit = 0;
        w->ok_next = -1;
        uint32_t sr_va = c->sreg[d->va & 15];
        w->vl_bad = sr_va == 0 || sr_va > V2_VLMAX;
        w->skip_z = c->sreg[d->vd & 15] == 0;
        w->a_fault = c->a_fault;
        w->a_fcode = c->a_fcode;
        w->im_addr = c->f_pc;
        return;
    }
    w->d_q = c->cfg.dualq && ((op == V2_O_VUNPK || op == V2_O_VPACK) ? d->q : d->sq);
    unsigned qd = c->cfg.qd;
    int mq_f = v2_q_full(c->mq.count, qd);
    int uq_f = v2_q_full(c->uq[w->d_q].count, qd);
    int pq_f = v2_q_full(c->pq[w->d_q].count, qd);
    int fq_f = v2_q_full(c->fq.count, V2_AQD), dq_f = v2_q_full(c->dq.count, V2_AQD);
    unsigned don = sync_on(c, d->on);
    if (c->d_v && c->run) {
        if (c->cd_err) {
            w->fe_fault = V2_F_CUDATA;
        } else if (is_math(op)) {
            if (d->sa == 2 || d->sb == 2 || d->sc == 2) w->fe_fault = V2_F_SRC;
            else w->fe_ok = !mq_f;
        } else {
            int gt4_bad = d->mode == V2_MD_GT4 && (d->n & 3) != 3;
            switch (op) {
            case V2_O_VCFG: /* CHKVL's VL - 1 is 7 bits: never 128 or more */
                w->fe_ok = 1;
                break;
            case V2_O_VUNPK:
                if (d->mode == 3) w->fe_fault = V2_F_MODE;
                else if (gt4_bad) w->fe_fault = V2_F_GT4;
                else w->fe_ok = !uq_f;
                break;
            case V2_O_VPACK: {
                int mx_bad = !c->cfg.has_mx || d->n != 7 || (d->cb >> 1) != 0;
                if (d->mode == V2_MD_MX7 && mx_bad) w->fe_fault = V2_F_MODE;
                else if (gt4_bad) w->fe_fault = V2_F_GT4;
                else w->fe_ok = !pq_f;
                break;
            }
            case V2_O_VSYNC:
                if (don > V2_K_P1 || d->wt > V2_W_D) w->fe_fault = V2_F_SYNC;
                else switch (d->wt) {
                    case V2_W_FE: w->fe_ok = c->d_old && c->sl_ok_q; break;
                    case V2_W_U: w->fe_ok = !uq_f; break;
                    case V2_W_M: w->fe_ok = !mq_f; break;
                    case V2_W_P: w->fe_ok = !pq_f; break;
                    case V2_W_MK: w->fe_ok = 1; break;
                    case V2_W_D: w->fe_ok = !dq_f; break;
                    default: w->fe_ok = !fq_f; break;
                    }
                break;
            case V2_O_VBAR: w->fe_ok = !uq_f; break;
            case V2_O_VSKIPZ: w->fe_ok = c->d_old; break;
            case V2_O_VSETVL:
                if (c->d_old && c->sl_vl_q) w->fe_fault = V2_F_VL;
                else w->fe_ok = c->d_old;
                break;
            case V2_O_VSETI: w->fe_ok = c->d_old && c->sl_ok_q; break; /* the immediate is on im_q */
            case V2_O_VLOOP:
                if (c->lp_act) w->fe_fault = V2_F_LOOP;
                else w->fe_ok = 1;
                break;
            case V2_O_VFILL: w->fe_ok = !fq_f; break;
            case V2_O_VDRAIN: w->fe_ok = !dq_f; break;
            case V2_O_VHALT: w->fe_ok = c->d_old && c->sl_ok_q; break;
            default: w->fe_fault = V2_F_OPCODE; break;
            }
        }
    }
    unsigned m = c->pcw_mask;
    int skip_take = op == V2_O_VSKIPZ && c->sl_skip_q;
    w->redirect = w->fe_ok && (op == V2_O_VLOOP || skip_take);
    w->redir_pc = (c->d_pc + 1 + (op == V2_O_VLOOP ? 0 : d->skip)) & m;
    w->adv = !c->d_v || w->fe_ok;
    unsigned f_inc = (c->f_pc + 1) & m;
    w->lp_back = c->lp_act && f_inc == c->lp_end && c->lp_cnt > 1;
    w->lp_exit = c->lp_act && f_inc == c->lp_end && c->lp_cnt <= 1;
    unsigned f_next = w->lp_back ? c->lp_top : f_inc;
    w->ok_next = op == V2_O_VSYNC ? (d->mk ? c->mk_cnt[d->mid] == 0 : c->n_out[don] <= d->slack)
               : op == V2_O_VSETI ? (c->f_v && c->f_pc == ((c->d_pc + 1) & m))
                                  : -1; /* VHALT and the rest: all_idle, known after every engine's wires */
    uint32_t sr_va = c->sreg[d->va & 15];
    w->vl_bad = sr_va == 0 || sr_va > V2_VLMAX;
    w->skip_z = c->sreg[d->vd & 15] == 0;
    w->a_fault = c->a_fault;
    w->a_fcode = c->a_fcode;
    w->im_addr = !c->run ? (w->in->start_pc & m) : w->redirect ? w->redir_pc : w->adv ? f_next : c->f_pc;
}

/* The queue entries this cycle's instruction would push (fe_ok gates the
 * pushes), read from the registers before the edge: the snapshots are the
 * dispatched counts without this instruction's own. */
void kh_v2_fe_entries(const v2_core *c, const v2_wires *w, v2_dispatch *e)
{
    if (!w->fe_ok) { /* nothing dispatched: no push, no kind, no mark (the entries are not read) */
        e->mq_push = e->uq_push = e->pq_push = e->fq_push = e->dq_push = 0;
        e->k_disp = 0;
        e->disp_m = e->disp_m_wr = e->disp_u = e->disp_p = e->uses_a = e->uses_b = e->uses_c = 0;
        e->mark = 0;
        return;
    }
    const v2_dec *d = &c->ir;
    unsigned op = d->op;
    int sync = op == V2_O_VSYNC;
    unsigned don = sync_on(c, d->on);
    uint16_t d_tgt = (uint16_t)(c->n_disp[don] - d->slack);
    unsigned s_on = d->mk ? c->mk_on[d->mid] : don;
    uint16_t s_tgt = d->mk ? c->mk_tgt[d->mid] : d_tgt;
    e->mq_push = w->fe_ok && (is_math(op) || (sync && d->wt == V2_W_M));
    e->uq_push = w->fe_ok && (op == V2_O_VUNPK || op == V2_O_VBAR || (sync && d->wt == V2_W_U));
    e->pq_push = w->fe_ok && (op == V2_O_VPACK || (sync && d->wt == V2_W_P));
    e->fq_push = w->fe_ok && (op == V2_O_VFILL || (sync && d->wt == V2_W_A));
    e->dq_push = w->fe_ok && (op == V2_O_VDRAIN || (sync && d->wt == V2_W_D));
    if (e->mq_push) {
        v2_mq_ent *m = &e->mq;
        memset(m, 0, sizeof *m);
        if (sync) {
            m->aop = 31;
            m->on = (uint8_t)s_on;
            m->tgt = s_tgt;
        } else {
            int cmp = is_cmp(op);
            /* operands an op reads (an unread one becomes K: no hazard, no read count);
             * with xc the c operand is the crossbar output of b's register */
            int op_b = (op >= 0x05 && op <= 0x0A) || cmp || op == V2_O_EXP2D;
            int op_c = op == 0x03 || op == 0x04 || op == 0x06 || op == 0x07 || op == 0x0A;
            int xc_now = d->om && ((c->c_xb >> 10) & 1);
            m->aop = (uint8_t)(op == V2_O_EXP2D ? 20 : (op >= 0x0E && op <= 0x11) ? op + 2 : op);
            m->vd = d->vd;
            m->va = d->va;
            m->vb = d->vb;
            m->vc = d->vc;
            m->sa = d->sa;
            m->sb = (uint8_t)((op_b || (xc_now && op_c)) ? d->sb : V2_SRC_K);
            m->sc = (uint8_t)(op_c ? d->sc : V2_SRC_K);
            m->ka = pick(c, m->sa, d->va);
            m->kb = pick(c, m->sb, d->vb);
            m->kc = pick(c, m->sc, d->vc);
            m->nb = (uint8_t)((c->vl >> 4) + ((c->vl & 15) != 0));
            m->tl = (uint8_t)(c->vl & 15);
            m->chk = d->om ? c->c_chk : 0x1111;
            m->xb = d->om ? c->c_xb : 0;
            m->cmp = (uint8_t)cmp;
            m->expd = op == V2_O_EXP2D;
            m->wr = !cmp;
            m->s_a = c->Wd[d->va];
            m->s_b = c->Wd[d->vb];
            m->s_c = c->Wd[d->vc];
            m->s_uw = c->UWd[d->vd];
            m->s_pr = c->PRd[d->vd];
        }
    }
    if (e->uq_push || e->pq_push) {
        v2_wq_ent *q = &e->wq;
        memset(q, 0, sizeof *q);
        if (sync || op == V2_O_VBAR) {
            q->sync = 1;
            q->on = (uint8_t)(sync ? s_on : V2_K_F);
            q->tgt = sync ? s_tgt : c->n_disp[V2_K_F];
        } else {
            int up = op == V2_O_VUNPK;
            unsigned off = d->off & (V2_L1 - 1);
            unsigned base = up ? c->c_uptr : c->c_pptr;
            q->reg = d->vd;
            q->mode = d->mode;
            q->n = d->n;
            q->cb = d->cb;
            q->addr = (uint16_t)((d->rel ? base + off : off) & (V2_L1 - 1));
            q->s0 = (uint16_t)(up ? c->c_us0 : c->c_ps0);
            q->s1 = (uint16_t)(up ? c->c_us1 : c->c_ps1);
            q->s_w = c->Wd[d->vd];
            q->s_pr = c->PRd[d->vd];
            if (up) {
                q->s_uw = c->UWd[d->vd];
                q->s_mr = c->MRd[d->vd];
            }
        }
    }
    if (e->fq_push || e->dq_push) {
        v2_aq_ent *a = &e->aq;
        memset(a, 0, sizeof *a);
        if (sync) {
            a->sync = 1;
            a->on = (uint8_t)s_on;
            a->tgt = s_tgt;
        } else {
            a->off = d->frel ? c->a_off[d->ad] : 0;
            a->ir = d->w;
        }
    }
    /* the kinds dispatched this cycle */
    int disp_u = w->fe_ok && op == V2_O_VUNPK, disp_p = w->fe_ok && op == V2_O_VPACK;
    e->k_disp = (unsigned)(w->fe_ok && op == V2_O_VFILL) << V2_K_F | (unsigned)(disp_u && !w->d_q) << V2_K_U |
                (unsigned)(w->fe_ok && is_math(op)) << V2_K_M | (unsigned)(disp_p && !w->d_q) << V2_K_P |
                (unsigned)(w->fe_ok && op == V2_O_VDRAIN) << V2_K_D | (unsigned)(disp_u && w->d_q) << V2_K_U1 |
                (unsigned)(disp_p && w->d_q) << V2_K_P1;
    e->disp_m = w->fe_ok && is_math(op);
    e->disp_m_wr = e->disp_m && !is_cmp(op);
    e->disp_u = disp_u;
    e->disp_p = disp_p;
    e->mark = w->fe_ok && sync && d->wt == V2_W_MK;
    e->mark_on = (uint8_t)don;
    e->mark_tgt = d_tgt;
    int owed = (int)c->n_out[don] - (int)((w->k_done >> don) & 1u) - (int)d->slack;
    e->mark_cnt = (uint8_t)(owed < 0 ? 0 : owed);
    e->uses_a = e->disp_m && e->mq.sa == V2_SRC_V;
    e->uses_b = e->disp_m && e->mq.sb == V2_SRC_V;
    e->uses_c = e->disp_m && e->mq.sc == V2_SRC_V;
}

void kh_v2_fe_reset(v2_core *c)
{
    c->run = 0;
    c->f_v = 0;
    c->d_v = 0;
    c->busy = 0;
    c->halted = 0;
    c->fault = 0;
    c->fault_code = 0;
    c->cycles = 0;
    c->lp_act = 0;
    c->vl = V2_VLMAX;
    c->cd_err = 0;
    c->f_pc = 0;
    c->c_chk = 0x1111;
    c->c_xb = 0;
    c->c_uptr = c->c_uinc = c->c_pptr = c->c_pinc = 0;
    c->c_us0 = c->c_ps0 = 1; /* flat: word w at base + w */
    c->c_us1 = c->c_ps1 = 4;
    memset(c->a_off, 0, sizeof c->a_off);
    memset(c->a_inc, 0, sizeof c->a_inc);
    c->kreg[0] = 0;
    c->kreg[1] = KH_E8_ONE;
    c->kreg[2] = KH_E8_NEG_ONE;
    c->kreg[3] = 0;
}

/* The front end's registers at the edge (rst: the core's reset). */
void kh_v2_fe_edge(v2_core *c, const v2_wires *w, int rst)
{
    const v2_dec *d = &c->ir;
    const v2_in *in = w->in;
    unsigned m = c->pcw_mask;
    /* the slow conditions, evaluated into registers for the second cycle in decode */
    c->stk_clr = 0;
    c->srst = 0;
    c->d_old = !rst && c->run && w->fe_fault == 0 && !w->a_fault && !w->adv;
    c->sl_ok_q = w->ok_next >= 0 ? w->ok_next : w->all_idle;
    c->sl_vl_q = w->vl_bad;
    c->sl_skip_q = w->skip_z;
    uint32_t im_q = c->im_q;
    c->im_q = c->imem[w->im_addr]; /* the IMEM read; a load this edge is not seen (read-first) */
    if (rst) {
        kh_v2_fe_reset(c);
        return;
    }
    if (c->busy) c->cycles++;
    if (!c->run) {
        c->f_pc = in->start_pc & m;
        c->d_v = 0;
        c->f_v = 0;
        if (in->start) {
            c->run = 1;
            c->f_v = 1;
            c->busy = 1;
            c->halted = 0;
            c->fault = 0;
            c->cycles = 0;
            c->lp_act = 0;
            c->srst = 1;
            memset(c->a_off, 0, sizeof c->a_off);
            if (c->cd_err) {
                c->cd_err = 0;
                c->fault_code = V2_F_CUDATA;
                c->run = 0;
                c->busy = 0;
                c->fault = 1;
            }
        }
    } else if (w->fe_fault || w->a_fault) {
        c->fault_code = w->a_fault ? w->a_fcode : w->fe_fault;
        c->fault = 1;
        c->busy = 0;
        c->run = 0;
        c->cd_err = 0;
    } else {
        unsigned d_pc = c->d_pc, f_pc = c->f_pc;
        c->f_pc = w->im_addr;
        if (w->redirect) {
            c->d_v = 0;
        } else if (w->adv) {
            int seti = w->fe_ok && c->d_v && d->op == V2_O_VSETI;
            c->d_pc = f_pc;
            c->d_v = c->f_v && !seti;
            if (w->lp_back) c->lp_cnt--;
            if (w->lp_exit) c->lp_act = 0;
        }
        if (w->fe_ok) {
            const uint64_t pw[1] = {d->w};
            switch (d->op) {
            case V2_O_VCFG:
                switch (d->sel) {
                case 0: c->c_chk = (uint16_t)kh_v2_chk(pw); break;
                case 1: c->c_xb = (uint16_t)(d->pay & 0x7FFF); break;
                case 2: c->c_uptr = (unsigned)kh_v2_ptr(pw); break;
                case 3: c->c_uinc = (unsigned)kh_v2_ptr(pw); break;
                case 4: c->c_us0 = (unsigned)kh_v2_s0(pw); c->c_us1 = (unsigned)kh_v2_s1(pw); break;
                case 5: c->c_pptr = (unsigned)kh_v2_ptr(pw); break;
                case 6: c->c_pinc = (unsigned)kh_v2_ptr(pw); break;
                case 7: c->c_ps0 = (unsigned)kh_v2_s0(pw); c->c_ps1 = (unsigned)kh_v2_s1(pw); break;
                case 8:
                    c->sreg[kh_v2_gsreg(pw)] = w->sticky_any ? KH_E8_ONE : 0;
                    c->stk_clr = 1;
                    break;
                case 9: c->a_inc[kh_v2_aad(pw)] = (int32_t)kh_v2_ainc_s(pw); break;
                case 10:
                    c->vl = (unsigned)kh_v2_vlm1(pw) + 1;
                    c->c_chk = (uint16_t)kh_v2_chk(pw);
                    break;
                default: break;
                }
                break;
            case V2_O_VUNPK:
                if (d->rel) c->c_uptr = (c->c_uptr + c->c_uinc) & (V2_L1 - 1);
                break;
            case V2_O_VPACK:
                if (d->rel) c->c_pptr = (c->c_pptr + c->c_pinc) & (V2_L1 - 1);
                break;
            case V2_O_VFILL:
            case V2_O_VDRAIN:
                if (d->frel) c->a_off[d->ad] = (c->a_off[d->ad] + (uint64_t)(int64_t)c->a_inc[d->ad]) & V2_AW_MASK;
                break;
            case V2_O_VSETVL: c->vl = c->sreg[d->vsreg] & 0xFF; break;
            case V2_O_VSETI:
                if (d->tok) c->kreg[3] = im_q & 0xFFFFFF;
                else c->sreg[d->sreg] = im_q & 0xFFFFFF;
                break;
            case V2_O_VLOOP:
                c->lp_act = 1;
                c->lp_cnt = c->sreg[d->vsreg];
                c->lp_top = (d_pc + 1) & m;
                c->lp_end = (d_pc + 1 + d->body) & m;
                break;
            case V2_O_VHALT:
                c->run = 0;
                c->busy = 0;
                c->halted = 1;
                break;
            default: break;
            }
        }
        if (!w->redirect && w->adv) kh_v2_decode(im_q, &c->ir);
    }
    if (in->cd_fault) c->cd_err = 1;
}
