/* Every RV32I instruction of the node control processor against values
 * worked out from the RISC-V unprivileged ISA manual (edge values: shifts
 * by 31 and by rs2[4:0] only, sign extension, x0 writes, branch offsets at
 * both limits), the multiply half behind l_rv32_mul, FENCE as a no-op, and
 * the legality rules of cpu.md §2.2. Each program is loaded and kicked
 * through the orchestrator (rv32_kit.h). */
#include "rv32_kit.h"

enum { OPI = KH_RV32_OP_OP_IMM, OPR = KH_RV32_OP_OP_REG, LD = KH_RV32_OP_LOAD };

/* x3 = insn(x1 = a, x2 = b) */
static uint32_t run_op(uint32_t insn, uint32_t a, uint32_t b, const kh_params *p)
{
    uint32_t c[8];
    unsigned n = rv_li(c, 1, a);
    n += rv_li(c + n, 2, b);
    c[n++] = insn;
    c[n++] = RV_ECALL;
    rv_run r;
    rv_exec(&r, p, c, n, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    uint32_t v = r.st.x[3];
    rv_done(&r);
    return v;
}

typedef struct op_case {
    const char *what;
    uint32_t insn, a, b, want;
} op_case;

static void run_cases(const op_case *cases, const uint32_t *insns, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint32_t got = run_op(insns[i], cases[i].a, cases[i].b, NULL);
        if (got != cases[i].want)
            kh_test_fail(__FILE__, __LINE__, "%s: 0x%08x, want 0x%08x", cases[i].what, got, cases[i].want);
    }
}

#define R(f3, f7) rv_r(OPR, f3, f7, 3, 1, 2)
#define I(f3, imm) rv_i(OPI, f3, 3, 1, imm)
#define SH(f3, f7, sh) rv_i(OPI, f3, 3, 1, (int32_t)((f7) << 5 | (sh)))

static void alu_register_forms(void)
{
    static const op_case cases[] = {
        {"add overflow wraps", 0, 0x7FFFFFFF, 1, 0x80000000},
        {"add -1 + 1", 0, 0xFFFFFFFF, 1, 0},
        {"sub 0 - 1", 0, 0, 1, 0xFFFFFFFF},
        {"sub min - 1", 0, 0x80000000, 1, 0x7FFFFFFF},
        {"sll by 31", 0, 1, 31, 0x80000000},
        {"sll uses rs2[4:0] (33 -> 1)", 0, 1, 33, 2},
        {"srl by 31", 0, 0x80000000, 31, 1},
        {"srl by 0 (32)", 0, 0x80000001, 32, 0x80000001},
        {"sra by 31", 0, 0x80000000, 31, 0xFFFFFFFF},
        {"sra positive", 0, 0x40000000, 30, 1},
        {"sra by 4 keeps the sign", 0, 0xF0000000, 4, 0xFF000000},
        {"slt -1 < 1", 0, 0xFFFFFFFF, 1, 1},
        {"slt 1 < -1", 0, 1, 0xFFFFFFFF, 0},
        {"slt equal", 0, 5, 5, 0},
        {"sltu -1 < 1 unsigned", 0, 0xFFFFFFFF, 1, 0},
        {"sltu 1 < max", 0, 1, 0xFFFFFFFF, 1},
        {"xor", 0, 0xF0F0F0F0, 0xFF00FF00, 0x0FF00FF0},
        {"or", 0, 0xF0F0F0F0, 0x0F000F00, 0xFFF0FFF0},
        {"and", 0, 0xF0F0F0F0, 0xFF00FF00, 0xF000F000},
    };
    const uint32_t insns[] = {R(0, 0), R(0, 0), R(0, 0x20), R(0, 0x20), R(1, 0), R(1, 0), R(5, 0), R(5, 0),
                              R(5, 0x20), R(5, 0x20), R(5, 0x20), R(2, 0), R(2, 0), R(2, 0), R(3, 0), R(3, 0),
                              R(4, 0), R(6, 0), R(7, 0)};
    run_cases(cases, insns, sizeof cases / sizeof cases[0]);
}

