/* The RV32I core: one instruction reaches EX per step, and the cycle the
 * next one reaches EX follows the costs of cpu.md §9.1 (load-use stalls,
 * the branch predictor of §9.2 with its 3-cycle redirect, the multiply's
 * 3 stall cycles, memory stalls in MEM). Halts as §3 says. */
#include "sysnode/cpu/rv32_int.h"

void kh_rv_btb_reset(kh_rv32 *r)
{
    for (unsigned i = 0; i < RV_BTB; i++) r->btb[i] = (rv_btb_entry){.valid = 0, .ctr = 1};
    r->nbtbw = 0;
}

/* BTB writes made before a fetch in cycle f are visible to it. */
static void btb_settle(kh_rv32 *r, kh_cycle f)
{
    unsigned k = 0;
    for (unsigned i = 0; i < r->nbtbw; i++) {
        if (r->btbw[i].vis <= f) r->btb[r->btbw[i].idx] = r->btbw[i].e;
        else r->btbw[k++] = r->btbw[i];
    }
    r->nbtbw = k;
}

/* §9.2: written one cycle after EX with valid, tag, target and the counter
 * (jumps 3; branches +1 / -1 saturating from the entry's previous counter,
 * whatever its tag). */
static void btb_train(kh_rv32 *r, uint32_t pc, int jump, int taken, uint32_t target, kh_cycle e)
{
    if (r->nbtbw == sizeof r->btbw / sizeof r->btbw[0]) btb_settle(r, r->btbw[0].vis);
    unsigned idx = (pc >> 2) & (RV_BTB - 1);
    unsigned prev = r->btb[idx].ctr;
    for (unsigned i = 0; i < r->nbtbw; i++)
        if (r->btbw[i].idx == idx) prev = r->btbw[i].e.ctr; /* the latest write wins */
    unsigned ctr = jump ? 3 : taken ? (prev < 3 ? prev + 1 : 3) : (prev > 0 ? prev - 1 : 0);
    rv_btb_write *w = &r->btbw[r->nbtbw++];
    w->vis = e + 2;
    w->idx = idx;
    w->e = (rv_btb_entry){.valid = 1, .ctr = (uint8_t)ctr, .tag = (uint8_t)(pc >> 7), .target = target & ~1u};
}

void kh_rv_kick(kh_rv32 *r, uint32_t pc, uint32_t arg, kh_cycle now)
{
    /* §8.2: counters and cause clear at the start pulse; general registers keep their values */
    r->start = now;
    r->t_ex = now + 3; /* first instruction in IF2 at A+3, in EX at A+5 (§9.4) */
    r->pc = pc;
    r->arg = arg;
    r->run = 1;
    r->halted = 0;
    r->cause = 0;
    r->instret = 0;
    r->cycles = 0;
    r->wait = RW_NONE;
    for (unsigned i = 0; i < 32; i++) r->ready[i] = 0;
    kh_rv_wake(r, r->t_ex);
}

static void set_rd(kh_rv32 *r, unsigned rd, uint32_t v, kh_cycle ready)
{
    if (!rd) return; /* x0 writes are discarded */
    r->x[rd] = v;
    r->ready[rd] = ready;
}

static void halt(kh_rv32 *r, unsigned cause, uint32_t word, kh_cycle e)
{
    r->run = 0;
    r->halted = 1;
    r->cause = cause;
    r->halt_word = word;
    r->instret++; /* the halting instruction counts as retired (§3) */
    r->retired_total++;
    r->cycles = (uint32_t)(e - r->start);
    r->halt_ex = e;
    r->drain_from = e + 3; /* through MEM and WB: the pipeline is empty from e + 3 */
    unsigned dirty = kh_rv_l1_dirty(r);
    if (dirty && cause == 1) {
        /* cpu.md Open point 8: completion does not flush */
        r->dirty_at_halt++;
        kh_rv_log(r, KH_LOG_WARN,
                  "halted by ECALL with %u dirty L1 lines: their data is not in DRAM; store to CTL_FLUSH "
                  "(0x20000004) before ECALL (cpu.md §5.2, Open point 8)", dirty);
    }
    kh_rv_wake(r, r->drain_from);
}

