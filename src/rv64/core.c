/* The RV64 core, one clock at a time (docs/rv64.md §3, §12): fetch (F and,
 * at fetch_lat 2, F2), D, E; M and W are folded into E because forwarding
 * makes every result usable by the next instruction, so an instruction's
 * architectural effects are applied in the cycle it leaves E. What is kept
 * cycle by cycle is what decides *when*: the two fetch stages and their
 * holds, the load-use and JALR bubbles, E's stalls (multiply/divide, the
 * AMO sequence, a CSR's second cycle, the wrapper's memory stall), the
 * registered redirects, the predictor, and the trap boundary. Each cycle:
 * the bus answers from the register-derived outputs, the cycle's decisions
 * are made from the registers as they are, then everything moves at once. */
#include <stdlib.h>
#include <string.h>

#include "rv64/rv64_int.h"

#define NOP_WORD 0x00000013u /* a fetch that faulted decodes as this (rv64.md §6) */

enum { A_IDLE, A_RD, A_WR, A_FIN };

kh_rv64 *kh_rv64_new(const kh_rv64_config *cfg, const kh_rv64_bus *bus)
{
    kh_rv64 *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->bus = *bus;
    c->fetch_lat = cfg->fetch_lat == 1 ? 1 : 2;
    kh_rv64_reset(c, cfg->reset_pc);
    return c;
}

void kh_rv64_free(kh_rv64 *c) { free(c); }

void kh_rv64_reset(kh_rv64 *c, uint64_t reset_pc)
{
    c->cycle = 0;
    c->pc = reset_pc;
    c->f2_v = 0;
    c->f2_pc = reset_pc;
    c->d_valid = 0;
    c->d_pc = reset_pc;
    c->d_hold_v = 0;
    c->d_word = 0;
    c->d_fault = 0;
    c->imem_stall_q = 1;
    c->d_seen = 0;
    c->redir_pend = 0;
    c->e.valid = 0;
    c->csr_hold = 0;
    c->md_state = MD_IDLE;
    c->md_fired = c->md_done = 0;
    c->md_cnt = 0;
    c->a_state = A_IDLE;
    c->resv_v = 0;
    c->jchk_v = c->jchk_pt = 0;
    c->jchk_tgt = c->jchk_ptgt = c->jchk_pc = 0;
    c->retire_q = 0;
    c->halted = 0;
    c->halt_cause = 0;
    c->halt_pc = 0;
    c->x[0] = 0;
    kh_rv6_csr_reset(&c->csr);
    kh_rv6_bp_reset(&c->bp, c->fetch_lat);
    memset(&c->st, 0, sizeof c->st);
}

void kh_rv64_set_trace(kh_rv64 *c, kh_rv64_trace_fn fn, void *ctx)
{
    c->trace = fn;
    c->trace_ctx = ctx;
}

/* The medeleg bit a trap of this kind would consult (the core's priority
 * chain picks it, rv64.md §3). */
static int deleg_bit(const rv6_csr *cs, unsigned bit) { return (int)((cs->medeleg >> (bit & 63)) & 1); }

