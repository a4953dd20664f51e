/* The hub at each memory port (memory.md §2): inbound classification,
 * the control agent hook, outbound port choice and priority. */
#include "node_rig.h"
#include "kohaku/ilink.h"

typedef struct agent {
    unsigned taken, refuse_after;
    unsigned port[64];
    unsigned type[64];
    unsigned txn[64];
    kh_cycle at[64];
    kh_flit out[16];
    unsigned nout, head;
    kh_cycle took_at[16];
} agent;

static int ag_accept(void *ctx, unsigned port, const kh_flit *f, kh_cycle now)
{
    agent *a = ctx;
    if (a->taken >= a->refuse_after) return 0;
    a->port[a->taken] = port;
    a->txn[a->taken] = (unsigned)kh_hdr_txn(f->w);
    a->at[a->taken] = now;
    a->type[a->taken++] = (unsigned)kh_hdr_type(f->w);
    return 1;
}

static const kh_flit *ag_peek(void *ctx, kh_cycle now)
{
    agent *a = ctx;
    (void)now;
    return a->head < a->nout ? &a->out[a->head] : NULL;
}

static void ag_take(void *ctx, kh_cycle now)
{
    agent *a = ctx;
    a->took_at[a->head++] = now;
}

static void install(rig *r, agent *a)
{
    kh_node_agent h = {.ctx = a, .accept = ag_accept, .peek = ag_peek, .take = ag_take};
    kh_node_set_agent(r->n, &h);
}

/* Rule 4: CU_SIGNAL, MEM_RD_RESP, MEM_WR_ACK, CU_DATA at a port go to the
 * control agent with the port's index; rule 3 types do not. */
static void rule4_types_go_to_the_agent(void)
{
    rig r;
    rig_init(&r, NULL, 2, 0, 0);
    agent a = {.refuse_after = 64};
    install(&r, &a);
    static const unsigned types[] = {KH_T_CU_SIGNAL, KH_T_MEM_RD_RESP, KH_T_MEM_WR_ACK, KH_T_CU_DATA, KH_T_CU_CTRL};
    for (unsigned i = 0; i < 5; i++) {
        kh_flit f = mk_hdr(types[i], 2, 1, 0, 3, i, 1);
        tep_send(r.src[1], &f);
    }
    kh_flit rd = mk_rd(2, 1, 0, 0, 0);
    tep_send(r.src[1], &rd);
    rig_run(&r);
    CHECK_EQ(a.taken, 5);
    for (unsigned i = 0; i < 5; i++) {
        CHECK_EQ(a.type[i], types[i]);
        CHECK_EQ(a.port[i], 1);
    }
    rig_free(&r);
}

/* Rule 4: if the agent cannot take a flit it is accepted and dropped; the
 * memory traffic behind it is not held. */
static void refused_agent_flit_is_dropped(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    agent a = {.refuse_after = 1};
    install(&r, &a);
    for (unsigned i = 0; i < 3; i++) {
        kh_flit f = mk_hdr(KH_T_CU_SIGNAL, 2, 1, 0, 1, i, 1);
        tep_send(r.src[0], &f);
    }
    kh_flit rd = mk_rd(2, 1, 0, 0, 0);
    tep_send(r.src[0], &rd);
    rig_run(&r);
    kh_node_counts c;
    kh_node_get_counts(r.n, &c);
    CHECK_EQ(a.taken, 1);
    CHECK_EQ(c.agent_drops, 2);
    CHECK_EQ(r.sink[0]->ngot, 1);
    rig_free(&r);
}

/* Rule 2: dst (0,0) goes to the control processor; none is modelled, so it
 * is accepted and dropped with a log line (control.md Open point 16), even
 * for a memory request. */
static void dst_00_dropped_without_processor(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    kh_flit f = mk_hdr(KH_T_CU_INST, 2, 1, 0, 0, 5, 1);
    tep_send(r.src[0], &f);
    kh_flit rd = mk_rd(2, 1, 0, 0, 0);
    kh_hdr_set_dst_x(rd.w, 0);
    kh_hdr_set_dst_y(rd.w, 0);
    tep_send(r.src[0], &rd);
    rig_run(&r);
    kh_node_counts c;
    kh_node_get_counts(r.n, &c);
    CHECK_EQ(c.cpu_drops, 2);
    CHECK_EQ(r.sink[0]->ngot, 0);
    CHECK(strstr(r.lastlog, "Open point 16") != NULL);
    rig_free(&r);
}

