/* A memory port (memory.md §2, §10): the hub's inbound classification, the
 * output register with its priorities, and the per-cycle sequencing of the
 * engine (writes in port_write.c, reads in port_read.c). */
#include <stdio.h>
#include <stdlib.h>

#include "kohaku/ilink.h"
#include "noc/router_int.h"
#include "sysnode/fields.h"
#include "sysnode/port/port_int.h"

static kh_link *kh_port_in(kh_port *p)
{
    /* The link into this port is found once, by its receiver. */
    if (!p->in_looked) {
        kh_sim *sim = p->c.sim;
        for (unsigned i = 0; i < kh_sim_nlinks(sim); i++) {
            kh_link *l = kh_sim_link(sim, i);
            if (l->dst == &p->c) {
                p->in = l;
                break;
            }
        }
        p->in_looked = p->in != NULL;
    }
    return p->in;
}

/* The hub register holds a flit that has not won its round-robin yet:
 * rule 1 into the interlink's skid or rule 4 into the agent. */
static int hub_busy(const kh_port *p)
{
    return (p->n->agent_held >> p->index & 1) || (p->n->cpu_held >> p->index & 1) ||
           kh_ilink_hub_holds(p->n->ilink, p->index);
}

/* busy to the mesh: either intake FIFO at Q_DEPTH - Q_MARGIN or full (§10);
 * busy_at is the lower of the two, fixed when the port is built. */
static int engine_busy(const kh_port *p, kh_cycle now)
{
    return kh_fifo_used(&p->rdq, now) >= p->busy_at || kh_fifo_used(&p->wrq, now) >= p->busy_at;
}

static void check_remote(kh_port *p, const kh_flit *f, kh_cycle now)
{
    /* A request not marked remote naming another mesh raises bad_remote_req
     * and is served locally (§2, §6). */
    kh_node *n = p->n;
    if (ka_mesh(kf_addr(f)) == n->cfg.mesh_id) return;
    if (n->cfg.interlink && !n->counts.bad_remote_req)
        kh_comp_log(&p->c, KH_LOG_WARN,
                    "%s from (%u,%u) names mesh %u in 0x%010llx without the remote marker: "
                    "bad_remote_req set, served locally (memory.md §2)",
                    kf_type(f) ? "MEM_WR_REQ" : "MEM_RD_REQ", kf_src_x(f), kf_src_y(f),
                    ka_mesh(kf_addr(f)), (unsigned long long)kf_addr(f));
    if (n->cfg.interlink) {
        n->counts.bad_remote_req = 1;
        kh_node_ilink_fault(n, KH_ILINK_F_RD_REMOTE, now); /* sticky interlink fault bit 0 (control.md §7.5) */
    }
}

enum zero_route { ZERO_CPU, ZERO_DROP, ZERO_AGENT };

/* Where a flit addressed to (0,0) goes under cpu_mode. */
static enum zero_route to_cpu(kh_port *p, const kh_flit *f)
{
    kh_node *n = p->n;
    switch (n->p->cpu_mode) {
    case KH_CPU_MODE_AGENT:
        return ZERO_AGENT; /* the older agent: no rule 2 */
    case KH_CPU_MODE_DROP:
        return ZERO_DROP;  /* the RV64 branch's tied-off port */
    case KH_CPU_MODE_CPU:
        /* The RV32 processor issues no CU_CTRL, so a reply to (0,0) answers
         * a request forged with src (0,0) (upstream's driver): the agent's
         * RX, as the older agent did. */
        if (kf_type(f) == KH_T_CU_CTRL && kh_cu_ctrl_reply_op(f->w) == 2) {
            n->counts.cpu_replies++;
            return ZERO_AGENT;
        }
        break;
    default:
        break;
    }
    return n->have_cpu ? ZERO_CPU : ZERO_DROP;
}

/* Every rule in order; kh_node_port_accept's lean path is the common case
 * of rule 3. Out of line, so that the lean path saves no registers. */
