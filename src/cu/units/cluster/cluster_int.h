/* mx_cluster_cu, the KohakuTPU matmul cluster (cluster.md): private state.
 *
 * The unit is split by idea: decode.c (the instruction word), fill.c (FILL:
 * the read request and placement of responses), sweep.c (GEMM: the
 * arithmetic and the sweep's schedule), drain.c (DRAIN, emission batches and
 * the write port's burst framing), recv.c (CU_DATA reception), unit.c (the
 * sequencer and the plug-in row).
 *
 * Functional results are computed when an operation starts (a GEMM's whole
 * sweep at sweep start, a drain's granules at drain start); what is
 * observable (flits, their order and framing, completions) follows the
 * timing model of cluster.md §10 / §10.1, so cycle counts land close to the
 * RTL's. The sequential form is exact for every program that obeys §5.4 and
 * §6.3; the hazards it cannot see are flagged with warnings. */
#ifndef KOHAKU_CU_CLUSTER_INT_H
#define KOHAKU_CU_CLUSTER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/cluster.h"
#include "kohaku/cu.h"
#include "kohaku/num.h"

/* ---- constants of the unit (cluster.md §1) ---- */
#define KH_CL_OP_FILL 1   /* §2 op */
#define KH_CL_OP_GEMM 2   /* §2 op */
#define KH_CL_OP_DRAIN 3  /* §2 op */
#define KH_CL_WBURST 8    /* §1 write burst: granules per descriptor */
#define KH_CL_REUSE_MIN 5 /* §1, §5.2: same tile address, consecutive commands */
#define KH_CL_QHOLD 112   /* §1: sweep held at >= 112 emitted granules outstanding */
#define KH_CL_FILL_MAX 255 /* §4.1: the request count is n[7:0] */
#define KH_CL_WR_TXN 0x02 /* §6.4: txn of every local drain flit */
#define KH_CL_SIG_DATA_RECEIVED 0x03 /* flits.md §5 */
#define KH_CL_RD_FLAGS_STREAM 0x40   /* §4.2: flags byte, STREAM only */
#define KH_CL_RD_FLAGS_QUANT 0x10    /* §11 (older agent): FP16 entries quantised on the read path */
#define KH_CL_RD_FLAGS_BLAYOUT 0x20  /* §11: with QUANT, the B packing */
#define KH_CL_BUF_PEER 2  /* §6.2 / §7: buffer 2 = FP22 tile, ADD_PEER / SEND */
#define KH_CL_ANCHOR 40   /* numerics §5: 2·SBIAS */

/* ---- timing of the pipeline around the sequencer ----
 * The sequencer's state costs are exact (§10.1). The offsets below place
 * the sweep, the drain engine and the write port relative to it; they were
 * fitted to the recorded programs of ../shared/vectors/cluster.jsonl
 * (upstream documents the stages, not their registers). */
#define KH_CL_REQ_DELAY 2      /* instruction taken -> FILL's read request sent */
#define KH_CL_FILL_TAIL 3      /* last word 3 consumed -> exec_done of the FILL */
#define KH_CL_GEMM_MIN_WAIT 2  /* instruction taken -> earliest sweep start */
#define KH_CL_GWAIT 2          /* §10.1 GWAIT: sweep start -> DONE - 1 */
#define KH_CL_CONV_LAT 5       /* accumulator result -> granule in the drain queue */
#define KH_CL_DRAIN_GAP 8      /* last accumulator write -> an explicit drain's first EMIT */
#define KH_CL_PORT_GAP 1       /* idle cycles between two bursts of the write port */
#define KH_CL_DRAIN_TAIL 3     /* last flit of the last burst sent -> exec_done */

/* One destination W of the write-back (§3, §6.2). */
typedef struct kh_cl_dest {
    uint64_t base;  /* addr40 */
    unsigned dnode; /* 0 memory, 1 a mesh node (CU_DATA) */
    unsigned dst_x, dst_y, dbuf, dflags, dack_y, dack_x, dmesh, dfin;
} kh_cl_dest;

