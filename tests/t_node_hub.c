/* The hub at each memory port (memory.md §2): inbound classification,
 * the control agent hook, outbound port choice and priority. */
#include "node_rig.h"

typedef struct agent {
    unsigned taken, refuse_after;
    unsigned port[64];
    unsigned type[64];
    kh_flit out[16];
    unsigned nout, head;
    kh_cycle took_at[16];
} agent;

static int ag_accept(void *ctx, unsigned port, const kh_flit *f, kh_cycle now)
{
    agent *a = ctx;
    (void)now;
    if (a->taken >= a->refuse_after) return 0;
    a->port[a->taken] = port;
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
    return kh_test_end("t_node_hub");
}