__attribute__((noinline)) static int accept_rules(kh_port *p, const kh_flit *f, kh_cycle now)
{
    kh_node *n = p->n;
    unsigned type = kf_type(f);
    /* A flit in the hub register that has not won yet blocks the port's
     * input (memory.md §2: a port waiting its turn holds busy); the arbiter
     * that empties the register releases the sender (kh_comp_space). */
    if (hub_busy(p)) return 0;
    /* Rule 1: the remote marker goes to the interlink, when one is built.
     * One port per cycle enters its skid, chosen by the round-robin once
     * every offer of the cycle is in (kh_ilink_hub_arbitrate); a port
     * waiting its turn, or finding the skid full, holds busy. */
    if (n->cfg.interlink && kf_remote(f)) {
        kh_ilink_hub_take(n->ilink, p->index, f, now);
        return 1;
    }
    /* Rule 2: dst (0,0) is the control processor, as cpu_mode says
     * (control.md Open point 16 revised). */
    if (kf_dst_x(f) == 0 && kf_dst_y(f) == 0) {
        switch (to_cpu(p, f)) {
        case ZERO_CPU:
            /* Held in the hub register until the processor takes it; one
             * port per cycle, by round-robin at the end of the cycle. */
            n->cpu_hold[p->index] = *f;
            n->cpu_held |= 1u << p->index;
            kh_sim_at_end(p->c.sim, &n->cpu_arb);
            return 1;
        case ZERO_DROP:
            n->counts.cpu_drops++;
            kh_comp_log(&p->c, KH_LOG_WARN,
                        "flit type 0x%x txn %u from (%u,%u) to (0,0): no control processor (cpu_mode %s), "
                        "dropped (control.md Open point 16)", type, kf_txn(f), kf_src_x(f), kf_src_y(f),
                        n->p->cpu_mode == KH_CPU_MODE_DROP ? "drop" : "without a processor attached");
            return 1;
        case ZERO_AGENT:
            break; /* rules 3 and 4 as for any other destination */
        }
    }
    /* Rule 3: memory requests and write data go to this port's engine. */
    if (type == KH_T_MEM_RD_REQ || type == KH_T_MEM_WR_REQ || type == KH_T_MEM_WR_DATA) {
        if (engine_busy(p, now)) return 0;
        if (type != KH_T_MEM_WR_DATA && !(n->cfg.interlink && kf_remote(f))) check_remote(p, f, now);
        kh_fifo *q = type == KH_T_MEM_RD_REQ ? &p->rdq : &p->wrq;
        kh_fifo_push(q, f, now);
        kh_comp_wake(&p->c, now + q->latency); /* the cycle it is visible: port_step counts on it */
        return 1;
    }
    /* Rule 4: everything else to the control agent. One port delivers per
     * cycle, chosen by the round-robin once every offer of the cycle is in
     * (kh_node_agent_arbitrate), so the winner does not depend on the order
     * in which the senders were stepped. */
    n->agent_hold[p->index] = *f;
    n->agent_held |= 1u << p->index;
    kh_sim_at_end(p->c.sim, &n->agent_arb);
    return 1;
}

/* Types rule 3 gives the engine, as a set of bits. */
#define ENGINE_TYPES (1u << KH_T_MEM_RD_REQ | 1u << KH_T_MEM_WR_REQ | 1u << KH_T_MEM_WR_DATA)

int kh_node_port_accept(kh_comp *dst, unsigned inport, const kh_flit *f, kh_cycle now)
{
    kh_port *p = (kh_port *)dst;
    const kh_node *n = p->n;
    unsigned type = kf_type(f);
    (void)inport;
    /* The lean path: without an interlink (no rule 1, and check_remote has
     * nothing to do), an empty hub register, a destination other than (0,0)
     * (no rule 2) and a type for the engine, accept_rules comes to rule 3. The
     * latency is inside the wake wheel (lean), and the FIFO is below busy_at,
     * so below its capacity. */
    if (p->lean && !((n->agent_held | n->cpu_held) >> p->index & 1) && (kf_dst_x(f) | kf_dst_y(f)) != 0 &&
        (ENGINE_TYPES >> type & 1)) {
        unsigned rd = kh_fifo_used(&p->rdq, now), wr = kh_fifo_used(&p->wrq, now);
        if (rd >= p->busy_at || wr >= p->busy_at) return 0;
        int to_rd = type == KH_T_MEM_RD_REQ;
        kh_fifo *q = to_rd ? &p->rdq : &p->wrq;
        kh_fifo_push_below(q, f, now, to_rd ? rd : wr);
        kh_comp_wake_within(&p->c, now, q->latency); /* the cycle it is visible: port_step counts on it */
        return 1;
    }
    return accept_rules(p, f, now);
}

