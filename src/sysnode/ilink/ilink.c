/* The interlink component (control.md §7): registers and status words
 * (§7.5), the order of one cycle, the hang report and statistics. What
 * leaves is in ilink_out.c, the links in ilink_switch.c, what arrives in
 * ilink_in.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysnode/fields.h"
#include "sysnode/ilink/ilink_int.h"

kh_ilink *kh_node_ilink(const kh_node *n) { return n->ilink; }

void kh_ilink_raise(kh_ilink *il, uint8_t bits, kh_cycle now)
{
    (void)now;
    il->st.fault |= bits;
}

/* A fault seen by another component (a port's bad_remote_req) in cycle now:
 * the sticky register holds it from now + 1, whatever the step order. */
void kh_node_ilink_fault(kh_node *n, unsigned bits, kh_cycle now)
{
    kh_ilink *il = n->ilink;
    if (!il) return;
    il->fault_ext |= (uint8_t)bits;
    il->fault_ext_at = now;
    kh_comp_wake(&il->c, now + 1);
}

/* ---- registers (§7.5) ---- */

int kh_ilink_write(kh_ilink *il, unsigned reg, uint64_t value, kh_cycle now)
{
    reg &= 0xF8;
    if (reg != KH_ILINK_REG_CTRL && reg != KH_ILINK_REG_MESH && reg != KH_ILINK_REG_RING) {
        if (!il->warned_reg) {
            il->warned_reg = 1;
            kh_comp_log(&il->c, KH_LOG_WARN,
                        "AUX_CFG write to interlink register 0x%02x ignored: profile S has 0x80, 0x88 and "
                        "0x90 only (control.md §7.5; warned once)", reg);
        }
        return -1;
    }
    if (now < il->entry_min) il->entry_min = now;
    il_regw w = {reg, value, now + 1};
    if (kh_ring_push(&il->regw, &w)) return -1;
    kh_comp_wake(&il->c, now + 1);
    return 0;
}

static void apply_reg(kh_ilink *il, const il_regw *w)
{
    uint64_t v = w->value;
    switch (w->reg) {
    case KH_ILINK_REG_CTRL:
        il->st.enable = (unsigned)kh_ilink_ctrl_enable(&v);
        if (kh_ilink_ctrl_clr_dbell(&v)) {
            memset(il->st.drx, 0, sizeof il->st.drx);
            memset(il->st.dtag, 0, sizeof il->st.dtag);
        }
        if (kh_ilink_ctrl_clr_fault(&v)) {
            il->st.fault = 0;
            if (il->fault_ext_at < w->at) il->fault_ext = 0; /* raised before the clear */
        }
        break;
    case KH_ILINK_REG_MESH: il->st.mesh = (unsigned)kh_ilink_mesh_id(&v); break;
    default: {
        /* 0x90: ring mesh [1:0] with tag [15:8] (§7.4) */
        il_ring r = {(unsigned)kh_ilink_ring_dst(&v), (unsigned)kh_ilink_ring_tag(&v), w->at};
        if (kh_ring_count(&il->rings) >= IL_DQ_DEPTH) {
            il->counts.rings_dropped++;
            kh_comp_log(&il->c, KH_LOG_WARN,
                        "doorbell to mesh %u (tag 0x%02x) dropped: %u rings already queued (profile S has no "
                        "RING fault; ring again after the counters move, control.md §7.4)",
                        r.dst, r.tag, IL_DQ_DEPTH);
        } else {
            kh_ring_push(&il->rings, &r);
        }
        break;
    }
    }
    il->progressed = 1;
}

/* Apply register writes due by now (also from a read between cycles: a
 * write acts from its cycle on whatever the step order). */
static void settle(kh_ilink *il, kh_cycle now)
{
    const il_regw *w;
    while ((w = kh_ring_at(&il->regw, 0)) && w->at <= now) {
        apply_reg(il, w);
        kh_ring_pop(&il->regw);
    }
    if (il->fault_ext && il->fault_ext_at < now) {
        il->st.fault |= il->fault_ext;
        il->fault_ext = 0;
    }
}

unsigned kh_ilink_live_id(kh_ilink *il, kh_cycle now)
{
    settle(il, now);
    return il->st_cycle == now ? il->old.mesh : il->st.mesh;
}

