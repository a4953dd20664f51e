/* The memory mover's private layout (mover*.c, memory.md §11).
 *
 * Registers (mover_regs.c) feed a run engine (mover.c) made of a producer
 * that walks the descriptors one element per cycle, merging reads into
 * bursts, and a writer that retires elements in order one per cycle,
 * merging writes. Data moves at the writer, element by element, so memory
 * ends exactly as if the elements were processed sequentially (§11.3,
 * Open point 11); the converged path sees the bursts for timing only. */
#ifndef KH_SYSNODE_MOVER_INT_H
#define KH_SYSNODE_MOVER_INT_H

#include "sysnode/mover/gather.h"
#include "sysnode/node_int.h"
#include "sysnode/mover/walker.h"

/* Mover modes (memory.md §11.1, register 0x00 [2:0]). */
enum kh_mover_mode {
    MV_COPY = 0,      /* destination walk defines the iteration */
    MV_TRANSPOSE = 1, /* fault 4 at GO */
    MV_GATHER = 2,    /* indexed read, index vector loaded first (§11.5) */
    MV_GENERATE = 3,  /* Philox words (§11.7) */
    MV_FILL = 4,      /* fill_word (§11.3) */
    MV_XFORM = 5,     /* source walk through the transform slot (§11.6) */
};

/* Fault codes (memory.md §11.4). */
enum kh_mover_fault {
    MF_NONE = 0,
    MF_IDX_LEN = 1,  /* GATHER idx_count > 2048 */
    MF_RANGE = 2,    /* allocated; never raised (seed RTL) */
    MF_AXI = 3,      /* non-OKAY response; our memory always answers OKAY */
    MF_MODE = 4,     /* TRANSPOSE */
    MF_EWIDTH = 5,   /* ewidth = 3 */
    MF_ALIGN = 6,    /* misaligned destination element */
    MF_BOUND = 7,    /* bound axis in a transform move */
};

/* Element kinds. */
enum { EK_SKIP, EK_READ, EK_FILL, EK_GEN, EK_XBEAT };
/* Write-merge classes (§11.8: read data, fill; GENERATE never merges). */
enum { WC_READ, WC_FILL, WC_GEN };

typedef struct mv_elem {
    uint8_t kind;
    uint64_t daddr;  /* destination (XFORM: the entry's D_k) */
    uint64_t saddr;  /* source word (EK_READ, EK_XBEAT) */
    uint64_t rseq;   /* position in the read-beat stream */
    uint64_t entry;  /* XFORM entry index */
} mv_elem;

typedef struct mv_burst {
    uint64_t addr;
    unsigned beats;
    int remote;      /* the words go to another mesh through the interlink (memory.md §14) */
} mv_burst;

/* A word of a remote burst, held until the burst is issued. */
typedef struct mv_rword {
    uint64_t addr;
    uint64_t d[4];
} mv_rword;

typedef struct mv_regw {
    unsigned reg;
    uint64_t value;
    kh_cycle at;     /* cycle the write takes effect (arrival + 1) */
} mv_regw;