/* End of cycle now: the first port from the pointer whose hub register holds
 * a flit delivers it; the agent must never block memory traffic, so a flit
 * it cannot take is dropped. The pointer advances past the winner on either
 * outcome (memory.md §2 rule 4); the others hold busy and try next cycle. */
void kh_node_agent_arbitrate(void *node, kh_cycle now)
{
    kh_node *n = node;
    unsigned np = n->cfg.nports;
    for (unsigned k = 0; k < np; k++) {
        unsigned i = (n->agent_ptr + k) % np;
        if (!(n->agent_held >> i & 1)) continue;
        const kh_flit *f = &n->agent_hold[i];
        if (!n->have_agent || !n->agent.accept(n->agent.ctx, i, f, now)) {
            n->counts.agent_drops++;
            kh_comp_log(&n->port[i]->c, KH_LOG_INFO,
                        "flit type 0x%x from (%u,%u) for the control agent dropped: %s (memory.md §2 rule 4)",
                        kf_type(f), kf_src_x(f), kf_src_y(f), n->have_agent ? "agent cannot take it" : "no agent");
        }
        n->agent_held &= ~(1u << i);
        n->agent_ptr = (i + 1) % np;
        kh_comp_space(&n->port[i]->c, KH_ALL_PORTS, now); /* a refused sender offers again */
        break;
    }
    /* The losers compete again next cycle, offers or not. */
    for (unsigned i = 0; i < np; i++)
        if (n->agent_held >> i & 1) kh_comp_wake(&n->port[i]->c, now + 1);
}

/* End of cycle now: the first port from the pointer whose hub register holds
 * a processor flit offers it; taken, the pointer advances past it; refused,
 * it stays held (rule 2 never drops) and every held port tries again next
 * cycle. */
void kh_node_cpu_arbitrate(void *node, kh_cycle now)
{
    kh_node *n = node;
    unsigned np = n->cfg.nports;
    for (unsigned k = 0; k < np; k++) {
        unsigned i = (n->cpu_ptr + k) % np;
        if (!(n->cpu_held >> i & 1)) continue;
        if (n->have_cpu && n->cpu.accept(n->cpu.ctx, &n->cpu_hold[i], now)) {
            n->counts.cpu_flits++;
            n->cpu_held &= ~(1u << i);
            n->cpu_ptr = (i + 1) % np;
            kh_comp_space(&n->port[i]->c, KH_ALL_PORTS, now);
        }
        break;
    }
    for (unsigned i = 0; i < np; i++)
        if (n->cpu_held >> i & 1) kh_comp_wake(&n->port[i]->c, now + 1);
}

/* ---- output register ---- */

/* The output register now holds a flit (written in place by the engine). */
static void placed_out(kh_port *p, kh_flit_origin origin, kh_cycle now)
{
    p->oorigin = origin;
    p->ovalid = 1;
    p->oplaced = now;
    p->progressed = 1;
}

static void load_out(kh_port *p, const kh_flit *f, kh_flit_origin origin, kh_cycle now)
{
    p->oreg = *f;
    placed_out(p, origin, now);
}

/* The agent's flit for this row: 1 taken. The node asks the agent only
 * from the cycle its latest kh_node_agent_ready named (agent_at): the agent
 * announces every flit so, and once asked and found empty it is not asked
 * again before it announces one. */
static int agent_flit(kh_port *p, kh_cycle now)
{
    kh_node *n = p->n;
    if (now < n->agent_at || !n->have_agent || n->agent_out_cycle == now) return 0; /* mostly not announced */
    const kh_flit *f = n->agent.peek(n->agent.ctx, now);
    if (!f) {
        n->agent_at = KH_NEVER;
        return 0;
    }
    if (kh_node_port_for_row(n, kf_dst_y(f)) != p->index) return 0;
    load_out(p, f, n->agent.origin ? n->agent.origin(n->agent.ctx, now) : KH_ORIGIN_MAILBOX, now);
    n->agent_at = KH_NEVER; /* the take announces the next one */
    n->agent.take(n->agent.ctx, now);
    n->agent_out_cycle = now;
    p->agent_out++;
    if (n->agent.peek(n->agent.ctx, now)) kh_node_agent_ready(n, now + 1);
    return 1;
}

