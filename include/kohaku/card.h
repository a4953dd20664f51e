/* The host's view of the card: 64-bit word accesses over the host address
 * map of control.md §9. This is the whole contract a host driver needs from
 * a transport (upstream's Python driver needs no more): write64, read64 and
 * blocks, where a block is the same run of word accesses at ascending
 * addresses, little-endian (byte k of a block is byte k mod 8 of word k div 8).
 *
 * Each access is applied between cycles, in the order issued; a
 * control-window write is a full-strobe beat accepted in the next cycle;
 * then the clock advances by the host link's time (docs/host-link.md,
 * control.md §9.3): host_write_cycles or host_read_cycles per single-beat
 * transaction. A block in a memory window moves as AXI bursts (at most
 * host_burst_beats beats, never across 4 KiB), each applied whole and
 * costing one transaction plus host_beat_cycles per further beat; a block
 * anywhere else is its run of single-beat word accesses. Unaligned or
 * unmapped addresses are refused with a message naming the address;
 * nothing reaches the machine.
 *
 * One exception keeps a driver's program order when host accesses cost
 * nothing (profile host-zero): a read of a control window sees the host's
 * own earlier writes, as one AXI master does on hardware (the read is
 * issued after the write's B). When such a write's beat has not acted yet,
 * the read first lets the clock run to the second boundary after that beat
 * (the register lands at the end of the beat; kicks, seeds and clears act
 * in the cycle after, control.md §2.1).
 *
 * And a polling loop progresses with a zero-time host too: reading an
 * address (or a block at an address) already read in the same cycle, with
 * no write in between, first runs the machine through its next event. With
 * nothing pending the value cannot change and the read returns at once.
 */
#ifndef KOHAKU_CARD_H
#define KOHAKU_CARD_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/orch.h"
#include "kohaku/sim.h"

/* ---- the host address map (control.md §9.2) ---- */
#define KH_HOST_CMD_BASE UINT64_C(0x0)                 /* command window, 64 KiB */
#define KH_HOST_CTRL_BASE UINT64_C(0x00800000)         /* node control window of mesh 0 */
#define KH_HOST_CTRL_STRIDE UINT64_C(0x00010000)       /* ... mesh N at BASE + N * STRIDE */
#define KH_HOST_CTRL_ALIAS UINT64_C(0x10000000)        /* bench alias of mesh 0's window */
#define KH_HOST_WINDOW_SIZE UINT64_C(0x10000)          /* every control window: addr[15:0] */
#define KH_HOST_MEM_SHIFT 40                           /* memory window of mesh N at (N+1) << 40 */
#define KH_HOST_MESHES 4                               /* meshes 0..3 (control.md §7.1) */

/* Host address of control-window offset off of mesh n's node. */
uint64_t kh_host_ctrl(unsigned mesh, uint32_t off);
/* Canonical memory-window addresses (control.md §9.2): mesh n's DRAM at
 * local offset L, and its staging store at offset S. */
uint64_t kh_host_dram(unsigned mesh, uint64_t offset);
uint64_t kh_host_staging(unsigned mesh, uint64_t offset);

/* A mesh's memory window (S_AXI_MEM): the node's zero-time host path at a
 * 40-bit inside address (memory.md §9). Returns 0, or -1 with a message. */
typedef struct kh_card_mem {
    void *ctx;
    int (*read)(void *ctx, uint64_t inside, uint8_t *bytes, size_t n, char *err, size_t errlen);
    int (*write)(void *ctx, uint64_t inside, const uint8_t *bytes, size_t n, char *err, size_t errlen);
} kh_card_mem;

typedef struct kh_card kh_card;

/* A card with its control-program engine (registered with sim) and no
 * meshes yet. */
kh_card *kh_card_new(kh_sim *sim, char *err, size_t errlen);
void kh_card_free(kh_card *c); /* the engine belongs to the simulation */
/* Plug in mesh n: its orchestrator (node control window) and memory. */
int kh_card_attach_mesh(kh_card *c, unsigned mesh, kh_orch *orch, const kh_card_mem *mem, char *err,
                        size_t errlen);
kh_sim *kh_card_sim(const kh_card *c);
kh_engine *kh_card_engine(const kh_card *c);

/* The host API. Each returns 0, or -1 with a message naming the address and
 * the rule in err (unaligned, unmapped, a block not made of whole words). */
