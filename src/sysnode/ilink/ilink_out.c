/* What leaves a mesh through its interlink (control.md §7.2, §7.4): the hub
 * intake of remote flits and the encapsulator that groups them into
 * packets, the posted remote writes of the mover (memory.md §14), the
 * doorbell queue, and the outbound arbiter that turns one of them at a time
 * into a packet for the switch. */
#include <stdio.h>
#include <string.h>

#include "sysnode/fields.h"
#include "sysnode/ilink/ilink_int.h"

/* ---- hub intake (memory.md §2 rule 1) ---- */

void kh_ilink_hub_take(kh_ilink *il, unsigned port, const kh_flit *f, kh_cycle now)
{
    if (now < il->entry_min) il->entry_min = now;
    il->hub[port] = *f;
    il->hub_held |= 1u << port;
    kh_sim_at_end(il->c.sim, &il->hub_arb);
}

int kh_ilink_hub_holds(const kh_ilink *il, unsigned port) { return il && (il->hub_held >> port & 1); }

const kh_flit *kh_ilink_hub_flit(const kh_ilink *il, unsigned port) { return &il->hub[port]; }

void kh_ilink_hub_compete(kh_ilink *il, kh_cycle now)
{
    (void)now;
    kh_sim_at_end(il->c.sim, &il->hub_arb);
}

/* Held ports step at `at` to compete again (kh_ilink_hub_compete). */
static void wake_held(kh_ilink *il, kh_cycle at)
{
    for (unsigned i = 0; i < il->n->cfg.nports; i++)
        if (il->hub_held >> i & 1) kh_comp_wake(kh_node_port(il->n, i), at);
}

/* End of cycle now, once every port's offer is in: one flit per cycle
 * across the ports into the two-entry skid, from the first held port at or
 * after the pointer, which then moves to (winner + 1) mod PORTS; a full
 * skid (as the cycle began) accepts none and the pointer stays (memory.md
 * §2). The others hold busy and compete again when the skid has room. */
void kh_ilink_hub_arbitrate(void *ctx, kh_cycle now)
{
    kh_ilink *il = ctx;
    unsigned np = il->n->cfg.nports;
    if (!il->hub_held) return;
    for (unsigned k = 0; k < np && !kh_fifo_full(&il->skid, now); k++) {
        unsigned i = (il->hub_ptr + k) % np;
        if (!(il->hub_held >> i & 1)) continue;
        kh_fifo_push(&il->skid, &il->hub[i], now);
        kh_comp_wake(&il->c, now + il->skid.latency);
        il->hub_held &= ~(1u << i);
        il->hub_ptr = (i + 1) % np;
        kh_comp_space(kh_node_port(il->n, i), KH_ALL_PORTS, now); /* a refused sender offers again */
        break;
    }
    /* Room next cycle (a pop in this one): compete then; else the pop that
     * makes room wakes them (pop_skid). */
    if (!kh_fifo_full(&il->skid, now + 1)) wake_held(il, now + 1);
}

static void pop_skid(kh_ilink *il, kh_cycle now)
{
    kh_fifo_pop(&il->skid, now);
    wake_held(il, now + 1); /* room from now + 1 */
}

/* V4 (flits.md §9): what a remote flit should look like; the interlink
 * forwards any type as the RTL does (flits.md Open point 3), warning once. */
static void check_v4(kh_ilink *il, const kh_flit *f)
{
    unsigned t = kf_type(f);
    if (il->warned_v4) return;
    if (t != KH_T_CU_DATA && t != KH_T_MEM_WR_REQ && t != KH_T_MEM_WR_DATA) {
        il->warned_v4 = 1;
        kh_comp_log(&il->c, KH_LOG_WARN,
                    "remote flit of type 0x%x from (%u,%u): a remote flit is CU_DATA or MEM_WR_*; forwarded as "
                    "the RTL does (flits.md §9 V4, Open point 3; warned once)", t, kf_src_x(f), kf_src_y(f));
    } else if (kf_txn(f) == 0) {
        il->warned_v4 = 1;
        kh_comp_log(&il->c, KH_LOG_WARN,
                    "remote flit from (%u,%u) with txn 0: txn is the final node {fin_y, fin_x} and must be "
                    "non-zero; it will be injected towards (0,0) (flits.md §7, §9 V4; warned once)",
                    kf_src_x(f), kf_src_y(f));
    }
}

