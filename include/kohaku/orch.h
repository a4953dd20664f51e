/* The orchestrator (control.md §2) and the host control-program engine
 * (control.md §3).
 *
 * The orchestrator is the node's control agent: it answers at memory port
 * 0's coordinate, holds the staging RAM, dispatches staged flits under
 * credit, absorbs every CU_SIGNAL into the status mirror and SIG_DONE, and
 * carries the raw TX/RX mailbox. It talks to the node only through a small
 * environment (kh_orch_env) so it can be tested without one: the node calls
 * the three agent hooks for flits, the orchestrator calls the environment to
 * say a flit is ready, to read AUX_STAT and to forward AUX_CFG writes.
 *
 * Register accesses are AXI beats. A write beat accepted in cycle t changes
 * a register from t+1 on; kicks, credit seeds, clears and pops act in cycle
 * t+1 (control.md §2.1). A read at cycle t returns the state at the start of
 * t. Host accesses made between cycles use t = kh_sim_now() (control.md
 * §9.3).
 */
#ifndef KOHAKU_ORCH_H
#define KOHAKU_ORCH_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/flitcheck.h"
#include "kohaku/sim.h"

/* ---- control-window offsets (control.md §2.2) ---- */
#define KH_ORCH_CTRL 0x0000        /* RW, stored, unused (§2.2) */
#define KH_ORCH_STATUS 0x0008      /* RO busy / error / mesh_ready (§2.2) */
#define KH_ORCH_CAPS 0x0010        /* RO FLIT_WIDTH, POS_WIDTH, GRID_LO/HI (§2.2) */
#define KH_ORCH_IRQ_STAT 0x0018    /* W1C, never set (§2.2) */
#define KH_ORCH_IRQ_EN 0x0020      /* RW, stored (§2.2) */
#define KH_ORCH_PROG_DST 0x0040    /* RW {y, x} of the dispatch target (§2.2) */
#define KH_ORCH_PROG_LEN 0x0048    /* RW flits to dispatch (§2.2) */
#define KH_ORCH_PROG_KICK 0x0050   /* W start a dispatch (§2.4) */
#define KH_ORCH_PROG_STAT 0x0058   /* RO run, left, credit (§2.2) */
#define KH_ORCH_PROG_CRED 0x0060   /* RW seed / live credit (§2.5) */
#define KH_ORCH_PROG_BASE 0x0068   /* RW first staging slot (§2.2) */
#define KH_ORCH_SIG_DONE 0x0070    /* R count / W clear (§2.6) */
#define KH_ORCH_AUX_STAT 0x0078    /* RO mover / agent status (§2.8) */
#define KH_ORCH_AUX_STATW 0x0080   /* RO 16 client status words (§2.2, §7.5) */
#define KH_ORCH_TX_FLIT 0x0100     /* W five mailbox words (§2.7) */
#define KH_ORCH_TX_KICK 0x0140     /* W push TX_FLIT (§2.7) */
#define KH_ORCH_TX_STATUS 0x0148   /* RO [16] TX full (§2.7) */
#define KH_ORCH_RX_FLIT 0x0180     /* RO five words of the RX head (§2.7) */
#define KH_ORCH_RX_POP 0x01C0      /* W pop the RX FIFO (§2.7) */
#define KH_ORCH_RX_STATUS 0x01C8   /* RO [16] empty, [17] overflow (§2.7) */
#define KH_ORCH_AUX_CFG 0x0800     /* W 0x800-0x8FF client registers (§2.8) */
#define KH_ORCH_NODE_STATUS 0x1000 /* RO status mirror, alias at 0x1800 (§2.6) */
#define KH_ORCH_STAGE 0x2000       /* W staging RAM, 40 bytes per slot (§2.3) */
#define KH_ORCH_SLOT 0x8000        /* RW 4 KB RV64 host-load window (docs/rv64.md §10) */
#define KH_ORCH_SLOT_SIZE 0x1000