/* A decoded instruction (§2): every field, zero-means-default not applied. */
typedef struct kh_cl_inst {
    unsigned op;
    unsigned n;      /* 16 bits raw */
    unsigned sel, acc, gm, gn, nk, anchor;
    unsigned preq;   /* [141], read only under read_quant (§11) */
    unsigned peers;  /* 24 bits, peer j = byte j */
    unsigned npeer, eoff, aoff, boff, emit, fuse, abank, bbank, fbank;
    kh_cl_dest d;    /* addr40 and the drain fields */
    unsigned txn, last; /* the CU_INST header (for messages) */
} kh_cl_inst;

/* Sequencer states (§10.1). */
typedef enum kh_cl_state {
    KH_CL_IDLE,   /* waiting for an instruction */
    KH_CL_FILL,
    KH_CL_GEMM,   /* waiting for the sweep's start conditions (§5.3) */
    KH_CL_DRAIN,  /* waiting for the drain's start conditions (§6) */
    KH_CL_DWAIT,  /* waiting for the last write to leave */
    KH_CL_DONE,   /* exec_done pulses at done_at */
} kh_cl_state;

/* One emission batch (§6.2): the granules of an explicit drain or of an
 * emitting GEMM's last K block, in G order. */
typedef struct kh_cl_batch {
    int active;
    int fused;          /* produced by an emitting GEMM (§6.3) */
    unsigned total;     /* granules the batch produces */
    unsigned taken;     /* granules placed into bursts by the write port */
    unsigned cap;
    int fp16;           /* the granules are FP16 words (not SEND's FP22 halves) */
    uint64_t (*val)[4]; /* granule payloads */
    kh_cycle *avail;    /* cycle each granule is in the drain queue */
} kh_cl_batch;

/* The write port: one burst at a time, descriptor then data (§6.4). */
typedef struct kh_cl_port {
    int busy;           /* a burst is being sent */
    unsigned first, count, pos; /* pos 0 = descriptor next, 1..count data */
    kh_cl_dest w;       /* W as read when the burst was formed */
    kh_cycle free_at;   /* earliest cycle the next burst may start */
    kh_cycle last_sent; /* cycle the last flit left */
} kh_cl_port;

/* CU_DATA receiver (§7): one burst at a time. */
typedef struct kh_cl_rx {
    int open;
    unsigned src_x, src_y, txn, buf, off, len, signal, ack_x, ack_y;
    int accept;
    unsigned d;          /* data flits consumed */
    uint64_t even[4];    /* buffer 2: the even granule of a pair */
} kh_cl_rx;

/* The sweep as scheduled at its start (§5.2, §10). */
typedef struct kh_cl_sweep {
    unsigned cmds;       /* gm'·gn'·nk' */
    unsigned step;       /* cycles per command: 1 + pace */
    kh_cycle first;      /* issue cycle of command 0 */
    kh_cycle issue_end;  /* cycle after the last issue (stopped issuing) */
    kh_cycle idle_at;    /* last result written to the tile (cascade + acc idle) */
    kh_cycle chain_out;  /* cycle after the last result left the cascade (manager idle) */
    /* hazard tracking (§5.4): L1 slots the sweep reads, until issue_end */
    uint8_t *reads_a, *reads_b; /* GA / GB flags */
} kh_cl_sweep;

/* Outgoing single flits (the read request, DATA_RECEIVED signals). */
#define KH_CL_OUTQ 16

