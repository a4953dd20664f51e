/* The lane timing model behind the wait terms of vector.md §10.1 (w_haz,
 * w_pipe) and the predicate-hazard check of §11.1.
 *
 * An ALU beat issued at b writes back ALAT cycles later; a depth-D chain
 * retires at ALAT·D (§10.1). A register with a pending write holds the
 * first beat of any instruction naming it (w_haz); "lanes empty" is the
 * cycle after the newest write-back (w_pipe). Compares write predicates at
 * write-back with no scoreboard: a predicated beat issued before that write
 * reads stale bits in the RTL; we compute sequentially and warn. */
#include <string.h>

#include "cu/units/vector/vec.h"

void kh_vec_lanes_reset(vec_lanes *l) { memset(l, 0, sizeof *l); }

kh_cycle kh_vec_lanes_haz(const vec_lanes *l, kh_cycle from, const unsigned *regs, unsigned n)
{
    kh_cycle b = from;
    for (unsigned i = 0; i < n; i++)
        if (l->vreg[regs[i] & 15] > b) b = l->vreg[regs[i] & 15];
    return b;
}

void kh_vec_lanes_issue(vec_lanes *l, kh_cycle b0, unsigned nc, unsigned depth, int vd, int pn,
                     unsigned alat)
{
    kh_cycle last = b0;
    for (unsigned ch = 0; ch < nc; ch++) {
        kh_cycle wb = b0 + (kh_cycle)ch * depth + (kh_cycle)alat * depth; /* chunk ch written */
        if (pn >= 0) l->pred[pn][ch] = wb;
        last = wb;
    }
    if (vd >= 0 && l->vreg[vd] < last + 1 + VEC_T_HAZ_CLEAR) l->vreg[vd] = last + 1 + VEC_T_HAZ_CLEAR;
    if (l->idle < last + 1 + VEC_T_LANE_TAIL) l->idle = last + 1 + VEC_T_LANE_TAIL;
}

void kh_vec_hazard_check(vec_core *c, unsigned pn, kh_cycle b0, unsigned depth, unsigned nc,
                      const char *what)
{
    for (unsigned ch = 0; ch < nc; ch++) {
        kh_cycle rd = b0 + (kh_cycle)ch * depth + (depth - 1); /* the beat that writes */
        if (rd > c->lanes.pred[pn][ch]) continue;
        unsigned pc = c->cur_pc;
        uint32_t bit = UINT32_C(1) << (pc & 31);
        if (!(c->hazard_pc_seen[pc >> 5] & bit)) {
            c->hazard_pc_seen[pc >> 5] |= bit;
            c->stats.hazard_warnings++;
            kh_vec_core_log(c, KH_LOG_WARN,
                         "%s at pc %u reads P%u %llu cycle(s) before the compare that writes it "
                         "has written back: the RTL would use the old predicate bits; the "
                         "simulator uses the new ones (vector.md §11.1)",
                         what, pc, pn, (unsigned long long)(c->lanes.pred[pn][ch] - rd + 1));
        }
        return;
    }
}
