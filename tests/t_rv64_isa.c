/* The RV64 system core's architecture, rule by rule (docs/rv64.md §1-§5):
 * decode legality, the CSR file's WARL masks and access rules, the trap
 * causes and their delegation, interrupts and mtime, MRET/SRET, LR/SC,
 * multiply/divide corner cases. Each program runs on the flat harness; an
 * M-mode handler logs {mcause, mepc, mtval, mstatus} and skips the trapping
 * instruction. Expected values are the RISC-V specification's and the
 * digest's masks, written here. */
#include "rv64_kit.h"

#define LOG (R6_DATA + 0x800) /* the handler's log: 32 bytes per trap */
#define T0 5
#define T1 6
#define T2 7
#define LOGP 30

enum { MSTATUS = 0x300, MISA = 0x301, MEDELEG = 0x302, MIDELEG = 0x303, MIE = 0x304, MTVEC = 0x305,
       MSCRATCH = 0x340, MEPC = 0x341, MCAUSE = 0x342, MTVAL = 0x343, MIP = 0x344, SSTATUS = 0x100,
       SIE = 0x104, STVEC = 0x105, SEPC = 0x141, SCAUSE = 0x142, STVAL = 0x143, SIP = 0x144, SATP = 0x180,
       MCYCLE = 0xB00, MINSTRET = 0xB02, CYCLE = 0xC00, TIME = 0xC01, MTIMECMP = 0x7C0, MHARTID = 0xF14 };

/* Word 0 jumps over an M-mode handler that logs and skips (interrupts are
 * logged and resumed where they hit); the body follows. x30 = the log. */
static void prologue(r6_prog *p)
{
    p->n = 0;
    r6_emit(p, 0); /* patched: jal x0, body */
    unsigned h = p->n;
    r6_emit(p, R6_CSRR(T0, MCAUSE));
    r6_emit(p, R6_SD(LOGP, T0, 0));
    r6_emit(p, R6_CSRR(T1, MEPC));
    r6_emit(p, R6_SD(LOGP, T1, 8));
    r6_emit(p, R6_CSRR(T2, MTVAL));
    r6_emit(p, R6_SD(LOGP, T2, 16));
    r6_emit(p, R6_CSRR(T2, MSTATUS));
    r6_emit(p, R6_SD(LOGP, T2, 24));
    r6_emit(p, R6_ADDI(LOGP, LOGP, 32));
    r6_emit(p, r6_b(4, T0, 0, 12));       /* blt t0, x0: an interrupt resumes in place */
    r6_emit(p, R6_ADDI(T1, T1, 4));
    r6_emit(p, R6_CSRW(MEPC, T1));
    r6_emit(p, R6_MRET);
    p->w[0] = r6_j(0, (int32_t)(4 * (p->n - 0)));
    (void)h;
    r6_li_to(p, LOGP, (int64_t)LOG);
    r6_li_to(p, T0, (int64_t)(R6_BASE + 4));
    r6_emit(p, R6_CSRW(MTVEC, T0));
}

static void finish(r6_prog *p) { r6_exit_with(p, 0); }

static uint64_t log_word(const r6_run *r, unsigned trap, unsigned field)
{
    return kh_rv64_flat_read64(r->f, LOG + 32u * trap + 8u * field);
}
static unsigned traps_logged(const r6_run *r)
{
    return (unsigned)((kh_rv64_reg(r->c, LOGP) - LOG) / 32);
}

/* rv64.md §1: each of these words is illegal and traps with cause 2, mepc
 * its address and mtval 0 */
