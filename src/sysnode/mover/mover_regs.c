/* The mover's register map (memory.md §11.1): write-only 64-bit registers
 * reached through AUX_CFG, each taking effect one cycle after it arrives,
 * with the shared walker-select latch trap; status for AUX_STAT. */
#include <stdio.h>
#include <string.h>

#include "sysnode/fields.h"
#include "sysnode/mover/mover_int.h"

/* Register offsets (memory.md §11.1). */

void kh_mover_regs_reset(kh_mover *m)
{
    /* Reset values (§11.1): mode 0, ewidth 1, flags 0, seed 0, imm 0,
     * idx_base 0, idx_count 0, pitch 0, gwords 1; walkers base 0, ndim 1,
     * counts 0, strides 0, axes 0, bounds 0; XFORM_ID/MODE 0. */
    m->mode = 0;
    m->ewidth = 1;
    m->ctrl = 0;
    kh_walk_desc_reset(&m->walk[0]);
    kh_walk_desc_reset(&m->walk[1]);
    m->xform_id = m->xform_mode = 0;
    m->lsel = m->ldim = 0;
    m->lcount = 0;
    m->lstride = 0;
    m->idx_base = 0;
    m->idx_count = 0;
    m->seed = 0;
    m->imm = 0;
    m->pitch = 0;
    m->gwords = 1;
}

int kh_mover_write(kh_mover *m, unsigned reg, uint64_t value, kh_cycle now)
{
    if (reg >= KH_MOVER_REG_LIMIT) return -1;
    mv_regw w = {reg & 0xF8, value, now + 1}; /* register = offset & 0xF8 */
    if (kh_ring_push(&m->regw, &w)) return -1;
    kh_comp_wake(&m->c, now + 1);
    return 0;
}

static void apply(kh_mover *m, const mv_regw *w, kh_cycle now)
{
    uint64_t v = w->value;
    if (m->running && w->reg != KH_MOVER_REG_CTRL)
        kh_comp_log(&m->c, KH_LOG_WARN,
                    "register 0x%02x written while a move runs: applied at once, the walk may "
                    "change under it (memory.md Open point 12)", w->reg);
    switch (w->reg) {
    case KH_MOVER_REG_CTRL:
        if (m->running && km_ctrl_go(v)) {
            kh_comp_log(&m->c, KH_LOG_INFO, "GO while busy: ignored (memory.md §11.1)");
            return;
        }
        m->mode = km_ctrl_mode(v);
        m->ewidth = km_ctrl_ewidth(v);
        m->ctrl = v;
        if (km_ctrl_go(v)) kh_mover_go(m, now);
        break;
    case KH_MOVER_REG_HDR: {
        unsigned sel = km_hdr_sel(v);
        m->lsel = sel;
        m->walk[sel].base = km_hdr_base(v);
        m->walk[sel].ndim = km_hdr_ndim(v);
        if (sel == 0) { /* source header also carries the transform selection */
            m->xform_id = km_hdr_xform_id(v);
            m->xform_mode = km_hdr_xform_mode(v);
        }
        break;
    }
    case KH_MOVER_REG_DIM:
        m->lsel = km_dim_sel(v);
        m->ldim = km_dim_dim(v);
        m->lcount = (uint16_t)km_dim_count(v);
        m->lstride = km_dim_stride(v);
        break;
    case KH_MOVER_REG_AXIS:
        /* Commits dimension ldim of walker lsel: lsel is whatever 0x10, 0x18
         * or 0x28 wrote last (the trap of §11.1). */
        if (m->ldim >= KH_WALK_DIMS) {
            kh_comp_log(&m->c, KH_LOG_WARN, "0x20 commit of dimension %u: only 0-5 exist, ignored", m->ldim);
            break;
        }
        {
            kh_walk_dim *d = &m->walk[m->lsel].dim[m->ldim];
            d->count = m->lcount;
            d->stride = m->lstride;
            d->axis = (uint8_t)km_axis_axis(v);
            d->astep = km_axis_astep(v);
        }
        break;
    case KH_MOVER_REG_BOUND: {
        unsigned sel = km_bound_sel(v);
        m->lsel = sel;
        kh_walk_bound *b = &m->walk[sel].bound[km_bound_ax(v)];
        b->base = km_bound_abase(v);
        b->ext = (uint16_t)km_bound_aext(v);
        break;
    }
    case KH_MOVER_REG_IDX:
        m->idx_base = km_idx_base(v);
        m->idx_count = km_idx_count(v);
        break;
    case KH_MOVER_REG_SEED: m->seed = km_seed(v); break;
    case KH_MOVER_REG_IMM: m->imm = km_imm(v); break;
    case KH_MOVER_REG_GATHER:
        m->pitch = km_gather_pitch(v);
        m->gwords = km_gather_gwords(v);
        break;
    default: break; /* 0x08, 0x48, 0x58-0x78: unused */
    }
}

void kh_mover_apply_writes(kh_mover *m, kh_cycle now)
{
    const mv_regw *w;
    while ((w = kh_ring_at(&m->regw, 0)) && w->at <= now) {
        mv_regw copy = *w;
        kh_ring_pop(&m->regw);
        apply(m, &copy, now);
        m->progressed = 1;
    }
}

void kh_mover_set_status(kh_mover *m, kh_cycle now, int running, unsigned fault, uint32_t done)
{
    if (m->chg_cycle != now) { /* readers in this cycle still see the state it began with */
        m->chg_cycle = now;
        m->old_running = m->running;
        m->old_fault = m->fault;
        m->old_done = m->done;
    }
    m->running = running;
    m->fault = fault;
    m->done = done;
}

void kh_mover_status(kh_mover *m, kh_cycle now, unsigned *busy, unsigned *fault, uint32_t *done)
{
    int running = m->chg_cycle == now ? m->old_running : m->running;
    *fault = m->chg_cycle == now ? m->old_fault : m->fault;
    *done = m->chg_cycle == now ? m->old_done : m->done;
    /* busy from the GO write on (§11.1): a GO still on its way counts */
    int go_pending = 0;
    for (size_t i = 0; i < kh_ring_count(&m->regw); i++) {
        const mv_regw *w = kh_ring_at(&m->regw, i);
        if (w->reg == KH_MOVER_REG_CTRL && km_ctrl_go(w->value)) go_pending = 1;
    }
    *busy = running || go_pending;
}
