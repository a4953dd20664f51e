/* vec_cu private: the vector core's state, the decoded inner word, the
 * sequencer and the pieces each file of this folder implements.
 *
 *   unit.c      the unit plug-in: outer ISA (IMEM, DESC, RUN), wiring to the shell
 *   core.c      the sequencer: RUN start, fetch, VLOOP, faults, halting, phases
 *   optable.c   the inner opcode table (name, semantic body) -- Spike style
 *   alu.c       ALU instructions: FLAT, D2/D4 chains, selectors, predication
 *   reduce.c    VRED and the reduction tree in the order of vector.md §6.3
 *   move.c      VLD, VST, VCVT, VSHUF, VBCAST
 *   ctl.c       VSETVL, VSETMODE, VSETI, VLOOP, VBAR, VHALT
 *   mem.c       VFILL, VDRAIN, peer drains, fill responses, the outbound queue
 *   cudata.c    CU_DATA reception into L1 (vector.md §1.4)
 *   desc.c      descriptors and the address walk (vector.md §3)
 *   timing.c    the lane timing model and the hazard check (vector.md §10, §11)
 *   decode.c / flits.c  the only files that touch bit layouts (generated accessors)
 */
#ifndef KOHAKU_VEC_H
#define KOHAKU_VEC_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/flit.h"
#include "kohaku/sim.h"
#include "kohaku/vnum.h"

#define VEC_IMEM 512     /* instruction words (vector.md §2) */
#define VEC_NDESC 8      /* descriptors 0..7 (§2) */
#define VEC_L1 512       /* L1_DEPTH, 256-bit words (§2; parameters.md row 101) */
#define VEC_NV 16        /* V0..V15 */
#define VEC_NS 16        /* S0..S15 */
#define VEC_NP 4         /* P0..P3 */
#define VEC_MAXVL 128    /* elements per vector register (§2) */
#define VEC_SLICES 16    /* elements per chunk (§2) */
#define VEC_CHUNKS 8     /* chunks per vector register */
#define VEC_MAX_WALK 256 /* longest VFILL/VDRAIN walk (§5.7, F_LEN) */
#define VEC_OUTQ 16      /* outbound flits buffered between core and shell */

/* Source selectors sa/sb/sc (vector.md §4.1). */
enum vec_sel { VEC_SEL_V = 0, VEC_SEL_S = 1, VEC_SEL_C = 2, VEC_SEL_K = 3 };
/* VMODE (§2). */
enum vec_mode { VEC_FLAT = 0, VEC_D2 = 1, VEC_D4 = 2, VEC_TREE = 3 };
/* Fault codes, RUN's exec_result on a fault (§9). */
enum vec_fault {
    VEC_F_NONE = 0,
    VEC_F_DTYPE = 1,  /* VLD/VST/VCVT dt not 1 or 2 */
    VEC_F_VSRC = 2,   /* chain stage >= 1 names selector V */
    VEC_F_CHAIN = 3,  /* chain head names selector C */
    VEC_F_OPCODE = 4, /* VRED 0-5 outside TREE; ALU op in TREE (our choice, Open point 5) */
    VEC_F_LEN = 5,    /* walk longer than 256 */
    VEC_F_LOOP = 6,   /* VLOOP while a loop is armed */
    VEC_F_VL = 7,     /* VSETVL 0 or > 128 */
    VEC_F_REDVL = 8,  /* VRED 0-5 with VL % 16 != 0 */
    VEC_F_CUDATA = 9, /* rejected or interleaved CU_DATA burst */
};
/* VRED kinds (§5.4). */
enum vec_red { VEC_R_SUM, VEC_R_MAX, VEC_R_MIN, VEC_R_SUMSQ, VEC_R_DOT, VEC_R_EXPSUM, VEC_R_ANY, VEC_R_ALL };

/* One inner word with every field view decoded (decode.c). Which fields an
 * opcode reads is vector.md §4.1's table; the bodies read only those. */
typedef struct vec_insn {
    uint32_t word;
    unsigned op;                   /* [31:27] */
    unsigned sa, sb, sc;           /* selectors [26:25] [24:23] [22:21] */
    unsigned vd, va, vb, vc;       /* [20:17] [16:13] [12:9] [8:5] */
    unsigned pr, pm;               /* [4:3] [2:1] */
    unsigned dt, ad;               /* [26:24] [23:21] */
    int off;                       /* signed [13:0] */
    unsigned kind;                 /* VRED [7:5] */
    unsigned mode;                 /* VSETMODE [14:13] */
    unsigned l1;                   /* VFILL/VDRAIN L1 start [8:0] */
    unsigned peer, sig;            /* VDRAIN [24], [25] */
    unsigned dx, dy, buf;          /* peer VDRAIN [20:17] [16:13] [12:9] */
} vec_insn;