static void alu_immediate_forms(void)
{
    static const op_case cases[] = {
        {"addi -2048 sign-extends", 0, 0, 0, 0xFFFFF800},
        {"addi 2047", 0, 1, 0, 0x800},
        {"slti 0 < -1", 0, 0, 0, 0},
        {"slti -5 < -1", 0, 0xFFFFFFFB, 0, 1},
        {"sltiu imm -1 is max unsigned", 0, 5, 0, 1},
        {"sltiu 1: seqz", 0, 0, 0, 1},
        {"xori -1: not", 0, 0x12345678, 0, 0xEDCBA987},
        {"ori sign-extended", 0, 0x00000001, 0, 0xFFFFF801},
        {"andi sign-extended", 0, 0x12345678, 0, 0x12345078},
        {"slli 31", 0, 3, 0, 0x80000000},
        {"srli 31", 0, 0xFFFFFFFF, 0, 1},
        {"srai 31", 0, 0x80000000, 0, 0xFFFFFFFF},
        {"srai 0", 0, 0x80000000, 0, 0x80000000},
    };
    const uint32_t insns[] = {I(0, -2048), I(0, 2047), I(2, -1), I(2, -1), I(3, -1), I(3, 1), I(4, -1),
                              I(6, -2047), I(7, -1928), SH(1, 0, 31), SH(5, 0, 31), SH(5, 0x20, 31), SH(5, 0x20, 0)};
    run_cases(cases, insns, sizeof cases / sizeof cases[0]);
}