/* A remote CU_DATA descriptor must name an explicit ack (flits.md §4.7,
 * §9 V21): the framework tells a descriptor from data by framing per
 * source, so a long burst cut into several packets is judged once. */
static void check_ack0(kh_ilink *il, const kh_flit *f, kh_cycle now)
{
    if (kf_type(f) != KH_T_CU_DATA) return;
    unsigned s = kf_src_y(f) * 16 + kf_src_x(f);
    if (il->cud_open[s]) {
        if (--il->cud_left[s] == 0) il->cud_open[s] = 0;
        return;
    }
    il->cud_open[s] = 1;
    il->cud_left[s] = (uint16_t)(kh_cu_data_len(f->w) + 1);
    if (kh_cu_data_ack_x(f->w) == 0 && kh_cu_data_ack_y(f->w) == 0) {
        if (!(il->st.fault & KH_ILINK_F_ACK0))
            kh_comp_log(&il->c, KH_LOG_WARN,
                        "remote CU_DATA descriptor from (%u,%u) for mesh %u has ack 0: 'answer the sender' "
                        "would address a node in the wrong mesh; fault ACK0, forwarded (control.md §7.3, "
                        "flits.md §9 V21)", kf_src_x(f), kf_src_y(f), (unsigned)kh_hdr_rsvd_mesh(f->w));
        kh_ilink_raise(il, KH_ILINK_F_ACK0, now);
    }
}

/* ---- the encapsulator (§7.2) ---- */

int kh_ilink_enc_step(kh_ilink *il, kh_cycle now)
{
    const kh_flit *f = kh_fifo_head(&il->skid, now);
    if (!f) return 0;
    if (!il->st.enable) {
        /* Disabled: consumed and dropped, so the port's own memory traffic
         * is never held behind a link nobody turned on (§7.2, Open point 12). */
        il->counts.flits_dropped++;
        il->n->counts.ilink_drops++;
        if (!(il->st.fault & KH_ILINK_F_INJ))
            kh_comp_log(&il->c, KH_LOG_WARN,
                        "remote flit (type 0x%x) from (%u,%u) for mesh %u dropped: the interlink is disabled "
                        "(0x80 bit 0 = 0); fault INJ (control.md §7.2, Open point 12)", kf_type(f), kf_src_x(f),
                        kf_src_y(f), (unsigned)kh_hdr_rsvd_mesh(f->w));
        kh_ilink_raise(il, KH_ILINK_F_INJ, now);
        pop_skid(il, now);
        return 1;
    }
    if (il->enc_closed) return 0; /* the closed packet waits for the link */
    unsigned mesh = (unsigned)kh_hdr_rsvd_mesh(f->w), fin = kf_txn(f), sx = kf_src_x(f), sy = kf_src_y(f);
    if (il->enc_open && (mesh != il->enc_mesh || fin != il->enc_fin || sx != il->enc_sx || sy != il->enc_sy))
        return 0; /* another group waits (holds the port) until the open packet closes */
    check_v4(il, f);
    check_ack0(il, f, now);
    if (!il->enc_open) {
        il->enc_open = 1;
        il->enc_mesh = mesh;
        il->enc_fin = fin;
        il->enc_sx = sx;
        il->enc_sy = sy;
        il->enc_n = 0;
    }
    il->enc[il->enc_n++] = *f;
    il->counts.flits_encapsulated++;
    if (kh_hdr_last(f->w) || il->enc_n == KH_ILINK_MAX_BEATS) {
        il->enc_open = 0;
        il->enc_closed = 1;
        il->enc_closed_at = now;
    }
    pop_skid(il, now);
    return 1;
}