void kh_vec_decode(uint32_t word, vec_insn *in);
uint32_t kh_vec_decode_imm(uint32_t word); /* VSETI's second word [23:0] */

/* ---- descriptors and walks (desc.c, vector.md §3) ---- */
typedef struct vec_desc {
    uint64_t base;       /* 40 bits */
    int32_t stride[4];   /* s18, sign-extended */
    uint32_t bound[4];   /* u16 as stored (0 reads as 1) */
} vec_desc;

typedef struct vec_walk {
    uint64_t start;      /* base + off, 40-bit */
    int64_t stride[4];
    uint32_t bound[4];   /* effective (>= 1) */
    uint32_t i[4];
} vec_walk;

void kh_vec_desc_reset(vec_desc *d);
void kh_vec_desc_set_dim(vec_desc *d, unsigned dim, int32_t stride, uint32_t bound);
uint32_t kh_vec_desc_total(const vec_desc *d); /* pair products saturated at 65535 */
void kh_vec_walk_init(vec_walk *w, const vec_desc *d, int64_t off);
uint64_t kh_vec_walk_addr(const vec_walk *w); /* 40-bit */
void kh_vec_walk_step(vec_walk *w);           /* stays at the last tuple */

/* The peer-drain record held in a descriptor's base (§8.3). */
typedef struct vec_peer_rec {
    unsigned offset, ack_x, ack_y, mesh, fin_x, fin_y;
} vec_peer_rec;
void kh_vec_peer_rec_decode(uint64_t base, vec_peer_rec *r);

/* ---- architectural state (vector.md §2) ---- */
typedef struct vec_state {
    uint32_t imem[VEC_IMEM];
    vec_desc desc[VEC_NDESC];
    uint64_t l1[VEC_L1][4];
    kh_e8 v[VEC_NV][VEC_MAXVL];
    uint32_t s[VEC_NS];        /* raw 24-bit */
    uint32_t k3;               /* K3; K0..K2 are constants */
    uint64_t p[VEC_NP][2];     /* 128 predicate bits each */
    unsigned vl, vmode;
    unsigned pc;
    int loop_active;
    unsigned loop_top, loop_end;
    uint32_t loop_count;
    /* RTL side registers the digest records (vector.md §11) */
    unsigned last_pm;          /* pm of the last ALU instruction (EXPSUM write-back) */
    unsigned last_pr;          /* pr of the last ALU/VRED instruction (older-core ANY/ALL) */
    kh_e8 porta[VEC_SLICES];   /* last chunk read on lane port a (older-core VCVT skew) */
} vec_state;

static inline unsigned vec_nchunk(unsigned vl) { return (vl + VEC_SLICES - 1) / VEC_SLICES; }
static inline int vec_pbit(const vec_state *st, unsigned n, unsigned e)
{
    return (int)((st->p[n][e >> 6] >> (e & 63)) & 1u);
}
static inline void vec_pset(vec_state *st, unsigned n, unsigned e, int bit)
{
    uint64_t m = UINT64_C(1) << (e & 63);
    st->p[n][e >> 6] = bit ? st->p[n][e >> 6] | m : st->p[n][e >> 6] & ~m;
}
/* K register value (§2): K0 +0, K1 1.0, K2 -1.0, K3 writable. */
kh_e8 kh_vec_kreg(const vec_state *st, unsigned idx);
/* wr_ok(e) of §5: inside VL and the pm test on P[pr]. */
int kh_vec_wr_ok(const vec_state *st, unsigned e, unsigned pm, unsigned pr);

/* ---- behaviour options ---- */
typedef struct vec_opts {
    int vst32_defect;    /* §5.5 FP32 VST: both halves to one word, two steps */
    int vcvt_skew;       /* §11 older core: VCVT dt 1 skewed by one chunk */
    int anyall_prev_pr;  /* §11 older core: ANY/ALL read the previous pr */
    unsigned valu;       /* kh_valu options (KH_VALU_OLD_RSQRT_NEG_ZERO) */
} vec_opts;

/* ---- the environment: the unit shell or a test harness ---- */
typedef struct vec_port {
    void *ctx;
    int (*send)(void *ctx, const kh_flit *f, kh_cycle now);           /* 1 = taken */
    void (*done)(void *ctx, int fault, uint32_t result, kh_cycle now); /* exec_done */
    void (*wake)(void *ctx, kh_cycle at);
    void (*log)(void *ctx, kh_log_level lvl, const char *msg);
} vec_port;

/* ---- lane timing (timing.c, vector.md §10.1) ---- */
typedef struct vec_lanes {
    kh_cycle idle;                        /* first cycle with no beat in flight */
    kh_cycle vreg[VEC_NV];                /* first cycle with no pending write */
    kh_cycle pred[VEC_NP][VEC_CHUNKS];    /* cycle a compare writes P[n] chunk c */
} vec_lanes;

