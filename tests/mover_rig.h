/* Register-level helpers for mover tests: each builds one register word
 * with the generated setters and writes it through AUX_CFG. */
#ifndef KH_TEST_MOVER_RIG_H
#define KH_TEST_MOVER_RIG_H

#include "kohaku/gen/regs.h"
#include "node_rig.h"

static inline void mv_w(rig *r, unsigned reg, uint64_t v)
{
    CHECK_EQ(kh_node_mover_write(r->n, reg, v, kh_sim_now(r->sim)), 0);
}

static inline void mv_hdr(rig *r, unsigned sel, uint64_t base, unsigned ndim, unsigned xid, unsigned xmode)
{
    uint64_t v = 0;
    kh_mover_hdr_set_sel(&v, sel);
    kh_mover_hdr_set_base(&v, base);
    kh_mover_hdr_set_ndim(&v, ndim);
    kh_mover_hdr_set_xform_id(&v, xid);
    kh_mover_hdr_set_xform_mode(&v, xmode);
    mv_w(r, 0x10, v);
}

/* 0x18 then 0x20: commit dimension d of walker sel. */
static inline void mv_dim(rig *r, unsigned sel, unsigned d, unsigned count, int32_t stride, unsigned axis, int astep)
{
    uint64_t v = 0, a = 0;
    kh_mover_dim_set_sel(&v, sel);
    kh_mover_dim_set_dim(&v, d);
    kh_mover_dim_set_count(&v, count);
    kh_mover_dim_set_stride(&v, (uint32_t)stride);
    mv_w(r, 0x18, v);
    kh_mover_axis_set_axis(&a, axis);
    kh_mover_axis_set_astep(&a, (uint16_t)astep);
    mv_w(r, 0x20, a);
}

static inline void mv_bound(rig *r, unsigned sel, unsigned ax, int base, unsigned ext)
{
    uint64_t v = 0;
    kh_mover_bound_set_sel(&v, sel);
    kh_mover_bound_set_ax(&v, ax);
    kh_mover_bound_set_abase(&v, (uint16_t)base);
    kh_mover_bound_set_aext(&v, ext);
    mv_w(r, 0x28, v);
}

static inline void mv_go(rig *r, unsigned mode, unsigned ewidth, unsigned coalesce, unsigned cap)
{
    uint64_t v = 0;
    kh_mover_ctrl_set_mode(&v, mode);
    kh_mover_ctrl_set_ewidth(&v, ewidth);
    kh_mover_ctrl_set_coalesce(&v, coalesce);
    kh_mover_ctrl_set_burst_cap(&v, cap);
    kh_mover_ctrl_set_go(&v, 1);
    mv_w(r, 0x00, v);
}

static inline void mv_imm(rig *r, uint32_t imm)
{
    uint64_t v = 0;
    kh_mover_imm_set_imm(&v, imm);
    mv_w(r, 0x40, v);
}

static inline void mv_seed(rig *r, uint64_t seed)
{
    uint64_t v = 0;
    kh_mover_seed_set_seed(&v, seed);
    mv_w(r, 0x38, v);
}

static inline void mv_idx(rig *r, uint64_t base, unsigned count)
{
    uint64_t v = 0;
    kh_mover_idx_set_idx_base(&v, base);
    kh_mover_idx_set_idx_count(&v, count);
    mv_w(r, 0x30, v);
}

static inline void mv_gather(rig *r, uint32_t pitch, unsigned gwords)
{
    uint64_t v = 0;
    kh_mover_gather_set_pitch(&v, pitch);
    kh_mover_gather_set_gwords(&v, gwords);
    mv_w(r, 0x50, v);
}

/* AUX_STAT fields (control.md §2.8) through the generated accessors. */
static inline unsigned aux_busy(rig *r) { uint64_t s = kh_node_aux_stat(r->n, kh_sim_now(r->sim)); return (unsigned)kh_orch_aux_stat_mover_busy(&s); }
static inline unsigned aux_fault(rig *r) { uint64_t s = kh_node_aux_stat(r->n, kh_sim_now(r->sim)); return (unsigned)kh_orch_aux_stat_mover_fault(&s); }
static inline unsigned aux_moves(rig *r) { uint64_t s = kh_node_aux_stat(r->n, kh_sim_now(r->sim)); return (unsigned)kh_orch_aux_stat_moves(&s); }

/* A counter from the mover's --stats object. */
static inline unsigned long long mover_stat(rig *r, const char *key)
{
    for (unsigned i = 0; i < kh_sim_ncomps(r->sim); i++) {
        kh_comp *c = kh_sim_comp(r->sim, i);
        if (strcmp(c->ops->kind, "mover")) continue;
        char buf[512], pat[64];
        c->ops->stats_json(c, buf, sizeof buf);
        snprintf(pat, sizeof pat, "\"%s\": ", key);
        const char *p = strstr(buf, pat);
        return p ? strtoull(p + strlen(pat), NULL, 10) : ~0ull;
    }
    return ~0ull;
}

#endif