/* ---- posted writes (memory.md §14) ---- */

int kh_ilink_mover_remote(kh_ilink *il, uint64_t addr, kh_cycle now)
{
    unsigned live = kh_ilink_live_id(il, now);
    if (ka_mesh(addr) == live) return 0;
    if (!kh_ilink_enabled(il, now)) {
        if (!il->warned_local) {
            il->warned_local = 1;
            kh_comp_log(&il->c, KH_LOG_WARN,
                        "mover write to 0x%010llx names mesh %u but the interlink is disabled: written locally "
                        "at the full address (control.md Open point 12; warned once)", (unsigned long long)addr,
                        ka_mesh(addr));
        }
        return 0;
    }
    if (!ka_aperture(addr) && ka_local(addr) > 0xFFFFFFFFull && !il->warned_wrap) {
        il->warned_wrap = 1;
        kh_comp_log(&il->c, KH_LOG_WARN,
                    "remote write to 0x%010llx: a remote DRAM write lands by the low 32 bits, so offset 0x%llx "
                    "wraps in mesh %u (memory.md §14, Open point 5; warned once)", (unsigned long long)addr,
                    (unsigned long long)ka_local(addr), ka_mesh(addr));
    }
    return 1;
}

static void push_word(kh_ilink *il, uint64_t addr, const uint64_t d[4], uint32_t strb, int last, kh_cycle now)
{
    if (now < il->entry_min) il->entry_min = now;
    il_word w = {.addr = addr, .strb = strb, .mover_last = last, .at = now + 1};
    memcpy(w.d, d, sizeof w.d);
    kh_ring_push(&il->words, &w);
    kh_comp_wake(&il->c, now + 1);
}

void kh_ilink_mover_word(kh_ilink *il, uint64_t addr, const uint64_t d[4], int last, kh_cycle now)
{
    push_word(il, addr, d, 0xFFFFFFFFu, last, now); /* the mover writes whole words */
}

int kh_ilink_store(kh_ilink *il, uint64_t addr, const uint64_t data[4], uint32_t strb, kh_cycle now, char *err,
                   size_t errlen)
{
    unsigned live = kh_ilink_live_id(il, now);
    if (!kh_ilink_enabled(il, now) || ka_mesh(addr) == live) {
        snprintf(err, errlen, "remote store to 0x%010llx refused: %s (control.md §7.2, memory.md §14)",
                 (unsigned long long)addr, ka_mesh(addr) == live ? "the address names this mesh"
                                                                 : "the interlink is disabled");
        return -1;
    }
    push_word(il, addr, data, strb, 0, now);
    return 0;
}

/* ---- the outbound arbiter (§7.4): rotating priority WR, FL, DB ---- */

static void set_hdr(il_pkt *k, unsigned kind, unsigned dmesh, unsigned smesh)
{
    il_wflit *h = &k->fl[0];
    memset(h, 0, sizeof *h);
    h->hdr = 1;
    kh_ilink_hdr_set_kind(h->f.w, kind);
    kh_ilink_hdr_set_dmesh(h->f.w, dmesh);
    kh_ilink_hdr_set_smesh(h->f.w, smesh);
    k->dmesh = dmesh;
}

static void build_wr(kh_ilink *il, il_pkt *k)
{
    const il_word *w = kh_ring_at(&il->words, 0);
    set_hdr(k, IL_K_MEM_WR, ka_mesh(w->addr), il->st.mesh);
    kh_ilink_hdr_set_addr(k->fl[0].f.w, w->addr);
    kh_ilink_hdr_set_odd(k->fl[0].f.w, 1);
    kh_ilink_hdr_set_strb(k->fl[0].f.w, 1);
    il_wflit *b = &k->fl[1];
    memset(b, 0, sizeof *b);
    kh_ilink_wr_beat_set_data(b->f.w, w->d); /* 256-bit field: four words, low first */
    kh_ilink_wr_beat_set_strb(b->f.w, w->strb);
    b->last = 1;
    k->n = 2;
    k->wr_last = (unsigned)w->mover_last;
    il->counts.words_sent++;
    kh_ring_pop(&il->words);
}