static void illegal_encodings_trap_with_cause_2(void)
{
    const uint32_t bad[] = {
        r6_i(R6_OPI32, 1, 1, 2, 32),             /* SLLIW with shamt bit 5 (instr[25]) set */
        r6_i(R6_OPI32, 5, 1, 2, 0x400 | 33),     /* SRAIW with instr[25] set */
        r6_i(R6_OPI, 1, 1, 2, 0x400 | 3),        /* SLLI with funct6 0x10 */
        r6_i(R6_OPI, 5, 1, 2, 0x200 | 3),        /* SRLI with funct6 0x08 */
        r6_i(R6_OPI32, 2, 1, 2, 0),              /* OP-IMM-32 funct3 2 */
        r6_r(R6_OP32, 1, 1, 1, 2, 3),            /* "MULHW" */
        r6_r(R6_OP32, 2, 1, 1, 2, 3),
        r6_r(R6_OP32, 3, 1, 1, 2, 3),
        r6_r(R6_OP32, 2, 0, 1, 2, 3),            /* OP-32 funct3 2 (no SLTW) */
        r6_r(R6_OP32, 1, 0x20, 1, 2, 3),         /* SLLW with funct7 0x20 */
        r6_r(R6_OP, 1, 0x20, 1, 2, 3),           /* SLL with funct7 0x20 */
        r6_r(R6_OP, 0, 0x40, 1, 2, 3),           /* funct7 0x40 */
        r6_i(R6_LD, 7, 1, 2, 0),                 /* LOAD funct3 7 */
        r6_s(4, 2, 3, 0),                        /* STORE funct3 4 */
        r6_b(2, 1, 2, 8),                        /* BRANCH funct3 2 */
        r6_b(3, 1, 2, 8),
        r6_i(KH_RV64_OP_JALR, 1, 1, 2, 0),       /* JALR funct3 1 */
        r6_amo(0x05, 3, 1, 2, 3),                /* AMO funct5 00101 */
        r6_amo(0x00, 4, 1, 2, 3),                /* AMO funct3 4 */
        r6_i(KH_RV64_OP_MISC_MEM, 2, 0, 0, 0),   /* MISC-MEM funct3 2 */
        r6_i(R6_SYS, 4, 1, 0, 0),                /* SYSTEM funct3 4 */
        0x00000173u,                             /* ECALL with rd = 2 */
        0x00108073u,                             /* EBREAK with rs1 = 1 */
        r6_csr(2, 1, 0, 0x7A0),                  /* a CSR that does not exist (tselect) */
        r6_csr(2, 1, 0, 0x3A0),                  /* pmpcfg0: no PMP */
        r6_csr(1, 0, 1, CYCLE),                  /* a write to a read-only CSR */
        r6_csr(2, 1, 0, 0x106),                  /* scounteren: not implemented */
        0x0000000Bu,                             /* custom-0 */
        0x00000000u,                             /* bits [1:0] = 00 (compressed) */
        0x00002007u,                             /* FLW: no F */
    };
    r6_prog p;
    prologue(&p);
    unsigned at[sizeof bad / sizeof bad[0]];
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        at[i] = p.n;
        r6_emit(&p, bad[i]);
    }
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 100000);
    CHECK_EQ(r.res.end, KH_RV64_END_EXIT);
    CHECK_EQ(traps_logged(&r), sizeof bad / sizeof bad[0]);
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0] && i < traps_logged(&r); i++) {
        if (log_word(&r, i, 0) != 2 || log_word(&r, i, 1) != R6_BASE + 4u * at[i] || log_word(&r, i, 2) != 0)
            kh_test_fail(__FILE__, __LINE__, "word 0x%08x: mcause %llu mepc 0x%llx mtval 0x%llx", bad[i],
                         (unsigned long long)log_word(&r, i, 0), (unsigned long long)log_word(&r, i, 1),
                         (unsigned long long)log_word(&r, i, 2));
    }
    r6_done(&r);
}

/* rv64.md §1: encodings the core accepts that a stricter core might not */
static void legal_corners_do_not_trap(void)
{
    r6_prog p;
    prologue(&p);
    r6_emit(&p, r6_amo(0x02, 3, 1, 2, 7));       /* LR with rs2 != 0 */
    r6_emit(&p, 0x0FF0000Fu);                    /* FENCE with every bit */
    r6_emit(&p, 0x8330000Fu);                    /* FENCE.TSO */
    r6_emit(&p, 0x0000100Fu);                    /* FENCE.I */
    r6_emit(&p, 0x12B50073u);                    /* SFENCE.VMA a0, a1 in M */
    r6_emit(&p, R6_WFI);
    r6_emit(&p, r6_i(R6_OPI, 5, 3, 3, 0x400 | 63)); /* SRAI by 63 */
    finish(&p);
    r6_run r;
    uint64_t d = 5;
    r6_exec(&r, &p, &d, 1, 0, 100000);
    CHECK_EQ(r.res.end, KH_RV64_END_EXIT);
    CHECK_EQ(traps_logged(&r), 0);
    r6_done(&r);
}

