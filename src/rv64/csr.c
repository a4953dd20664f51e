/* The CSR file, privilege and trap state (docs/rv64.md §2, §3): only the
 * CSRs the core names, each stored through its WARL mask; the trap's state
 * lands one cycle after the redirect, from registered copies. */
#include "kohaku/gen/rv64.h"
#include "rv64/rv64_int.h"

enum {
    C_SSTATUS = 0x100, C_SIE = 0x104, C_STVEC = 0x105, C_SSCRATCH = 0x140, C_SEPC = 0x141,
    C_SCAUSE = 0x142, C_STVAL = 0x143, C_SIP = 0x144, C_SATP = 0x180,
    C_MSTATUS = 0x300, C_MISA = 0x301, C_MEDELEG = 0x302, C_MIDELEG = 0x303, C_MIE = 0x304,
    C_MTVEC = 0x305, C_MSCRATCH = 0x340, C_MEPC = 0x341, C_MCAUSE = 0x342, C_MTVAL = 0x343,
    C_MIP = 0x344, C_MCYCLE = 0xB00, C_MINSTRET = 0xB02, C_CYCLE = 0xC00, C_TIME = 0xC01,
    C_INSTRET = 0xC02, C_MTIMECMP = 0x7C0,
    C_MVENDORID = 0xF11, C_MARCHID = 0xF12, C_MIMPID = 0xF13, C_MHARTID = 0xF14,
};

/* WARL masks: what each CSR stores (rv64.md §2) */
#define SSTATUS_MASK UINT64_C(0x00000000000C0122)
#define MSTATUS_MASK UINT64_C(0x00000000000C19AA)
#define MIE_MASK UINT64_C(0x0000000000000AAA)
#define MEDELEG_MASK UINT64_C(0x000000000000FFFF)
#define SATP_MASK UINT64_C(0xF00000000FFFFFFF) /* MODE, and a PPN of 40 - 12 bits */
#define CAUSE_MASK UINT64_C(0x800000000000001F)
#define TVEC_MASK (~UINT64_C(3))
#define EPC_MASK (~UINT64_C(1))
#define MISA_VALUE UINT64_C(0x8000000000141101) /* MXL 2; A I M S U */

void kh_rv6_csr_reset(rv6_csr *s)
{
    /* control resets, data (vectors, epc, cause, tval, scratch) keeps its value */
    s->mstatus = s->mie = s->medeleg = s->mideleg = s->satp = 0;
    s->mcycle = s->minstret = s->mtime = 0;
    s->mtimecmp = UINT64_MAX;
    s->mip_msi = 0;
    s->priv = R6_P_M;
    s->mtvec_nz = s->stvec_nz = 0;
    s->timer_irq = 0;
    s->trap_q = s->mret_q = s->sret_q = 0;
}

static uint64_t mip_value(const rv6_csr *s, int irq_ext, int irq_soft)
{
    return (uint64_t)(irq_ext != 0) << 11 | (uint64_t)(s->timer_irq != 0) << 7 |
           (uint64_t)(s->mip_msi || irq_soft) << 3;
}

