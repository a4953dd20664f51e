/* RV32I decode with the processor's exact legality rules (cpu.md §2.2):
 * every field comes from the table in isa/rv32.isa. */
#include "kohaku/gen/rv32.h"
#include "sysnode/cpu/rv32_int.h"

static const char *const names[RV_NOPS] = {
    [RV_ILLEGAL] = "illegal", [RV_LUI] = "lui",     [RV_AUIPC] = "auipc", [RV_JAL] = "jal",
    [RV_JALR] = "jalr",       [RV_BEQ] = "beq",     [RV_BNE] = "bne",     [RV_BLT] = "blt",
    [RV_BGE] = "bge",         [RV_BLTU] = "bltu",   [RV_BGEU] = "bgeu",   [RV_LB] = "lb",
    [RV_LH] = "lh",           [RV_LW] = "lw",       [RV_LBU] = "lbu",     [RV_LHU] = "lhu",
    [RV_SB] = "sb",           [RV_SH] = "sh",       [RV_SW] = "sw",       [RV_ADDI] = "addi",
    [RV_SLTI] = "slti",       [RV_SLTIU] = "sltiu", [RV_XORI] = "xori",   [RV_ORI] = "ori",
    [RV_ANDI] = "andi",       [RV_SLLI] = "slli",   [RV_SRLI] = "srli",   [RV_SRAI] = "srai",
    [RV_ADD] = "add",         [RV_SUB] = "sub",     [RV_SLL] = "sll",     [RV_SLT] = "slt",
    [RV_SLTU] = "sltu",       [RV_XOR] = "xor",     [RV_SRL] = "srl",     [RV_SRA] = "sra",
    [RV_OR] = "or",           [RV_AND] = "and",     [RV_MUL] = "mul",     [RV_MULH] = "mulh",
    [RV_MULHSU] = "mulhsu",   [RV_MULHU] = "mulhu", [RV_FENCE] = "fence", [RV_ECALL] = "ecall",
    [RV_EBREAK] = "ebreak",
};

const char *kh_rv_op_name(rv_op op) { return op < RV_NOPS && names[op] ? names[op] : "?"; }
int kh_rv_is_load(rv_op op) { return op >= RV_LB && op <= RV_LHU; }
int kh_rv_is_store(rv_op op) { return op >= RV_SB && op <= RV_SW; }
int kh_rv_is_branch(rv_op op) { return op >= RV_BEQ && op <= RV_BGEU; }

static rv_insn illegal(void)
{
    rv_insn i = {.op = RV_ILLEGAL};
    return i;
}

rv_insn kh_rv_decode(uint32_t word, int mul)
{
    uint64_t w = word;
    rv_insn i = {.op = RV_ILLEGAL,
                 .rd = (unsigned)kh_rv32_rd(&w),
                 .rs1 = (unsigned)kh_rv32_rs1(&w),
                 .rs2 = (unsigned)kh_rv32_rs2(&w)};
    unsigned f3 = (unsigned)kh_rv32_funct3(&w), f7 = (unsigned)kh_rv32_funct7(&w);
    uint32_t imm_i = (uint32_t)kh_rv32_imm_i_s(&w);
    switch (kh_rv32_op(&w)) {
    case KH_RV32_OP_LUI:
    case KH_RV32_OP_AUIPC:
        i.op = kh_rv32_op(&w) == KH_RV32_OP_LUI ? RV_LUI : RV_AUIPC;
        i.imm = (uint32_t)kh_rv32_imm_u(&w) << 12;
        return i;
    case KH_RV32_OP_JAL:
        i.op = RV_JAL;
        i.imm = (uint32_t)kh_rv32_imm_j_s(&w) * 2u;
        return i;
    case KH_RV32_OP_JALR:
        if (f3) return illegal();
        i.op = RV_JALR;
        i.imm = imm_i;
        i.use_rs1 = 1;
        return i;
    case KH_RV32_OP_BRANCH: {
        static const rv_op br[8] = {RV_BEQ, RV_BNE, RV_ILLEGAL, RV_ILLEGAL, RV_BLT, RV_BGE, RV_BLTU, RV_BGEU};
        if (br[f3] == RV_ILLEGAL) return illegal();
        i.op = br[f3];
        i.imm = (uint32_t)kh_rv32_imm_b_s(&w) * 2u;
        i.use_rs1 = i.use_rs2 = 1;
        i.rd = 0;
        return i;
    }
    case KH_RV32_OP_LOAD: {
        static const rv_op ld[8] = {RV_LB, RV_LH, RV_LW, RV_ILLEGAL, RV_LBU, RV_LHU, RV_ILLEGAL, RV_ILLEGAL};
        if (ld[f3] == RV_ILLEGAL) return illegal();
        i.op = ld[f3];
        i.imm = imm_i;
        i.use_rs1 = 1;
        return i;
    }
    case KH_RV32_OP_STORE:
        if (f3 > 2) return illegal(); /* funct3[2] set or [1:0] = 11 */
        i.op = f3 == 0 ? RV_SB : f3 == 1 ? RV_SH : RV_SW;
        i.imm = (uint32_t)kh_rv32_imm_s_s(&w);
        i.use_rs1 = i.use_rs2 = 1;
        i.rd = 0;
        return i;
    case KH_RV32_OP_OP_IMM: {
        static const rv_op im[8] = {RV_ADDI, RV_SLLI, RV_SLTI, RV_SLTIU, RV_XORI, RV_SRLI, RV_ORI, RV_ANDI};
        i.op = im[f3];
        i.imm = imm_i;
        i.use_rs1 = 1;
        if (f3 == 1 && f7 != 0) return illegal();
        if (f3 == 5) {
            if (f7 == 0x20) i.op = RV_SRAI;
            else if (f7 != 0) return illegal(); /* so shamt[5] must be 0 */
        }
        if (f3 == 1 || f3 == 5) i.imm = (uint32_t)kh_rv32_shamt(&w);
        return i;
    }
    case KH_RV32_OP_OP_REG: {
        static const rv_op rr[8] = {RV_ADD, RV_SLL, RV_SLT, RV_SLTU, RV_XOR, RV_SRL, RV_OR, RV_AND};
        static const rv_op mm[4] = {RV_MUL, RV_MULH, RV_MULHSU, RV_MULHU};
        i.use_rs1 = i.use_rs2 = 1;
        if (f7 == 0) i.op = rr[f3];
        else if (f7 == 0x20 && f3 == 0) i.op = RV_SUB;
        else if (f7 == 0x20 && f3 == 5) i.op = RV_SRA;
        else if (f7 == 0x01 && mul && f3 < 4) i.op = mm[f3]; /* divide stays illegal */
        else return illegal();
        return i;
    }
    case KH_RV32_OP_MISC_MEM:
        i.op = RV_FENCE; /* FENCE and FENCE.I: no field is checked */
        i.rd = 0;
        return i;
    case KH_RV32_OP_SYSTEM:
        if (kh_rv32_sys_hi(&w) || kh_rv32_sys_lo(&w)) return illegal();
        i.op = kh_rv32_sys_ebreak(&w) ? RV_EBREAK : RV_ECALL;
        i.rd = 0;
        return i;
    default:
        return illegal(); /* includes every word whose bits [1:0] are not 11 */
    }
}