/* rv64.md §3: with no vector installed an exception halts, cause 1/2/3 */
static void no_handler_means_halt(void)
{
    const uint32_t words[3] = {R6_ECALL, R6_EBREAK, 0xFFFFFFFFu};
    for (unsigned k = 0; k < 3; k++) {
        r6_prog p = {.n = 0};
        r6_li_to(&p, 10, 0x1234);
        unsigned at = p.n;
        r6_emit(&p, words[k]);
        finish(&p);
        r6_run r;
        r6_exec(&r, &p, NULL, 0, 0, 100000);
        CHECK_EQ(r.res.end, KH_RV64_END_HALT);
        CHECK_EQ(r.res.halt_cause, k + 1);
        CHECK_EQ(r.res.halt_pc, R6_BASE + 4u * at);
        CHECK_EQ(r.res.code, 0x1234); /* a0 */
        r6_done(&r);
    }
}

/* rv64.md §2: each CSR stores its WARL mask's bits; the read-only and
 * fixed ones read their values */
static void csrs_store_only_their_masks(void)
{
    static const struct { unsigned csr; uint64_t mask; } t[] = {
        {MSTATUS, 0x00000000000C19AAull}, {MEDELEG, 0xFFFF}, {MIDELEG, 0x0AAA}, {MIE, 0x0AAA},
        {MTVEC, ~3ull}, {MSCRATCH, ~0ull}, {MEPC, ~1ull}, {MCAUSE, 0x800000000000001Full}, {MTVAL, ~0ull},
        {STVEC, ~3ull}, {SEPC, ~1ull}, {SCAUSE, 0x800000000000001Full}, {STVAL, ~0ull},
        {SATP, 0xF00000000FFFFFFFull}, {MTIMECMP, ~0ull},
    };
    unsigned n = sizeof t / sizeof t[0];
    r6_prog p;
    prologue(&p);
    r6_li_to(&p, 20, (int64_t)(R6_DATA));
    r6_li_to(&p, 21, -1);
    for (unsigned i = 0; i < n; i++) {
        r6_emit(&p, R6_CSRW(t[i].csr, 21));
        r6_emit(&p, R6_CSRR(22, t[i].csr));
        r6_emit(&p, R6_SD(20, 22, (int32_t)(8 * i)));
    }
    /* misa and mhartid: fixed values, writes ignored */
    r6_emit(&p, R6_CSRW(MISA, 0));
    r6_emit(&p, R6_CSRR(22, MISA));
    r6_emit(&p, R6_SD(20, 22, (int32_t)(8 * n)));
    r6_emit(&p, R6_CSRR(22, MHARTID));
    r6_emit(&p, R6_SD(20, 22, (int32_t)(8 * n + 8)));
    /* sstatus is a window on mstatus: only SIE SPIE SPP SUM MXR move */
    r6_emit(&p, R6_CSRW(MSTATUS, 0));
    r6_emit(&p, R6_CSRW(SSTATUS, 21));
    r6_emit(&p, R6_CSRR(22, MSTATUS));
    r6_emit(&p, R6_SD(20, 22, (int32_t)(8 * n + 16)));
    /* sie through mideleg: with mideleg = 0x020 only bit 5 reaches mie */
    r6_li_to(&p, 23, 0x20);
    r6_emit(&p, R6_CSRW(MIDELEG, 23));
    r6_emit(&p, R6_CSRW(MIE, 0));
    r6_emit(&p, R6_CSRW(SIE, 21));
    r6_emit(&p, R6_CSRR(22, MIE));
    r6_emit(&p, R6_SD(20, 22, (int32_t)(8 * n + 24)));
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 100000);
    CHECK_EQ(traps_logged(&r), 0);
    for (unsigned i = 0; i < n; i++) {
        uint64_t got = kh_rv64_flat_read64(r.f, R6_DATA + 8u * i);
        if (got != t[i].mask)
            kh_test_fail(__FILE__, __LINE__, "CSR 0x%03x written all-ones reads 0x%016llx, mask 0x%016llx", t[i].csr,
                         (unsigned long long)got, (unsigned long long)t[i].mask);
    }
    CHECK_EQ(kh_rv64_flat_read64(r.f, R6_DATA + 8u * n), 0x8000000000141101ull); /* MXL 2, A I M S U */
    CHECK_EQ(kh_rv64_flat_read64(r.f, R6_DATA + 8u * n + 8), 0);
    CHECK_EQ(kh_rv64_flat_read64(r.f, R6_DATA + 8u * n + 16), 0x00000000000C0122ull);
    CHECK_EQ(kh_rv64_flat_read64(r.f, R6_DATA + 8u * n + 24), 0x20);
    r6_done(&r);
}

