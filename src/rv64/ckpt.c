/* The RV64 core in a checkpoint (docs/checkpoint.md): the registers, the
 * fetch stages and D, E's instruction, the multiply/divide unit, the AMO
 * sequence and the reservation, the CSR file with its registered trap, the
 * predictor's arrays and pipelines, the statistics. E's decoded control is
 * kept as its instruction word and decoded again on restore through the
 * core's own decoder, so the file holds no bitfield layout. */
#include "kohaku/ckpt.h"
#include "rv64/rv64_int.h"

#define CK(x) KH_CK(ck, x)

enum { E_ZERO, E_DECODED }; /* how E's decoded control is rebuilt */

static int insn_same(const rv6_insn *a, const rv6_insn *b)
{
    return a->word == b->word && a->op == b->op && a->alu == b->alu && a->rd == b->rd && a->rs1 == b->rs1 &&
           a->rs2 == b->rs2 && a->f3 == b->f3 && a->amo_op == b->amo_op && a->csr == b->csr && a->imm == b->imm &&
           a->wr == b->wr && a->word32 == b->word32 && a->op1_pc == b->op1_pc && a->op2_imm == b->op2_imm &&
           a->md == b->md && a->br == b->br && a->jal == b->jal && a->jalr == b->jalr && a->ld == b->ld &&
           a->st == b->st && a->amo == b->amo && a->fence == b->fence && a->fence_i == b->fence_i &&
           a->ecall == b->ecall && a->ebreak == b->ebreak && a->mret == b->mret && a->sret == b->sret &&
           a->sfence == b->sfence && a->wfi == b->wfi && a->csr_op == b->csr_op && a->csr_wr == b->csr_wr &&
           a->csr_imm == b->csr_imm && a->ill == b->ill;
}

/* E's instruction: its word, and whether it is the decoder's output for it
 * or the all-zero control a new core starts with (before E first loads) */
static void ck_insn(kh_ck *ck, rv6_insn *in)
{
    const rv6_insn zero = {0};
    uint32_t word = in->word;
    uint8_t form = E_DECODED;
    if (!kh_ck_loading(ck)) {
        rv6_insn d;
        kh_rv6_decode(word, &d);
        if (!insn_same(&d, in)) {
            if (!insn_same(&zero, in)) {
                kh_ck_fail(ck, "%s: the RV64 core's instruction in E is not its word's decode", kh_ck_where(ck));
                return;
            }
            form = E_ZERO;
        }
    }
    CK(word);
    CK(form);
    if (!kh_ck_loading(ck) || kh_ck_failed(ck)) return;
    if (form == E_DECODED) kh_rv6_decode(word, in);
    else if (form == E_ZERO && word == 0) *in = zero;
    else kh_ck_fail(ck, "%s: the RV64 core's instruction in E has form %u (word 0x%08x)", kh_ck_where(ck), form, word);
}

static void ck_csr(kh_ck *ck, rv6_csr *s)
{
    CK(s->mstatus), CK(s->mie), CK(s->mtvec), CK(s->mscratch), CK(s->mepc), CK(s->mcause), CK(s->mtval);
    CK(s->medeleg), CK(s->mideleg);
    CK(s->stvec), CK(s->sscratch), CK(s->sepc), CK(s->scause), CK(s->stval), CK(s->satp);
    CK(s->mcycle), CK(s->minstret), CK(s->mtime), CK(s->mtimecmp);
    CK(s->mip_msi), CK(s->priv), CK(s->mtvec_nz), CK(s->stvec_nz), CK(s->timer_irq);
    CK(s->trap_q), CK(s->deleg_q), CK(s->mret_q), CK(s->sret_q), CK(s->prev_q);
    CK(s->pc_q), CK(s->cause_q), CK(s->val_q);
}

static void ck_btb(kh_ck *ck, rv6_btb *e)
{
    CK(e->v), CK(e->tag), CK(e->tgt);
}

static void ck_bpred(kh_ck *ck, rv6_bpred *b)
{
    kh_ck_same(ck, b->qlat, "the RV64 predictor's lookup stages");
    for (unsigned i = 0; i < R6_BTB; i++) ck_btb(ck, &b->btb[i]);
    KH_CK_ARR(ck, b->pht, R6_PHT);
    KH_CK_ARR(ck, b->mir, R6_PHT);
    ck_btb(ck, &b->b1);
    ck_btb(ck, &b->bq);
    CK(b->p1), CK(b->pq), CK(b->pold), CK(b->ghist), CK(b->init_a), CK(b->init_q), CK(b->init_q2);
    CK(b->r_valid), CK(b->r_taken), CK(b->r_jump), CK(b->r_cond), CK(b->r_pc), CK(b->r_target), CK(b->r_pi);
    KH_CK_ARR(ck, b->ras, R6_RAS);
    CK(b->ras_tos), CK(b->ras_sp), CK(b->ras_v), CK(b->pq_ret), CK(b->pq_rv), CK(b->pq_tos);
}

