/* RV64IMA + Zicsr decode with the core's exact legality rules (docs/rv64.md
 * §1). Every field comes from isa/rv64.isa. An illegal word keeps the class
 * bits its opcode raises, because the pipeline's timing follows them. */
#include "kohaku/gen/rv64.h"
#include "rv64/rv64_int.h"

/* AMO funct5 values the core accepts (rv64.md §1) */
static int amo_known(unsigned f5)
{
    switch (f5) {
    case 0x02: case 0x03: case 0x01: case 0x00: case 0x04:
    case 0x0C: case 0x08: case 0x10: case 0x14: case 0x18: case 0x1C:
        return 1;
    default:
        return 0;
    }
}

static void decode_system(const uint64_t *w, unsigned f3, rv6_insn *d)
{
    if (f3 == 0) {
        unsigned hi = (unsigned)kh_rv64_csr(w);
        int lo_zero = kh_rv64_sys_lo(w) == 0;
        if (kh_rv64_imm_i(w) == 0 && lo_zero) {
            d->ecall = 1;
            d->op = R6_ECALL;
        } else if (lo_zero && hi == 0x001) {
            d->ebreak = 1;
            d->op = R6_EBREAK;
        } else if (lo_zero && hi == 0x302) {
            d->mret = 1;
            d->op = R6_MRET;
        } else if (lo_zero && hi == 0x102) {
            d->sret = 1;
            d->op = R6_SRET;
        } else if (lo_zero && hi == 0x105) {
            d->wfi = 1;
            d->op = R6_WFI;
        }
        /* SFENCE.VMA: rs1 and rs2 are not looked at (no ASID, one sweep) */
        if (kh_rv64_funct7(w) == 0x09 && d->rd == 0) {
            d->sfence = 1;
            d->op = R6_SFENCE;
        }
        d->ill = !(d->ecall || d->ebreak || d->mret || d->sret || d->wfi || d->sfence);
        return;
    }
    if (f3 == 4) {
        d->ill = 1;
        return;
    }
    d->op = R6_CSR;
    d->csr_op = 1;
    d->csr_imm = (f3 >> 2) & 1;
    d->wr = 1;
    /* a set or clear with no bits to change does not write */
    d->csr_wr = (f3 & 3) == 1 || d->rs1 != 0;
    d->csr = (uint16_t)kh_rv64_csr(w);
    d->imm = d->rs1;
}