struct kh_mover {
    kh_comp c;
    kh_node *n;
    kh_creq *rq;
    /* ---- registers (§11.1) ---- */
    unsigned mode, ewidth;
    uint64_t ctrl;               /* last 0x00 value: flags live in bits [15:8] */
    kh_walk_desc walk[2];        /* 0 source, 1 destination */
    unsigned xform_id, xform_mode;
    unsigned lsel, ldim;         /* latches of 0x10/0x18/0x28 and 0x18 */
    uint16_t lcount;
    int32_t lstride;
    uint64_t idx_base;
    unsigned idx_count;
    uint64_t seed;
    uint32_t imm;
    uint32_t pitch;
    unsigned gwords;
    kh_ring regw;                /* mv_regw, in arrival order */
    /* ---- status (§11.1: busy, fault, done counter) ---- */
    int running;
    unsigned fault;
    uint32_t done;
    kh_cycle chg_cycle;          /* status changed in this cycle: readers see the old one */
    int old_running;
    unsigned old_fault;
    uint32_t old_done;
    /* ---- the running move ---- */
    unsigned rmode, rewidth, rcoalesce, rcap;
    kh_cycle go_at;              /* cycle the move started (trace span) */
    int idx_phase;               /* GATHER: loading the index vector */
    uint64_t idx_words;
    kh_walk sw, dw;
    kh_walk_elem ls, ld;         /* last elements seen (stale on a short walk, Open point 10) */
    int warned_short;
    uint64_t wlo, whi;           /* bytes this move has written so far: [wlo, whi) */
    int warned_overlap;
    uint64_t e;                  /* elements produced (XFORM: source words) */
    int prod_done;
    unsigned prod_fault;         /* fault the producer met (6 or 7), raised at the end */
    kh_ring elems;               /* mv_elem, produced, not yet retired */
    unsigned elems_cap;
    /* Lane promises (mover_reach.c) ask whether every element in elems
     * writes inside one mesh at each agreement: once they have asked
     * (elems_tracked; one process never does, and pays a branch a push), the
     * newest elems_run elements pushed all write inside mesh elems_mesh
     * (KH_MV_NO_MESH: not inside one), so the answer needs no walk over
     * the ring. */
    int elems_tracked;
    unsigned elems_mesh;
    uint64_t elems_run;
    /* read side */
    uint64_t rseq_next, arrived;
    int rb_open;
    mv_burst rb;
    kh_ring rbursts;             /* closed, waiting for their AR */
    unsigned rd_out;             /* bursts issued, last beat not yet in */
    uint64_t reserved;           /* read-FIFO words reserved (§11.8) */
    /* write side */
    int wb_open, wb_cls;
    mv_burst wb;
    int wcl_valid;
    mv_burst wcl;                /* closed burst waiting for a write slot */
    unsigned wr_out;             /* writes issued, response not yet in */
    kh_ring rwords;              /* mv_rword: remote words of bursts not yet issued */
    kh_ring rposted;             /* kh_cycle: posted answers of remote bursts (memory.md §14) */
    kh_mover_remote remote;      /* the way to other meshes; unset without the interlink */
    /* transform slot (§12) */
    const kh_xform_occupant *occ;
    unsigned in_beats;
    uint64_t xin[KH_XFORM_MAX_BEATS * 4];
    unsigned xgot;
    int xbusy;                   /* an entry is in the occupant */
    kh_cycle xdone_at;
    uint64_t xdst, xout[16];
    uint64_t pdst;               /* producer: D_k of the entry being walked */
    uint64_t xentry;             /* writer: entry being accumulated */
    uint64_t fault_entry;        /* XFORM: entries from here on are discarded */
    kh_gather_buf gbuf;
    /* statistics */
    uint64_t moves, faults, elems_done, rd_bursts, wr_bursts;
    uint64_t busy_cycles, xform_entries, xform_cycles; /* moves' spans; slot conversions and their latency (stats) */
    int progressed;
};

/* mover_regs.c */
/* Checkpoints (mover_ckpt.c). */
struct kh_ck;
void kh_mover_ckpt(kh_comp *c, struct kh_ck *ck);

void kh_mover_regs_reset(kh_mover *m);
void kh_mover_apply_writes(kh_mover *m, kh_cycle now);
void kh_mover_set_status(kh_mover *m, kh_cycle now, int running, unsigned fault, uint32_t done);

/* mover.c */
void kh_mover_go(kh_mover *m, kh_cycle now);

/* mover_reach.c: a produced element joins elems (the run above, kept
 * while elems_tracked); the run made again from the ring */
#define KH_MV_NO_MESH 0xffffffffu
void kh_mover_elem_pushed(kh_mover *m, uint64_t daddr);
void kh_mover_elems_recount(kh_mover *m);

/* mover_xform.c */
void kh_mover_xform_produce(kh_mover *m, kh_cycle now);
int kh_mover_xform_retire(kh_mover *m, kh_cycle now);

/* shared by the engine files (mover.c) */
void kh_mover_read_elem(kh_mover *m, mv_elem *el, uint64_t saddr);
void kh_mover_read_elem_close(kh_mover *m); /* the open read burst waits for its AR */
int kh_mover_source_misaligned(kh_mover *m, uint64_t saddr); /* 1: fault 6 raised */
int kh_mover_elem_arrived(const kh_mover *m, const mv_elem *el);
void kh_mover_consume_read(kh_mover *m, const mv_elem *el, uint64_t out[4]);
int kh_mover_push_write(kh_mover *m, uint64_t addr, unsigned beats, int remote);
void kh_mover_walk_get(kh_mover *m, int dst, kh_walk_elem *e);
/* Write one destination word: locally, or held for the interlink when it
 * names another mesh (returns 1 then). */
int kh_mover_store(kh_mover *m, uint64_t addr, const uint64_t w[4], kh_cycle now);

#endif