static void build_fl(kh_ilink *il, il_pkt *k)
{
    set_hdr(k, IL_K_NOC_FLIT, il->enc_mesh, il->st.mesh);
    kh_ilink_hdr_set_len(k->fl[0].f.w, il->enc_n - 1);
    kh_ilink_hdr_set_fin(k->fl[0].f.w, il->enc_fin);
    for (unsigned i = 0; i < il->enc_n; i++) {
        il_wflit *b = &k->fl[1 + i];
        memset(b, 0, sizeof *b);
        b->f = il->enc[i];
        b->last = i + 1 == il->enc_n;
    }
    k->n = il->enc_n + 1;
}

static void build_db(kh_ilink *il, il_pkt *k)
{
    const il_ring *r = kh_ring_at(&il->rings, 0);
    set_hdr(k, IL_K_DOORBELL, r->dst, il->st.mesh);
    kh_ilink_hdr_set_tag(k->fl[0].f.w, r->tag);
    kh_ilink_hdr_set_odd(k->fl[0].f.w, 1);
    il_wflit *b = &k->fl[1];
    memset(b, 0, sizeof *b); /* profile S: no ring amount, the beat is zero */
    b->last = 1;
    k->n = 2;
    kh_ring_pop(&il->rings);
}

static int src_ready(const kh_ilink *il, int s, kh_cycle now)
{
    if (s == IL_SRC_WR) {
        const il_word *w = kh_ring_at(&il->words, 0);
        return w && w->at <= now;
    }
    if (s == IL_SRC_FL) return il->enc_closed && il->enc_closed_at < now && !il->pkt_valid;
    const il_ring *r = kh_ring_at(&il->rings, 0);
    return r && r->at <= now;
}

/* A packet with nowhere to go is taken by the switch's sink and dropped
 * (the switch's SELF / NOFWD faults, control.md §7.5 SWITCH). */
static void drop_pkt(kh_ilink *il, il_pkt *k, kh_cycle now)
{
    static const char *const kinds[] = {"?", "MEM_WR", "NOC_FLIT", "DOORBELL"};
    unsigned live = il->st.mesh;
    kh_comp_log(&il->c, KH_LOG_WARN,
                "%s packet for mesh %u dropped at mesh %u: %s; fault SWITCH (control.md §7.1, §7.5)",
                kinds[k->src == IL_SRC_WR ? 1 : k->src == IL_SRC_FL ? 2 : 3], k->dmesh, live,
                k->dmesh == live ? "it names this mesh" : "no link leads there (the line ends)");
    kh_ilink_raise(il, KH_ILINK_F_SWITCH, now);
    il->counts.pkts_dropped++;
    if (k->src == IL_SRC_FL) {
        il->counts.flits_dropped += k->n - 1;
        il->n->counts.ilink_drops += k->n - 1;
    }
    kh_ilink_pkt_hdr_sent(il, now);
    kh_ilink_pkt_sent(il, now);
}

int kh_ilink_ob_pick(kh_ilink *il, kh_cycle now)
{
    if (il->pkt_valid || now < il->ob_free || !il->st.enable) return 0;
    int pick = -1;
    for (unsigned k = 1; k <= IL_NSRC && pick < 0; k++) {
        int s = (int)((il->ob_rr + k) % IL_NSRC);
        if (src_ready(il, s, now)) pick = s;
    }
    if (pick < 0) return 0;
    il_pkt *k = &il->pkt;
    k->sent = 0;
    k->src = pick;
    k->wr_last = 0;
    if (pick == IL_SRC_WR) build_wr(il, k);
    else if (pick == IL_SRC_FL) build_fl(il, k);
    else build_db(il, k);
    il->ob_rr = (unsigned)pick;
    il->pkt_valid = 1;
    k->ready = now + 1; /* the header is registered (OB_HDR) */
    kh_ilink_route(il, k->dmesh, &k->link, &k->cls);
    if (k->link < 0) drop_pkt(il, k, now);
    return 1;
}

