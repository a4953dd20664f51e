/* The system node's private layout (src/sysnode only). */
#ifndef KH_SYSNODE_NODE_INT_H
#define KH_SYSNODE_NODE_INT_H

#include "kohaku/node.h"
#include "sysnode/port/conv.h"
#include "util/pages.h"

typedef struct kh_port kh_port;
typedef struct kh_mover kh_mover;
typedef struct kh_ilink kh_ilink;

/* Where an address lands on the converged path (memory.md §1.1, §7, §8). */
typedef enum kh_target {
    KH_TGT_DRAM,  /* bit 39 clear: DRAM, index rule of §7 */
    KH_TGT_STAGE, /* own-mesh aperture 0: the staging store (§8) */
    KH_TGT_LOST,  /* any other aperture address: reaches the DRAM master, never answered */
} kh_target;

#define KH_XFORM_IDS 16 /* XFORM_ID is 4 bits (memory.md §11.1) */

struct kh_node {
    kh_sim *sim;
    kh_node_cfg cfg;
    const kh_params *p;
    kh_pages dram;              /* this mesh's DRAM, byte index = a[35:0] mod size */
    kh_pages stage;             /* staging store, byte index = a[stage_bytes_log2-1:0] */
    uint64_t dram_bytes_mask;   /* 2^dram_words_log2 * 32 - 1 */
    uint64_t stage_bytes_mask;
    kh_conv *conv;
    kh_mover *mover;
    kh_ilink *ilink;            /* NULL unless built with the interlink (control.md §7) */
    kh_port *port[KH_NODE_MAX_PORTS];
    kh_node_agent agent;
    int have_agent;
    /* Rule 4 round-robin (memory.md §2): a port takes a flit for the agent
     * into its hub register and holds busy until the flit wins; at the end
     * of each cycle the first held port from agent_ptr delivers. */
    kh_flit agent_hold[KH_NODE_MAX_PORTS];
    unsigned agent_held;        /* bit i: port i's hub register holds a flit */
    unsigned agent_ptr;         /* advances to (winner + 1) mod PORTS */
    kh_end_hook agent_arb;
    kh_cycle agent_out_cycle;   /* cycle a port last took an agent flit */
    kh_cycle agent_at, cpu_at;  /* ask the agent / processor for a flit from this cycle (KH_NEVER: found empty, none announced since) */
    /* Rule 2 round-robin: the same scheme for the control processor, but a
     * flit it cannot take stays held (memory.md §2, cpu.md §1). */
    kh_node_cpu cpu;
    int have_cpu;
    kh_flit cpu_hold[KH_NODE_MAX_PORTS];
    unsigned cpu_held;
    unsigned cpu_ptr;
    kh_end_hook cpu_arb;
    kh_cycle cpu_out_cycle;     /* cycle a port last took a processor flit */
    kh_node_counts counts;
    /* transform slot (memory.md §12) */
    const kh_xform_occupant *occ[KH_XFORM_IDS];
    unsigned bank_fault;        /* fault[3:0]; bit 0 = unknown id started */
    int warned_wide;            /* Open point 3 warning given once */
    int warned_bit38;           /* the reserved-bit-38 warning given once (memory.md §1) */
};

/* The node's own state in a checkpoint (node_ckpt.c; its converged path's
 * state function calls it). */
struct kh_ck;
void kh_node_ckpt(kh_node *n, struct kh_ck *ck);

/* Free the node object (called by its converged path's destroy). */
void kh_node_free(kh_node *n);