/* ---- control-program engine command window (control.md §3) ---- */
#define KH_ENG_CTRL 0x0000  /* W [0] GO; R [0] busy [1] done [2] err (§3) */
#define KH_ENG_PC 0x0008    /* RO current command index (§3) */
#define KH_ENG_CODE 0x0010  /* RO value of the DONE that stopped (§3) */
#define KH_ENG_POLLS 0x0018 /* RO POLL reads in this run (§3) */
#define KH_ENG_CMD 0x1000   /* W command n field f at 0x1000 + 32n + 8f (§3) */
#define KH_ENG_OP_WR 1      /* one single-beat write (§3) */
#define KH_ENG_OP_POLL 2    /* read until (rdata & mask) == data (§3) */
#define KH_ENG_OP_DONE 3    /* latch CODE and stop (§3) */

/* ---- the orchestrator ---- */

typedef struct kh_orch kh_orch;

/* What the orchestrator needs from the node around it. */
typedef struct kh_orch_env {
    void *ctx;
    /* A flit is (or will be) at the head of the TX FIFO from cycle `at`. */
    void (*ready)(void *ctx, kh_cycle at);
    /* AUX_STAT (control.md §2.8), at cycle now. NULL reads 0. */
    uint64_t (*aux_stat)(void *ctx, kh_cycle now);
    /* One client write of AUX_CFG: reg 0x00-0x7F the mover, 0x80-0xFF the
     * interlink (control.md §2.8). NULL drops it. */
    void (*aux_write)(void *ctx, unsigned reg, uint64_t value, kh_cycle now);
    /* AUX_STATW word k (0..15): the interlink's status (control.md §7.5) at
     * cycle now. NULL reads 0 (no interlink). */
    uint64_t (*aux_statw)(void *ctx, unsigned k, kh_cycle now);
    /* The 4 KB slot at KH_ORCH_SLOT (the RV64 complex's host-load window,
     * docs/rv64.md §10): a write beat accepted in cycle `beat`, a read at
     * the start of cycle now; off is the offset inside the slot. NULL
     * (no complex): writes are dropped and reads return 0, as before. */
    void (*slot_write)(void *ctx, unsigned off, uint64_t data, uint8_t strb, kh_cycle beat);
    uint64_t (*slot_read)(void *ctx, unsigned off, kh_cycle now);
} kh_orch_env;

typedef struct kh_orch_cfg {
    uint8_t x, y;            /* memory port 0's coordinate (ORC_X, ORC_Y) */
    uint8_t grid_lo, grid_hi; /* CAPS[31:24], CAPS[39:32] */
} kh_orch_cfg;

/* Create the orchestrator and register it with sim (sizes from the
 * simulation's parameters: stage_flits, tx_depth, rx_depth). */
kh_orch *kh_orch_new(kh_sim *sim, const kh_orch_cfg *cfg, const kh_orch_env *env, char *err,
                     size_t errlen);
kh_comp *kh_orch_comp(kh_orch *o);

/* One write beat at control-window offset off (only [15:0] decoded),
 * accepted in cycle `beat` (>= the current cycle), with byte strobes. */
void kh_orch_write(kh_orch *o, uint32_t off, uint64_t data, uint8_t strb, kh_cycle beat);
/* One read beat: the register decode at the start of cycle now. */
uint64_t kh_orch_read(kh_orch *o, uint32_t off, kh_cycle now);
/* Whether a read at now would first settle what the orchestrator keeps
 * for later (its last cycle's record, host beats before now): then the
 * read changes state, and a trace sees that at the time of the read. */
int kh_orch_read_settles(const kh_orch *o, kh_cycle now);
/* The end-of-dispatch window (control.md §2.4, Open point 5): PROG_STAT.run
 * already reads 0 but the final flit is still to be pushed, sampling
 * PROG_DST, in this cycle; KH_NEVER outside the window. */
kh_cycle kh_orch_final_push_at(const kh_orch *o);