typedef struct kh_cluster {
    kh_cu *cu;
    kh_cu_place at;
    /* build parameters (§1) */
    unsigned tiles, ga, gb, mw;
    int read_quant;   /* FILL with preq = 0 asks for FP16 entries (param read_quant, §11) */
    unsigned l1_lat, chain_lat, acc_lat;
    kh_mx_kernels mx;    /* the block-product path, resolved once at creation */
    /* architectural state (§3) */
    kh_mx_entry *l1a, *l1b;
    uint32_t (*tile)[16];
    uint8_t *loaded;     /* tile ever LOADed (undefined otherwise, Open point 8) */
    uint64_t asm_w[16];  /* the placement assembly register, words 0..3 */
    unsigned retired;    /* 16-bit retirement count */
    int fault_latch;
    kh_cl_dest W;        /* write-back destination */
    kh_cl_dest fused_w;  /* destination of the last emitting GEMM (hazard check) */
    int fused_pending;   /* an emitting GEMM's batch awaits its fused DRAIN */
    unsigned fused_total; /* granules that GEMM emits */
    kh_cycle acc_idle_at; /* accumulator idle from this cycle (sweep and EMITs) */
    /* the sequencer */
    kh_cl_state state;
    kh_cl_inst in;       /* instruction in flight */
    kh_cycle accepted;   /* cycle the instruction was taken (IDLE) */
    kh_cycle done_at;
    int done_fault;
    /* FILL */
    int fill_started, fill_leader;
    unsigned fill_need, fill_got;
    /* sweep, drain, port, receiver */
    kh_cl_sweep sw;
    kh_cl_batch batch;
    kh_cl_port port;
    kh_cl_rx rx;
    kh_flit outq[KH_CL_OUTQ];
    unsigned outq_head, outq_n;
    kh_cycle last_send;  /* cycle of the unit's last kh_cu_send (one per cycle) */
    /* the older form's signature (cluster.md §11, older.c): L1 slots holding
     * FP16 words rather than an MXFP7 entry, sub-tiles computed from them */
    uint8_t *fp16_a, *fp16_b, *tile_fp16;
    /* statistics */
    uint64_t n_fill, n_gemm, n_drain, n_other, n_cmds, n_macs, n_granules, n_bursts;
    uint64_t n_rx_bursts, n_rx_rejected, n_warnings;
    uint64_t n_drained, n_saturated, n_nonfinite; /* FP16 values written out (kh_f16_word_extremes) */
    uint64_t n_fp16_entries, n_older_drains;      /* older.c */
} kh_cluster;

/* unit.c: kh_cluster_alloc and kh_cluster_free (kohaku/cluster.h) give the
 * state without a shell (cu == NULL: no flits, no log). */

/* decode.c */
/* Checkpoints (ckpt.c). */
struct kh_ck;
void kh_cl_ckpt(void *unit, struct kh_ck *ck);

void kh_cl_decode(const kh_flit *inst, kh_cl_inst *out);
static inline unsigned kh_cl_or1(unsigned v) { return v ? v : 1; } /* zero means one */
unsigned kh_cl_l1ix(unsigned bank, unsigned off, unsigned size); /* §1 l1ix */

/* fill.c */
void kh_cl_fill_start(kh_cluster *u, kh_cycle now);
int kh_cl_fill_resp(kh_cluster *u, const kh_flit *f, kh_cycle now);
void kh_cl_place_word(kh_cluster *u, unsigned word, const uint64_t data[4], int b_packing,
                      kh_mx_entry *commit_to);

/* sweep.c */
int kh_cl_sweep_can_start(kh_cluster *u, kh_cycle now, kh_cycle *retry);
void kh_cl_sweep_start(kh_cluster *u, kh_cycle now);
void kh_cl_sweep_compute(kh_cluster *u, const kh_cl_inst *in, uint64_t (*emit_out)[4]);
void kh_cl_fill_hazard(kh_cluster *u, const kh_cl_inst *in, kh_cycle now);

/* drain.c */
int kh_cl_batch_reserve(kh_cluster *u, unsigned total);
int kh_cl_drain_can_start(kh_cluster *u, kh_cycle now, kh_cycle *retry);
void kh_cl_drain_start(kh_cluster *u, kh_cycle now);
int kh_cl_drain_finished(const kh_cluster *u, unsigned need);
int kh_cl_batch_outstanding(const kh_cluster *u);
void kh_cl_port_step(kh_cluster *u, kh_cycle now, kh_cycle *next);
void kh_cl_dest_from_inst(kh_cluster *u, const kh_cl_inst *in);

/* older.c */
int kh_cl_entry_fp16(const uint64_t w[16]);
void kh_cl_older_entry(kh_cluster *u, unsigned side, unsigned slot, int quantised);
int kh_cl_older_sweep(kh_cluster *u, const kh_cl_inst *in);
void kh_cl_older_drain(kh_cluster *u, const kh_cl_inst *in, unsigned granules, unsigned tainted);

/* recv.c */
int kh_cl_rx_cu_data(kh_cluster *u, const kh_flit *f, kh_cycle now);

/* unit.c */
void kh_cl_queue_flit(kh_cluster *u, const kh_flit *f, kh_cycle now);
void kh_cl_warn(kh_cluster *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kh_cl_log_lint(kh_cluster *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kh_cl_kick(kh_cluster *u, kh_cycle at);

#endif