/* Rule 1: with an interlink built, rsvd[2] diverts the flit (no interlink
 * model yet: dropped and counted); without one, rsvd[2] is not tested. */
static void remote_marker_only_with_interlink(void)
{
    for (int il = 0; il < 2; il++) {
        rig r;
        rig_init(&r, NULL, 1, 0, il);
        kh_flit rd = mk_rd(2, 1, 0, 0, 0);
        kh_hdr_set_rsvd(rd.w, 4 | 1);
        tep_send(r.src[0], &rd);
        rig_run(&r);
        kh_node_counts c;
        kh_node_get_counts(r.n, &c);
        CHECK_EQ(c.ilink_drops, (unsigned)il);
        CHECK_EQ(r.sink[0]->ngot, (unsigned)!il);
        rig_free(&r);
    }
}

/* Outbound: an agent flit leaves by the port whose row equals dst_y, port 0
 * if none (memory.md §2). */
static void agent_flits_leave_by_row(void)
{
    rig r;
    rig_init(&r, NULL, 3, 0, 0);
    agent a = {.refuse_after = 64};
    static const unsigned dy[4] = {3, 4, 7, 1}; /* ports on rows 1, 3, 4 */
    for (unsigned i = 0; i < 4; i++) a.out[a.nout++] = mk_hdr(KH_T_CU_INST, 0, 1, 5, dy[i], i, 1);
    install(&r, &a);
    kh_node_agent_ready(r.n, kh_sim_now(r.sim));
    rig_run(&r);
    CHECK_EQ(a.head, 4);
    CHECK_EQ(r.sink[0]->ngot, 2); /* row 7 has no port: port 0; and row 1 */
    CHECK_EQ(r.sink[1]->ngot, 1);
    CHECK_EQ(r.sink[2]->ngot, 1);
    CHECK_EQ(kh_hdr_txn(r.sink[0]->got[0].w), 2);
    CHECK_EQ(kh_hdr_txn(r.sink[0]->got[1].w), 3);
    rig_free(&r);
}

/* Priority: the agent outranks the engine at a port's output register; one
 * agent flit per cycle across the node. */
static void agent_outranks_engine(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    agent a = {.refuse_after = 64};
    install(&r, &a);
    kh_flit rd = mk_rd(2, 1, 0, 7, 0);
    tep_send(r.src[0], &rd);
    /* run until the read's beats flow, then hand the agent two flits */
    while (r.sink[0]->ngot < 2) kh_sim_run(r.sim, 1);
    a.out[a.nout++] = mk_hdr(KH_T_CU_INST, 0, 1, 5, 1, 0xA1, 1);
    a.out[a.nout++] = mk_hdr(KH_T_CU_INST, 0, 1, 5, 1, 0xA2, 1);
    kh_node_agent_ready(r.n, kh_sim_now(r.sim));
    rig_run(&r);
    tep *s = r.sink[0];
    CHECK_EQ(s->ngot, 10);
    /* the two agent flits went out back to back, ahead of the remaining beats */
    unsigned i;
    for (i = 0; i < s->ngot && kh_hdr_type(s->got[i].w) != KH_T_CU_INST; i++) {}
    CHECK(i < 4);
    CHECK_EQ(kh_hdr_txn(s->got[i + 1].w), 0xA2);
    CHECK_EQ(s->got_at[i + 1], s->got_at[i] + 1);
    CHECK_EQ(a.took_at[1], a.took_at[0] + 1);
    rig_free(&r);
}

/* §10: busy = either intake FIFO at q_depth - q_margin; it holds the link
 * and releases it when the engine pops. */
static void intake_busy_at_margin(void)
{
    kh_params p;
    kh_params_default(&p);
    p.q_depth = 8;
    p.q_margin = 2;
    p.wr_slots = 1;
    rig r;
    rig_init(&r, &p, 1, 0, 0);
    /* one open write (slot taken), a second descriptor blocks the queue */
    kh_flit f = mk_wr(2, 1, 0x100, 0, 1);
    tep_send(r.src[0], &f);
    f = mk_wr(3, 1, 0x200, 0, 2);
    tep_send(r.src[0], &f);
    for (int i = 0; i < 10; i++) {
        f = mk_data(4, 1, 0, 0, 1); /* stuck behind the descriptor */
        tep_send(r.src[0], &f);
    }
    rig_run(&r);
    /* 1 descriptor popped; 6 = q_depth - q_margin sit in the queue */
    CHECK_EQ(r.src[0]->head, 7);
    rig_free(&r);
}