uint64_t kh_rv6_csr_read(const rv6_csr *s, unsigned addr, int wr_intent, int irq_ext, int irq_soft, int *illegal)
{
    uint64_t v = 0;
    *illegal = 0;
    switch (addr) {
    case C_SSTATUS: v = s->mstatus & SSTATUS_MASK; break;
    case C_SIE: v = s->mie & s->mideleg; break;
    case C_STVEC: v = s->stvec; break;
    case C_SSCRATCH: v = s->sscratch; break;
    case C_SEPC: v = s->sepc; break;
    case C_SCAUSE: v = s->scause; break;
    case C_STVAL: v = s->stval; break;
    case C_SIP: v = mip_value(s, irq_ext, irq_soft) & s->mideleg; break;
    case C_SATP: v = s->satp; break;
    case C_MSTATUS: v = s->mstatus; break;
    case C_MISA: v = MISA_VALUE; break;
    case C_MEDELEG: v = s->medeleg; break;
    case C_MIDELEG: v = s->mideleg; break;
    case C_MIE: v = s->mie; break;
    case C_MTVEC: v = s->mtvec; break;
    case C_MSCRATCH: v = s->mscratch; break;
    case C_MEPC: v = s->mepc; break;
    case C_MCAUSE: v = s->mcause; break;
    case C_MTVAL: v = s->mtval; break;
    case C_MIP: v = mip_value(s, irq_ext, irq_soft); break;
    case C_MCYCLE: case C_CYCLE: v = s->mcycle; break;
    case C_MINSTRET: case C_INSTRET: v = s->minstret; break;
    case C_TIME: v = s->mtime; break;
    case C_MTIMECMP: v = s->mtimecmp; break;
    case C_MVENDORID: case C_MARCHID: case C_MIMPID: case C_MHARTID: v = 0; break;
    default: *illegal = 1; return 0;
    }
    /* addr[9:8]: the lowest level allowed; addr[11:10] = 3: read-only */
    if (s->priv < ((addr >> 8) & 3) || (((addr >> 10) & 3) == 3 && wr_intent)) *illegal = 1;
    return v;
}

void kh_rv6_csr_irq(const rv6_csr *s, int irq_ext, int irq_soft, rv6_irq *out)
{
    uint64_t ms = s->mstatus;
    int m_on = s->priv != R6_P_M || kh_rv64_mstatus_mie(&ms);
    int s_on = s->priv == R6_P_U || (s->priv == R6_P_S && kh_rv64_mstatus_sie(&ms));
    int below_m = s->priv != R6_P_M;
    int d_ext = ((s->mideleg >> 11) & 1) && below_m;
    int d_tmr = ((s->mideleg >> 7) & 1) && below_m;
    int d_soft = ((s->mideleg >> 3) & 1) && below_m;
    int soft = s->mip_msi || irq_soft;
    int p_ext = irq_ext && ((s->mie >> 11) & 1) && (d_ext ? s_on : m_on);
    int p_tmr = s->timer_irq && ((s->mie >> 7) & 1) && (d_tmr ? s_on : m_on);
    int p_soft = soft && ((s->mie >> 3) & 1) && (d_soft ? s_on : m_on);
    const uint64_t irq = UINT64_C(1) << 63;
    out->pending = p_ext || p_soft || p_tmr;
    /* priority: external, software, timer */
    if (p_ext) {
        out->cause = irq | (d_ext ? 9 : 11);
        out->deleg_bit = (s->mideleg >> 11) & 1;
    } else if (p_soft) {
        out->cause = irq | (d_soft ? 1 : 3);
        out->deleg_bit = (s->mideleg >> 3) & 1;
    } else {
        out->cause = irq | (d_tmr ? 5 : 7);
        out->deleg_bit = (s->mideleg >> 7) & 1;
    }
}

static void write_csr(rv6_csr *s, unsigned addr, uint64_t next)
{
    switch (addr) {
    case C_SSTATUS: s->mstatus = (s->mstatus & ~SSTATUS_MASK) | (next & SSTATUS_MASK); break;
    case C_SIE: {
        uint64_t wmask = s->mideleg & MIE_MASK;
        s->mie = (s->mie & ~s->mideleg) | (next & wmask);
        break;
    }
    case C_STVEC: s->stvec = next & TVEC_MASK; break;
    case C_SSCRATCH: s->sscratch = next; break;
    case C_SEPC: s->sepc = next & EPC_MASK; break;
    case C_SCAUSE: s->scause = next & CAUSE_MASK; break;
    case C_STVAL: s->stval = next; break;
    case C_SATP: s->satp = next & SATP_MASK; break;
    case C_MSTATUS: s->mstatus = next & MSTATUS_MASK; break;
    case C_MEDELEG: s->medeleg = next & MEDELEG_MASK; break;
    case C_MIDELEG: s->mideleg = next & MIE_MASK; break;
    case C_MIE: s->mie = next & MIE_MASK; break;
    case C_MTVEC: s->mtvec = next & TVEC_MASK; break;
    case C_MSCRATCH: s->mscratch = next; break;
    case C_MEPC: s->mepc = next & EPC_MASK; break;
    case C_MCAUSE: s->mcause = next & CAUSE_MASK; break;
    case C_MTVAL: s->mtval = next; break;
    case C_MCYCLE: s->mcycle = next; break;
    case C_MINSTRET: s->minstret = next; break;
    case C_MTIMECMP: s->mtimecmp = next; break; /* moving it is the timer's only acknowledge */
    case C_MIP: s->mip_msi = (int)((next >> 3) & 1); break;
    default: break; /* misa and the rest: the write is legal and ignored */
    }
}