void kh_rv6_decode(uint32_t word, rv6_insn *d)
{
    uint64_t w = word;
    *d = (rv6_insn){.word = word, .op = R6_ILLEGAL, .op2_imm = 1};
    d->rd = (uint8_t)kh_rv64_rd(&w);
    d->rs1 = (uint8_t)kh_rv64_rs1(&w);
    d->rs2 = (uint8_t)kh_rv64_rs2(&w);
    unsigned f3 = (unsigned)kh_rv64_funct3(&w), f7 = (unsigned)kh_rv64_funct7(&w);
    d->f3 = (uint8_t)f3;
    d->amo_op = (uint8_t)kh_rv64_funct5(&w);
    d->imm = (uint64_t)kh_rv64_imm_i_s(&w);
    int shift = f3 == 1 || f3 == 5;
    switch (kh_rv64_op(&w)) {
    case KH_RV64_OP_LUI:
        d->op = R6_LUI;
        d->imm = (uint64_t)(int64_t)(int32_t)((uint32_t)kh_rv64_imm_u(&w) << 12);
        d->alu = R6_PASSB;
        d->wr = 1;
        break;
    case KH_RV64_OP_AUIPC:
        d->op = R6_AUIPC;
        d->imm = (uint64_t)(int64_t)(int32_t)((uint32_t)kh_rv64_imm_u(&w) << 12);
        d->op1_pc = 1;
        d->wr = 1;
        break;
    case KH_RV64_OP_JAL:
        d->op = R6_JAL;
        d->imm = (uint64_t)kh_rv64_imm_j_s(&w) * 2u;
        d->jal = 1;
        d->wr = 1;
        break;
    case KH_RV64_OP_JALR:
        d->op = R6_JALR;
        d->jalr = 1;
        d->wr = 1;
        d->ill = f3 != 0;
        break;
    case KH_RV64_OP_BRANCH:
        d->op = R6_BRANCH;
        d->imm = (uint64_t)kh_rv64_imm_b_s(&w) * 2u;
        d->br = 1;
        d->ill = f3 == 2 || f3 == 3;
        break;
    case KH_RV64_OP_LOAD:
        d->op = R6_LOAD;
        d->ld = 1;
        d->wr = 1;
        d->ill = f3 == 7; /* 3 is LD, 6 LWU */
        break;
    case KH_RV64_OP_STORE:
        d->op = R6_STORE;
        d->imm = (uint64_t)kh_rv64_imm_s_s(&w);
        d->st = 1;
        d->ill = f3 > 3;
        break;
    case KH_RV64_OP_OP_IMM: {
        unsigned f6 = (unsigned)kh_rv64_funct6(&w);
        d->op = R6_ALU;
        d->wr = 1;
        d->alu = (uint8_t)(shift && f3 == 5 && (f7 & 0x20) ? R6_SRA : f3);
        if (shift) d->imm = kh_rv64_shamt(&w);
        d->ill = shift && !(f6 == 0 || (f3 == 5 && f6 == 0x10));
        break;
    }
    case KH_RV64_OP_OP_IMM32:
        d->op = R6_ALU;
        d->wr = 1;
        d->word32 = 1;
        d->alu = (uint8_t)(shift && f3 == 5 && (f7 & 0x20) ? R6_SRA : f3);
        if (shift) d->imm = kh_rv64_shamt_w(&w);
        d->ill = !(f3 == 0 || (shift && (f7 == 0 || (f3 == 5 && f7 == 0x20))));
        break;
    case KH_RV64_OP_OP_REG:
        d->op2_imm = 0;
        d->wr = 1;
        if (f7 == 0x01) {
            d->op = R6_MULDIV;
            d->md = 1;
        } else {
            d->op = R6_ALU;
            d->alu = (uint8_t)((f7 & 0x20) ? (f3 == 0 ? R6_SUB : R6_SRA) : f3);
            d->ill = !(f7 == 0 || (f7 == 0x20 && (f3 == 0 || f3 == 5)));
        }
        break;
    case KH_RV64_OP_OP_REG32:
        d->op2_imm = 0;
        d->wr = 1;
        d->word32 = 1;
        if (f7 == 0x01) {
            d->op = R6_MULDIV;
            d->md = 1;
            d->ill = f3 >= 1 && f3 <= 3; /* no MULHW and friends */
        } else {
            d->op = R6_ALU;
            d->alu = (uint8_t)((f7 & 0x20) ? (f3 == 0 ? R6_SUB : R6_SRA) : f3);
            d->ill = !((f3 == 0 && (f7 == 0 || f7 == 0x20)) || (f3 == 1 && f7 == 0) ||
                       (f3 == 5 && (f7 == 0 || f7 == 0x20)));
        }
        break;
    case KH_RV64_OP_AMO:
        d->op = R6_AMO;
        d->imm = 0; /* the address is rs1 itself */
        d->amo = 1;
        d->wr = 1;
        d->ill = (f3 != 2 && f3 != 3) || !amo_known(d->amo_op);
        break;
    case KH_RV64_OP_MISC_MEM:
        d->op = f3 == 1 ? R6_FENCE_I : R6_FENCE;
        d->fence = 1;
        d->fence_i = f3 == 1;
        d->ill = f3 > 1;
        break;
    case KH_RV64_OP_SYSTEM:
        decode_system(&w, f3, d);
        break;
    default:
        d->ill = 1; /* includes every word whose bits [1:0] are not 11 */
        break;
    }
    if (d->rd == 0) d->wr = 0; /* x0 is never a destination */
    if (d->ill) d->op = R6_ILLEGAL;
}

const char *kh_rv6_op_name(const rv6_insn *d)
{
    static const char *const names[] = {
        [R6_ILLEGAL] = "illegal", [R6_LUI] = "lui", [R6_AUIPC] = "auipc", [R6_JAL] = "jal",
        [R6_JALR] = "jalr", [R6_BRANCH] = "branch", [R6_LOAD] = "load", [R6_STORE] = "store",
        [R6_ALU] = "alu", [R6_MULDIV] = "muldiv", [R6_AMO] = "amo", [R6_FENCE] = "fence",
        [R6_FENCE_I] = "fence.i", [R6_ECALL] = "ecall", [R6_EBREAK] = "ebreak", [R6_MRET] = "mret",
        [R6_SRET] = "sret", [R6_WFI] = "wfi", [R6_SFENCE] = "sfence.vma", [R6_CSR] = "csr",
    };
    return d->op < sizeof names / sizeof names[0] && names[d->op] ? names[d->op] : "?";
}