/* Two ports deliver agent flits in the same cycle: one per cycle reaches
 * the agent, the other port holds busy and delivers next (round-robin). */
static void agent_takes_one_flit_per_cycle(void)
{
    rig r;
    rig_init(&r, NULL, 2, 0, 0);
    agent a = {.refuse_after = 64};
    install(&r, &a);
    for (unsigned p = 0; p < 2; p++)
        for (unsigned i = 0; i < 3; i++) {
            kh_flit f = mk_hdr(KH_T_CU_SIGNAL, 2 + p, 1, 0, 1, i, 1);
            tep_send(r.src[p], &f);
        }
    rig_run(&r);
    CHECK_EQ(a.taken, 6);
    kh_node_counts c;
    kh_node_get_counts(r.n, &c);
    CHECK_EQ(c.agent_drops, 0);
    rig_free(&r);
}

/* Ports 0 and 1 offer CU_SIGNALs (txn 10+i at port 0, 20+i at port 1) from
 * the same cycle, senders stepped in the order `order`; after a lone flit
 * at port `lead` (if lead < 2) has moved the pointer. Returns the agent's
 * record. */
static void same_cycle_feed(const unsigned order[2], unsigned lead, agent *a)
{
    rig r;
    rig_init_order(&r, NULL, 2, 0, 0, order);
    memset(a, 0, sizeof *a);
    a->refuse_after = 64;
    install(&r, a);
    if (lead < 2) {
        kh_flit f = mk_hdr(KH_T_CU_SIGNAL, 2, 1, 0, 1, 99, 1);
        tep_send(r.src[lead], &f);
        rig_run(&r);
    }
    kh_cycle t0 = kh_sim_now(r.sim) + 5;
    for (unsigned i = 0; i < 3; i++) {
        kh_flit f0 = mk_hdr(KH_T_CU_SIGNAL, 2, 1, 0, 1, 10 + i, 1);
        kh_flit f1 = mk_hdr(KH_T_CU_SIGNAL, 3, 1, 0, 3, 20 + i, 1);
        tep_send_at(r.src[0], &f0, t0);
        tep_send_at(r.src[1], &f1, t0);
    }
    rig_run(&r);
    for (unsigned i = 0; i < a->taken; i++)
        if (a->at[i] >= t0) a->at[i] -= t0; /* relative to the first offer */
    rig_free(&r);
}

/* Rule 4 round-robin (memory.md §2): with both ports offering in the same
 * cycles the agent takes one flit per cycle, alternating from the pointer,
 * which moves to (winner + 1) mod PORTS; a loser holds busy and wins the
 * next cycle. Expected (worked by hand): pointer 0 -> 10, 20, 11, 21, 12,
 * 22 in cycles 0..5; whichever sender is stepped first. */
static void agent_round_robin_independent_of_step_order(void)
{
    static const unsigned fwd[2] = {0, 1}, rev[2] = {1, 0};
    static const unsigned want_port[6] = {0, 1, 0, 1, 0, 1}, want_txn[6] = {10, 20, 11, 21, 12, 22};
    agent a, b;
    same_cycle_feed(fwd, 2, &a);
    same_cycle_feed(rev, 2, &b);
    CHECK_EQ(a.taken, 6);
    CHECK_EQ(b.taken, 6);
    for (unsigned i = 0; i < 6 && i < a.taken && i < b.taken; i++) {
        CHECK_EQ(a.port[i], want_port[i]);
        CHECK_EQ(a.txn[i], want_txn[i]);
        CHECK_EQ(a.at[i], i);
        CHECK_EQ(b.port[i], a.port[i]);
        CHECK_EQ(b.txn[i], a.txn[i]);
        CHECK_EQ(b.at[i], a.at[i]);
    }
}

/* The pointer is state: after a lone flit at port 0 it points at port 1,
 * so port 1 wins the next same-cycle contest (both orders). */
