/* The RV64 system core's private layout (docs/rv64.md): decode, the CSR
 * file, the predictor and the pipeline state of one core object. */
#ifndef KH_RV64_INT_H
#define KH_RV64_INT_H

#include <stdint.h>

#include "kohaku/rv64.h"

/* ---- decode (decode.c) ---- */

/* The operation an instruction performs when it leaves E. */
/* the multiply/divide unit: idle, a multiply (5 steps), a divide (63), finishing */
enum { MD_IDLE, MD_MUL, MD_DIV, MD_FIN };

typedef enum rv6_op {
    R6_ILLEGAL,
    R6_LUI, R6_AUIPC, R6_JAL, R6_JALR, R6_BRANCH,
    R6_LOAD, R6_STORE,
    R6_ALU,       /* alu field names the operation, word the W form */
    R6_MULDIV,    /* f3 names it, word the W form */
    R6_AMO,       /* amo_op names it */
    R6_FENCE, R6_FENCE_I, R6_ECALL, R6_EBREAK, R6_MRET, R6_SRET, R6_WFI, R6_SFENCE,
    R6_CSR,
} rv6_op;

/* The ALU operations; the first eight are funct3's own numbering. */
enum {
    R6_ADD = 0, R6_SLL, R6_SLT, R6_SLTU, R6_XOR, R6_SRL, R6_OR, R6_AND,
    R6_SUB, R6_SRA, R6_PASSB,
};

/* Decoded control, including the class bits the RTL's decoder raises for an
 * illegal encoding (an illegal W-form multiply still runs the multiplier,
 * an illegal AMO still runs the AMO sequence): timing depends on them. */
typedef struct rv6_insn {
    uint32_t word;
    uint8_t op;           /* rv6_op */
    uint8_t alu;          /* R6_ADD ... */
    uint8_t rd, rs1, rs2; /* the raw fields, whatever the format */
    uint8_t f3, amo_op;
    uint16_t csr;
    uint64_t imm;
    unsigned wr : 1, word32 : 1, op1_pc : 1, op2_imm : 1;
    unsigned md : 1, br : 1, jal : 1, jalr : 1, ld : 1, st : 1, amo : 1;
    unsigned fence : 1, fence_i : 1, ecall : 1, ebreak : 1, mret : 1, sret : 1, sfence : 1, wfi : 1;
    unsigned csr_op : 1, csr_wr : 1, csr_imm : 1, ill : 1;
} rv6_insn;

void kh_rv6_decode(uint32_t word, rv6_insn *d);
const char *kh_rv6_op_name(const rv6_insn *d);

/* ---- arithmetic (alu.c) ---- */

uint64_t kh_rv6_alu(unsigned op, int word32, uint64_t a, uint64_t b);
uint64_t kh_rv6_muldiv(unsigned f3, int word32, uint64_t a, uint64_t b);
int kh_rv6_branch_taken(unsigned f3, uint64_t a, uint64_t b);
uint64_t kh_rv6_amo_new(unsigned amo_op, int w, uint64_t loaded, uint64_t src);
uint64_t kh_rv6_load_ext(unsigned f3, uint64_t dword, unsigned off);
unsigned kh_rv6_size(unsigned f3);            /* bytes: 1, 2, 4, 8 from f3[1:0] */
int kh_rv6_misaligned(unsigned f3, uint64_t addr);
uint8_t kh_rv6_strobes(unsigned f3, uint64_t addr);
uint64_t kh_rv6_replicate(unsigned f3, uint64_t v);

/* ---- the CSR file (csr.c) ---- */

#define R6_P_U 0
#define R6_P_S 1
#define R6_P_M 3

typedef struct rv6_csr {
    uint64_t mstatus, mie, mtvec, mscratch, mepc, mcause, mtval;
    uint64_t medeleg, mideleg;
    uint64_t stvec, sscratch, sepc, scause, stval, satp;
    uint64_t mcycle, minstret, mtime, mtimecmp;
    int mip_msi;          /* the stored mip bit 3 */
    unsigned priv;
    int mtvec_nz, stvec_nz; /* a handler was installed */
    int timer_irq;        /* registered mtime >= mtimecmp */
    /* the trap's state, registered: it lands one cycle after the redirect */
    int trap_q, deleg_q, mret_q, sret_q;
    unsigned prev_q;
    uint64_t pc_q, cause_q, val_q;
} rv6_csr;

void kh_rv6_csr_reset(rv6_csr *s);
/* The read of CSR addr by an instruction at s->priv that would write when
 * wr_intent; *illegal set for a missing CSR, too low a level or a write to a
 * read-only one. irq_ext/irq_soft are the registered lines. */
uint64_t kh_rv6_csr_read(const rv6_csr *s, unsigned addr, int wr_intent, int irq_ext, int irq_soft, int *illegal);