/* A processor flit for this port's row (memory.md §2: below the agent). */
static int cpu_flit(kh_port *p, kh_cycle now)
{
    kh_node *n = p->n;
    if (now < n->cpu_at || !n->have_cpu || n->cpu_out_cycle == now) return 0;
    const kh_flit *f = n->cpu.peek(n->cpu.ctx, now);
    if (!f) {
        n->cpu_at = KH_NEVER; /* as for the agent */
        return 0;
    }
    if (kh_node_port_for_row(n, kf_dst_y(f)) != p->index) return 0;
    load_out(p, f, n->cpu.origin ? n->cpu.origin(n->cpu.ctx, now) : KH_ORIGIN_UNIT, now);
    n->cpu_at = KH_NEVER;
    n->cpu.take(n->cpu.ctx, now);
    n->cpu_out_cycle = now;
    if (n->cpu.peek(n->cpu.ctx, now)) kh_node_cpu_ready(n, now + 1);
    return 1;
}

/* An interlink injection for this port's row (control.md §7.3). */
static int ilink_flit(kh_port *p, kh_cycle now)
{
    kh_ilink *il = p->n->ilink;
    const kh_flit *f = il ? kh_ilink_inj_peek(il, now) : NULL;
    if (!f || kh_node_port_for_row(p->n, kf_dst_y(f)) != p->index) return 0;
    load_out(p, f, KH_ORIGIN_INTERLINK, now);
    kh_ilink_inj_take(il, now);
    p->ilink_out++;
    return 1;
}

static void fill_out(kh_port *p, kh_cycle now)
{
    if (p->ovalid) return;
    /* Priority: control agent > processor > interlink injection > this
     * port's engine; within the engine the emitter first (§2, §10). The
     * engine's flits are built in the (empty) register itself. Neither the
     * agent nor the processor is asked before it announced a flit: one test
     * for both, on the earlier announcement. */
    const kh_node *n = p->n;
    kh_cycle announced = n->agent_at < n->cpu_at ? n->agent_at : n->cpu_at;
    if (now >= announced && (agent_flit(p, now) || cpu_flit(p, now))) return;
    if (p->n->ilink && ilink_flit(p, now)) return;
    /* the engine's flits, each looked at only in its state (the calls'
     * own first tests, made here: a step looks every time) */
    if ((p->rs_run && p->s.emit_valid && kh_port_stream_flit(p, &p->oreg, now)) ||
        (p->st == ST_PLAIN && kh_port_plain_flit(p, &p->oreg, now))) {
        placed_out(p, KH_ORIGIN_AGENT, now);
        return;
    }
    if (p->st == ST_ACK) {
        kh_port_ack_flit(p, &p->oreg);
        p->st = ST_IDLE;
        p->st_free = now + 1;
        placed_out(p, KH_ORIGIN_AGENT, now);
    }
}

static void offer_out(kh_port *p, kh_cycle now)
{
    if (!p->ovalid || p->oplaced >= now) return;
    if (!p->out) {
        p->out_lost++;
        p->ovalid = 0;
        p->progressed = 1;
        kh_comp_log(&p->c, KH_LOG_WARN, "no output link: flit for (%u,%u) discarded",
                    kf_dst_x(&p->oreg), kf_dst_y(&p->oreg));
        return;
    }
    /* kh_link_send, with the take inline when the receiver is a router (a
     * port's output always leads into the mesh's router) */
    if (kh_noc_send(p->out, &p->oreg, now)) {
        p->ovalid = 0;
        p->flits_out++;
        p->progressed = 1;
    }
}

/* ---- the cycle ---- */

/* Busy: the shared FSM or the streaming engine at work, or a flit in the
 * output register. It changes only in steps: a stretch opens at the end of
 * a step that leaves the port busy and closes after the step that leaves it
 * idle (counted, and a trace slice). */
static int port_busy(const kh_port *p) { return (p->st != ST_IDLE) | (p->rs_run != 0) | (p->ovalid != 0); }

static void note_busy(kh_port *p, kh_cycle now)
{
    int busy = port_busy(p);
    if (busy == (p->busy_since != KH_NEVER)) return; /* the stretch goes on, or the port stays idle */
    if (busy) {
        p->busy_since = now;
    } else {
        p->busy_cycles += now + 1 - p->busy_since;
        kh_trace_span(&p->c, "busy", p->busy_since, now + 1, NULL);
        p->busy_since = KH_NEVER;
    }
}