static void ck_stats(kh_ck *ck, kh_rv64_stats *s)
{
    CK(s->retired), CK(s->traps), CK(s->interrupts), CK(s->load_use), CK(s->jalr_bubbles), CK(s->fetch_stalls);
    CK(s->mispredicts), CK(s->d_redirects), CK(s->md_cycles), CK(s->csr_cycles), CK(s->amo_cycles);
    CK(s->mem_cycles);
}

static void priv_ok(kh_ck *ck, unsigned p, const char *what)
{
    if (kh_ck_loading(ck) && !kh_ck_failed(ck) && p != R6_P_U && p != R6_P_S && p != R6_P_M)
        kh_ck_fail(ck, "%s: the RV64 core's %s is %u, not 0 (U), 1 (S) or 3 (M)", kh_ck_where(ck), what, p);
}

void kh_rv6_ckpt(kh_rv64 *c, kh_ck *ck)
{
    kh_ck_same(ck, c->fetch_lat, "the RV64 core's fetch stages");
    KH_CK_ARR(ck, c->x, 32);
    CK(c->cycle);
    CK(c->pc), CK(c->f2_v), CK(c->f2_pc), CK(c->f2_word), CK(c->f2_fault);
    CK(c->d_valid), CK(c->d_pc), CK(c->d_word), CK(c->d_fault), CK(c->d_hold_v), CK(c->d_hold), CK(c->d_hold_fault);
    CK(c->imem_stall_q), CK(c->d_seen), CK(c->redir_pend), CK(c->pend_use_pc4), CK(c->pend_pc_a), CK(c->pend_pc4);
    CK(c->e.valid);
    ck_insn(ck, &c->e.in);
    CK(c->e.pc), CK(c->e.btgt), CK(c->e.pc4), CK(c->e.pred_t), CK(c->e.ifault), CK(c->e.pred_tgt);
    CK(c->csr_hold), CK(c->csr_wd);
    CK(c->md_state), CK(c->md_fired), CK(c->md_done), CK(c->md_cnt), CK(c->md_y), CK(c->md_res);
    CK(c->a_state), CK(c->a_addr), CK(c->a_srcq), CK(c->a_old), CK(c->a_res);
    CK(c->resv_v), CK(c->resv_a), CK(c->eff_q);
    CK(c->jchk_v), CK(c->jchk_pt), CK(c->jchk_tgt), CK(c->jchk_ptgt), CK(c->jchk_pc);
    CK(c->irq_ext_q), CK(c->irq_soft_q), CK(c->retire_q);
    CK(c->halted), CK(c->halt_cause), CK(c->halt_pc);
    ck_csr(ck, &c->csr);
    ck_bpred(ck, &c->bp);
    ck_stats(ck, &c->st);
    /* x0 reads 0 whatever the file says (it is never written) */
    if (kh_ck_loading(ck) && !kh_ck_failed(ck) && c->x[0])
        kh_ck_fail(ck, "%s: the RV64 core's x0 is 0x%llx", kh_ck_where(ck), (unsigned long long)c->x[0]);
    /* a negative state reads as a huge unsigned one */
    kh_ck_below(ck, (unsigned)c->md_state, 4, "multiply/divide state");
    /* the step counts up to its state's last step (past it, it would run for
     * 2^32 cycles) and stays one past it, 6 or 64, until the next start */
    kh_ck_below(ck, c->md_cnt, c->md_state == MD_MUL ? 6 : c->md_state == MD_DIV ? 64 : 65, "multiply/divide step");
    kh_ck_below(ck, (unsigned)c->a_state, 4, "AMO state");
    kh_ck_below(ck, c->halt_cause, 4, "halt cause");
    priv_ok(ck, c->csr.priv, "privilege level");
    priv_ok(ck, c->csr.prev_q, "trap's previous privilege level");
    kh_ck_below(ck, c->bp.ghist, 0x100, "global history");
    kh_ck_below(ck, c->bp.r_pi, R6_PHT, "resolve's table index");
    kh_ck_below(ck, c->bp.ras_sp, R6_RAS, "return-stack pointer");
    kh_ck_below(ck, c->bp.init_a, R6_SWEEP + 1, "predictor sweep");
}