void kh_rv64_cycle(kh_rv64 *c)
{
    rv6_e *E = &c->e;
    const rv6_insn *ei = &E->in;
    rv6_csr *cs = &c->csr;
    const int ev = E->valid, halted = c->halted;
    const unsigned priv = cs->priv;

    /* ---- the bus answers from register-derived outputs ---- */
    kh_rv64_early early = {
        .pc = c->pc,
        .dmem_req = ev && !halted && (ei->ld || ei->st || ei->amo),
        .dmem_st = ev && !halted && (ei->st || ei->amo),
        .priv = priv,
        .satp = cs->satp,
        .sum = (int)((cs->mstatus >> 18) & 1),
        .mxr = (int)((cs->mstatus >> 19) & 1),
        .settle = cs->trap_q || cs->mret_q || cs->sret_q,
    };
    kh_rv64_in in = {0};
    c->bus.comb(c->bus.ctx, &early, &in);

    /* ---- D: the word and its decode ---- */
    int dfault;
    uint32_t dword;
    if (c->fetch_lat == 2) {
        dfault = c->d_fault;
        dword = c->d_word;
    } else {
        dfault = c->d_hold_v ? c->d_hold_fault : c->d_fault;
        dword = c->d_hold_v ? c->d_hold : c->d_word;
    }
    rv6_insn D;
    kh_rv6_decode(dfault ? NOP_WORD : dword, &D);

    /* ---- E: operands, stalls ---- */
    const uint64_t a = c->x[ei->rs1], b = c->x[ei->rs2];
    const int amo_active = ev && ei->amo && !halted;
    const uint64_t ea = a + ei->imm;
    const uint64_t eff = amo_active && c->a_state != A_IDLE ? c->a_addr : ea;
    const int misalign = kh_rv6_misaligned(ei->f3, eff);
    const int md_wait = ev && ei->md && !c->md_done;
    const int amo_wait = amo_active && c->a_state != A_FIN;
    const int csr_req = ev && ei->csr_op && !halted;
    const int csr_wait = csr_req && !c->csr_hold;
    const int mem_wait = in.dmem_stall;
    const int stall = md_wait || amo_wait || csr_wait || mem_wait;
    const int go = !halted && !stall;
    const int load_use = ev && ei->ld && ei->rd != 0 && c->d_valid && (D.rs1 == ei->rd || D.rs2 == ei->rd);
    const int jalr_gap = ev && ei->jalr;
    const int bubble = in.imem_stall || load_use || jalr_gap;
    const int fd_go = go && !bubble;

    /* ---- prediction in D, resolution in E ---- */
    int pr_taken;
    uint64_t pr_target;
    kh_rv6_bp_answer(&c->bp, c->d_pc, &pr_taken, &pr_target);
    const int d_predict = c->d_valid && pr_taken && (D.br || D.jal || D.jalr);
    const int d_redir = d_predict && !halted && !c->redir_pend;
    const int taken = ev && ((ei->br && kh_rv6_branch_taken(ei->f3, a, b)) || ei->jal || ei->jalr);
    const uint64_t jalr_tgt = (a + ei->imm) & ~UINT64_C(1);
    const int mispred = ev && (ei->br || ei->jal) && !stall &&
                        (taken != E->pred_t || (taken && E->btgt != E->pred_tgt));
    const int e_redir = mispred && !halted;

    /* ---- traps ---- */
    const int priv_ill = (ei->mret && priv != R6_P_M) || (ei->sret && priv == R6_P_U) ||
                         (ei->sfence && priv == R6_P_U);
    int csr_ill = 0;
    uint64_t csr_rdata = 0;
    if (csr_req) csr_rdata = kh_rv6_csr_read(cs, ei->csr, ei->csr_wr, c->irq_ext_q, c->irq_soft_q, &csr_ill);
    const int ex_ill = ei->ill || (ei->csr_op && csr_ill) || priv_ill;
    rv6_irq irq;
    kh_rv6_csr_irq(cs, c->irq_ext_q, c->irq_soft_q, &irq);
    const int csr_kill = ev && !halted && (ex_ill || irq.pending);
    const int mem_op = ei->ld || ei->st || ei->amo;
    const int ld_mis = ei->ld && misalign;
    const int st_mis = (ei->st || ei->amo) && misalign;
    const int boundary = ev && !halted && !mem_wait && !md_wait && !amo_wait;
    const int pgf = in.dmem_fault && mem_op;
    const int exc_raw = E->ifault || ei->ecall || ei->ebreak || ex_ill || ld_mis || st_mis || pgf;
    const int irq_raw = irq.pending && !exc_raw && !mem_op;
    const unsigned ecall_cause = priv == R6_P_M ? 11 : priv == R6_P_S ? 9 : 8;
    uint64_t cause;
    int dg;
    if (irq_raw) cause = irq.cause, dg = irq.deleg_bit;
    else if (E->ifault) cause = 12, dg = deleg_bit(cs, 12);
    else if (ex_ill) cause = 2, dg = deleg_bit(cs, 2);
    else if (ei->ebreak) cause = 3, dg = deleg_bit(cs, 3);
    else if (ld_mis) cause = 4, dg = deleg_bit(cs, 4);
    else if (st_mis) cause = 6, dg = deleg_bit(cs, 6);
    else if (pgf) cause = in.fault_cause, dg = deleg_bit(cs, in.fault_cause);
    else cause = ecall_cause, dg = deleg_bit(cs, ecall_cause);
    const int deleg = priv != R6_P_M && dg;
    const int handler = deleg ? cs->stvec_nz : cs->mtvec_nz;
    const int trap_take = boundary && handler && (exc_raw || irq_raw);
    const int mret_take = boundary && ei->mret && !trap_take && !priv_ill;
    const int sret_take = boundary && ei->sret && !trap_take && !priv_ill;
    const int fault_halt = !handler && boundary && exc_raw;
    const int trap_redir = trap_take || mret_take || sret_take;
    const uint64_t trap_pc_next = mret_take ? cs->mepc : sret_take ? cs->sepc : deleg ? cs->stvec : cs->mtvec;
    const uint64_t trap_val = E->ifault ? E->pc : (ld_mis || st_mis || pgf) ? c->eff_q : 0;
    const int jmis = c->jchk_v && !halted && (!c->jchk_pt || c->jchk_tgt != c->jchk_ptgt);
    const int e_kill = e_redir || trap_redir || jmis;
    const int take_redir = c->redir_pend || d_redir;
    const uint64_t pc_next = c->redir_pend ? (c->pend_use_pc4 ? c->pend_pc4 : c->pend_pc_a)
                             : d_redir     ? pr_target
                                           : c->pc + 4;

    /* ---- the data port: the cycle's request ---- */
    const int amo_wr = amo_active && c->a_state == A_WR && !misalign;
    uint64_t a_loaded = c->a_old, a_new = 0;
    if (ei->f3 == 2) a_loaded = (uint64_t)(int64_t)(int32_t)(uint32_t)a_loaded;
    if (amo_wr) a_new = kh_rv6_amo_new(ei->amo_op, ei->f3 == 2, c->a_old, c->a_srcq);
    const uint8_t strb = kh_rv6_strobes(ei->f3, eff);
    kh_rv64_late late = {
        .daddr = eff & ~UINT64_C(7),
        .wdata = kh_rv6_replicate(ei->f3, amo_wr ? a_new : b),
        .wstrb = (ev && ei->st && !misalign && !halted && !ei->ill) || amo_wr ? strb : 0,
        .dre = (ev && ei->ld && !misalign) || (amo_active && c->a_state == A_IDLE),
        .fetch_adv = fd_go,
        .sfence = boundary && ei->sfence,
        .fence_i = boundary && ei->fence_i,
    };

    /* ---- reads this cycle finishes (before the wrapper's edge) ---- */
    const int leaves = ev && go;
    const int writes_rd = leaves && !trap_take && !fault_halt && !(in.ext_halt && !halted) && ei->wr;
    uint64_t result = 0;
    if (writes_rd && ei->ld) result = kh_rv6_load_ext(ei->f3, c->bus.read(c->bus.ctx, late.daddr), (unsigned)eff & 7);
    uint64_t a_read = 0;
    const int amo_step = amo_active && !in.dmem_stall;
    if (amo_step && c->a_state == A_RD) a_read = c->bus.read(c->bus.ctx, c->a_addr & ~UINT64_C(7)) >> (8 * (c->a_addr & 7));

    c->bus.edge(c->bus.ctx, &early, &late);

    /* ---- the fetch arrays read at this edge ---- */
    if (c->fetch_lat == 2) {
        if (fd_go) {
            int f;
            uint32_t w = c->bus.fetch(c->bus.ctx, c->pc, &f);
            c->d_word = c->f2_word;
            c->d_fault = c->f2_fault;
            c->f2_word = w;
            c->f2_fault = f;
        }
    }

    /* ---- E's results ---- */
    if (writes_rd) {
        switch (ei->op) {
        case R6_LOAD: break;
        case R6_LUI: result = ei->imm; break;
        case R6_AUIPC: result = E->pc + ei->imm; break;
        case R6_JAL: case R6_JALR: result = E->pc + 4; break;
        case R6_ALU: result = kh_rv6_alu(ei->alu, ei->word32, ei->op1_pc ? E->pc : a, ei->op2_imm ? ei->imm : b); break;
        case R6_MULDIV: result = c->md_y; break;
        case R6_AMO: result = ei->amo_op == 0x02 ? a_loaded : c->a_res; break;
        case R6_CSR: result = csr_rdata; break;
        default: result = 0; break;
        }
        c->x[ei->rd] = result;
    }
    if (c->trace && (leaves || trap_take)) c->trace(c->trace_ctx, c->cycle, E->pc, ei->word, trap_take);

    /* ---- the CSR file ---- */
    rv6_csr_edge ce = {
        .trap = trap_take, .deleg = deleg, .mret = mret_take, .sret = sret_take,
        .trap_pc = E->pc, .trap_cause = cause, .trap_val = trap_val,
        .wr_en = c->csr_hold && ei->csr_wr && !csr_kill,
        .addr = ei->csr, .op = ei->f3 & 3u, .wdata = c->csr_wd,
        .retire = c->retire_q,
    };
    kh_rv6_csr_edge(cs, &ce, c->irq_ext_q, c->irq_soft_q);
    if (csr_req && !c->csr_hold) {
        c->csr_hold = 1;
        c->csr_wd = ei->csr_imm ? ei->rs1 : a;
    } else {
        c->csr_hold = 0;
    }

    /* ---- multiply / divide: started once, 8 or 66 cycles, then a finish ---- */
    const int md_go = ev && ei->md && !c->md_fired && c->md_state == MD_IDLE && !halted;
    const int old_done = c->md_done;
    c->md_done = 0;
    switch (c->md_state) {
    case MD_IDLE:
        if (md_go) {
            c->md_res = kh_rv6_muldiv(ei->f3, ei->word32, a, b);
            c->md_state = (ei->f3 & 4) ? MD_DIV : MD_MUL;
            c->md_cnt = 0;
        }
        break;
    case MD_MUL: /* four operand pairs, then the product pipe drains */
        if (c->md_cnt++ == 5) c->md_state = MD_FIN;
        break;
    case MD_DIV: /* one quotient bit a cycle */
        if (c->md_cnt++ == 63) c->md_state = MD_FIN;
        break;
    default:
        c->md_y = c->md_res;
        c->md_done = 1;
        c->md_state = MD_IDLE;
        break;
    }
    if (old_done) c->md_fired = 0;
    else if (md_go) c->md_fired = 1;

    /* ---- the AMO sequence, advancing only when memory does ---- */
    if (amo_step) {
        switch (c->a_state) {
        case A_IDLE:
            c->a_state = A_RD;
            c->a_addr = ea;
            c->a_srcq = b;
            break;
        case A_RD:
            c->a_old = a_read;
            if (ei->amo_op == 0x02) { /* LR */
                c->resv_v = 1;
                c->resv_a = c->a_addr;
                c->a_state = A_FIN;
            } else if (ei->amo_op == 0x03 && !(c->resv_v && c->resv_a == c->a_addr)) { /* SC fails */
                c->a_res = 1;
                c->resv_v = 0;
                c->a_state = A_FIN;
            } else {
                c->a_state = A_WR;
            }
            break;
        case A_WR:
            c->a_res = ei->amo_op == 0x03 ? 0 : a_loaded;
            c->resv_v = 0;
            c->a_state = A_FIN;
            break;
        default:
            c->a_state = A_IDLE;
            break;
        }
    } else if (!amo_active) {
        c->a_state = A_IDLE;
    }

    /* ---- fetch, D and the pending redirect ---- */
    const int d_word_real = c->fetch_lat == 2 || c->d_hold_v || !c->imem_stall_q;
    const int d_first = c->d_valid && go && !load_use && !c->d_seen && !c->redir_pend && d_word_real;
    rv6_bp_in bp = {
        .q_en = c->fetch_lat == 2 ? fd_go : 1,
        .q_addr = c->pc,
        .p_call = d_first && (D.jal || D.jalr) && (D.rd == 1 || D.rd == 5),
        .p_ret = d_first && D.jalr && D.rd == 0 && (D.rs1 == 1 || D.rs1 == 5),
        .p_link = c->d_pc + 4,
        .u_valid = c->jchk_v || (ev && (ei->br || ei->jal) && !stall),
        .u_pc = c->jchk_v ? c->jchk_pc : E->pc,
        .u_taken = c->jchk_v ? 1 : taken,
        .u_jump = c->jchk_v ? 1 : ei->jal,
        .u_cond = c->jchk_v ? 0 : ei->br,
        .u_target = c->jchk_v ? c->jchk_tgt : E->btgt,
    };
    kh_rv6_bp_edge(&c->bp, &bp);

    if (!c->redir_pend || fd_go) {
        c->pend_pc_a = jmis ? c->jchk_tgt : trap_redir ? trap_pc_next : E->btgt;
        c->pend_pc4 = E->pc4;
        c->pend_use_pc4 = !jmis && !trap_redir && !taken;
    }
    if (go) {
        c->jchk_v = ev && ei->jalr && !trap_take;
        c->jchk_pt = E->pred_t;
        c->jchk_tgt = jalr_tgt;
        c->jchk_ptgt = E->pred_tgt;
        c->jchk_pc = E->pc;
    }

    /* halts, from the instruction in E before it moves */
    if (fault_halt) {
        c->halted = 1;
        c->halt_pc = E->pc;
        c->halt_cause = ei->ecall ? 1 : ei->ebreak ? 2 : 3;
    } else if (in.ext_halt && !halted) {
        c->halted = 1;
        c->halt_pc = E->pc;
        c->halt_cause = 0;
    }

    /* E takes D's instruction (E and ei describe the new one from here) */
    if (go) {
        E->valid = c->d_valid && !e_kill && !c->redir_pend && !bubble;
        E->in = D;
        E->pc = c->d_pc;
        E->btgt = c->d_pc + D.imm;
        E->pc4 = c->d_pc + 4;
        E->pred_t = d_predict;
        E->pred_tgt = pr_target;
        E->ifault = dfault;
    }

    if (fd_go) c->d_seen = 0;
    else if (d_first) c->d_seen = 1;
    if (c->fetch_lat == 2) {
        if (fd_go) {
            int f2v = c->f2_v;
            uint64_t f2pc = c->f2_pc;
            c->f2_v = !take_redir;
            c->f2_pc = c->pc;
            c->d_valid = f2v && !take_redir;
            c->d_pc = f2pc;
            c->pc = pc_next;
            c->redir_pend = e_kill;
        } else if (e_kill && !c->redir_pend) {
            c->redir_pend = 1;
        }
    } else {
        uint64_t fpc = c->pc;
        if (fd_go) {
            c->d_valid = !take_redir;
            c->d_pc = c->pc;
            c->pc = pc_next;
            c->d_hold_v = 0;
            c->redir_pend = e_kill;
        } else {
            if (e_kill && !c->redir_pend) c->redir_pend = 1;
            if ((stall || bubble) && !c->d_hold_v && !c->imem_stall_q) {
                c->d_hold = c->d_word;
                c->d_hold_fault = c->d_fault;
                c->d_hold_v = 1;
            }
        }
        /* the array reads the PC of this cycle every cycle */
        int f;
        c->d_word = c->bus.fetch(c->bus.ctx, fpc, &f);
        c->d_fault = f;
    }
    c->imem_stall_q = in.imem_stall;

    c->irq_ext_q = in.irq_ext;
    c->irq_soft_q = in.irq_soft;
    c->eff_q = eff;
    c->retire_q = ev && !halted && !stall && !trap_take;

    /* statistics */
    if (c->retire_q) c->st.retired++;
    if (trap_take) {
        c->st.traps++;
        if (irq_raw) c->st.interrupts++;
    }
    if (go && !halted) {
        if (in.imem_stall) c->st.fetch_stalls++;
        else if (load_use) c->st.load_use++;
        else if (jalr_gap) c->st.jalr_bubbles++;
    }
    if (e_redir || jmis) c->st.mispredicts++;
    if (d_redir) c->st.d_redirects++;
    if (md_wait) c->st.md_cycles++;
    else if (amo_wait) c->st.amo_cycles++;
    else if (csr_wait) c->st.csr_cycles++;
    else if (mem_wait) c->st.mem_cycles++;
    c->cycle++;
}

void kh_rv64_status_get(const kh_rv64 *c, kh_rv64_status *s)
{
    s->halted = c->halted;
    s->halt_cause = c->halt_cause;
    s->halt_pc = c->halt_pc;
    s->retire_pulse = c->retire_q;
    s->priv = c->csr.priv;
    s->pc_e = c->e.valid ? c->e.pc : c->pc;
}

uint64_t kh_rv64_reg(const kh_rv64 *c, unsigned r) { return r < 32 ? c->x[r] : 0; }

void kh_rv64_set_reg(kh_rv64 *c, unsigned r, uint64_t v)
{
    if (r && r < 32) c->x[r] = v;
}

uint64_t kh_rv64_csr_value(const kh_rv64 *c, unsigned addr)
{
    rv6_csr tmp = c->csr;
    tmp.priv = R6_P_M;
    int ill;
    uint64_t v = kh_rv6_csr_read(&tmp, addr & 0xFFF, 0, c->irq_ext_q, c->irq_soft_q, &ill);
    return ill ? 0 : v;
}

void kh_rv64_stats_get(const kh_rv64 *c, kh_rv64_stats *s) { *s = c->st; }