static void port_step(kh_comp *c, kh_cycle now)
{
    kh_port *p = (kh_port *)c;
    uint64_t tag;
    kh_node *n = p->n;
    /* A held hub register competes again at the end of this cycle (one
     * test for the two that are seldom held). */
    if ((n->agent_held | n->cpu_held) >> p->index & 1) {
        if (n->agent_held >> p->index & 1) kh_sim_at_end(c->sim, &n->agent_arb); /* rule 4 */
        if (n->cpu_held >> p->index & 1) kh_sim_at_end(c->sim, &n->cpu_arb);     /* rule 2 */
    }
    if (n->ilink && kh_ilink_hub_holds(n->ilink, p->index)) kh_ilink_hub_compete(n->ilink, now); /* rule 1 */
    p->progressed = p->rd_popped = 0;
    if (p->st == ST_WRITE && kh_conv_b_pop(p->rq, now, &tag)) {
        p->st = ST_ACK; /* acks follow the write response (§5) */
        p->progressed = 1;
    }
    offer_out(p, now);
    fill_out(p, now);
    if (p->rs_run) kh_port_stream_capture(p, now);
    /* the read queue's head, looked up once for both engines: only a start
     * pops it, and a start sets rd_popped, which the other one checks */
    const kh_flit *rh = kh_fifo_head(&p->rdq, now);
    if (p->st == ST_IDLE && now >= p->st_free && (kh_port_plain_start(p, rh, now) || (p->rcount && kh_port_write_issue(p, now))))
        p->progressed = 1;
    if (rh && !p->rd_popped && kf_stream(rh) && kh_port_stream_start(p, rh, now)) p->progressed = 1;
    /* the write pop as a value, not a flag beside rd_popped: a load of both
     * flags just after one was stored stalled on store forwarding */
    int wr_popped = p->wrq.count ? kh_port_write_intake(p, now) : 0;
    if (p->rd_popped || wr_popped) {
        kh_link *in = kh_port_in(p);
        if (in) kh_link_space(in, now);
    }
    /* a step after every one that moved something, even when it will find
     * nothing to do: the last cycle a machine executes is what `idle` and
     * the stall checks report, so leaving out a trailing empty step would
     * end them a cycle early (a write flit taken and nothing after it) */
    if (p->progressed) kh_comp_wake_next(c, now);
    note_busy(p, now);
    /* The next answer's cycle; now + 1 is asked for already after a step
     * that moved something. An intake FIFO's head needs no wake here: the
     * accept that pushed it asked for the cycle it becomes visible. */
    kh_cycle t = kh_conv_next_answer(p->rq);
    if (t > now + (kh_cycle)p->progressed && t != KH_NEVER) kh_comp_wake(c, t);
}

static int port_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_port *p = (kh_port *)c;
    kh_cycle now = kh_sim_now(c->sim);
    size_t used = 0;
    int any = 0;
    if (len) buf[0] = '\0';
    any |= kh_port_read_stuck(p, buf, len, &used);
    if (p->st == ST_WRITE) {
        kh_wslot *w = &p->slot[p->cur_slot];
        kh_node_say(buf, len, &used,
                    "write from (%u,%u) txn %u to 0x%010llx waits for its write response (memory.md §5)",
                    w->sx, w->sy, w->txn, (unsigned long long)w->addr);
        any = 1;
    }
    any |= kh_port_write_stuck(p, buf, len, &used, now);
    if (kh_ilink_hub_holds(p->n->ilink, p->index)) {
        const kh_flit *h = kh_ilink_hub_flit(p->n->ilink, p->index);
        kh_node_say(buf, len, &used,
                    "hub register holds a remote flit from (%u,%u) for mesh %u and refuses the link until the "
                    "interlink's skid takes it (memory.md §2 rule 1)",
                    kf_src_x(h), kf_src_y(h), (unsigned)kh_hdr_rsvd_mesh(h->w));
        any = 1;
    }
    if (p->ovalid) {
        kh_node_say(buf, len, &used,
                    "output register holds a type 0x%x flit for (%u,%u) that the outgoing link "
                    "refuses (mesh.md §4)", kf_type(&p->oreg), kf_dst_x(&p->oreg), kf_dst_y(&p->oreg));
        any = 1;
    }
    const kh_flit *f = kh_fifo_head(&p->rdq, now);
    if (f && !any) {
        kh_node_say(buf, len, &used, "a MEM_RD_REQ from (%u,%u) waits in the read queue (memory.md §10)",
                    kf_src_x(f), kf_src_y(f));
        any = 1;
    }
    return any;
}