static uint32_t alu(rv_op op, uint32_t a, uint32_t b)
{
    switch (op) {
    case RV_ADD: case RV_ADDI: return a + b;
    case RV_SUB: return a - b;
    case RV_SLL: case RV_SLLI: return a << (b & 31);
    case RV_SRL: case RV_SRLI: return a >> (b & 31);
    case RV_SRA: case RV_SRAI: /* arithmetic shift without relying on signed >> */
        return (b & 31) ? (a >> (b & 31)) | ((a >> 31) ? ~(UINT32_MAX >> (b & 31)) : 0) : a;
    case RV_SLT: case RV_SLTI: return (int32_t)a < (int32_t)b;
    case RV_SLTU: case RV_SLTIU: return a < b;
    case RV_XOR: case RV_XORI: return a ^ b;
    case RV_OR: case RV_ORI: return a | b;
    case RV_AND: case RV_ANDI: return a & b;
    case RV_MUL: return (uint32_t)((uint64_t)a * b);
    case RV_MULH: return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int64_t)(int32_t)b) >> 32);
    case RV_MULHSU: return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int64_t)(uint64_t)b) >> 32);
    case RV_MULHU: return (uint32_t)(((uint64_t)a * b) >> 32);
    default: return 0;
    }
}

static int branch_taken(rv_op op, uint32_t a, uint32_t b)
{
    switch (op) {
    case RV_BEQ: return a == b;
    case RV_BNE: return a != b;
    case RV_BLT: return (int32_t)a < (int32_t)b;
    case RV_BGE: return (int32_t)a >= (int32_t)b;
    case RV_BLTU: return a < b;
    default: return a >= b; /* BGEU */
    }
}

static void warn_fetch(kh_rv32 *r, uint32_t pc)
{
    /* cpu.md §2.2, Open point 14: fetch uses PC[12:2] only */
    if (pc >= KH_RV32_IMEM_BYTES && !r->warned_alias) {
        r->warned_alias = 1;
        kh_rv_log(r, KH_LOG_WARN,
                  "fetch at pc 0x%08x beyond the 8 KiB instruction memory: it aliases word 0x%03x "
                  "(cpu.md §2.2, Open point 14)", pc, (pc >> 2) & (RV_IMEM_WORDS - 1));
    }
    if ((pc & 2) && !r->warned_bit1) {
        r->warned_bit1 = 1;
        kh_rv_log(r, KH_LOG_WARN,
                  "fetch at pc 0x%08x with bit 1 set executes the aligned word below; there is no "
                  "misaligned-fetch check (cpu.md §2.2, Open point 14)", pc);
    }
}

