/* The orchestrator's control window: register decode for writes (with the
 * strobe rules of control.md §2.1) and reads (§2.2). */
#include <stdio.h>

#include "kohaku/gen/regs.h"
#include "orch/orch_int.h"

/* Byte-merge data into old under the strobes (§2.1). */
static uint64_t merge(uint64_t old, uint64_t data, uint8_t strb)
{
    for (unsigned i = 0; i < 8; i++) {
        if (!(strb >> i & 1)) continue;
        uint64_t m = (uint64_t)0xFF << (8 * i);
        old = (old & ~m) | (data & m);
    }
    return old;
}

/* The 16-bit PROG_* registers take a beat only with a strobe in byte 0 or 1
 * (§2.1). */
static int low_strobe(uint8_t strb) { return (strb & 0x03) != 0; }

static int in_stage(const kh_orch *o, uint32_t off)
{
    return off >= KH_ORCH_STAGE && off < KH_ORCH_STAGE + 8u * o->stage_words;
}

/* The part of a beat that lands at the end of its cycle. */
void kh_orch_land_beat(kh_orch *o, const orch_beat *b)
{
    uint32_t off = b->off;
    if (!b->strb) return; /* no strobe: no effect at all (§2.1) */
    if (off & 7) return;  /* only aligned 64-bit words exist */
    if (in_stage(o, off)) {
        unsigned i = (off - KH_ORCH_STAGE) / 8;
        o->stage[i] = merge(o->stage[i], b->data, b->strb);
        return;
    }
    if (off >= KH_ORCH_TX_FLIT && off < KH_ORCH_TX_FLIT + 40) {
        unsigned k = (off - KH_ORCH_TX_FLIT) / 8;
        o->tx_word[k] = merge(o->tx_word[k], b->data, b->strb);
        return;
    }
    switch (off) {
    case KH_ORCH_CTRL: o->ctrl = merge(o->ctrl, b->data, b->strb); break;
    case KH_ORCH_IRQ_EN: o->irq_en = merge(o->irq_en, b->data, b->strb); break;
    case KH_ORCH_PROG_DST:
        if (low_strobe(b->strb)) {
            uint64_t d = 0;
            kh_orch_prog_dst_set_x(&d, kh_orch_prog_dst_x(&b->data));
            kh_orch_prog_dst_set_y(&d, kh_orch_prog_dst_y(&b->data));
            o->prog_dst = (uint16_t)d;
        }
        break;
    case KH_ORCH_PROG_LEN:
        if (low_strobe(b->strb)) o->prog_len = (uint16_t)b->data;
        break;
    case KH_ORCH_PROG_BASE:
        if (low_strobe(b->strb)) o->prog_base = (uint16_t)b->data;
        break;
    default: break; /* IRQ_STAT is W1C of nothing; RO and unlisted ignore writes */
    }
}

/* AUX_CFG (§2.8): merge with the shadow of the same client address, one
 * full 64-bit client write per strobed beat. */
static void aux_write(kh_orch *o, uint32_t off, uint64_t data, uint8_t strb, kh_cycle now)
{
    unsigned reg = off - KH_ORCH_AUX_CFG; /* offset[7:3] << 3 (§2.8): the caller drops unaligned beats */
    uint64_t base = o->shadow_valid && o->shadow_addr == reg ? o->shadow_val : 0;
    uint64_t value = merge(base, data, strb);
    o->shadow_valid = 1;
    o->shadow_addr = reg;
    o->shadow_val = value;
    if (o->env.aux_write)
        o->env.aux_write(o->env.ctx, reg, value, now);
    else
        kh_comp_log(&o->comp, KH_LOG_WARN, "AUX_CFG write to client register 0x%02x dropped: no client", reg);
}

/* In the beat's own cycle: TX_KICK pushes only if no dispatch runs and TX
 * is not full, RX_POP pops only if RX is not empty, both judged then (the
 * RTL registers the decision with the beat, control.md §2.7). */
void kh_orch_decide_beat(kh_orch *o, orch_beat *b, kh_cycle now)
{
    if (b->off == KH_ORCH_TX_KICK)
        b->ok = !o->run && !kh_fifo_full(&o->tx, now);
    else if (b->off == KH_ORCH_RX_POP)
        b->ok = kh_fifo_head(&o->rx, now) != NULL;
}

/* The part of a beat that acts one cycle after it (§2.1, §2.4-§2.8). TX_KICK
 * is handled by the caller (it needs the start-of-cycle dispatcher state). */