void kh_rv6_csr_edge(rv6_csr *s, const rv6_csr_edge *e, int irq_ext, int irq_soft)
{
    /* everything below reads the values as they were during the cycle */
    int old_trap = s->trap_q, old_deleg = s->deleg_q, old_mret = s->mret_q, old_sret = s->sret_q;
    unsigned old_prev = s->prev_q;
    uint64_t pc_q = s->pc_q, cause_q = s->cause_q, val_q = s->val_q;
    uint64_t next = 0;
    int wr_nz = 0;
    if (e->wr_en) {
        int ill;
        uint64_t old = kh_rv6_csr_read(s, e->addr, 0, irq_ext, irq_soft, &ill);
        next = e->op == 1 ? e->wdata : e->op == 2 ? (old | e->wdata) : (old & ~e->wdata);
        wr_nz = (next & TVEC_MASK) != 0;
    }
    int timer = s->mtime >= s->mtimecmp;

    s->trap_q = e->trap;
    s->mret_q = e->mret;
    s->sret_q = e->sret;
    s->deleg_q = e->deleg;
    s->prev_q = s->priv;
    s->pc_q = e->trap_pc;
    s->cause_q = e->trap_cause;
    s->val_q = e->trap_val;
    s->timer_irq = timer;

    s->mcycle++;
    s->mtime++;
    if (e->retire && !(e->wr_en && e->addr == C_MINSTRET)) s->minstret++;

    uint64_t ms = s->mstatus;
    if (old_trap) {
        s->priv = old_deleg ? R6_P_S : R6_P_M;
        if (old_deleg) {
            s->sepc = pc_q & EPC_MASK;
            s->scause = cause_q & CAUSE_MASK;
            s->stval = val_q;
            kh_rv64_mstatus_set_spie(&ms, kh_rv64_mstatus_sie(&ms));
            kh_rv64_mstatus_set_sie(&ms, 0);
            kh_rv64_mstatus_set_spp(&ms, old_prev == R6_P_S);
        } else {
            s->mepc = pc_q & EPC_MASK;
            s->mcause = cause_q & CAUSE_MASK;
            s->mtval = val_q;
            kh_rv64_mstatus_set_mpie(&ms, kh_rv64_mstatus_mie(&ms));
            kh_rv64_mstatus_set_mie(&ms, 0);
            kh_rv64_mstatus_set_mpp(&ms, old_prev);
        }
    } else if (old_mret) {
        s->priv = (unsigned)kh_rv64_mstatus_mpp(&ms);
        kh_rv64_mstatus_set_mie(&ms, kh_rv64_mstatus_mpie(&ms));
        kh_rv64_mstatus_set_mpie(&ms, 1);
        kh_rv64_mstatus_set_mpp(&ms, R6_P_U);
    } else if (old_sret) {
        s->priv = (unsigned)kh_rv64_mstatus_spp(&ms);
        kh_rv64_mstatus_set_sie(&ms, kh_rv64_mstatus_spie(&ms));
        kh_rv64_mstatus_set_spie(&ms, 1);
        kh_rv64_mstatus_set_spp(&ms, 0);
    }
    s->mstatus = ms;
    if (e->wr_en) {
        /* a CSR write in the same cycle replaces what the trap wrote */
        write_csr(s, e->addr, next);
        if (e->addr == C_MTVEC) s->mtvec_nz = wr_nz;
        if (e->addr == C_STVEC) s->stvec_nz = wr_nz;
    }
}