/* Append "; "-separated text to a describe_stuck report (node.c). */
void kh_node_say(char *buf, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- memory map (memmap.c) ---- */
kh_target kh_node_target(const kh_node *n, uint64_t addr);
/* Whether a NoC streaming read or write of addr is dropped at a port
 * (memory.md §6: aperture bit set, bit 38 clear, other mesh or index != 0,
 * node built with staging). */
int kh_node_port_drops(const kh_node *n, uint64_t addr);
/* DRAM byte index of addr (bit 39 clear): a[35:0] mod the populated size,
 * warning once when the mesh field or the offset is beyond it (§7, Open point 3). */
uint64_t kh_node_dram_index(kh_node *n, uint64_t addr);
/* One 32-byte word at addr (low 5 bits ignored) of a DRAM or staging target. */
void kh_node_word_read(kh_node *n, kh_target t, uint64_t addr, uint64_t out[4]);
void kh_node_word_write(kh_node *n, kh_target t, uint64_t addr, const uint64_t in[4]);
/* A burst's nwords words from addr (low 5 bits ignored) in place, when
 * they lie in one DRAM page and need no warning: 1 and *bytes (NULL from
 * _find for a page never written: zeros), else 0 and the caller goes word
 * by word (kh_node_word_read / _write), which gives the same bytes. */
int kh_node_words_find(kh_node *n, kh_target t, uint64_t addr, unsigned nwords, const uint8_t **bytes);
int kh_node_words_get(kh_node *n, kh_target t, uint64_t addr, unsigned nwords, uint8_t **bytes);
/* Wake every port at cycle at (a flit for their output registers, other
 * than the agent's or the processor's: those announce theirs with
 * kh_node_agent_ready / kh_node_cpu_ready). */
void kh_node_wake_ports(kh_node *n, kh_cycle at);
/* Describe an address for messages: "0x... (DRAM offset ...)" etc. */
void kh_node_addr_str(const kh_node *n, uint64_t addr, char *buf, size_t len);

/* ---- ports (port.c) ---- */
void kh_node_agent_arbitrate(void *node, kh_cycle now); /* the rule-4 arbiter, at the end of a cycle */
void kh_node_cpu_arbitrate(void *node, kh_cycle now);   /* the rule-2 arbiter, at the end of a cycle */
kh_port *kh_port_new(kh_node *n, unsigned index, char *err, size_t errlen);
kh_comp *kh_port_comp(kh_port *p);
void kh_port_set_out(kh_port *p, kh_link *out);
unsigned kh_port_rd_count(const kh_port *p); /* ARs issued (mem_rd_count) */
unsigned kh_port_wr_count(const kh_port *p); /* write bursts issued (mem_wr_count) */
/* The port whose row equals y (port 0 if none), for outbound agent flits. */
unsigned kh_node_port_for_row(const kh_node *n, unsigned y);

/* ---- mover (mover*.c) ---- */
kh_mover *kh_mover_new(kh_node *n);
int kh_mover_write(kh_mover *m, unsigned reg, uint64_t value, kh_cycle now);
void kh_mover_status(kh_mover *m, kh_cycle now, unsigned *busy, unsigned *fault, uint32_t *done);
/* How the mover reaches another mesh (memory.md §14). The node sets it when
 * it is built with the interlink, so the mover names no interlink function
 * (the interlink calls the mover, not the other way round); unset, every
 * write lands in this mesh. */
typedef struct kh_mover_remote {
    void *ctx;
    /* whether a write to addr goes to another mesh */
    int (*is_remote)(void *ctx, uint64_t addr, kh_cycle now);
    /* one word of a remote burst; `last`: the burst's final word */
    void (*word)(void *ctx, uint64_t addr, const uint64_t d[4], int last, kh_cycle now);
} kh_mover_remote;
void kh_mover_set_remote(kh_mover *m, const kh_mover_remote *r);
/* The interlink sent a remote burst's last word: its posted answer is due at `at`. */
void kh_mover_remote_b(kh_mover *m, kh_cycle at);
/* docs/mpi.md "Lane promises" (mover_reach.c, ilink_reach.c): the mover
 * can no longer reach the interlink while every write it may still make
 * lands in mesh `mesh`; the interlink's mesh id is settled (no register
 * write queued) and is *mesh. Both only read. */
int kh_mover_stays_local(const kh_mover *m, unsigned mesh);
int kh_ilink_settled_mesh(const kh_ilink *il, unsigned *mesh);
int kh_ilink_landed(const kh_ilink *il);   /* kh_node_landed */
unsigned kh_ilink_landing(const kh_ilink *il); /* kh_node_landing */
kh_cycle kh_ilink_entry_take(kh_ilink *il); /* kh_node_entry_take */

/* ---- interlink (ilink*.c, control.md §7) ---- */
kh_ilink *kh_ilink_new(kh_node *n, char *err, size_t errlen);
/* Hub rule 1 (memory.md §2): port `port` takes a remote flit into its hub
 * register in cycle now and holds busy until the flit wins the round-robin
 * into the skid (decided at the end of the cycle, whatever the step order). */
void kh_ilink_hub_take(kh_ilink *il, unsigned port, const kh_flit *f, kh_cycle now);
/* Whether port `port`'s hub register holds a remote flit that has not won;
 * from the port's step: compete again at the end of this cycle. */
int kh_ilink_hub_holds(const kh_ilink *il, unsigned port);
/* The flit port `port`'s hub register holds (for hang reports). */
const kh_flit *kh_ilink_hub_flit(const kh_ilink *il, unsigned port);
void kh_ilink_hub_compete(kh_ilink *il, kh_cycle now);
/* The next flit to inject into this mesh, or NULL; take it when a port's
 * output register loads it (priority below the agent, control.md §7.3). */
const kh_flit *kh_ilink_inj_peek(kh_ilink *il, kh_cycle now);
void kh_ilink_inj_take(kh_ilink *il, kh_cycle now);
/* Whether a mover write to addr goes to another mesh (memory.md §14):
 * enabled and addr[37:36] != the live id; disabled, it lands locally
 * (control.md Open point 12, warned once). */
int kh_ilink_mover_remote(kh_ilink *il, uint64_t addr, kh_cycle now);
/* One word of a remote mover burst; `last`: the burst's final word. */
void kh_ilink_mover_word(kh_ilink *il, uint64_t addr, const uint64_t d[4], int last, kh_cycle now);
/* A fault another component saw in cycle now (bad_remote_req): sticky from now + 1. */
void kh_node_ilink_fault(kh_node *n, unsigned bits, kh_cycle now);

/* ---- transform slot (xform.c) ---- */
void kh_xform_slot_init(kh_node *n);
/* The occupant that serves id: the registered one, or the bypass for id 0
 * and for an id no occupant has (*unknown set then). */
const kh_xform_occupant *kh_xform_pick(const kh_node *n, unsigned id, int *unknown);

#endif