/* Enter privilege `to` (1 S, 0 U) at the next instruction with MRET. */
static void drop_to(r6_prog *p, unsigned to)
{
    r6_li_to(p, T0, 3 << 11);
    r6_emit(p, r6_csr(3, 0, T0, MSTATUS));           /* clear MPP */
    r6_li_to(p, T0, (int64_t)to << 11);
    r6_emit(p, r6_csr(2, 0, T0, MSTATUS));           /* set it */
    r6_emit(p, r6_u(KH_RV64_OP_AUIPC, T0, 0));
    r6_emit(p, R6_ADDI(T0, T0, 16));
    r6_emit(p, R6_CSRW(MEPC, T0));
    r6_emit(p, R6_MRET);
}

/* rv64.md §2: a CSR above the level, a privileged instruction below its
 * level, and a read-only write are each cause 2; U reads cycle, time */
static void privilege_checks_on_csrs_and_instructions(void)
{
    r6_prog p;
    prologue(&p);
    drop_to(&p, 0);
    unsigned u0 = p.n;
    r6_emit(&p, R6_CSRR(1, MSTATUS));  /* M CSR from U */
    r6_emit(&p, R6_CSRR(1, SSTATUS)); /* S CSR from U */
    r6_emit(&p, R6_MRET);
    r6_emit(&p, R6_SRET);
    r6_emit(&p, 0x12000073u);         /* SFENCE.VMA */
    r6_emit(&p, R6_CSRR(1, CYCLE));   /* allowed */
    r6_emit(&p, R6_CSRR(2, TIME));    /* allowed */
    r6_emit(&p, R6_WFI);              /* a NOP even in U */
    r6_emit(&p, R6_ECALL);            /* cause 8 */
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 100000);
    CHECK_EQ(traps_logged(&r), 6);
    const uint64_t cause[6] = {2, 2, 2, 2, 2, 8};
    const unsigned off[6] = {0, 1, 2, 3, 4, 8};
    for (unsigned i = 0; i < 6 && i < traps_logged(&r); i++) {
        CHECK_EQ(log_word(&r, i, 0), cause[i]);
        CHECK_EQ(log_word(&r, i, 1), R6_BASE + 4u * (u0 + off[i]));
        CHECK_EQ((log_word(&r, i, 3) >> 11) & 3, 0); /* MPP: came from U */
    }
    CHECK(kh_rv64_reg(r.c, 2) >= kh_rv64_reg(r.c, 1)); /* time read after cycle */
    r6_done(&r);
}

/* rv64.md §3: ECALL's cause names the mode; medeleg moves a U ECALL to S,
 * which sees scause 8, sepc, SPP 0 and vectors through stvec; S's own
 * ECALL (not delegated) reaches M with cause 9 and MPP 1. */
static void ecall_causes_and_delegation(void)
{
    r6_prog p;
    prologue(&p);
    /* S handler: log scause, sepc, sstatus; ecall to M; skip; sret */
    unsigned jump_over = p.n;
    r6_emit(&p, 0);
    unsigned sh = p.n;
    r6_emit(&p, R6_CSRR(T0, SCAUSE));
    r6_emit(&p, R6_SD(LOGP, T0, 0));
    r6_emit(&p, R6_CSRR(T1, SEPC));
    r6_emit(&p, R6_SD(LOGP, T1, 8));
    r6_emit(&p, R6_CSRR(T2, SSTATUS));
    r6_emit(&p, R6_SD(LOGP, T2, 24));
    r6_emit(&p, R6_ADDI(LOGP, LOGP, 32));
    r6_emit(&p, R6_ECALL); /* S -> M, cause 9 (the M handler clobbers t0-t2) */
    r6_emit(&p, R6_CSRR(T1, SEPC));
    r6_emit(&p, R6_ADDI(T1, T1, 4));
    r6_emit(&p, R6_CSRW(SEPC, T1));
    r6_emit(&p, R6_SRET);
    p.w[jump_over] = r6_j(0, (int32_t)(4 * (p.n - jump_over)));
    r6_li_to(&p, T0, (int64_t)(R6_BASE + 4u * sh));
    r6_emit(&p, R6_CSRW(STVEC, T0));
    r6_li_to(&p, T0, 1 << 8); /* delegate ECALL from U */
    r6_emit(&p, R6_CSRW(MEDELEG, T0));
    r6_emit(&p, R6_ECALL); /* from M: cause 11, not delegated */
    drop_to(&p, 0);
    unsigned u_ecall = p.n;
    r6_emit(&p, R6_ECALL);
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 100000);
    CHECK_EQ(traps_logged(&r), 3);
    CHECK_EQ(log_word(&r, 0, 0), 11);
    CHECK_EQ(log_word(&r, 1, 0), 8);                       /* scause */
    CHECK_EQ(log_word(&r, 1, 1), R6_BASE + 4u * u_ecall);  /* sepc */
    CHECK_EQ((log_word(&r, 1, 3) >> 8) & 1, 0);            /* SPP: from U */
    CHECK_EQ(log_word(&r, 2, 0), 9);                       /* mcause: ECALL from S */
    CHECK_EQ((log_word(&r, 2, 3) >> 11) & 3, 1);           /* MPP = S */
    CHECK_EQ(r.res.end, KH_RV64_END_EXIT);
    r6_done(&r);
}

