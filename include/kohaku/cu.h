/* The compute-unit shell (noc_cu_base, control.md §5) and the unit plug-in
 * interface.
 *
 * A compute unit is a small C module that implements only its datapath. The
 * shell owns routing, the instruction / receive / completion FIFOs, credits,
 * signal codes, CU_CTRL and the output register. A unit never builds a
 * completion flit: it reports exec_done / exec_fault / exec_result through
 * kh_cu_done(). One registry row per unit kind (src/cu/registry.c) binds a
 * map token and a CU_TYPE code to the unit's ops.
 *
 * Calling protocol, per cycle in which the shell is stepped:
 *   1. the shell offers the head of its receive FIFO: unit->recv() (at most
 *      one flit per cycle; return 1 = consumed, recv_ready);
 *   2. if inst_valid (FIFO head visible, nothing in flight, completion queue
 *      not full) the shell offers the instruction: unit->inst() (return 1 =
 *      accepted, inst_ready; copy what you need now);
 *   3. unit->step(), if the unit asked to be woken for this cycle.
 * A unit sends with kh_cu_send(); when it returns 0 (send_ready low) the
 * unit keeps the flit and is woken when the shell's output frees up.
 */
#ifndef KOHAKU_CU_H
#define KOHAKU_CU_H

#include <stdarg.h>
#include <stdint.h>

#include "kohaku/sim.h"

typedef struct kh_cu kh_cu;

/* Where the unit sits and which memory port it was bound to (mesh.md §2). */
typedef struct kh_cu_place {
    uint8_t x, y;         /* own coordinate (POS_X, POS_Y) */
    uint8_t mem_x, mem_y; /* bound memory port (MEM_X, MEM_Y) */
    uint8_t mesh_id;      /* this mesh's id (0 in a one-mesh machine) */
} kh_cu_place;

struct kh_ck;
typedef struct kh_unit_kind {
    const char *token;   /* map token, e.g. "mat"; NULL if not placeable */
    const char *name;    /* e.g. "mx_cluster_cu" */
    uint16_t cu_type;    /* CU_CAPS[63:48] ("MG" = 0x4D47 ...) */
    uint8_t cu_version;  /* CU_CAPS[47:40] when params->cu_version is 0 */
    uint8_t n_buffers;   /* CU_CAPS[39:36] */
    uint16_t inst_depth; /* fixed INST_DEPTH of this kind (cpu.md §7.1); 0: the machine's inst_depth */
    uint16_t recv_depth; /* fixed RECV_DEPTH; 0: the machine's recv_depth */
    /* Create the datapath state. Returns NULL with a message in err. */
    void *(*create)(kh_cu *shell, const kh_params *p, char *err, size_t errlen);
    void (*destroy)(void *unit);
    int (*inst)(void *unit, const kh_flit *inst, kh_cycle now);
    int (*recv)(void *unit, const kh_flit *f, kh_cycle now);
    void (*step)(void *unit, kh_cycle now);
    uint64_t (*dbg)(void *unit);                                  /* CU_DBG; may be NULL */
    /* 1: the unit calls kh_cu_dbg_moves() before each change of what dbg
     * returns, so the shell need not read dbg at every step to keep the
     * start-of-cycle value a CU_CTRL read sees */
    int dbg_announced;
    /* 1: recv takes every flit (returns 1), sends nothing and finishes
     * nothing, only updating the unit and asking for wakes (kh_cu_wake):
     * the event engine then hands it each flit by a timer in the cycle the
     * flit is visible, and the shell is not stepped for it (docs/design.md
     * §2, "The event engine"). 0: the shell's steps offer every flit. */
    int recv_takes_all;
    int (*describe_stuck)(void *unit, char *buf, size_t len);     /* may be NULL */
    void (*stats_json)(void *unit, char *buf, size_t len);        /* may be NULL */
    /* The mnemonic of an instruction word (the trace names its slice so);
     * a string literal. May be NULL ("inst"). */
    const char *(*inst_name)(const kh_flit *inst);
    /* Build parameters (params.h): the kind's own rows (params_KIND.def),
     * its rules beyond their ranges, and the recording environment it was
     * recorded in (parameters.md §2). Each may be NULL / 0. */
    const kh_param_info *params;
    unsigned nparams;
    int (*check_params)(const kh_params *p, char *err, size_t errlen);
    const char *profile;                /* e.g. "rec-cluster" */
    void (*apply_profile)(kh_params *p);
    /* Checkpoints (kohaku/ckpt.h, docs/checkpoint.md): visit the unit's
     * dynamic state (save or restore). NULL: not covered yet, and a save
     * of a machine holding the kind refuses naming it. */
    void (*ckpt)(void *unit, struct kh_ck *ck);
} kh_unit_kind;

/* Registry (src/cu/registry.c): one row per unit kind. */
const kh_unit_kind *kh_unit_by_token(const char *token);
const kh_unit_kind *kh_unit_by_name(const char *name);
const kh_unit_kind *const *kh_unit_kinds(unsigned *n);

/* Create a shell with its unit and register it with the simulation.
 * Links are attached afterwards by the machine builder. */
kh_cu *kh_cu_new(kh_sim *sim, const kh_unit_kind *kind, const kh_cu_place *place,
                 char *err, size_t errlen);
kh_comp *kh_cu_comp(kh_cu *cu);
/* Inbound: the accept function a link into this shell uses (port 0). */
int kh_cu_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now);
/* Outbound link (towards the router or whatever sits next). */
void kh_cu_set_out(kh_cu *cu, kh_link *out);

/* ---- services for units ---- */
int kh_cu_send(kh_cu *cu, const kh_flit *f, kh_cycle now);              /* 1 = taken */
void kh_cu_done(kh_cu *cu, int fault, uint32_t result, kh_cycle now);   /* exec_done */
void kh_cu_wake(kh_cu *cu, kh_cycle at);                                /* step the unit at `at` */
void kh_cu_dbg_moves(kh_cu *cu, kh_cycle now); /* dbg's value is about to change (dbg_announced) */
/* The datapath computes from now until `until` (exclusive), whether or not
 * an instruction is in flight (a cluster's GEMM retires at sweep start):
 * those cycles count as busy in the stats, and the trace shows them as a
 * slice `name` (a string literal). Only counts and traces. */
void kh_cu_computing(kh_cu *cu, const char *name, kh_cycle now, kh_cycle until);
const kh_cu_place *kh_cu_where(const kh_cu *cu);
kh_sim *kh_cu_sim(const kh_cu *cu);
void *kh_cu_unit(const kh_cu *cu);
const kh_unit_kind *kh_cu_kind(const kh_cu *cu);
/* Nothing waits in the receive FIFO (a unit that must not let a kick
 * overtake flits staged ahead of it, cpu.md §7.3). */
int kh_cu_recv_empty(const kh_cu *cu, kh_cycle now);
/* The flit in the output register (the one on the link while it is sent)
 * came from the framework path, a completion or a CU_CTRL reply (1), or
 * from the unit's kh_cu_send (0): the live checker's V16 (docs/check.md). */
int kh_cu_out_framework(const kh_cu *cu);
/* Cycle the shell handed its first instruction to the unit (KH_NEVER if
 * none yet): the cycle origin of the unit-level recordings. */
kh_cycle kh_cu_first_accept(const kh_cu *cu);
void kh_cu_log(kh_cu *cu, kh_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* kh_cu_log for a unit's own variadic logger: forward its va_list here. */
void kh_cu_vlog(kh_cu *cu, kh_log_level lvl, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

#endif