void kh_orch_act_beat(kh_orch *o, const orch_beat *b, kh_cycle now)
{
    uint32_t off = b->off;
    if (!b->strb || (off & 7)) return;
    if (off >= KH_ORCH_AUX_CFG && off < KH_ORCH_AUX_CFG + 0x100) {
        aux_write(o, off, b->data, b->strb, now);
        return;
    }
    switch (off) {
    case KH_ORCH_PROG_KICK: kh_orch_kick(o, now); break;
    case KH_ORCH_PROG_CRED:
        if (low_strobe(b->strb)) {
            orch_cycle *c = kh_orch_cycle(o, now);
            c->seed = 1;
            c->seed_val = (uint16_t)b->data;
        }
        break;
    case KH_ORCH_SIG_DONE: kh_orch_cycle(o, now)->clear = 1; break;
    case KH_ORCH_RX_POP:
        if (b->ok && kh_fifo_head(&o->rx, now)) kh_fifo_pop(&o->rx, now);
        break;
    default: break;
    }
}

uint64_t kh_orch_read(kh_orch *o, uint32_t off, kh_cycle now)
{
    kh_orch_settle(o, now);
    off &= 0xFFFF;
    if (off >= KH_ORCH_SLOT && off < KH_ORCH_SLOT + KH_ORCH_SLOT_SIZE)
        return o->env.slot_read ? o->env.slot_read(o->env.ctx, off - KH_ORCH_SLOT, now) : 0;
    if (off & 7) return 0;
    uint64_t a = off;
    if (kh_orch_node_status_addr_window(&a) == KH_ORCH_NODE_STATUS_ADDR_WINDOW_MIRROR)
        return o->node_status[kh_orch_node_status_addr_idx(&a)]; /* decode uses addr[10:3] (§2.6) */
    if (off >= KH_ORCH_RX_FLIT && off < KH_ORCH_RX_FLIT + 40) {
        const kh_flit *h = kh_fifo_head(&o->rx, now);
        return h ? h->w[(off - KH_ORCH_RX_FLIT) / 8] : 0;
    }
    if (off >= KH_ORCH_AUX_STATW && off < KH_ORCH_AUX_STATW + 0x80) /* the interlink's words (§7.5) */
        return o->env.aux_statw ? o->env.aux_statw(o->env.ctx, (off - KH_ORCH_AUX_STATW) >> 3, now) : 0;
    uint64_t w = 0;
    switch (off) {
    case KH_ORCH_CTRL: return o->ctrl;
    case KH_ORCH_STATUS:
        /* TX "not empty" is the FWFT FIFO's flag: a head is readable. */
        kh_orch_status_set_busy(&w, kh_fifo_head(&o->tx, now) != NULL || o->run);
        kh_orch_status_set_error(&w, 0);
        kh_orch_status_set_mesh_ready(&w, 1);
        return w;
    case KH_ORCH_CAPS:
        kh_orch_caps_set_flit_width(&w, KH_FLIT_BITS);
        kh_orch_caps_set_pos_width(&w, 4);
        kh_orch_caps_set_grid_lo(&w, o->cfg.grid_lo);
        kh_orch_caps_set_grid_hi(&w, o->cfg.grid_hi);
        return w;
    case KH_ORCH_IRQ_EN: return o->irq_en;
    case KH_ORCH_PROG_DST: return o->prog_dst;
    case KH_ORCH_PROG_LEN: return o->prog_len;
    case KH_ORCH_PROG_BASE: return o->prog_base;
    case KH_ORCH_PROG_STAT:
        kh_orch_prog_stat_set_run(&w, (uint64_t)o->run);
        kh_orch_prog_stat_set_left(&w, o->left); /* holds 1 after a run: left is not decremented on the last flit (§2.4) */
        kh_orch_prog_stat_set_credit(&w, o->credit);
        return w;
    case KH_ORCH_PROG_CRED: return o->credit;
    case KH_ORCH_SIG_DONE: return o->sig_done;
    case KH_ORCH_AUX_STAT: return o->env.aux_stat ? o->env.aux_stat(o->env.ctx, now) : 0;
    case KH_ORCH_TX_STATUS: kh_orch_tx_status_set_full(&w, (uint64_t)kh_fifo_full(&o->tx, now)); return w;
    case KH_ORCH_RX_STATUS:
        kh_orch_rx_status_set_empty(&w, kh_fifo_head(&o->rx, now) == NULL);
        kh_orch_rx_status_set_overflow(&w, (uint64_t)o->rx_overflow);
        return w;
    default: return 0; /* IRQ_STAT, write-only registers, TX_FLIT, STAGE, unlisted */
    }
}
