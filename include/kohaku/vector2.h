/* The V2 vector core alone, as upstream's core-alone harness runs it
 * (vec_replay_tb built with VEC_CORE_V2, scripts/py/vec2/bench.py): the
 * core in vec_cu behind a noc_cu_base of profile L, fed CU_INST payloads
 * one every two cycles at most, against a 4096-word memory that answers one
 * word every memwait + 1 cycles (docs/vector2.md §9, ../shared/cli.md
 * `kohaku replay vector2`). */
#ifndef KOHAKU_VECTOR2_H
#define KOHAKU_VECTOR2_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kohaku/params.h"

#define KH_V2_MEM_WORDS 4096 /* the harness's memory, 32-byte words */

/* Every engine's busy and stall cycles, as the RTL's measurement block
 * counts them (one cycle each, while the core is busy). */
typedef struct kh_v2_counters {
    uint64_t busy, beats, lanes, insns, l1_rd, l1_wr, fill_words, drain_words;
    uint64_t m_act, m_haz, m_empty, m_sync;                 /* V2MATH act hazard empty sync */
    uint64_t u_act, u_room, u_sync, u_wbblk;                /* V2UNPACK act no_room sync wb_blocked */
    uint64_t p_act, p_room, p_haz, p_sync, p_l1blk;         /* V2PACK act no_room raw sync l1_blocked */
    uint64_t a_act, a_dact, a_fsync, a_dsync, a_drblk, a_drarb; /* V2DMA fill_act drain_act fill_sync
                                                              * drain_sync drain_blocked drain_lost_arb */
    uint64_t d_mq, d_sbm, d_uq, d_sbu, d_pq, d_aq, d_seti, d_fe, d_idle, redir; /* V2DISPATCH */
} kh_v2_counters;

typedef struct kh_v2_replay_result {
    unsigned payloads, completions, faults;
    uint32_t fault_arg;     /* the last fault completion's argument */
    uint64_t elapsed;       /* first payload offered to the last completion, cycles */
    kh_v2_counters c;
    uint64_t cycles;        /* clock cycles simulated (the bench's 200-cycle tail included) */
    int timeout;            /* the completions did not all arrive */
} kh_v2_replay_result;

/* Run prog (n payloads of 4 words each, word 0 = payload bits [63:0])
 * against mem (KH_V2_MEM_WORDS words of 4, changed in place to the final
 * memory). p supplies the V2 parameters (v2_*). 0 ran (r says how), -1
 * refused (err). */
int kh_v2_replay(const uint64_t *prog, size_t n, uint64_t *mem, unsigned memwait, const kh_params *p,
                 kh_v2_replay_result *r, char *err, size_t errlen);
/* The same on a chosen engine: ref 1 steps every engine of the core at
 * every edge (the per-cycle reference, engine cycle), 0 lets an engine at
 * rest be skipped (engine fast); the results are the same. kh_v2_replay
 * takes the environment's KOHAKU_ENGINE (cycle or fast, default fast). */
int kh_v2_replay_ref(const uint64_t *prog, size_t n, uint64_t *mem, unsigned memwait, const kh_params *p, int ref,
                     kh_v2_replay_result *r, char *err, size_t errlen);
/* The engine lines and the summary line of ../shared/cli.md. */
void kh_v2_replay_print(FILE *out, const kh_v2_replay_result *r);

#endif
