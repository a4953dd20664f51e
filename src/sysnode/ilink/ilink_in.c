/* What arrives at a mesh through its interlink (control.md §7.3, §7.4,
 * memory.md §14): one inbound stream handled in order, a flit a cycle.
 * MEM_WR beats land through the interlink's requester channel of the
 * converged path; NOC_FLIT beats are injected into this mesh with
 * dst = txn, txn = 0, rsvd = 0; a DOORBELL waits until every write ahead of
 * it has its write response, then counts, so a consumer it releases sees
 * the data. */
#include <stdio.h>
#include <string.h>

#include "sysnode/fields.h"
#include "sysnode/ilink/ilink_int.h"

/* Where a MEM_WR lands (memory.md §14): an aperture address keeps all 40
 * bits (the staging store claims it by mesh field and index); a DRAM
 * address lands by its low 32 bits. The mesh field is set to this mesh's
 * own, which changes nothing in the DRAM index (a[35:0]) and keeps the
 * wrong-mesh warning for real misaddressing. */
static uint64_t landing_addr(const kh_ilink *il, uint64_t a)
{
    if (ka_aperture(a)) return a;
    uint64_t x = 0;
    kh_addr_set_local(&x, ka_local(a) & 0xFFFFFFFFull);
    kh_addr_set_mesh(&x, il->n->cfg.mesh_id);
    return x;
}

static void land(kh_ilink *il, const il_wflit *w, kh_cycle now)
{
    uint64_t d[4];
    kh_ilink_wr_beat_data_get(w->f.w, d);
    uint32_t strb = il->in_strb ? (uint32_t)kh_ilink_wr_beat_strb(w->f.w) : 0xFFFFFFFFu;
    kh_conv_write_strb(il->rq, landing_addr(il, il->in_addr), d, strb, 0, now);
    il->land_out++;
    il->counts.words_landed++;
    il->in_addr += 32;
}

/* The injected flit (§7.3): dst = {fin_y, fin_x} from txn, txn = 0,
 * rsvd = 000; src, type, last and payload unchanged. It leaves by the port
 * on row fin_y (port 0 if none), below the agent in priority. */
static void inject(kh_ilink *il, const il_wflit *w, kh_cycle now)
{
    kh_flit f = w->f;
    unsigned fx = (unsigned)kh_hdr_txn_fin_x(f.w), fy = (unsigned)kh_hdr_txn_fin_y(f.w);
    kh_hdr_set_dst_x(f.w, fx);
    kh_hdr_set_dst_y(f.w, fy);
    kh_hdr_set_txn(f.w, 0);
    kh_hdr_set_rsvd(f.w, 0);
    kh_fifo_push(&il->inj, &f, now);
    il->counts.flits_injected++;
    il->landed = 1;
    kh_node *n = il->n;
    kh_comp_wake(kh_node_port(n, kh_node_port_for_row(n, fy)), now + il->inj.latency);
}

const kh_flit *kh_ilink_inj_peek(kh_ilink *il, kh_cycle now)
{
    if (il->inj_take_cycle == now) return NULL; /* one injection per cycle */
    return kh_fifo_head(&il->inj, now);
}

void kh_ilink_inj_take(kh_ilink *il, kh_cycle now)
{
    kh_fifo_pop(&il->inj, now);
    il->inj_take_cycle = now;
    kh_comp_wake(&il->c, now + 1); /* room for the next beat */
    if (!kh_fifo_empty(&il->inj)) kh_node_wake_ports(il->n, now + 1); /* the next one: wake the ports */
}

static void header(kh_ilink *il, const il_wflit *w)
{
    const uint64_t *h = w->f.w;
    il->in_kind = (unsigned)kh_ilink_hdr_kind(h);
    il->in_smesh = (unsigned)kh_ilink_hdr_smesh(h);
    il->in_tag = (unsigned)kh_ilink_hdr_tag(h);
    il->in_left = (unsigned)kh_ilink_hdr_len(h) + 1;
    il->in_addr = kh_ilink_hdr_addr(h);
    il->in_strb = (unsigned)kh_ilink_hdr_strb(h);
    switch (il->in_kind) {
    case IL_K_MEM_WR: il->inst = IN_WR; break;
    case IL_K_NOC_FLIT: il->inst = IN_FLIT; break;
    case IL_K_DOORBELL: il->inst = IN_DOOR; break;
    default: il->inst = IN_SKIP; break; /* other kinds are skipped (§7.6) */
    }
}

static void beat_done(kh_ilink *il, int from, kh_cycle now)
{
    kh_ilink_ingress_pop(il, from, now);
    if (--il->in_left == 0) il->inst = IN_HDR;
}

int kh_ilink_in_step(kh_ilink *il, kh_cycle now)
{
    int p = 0, from = 0;
    uint64_t tag;
    while (kh_conv_b_pop(il->rq, now, &tag)) {
        il->land_out--;
        p = 1;
    }
    const il_wflit *w = kh_ilink_ingress_head(il, now, &from);
    if (!w) return p;
    switch (il->inst) {
    case IN_HDR:
        if (!w->hdr) { /* cannot happen: every packet starts with its header */
            kh_comp_log(&il->c, KH_LOG_ERROR, "inbound beat without a header on link %d: skipped", from);
            kh_ilink_ingress_pop(il, from, now);
            return 1;
        }
        header(il, w);
        if (kh_sim_trace(il->c.sim)) {
            char args[96];
            snprintf(args, sizeof args, "\"link\": %d, \"kind\": %u, \"smesh\": %u, \"beats\": %u", from,
                     il->in_kind, il->in_smesh, il->in_left);
            kh_trace_instant(&il->c, "packet in", now, args);
        }
        kh_ilink_ingress_pop(il, from, now);
        return 1;
    case IN_WR:
        if (il->land_out >= IL_LAND_OUT) return p;
        land(il, w, now);
        beat_done(il, from, now);
        return 1;
    case IN_FLIT:
        if (kh_fifo_full(&il->inj, now)) return p;
        inject(il, w, now);
        beat_done(il, from, now);
        return 1;
    case IN_DOOR:
        if (il->land_out) return p; /* held until the writes ahead have landed (§7.4) */
        il->st.drx[il->in_smesh]++;
        il->st.dtag[il->in_smesh] = (uint8_t)il->in_tag;
        beat_done(il, from, now);
        return 1;
    default:
        beat_done(il, from, now);
        return 1;
    }
}

int kh_ilink_in_stuck(kh_ilink *il, char *buf, size_t len, size_t *used, kh_cycle now)
{
    int any = 0, from = 0;
    const il_wflit *w = kh_ilink_ingress_head(il, now, &from);
    if (il->inst == IN_DOOR && w && il->land_out) {
        kh_node_say(buf, len, used,
                    "a doorbell from mesh %u (tag 0x%02x) is held until %u landing write(s) ahead of it have their "
                    "write responses (control.md §7.4)", il->in_smesh, il->in_tag, il->land_out);
        any = 1;
    } else if (il->land_out) {
        kh_node_say(buf, len, used, "%u landing write(s) wait for their write responses (memory.md §14)",
                    il->land_out);
        any = 1;
    }
    if (il->inj.count) {
        kh_node_say(buf, len, used,
                    "%u injected flit(s) wait for a memory port's output register (below the agent in priority, "
                    "control.md §7.3)", il->inj.count);
        any = 1;
    }
    return any;
}