void kh_ilink_pkt_hdr_sent(kh_ilink *il, kh_cycle now)
{
    /* The mover's burst is answered once its last word's header is on the
     * link: nothing sent after it can overtake it (§7.4). */
    if (il->pkt.src == IL_SRC_WR && il->pkt.wr_last) kh_mover_remote_b(il->n->mover, now + 1);
}

void kh_ilink_pkt_sent(kh_ilink *il, kh_cycle now)
{
    il_pkt *k = &il->pkt;
    if (k->src == IL_SRC_DB) {
        il->st.door_sent++;
        il->st.dtx[k->dmesh]++;
    } else if (k->src == IL_SRC_FL) {
        il->enc_closed = 0; /* the encapsulator takes flits again */
    }
    il->pkt_valid = 0;
    il->ob_free = now + 1;
    il->progressed = 1;
}

kh_cycle kh_ilink_out_next(const kh_ilink *il, kh_cycle now)
{
    kh_cycle t = KH_NEVER;
    kh_cycle h = kh_fifo_head_ready(&il->skid);
    if (h > now) t = h;
    if (il->pkt_valid || !il->st.enable) return t;
    kh_cycle c[3] = {KH_NEVER, KH_NEVER, KH_NEVER};
    const il_word *w = kh_ring_at(&il->words, 0);
    const il_ring *r = kh_ring_at(&il->rings, 0);
    if (w) c[0] = w->at;
    if (r) c[1] = r->at;
    if (il->enc_closed) c[2] = il->enc_closed_at + 1;
    for (int i = 0; i < 3; i++) {
        kh_cycle a = c[i];
        if (a == KH_NEVER) continue;
        if (a < il->ob_free) a = il->ob_free;
        if (a > now && a < t) t = a;
    }
    return t;
}

int kh_ilink_out_stuck(kh_ilink *il, char *buf, size_t len, size_t *used, kh_cycle now)
{
    int any = 0;
    if (il->enc_open) {
        kh_node_say(buf, len, used,
                    "a packet of %u remote flit(s) from (%u,%u) for mesh %u, final node (%u,%u), is open and waits "
                    "for a flit with last = 1 (or %u flits) before it can leave (control.md §7.2)",
                    il->enc_n, il->enc_sx, il->enc_sy, il->enc_mesh, il->enc_fin & 15, il->enc_fin >> 4,
                    KH_ILINK_MAX_BEATS);
        const kh_flit *f = kh_fifo_head(&il->skid, now);
        if (f)
            kh_node_say(buf, len, used,
                        "a remote flit from (%u,%u) for mesh %u waits behind it and holds the memory port "
                        "(another group waits until the open packet closes, control.md §7.2)",
                        kf_src_x(f), kf_src_y(f), (unsigned)kh_hdr_rsvd_mesh(f->w));
        any = 1;
    }
    size_t nw = kh_ring_count(&il->words), nr = kh_ring_count(&il->rings);
    if ((nw || nr || il->enc_closed) && !il->st.enable) {
        kh_node_say(buf, len, used,
                    "%zu remote write(s), %zu doorbell(s)%s wait while the interlink is disabled (0x80 bit 0 = 0); "
                    "they leave once it is enabled (control.md §7.5)", nw, nr,
                    il->enc_closed ? " and a flit packet" : "");
        any = 1;
    } else if (nw || nr) {
        kh_node_say(buf, len, used, "%zu remote write(s) and %zu doorbell(s) wait for the outbound arbiter "
                    "(control.md §7.4)", nw, nr);
        any = 1;
    }
    return any;
}