/* rv64.md §3: MRET restores MIE from MPIE, sets MPIE, leaves MPP = U; a trap
 * saves MIE into MPIE and clears MIE */
static void mret_and_trap_move_the_status_stack(void)
{
    r6_prog p;
    prologue(&p);
    r6_li_to(&p, T0, (1 << 7) | (3 << 11)); /* MPIE = 1, MPP = M */
    r6_emit(&p, R6_CSRW(MSTATUS, T0));
    r6_emit(&p, r6_u(KH_RV64_OP_AUIPC, T0, 0));
    r6_emit(&p, R6_ADDI(T0, T0, 16));
    r6_emit(&p, R6_CSRW(MEPC, T0));
    r6_emit(&p, R6_MRET);
    r6_emit(&p, R6_CSRR(20, MSTATUS)); /* MIE 1, MPIE 1, MPP 0 */
    r6_emit(&p, R6_EBREAK);            /* logged mstatus: MIE 0, MPIE 1, MPP 3 */
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 100000);
    CHECK_EQ(kh_rv64_reg(r.c, 20), (1 << 3) | (1 << 7));
    CHECK_EQ(traps_logged(&r), 1);
    CHECK_EQ(log_word(&r, 0, 0), 3);
    CHECK_EQ(log_word(&r, 0, 3), (1 << 7) | (3 << 11));
    r6_done(&r);
}

/* rv64.md §3: the timer is mtime >= mtimecmp, taken with MIE and mie.MTIE,
 * cause 0x8000_0000_0000_0007, mepc the interrupted instruction; moving
 * mtimecmp is its only acknowledge. A software interrupt through mip.MSIP
 * is cause ...3. */
