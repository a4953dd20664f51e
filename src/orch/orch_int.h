/* The orchestrator's private state (control.md §2). */
#ifndef KOHAKU_ORCH_INT_H
#define KOHAKU_ORCH_INT_H

#include "kohaku/orch.h"

#define ORCH_NODES 256      /* one NODE_STATUS slot per {y, x} (control.md §2.6) */
#define ORCH_SIG_PER_CYCLE 8 /* signals one cycle may absorb (the hub gives one) */

/* A write beat waiting to act. Plain register and RAM writes land at the
 * end of cycle `at`; kicks, seeds, clears, pops and AUX writes act in
 * cycle at+1 (control.md §2.1). */
typedef struct orch_beat {
    kh_cycle at;
    uint32_t off;
    uint64_t data;
    uint8_t strb;
    uint8_t landed; /* the plain part has been applied */
    uint8_t ok;     /* TX_KICK / RX_POP: the condition held in the beat's cycle */
} orch_beat;

/* Counter changes of one cycle, committed together at its end so that the
 * same-cycle rules of §2.5 and §2.6 hold whatever order the node and the
 * orchestrator are stepped in. */
typedef struct orch_cycle {
    kh_cycle at;          /* KH_NEVER: empty */
    unsigned flit_go;     /* word 0 of a flit read this cycle */
    unsigned sig0;        /* INST_COMPLETE signals this cycle */
    unsigned nsig;        /* signals absorbed this cycle */
    int seed;             /* PROG_CRED seed acts this cycle */
    uint16_t seed_val;
    int clear;            /* SIG_DONE clear acts this cycle */
    kh_flit sig[ORCH_SIG_PER_CYCLE]; /* last: commit_cycle clears every field before it */
} orch_cycle;

/* Per-node bookkeeping for hints (not architectural). */
typedef struct orch_node_note {
    uint32_t sent;       /* CU_INSTs pushed towards the node */
    uint32_t completed;  /* framework completions (0x00, 0x01, 0x04) from it */
    uint8_t last_txn;    /* header of the most recent CU_INST sent */
    uint8_t last_last;
} orch_node_note;

struct kh_orch {
    kh_comp comp;
    kh_orch_cfg cfg;
    kh_orch_env env;

    /* registers (control.md §2.2) */
    uint64_t ctrl, irq_en;
    uint16_t prog_dst, prog_len, prog_base, credit, sig_done;
    uint64_t tx_word[5];
    int rx_overflow;
    uint64_t node_status[ORCH_NODES];

    /* staging RAM (§2.3) */
    uint64_t *stage;
    unsigned stage_words;  /* FLIT_WORDS * stage_flits */
    unsigned ptr_mod;      /* read-pointer wrap (1024 for 640 words) */

    /* dispatcher (§2.4) */
    int run;
    uint16_t left;
    unsigned rd;           /* word read pointer */
    unsigned word;         /* next word of the current flit, 0..4 */
    kh_flit asm_flit;      /* flit being assembled */
    kh_flit push_flit;     /* assembled, waiting for its push */
    kh_cycle push_at;      /* KH_NEVER: nothing waiting */
    kh_cycle kick_at;      /* a kick acts in this cycle */
    kh_cycle stall_since;  /* word 0 waiting for credit since, KH_NEVER if not */
    uint16_t run_len;      /* PROG_LEN of the running program (trace) */
    int older_rtl;         /* dispatch_older_rtl: 7703ee8's disp_can / disp_push timing */

    /* TX / RX FIFOs (§2.4, §2.7) */
    kh_fifo tx, rx;
    unsigned tx_depth;
    uint8_t *tx_mbox;      /* per TX entry, by push count mod capacity: 1 = from the mailbox */
    uint64_t tx_pushes, tx_pops; /* (kh_orch_agent_origin, the live checker's V8/V23) */

    /* AUX_CFG shadow (§2.8) */
    int shadow_valid;
    unsigned shadow_addr;
    uint64_t shadow_val;

    /* pending beats and the open cycle */
    orch_beat *beats;
    unsigned nbeats, capbeats;
    orch_cycle cyc;

    orch_node_note note[ORCH_NODES];
    uint64_t noted[ORCH_NODES / 64]; /* bit idx: note[idx].sent != 0 (kh_orch_explain visits only these) */
    /* What the TX FIFO ever took, for lane promises (orch_reach.c; the
     * nodes sent a CU_INST are `noted`): never cleared, set by a restore
     * (flits pushed before the save may still be on their way).
     * sent_remote: a flit with the remote marker; dfin_to: bit idx, a
     * CU_INST to that node whose cluster word names a far-mesh destination
     * (isa/cluster.isa dfin). */
    int sent_remote;
    uint64_t dfin_to[ORCH_NODES / 64];
    uint64_t stat_dispatched, stat_mailbox, stat_signals, stat_rx, stat_rx_dropped,
        stat_credit_stall, stat_mailbox_lost;
    char error[256];
};

/* orch.c */
/* Checkpoints (orch_ckpt.c). */
struct kh_ck;
void kh_orch_ckpt(kh_comp *c, struct kh_ck *ck);

void kh_orch_settle(kh_orch *o, kh_cycle now);
orch_cycle *kh_orch_cycle(kh_orch *o, kh_cycle now);
void kh_orch_set_error(kh_orch *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 pushed; 0 the TX FIFO was full (logged, the flit dropped) */
int kh_orch_tx_push(kh_orch *o, const kh_flit *f, int mailbox, kh_cycle now);

/* regs.c */
void kh_orch_land_beat(kh_orch *o, const orch_beat *b);
void kh_orch_act_beat(kh_orch *o, const orch_beat *b, kh_cycle now);
void kh_orch_decide_beat(kh_orch *o, orch_beat *b, kh_cycle now);

/* dispatch.c */
void kh_orch_dispatch_step(kh_orch *o, kh_cycle now);
void kh_orch_kick(kh_orch *o, kh_cycle now);
void kh_orch_dispatch_stuck(kh_orch *o, char *buf, size_t len, size_t *used);

#endif