/* LUI, AUIPC, x0 writes, FENCE / FENCE.I as no-ops. */
static void upper_and_x0(void)
{
    uint32_t c[] = {
        RV_LUI(5, 0xFFFFF),                  /* 0x00: x5 = 0xFFFFF000 */
        rv_u(KH_RV32_OP_AUIPC, 6, 0x00001),  /* 0x04: x6 = 0x1004 */
        rv_u(KH_RV32_OP_AUIPC, 7, 0xFFFFF),  /* 0x08: x7 = 0x08 - 0x1000 */
        RV_ADDI(0, 0, 123),                  /* 0x0c: x0 stays 0 */
        RV_LUI(0, 0x12345),
        0x0FF0000F,                          /* fence iorw, iorw */
        0x0000100F,                          /* fence.i */
        0xFFFFFFFF & ~0x70u & ~0x80u,        /* any MISC-MEM word: opcode 0x0F with other fields set */
        RV_ADD(8, 0, 0),                     /* x8 = x0 + x0 */
        RV_ECALL,
    };
    c[7] = (c[7] & ~0x7Fu) | 0x0F;
    rv_run r;
    rv_exec(&r, NULL, c, sizeof c / sizeof c[0], NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    CHECK_EQ(r.st.x[5], 0xFFFFF000);
    CHECK_EQ(r.st.x[6], 0x1004);
    CHECK_EQ(r.st.x[7], (uint32_t)0x08 - 0x1000);
    CHECK_EQ(r.st.x[0], 0);
    CHECK_EQ(r.st.x[8], 0);
    CHECK_EQ(r.st.instret, 10);
    rv_done(&r);
}

/* Loads sign- or zero-extend by funct3; stores write their lanes only. */
static void loads_and_stores(void)
{
    uint32_t spad[4] = {0x8081F2F3, 0x7F017FFF, 0, 0x11223344};
    uint32_t c[40];
    unsigned n = rv_li(c, 1, 0x10000000);
    c[n++] = rv_i(LD, 0, 10, 1, 0);  /* lb  byte 0 0xF3 -> 0xFFFFFFF3 */
    c[n++] = rv_i(LD, 4, 11, 1, 1);  /* lbu byte 1 0xF2 -> 0xF2 */
    c[n++] = rv_i(LD, 1, 12, 1, 2);  /* lh  0x8081 -> 0xFFFF8081 */
    c[n++] = rv_i(LD, 5, 13, 1, 2);  /* lhu -> 0x8081 */
    c[n++] = rv_i(LD, 1, 14, 1, 4);  /* lh  0x7FFF -> 0x7FFF */
    c[n++] = rv_i(LD, 0, 15, 1, 7);  /* lb  0x7F -> 0x7F */
    c[n++] = rv_i(LD, 2, 16, 1, 12); /* lw */
    n += rv_li(c + n, 2, 0xA1B2C3D4);
    c[n++] = rv_s(0, 1, 2, 9);       /* sb 0xD4 at byte 9 */
    c[n++] = rv_s(1, 1, 2, 10);      /* sh 0xC3D4 at bytes 10-11 */
    c[n++] = rv_s(2, 1, 2, -4 + 16); /* sw at word 3 (negative offset from 16) */
    c[n++] = rv_i(LD, 2, 17, 1, 8);
    c[n++] = rv_i(LD, 2, 18, 1, 12);
    c[n++] = rv_i(LD, 2, 19, 1, 0x2000 + 12); /* the scratchpad aliases every 8 KiB */
    c[n++] = RV_ECALL;
    rv_run r;
    rv_exec(&r, NULL, c, n, spad, 4, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    CHECK_EQ(r.st.x[10], 0xFFFFFFF3);
    CHECK_EQ(r.st.x[11], 0xF2);
    CHECK_EQ(r.st.x[12], 0xFFFF8081);
    CHECK_EQ(r.st.x[13], 0x8081);
    CHECK_EQ(r.st.x[14], 0x7FFF);
    CHECK_EQ(r.st.x[15], 0x7F);
    CHECK_EQ(r.st.x[16], 0x11223344);
    CHECK_EQ(r.st.x[17], 0xC3D4D400);
    CHECK_EQ(r.st.x[18], 0xA1B2C3D4);
    CHECK_EQ(r.st.x[19], 0xA1B2C3D4);
    rv_done(&r);
}

/* Each branch taken and not taken, signed against unsigned edges; x20
 * counts the taken ones (each taken branch skips an addi x21). */
static void branches(void)
{
    uint32_t c[64];
    unsigned n = rv_li(c, 1, 0xFFFFFFFF); /* -1 */
    n += rv_li(c + n, 2, 1);
    /* {funct3, rs1, rs2, taken?} */
    static const unsigned t[][4] = {
        {0, 1, 1, 1}, {0, 1, 2, 0}, {1, 1, 2, 1}, {1, 2, 2, 0}, {4, 1, 2, 1}, {4, 2, 1, 0},
        {5, 2, 1, 1}, {5, 1, 2, 0}, {5, 1, 1, 1}, {6, 2, 1, 1}, {6, 1, 2, 0}, {7, 1, 2, 1}, {7, 2, 1, 0},
    };
    unsigned want_taken = 0;
    for (unsigned i = 0; i < sizeof t / sizeof t[0]; i++) {
        c[n++] = rv_b(t[i][0], t[i][1], t[i][2], 8); /* over the next instruction */
        c[n++] = RV_ADDI(21, 21, 1);
        want_taken += t[i][3];
    }
    c[n++] = RV_ECALL;
    rv_run r;
    rv_exec(&r, NULL, c, n, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.x[21], (uint32_t)(sizeof t / sizeof t[0]) - want_taken);
    rv_done(&r);
}

/* JAL and JALR: link = pc + 4, JALR target (rs1 + imm) & ~1, backward jumps. */
static void jumps(void)
{
    uint32_t c[32] = {0};
    c[0] = rv_j(1, 16);                             /* 0x00 -> 0x10, x1 = 4 */
    rv_li(c + 4, 5, 0x31);                          /* 0x10: x5 = 0x31 (odd: bit 0 is cleared) */
    c[6] = rv_i(KH_RV32_OP_JALR, 0, 6, 5, 0x10 - 1); /* 0x18 -> (0x31 + 0x0F) & ~1 = 0x40, x6 = 0x1C */
    c[16] = rv_j(7, -0x40 + 0x48);                  /* 0x40 -> 0x48, x7 = 0x44 */
    c[18] = rv_j(8, -0x48 + 0x28);                  /* 0x48 -> 0x28 (backward), x8 = 0x4C */
    c[10] = rv_i(KH_RV32_OP_JALR, 0, 0, 8, 0x0C);   /* 0x28 -> 0x4C + 0x0C = 0x58, no link (x0) */
    c[22] = RV_ECALL;                               /* 0x58 */
    rv_run r;
    rv_exec(&r, NULL, c, 32, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    CHECK_EQ(r.st.x[1], 4);
    CHECK_EQ(r.st.x[6], 0x1C);
    CHECK_EQ(r.st.x[7], 0x44);
    CHECK_EQ(r.st.x[8], 0x4C);
    CHECK_EQ(r.st.x[0], 0);
    CHECK_EQ(r.st.instret, 8);
    rv_done(&r);
}

/* Branch offsets at both limits: -4096 lands at 0; +4094 from 0x10 is
 * 0x100E, whose bit 1 makes the fetch execute the aligned word 0x100C; an
 * illegal word there halts with the PC (cause 3), naming the target. */
static void branch_offset_limits(void)
{
    static uint32_t c[2048];
    rv_run r;
    /* -4096: 0x00 x14 = 2; 0x08 x9 += 1; 0x0C beq x9, x14 -> 0x14; 0x10 -> 0x1004, which branches -4096
     * to 0x04; the second pass ends at 0x14 */
    memset(c, 0, sizeof c);
    c[0] = RV_ADDI(14, 0, 2);
    c[1] = RV_NOP;
    c[2] = RV_ADDI(9, 9, 1);
    c[3] = rv_b(0, 9, 14, 8);
    c[4] = rv_b(0, 0, 0, 0x1004 - 0x10);
    c[5] = RV_ECALL;
    c[0x1004 / 4] = rv_b(0, 0, 0, -4096);
    rv_exec(&r, NULL, c, 0x1008 / 4, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    CHECK_EQ(r.st.x[9], 2);
    CHECK_EQ(r.st.instret, 10);
    rv_done(&r);
    /* +4094 from 0x10 */
    memset(c, 0, sizeof c);
    for (unsigned i = 0; i < 4; i++) c[i] = RV_NOP;
    c[4] = rv_b(0, 0, 0, 4094);
    c[5] = RV_ECALL;
    c[0x100C / 4] = 0; /* illegal */
    rv_exec(&r, NULL, c, 0x1010 / 4, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 3);
    CHECK_EQ(r.st.halt_word, 0x100E);
    CHECK(r.warns >= 1); /* the PC bit 1 warning */
    rv_done(&r);
}

/* JAL limits: +1048574 from 0x20 is 0x10001E, executing aligned word 7 of
 * the 8 KiB window (the PC aliases); -1048576 jumps to 0xFFF00020 = word 8
 * again, so the core loops there with x1 = the previous PC + 4. */
static void jal_offset_limits(void)
{
    uint32_t c[16] = {0};
    c[0] = rv_j(0, 0x20);
    for (unsigned i = 1; i < 7; i++) c[i] = RV_NOP;
    c[7] = 0; /* illegal: halts with the PC */
    c[8] = rv_j(1, 1048574);
    rv_run r;
    rv_exec(&r, NULL, c, 9, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 3);
    CHECK_EQ(r.st.halt_word, 0x20 + 1048574);
    CHECK_EQ(r.st.x[1], 0x24);
    rv_done(&r);

    c[8] = rv_j(1, -1048576);
    kh_params p;
    kh_params_default(&p);
    memset(&r, 0, sizeof r);
    r.m = kh_machine_new(NULL, &p, r.err, sizeof r.err);
    kh_rv32_image *img = calloc(1, sizeof *img);
    memcpy(img->imem, c, sizeof c);
    img->imem_granules = 2;
    CHECK_EQ(kh_rv32_run(r.m, 0, img, 0, 300, &r.res, r.err, sizeof r.err), -1); /* never completes */
    kh_rv32_get_state(kh_machine_cpu_at(r.m, 0), &r.st);
    CHECK(r.st.running);
    CHECK_EQ(r.st.pc % 0x100000, 0x20);
    CHECK(r.st.pc != 0x20);
    CHECK_EQ(r.st.x[1] - 4 - 0x100000, r.st.pc); /* x1 = link of the jump that went to pc */
    CHECK(strstr(r.err, "core running") != NULL);
    free(img);
    rv_done(&r);
}

/* The multiply half (cpu.md Open point 1): illegal by default, present with
 * l_rv32_mul; divide illegal in both. */
static void multiply_option(void)
{
    kh_params p;
    kh_params_default(&p);
    p.l_rv32_mul = 1;
    static const struct {
        unsigned f3;
        uint32_t a, b, want;
    } m[] = {
        {0, 0xFFFFFFFF, 0xFFFFFFFF, 1},          /* mul -1 * -1 */
        {0, 0x10000, 0x10000, 0},                /* mul low word */
        {1, 0xFFFFFFFF, 0xFFFFFFFF, 0},          /* mulh -1 * -1 = 1: high 0 */
        {1, 0x80000000, 0x80000000, 0x40000000}, /* mulh min * min */
        {2, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}, /* mulhsu -1 * (2^32 - 1) */
        {3, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFE}, /* mulhu */
    };
    for (unsigned i = 0; i < sizeof m / sizeof m[0]; i++)
        CHECK_EQ(run_op(rv_r(OPR, m[i].f3, 1, 3, 1, 2), m[i].a, m[i].b, &p), m[i].want);
    /* default: MUL is illegal; with the option DIV still is */
    for (int opt = 0; opt < 2; opt++) {
        p.l_rv32_mul = (uint64_t)opt;
        uint32_t c[] = {RV_NOP, rv_r(OPR, opt ? 4 : 0, 1, 3, 1, 2), RV_ECALL};
        rv_run r;
        rv_exec(&r, &p, c, 3, NULL, 0, 0);
        CHECK_EQ(r.st.cause, 3);
        CHECK_EQ(r.st.halt_word, 4);
        CHECK_EQ(r.res.code, 0x04); /* FAULT */
        rv_done(&r);
    }
}

/* cpu.md §2.2: which encodings are illegal (cause 3, halt word = the PC). */
static void illegal_encodings(void)
{
    static const struct {
        const char *what;
        uint32_t w;
    } bad[] = {
        {"all zero", 0x00000000},
        {"compressed (bits [1:0] != 11)", 0x00004501},
        {"csrrw", 0x34011073},
        {"csrrs cycle", 0xC0002573},
        {"mret", 0x30200073},
        {"wfi", 0x10500073},
        {"ecall with rd set", 0x000000F3},
        {"jalr funct3 1", 0x000010E7},
        {"branch funct3 2", 0x00002063},
        {"load funct3 3 (ld)", 0x00003083},
        {"load funct3 6", 0x00006083},
        {"store funct3 3 (sd)", 0x00003023},
        {"store funct3 4", 0x00004023},
        {"slli funct7 1", 0x02009093},
        {"srli funct7 0x21 (shamt[5])", 0x42105093},
        {"op funct7 0x20 with and", 0x4000F0B3},
        {"mul without the option", 0x022080B3},
        {"amoadd.w", 0x0020A0AF},
        {"flw", 0x0000A007},
        {"custom-0", 0x0000000B},
        {"custom-3", 0x0000007B},
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t c[] = {RV_NOP, RV_NOP, bad[i].w, RV_ECALL};
        rv_run r;
        rv_exec(&r, NULL, c, 4, NULL, 0, 0);
        if (r.st.cause != 3 || r.st.halt_word != 8)
            kh_test_fail(__FILE__, __LINE__, "%s (0x%08x): cause %u word 0x%x, want cause 3 at pc 8", bad[i].what,
                         bad[i].w, r.st.cause, r.st.halt_word);
        CHECK_EQ(r.st.instret, 3); /* the faulting instruction counts as retired */
        rv_done(&r);
    }
}

int main(void)
{
    KH_RUN(alu_register_forms);
    KH_RUN(alu_immediate_forms);
    KH_RUN(upper_and_x0);
    KH_RUN(loads_and_stores);
    KH_RUN(branches);
    KH_RUN(jumps);
    KH_RUN(branch_offset_limits);
    KH_RUN(jal_offset_limits);
    KH_RUN(multiply_option);
    KH_RUN(illegal_encodings);
    return kh_test_end("t_rv32_isa");
}
