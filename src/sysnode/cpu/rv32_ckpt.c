/* The RV32 control processor in a checkpoint (docs/checkpoint.md): IMEM,
 * the scratchpad, the core's registers, hazards and predictor, the stalled
 * access, the L1, the flit requester, the completion queue, the CU_DATA
 * loader, the kick machine and the descriptor executor; and, as its own
 * component, the hub client's register. */
#include "kohaku/ckpt.h"
#include "sysnode/cpu/rv32_int.h"

static void ck_btb(kh_ck *ck, rv_btb_entry *e)
{
    KH_CK(ck, e->valid);
    KH_CK(ck, e->ctr);
    KH_CK(ck, e->tag);
    KH_CK(ck, e->target);
}

static void ck_sig(kh_ck *ck, rv_sig *s)
{
    KH_CK(ck, s->code);
    KH_CK(ck, s->txn);
    KH_CK(ck, s->arg);
}

void kh_rv32_ckpt(void *unit, kh_ck *ck)
{
    kh_rv32 *r = unit;
    KH_CK_ARR(ck, r->imem, RV_IMEM_WORDS);
    KH_CK_ARR(ck, r->spad, RV_SPAD_WORDS);
    KH_CK_ARR(ck, r->x, 32);
    KH_CK(ck, r->pc);
    KH_CK(ck, r->run);
    KH_CK(ck, r->halted);
    KH_CK(ck, r->cause);
    KH_CK(ck, r->halt_word);
    KH_CK(ck, r->last_word);
    KH_CK(ck, r->last_fault);
    KH_CK(ck, r->arg);
    KH_CK(ck, r->start);
    KH_CK(ck, r->t_ex);
    KH_CK_ARR(ck, r->ready, 32);
    KH_CK(ck, r->instret);
    KH_CK(ck, r->cycles);
    KH_CK(ck, r->halt_ex);
    for (unsigned i = 0; i < RV_BTB; i++) ck_btb(ck, &r->btb[i]);
    for (unsigned i = 0; i < 4; i++) {
        KH_CK(ck, r->btbw[i].vis);
        KH_CK(ck, r->btbw[i].idx);
        ck_btb(ck, &r->btbw[i].e);
    }
    KH_CK(ck, r->nbtbw);
    KH_CK(ck, r->retired_total);
    KH_CK(ck, r->stall_load);
    KH_CK(ck, r->stall_branch);
    KH_CK(ck, r->stall_mem);
    KH_CK(ck, r->mispredicts);
    KH_CK_ARR(ck, r->op_count, RV_NOPS);
    KH_CK(ck, r->wait);
    KH_CK(ck, r->wait_e);
    KH_CK(ck, r->wait_next);
    KH_CK(ck, r->wait_addr);
    KH_CK(ck, r->wait_data);
    KH_CK(ck, r->wait_be);
    KH_CK(ck, r->wait_rd);
    KH_CK(ck, r->wait_op);
    kh_ck_flit(ck, &r->wait_flit[0]);
    kh_ck_flit(ck, &r->wait_flit[1]);
    KH_CK(ck, r->fill_phase);
    KH_CK(ck, r->fill_at);
    KH_CK(ck, r->sweep_idx);
    KH_CK(ck, r->sweep_readout);
    for (unsigned i = 0; i < RV_L1_LINES; i++) {
        KH_CK(ck, r->l1[i].valid);
        KH_CK(ck, r->l1[i].dirty);
        KH_CK(ck, r->l1[i].tag);
        KH_CK_ARR(ck, r->l1[i].b, 32);
    }
    KH_CK(ck, r->wrout);
    for (unsigned i = 0; i < RV_OUTQ; i++) kh_ck_flit(ck, &r->outq[i]);
    KH_CK_ARR(ck, r->outq_kind, RV_OUTQ);
    KH_CK_ARR(ck, r->outq_at, RV_OUTQ);
    KH_CK(ck, r->outn);
    KH_CK(ck, r->disp_arg);
    KH_CK(ck, r->disp_pc);
    for (unsigned i = 0; i < RV_SIGQ; i++) ck_sig(ck, &r->sigq[i]);
    KH_CK(ck, r->sig_head);
    KH_CK(ck, r->sig_n);
    KH_CK(ck, r->sig_ovf);
    ck_sig(ck, &r->sig_stale);
    KH_CK(ck, r->burst_open);
    KH_CK(ck, r->burst_reject);
    KH_CK(ck, r->b_sx);
    KH_CK(ck, r->b_sy);
    KH_CK(ck, r->b_buf);
    KH_CK(ck, r->b_off);
    KH_CK(ck, r->b_len);
    KH_CK(ck, r->b_j);
    KH_CK(ck, r->loader_busy_until);
    KH_CK(ck, r->bursts_rejected);
    KH_CK(ck, r->flits_discarded);
    KH_CK(ck, r->in_flight);
    KH_CK(ck, r->kick_at);
    KH_CK(ck, r->kick_last);
    KH_CK(ck, r->retire_at);
    KH_CK(ck, r->drain_from);
    KH_CK(ck, r->ex);
    KH_CK(ck, r->ex_t);
    KH_CK(ck, r->ex_p);
    KH_CK(ck, r->ex_n);
    KH_CK(ck, r->ex_k);
    KH_CK(ck, r->ex_go);
    KH_CK(ck, r->mvgo_lost);
    KH_CK(ck, r->collide_logged);
    KH_CK(ck, r->warned_alias);
    KH_CK(ck, r->warned_bit1);
    KH_CK(ck, r->unreachable);
    KH_CK(ck, r->dirty_at_halt);
    KH_CK(ck, r->ctrl_replies_in);
    kh_ck_below(ck, r->outn, RV_OUTQ + 1, "the output queue's count");
    kh_ck_below(ck, r->sig_n, RV_SIGQ + 1, "the signal queue's count");
    kh_ck_below(ck, r->sig_head, RV_SIGQ, "the signal queue's head");
    kh_ck_below(ck, r->nbtbw, 4 + 1, "the byte-write buffer's count");
}

void kh_rv32_hub_ckpt(kh_rv32 *r, kh_ck *ck)
{
    kh_ck_flit(ck, &r->hub_flit);
    KH_CK(ck, r->hub_valid);
    KH_CK(ck, r->hub_fw);
}