/* The interrupt the CSR state would take now, from the registered lines. */
typedef struct rv6_irq {
    int pending;
    uint64_t cause;
    int deleg_bit;        /* mideleg of the winning line */
} rv6_irq;
void kh_rv6_csr_irq(const rv6_csr *s, int irq_ext, int irq_soft, rv6_irq *out);

/* Everything the CSR file takes at a cycle's end. */
typedef struct rv6_csr_edge {
    int trap, deleg, mret, sret;
    uint64_t trap_pc, trap_cause, trap_val;
    int wr_en;
    unsigned addr, op;    /* op 1 RW, 2 RS, 3 RC */
    uint64_t wdata;
    int retire;           /* the registered retire pulse */
} rv6_csr_edge;
void kh_rv6_csr_edge(rv6_csr *s, const rv6_csr_edge *e, int irq_ext, int irq_soft);

/* ---- the predictor (bpred.c) ---- */

#define R6_BTB 256
#define R6_PHT 1024
#define R6_RAS 16
#define R6_SWEEP 1024

typedef struct rv6_btb { uint8_t v; uint16_t tag; uint64_t tgt; } rv6_btb;

typedef struct rv6_bpred {
    unsigned qlat;
    rv6_btb btb[R6_BTB];
    uint8_t pht[R6_PHT], mir[R6_PHT];
    /* the lookup pipeline: stage 1 (qlat 2) and the output */
    rv6_btb b1, bq;
    uint8_t p1, pq;
    uint8_t pold;         /* the mirror's read of last cycle's resolve index */
    unsigned ghist;
    unsigned init_a;
    int init_q, init_q2;
    int r_valid, r_taken, r_jump, r_cond;
    uint64_t r_pc, r_target;
    unsigned r_pi;
    uint64_t ras[R6_RAS], ras_tos;
    unsigned ras_sp;
    int ras_v;
    int pq_ret, pq_rv;
    uint64_t pq_tos;
} rv6_bpred;

typedef struct rv6_bp_in {
    int q_en;
    uint64_t q_addr;
    int p_call, p_ret;
    uint64_t p_link;
    int u_valid, u_taken, u_jump, u_cond;
    uint64_t u_pc, u_target;
} rv6_bp_in;

void kh_rv6_bp_reset(rv6_bpred *b, unsigned qlat);
/* The answer offered with the word in D (whose PC is d_pc). */
void kh_rv6_bp_answer(const rv6_bpred *b, uint64_t d_pc, int *taken, uint64_t *target);
void kh_rv6_bp_edge(rv6_bpred *b, const rv6_bp_in *in);

/* ---- the core (core.c) ---- */

typedef struct rv6_e {
    int valid;
    rv6_insn in;
    uint64_t pc, btgt, pc4;
    int pred_t, ifault;
    uint64_t pred_tgt;
} rv6_e;

struct kh_rv64 {
    kh_rv64_bus bus;
    unsigned fetch_lat;
    uint64_t x[32];
    uint64_t cycle;        /* cycles since reset */

    /* F, F2, D */
    uint64_t pc;
    int f2_v;
    uint64_t f2_pc;
    uint32_t f2_word;      /* the array's first stage (fetch_lat 2) */
    int f2_fault;
    int d_valid;
    uint64_t d_pc;
    uint32_t d_word;       /* the word D sees when not holding */
    int d_fault;
    int d_hold_v;          /* fetch_lat 1: the captured word */
    uint32_t d_hold;
    int d_hold_fault;
    int imem_stall_q, d_seen;
    int redir_pend, pend_use_pc4;
    uint64_t pend_pc_a, pend_pc4;

    /* E */
    rv6_e e;
    int csr_hold;
    uint64_t csr_wd;
    /* multiply/divide unit */
    int md_state, md_fired, md_done;  /* MD_* */
    unsigned md_cnt;
    uint64_t md_y, md_res;
    /* the AMO sequence */
    int a_state;           /* 0 idle, 1 read, 2 write, 3 finish */
    uint64_t a_addr, a_srcq, a_old, a_res;
    int resv_v;
    uint64_t resv_a;
    uint64_t eff_q;        /* last cycle's effective address (tval) */
    int jchk_v, jchk_pt;
    uint64_t jchk_tgt, jchk_ptgt, jchk_pc;
    int irq_ext_q, irq_soft_q;
    int retire_q;

    int halted;
    unsigned halt_cause;
    uint64_t halt_pc;

    rv6_csr csr;
    rv6_bpred bp;
    kh_rv64_stats st;
    kh_rv64_trace_fn trace;
    void *trace_ctx;
};

/* Checkpoints (ckpt.c, docs/checkpoint.md): the core's dynamic state. */
struct kh_ck;
void kh_rv6_ckpt(kh_rv64 *c, struct kh_ck *ck);

#endif