int kh_ilink_enabled(kh_ilink *il, kh_cycle now)
{
    settle(il, now);
    return (int)(il->st_cycle == now ? il->old.enable : il->st.enable);
}

/* ---- status words (§7.5) ---- */

static uint64_t count_word(uint32_t pkts, uint32_t beats)
{
    uint64_t w = 0;
    kh_ilink_count_set_packets(&w, pkts);
    kh_ilink_count_set_beats(&w, beats);
    return w;
}

static uint64_t total_word(uint64_t n)
{
    uint64_t w = 0;
    kh_ilink_total_set_count(&w, n & 0xFFFFFFFFu);
    return w;
}

static uint64_t status_word(kh_ilink *il, const il_status *s, unsigned k, kh_cycle now)
{
    uint64_t w = 0;
    const il_link *l0 = &il->link[0], *l1 = &il->link[1];
    switch (k) {
    case KH_ILINK_STAT_CAP:
        if (!s->enable) return 0; /* 0 while disabled */
        kh_ilink_cap_set_magic(&w, 0x494C);
        kh_ilink_cap_set_version(&w, 2);
        kh_ilink_cap_set_mesh_id(&w, s->mesh);
        kh_ilink_cap_set_max_mesh(&w, 4);
        kh_ilink_cap_set_links(&w, 1);
        return w;
    case KH_ILINK_STAT_FAULT:
        kh_ilink_fault_set_rd_remote(&w, !!(s->fault & KH_ILINK_F_RD_REMOTE));
        kh_ilink_fault_set_ack0(&w, !!(s->fault & KH_ILINK_F_ACK0));
        kh_ilink_fault_set_switch(&w, !!(s->fault & KH_ILINK_F_SWITCH));
        kh_ilink_fault_set_axi(&w, !!(s->fault & KH_ILINK_F_AXI));
        kh_ilink_fault_set_inj(&w, !!(s->fault & KH_ILINK_F_INJ));
        return w;
    case 2: case 3: case 4: case 5: {
        unsigned m = k - KH_ILINK_STAT_DBELL;
        kh_ilink_dbell_set_received(&w, s->drx[m] & 0xFFFF);
        kh_ilink_dbell_set_sent(&w, s->dtx[m] & 0xFFFF);
        kh_ilink_dbell_set_tag(&w, s->dtag[m]);
        return w;
    }
    case KH_ILINK_STAT_L0_TX: return count_word(l0->tx_pkts, l0->tx_beats);
    case KH_ILINK_STAT_L0_RX: return count_word(l0->rx_pkts, l0->rx_beats);
    case KH_ILINK_STAT_L1_TX: return count_word(l1->tx_pkts, l1->tx_beats);
    case KH_ILINK_STAT_L1_RX: return count_word(l1->rx_pkts, l1->rx_beats);
    case KH_ILINK_STAT_L0_STALL:
    case KH_ILINK_STAT_L1_STALL: {
        const il_link *l = &il->link[k - KH_ILINK_STAT_L0_STALL];
        uint64_t stalled = kh_ilink_stalled(il, k - KH_ILINK_STAT_L0_STALL, now);
        /* every cycle either sends a flit, waits for a credit, or has nothing to send */
        uint64_t idle = now > l->tx_flits + stalled ? now - l->tx_flits - stalled : 0;
        kh_ilink_stall_set_stalled(&w, stalled & 0xFFFFFFFFu);
        kh_ilink_stall_set_idle(&w, idle & 0xFFFFFFFFu);
        return w;
    }
    case KH_ILINK_STAT_FWD: {
        uint64_t blk = il->fwd_blocked + (il->fwd_since != KH_NEVER ? now - il->fwd_since : 0);
        kh_ilink_fwd_set_packets(&w, il->fwd_pkts & 0xFFFFFFFFu);
        kh_ilink_fwd_set_blocked(&w, blk & 0xFFFFFFFFu);
        return w;
    }
    case KH_ILINK_STAT_CREDIT:
        if (l0->out) {
            kh_ilink_credit_set_l0_c0(&w, l0->out->credit[0]);
            kh_ilink_credit_set_l0_c1(&w, l0->out->credit[1]);
        }
        if (l1->out) {
            kh_ilink_credit_set_l1_c0(&w, l1->out->credit[0]);
            kh_ilink_credit_set_l1_c1(&w, l1->out->credit[1]);
        }
        return w;
    case KH_ILINK_STAT_SENT: return total_word(s->door_sent);
    default: return total_word(il->lblock + (il->lblock_since != KH_NEVER ? now - il->lblock_since : 0));
    }
}