static void timer_and_software_interrupts(void)
{
    r6_prog p;
    prologue(&p);
    /* the handler logs and returns to the same instruction: it must also
     * move mtimecmp and clear MSIP, so give it a second handler */
    unsigned jump_over = p.n;
    r6_emit(&p, 0);
    unsigned ih = p.n;
    r6_emit(&p, R6_CSRR(T0, MCAUSE));
    r6_emit(&p, R6_SD(LOGP, T0, 0));
    r6_emit(&p, R6_CSRR(T1, MEPC));
    r6_emit(&p, R6_SD(LOGP, T1, 8));
    r6_emit(&p, R6_ADDI(LOGP, LOGP, 32));
    r6_li_to(&p, T2, -1);
    r6_emit(&p, R6_CSRW(MTIMECMP, T2));
    r6_emit(&p, r6_csr(5, 0, 0, MIP)); /* csrwi mip, 0 */
    r6_emit(&p, R6_MRET);
    p.w[jump_over] = r6_j(0, (int32_t)(4 * (p.n - jump_over)));
    r6_li_to(&p, T0, (int64_t)(R6_BASE + 4u * ih));
    r6_emit(&p, R6_CSRW(MTVEC, T0));
    r6_li_to(&p, T0, (1 << 7) | (1 << 3));
    r6_emit(&p, R6_CSRW(MIE, T0));
    r6_emit(&p, r6_csr(6, 0, 8, MSTATUS)); /* csrsi mstatus, MIE */
    r6_emit(&p, R6_CSRR(T0, TIME));
    r6_emit(&p, R6_ADDI(T0, T0, 40));
    r6_emit(&p, R6_CSRW(MTIMECMP, T0));
    r6_li_to(&p, 21, (int64_t)LOG);
    unsigned loop2 = p.n;
    r6_emit(&p, R6_ADDI(20, 20, 1));
    r6_emit(&p, r6_b(0, LOGP, 21, -4)); /* spin while the log is empty */
    unsigned sw_at = p.n;
    r6_emit(&p, r6_csr(6, 0, 8, MIP));  /* csrsi mip, MSIP */
    r6_emit(&p, R6_NOP);
    r6_emit(&p, R6_NOP);
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 100000);
    CHECK_EQ(r.res.end, KH_RV64_END_EXIT);
    CHECK_EQ(traps_logged(&r), 2);
    CHECK_EQ(log_word(&r, 0, 0), 0x8000000000000007ull);
    uint64_t epc = log_word(&r, 0, 1);
    CHECK(epc == R6_BASE + 4u * loop2 || epc == R6_BASE + 4u * (loop2 + 1));
    CHECK(kh_rv64_reg(r.c, 20) > 3); /* the loop ran while waiting */
    CHECK_EQ(log_word(&r, 1, 0), 0x8000000000000003ull);
    uint64_t sepc = log_word(&r, 1, 1);
    CHECK(sepc > R6_BASE + 4u * sw_at && sepc <= R6_BASE + 4u * (sw_at + 3));
    r6_done(&r);
}

/* rv64.md §4: LR sets the reservation, SC to it succeeds once (rd 0), a
 * second SC fails (rd 1) and writes nothing; the AMOs return the old value
 * and the .W forms sign-extend */
static void lr_sc_and_amos(void)
{
    r6_prog p;
    prologue(&p);
    r6_li_to(&p, 10, (int64_t)R6_DATA);
    r6_li_to(&p, 11, 77);
    r6_emit(&p, r6_amo(0x02, 3, 12, 10, 0));   /* lr.d x12, (x10) */
    r6_emit(&p, r6_amo(0x03, 3, 13, 10, 11));  /* sc.d x13, x11, (x10): 0 */
    r6_emit(&p, r6_amo(0x03, 3, 14, 10, 0));   /* sc.d again: 1, no write */
    r6_emit(&p, R6_ADDI(15, 10, 8));
    r6_emit(&p, r6_amo(0x02, 3, 16, 10, 0));   /* lr.d (x10) */
    r6_emit(&p, r6_amo(0x03, 3, 17, 15, 11));  /* sc.d to another address: 1 */
    r6_li_to(&p, 18, -5);
    r6_emit(&p, r6_amo(0x00, 3, 19, 15, 18));  /* amoadd.d: old 1000 */
    r6_emit(&p, r6_amo(0x14, 2, 20, 15, 18));  /* amomax.w on 995: old 995, keeps 995 */
    r6_emit(&p, r6_amo(0x18, 2, 21, 15, 18));  /* amominu.w: 995 < 0xFFFFFFFB, old 995 */
    r6_li_to(&p, 22, 0x80000000);
    r6_emit(&p, r6_amo(0x01, 2, 23, 15, 22));  /* amoswap.w: old 995 */
    r6_emit(&p, r6_amo(0x01, 2, 24, 15, 0));   /* amoswap.w: old 0x80000000 sign-extended */
    finish(&p);
    const uint64_t data[2] = {42, 1000};
    r6_run r;
    r6_exec(&r, &p, data, 2, 0, 100000);
    CHECK_EQ(kh_rv64_reg(r.c, 12), 42);
    CHECK_EQ(kh_rv64_reg(r.c, 13), 0);
    CHECK_EQ(kh_rv64_reg(r.c, 14), 1);
    CHECK_EQ(kh_rv64_reg(r.c, 16), 77);
    CHECK_EQ(kh_rv64_reg(r.c, 17), 1);
    CHECK_EQ(kh_rv64_flat_read64(r.f, R6_DATA), 77);
    CHECK_EQ(kh_rv64_reg(r.c, 19), 1000);
    CHECK_EQ(kh_rv64_reg(r.c, 20), 995);
    CHECK_EQ(kh_rv64_reg(r.c, 21), 995);
    CHECK_EQ(kh_rv64_reg(r.c, 23), 995);
    CHECK_EQ(kh_rv64_reg(r.c, 24), 0xFFFFFFFF80000000ull);
    CHECK_EQ(kh_rv64_flat_read64(r.f, R6_DATA + 8), 0);
    CHECK_EQ(traps_logged(&r), 0);
    r6_done(&r);
}

