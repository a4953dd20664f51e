/* The multi-mesh interlink (control.md §7, memory.md §14): up to four meshes
 * in a line, each system node with one interlink that has link0 (to mesh
 * id-1) and link1 (to mesh id+1).
 *
 * A node built with `interlink = 1` (node.h) owns one; the machine builder
 * joins neighbours with kh_node_ilink_join(). Each direction of each link
 * is a lossless FIFO with a one-way latency of params->ilink_lat cycles
 * (>= 1), one 288-bit flit per cycle, and per-class credits. The links are
 * the only thing two meshes share: each mesh is a partition whose only
 * inputs from another mesh arrive at least ilink_lat cycles after they
 * were sent (docs/design.md §2, shared design §8).
 *
 * What crosses: the mover's remote writes (posted), flits marked rsvd[2] = 1
 * at a memory port (encapsulated, injected at the far mesh with dst = txn,
 * txn = 0, rsvd = 0), and doorbells (register 0x90). Reads never cross.
 */
#ifndef KOHAKU_ILINK_H
#define KOHAKU_ILINK_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/sim.h"

typedef struct kh_node kh_node;

/* ---- registers (control.md §7.5): AUX_CFG 0x880 + (reg - 0x80) ---- */
#define KH_ILINK_REG_CTRL 0x80 /* [0] enable, [1] clear doorbell counters, [2] clear faults (§7.5) */
#define KH_ILINK_REG_MESH 0x88 /* [1:0] this mesh's runtime id (§7.5) */
#define KH_ILINK_REG_RING 0x90 /* [1:0] destination mesh, [15:8] tag: rings a doorbell (§7.4) */

/* ---- AUX_STATW index k (control offset 0x80 + 8k, §7.5) ---- */
#define KH_ILINK_STAT_CAP 0      /* capability, 0 while disabled (regs.isa ilink_cap) */
#define KH_ILINK_STAT_FAULT 1    /* sticky faults (regs.isa ilink_fault) */
#define KH_ILINK_STAT_DBELL 2    /* 2..5: doorbells of mesh k-2 (regs.isa ilink_dbell) */
#define KH_ILINK_STAT_L0_TX 6    /* link 0 transmit counters (regs.isa ilink_count) */
#define KH_ILINK_STAT_L0_RX 7    /* link 0 receive counters */
#define KH_ILINK_STAT_L1_TX 8    /* link 1 transmit counters */
#define KH_ILINK_STAT_L1_RX 9    /* link 1 receive counters */
#define KH_ILINK_STAT_L0_STALL 10 /* link 0 stall counters (regs.isa ilink_stall) */
#define KH_ILINK_STAT_L1_STALL 11 /* link 1 stall counters */
#define KH_ILINK_STAT_FWD 12     /* forwarded packets (regs.isa ilink_fwd) */
#define KH_ILINK_STAT_CREDIT 13  /* credits held (regs.isa ilink_credit) */
#define KH_ILINK_STAT_SENT 14    /* doorbells sent (regs.isa ilink_total) */
#define KH_ILINK_STAT_LBLOCK 15  /* local-egress blocked cycles (regs.isa ilink_total) */

/* ---- sticky fault bits (§7.5) ---- */
#define KH_ILINK_F_RD_REMOTE 0x01 /* a memory request named another mesh; served locally */
#define KH_ILINK_F_ACK0 0x02      /* remote CU_DATA descriptor with ack 0 (still forwarded) */
#define KH_ILINK_F_SWITCH 0x04    /* a packet asked for a forbidden turn (past a line end, to itself) */
#define KH_ILINK_F_AXI 0x08       /* write error on the mover's or the landing path (never: memory answers OKAY) */
#define KH_ILINK_F_INJ 0x10       /* an inbound / remote flit could not be handled and was dropped */

#define KH_ILINK_MESHES 4   /* mesh ids 0..3 (§7.1) */
#define KH_ILINK_MAX_BEATS 32 /* MAX_BEATS: flits per packet (§7.2) */

typedef struct kh_ilink kh_ilink;

/* The node's interlink, NULL when the node is built without one. */
kh_ilink *kh_node_ilink(const kh_node *n);

/* Join `lower`'s link1 to `upper`'s link0 (their mesh ids must be
 * consecutive, lower first). 0, or -1 with a message. */
int kh_node_ilink_join(kh_node *lower, kh_node *upper, char *err, size_t errlen);