static void agent_pointer_moves_past_the_winner(void)
{
    static const unsigned fwd[2] = {0, 1}, rev[2] = {1, 0};
    static const unsigned want_txn[7] = {99, 20, 10, 21, 11, 22, 12};
    agent a, b;
    same_cycle_feed(fwd, 0, &a);
    same_cycle_feed(rev, 0, &b);
    CHECK_EQ(a.taken, 7);
    CHECK_EQ(b.taken, 7);
    for (unsigned i = 0; i < 7 && i < a.taken && i < b.taken; i++) {
        CHECK_EQ(a.txn[i], want_txn[i]);
        CHECK_EQ(b.txn[i], want_txn[i]);
        if (i) CHECK_EQ(a.at[i], i - 1);
        if (i) CHECK_EQ(b.at[i], i - 1);
    }
}

/* ---- rule 1: remote flits into the interlink's skid ---- */

/* A MEM_WR_DATA marked remote for mesh 1 with final node (0,1), one flit
 * per packet (last = 1); its payload word 0 carries `id`. */
static kh_flit mk_remote(unsigned sx, unsigned sy, unsigned id, unsigned last)
{
    kh_flit f = mk_hdr(KH_T_MEM_WR_DATA, sx, sy, 0, 1, 0, last);
    kh_hdr_set_rsvd_remote(f.w, 1);
    kh_hdr_set_rsvd_mesh(f.w, 1);
    kh_hdr_set_txn_fin_x(f.w, 0);
    kh_hdr_set_txn_fin_y(f.w, 1);
    uint64_t d[4] = {id, 0, 0, 0};
    kh_mem_wr_data_set_data(f.w, d);
    return f;
}

/* The far side: a mesh-1 node with one port at (0,1) joined to the rig's
 * node, whose injected flits reach a test endpoint. */
static tep *far_side(rig *r)
{
    kh_node_cfg cfg = {.mesh_id = 1, .nports = 1, .interlink = 1};
    cfg.port[0].x = 0;
    cfg.port[0].y = 1;
    char err[256];
    kh_node *far = kh_node_new(r->sim, &cfg, err, sizeof err);
    if (!far || kh_node_ilink_join(r->n, far, err, sizeof err)) {
        printf("  far side: %s\n", err);
        exit(1);
    }
    tep *sink = tep_new(r->sim, "far_sink");
    sink->in = kh_link_new(r->sim, kh_node_port(far, 0), &sink->c, 0, tep_accept, "far_out");
    kh_node_set_port_out(far, 0, sink->in);
    return sink;
}

#define REMOTE_N 4 /* remote flits per port */

typedef struct far_rec {
    unsigned n, id[2 * REMOTE_N + 1];
    kh_cycle at[2 * REMOTE_N + 1];
} far_rec;

/* Ports 0 and 1 offer REMOTE_N remote flits each (ids 10+i from (2,1) at
 * port 0, 20+i from (3,3) at port 1) from the same cycle t0, senders
 * stepped in the order `order`; after a lone remote flit (id 99) at port
 * `lead` (if lead < 2) has moved the pointer. Records the far mesh's
 * arrivals (ids, cycles from t0). */
static void same_cycle_remote(const unsigned order[2], unsigned lead, far_rec *out)
{
    rig r;
    rig_init_order(&r, NULL, 2, 0, 1, order);
    tep *sink = far_side(&r);
    if (lead < 2) {
        kh_flit f = mk_remote(2, 1, 99, 1);
        tep_send(r.src[lead], &f);
        rig_run(&r);
    }
    kh_cycle t0 = kh_sim_now(r.sim) + 5;
    for (unsigned i = 0; i < REMOTE_N; i++) {
        kh_flit f0 = mk_remote(2, 1, 10 + i, 1), f1 = mk_remote(3, 3, 20 + i, 1);
        tep_send_at(r.src[0], &f0, t0);
        tep_send_at(r.src[1], &f1, t0);
    }
    rig_run(&r);
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < sink->ngot && out->n < 2 * REMOTE_N + 1; i++) {
        uint64_t d[4];
        kh_mem_wr_data_data_get(sink->got[i].w, d);
        out->id[out->n] = (unsigned)d[0];
        out->at[out->n++] = sink->got_at[i] >= t0 ? sink->got_at[i] - t0 : 0;
    }
    kh_node_counts c;
    kh_node_get_counts(r.n, &c);
    CHECK_EQ(c.ilink_drops, 0);
    rig_free(&r);
}

