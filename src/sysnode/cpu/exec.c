/* The mover descriptor executor (cpu.md §6): MVGO hands it a scratchpad
 * word index; it reads {n, (offset, lo, hi) x n} through scratchpad port A
 * and writes each pair on the mover's configuration port, the k-th in cycle
 * T + 3 + 6k (T: the MVGO store's MEM cycle), then waits for the move. */
#include "kohaku/gen/mover.h"
#include "kohaku/gen/regs.h"
#include "sysnode/cpu/rv32_int.h"

static int mover_busy(kh_rv32 *r, kh_cycle now)
{
    uint64_t aux = kh_node_aux_stat(r->n, now);
    return (int)kh_orch_aux_stat_mover_busy(&aux);
}

int kh_rv_exec_busy(kh_rv32 *r, kh_cycle now) { return r->ex != EX_IDLE || mover_busy(r, now); }
int kh_rv_exec_reading(const kh_rv32 *r) { return r->ex == EX_WRITES; }

static void no_go(kh_rv32 *r)
{
    r->ex = EX_NO_GO;
    kh_rv_log(r, KH_LOG_WARN,
              "descriptor at scratchpad word %u wrote no GO (register 0x00 bit 16): the executor waits for "
              "the mover forever and the status word stays busy until reset (cpu.md §6.2, Open point 6)",
              r->ex_p);
}

int kh_rv_mvgo(kh_rv32 *r, uint32_t word, kh_cycle t)
{
    if (kh_rv_exec_busy(r, t)) {
        /* Open point 5: the RTL drops it; software must poll status bit 0 */
        r->mvgo_lost++;
        kh_rv_log(r, KH_LOG_WARN,
                  "MVGO of the descriptor at scratchpad word %u while the executor or mover is busy: "
                  "ignored, the move is lost; poll the node status word's bit 0 first (cpu.md §6.2, "
                  "Open point 5)", word & 0x7FF);
        return 0;
    }
    r->ex = EX_WRITES;
    r->ex_t = t;
    r->ex_p = word & 0x7FF; /* a word index, not a byte address (Open point 7) */
    r->ex_n = r->spad[r->ex_p] & 0xFFFF;
    r->ex_k = 1;
    r->ex_go = 0;
    r->collide_logged = 0;
    if (!r->ex_n) no_go(r);
    kh_rv_wake(r, t + 1);
    return 1;
}

kh_cycle kh_rv_exec_next(const kh_rv32 *r, kh_cycle now)
{
    switch (r->ex) {
    case EX_WRITES: return r->ex_t + 3 + 6 * (kh_cycle)r->ex_k;
    case EX_RISE: case EX_FALL: return now + 1;
    default: return KH_NEVER;
    }
}

void kh_rv_exec_step(kh_rv32 *r, kh_cycle now)
{
    if (r->ex == EX_WRITES) {
        while (r->ex == EX_WRITES && now >= r->ex_t + 3 + 6 * (kh_cycle)r->ex_k) {
            unsigned w = r->ex_p + 1 + 3 * (r->ex_k - 1);
            unsigned off = r->spad[w & (RV_SPAD_WORDS - 1)] & 0xFF;
            uint64_t v = r->spad[(w + 1) & (RV_SPAD_WORDS - 1)] |
                         (uint64_t)r->spad[(w + 2) & (RV_SPAD_WORDS - 1)] << 32;
            unsigned reg = off & 0xF8;
            /* as if the host had written AUX_CFG offset `off` (memory.md §11.1) */
            kh_node_mover_write(r->n, reg, v, now);
            if (reg == 0x00 && kh_mover_ctrl_go(&v)) r->ex_go = 1;
            if (r->ex_k++ == r->ex_n) {
                if (r->ex_go) r->ex = EX_RISE;
                else no_go(r);
            }
        }
        return;
    }
    if (r->ex == EX_RISE && mover_busy(r, now)) r->ex = EX_FALL;
    else if (r->ex == EX_FALL && !mover_busy(r, now)) r->ex = EX_IDLE;
}
