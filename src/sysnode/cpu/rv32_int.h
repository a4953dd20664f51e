/* The node control processor's private layout (src/sysnode/cpu): the RV32I
 * core and its pipeline timing (cpu.md §2, §3, §9), its address map (§4),
 * the L1 on the converged path (§5), the descriptor executor (§6) and the
 * unit on the shell at (0,0) (§7, §8). */
#ifndef KH_SYSNODE_CPU_RV32_INT_H
#define KH_SYSNODE_CPU_RV32_INT_H

#include "kohaku/cu.h"
#include "kohaku/rv32.h"
#include "sysnode/node_int.h"
#include "sysnode/port/conv.h"

#define RV_IMEM_WORDS 2048 /* IMEM_WORDS, cpu.md §4.1, Open point 4 */
#define RV_SPAD_WORDS 2048 /* SPAD_WORDS, §4.2 */
#define RV_L1_LINES 128    /* §5.2 */
#define RV_BTB 32          /* §9.2 */
#define RV_SIGQ 8          /* completion queue, §4.3 */
#define RV_OUTQ 4          /* push register (2 flits) + dispatch holding register */

/* ---- decode (decode.c) ---- */

typedef enum rv_op {
    RV_ILLEGAL,
    RV_LUI, RV_AUIPC, RV_JAL, RV_JALR,
    RV_BEQ, RV_BNE, RV_BLT, RV_BGE, RV_BLTU, RV_BGEU,
    RV_LB, RV_LH, RV_LW, RV_LBU, RV_LHU,
    RV_SB, RV_SH, RV_SW,
    RV_ADDI, RV_SLTI, RV_SLTIU, RV_XORI, RV_ORI, RV_ANDI, RV_SLLI, RV_SRLI, RV_SRAI,
    RV_ADD, RV_SUB, RV_SLL, RV_SLT, RV_SLTU, RV_XOR, RV_SRL, RV_SRA, RV_OR, RV_AND,
    RV_MUL, RV_MULH, RV_MULHSU, RV_MULHU,
    RV_FENCE, RV_ECALL, RV_EBREAK,
    RV_NOPS
} rv_op;

typedef struct rv_insn {
    rv_op op;
    unsigned rd, rs1, rs2;
    int use_rs1, use_rs2; /* the operands this instruction reads (load-use hazards) */
    uint32_t imm;         /* sign-extended; B and J offsets doubled */
} rv_insn;

/* Decode one word (cpu.md §2.2); mul: the multiply option (Open point 1). */
rv_insn kh_rv_decode(uint32_t word, int mul);
const char *kh_rv_op_name(rv_op op);
int kh_rv_is_load(rv_op op);
int kh_rv_is_store(rv_op op);
int kh_rv_is_branch(rv_op op); /* conditional branches */

/* ---- the unit ---- */

typedef struct rv_btb_entry {
    uint8_t valid, ctr, tag;
    uint32_t target;
} rv_btb_entry;

/* A BTB write made one cycle after EX, seen by fetches from cycle `vis`. */
typedef struct rv_btb_write {
    kh_cycle vis;
    unsigned idx;
    rv_btb_entry e;
} rv_btb_write;

typedef struct rv_line {
    uint8_t valid, dirty;
    uint32_t tag;       /* A[30:12] */
    uint8_t b[32];
} rv_line;

/* What the instruction in MEM waits for (a memory stall, §9.1). */
typedef enum rv_wait {
    RW_NONE,
    RW_PUSH,   /* the push register is full */
    RW_DISP,   /* the dispatch holding register is full */
    RW_FILL,   /* an L1 miss: victim write-back, fill request, fill */
    RW_FLUSH,  /* CTL_FLUSH sweep, then every write-back acknowledged */
    RW_INVAL,  /* CTL_INVAL sweep */
} rv_wait;

typedef enum rv_exec_state {
    EX_IDLE,
    EX_WRITES,   /* reading the descriptor and writing the mover's registers */
    EX_RISE,     /* waiting for the mover's busy to rise */
    EX_FALL,     /* waiting for the move to drain */
    EX_NO_GO,    /* the descriptor wrote no GO: busy until reset (Open point 6) */
} rv_exec_state;

typedef struct rv_sig {
    uint8_t code, txn;
    uint32_t arg;
} rv_sig;

struct kh_rv32 {
    kh_cu *cu;
    kh_node *n;
    kh_sim *sim;
    const kh_params *p;
    kh_creq *rq;                /* the CP requester channel (§5.3) */
    kh_comp hub;                /* the hub client: holds the shell's outgoing flit for the node */
    kh_link *out;               /* shell -> hub client */
    kh_flit hub_flit;
    int hub_valid, hub_fw;

    uint32_t imem[RV_IMEM_WORDS];
    uint32_t spad[RV_SPAD_WORDS];

    /* core (§2, §3, §8.2) */
    uint32_t x[32];
    uint32_t pc;                /* of the next instruction to reach EX */
    int run;
    int halted;
    unsigned cause;             /* CTL_CAUSE: 0 after a kick until the next halt */
    uint32_t halt_word, last_word;
    int last_fault;
    uint32_t arg;
    kh_cycle start;             /* the start pulse: counters count from here */
    kh_cycle t_ex;              /* cycle the next instruction is in EX */
    kh_cycle ready[32];         /* a load's destination is usable in EX from this cycle */
    uint32_t instret, cycles;   /* frozen at the halt */
    kh_cycle halt_ex;           /* EX cycle of the halting instruction */
    rv_btb_entry btb[RV_BTB];
    rv_btb_write btbw[4];
    unsigned nbtbw;
    uint64_t retired_total, stall_load, stall_branch, stall_mem, mispredicts;
    uint64_t op_count[RV_NOPS];