void kh_rv_core_step(kh_rv32 *r, kh_cycle now)
{
    if (!r->run || r->wait != RW_NONE || now < r->t_ex) return;
    kh_cycle e = now;
    uint32_t pc = r->pc;
    if (pc >= KH_RV32_IMEM_BYTES || (pc & 2)) warn_fetch(r, pc);
    uint32_t word = r->imem[(pc >> 2) & (RV_IMEM_WORDS - 1)];
    rv_insn in = kh_rv_decode(word, (int)r->p->l_rv32_mul);
    /* load-use: IF/ID freeze, a bubble in EX (§9.1) */
    kh_cycle need = e;
    if (in.use_rs1 && r->ready[in.rs1] > need) need = r->ready[in.rs1];
    if (in.use_rs2 && r->ready[in.rs2] > need) need = r->ready[in.rs2];
    if (need > e) {
        r->stall_load += need - e;
        r->t_ex = need;
        kh_rv_wake(r, need);
        return;
    }
    /* the predictor was looked up with the fetch address (IF1, three cycles before EX) */
    kh_cycle fetch = e >= 3 ? e - 3 : 0;
    btb_settle(r, fetch);
    const rv_btb_entry *b = &r->btb[(pc >> 2) & (RV_BTB - 1)];
    int pred = fetch >= RV_BTB && b->valid && b->tag == (uint8_t)(pc >> 7) && (b->ctr & 2);
    uint32_t pred_target = b->target;

    if (in.op == RV_ILLEGAL) {
        halt(r, 3, pc, e);
        return;
    }
    r->op_count[in.op]++;
    uint32_t a = r->x[in.rs1], bv = r->x[in.rs2];
    uint32_t next_pc = pc + 4, target = 0;
    int cti = 0, taken = 0;
    kh_cycle nxt = e + 1;
    switch (in.op) {
    case RV_LUI: set_rd(r, in.rd, in.imm, 0); break;
    case RV_AUIPC: set_rd(r, in.rd, pc + in.imm, 0); break;
    case RV_JAL:
    case RV_JALR:
        cti = taken = 1;
        target = in.op == RV_JAL ? pc + in.imm : (a + in.imm) & ~1u;
        set_rd(r, in.rd, pc + 4, 0);
        break;
    case RV_BEQ: case RV_BNE: case RV_BLT: case RV_BGE: case RV_BLTU: case RV_BGEU:
        cti = 1;
        taken = branch_taken(in.op, a, bv);
        target = pc + in.imm;
        break;
    case RV_LB: case RV_LH: case RV_LW: case RV_LBU: case RV_LHU: {
        uint32_t addr = a + in.imm, v = 0;
        if (kh_rv_mem_fault(in.op, addr)) {
            halt(r, 3, pc, e); /* the faulting load does not write rd */
            return;
        }
        int rc = kh_rv_load(r, in.op, addr, &v, e);
        if (rc < 0) {
            halt(r, 3, pc, e);
            return;
        }
        if (rc == 0) r->wait_rd = in.rd;
        else set_rd(r, in.rd, v, e + 3); /* data in WB at e + 2: the next instruction waits 2 */
        break;
    }
    case RV_SB: case RV_SH: case RV_SW: {
        uint32_t addr = a + in.imm;
        if (kh_rv_mem_fault(in.op, addr) || kh_rv_store(r, in.op, addr, bv, e) < 0) {
            halt(r, 3, pc, e); /* nothing is written */
            return;
        }
        break;
    }
    case RV_FENCE: break; /* FENCE and FENCE.I are no-ops (§2.1) */
    case RV_ECALL: halt(r, 1, r->x[10], e); return;
    case RV_EBREAK: halt(r, 2, r->x[10], e); return;
    case RV_MUL: case RV_MULH: case RV_MULHSU: case RV_MULHU:
        set_rd(r, in.rd, alu(in.op, a, bv), 0);
        nxt = e + 4; /* EX held 3 cycles, MEM bubbled (§9.1, profile L) */
        break;
    default: {
        int imm_form = in.op >= RV_ADDI && in.op <= RV_SRAI;
        set_rd(r, in.rd, alu(in.op, a, imm_form ? in.imm : bv), 0);
        break;
    }
    }
    r->instret++;
    r->retired_total++;
    if (taken) next_pc = target;
    if (cti) {
        if (taken != pred || (taken && pred_target != (target & ~1u))) {
            nxt = e + 4; /* the redirect is registered one cycle after EX */
            r->mispredicts++;
            r->stall_branch += 3;
        }
        btb_train(r, pc, in.op == RV_JAL || in.op == RV_JALR, taken, target, e);
    } else if (pred) {
        nxt = e + 4; /* a non-branch that hits a trained entry: mispredict, no retrain */
        r->mispredicts++;
        r->stall_branch += 3;
    }
    r->pc = next_pc;
    if (r->wait != RW_NONE) {
        r->wait_e = e;
        r->wait_next = nxt;
        r->wait_op = in.op;
        kh_rv_wake(r, e + 1);
        return;
    }
    r->t_ex = nxt;
    kh_rv_wake(r, nxt);
}
