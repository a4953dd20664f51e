/* The system node of one mesh (memory.md): memory ports on the mesh edge,
 * the converged path to DRAM and the staging store, the memory mover with
 * its transform slot, the host memory window, and the hook the control
 * agent (the orchestrator, src/orch) plugs into.
 *
 * Each memory port is a component with one link in and one link out. The
 * converged path and the mover are components of their own. The node itself
 * is the object that owns them; it is freed with the simulation.
 *
 * Host accesses (kh_node_host_read/write) and AUX_CFG writes are made
 * between cycles or from another component's step; they never step the
 * simulation. */
#ifndef KOHAKU_NODE_H
#define KOHAKU_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/flitcheck.h"
#include "kohaku/sim.h"

#define KH_NODE_MAX_PORTS 4 /* PORTS, memory.md §2 */

typedef struct kh_node kh_node;

typedef struct kh_node_cfg {
    unsigned mesh_id;        /* MESH_ID, 0..3 (memory.md §1.3) */
    unsigned nports;         /* memory ports, 1..4 */
    struct {
        uint8_t x, y;        /* the port's mesh coordinate; rows must differ */
    } port[KH_NODE_MAX_PORTS];
    int interlink;           /* ILINK: build the interlink (ilink.h, control.md §7); rsvd[2] demux, bad_remote_req */
} kh_node_cfg;

/* Build the node and register its components. NULL with a message naming
 * the field, the value and the rule when cfg is refused. */
kh_node *kh_node_new(kh_sim *sim, const kh_node_cfg *cfg, char *err, size_t errlen);

/* ---- the mesh side ---------------------------------------------------- */

kh_comp *kh_node_port(kh_node *n, unsigned i);
/* The accept function of a link into a memory port (dst = kh_node_port()). */
int kh_node_port_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now);
void kh_node_set_port_out(kh_node *n, unsigned i, kh_link *out);
/* Who put the flit in port's output register (the one on its outgoing link
 * while it is sent): KH_ORIGIN_AGENT for the port's own engine (responses,
 * acks), the agent's origin for a control-agent flit, KH_ORIGIN_INTERLINK
 * for an interlink injection. port = kh_node_port(); for the live checker
 * (docs/check.md). */
kh_flit_origin kh_node_port_out_origin(const kh_comp *port);

/* ---- the control agent (orchestrator) hook ------------------------------ */

typedef struct kh_node_agent {
    void *ctx;
    /* inbound flit for the control agent arriving at memory port `port` in cycle now (memory.md §2 rule 4); return 1 taken, 0 cannot take (the hub then accepts and drops it, counting the drop) */
    int (*accept)(void *ctx, unsigned port, const kh_flit *f, kh_cycle now);
    /* outbound: the agent's next flit, or NULL; the node picks the port whose row equals dst_y (port 0 if none) and, when that port's output register takes it (agent has top priority), calls take() */
    const kh_flit *(*peek)(void *ctx, kh_cycle now);
    void (*take)(void *ctx, kh_cycle now);
    /* who made the peeked flit (dispatcher or mailbox), for the live
     * checker's V8/V23 (docs/check.md); NULL: KH_ORIGIN_MAILBOX */
    kh_flit_origin (*origin)(void *ctx, kh_cycle now);
} kh_node_agent;
void kh_node_set_agent(kh_node *n, const kh_node_agent *a);
void kh_node_agent_ready(kh_node *n, kh_cycle at); /* the agent has something to send from cycle `at`: wake the ports */

/* ---- the control processor hook (cpu.md §1, memory.md §2 rule 2) -------- */

/* Which flits addressed to (0,0) go where is the machine parameter cpu_mode
 * (params.h, control.md Open point 16 revised). With cpu or cpu-exact and a
 * processor attached, rule 2 hands them to it; with no processor attached
 * they are dropped with a log line (counts.cpu_drops). */
typedef struct kh_node_cpu {
    void *ctx;
    /* inbound flit for the processor, offered in cycle now; return 1 taken,
     * 0 busy: the port's hub register keeps it and the port holds busy until
     * it is taken (never dropped) */
    int (*accept)(void *ctx, const kh_flit *f, kh_cycle now);
    /* outbound, as the agent's: the node picks the port whose row equals
     * dst_y (port 0 if none); priority below the agent */
    const kh_flit *(*peek)(void *ctx, kh_cycle now);
    void (*take)(void *ctx, kh_cycle now);
    /* who made the peeked flit (its shell or its own send path), for the
     * live checker; NULL: KH_ORIGIN_UNIT */
    kh_flit_origin (*origin)(void *ctx, kh_cycle now);
} kh_node_cpu;
void kh_node_set_cpu(kh_node *n, const kh_node_cpu *c);
void kh_node_cpu_ready(kh_node *n, kh_cycle at); /* the processor has a flit to send from `at` */

/* ---- registers and status seen by the orchestrator ----------------------- */

/* The mover's registers in the AUX_CFG window (memory.md §11.1); their
 * contents are isa/mover.isa's layouts (mover_ctrl, mover_hdr, ...). */
enum kh_mover_reg {
    KH_MOVER_REG_CTRL = 0x00,   /* mode, ewidth, flags, GO */
    KH_MOVER_REG_HDR = 0x10,    /* walker header: sel, base, ndim, XFORM_ID/MODE */
    KH_MOVER_REG_DIM = 0x18,    /* latch sel, dim, count, stride */
    KH_MOVER_REG_AXIS = 0x20,   /* commit dim with axis, astep */
    KH_MOVER_REG_BOUND = 0x28,  /* bound axis: sel, ax, abase, aext */
    KH_MOVER_REG_IDX = 0x30,    /* GATHER idx_base, idx_count */
    KH_MOVER_REG_SEED = 0x38,   /* GENERATE key */
    KH_MOVER_REG_IMM = 0x40,    /* FILL and padding value */
    KH_MOVER_REG_GATHER = 0x50, /* GATHER pitch, gwords */
    KH_MOVER_REG_LIMIT = 0x80,  /* 0x80 and up belong to the interlink (control.md §2.8) */
};