    /* the instruction in MEM that stalls (§9.1) */
    rv_wait wait;
    kh_cycle wait_e;            /* its EX cycle */
    kh_cycle wait_next;         /* the next instruction's EX cycle without the stall */
    uint32_t wait_addr, wait_data;
    unsigned wait_be, wait_rd;
    rv_op wait_op;
    kh_flit wait_flit[2];
    /* L1 miss / sweep sequencing */
    int fill_phase;             /* 0 victim read-out, 1 fill requested, 2 fill writing */
    kh_cycle fill_at;
    unsigned sweep_idx;
    int sweep_readout;

    /* L1 (§5.2) and its writes in flight */
    rv_line l1[RV_L1_LINES];
    unsigned wrout;

    /* flit requester (§4.4, §4.5) */
    kh_flit outq[RV_OUTQ];
    uint8_t outq_kind[RV_OUTQ]; /* 1 push, 2 dispatch */
    kh_cycle outq_at[RV_OUTQ];  /* the store's MEM cycle: not sent before */
    unsigned outn;
    uint32_t disp_arg, disp_pc;

    /* completion queue (§4.3) */
    rv_sig sigq[RV_SIGQ];
    unsigned sig_head, sig_n;
    int sig_ovf;
    rv_sig sig_stale;           /* what an empty queue's head reads */

    /* CU_DATA loader (§8.1) */
    int burst_open, burst_reject;
    unsigned b_sx, b_sy, b_buf, b_off, b_len, b_j;
    kh_cycle loader_busy_until;
    uint64_t bursts_rejected, flits_discarded;

    /* kick machine (§7.3, §9.4) */
    int in_flight;
    kh_cycle kick_at;           /* A */
    int kick_last;
    kh_cycle retire_at;         /* exec_done is raised in this cycle; KH_NEVER none */
    kh_cycle drain_from;        /* the retirement condition is tested from here */

    /* descriptor executor (§6) */
    rv_exec_state ex;
    kh_cycle ex_t;              /* MVGO's MEM cycle T */
    unsigned ex_p, ex_n, ex_k;
    int ex_go;                  /* a write with GO was made */
    uint64_t mvgo_lost;
    int collide_logged;

    /* diagnostics */
    int warned_alias, warned_bit1;
    int unreachable;            /* no memory port at (0,1) */
    uint64_t dirty_at_halt;
    uint64_t ctrl_replies_in;   /* CU_CTRL replies the processor's shell answered (cpu-exact) */
};

/* core.c */
/* Checkpoints (rv32_ckpt.c): the unit's state, the hub client's. */
struct kh_ck;
void kh_rv32_ckpt(void *unit, struct kh_ck *ck);
void kh_rv32_hub_ckpt(kh_rv32 *r, struct kh_ck *ck);

void kh_rv_core_step(kh_rv32 *r, kh_cycle now);
void kh_rv_kick(kh_rv32 *r, uint32_t pc, uint32_t arg, kh_cycle now);
void kh_rv_btb_reset(kh_rv32 *r);

/* mem.c: the data side of the address map */
/* 1: the access is done at MEM (value in *val for loads); 0: it stalls
 * (r->wait set); -1: a fault (cause 3). */
int kh_rv_load(kh_rv32 *r, rv_op op, uint32_t a, uint32_t *val, kh_cycle e);
int kh_rv_store(kh_rv32 *r, rv_op op, uint32_t a, uint32_t data, kh_cycle e);
/* Advance a stalled access; returns the cycle MEM completes, KH_NEVER while it waits. */
kh_cycle kh_rv_wait_step(kh_rv32 *r, kh_cycle now);
unsigned kh_rv_node_status(kh_rv32 *r, kh_cycle now);
int kh_rv_mem_fault(rv_op op, uint32_t a); /* misaligned or unmapped for this access */

/* l1.c */
int kh_rv_l1_hit(kh_rv32 *r, uint32_t a);
void kh_rv_l1_access(kh_rv32 *r, uint32_t a, int store, uint32_t data, unsigned be, uint32_t *word);
/* Miss sequencing: start (victim read-out or fill) and steps. */
void kh_rv_l1_miss_start(kh_rv32 *r, kh_cycle m);
kh_cycle kh_rv_l1_miss_step(kh_rv32 *r, kh_cycle now);
void kh_rv_l1_sweep_start(kh_rv32 *r, kh_cycle m);
kh_cycle kh_rv_l1_flush_step(kh_rv32 *r, kh_cycle now);
void kh_rv_l1_acks(kh_rv32 *r, kh_cycle now);
unsigned kh_rv_l1_dirty(const kh_rv32 *r);

/* exec.c: the descriptor executor */
int kh_rv_mvgo(kh_rv32 *r, uint32_t word, kh_cycle t);
void kh_rv_exec_step(kh_rv32 *r, kh_cycle now);
kh_cycle kh_rv_exec_next(const kh_rv32 *r, kh_cycle now);
int kh_rv_exec_busy(kh_rv32 *r, kh_cycle now);
int kh_rv_exec_reading(const kh_rv32 *r);

/* unit.c */
void kh_rv_wake(kh_rv32 *r, kh_cycle at);
void kh_rv_log(kh_rv32 *r, kh_log_level lvl, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
