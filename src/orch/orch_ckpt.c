/* The orchestrator in a checkpoint (docs/checkpoint.md): registers, the
 * staging RAM, the dispatcher, the TX/RX FIFOs and mailbox marks, the
 * AUX_CFG shadow, the pending register beats and the open cycle's record,
 * the per-node notes and counters. */
#include <stdlib.h>

#include "kohaku/ckpt.h"
#include "orch/orch_int.h"

static void ck_beat(kh_ck *ck, orch_beat *b)
{
    KH_CK(ck, b->at);
    KH_CK(ck, b->off);
    KH_CK(ck, b->data);
    KH_CK(ck, b->strb);
    KH_CK(ck, b->landed);
    KH_CK(ck, b->ok);
}

void kh_orch_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_orch *o = (kh_orch *)c;
    KH_CK(ck, o->ctrl);
    KH_CK(ck, o->irq_en);
    KH_CK(ck, o->prog_dst);
    KH_CK(ck, o->prog_len);
    KH_CK(ck, o->prog_base);
    KH_CK(ck, o->credit);
    KH_CK(ck, o->sig_done);
    KH_CK_ARR(ck, o->tx_word, 5);
    KH_CK(ck, o->rx_overflow);
    KH_CK_ARR(ck, o->node_status, ORCH_NODES);
    kh_ck_same(ck, o->stage_words, "staging RAM words");
    KH_CK_ARR(ck, o->stage, o->stage_words);
    KH_CK(ck, o->run);
    KH_CK(ck, o->left);
    KH_CK(ck, o->rd);
    KH_CK(ck, o->word);
    kh_ck_flit(ck, &o->asm_flit);
    kh_ck_flit(ck, &o->push_flit);
    KH_CK(ck, o->push_at);
    KH_CK(ck, o->kick_at);
    KH_CK(ck, o->stall_since);
    KH_CK(ck, o->run_len);
    kh_ck_fifo(ck, &o->tx);
    kh_ck_fifo(ck, &o->rx);
    kh_ck_same(ck, o->tx_depth, "the TX FIFO's depth");
    KH_CK_ARR(ck, o->tx_mbox, o->tx.cap);
    KH_CK(ck, o->tx_pushes);
    KH_CK(ck, o->tx_pops);
    KH_CK(ck, o->shadow_valid);
    KH_CK(ck, o->shadow_addr);
    KH_CK(ck, o->shadow_val);
    unsigned n = (unsigned)kh_ck_count(ck, o->nbeats, kh_ck_loading(ck) ? kh_ck_left(ck) : o->nbeats,
                                       "pending register beats");
    if (kh_ck_loading(ck) && n > o->capbeats) {
        orch_beat *b = realloc(o->beats, n * sizeof *b);
        if (!b) {
            kh_ck_fail(ck, "out of memory restoring %u register beats", n);
            return;
        }
        o->beats = b;
        o->capbeats = n;
    }
    for (unsigned i = 0; i < n; i++) ck_beat(ck, &o->beats[i]);
    if (kh_ck_loading(ck)) {
        o->nbeats = n;
        o->sent_remote = 1; /* what earlier pushes sent is not in the file: no lane promise from this mesh */
    }
    KH_CK(ck, o->cyc.at);
    KH_CK(ck, o->cyc.flit_go);
    KH_CK(ck, o->cyc.sig0);
    KH_CK(ck, o->cyc.nsig);
    KH_CK(ck, o->cyc.seed);
    KH_CK(ck, o->cyc.seed_val);
    KH_CK(ck, o->cyc.clear);
    kh_ck_below(ck, o->cyc.nsig, ORCH_SIG_PER_CYCLE + 1, "signals in one cycle");
    if (kh_ck_failed(ck)) return;
    for (unsigned i = 0; i < o->cyc.nsig; i++) kh_ck_flit(ck, &o->cyc.sig[i]);
    for (unsigned i = 0; i < ORCH_NODES; i++) {
        KH_CK(ck, o->note[i].sent);
        KH_CK(ck, o->note[i].completed);
        KH_CK(ck, o->note[i].last_txn);
        KH_CK(ck, o->note[i].last_last);
    }
    KH_CK_ARR(ck, o->noted, ORCH_NODES / 64);
    KH_CK(ck, o->stat_dispatched);
    KH_CK(ck, o->stat_mailbox);
    KH_CK(ck, o->stat_signals);
    KH_CK(ck, o->stat_rx);
    KH_CK(ck, o->stat_rx_dropped);
    KH_CK(ck, o->stat_credit_stall);
    KH_CK(ck, o->stat_mailbox_lost);
    kh_ck_str(ck, o->error, sizeof o->error);
}
