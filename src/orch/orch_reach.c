/* Whether the orchestrator can start anything that reaches an interlink
 * (docs/mpi.md "Lane promises"): a flit it pushes with the remote marker
 * goes to the interlink at the first memory port; a CU_INST makes its
 * unit act, and what that unit may then send the caller judges
 * (inst_ok). Without a register write (the host's, which voids a promise,
 * or the engine's, which caps every window while it has an action ahead)
 * the orchestrator pushes only the rest of a running program and the flit
 * it has assembled. Only reads. */
#include "kohaku/gen/cluster.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "orch/orch_int.h"

/* A flit the dispatcher will push to PROG_DST (dst is set at the push;
 * type, rsvd and payload are the RAM's, control.md §2.4). */
static int flit_ok(const kh_orch *o, const kh_flit *f, kh_orch_inst_ok *inst_ok, void *ctx)
{
    if (kh_hdr_rsvd_remote(f->w)) return 0;
    if (kh_hdr_type(f->w) != KH_T_CU_INST) return 1;
    uint64_t d = o->prog_dst;
    return inst_ok(ctx, (unsigned)kh_orch_prog_dst_x(&d), (unsigned)kh_orch_prog_dst_y(&d),
                   kh_cluster_dfin(f->w) != 0);
}

int kh_orch_stays_local(const kh_orch *o, kh_orch_inst_ok *inst_ok, void *ctx)
{
    /* a beat pending may be a kick, a TX_KICK or a PROG_DST write */
    if (o->sent_remote || o->nbeats) return 0;
    /* every CU_INST already sent may still be on its way or queued */
    for (unsigned k = 0; k < ORCH_NODES / 64; k++)
        for (uint64_t b = o->noted[k]; b; b &= b - 1) {
            unsigned idx = k * 64 + (unsigned)__builtin_ctzll(b);
            uint64_t d = idx;
            if (!inst_ok(ctx, (unsigned)kh_orch_prog_dst_x(&d), (unsigned)kh_orch_prog_dst_y(&d),
                         (int)(o->dfin_to[k] >> (idx % 64) & 1)))
                return 0;
        }
    if (o->push_at != KH_NEVER && !flit_ok(o, &o->push_flit, inst_ok, ctx)) return 0;
    if (!o->run) return 1;
    /* the flit being assembled (words [0, word) read already), then the
     * rest of the program: left counts the one being assembled */
    unsigned rd = o->rd, left = o->left;
    kh_flit f = o->asm_flit;
    for (unsigned w = o->word; left; left--, w = 0) {
        for (; w < 5; w++, rd = (rd + 1) % o->ptr_mod) f.w[w] = rd < o->stage_words ? o->stage[rd] : 0;
        if (!flit_ok(o, &f, inst_ok, ctx)) return 0;
    }
    return 1;
}