/* the M extension's defined results (RISC-V unprivileged spec, M chapter) */
static void divide_corner_cases(void)
{
    static const struct { unsigned op, f3; int64_t a, b; uint64_t want; } t[] = {
        {R6_OP, 4, 7, 0, ~0ull},                            /* div by 0 */
        {R6_OP, 5, 7, 0, ~0ull},                            /* divu by 0 */
        {R6_OP, 6, 7, 0, 7},                                /* rem by 0 */
        {R6_OP, 7, -7, 0, (uint64_t)-7},                    /* remu by 0 */
        {R6_OP, 4, INT64_MIN, -1, (uint64_t)INT64_MIN},     /* overflow */
        {R6_OP, 6, INT64_MIN, -1, 0},
        {R6_OP, 4, -7, 2, (uint64_t)-3},                    /* rounds to zero */
        {R6_OP, 6, -7, 2, (uint64_t)-1},
        {R6_OP32, 4, INT32_MIN, -1, (uint64_t)(int64_t)INT32_MIN}, /* divw overflow */
        {R6_OP32, 6, INT32_MIN, -1, 0},
        {R6_OP32, 5, -1, 2, 0x7FFFFFFF},                    /* divuw: zero-extended operands */
        {R6_OP32, 7, -7, 0, (uint64_t)-7},                  /* remuw by 0: the dividend, sign-extended */
        {R6_OP32, 0, 0x10000, 0x10000, 0},                  /* mulw: low word */
        {R6_OP, 1, -1, -1, 0},                              /* mulh */
        {R6_OP, 3, -1, -1, (uint64_t)-2},                   /* mulhu */
        {R6_OP, 2, -1, -1, ~0ull},                          /* mulhsu */
    };
    unsigned n = sizeof t / sizeof t[0];
    r6_prog p;
    prologue(&p);
    r6_li_to(&p, 20, (int64_t)R6_DATA);
    for (unsigned i = 0; i < n; i++) {
        r6_li_to(&p, 11, t[i].a);
        r6_li_to(&p, 12, t[i].b);
        r6_emit(&p, r6_r(t[i].op, t[i].f3, 1, 13, 11, 12));
        r6_emit(&p, R6_SD(20, 13, (int32_t)(8 * i)));
    }
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 100000);
    for (unsigned i = 0; i < n; i++) {
        uint64_t got = kh_rv64_flat_read64(r.f, R6_DATA + 8u * i);
        if (got != t[i].want)
            kh_test_fail(__FILE__, __LINE__, "case %u (funct3 %u%s): 0x%llx, want 0x%llx", i, t[i].f3,
                         t[i].op == R6_OP32 ? " W" : "", (unsigned long long)got, (unsigned long long)t[i].want);
    }
    r6_done(&r);
}

/* rv64.md §1, §3: misaligned halfword, word, doubleword loads trap with 4,
 * stores and AMOs with 6, and write nothing; aligned ones do not trap */
static void misaligned_accesses_trap(void)
{
    r6_prog p;
    prologue(&p);
    r6_li_to(&p, 10, (int64_t)R6_DATA);
    r6_li_to(&p, 11, -1);
    r6_emit(&p, r6_i(R6_LD, 1, 1, 10, 1));   /* lh at +1 */
    r6_emit(&p, r6_i(R6_LD, 2, 1, 10, 2));   /* lw at +2 */
    r6_emit(&p, r6_i(R6_LD, 3, 1, 10, 4));   /* ld at +4 */
    r6_emit(&p, r6_s(1, 10, 11, 3));         /* sh at +3 */
    r6_emit(&p, r6_s(3, 10, 11, 12));        /* sd at +12 */
    r6_emit(&p, R6_ADDI(12, 10, 4));
    r6_emit(&p, r6_amo(0x00, 3, 1, 12, 11)); /* amoadd.d at +4 */
    r6_emit(&p, r6_i(R6_LD, 0, 1, 10, 7));   /* lb: never misaligned */
    r6_emit(&p, r6_i(R6_LD, 6, 1, 10, 4));   /* lwu at +4: aligned */
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 100000);
    CHECK_EQ(traps_logged(&r), 6);
    const uint64_t cause[6] = {4, 4, 4, 6, 6, 6};
    for (unsigned i = 0; i < 6 && i < traps_logged(&r); i++) CHECK_EQ(log_word(&r, i, 0), cause[i]);
    CHECK_EQ(kh_rv64_flat_read64(r.f, R6_DATA), 0);
    CHECK_EQ(kh_rv64_flat_read64(r.f, R6_DATA + 8), 0);
    r6_done(&r);
}