uint64_t kh_ilink_read(kh_ilink *il, unsigned k, kh_cycle now)
{
    if (k > 15) return 0;
    settle(il, now);
    /* Read in the cycle the interlink stepped: the state at the start of it. */
    if (il->st_cycle == now) return status_word(il, &il->old, k, now);
    return status_word(il, &il->st, k, now);
}

void kh_ilink_get_counts(const kh_ilink *il, kh_ilink_counts *out) { *out = il->counts; }

/* ---- the cycle ---- */

static kh_cycle min_t(kh_cycle a, kh_cycle b) { return a < b ? a : b; }

static void ilink_step(kh_comp *c, kh_cycle now)
{
    kh_ilink *il = (kh_ilink *)c;
    il->progressed = 0;
    settle(il, now);
    il->old = il->st; /* reads in this cycle see the start of it */
    il->st_cycle = now;
    int p = 0;
    p |= kh_ilink_enc_step(il, now);
    p |= kh_ilink_ob_pick(il, now);
    p |= kh_ilink_switch_step(il, now);
    p |= kh_ilink_in_step(il, now);
    p |= kh_ilink_credit_step(il, now);
    if (p || il->progressed) kh_comp_wake(c, now + 1);
    kh_cycle t = min_t(kh_ilink_out_next(il, now), kh_ilink_switch_next(il, now));
    const il_regw *w = kh_ring_at(&il->regw, 0);
    if (w) t = min_t(t, w->at);
    t = min_t(t, kh_conv_next_answer(il->rq));
    kh_cycle h = kh_fifo_head_ready(&il->inj);
    if (h > now) t = min_t(t, h); /* only to wake the ports in time */
    if (t > now && t != KH_NEVER) kh_comp_wake(c, t);
}

static int ilink_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_ilink *il = (kh_ilink *)c;
    kh_cycle now = kh_sim_now(c->sim);
    size_t used = 0;
    int any = 0;
    if (len) buf[0] = '\0';
    any |= kh_ilink_out_stuck(il, buf, len, &used, now);
    any |= kh_ilink_switch_stuck(il, buf, len, &used, now);
    any |= kh_ilink_in_stuck(il, buf, len, &used, now);
    return any;
}

static void ilink_stats(kh_comp *c, char *buf, size_t len)
{
    kh_ilink *il = (kh_ilink *)c;
    const kh_ilink_counts *k = &il->counts;
    snprintf(buf, len,
             "\"flits_encapsulated\": %llu, \"flits_injected\": %llu, \"flits_dropped\": %llu, "
             "\"words_sent\": %llu, \"words_landed\": %llu, \"packets_dropped\": %llu, "
             "\"doorbells_sent\": %u, \"packets_forwarded\": %llu, \"link0_tx_flits\": %llu, "
             "\"link1_tx_flits\": %llu, \"faults\": %u",
             (unsigned long long)k->flits_encapsulated, (unsigned long long)k->flits_injected,
             (unsigned long long)k->flits_dropped, (unsigned long long)k->words_sent,
             (unsigned long long)k->words_landed, (unsigned long long)k->pkts_dropped, il->st.door_sent,
             (unsigned long long)il->fwd_pkts, (unsigned long long)il->link[0].tx_flits,
             (unsigned long long)il->link[1].tx_flits, il->st.fault);
}

static void ilink_destroy(kh_comp *c)
{
    kh_ilink *il = (kh_ilink *)c;
    for (int i = 0; i < 2; i++) kh_ilink_lane_free(il->link[i].out);
    kh_ring_free(&il->regw);
    kh_ring_free(&il->words);
    kh_ring_free(&il->rings);
    kh_fifo_free(&il->skid);
    kh_fifo_free(&il->inj);
    free(il);
}