static void port_stats(kh_comp *c, char *buf, size_t len)
{
    kh_port *p = (kh_port *)c;
    kh_cycle now = kh_sim_now(c->sim);
    uint64_t busy = p->busy_cycles + (p->busy_since != KH_NEVER && now > p->busy_since ? now - p->busy_since : 0);
    snprintf(buf, len,
             "\"busy_cycles\": %llu, \"flits_out\": %llu, \"agent_flits_out\": %llu, \"ilink_flits_out\": %llu, \"plain_reads\": %llu, "
             "\"streaming_reads\": %llu, \"write_bursts\": %llu, \"rdq_high_water\": %u, "
             "\"wrq_high_water\": %u",
             (unsigned long long)busy, (unsigned long long)p->flits_out, (unsigned long long)p->agent_out,
             (unsigned long long)p->ilink_out, (unsigned long long)p->reads, (unsigned long long)p->stream_reads,
             (unsigned long long)p->writes, p->rdq.high_water, p->wrq.high_water);
}

static void port_destroy(kh_comp *c)
{
    kh_port *p = (kh_port *)c;
    kh_fifo_free(&p->rdq);
    kh_fifo_free(&p->wrq);
    free(p->slot);
    free(p->ready);
    free(p);
}

static const kh_comp_ops port_ops = {
    .kind = "mem_port",
    .ckpt = kh_port_ckpt,
    .step = port_step,
    .describe_stuck = port_stuck,
    .stats_json = port_stats,
    .destroy = port_destroy,
};

/* The header word of a flit of this type from port p, with no destination
 * and txn 0 (rd_hdr, ack_hdr: each read and ack sets those fields only). */
static uint64_t own_hdr(const kh_port *p, unsigned type, unsigned last)
{
    kh_flit h;
    kh_flit_clear(&h);
    kh_flit_set_hdr(&h, &(kh_flit_hdr){.src_x = p->x, .src_y = p->y, .type = type, .last = last});
    return h.w[KH_FLIT_HDR_WORD];
}

kh_port *kh_port_new(kh_node *n, unsigned index, char *err, size_t errlen)
{
    kh_port *p = calloc(1, sizeof *p);
    const kh_params *pp = n->p;
    unsigned cap = (unsigned)(pp->q_depth + pp->fifo_extra_cap);
    if (p) p->n = n;
    if (!p || kh_fifo_init(&p->rdq, cap, (unsigned)pp->fifo_latency) ||
        kh_fifo_init(&p->wrq, cap, (unsigned)pp->fifo_latency) || kh_port_write_init(p)) {
        if (p) {
            kh_fifo_free(&p->rdq);
            kh_fifo_free(&p->wrq);
            free(p->slot);
            free(p->ready);
            free(p);
        }
        snprintf(err, errlen, "out of memory building memory port %u", index);
        return NULL;
    }
    p->busy_since = KH_NEVER;
    unsigned thr = pp->q_depth > pp->q_margin ? (unsigned)(pp->q_depth - pp->q_margin) : 1;
    p->busy_at = thr < cap ? thr : cap; /* both FIFOs hold cap */
    p->lean = !n->cfg.interlink && p->rdq.latency < KH_WHEEL; /* the FIFOs' latencies are the same */
    p->n = n;
    p->index = index;
    p->x = n->cfg.port[index].x;
    p->y = n->cfg.port[index].y;
    p->rd_hdr = own_hdr(p, KH_T_MEM_RD_RESP, 0);
    p->ack_hdr = own_hdr(p, KH_T_MEM_WR_ACK, 1);
    char name[48];
    snprintf(name, sizeof name, "mem_port%u(%u,%u)", index, p->x, p->y);
    kh_sim_add(n->sim, &p->c, &port_ops, name);
    p->rq = kh_conv_requester(n->conv, index, &p->c, name);
    /* R beats pass a registered two-entry skid before the engine sees them;
     * a burst's first W beat follows its AW by a slot-RAM read and a
     * registered WVALID (seed-era mag_mem_port, memory.md §10). */
    kh_conv_set_lat(p->rq, 1, 2);
    return p;
}

kh_comp *kh_port_comp(kh_port *p) { return &p->c; }
void kh_port_set_out(kh_port *p, kh_link *out) { p->out = out; }
kh_flit_origin kh_node_port_out_origin(const kh_comp *port) { return ((const kh_port *)port)->oorigin; }
unsigned kh_port_rd_count(const kh_port *p) { return p->rd_count; }
unsigned kh_port_wr_count(const kh_port *p) { return p->wr_count; }