/* Fixed sequencer latencies around the §10.1 state costs. The state costs
 * themselves are written where each instruction is executed; these are the
 * joins to the outside (vec_cu wrapper and port handshakes), fitted to the
 * recordings of parameters.md §2.4 (timing only; no value depends on them). */
enum {
    VEC_T_OUTER_DONE = 2, /* IMEM / DESC / other accepted at A -> exec_done at A + 2 */
    VEC_T_RUN_START = 3, /* RUN accepted at A -> first fetch state at A + 3 */
    VEC_T_DONE = 1,      /* HALT / FAULT state at h -> exec_done at h + 1 */
    VEC_T_FILL_LAND = 2, /* a fill response taken at r counts as landed at r + 2 */
    VEC_T_FILL_GAP = 2,  /* read request accepted at a -> next one raised at a + 2 */
    VEC_T_FILL_END = 1,  /* last request accepted at a -> next fetch at a + 1 */
    VEC_T_HAZ_CLEAR = 3,  /* a register's pending write clears this long after write-back
                           * (fitted: recording case 26, VADD after VFMA) */
    VEC_T_LANE_TAIL = 64, /* lanes report empty this long after the last write-back
                           * (fitted: every recording with ALU beats shows it once) */
};

/* ---- sequencer phases (core.c) ---- */
enum vec_phase {
    VP_IDLE,
    VP_FETCH,      /* next instruction's first fetch state at t */
    VP_WAIT_FILL,  /* EXEC/BAR/WAITP: until fills landed (and lanes, for VHALT) */
    VP_FILL,       /* issuing VFILL read requests */
    VP_DRAIN,      /* sending VDRAIN words */
    VP_RETIRE,     /* raise exec_done at t */
};
enum vec_after_wait { VW_VFILL, VW_BAR, VW_HALT };

/* A memory walk in progress (VFILL / VDRAIN). */
typedef struct vec_job {
    vec_walk walk;
    unsigned total, i, l1;
    int peer;                 /* VDRAIN to a peer */
    kh_flit hdr;              /* peer: the header fields every flit repeats */
    kh_cycle acc;             /* acceptance cycle of the newest pushed flit */
    unsigned pending;         /* pushed flits of this job not yet accepted */
} vec_job;

typedef struct vec_outq {
    kh_flit f[VEC_OUTQ];
    kh_cycle ready[VEC_OUTQ];  /* first cycle the flit may be offered */
    uint8_t of_job[VEC_OUTQ];  /* belongs to the running VFILL/VDRAIN */
    unsigned head, n;
} vec_outq;

/* Inbound CU_DATA burst framing (cudata.c). */
typedef struct vec_rx {
    int open, accepted;
    unsigned remaining, next, off, buf, signal, ack_x, ack_y, src_x, src_y;
} vec_rx;

typedef struct vec_stats {
    uint64_t runs, faults, insns, fill_words, drain_words, cudata_words;
    uint64_t hazard_warnings, expsum_pm_warnings, loop_warnings;
} vec_stats;

typedef struct vec_core {
    vec_state st;
    vec_opts opt;
    vec_port port;
    unsigned alat, tree_lat;  /* vector.md §10.1 parameters */
    uint8_t x, y, mem_x, mem_y, mesh_id;

    /* RUN in progress */
    int phase;
    kh_cycle t;               /* cycle of the phase's next state */
    kh_cycle t0;              /* first state of the RUN */
    int first;                /* the next fetch is the RUN's first (skips F1) */
    int wait_kind;            /* enum vec_after_wait */
    unsigned cur_pc;          /* pc of the instruction being executed */
    int retire_fault;
    uint32_t retire_result;
    vec_lanes lanes;
    vec_job job;

    /* fills outstanding (tags = L1 index[7:0], 9th bit kept per tag) */
    unsigned fill_out;
    kh_cycle fill_landed;     /* cycle the newest fill word landed */
    uint8_t tag_hi[256];

    int cudata_fault;         /* latched F_CUDATA (§1.4) */
    vec_rx rx;
    vec_outq q;
    int q_blocked;            /* the shell refused; it wakes us when it frees up */
    vec_stats stats;
    uint32_t hazard_pc_seen[VEC_IMEM / 32]; /* warn once per pc and RUN */
} vec_core;

