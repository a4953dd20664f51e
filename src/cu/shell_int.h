/* The shell's private layout (src/cu only; units use cu.h). */
#ifndef KOHAKU_CU_SHELL_INT_H
#define KOHAKU_CU_SHELL_INT_H

#include "kohaku/cu.h"

/* What the CU_CTRL registers show (control.md §5.6), apart from the
 * constants of CU_CAPS and the busy-cycle count (accumulated lazily up to,
 * not including, the current cycle). */
typedef struct kh_cu_ctrl_view {
    int busy;           /* in flight, instruction FIFO or completion queue not empty */
    unsigned occupancy; /* instruction FIFO occupancy (16-bit) */
    uint32_t retired;   /* every exec_done */
    uint64_t dbg;       /* the unit's dbg_ctr */
} kh_cu_ctrl_view;

struct kh_cu {
    kh_comp base;
    const kh_unit_kind *kind;
    void *unit;
    kh_cu_place place;
    kh_params params;
    unsigned inst_depth; /* published in CU_CAPS (control.md §5.1) */
    uint8_t version;

    kh_fifo inst_q, recv_q, sig_q; /* instruction, receive, completion FIFOs */
    unsigned inst_occupancy;       /* +1 per accepted CU_INST, -1 per pop (16-bit) */
    kh_cycle pop_at;               /* the instruction FIFO pops one cycle after accept */

    /* the instruction in flight (control.md §5.3) */
    int in_flight;
    uint8_t lat_src_x, lat_src_y, lat_txn, lat_last;
    kh_cycle accept_cycle, first_accept, done_cycle;

    /* CU_CTRL block (§5.6): one reply pending at most. A request latches
     * the registers as its accept cycle began; when the shell has already
     * stepped in that cycle, that is the view taken at the step's start. */
    kh_cycle view_cycle;
    kh_cu_ctrl_view view;
    /* view holds the step's start (else nothing it shows has changed since:
     * it is read live); taken at the first change, not at every step, when
     * view_lazy (the kind's dbg is constant or announced, cu.h) */
    int view_taken, view_lazy;
    /* one reply pending at most */
    int ctrl_pending;
    kh_flit ctrl_reply;
    kh_cycle ctrl_ready;

    /* output register (§5.5) */
    kh_flit out;
    int out_valid;
    int out_fw;         /* out came from the framework (completion, CU_CTRL reply), not kh_cu_send */
    kh_cycle out_placed;
    kh_link *out_link;
    int send_ready, unit_send_blocked;

    /* the unit's wake requests: the first one pending in uw_soon (most
     * often the next cycle, asked for several times a step), the others in
     * the heap uw */
    kh_cycle uw_soon;
    kh_cycle *uw;
    unsigned nuw, capuw;

    int in_step;
    kh_cycle step_now, recv_refused;

    /* the event engine (kind->recv_takes_all): the receive FIFO's flits
     * handed to the unit by timers in the cycles they are visible, one
     * per accept in flight */
#define KH_CU_RECV_TIMERS 8
    struct kh_cu_rtimer {
        kh_timer tm; /* first member */
        struct kh_cu *cu;
    } recv_tm[KH_CU_RECV_TIMERS];
    unsigned recv_tm_next;
    int recv_timed;     /* the receive FIFO's latency lets a timer per flit do */

    /* counters (CU_COUNTERS, stats) */
    uint32_t retired, busy_cycles;
    kh_cycle busy_mark;
    /* where the cycles went (stats, the report), each cycle once: computing
     * (kh_cu_computing, or work held with no read owed), waiting for memory
     * (work held, read-response flits owed), a gap after the unit first
     * worked (waiting for instructions; the trailing stretch since busy_end
     * is given to idle when read) */
    uint64_t busy_total, rd_owed, compute_cycles, mem_wait_cycles, gap_cycles; /* busy_total: busy_cycles unwrapped */
    kh_cycle busy_end, compute_until;
    int ever_busy;
    const char *inst_name; /* the instruction in flight, while tracing */
    uint64_t accepted, completions, unit_flits, ctrl_discarded;
    int warned_inst_rsvd; /* a CU_INST with rsvd != 0 was reported (once) */
};


#endif