int kh_card_write64(kh_card *c, uint64_t addr, uint64_t value, char *err, size_t errlen);
int kh_card_read64(kh_card *c, uint64_t addr, uint64_t *value, char *err, size_t errlen);
/* A driver's status spin: runs the machine `step` cycles (0: reads back to back), then reads
 * addr (kh_card_read64, its link time included), until (value & mask) ==
 * want (0) or until more than `limit` cycles have passed since the call
 * (1); -1 when a read is refused. *value is the last read. The same
 * machine as that loop written out; under MPI a read's link time and the
 * next step are one run, one agreement (docs/mpi.md "The host card"). */
int kh_card_poll64(kh_card *c, uint64_t addr, kh_cycle step, uint64_t mask, uint64_t want, kh_cycle limit,
                   uint64_t *value, char *err, size_t errlen);
int kh_card_write_block(kh_card *c, uint64_t addr, const void *bytes, size_t n, char *err, size_t errlen);
int kh_card_read_block(kh_card *c, uint64_t addr, void *bytes, size_t n, char *err, size_t errlen);
/* The registers' names (the session language's, docs/session.md): the
 * orchestrator's in a node control window (control.md §2.2) and the
 * control-program engine's in the command window (§3). */
typedef struct kh_card_reg {
    const char *name;
    uint32_t off;
} kh_card_reg;
const kh_card_reg *kh_card_orch_regs(size_t *n);
const kh_card_reg *kh_card_engine_regs(size_t *n);
/* A host address in words: "PROG_STAT of mesh 0's node control window",
 * "NODE_STATUS(1,0) of mesh 0", "mesh 0's memory window + 0x1000", ... */
void kh_card_addr_name(const kh_card *c, uint64_t addr, char *buf, size_t len);

/* Whether the last read (word or block) sampled a machine with nothing
 * pending: then its value cannot change without another host access, and
 * a poll for another value can never succeed. Exact: judged at the
 * sampling point, before the read's own link time ran the clock. */
int kh_card_read_settled(const kh_card *c);
/* Host writes to mesh's node control window that were held back so they
 * could not re-stamp or collide with a dispatch's final flit (PROG_DST or
 * TX_KICK in the end-of-dispatch window, docs/host-link.md). */
uint64_t kh_card_held_beats(const kh_card *c, unsigned mesh);

/* ---- one card, several processes (docs/mpi.md) ----
 * Every process runs the same host program against its replica of the
 * machine; an access to mesh n reaches the machine only in the process
 * that steps mesh n, and what it returns (value, bytes, error) is shared
 * with every other, so all of them go on identically. The engine runs in
 * every process; its writes reach only the owner, its POLL reads are
 * shared before the cycle that samples them (kh_card_engine_prefetch, at
 * each window start). */
typedef struct kh_card_dist {
    void *ctx;
    int (*owns)(void *ctx, unsigned mesh); /* this process steps mesh */
    /* Collective: the owner's n bytes reach every process (the same n everywhere). */
    void (*share)(void *ctx, unsigned mesh, void *bytes, size_t n);
    /* Collective, may be NULL: kh_sim_idle's answer, with the owner's word
     * *v of mesh on every process from the same agreement (a host read of
     * a control window: one collective instead of two). */
    int (*idle_share)(void *ctx, unsigned mesh, uint64_t *v);
    /* May be NULL. A poll reads again what it read last, after a run: the
     * card names that read (mesh KH_CARD_NO_MESH: only whether the machine
     * is idle, a command-window read) and every agreement carries the
     * owner's read(card, mesh, off, cycle, &value) of it (0: it cannot read
     * without changing state, and the ride is void) and whether the machine
     * is idle. ridden: whether the last agreement was at cycle `now`, after
     * ride number `after`, for that read, and then its value and answer. */
    void (*ride)(void *ctx, unsigned mesh, uint32_t off,
                 int (*read)(void *card, unsigned mesh, uint32_t off, kh_cycle at, uint64_t *v), void *card);
    int (*ridden)(void *ctx, unsigned mesh, uint32_t off, kh_cycle now, uint64_t after, uint64_t *v, int *idle);
    uint64_t (*rides)(void *ctx); /* the number of the last ride */
} kh_card_dist;
#define KH_CARD_NO_MESH 0xFFFFFFFFu
void kh_card_set_dist(kh_card *c, const kh_card_dist *d); /* NULL: one process again */
const kh_card_dist *kh_card_get_dist(const kh_card *c); /* NULL: one process */
/* Checkpoints (kohaku/ckpt.h): the host link's timing state (save and restore). */
struct kh_ck;
void kh_card_ckpt(kh_card *c, struct kh_ck *ck);
/* Between cycles at now: if the engine samples a control-window read in
 * cycle now, its owner reads it and every process keeps the value. */
void kh_card_engine_prefetch(kh_card *c, kh_cycle now);

#endif