static const kh_comp_ops ilink_ops = {
    .kind = "interlink",
    .ckpt = kh_ilink_ckpt,
    .step = ilink_step,
    .describe_stuck = ilink_stuck,
    .stats_json = ilink_stats,
    .destroy = ilink_destroy,
};

kh_ilink *kh_ilink_new(kh_node *n, char *err, size_t errlen)
{
    const kh_params *p = n->p;
    if (p->ilink_lat < 1) {
        snprintf(err, errlen, "ilink_lat %llu: the interlink's one-way latency must be at least 1 cycle, so "
                 "each mesh can be stepped as an independent partition (control.md §7.6, Open point 17)",
                 (unsigned long long)p->ilink_lat);
        return NULL;
    }
    if (p->ilink_credits < 1 || p->ilink_credits > 0xFFFF) {
        snprintf(err, errlen, "ilink_credits %llu: the receive buffer per class is 1..65535 beats "
                 "(control.md §7.6, credit state is 16 bits per class)", (unsigned long long)p->ilink_credits);
        return NULL;
    }
    kh_ilink *il = calloc(1, sizeof *il);
    if (!il || kh_fifo_init(&il->skid, IL_SKID, 1) || kh_fifo_init(&il->inj, 2, 1)) {
        if (il) {
            kh_fifo_free(&il->skid);
            free(il);
        }
        snprintf(err, errlen, "out of memory building the interlink");
        return NULL;
    }
    il->n = n;
    il->p = p;
    il->st.enable = 1; /* reset 1 (§7.5) */
    il->st.mesh = n->cfg.mesh_id;
    il->old = il->st;
    il->st_cycle = KH_NEVER;
    il->fault_ext_at = KH_NEVER;
    il->inj_take_cycle = KH_NEVER;
    il->entry_min = KH_NEVER;
    il->hub_arb.fn = kh_ilink_hub_arbitrate;
    il->hub_arb.ctx = il;
    il->lblock_since = il->fwd_since = KH_NEVER;
    il->in_owner = OWN_NONE;
    il->inst = IN_HDR;
    for (int i = 0; i < 2; i++) {
        il->link[i].owner[0] = il->link[i].owner[1] = OWN_NONE;
        il->link[i].stall_since = KH_NEVER;
    }
    kh_ring_init(&il->regw, sizeof(il_regw));
    kh_ring_init(&il->words, sizeof(il_word));
    kh_ring_init(&il->rings, sizeof(il_ring));
    char name[48];
    snprintf(name, sizeof name, "interlink(mesh %u)", n->cfg.mesh_id);
    kh_sim_add(n->sim, &il->c, &ilink_ops, name);
    /* The landing channel of the converged path (memory.md §7: interlink P+2). */
    il->rq = kh_conv_requester(n->conv, n->cfg.nports + 2, &il->c, name);
    return il;
}

int kh_node_ilink_join(kh_node *lower, kh_node *upper, char *err, size_t errlen)
{
    kh_ilink *a = lower->ilink, *b = upper->ilink;
    if (!a || !b) {
        snprintf(err, errlen, "meshes %u and %u cannot be joined: both nodes need an interlink (ILINK, "
                 "control.md §7)", lower->cfg.mesh_id, upper->cfg.mesh_id);
        return -1;
    }
    if (upper->cfg.mesh_id != lower->cfg.mesh_id + 1) {
        snprintf(err, errlen, "meshes %u and %u cannot be joined: the meshes form a line in id order, "
                 "link1 of mesh i to link0 of mesh i+1 (control.md §7.1)", lower->cfg.mesh_id,
                 upper->cfg.mesh_id);
        return -1;
    }
    if (a->link[1].out || b->link[0].out) {
        snprintf(err, errlen, "meshes %u and %u are already joined (control.md §7.1)", lower->cfg.mesh_id,
                 upper->cfg.mesh_id);
        return -1;
    }
    a->link[1].out = kh_ilink_lane_new(a, 1, b);
    b->link[0].out = kh_ilink_lane_new(b, 0, a);
    if (!a->link[1].out || !b->link[0].out) {
        snprintf(err, errlen, "out of memory joining meshes %u and %u", lower->cfg.mesh_id, upper->cfg.mesh_id);
        return -1;
    }
    b->link[0].in = a->link[1].out;
    a->link[1].in = b->link[0].out;
    return 0;
}