/* Lanes across processes (docs/mpi.md). Export: take off this node's
 * replicas what it put on link `link`'s lanes since the last export (flits
 * it sent, credits it returned), appending them to *buf (grown as needed)
 * and lowering *first to the earliest cycle one becomes visible. 1 if
 * anything was taken, 0 if nothing, -1 no memory. Import, on the other
 * process: put such a record, exported by the peer at the far end of this
 * node's link `link`, on this node's replicas and wake the interlink for
 * it. 0, or -1 for a malformed record. */
int kh_node_ilink_export(kh_node *n, unsigned link, uint8_t **buf, size_t *len, size_t *cap, kh_cycle *first);
int kh_node_ilink_import(kh_node *n, unsigned link, const uint8_t *buf, size_t len);
/* The receiver's part of the lane into node n on its link `link` (the
 * flits on it, the credits owed), for a save under MPI (ilink_ckpt.c). */
struct kh_ck;
void kh_node_ilink_rx_ckpt(kh_node *n, unsigned link, struct kh_ck *ck);
/* Lane promises (docs/mpi.md): c, a component of node n's mesh with work
 * pending, can go on without anything of the mesh reaching its interlink.
 * Only the mover on a walk inside the mesh and the memory path serving it
 * alone can; every other part, the interlink first, answers 0. */
int kh_node_busy_stays_local(kh_node *n, const kh_comp *c);
/* 1 when a flit from another mesh was ever injected into node n's mesh (a
 * restore counts as one): it may still be on its way, and what it makes
 * its receiver do is not read (docs/mpi.md "Lane promises"). */
int kh_node_landed(const kh_node *n);
/* 1 while writes landed from another mesh into node n's memory wait for
 * their responses: the last response releases a doorbell held behind them
 * and its credit goes back on the lane (control.md §7.4). */
int kh_node_landing(const kh_node *n);
/* 1 when node n's mover, busy or waiting or idle, can write nothing
 * outside its mesh (kh_node_busy_stays_local's reading of it). */
int kh_node_mover_stays_local(kh_node *n);
/* The checking mode (KOHAKU_MPI_PROMISE_CHECK): the first cycle anything
 * entered node n's interlink towards a lane (a remote flit from a port, a
 * mover's or processor's remote word, a register write) since the last
 * call, KH_NEVER if nothing did; the next call counts from now. */
kh_cycle kh_node_entry_take(kh_node *n);

/* A client write of AUX_CFG register reg (0x80..0xF8) arriving in cycle now;
 * it takes effect in cycle now + 1. Returns 0, or -1 for a register profile S
 * does not have (nothing changes; logged). */
int kh_ilink_write(kh_ilink *il, unsigned reg, uint64_t value, kh_cycle now);
/* AUX_STATW word k (0..15) as of the start of cycle now. */
uint64_t kh_ilink_read(kh_ilink *il, unsigned k, kh_cycle now);

/* The live mesh id and enable bit, as of cycle now. */
unsigned kh_ilink_live_id(kh_ilink *il, kh_cycle now);
int kh_ilink_enabled(kh_ilink *il, kh_cycle now);

/* A posted store of one 32-byte word with byte strobes (bit i = byte i)
 * to another mesh, as the processor's stores of profile L and each word of
 * the mover's remote writes travel: one MEM_WR packet, landing by address
 * (bit 39 set: the full address, else the low 32 bits in DRAM, memory.md
 * §14). 0 queued; -1 refused (interlink disabled, or addr names this mesh),
 * with a message. */
int kh_ilink_store(kh_ilink *il, uint64_t addr, const uint64_t data[4], uint32_t strb, kh_cycle now,
                   char *err, size_t errlen);

/* Counters for tests and --stats. */
typedef struct kh_ilink_counts {
    uint64_t flits_encapsulated; /* remote flits taken from the memory ports */
    uint64_t flits_injected;     /* flits injected into this mesh */
    uint64_t flits_dropped;      /* remote flits dropped (disabled: INJ; no route: SWITCH) */
    uint64_t words_sent;         /* MEM_WR packets sent (mover and stores) */
    uint64_t words_landed;       /* MEM_WR beats written into this mesh */
    uint64_t pkts_dropped;       /* packets dropped by the switch (SWITCH) */
    uint64_t rings_dropped;      /* doorbells rung into a full queue */
} kh_ilink_counts;
void kh_ilink_get_counts(const kh_ilink *il, kh_ilink_counts *out);

#endif