/* Lane promises (docs/mpi.md, src/orch/orch_reach.c): 1 when nothing the
 * orchestrator has sent or will send without a register write carries
 * the remote marker, and inst_ok(ctx, x, y, dfin) accepts every CU_INST
 * among them (dfin: the word's cluster field naming a far-mesh
 * destination is not 0); 0 otherwise. A restore answers 0 from then on. */
typedef int kh_orch_inst_ok(void *ctx, unsigned x, unsigned y, int dfin);
int kh_orch_stays_local(const kh_orch *o, kh_orch_inst_ok *inst_ok, void *ctx);

/* The node's control-agent hooks (ctx = the kh_orch). accept: 1 = taken,
 * 0 = cannot take (the RX FIFO is full and f is no CU_SIGNAL: the hub drops
 * it, control.md §2.10). peek: the flit the orchestrator offers in cycle
 * now, or NULL. take: the node took the peeked flit in cycle now. */
int kh_orch_agent_accept(void *ctx, unsigned port, const kh_flit *f, kh_cycle now);
const kh_flit *kh_orch_agent_peek(void *ctx, kh_cycle now);
void kh_orch_agent_take(void *ctx, kh_cycle now);
/* Who made the flit peek returns: KH_ORIGIN_DISPATCH or KH_ORIGIN_MAILBOX
 * (the live checker's V8/V23, docs/check.md). */
kh_flit_origin kh_orch_agent_origin(void *ctx, kh_cycle now);

/* Hints for a host that waits in vain, beyond the component's own
 * describe_stuck (which reports a dispatch stalled on credit or TX room):
 * per node, instructions dispatched against completions received, and a
 * last instruction without `last`. Returns the number of hints written. */
int kh_orch_explain(kh_orch *o, char *buf, size_t len);
/* The first operation the orchestrator refused inside the machine (e.g. a
 * kick whose slots run past the staging RAM, control.md Open point 6), or
 * NULL. */
const char *kh_orch_error(const kh_orch *o);

/* The {y, x} index of NODE_STATUS and PROG_DST (control.md §2.2, §2.6). */
unsigned kh_orch_node_index(unsigned x, unsigned y);

/* ---- the control-program engine (control.md §3) ---- */

typedef struct kh_engine kh_engine;

/* The engine's AXI master: single-beat, all-strobe accesses to a 32-bit
 * address of the host map (the card decodes it). Each returns 0, or -1 for an
 * unmapped address (the engine then stops with err, control.md Open point
 * 14). write: beat accepted in cycle `beat`. read: value at the start of
 * cycle `at`. */
typedef struct kh_engine_bus {
    void *ctx;
    int (*write)(void *ctx, uint32_t addr, uint64_t data, kh_cycle beat);
    int (*read)(void *ctx, uint32_t addr, uint64_t *data, kh_cycle at);
} kh_engine_bus;

kh_engine *kh_engine_new(kh_sim *sim, const kh_engine_bus *bus, char *err, size_t errlen);
kh_comp *kh_engine_comp(kh_engine *e);
/* Slave side (command window, addr[15:0] decoded, strobes ignored). */
void kh_engine_write(kh_engine *e, uint32_t off, uint64_t data, kh_cycle beat);
uint64_t kh_engine_read(kh_engine *e, uint32_t off, kh_cycle now);
/* The last refused access (unmapped address), or NULL. */
const char *kh_engine_error(const kh_engine *e);
/* The engine's next action, for a kernel that runs in windows (docs/mpi.md):
 * 0 nothing pending; else *at is the cycle it next acts in (a GO beat's
 * start included), and the return is 2 when that action samples a read of
 * *addr (POLL: the target's register as of the start of *at), 1 otherwise. */
int kh_engine_next_action(const kh_engine *e, kh_cycle *at, uint32_t *addr);
/* Whether the engine may still write anything (a WR command) without a
 * host access: 0 when it is idle with no GO pending, or when every command
 * from the current one on is a POLL until a DONE or a stop (docs/mpi.md
 * "Lane promises": a POLL only reads). */
int kh_engine_writes_ahead(const kh_engine *e);

#endif