/* Rule 1 round-robin (memory.md §2): with both ports offering remote
 * flits in the same cycles, one enters the skid per cycle, the first held
 * port from the pointer, which moves to (winner + 1) mod PORTS; a loser
 * holds busy, and a full skid holds both until it drains. Each flit is its
 * own packet, so the far mesh sees the skid order. Expected (worked by
 * hand): pointer 0 -> 10, 20, 11, 21, ... whichever sender is stepped
 * first, at the same cycles. */
static void remote_round_robin_independent_of_step_order(void)
{
    static const unsigned fwd[2] = {0, 1}, rev[2] = {1, 0};
    far_rec a, b;
    same_cycle_remote(fwd, 2, &a);
    same_cycle_remote(rev, 2, &b);
    CHECK_EQ(a.n, 2 * REMOTE_N);
    CHECK_EQ(b.n, 2 * REMOTE_N);
    for (unsigned i = 0; i < 2 * REMOTE_N && i < a.n && i < b.n; i++) {
        CHECK_EQ(a.id[i], (i & 1 ? 20u : 10u) + i / 2);
        CHECK_EQ(b.id[i], a.id[i]);
        CHECK_EQ(b.at[i], a.at[i]);
        if (i) CHECK(a.at[i] > a.at[i - 1]);
    }
}

/* The rule-1 pointer is state of its own: after a lone remote flit at
 * port 0 it points at port 1, so port 1 wins the next same-cycle contest
 * (both orders): 99, then 20, 10, 21, 11, ... */
static void remote_pointer_moves_past_the_winner(void)
{
    static const unsigned fwd[2] = {0, 1}, rev[2] = {1, 0};
    far_rec a, b;
    same_cycle_remote(fwd, 0, &a);
    same_cycle_remote(rev, 0, &b);
    CHECK_EQ(a.n, 2 * REMOTE_N + 1);
    CHECK_EQ(b.n, 2 * REMOTE_N + 1);
    for (unsigned i = 0; i < 2 * REMOTE_N + 1 && i < a.n && i < b.n; i++) {
        unsigned want = i == 0 ? 99u : ((i - 1) & 1 ? 10u : 20u) + (i - 1) / 2;
        CHECK_EQ(a.id[i], want);
        CHECK_EQ(b.id[i], want);
        CHECK_EQ(b.at[i], a.at[i]);
    }
}

/* A remote flit that cannot enter a full skid holds its port's hub
 * register: the port refuses its link, nothing polls, and when the skid
 * never drains (its head is another group behind an open packet,
 * control.md §7.2) the machine goes idle and the hang report names the
 * held flit (memory.md §2 rule 1). */
static void remote_flit_held_behind_a_full_skid_is_diagnosed(void)
{
    rig r;
    rig_init(&r, NULL, 2, 0, 1);
    far_side(&r);
    kh_flit open = mk_remote(2, 1, 1, 0); /* last = 0: the packet stays open */
    tep_send(r.src[0], &open);
    rig_run(&r);
    for (unsigned i = 0; i < 4; i++) { /* two fill the skid, one is held, one waits at the link */
        kh_flit f = mk_remote(3, 3, 20 + i, 1);
        tep_send(r.src[1], &f);
    }
    CHECK(kh_sim_run_until_idle(r.sim, 100000));
    CHECK_EQ(r.src[1]->head, 3);
    char diag[4096];
    CHECK(kh_sim_describe_stuck(r.sim, diag, sizeof diag) > 0);
    CHECK(strstr(diag, "waits for a flit with last = 1") != NULL);
    CHECK(strstr(diag, "hub register holds a remote flit from (3,3) for mesh 1") != NULL);
    rig_free(&r);
}

int main(void)
{
    KH_RUN(rule4_types_go_to_the_agent);
    KH_RUN(refused_agent_flit_is_dropped);
    KH_RUN(dst_00_dropped_without_processor);
    KH_RUN(remote_marker_only_with_interlink);
    KH_RUN(agent_flits_leave_by_row);
    KH_RUN(agent_outranks_engine);
    KH_RUN(intake_busy_at_margin);
    KH_RUN(agent_takes_one_flit_per_cycle);
    KH_RUN(agent_round_robin_independent_of_step_order);
    KH_RUN(agent_pointer_moves_past_the_winner);
    KH_RUN(remote_round_robin_independent_of_step_order);
    KH_RUN(remote_pointer_moves_past_the_winner);
    KH_RUN(remote_flit_held_behind_a_full_skid_is_diagnosed);
    return kh_test_end("t_node_hub");
}