/* rv64.md §1: x0 is never written; W forms sign-extend bit 31 */
static void x0_and_word_forms(void)
{
    r6_prog p = {.n = 0};
    r6_emit(&p, R6_ADDI(0, 0, 5));
    r6_emit(&p, R6_ADD(1, 0, 0));
    r6_li_to(&p, 2, 0x7FFFFFFF);
    r6_emit(&p, r6_i(R6_OPI32, 0, 3, 2, 1));      /* addiw: 0x80000000 sign-extended */
    r6_emit(&p, r6_i(R6_OPI32, 5, 4, 3, 0x400 | 4)); /* sraiw by 4 */
    r6_emit(&p, r6_i(R6_OPI32, 5, 5, 3, 4));      /* srliw by 4 */
    r6_emit(&p, r6_r(R6_OP32, 1, 0, 6, 2, 2));     /* sllw by 31 (rs2 = 0x7FFFFFFF & 31) */
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 10000);
    CHECK_EQ(kh_rv64_reg(r.c, 0), 0);
    CHECK_EQ(kh_rv64_reg(r.c, 1), 0);
    CHECK_EQ(kh_rv64_reg(r.c, 3), 0xFFFFFFFF80000000ull);
    CHECK_EQ(kh_rv64_reg(r.c, 4), 0xFFFFFFFFF8000000ull);
    CHECK_EQ(kh_rv64_reg(r.c, 5), 0x08000000ull);
    CHECK_EQ(kh_rv64_reg(r.c, 6), 0xFFFFFFFF80000000ull);
    r6_done(&r);
}

/* rv64.md §2: mcycle and mtime count every cycle from reset; minstret
 * counts retired instructions, one cycle late; a write replaces them */
static void counters_count_and_can_be_written(void)
{
    r6_prog p = {.n = 0};
    r6_emit(&p, R6_CSRR(1, MCYCLE));
    r6_emit(&p, R6_NOP);
    r6_emit(&p, R6_NOP);
    r6_emit(&p, R6_CSRR(2, MCYCLE));
    r6_emit(&p, R6_CSRR(3, MINSTRET));
    r6_li_to(&p, 4, 1000000);
    r6_emit(&p, R6_CSRW(MCYCLE, 4));
    r6_emit(&p, R6_CSRR(5, MCYCLE));
    finish(&p);
    r6_run r;
    r6_exec(&r, &p, NULL, 0, 0, 10000);
    /* csrr (2 cycles in E) nop nop csrr: the second read is 4 cycles later */
    CHECK_EQ(kh_rv64_reg(r.c, 2) - kh_rv64_reg(r.c, 1), 4);
    CHECK_EQ(kh_rv64_reg(r.c, 3), 4); /* four retired, the fifth's pulse not yet counted */
    CHECK(kh_rv64_reg(r.c, 5) >= 1000000 && kh_rv64_reg(r.c, 5) < 1000010);
    r6_done(&r);
}

int main(void)
{
    KH_RUN(illegal_encodings_trap_with_cause_2);
    KH_RUN(legal_corners_do_not_trap);
    KH_RUN(no_handler_means_halt);
    KH_RUN(csrs_store_only_their_masks);
    KH_RUN(privilege_checks_on_csrs_and_instructions);
    KH_RUN(ecall_causes_and_delegation);
    KH_RUN(mret_and_trap_move_the_status_stack);
    KH_RUN(timer_and_software_interrupts);
    KH_RUN(lr_sc_and_amos);
    KH_RUN(divide_corner_cases);
    KH_RUN(misaligned_accesses_trap);
    KH_RUN(x0_and_word_forms);
    KH_RUN(counters_count_and_can_be_written);
    return kh_test_end("t_rv64_isa");
}