/* AUX_STAT of control.md §2.8: mover done count, AR and write-burst counts
 * summed over the ports, mover fault code and busy, as of cycle now. */
uint64_t kh_node_aux_stat(kh_node *n, kh_cycle now);
/* One client write of the AUX_CFG window arriving in cycle now: register
 * `reg` = offset & 0xF8 within 0x00-0x7F (memory.md §11.1); it takes effect
 * in cycle now + 1. Returns 0, or -1 when reg is not a mover register
 * (>= 0x80: nothing changes). */
int kh_node_mover_write(kh_node *n, unsigned reg, uint64_t value, kh_cycle now);
/* Any client write of AUX_CFG (control.md §2.8): reg 0x00-0x7F to the mover,
 * 0x80-0xFF to the interlink (ilink.h; dropped with a warning when none is
 * built). 0, or -1 when nothing took it. */
int kh_node_aux_write(kh_node *n, unsigned reg, uint64_t value, kh_cycle now);
/* AUX_STATW word k (0..15) of control.md §7.5 as of cycle now: the
 * interlink's status, 0 without one. */
uint64_t kh_node_aux_statw(kh_node *n, unsigned k, kh_cycle now);

/* ---- the host memory window (memory.md §9, control.md §9.3) --------------- */

/* Read or write exactly n bytes at the 40-bit inside address of this
 * mesh's memory window, in zero simulated time. DRAM addresses (bit 39
 * clear) follow the index rule of memory.md §7; own-mesh aperture 0 reaches
 * the staging store (Open point 4). Any other aperture address fails with a
 * message naming the window and the mesh field (Open point 16), and nothing
 * changes. 0 ok, -1 refused. */
int kh_node_host_read(kh_node *n, uint64_t inside_addr, uint8_t *out, size_t len, char *err,
                      size_t errlen);
int kh_node_host_write(kh_node *n, uint64_t inside_addr, const uint8_t *in, size_t len, char *err,
                       size_t errlen);

/* ---- the transform slot (memory.md §12) ---------------------------------- */

/* A transform-slot occupant: a plug-in selected by XFORM_ID. The built-in
 * table (src/sysnode/mover/xform.c) holds id 0 (bypass) and id 1 (the
 * FP16 -> MXFP7 quantiser); kh_node_xform_register() adds another to one
 * node without touching the mover. */
typedef struct kh_xform_occupant {
    unsigned id;             /* XFORM_ID 1..15 (0 is the bypass) */
    const char *name;
    unsigned in_bits;        /* IN_BITS: source bits per entry, a multiple of 256 */
    unsigned out_words;      /* OUT_WORDS: 256-bit result words per entry, 1..4 */
    /* cycles from the entry's last input beat to done; NULL means 1 */
    unsigned (*latency)(const kh_params *p);
    /* in: in_bits/64 words, beat b in in[4b..4b+3]; out: out_words*4 words;
     * mode is XFORM_MODE, passed through uninterpreted */
    void (*convert)(const uint64_t *in, unsigned mode, uint64_t *out);
} kh_xform_occupant;

#define KH_XFORM_MAX_BEATS 32 /* largest IN_BITS / 256 a node accepts */

/* The built-in occupant with this id, or NULL. */
const kh_xform_occupant *kh_xform_builtin(unsigned id);
/* Add (or replace) occupant occ->id (1..15) in this node's slot. The
 * occupant is not copied: it must outlive the node. 0 ok, -1 refused. */
int kh_node_xform_register(kh_node *n, const kh_xform_occupant *occ, char *err, size_t errlen);
/* Bank registers (memory.md §12), the control processor's view: reg 0x00
 * reads {28'b0, fault[3:0]}, 0x04 the geometry {OUT_WORDS, IN_BITS} of id. */
uint32_t kh_node_xform_bank_read(kh_node *n, unsigned id, unsigned reg);
void kh_node_xform_bank_clear(kh_node *n); /* any write to 0x00 */

/* ---- counters and sticky bits for tests and --stats ----------------------- */

typedef struct kh_node_counts {
    uint64_t agent_drops;      /* rule-4 flits the agent refused (memory.md §2) */
    uint64_t cpu_drops;        /* dst (0,0) flits with no control processor (control.md Open point 16) */
    uint64_t cpu_flits;        /* dst (0,0) flits handed to the control processor (memory.md §2 rule 2) */
    uint64_t cpu_replies;      /* CU_CTRL replies to (0,0) sent to the agent instead (cpu_mode cpu) */
    uint64_t ilink_drops;      /* remote (rsvd[2]) flits the interlink dropped: disabled (INJ) or no route (SWITCH) */
    uint64_t unmatched_data;   /* MEM_WR_DATA with no open write, dropped (memory.md §6) */
    uint64_t dropped_reads;    /* streaming reads of an unserved aperture (memory.md §6) */
    uint64_t dropped_writes;   /* writes to an unserved aperture (memory.md §6) */
    uint64_t lost_at_dram;     /* aperture addresses that reached the DRAM master (memory.md §7) */
    int bad_remote_req;        /* sticky interlink fault bit 0 (memory.md §2) */
} kh_node_counts;
void kh_node_get_counts(const kh_node *n, kh_node_counts *out);
/* Bytes of DRAM and staging store written so far (their allocated pages). */
uint64_t kh_node_touched_bytes(const kh_node *n);

#endif