void kh_vec_core_init(vec_core *c, const vec_port *port);
/* Checkpoints (ckpt.c): the core's state, saved or restored. */
struct kh_ck;
void kh_vec_core_ckpt(vec_core *c, struct kh_ck *ck);
void kh_vec_core_log(vec_core *c, kh_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Start a RUN at pc; the first fetch state is at cycle `first_state`. */
void kh_vec_core_run(vec_core *c, unsigned pc, kh_cycle first_state);
/* Advance everything that is due at `now` (sequencer and outbound queue). */
void kh_vec_core_step(vec_core *c, kh_cycle now);
/* An inbound flit from the receive FIFO (fill response, CU_DATA, acks). */
int kh_vec_core_recv(vec_core *c, const kh_flit *f, kh_cycle now); /* 1 = consumed */
int kh_vec_core_busy(const vec_core *c);
/* Earliest cycle after now at which kh_vec_core_step has work, or KH_NEVER
 * (waiting only on the outside: a fill response or the shell's send port). */
kh_cycle kh_vec_core_next_wake(const vec_core *c, kh_cycle now);
int kh_vec_core_describe(const vec_core *c, char *buf, size_t len);

/* ---- the opcode table (optable.c) ---- */
/* What an instruction body tells the sequencer. */
typedef struct vec_exec {
    kh_cycle e;          /* the EXEC cycle */
    kh_cycle next;       /* VX_NEXT: next instruction's first fetch state */
    unsigned fault;      /* VX_FAULT: code; the FAULT state is at `next` */
} vec_exec;
enum vec_status { VX_NEXT, VX_FAULT, VX_PHASE };
typedef int (*vec_body)(vec_core *c, const vec_insn *in, vec_exec *x);
typedef struct vec_opdef {
    const char *name;
    vec_body body;
    int alu;             /* ALU opcode as the ALU sees it (numerics §9), -1 if none */
} vec_opdef;
const vec_opdef *kh_vec_opdef_of(unsigned op);
int kh_vec_is_compare(unsigned alu_op);

/* bodies */
int kh_vec_exec_alu(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vred(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vld(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vst(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vcvt(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vshuf(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vbcast(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vsetvl(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vsetmode(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vseti(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vloop(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vbar(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vhalt(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vfill(vec_core *c, const vec_insn *in, vec_exec *x);
int kh_vec_exec_vdrain(vec_core *c, const vec_insn *in, vec_exec *x);

/* The next word after pc, fetched without the loop test (chain stages,
 * VSETI's immediate); warns if it steps over an armed loop's end. */
uint32_t kh_vec_fetch_extra(vec_core *c, const char *why);

/* ---- timing.c ---- */
void kh_vec_lanes_reset(vec_lanes *l);
/* First beat of an ALU instruction whose ALU state starts at `from`, naming
 * registers regs[0..n). */
kh_cycle kh_vec_lanes_haz(const vec_lanes *l, kh_cycle from, const unsigned *regs, unsigned n);
/* Record nbeats beats from b0 (depth d) writing vd (or predicate pn if >= 0). */
void kh_vec_lanes_issue(vec_lanes *l, kh_cycle b0, unsigned nbeats, unsigned depth, int vd,
                     int pn, unsigned alat);
/* Check a predicated read of P[pn] by beats from b0 (depth d, nc chunks). */
void kh_vec_hazard_check(vec_core *c, unsigned pn, kh_cycle b0, unsigned depth, unsigned nc,
                      const char *what);

/* ---- mem.c ---- */
void kh_vec_outq_push(vec_core *c, const kh_flit *f, kh_cycle ready, int of_job);
void kh_vec_outq_pump(vec_core *c, kh_cycle now);
void kh_vec_fill_step(vec_core *c, kh_cycle now);
void kh_vec_drain_step(vec_core *c, kh_cycle now);
void kh_vec_fill_response(vec_core *c, const kh_flit *f, kh_cycle now);

/* ---- cudata.c ---- */

/* ---- flits.c: every flit the core builds or reads ---- */
void kh_vec_flit_rd_req(const vec_core *c, uint64_t addr, unsigned tag, kh_flit *f);
void kh_vec_flit_wr_req(const vec_core *c, uint64_t addr, kh_flit *f);
void kh_vec_flit_wr_data(const vec_core *c, const uint64_t word[4], kh_flit *f);
void kh_vec_flit_peer_desc(const vec_core *c, const vec_insn *in, const vec_peer_rec *r,
                        unsigned total, kh_flit *f);
void kh_vec_flit_peer_data(const kh_flit *desc, const uint64_t word[4], int last, kh_flit *f);
void kh_vec_flit_data_received(const vec_core *c, unsigned dst_x, unsigned dst_y, unsigned buf,
                            kh_flit *f);
unsigned kh_vec_flit_type(const kh_flit *f);
unsigned kh_vec_flit_txn(const kh_flit *f);
unsigned kh_vec_flit_src_x(const kh_flit *f);
unsigned kh_vec_flit_src_y(const kh_flit *f);
typedef struct vec_cudata_desc {
    unsigned buf, offset, len, flags, ack_x, ack_y;
} vec_cudata_desc;
void kh_vec_flit_cudata_desc(const kh_flit *f, vec_cudata_desc *d);

#endif
