/* Flits addressed to (0,0) under the machine option cpu_mode (control.md
 * Open point 16 revised, memory.md §2 rule 2): cpu (the seed rule, but a
 * CU_CTRL reply goes to the agent's RX), cpu-exact, agent, drop; the
 * processor's hub register holds a flit it cannot take, never drops it;
 * processor flits leave by row below the agent. */
#include "node_rig.h"
#include "kohaku/card.h"
#include "kohaku/machine.h"

typedef struct agent {
    unsigned taken;
    unsigned type[64];
    kh_flit out[8];
    unsigned nout, head;
} agent;

static int ag_accept(void *ctx, unsigned port, const kh_flit *f, kh_cycle now)
{
    agent *a = ctx;
    (void)port;
    (void)now;
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
    (void)now;
    ((agent *)ctx)->head++;
}

/* A processor stand-in that refuses until cycle `from`. */
typedef struct cpu {
    kh_cycle from;
    unsigned taken;
    unsigned txn[64];
    kh_cycle at[64];
    kh_flit out[8];
    unsigned nout, head;
} cpu;

static int cpu_accept(void *ctx, const kh_flit *f, kh_cycle now)
{
    cpu *c = ctx;
    if (now < c->from) return 0;
    c->at[c->taken] = now;
    c->txn[c->taken++] = (unsigned)kh_hdr_txn(f->w);
    return 1;
}
static const kh_flit *cpu_peek(void *ctx, kh_cycle now)
{
    cpu *c = ctx;
    (void)now;
    return c->head < c->nout ? &c->out[c->head] : NULL;
}
static void cpu_take(void *ctx, kh_cycle now)
{
    (void)now;
    ((cpu *)ctx)->head++;
}

static void rig_mode(rig *r, unsigned mode, unsigned nports, agent *a, cpu *c)
{
    kh_params p;
    kh_params_default(&p);
    p.cpu_mode = mode;
    rig_init(r, &p, nports, 0, 0);
    kh_node_agent ah = {.ctx = a, .accept = ag_accept, .peek = ag_peek, .take = ag_take};
    kh_node_set_agent(r->n, &ah);
    if (c) {
        kh_node_cpu ch = {.ctx = c, .accept = cpu_accept, .peek = cpu_peek, .take = cpu_take};
        kh_node_set_cpu(r->n, &ch);
    }
}

/* A CU_CTRL flit to (0,0) from (2,1): a reply (op 2) or a read request (op 0). */
static kh_flit ctrl_to_00(unsigned op, unsigned txn)
{
    kh_flit f = mk_hdr(KH_T_CU_CTRL, 2, 1, 0, 0, txn, 1);
    kh_cu_ctrl_set_op(f.w, op);
    return f;
}

/* The three flits every mode is shown: a CU_CTRL reply, a CU_INST and a
 * plain read, all to (0,0). */
static void send_three(rig *r)
{
    kh_flit reply = ctrl_to_00(2, 1), inst = mk_hdr(KH_T_CU_INST, 2, 1, 0, 0, 2, 1);
    kh_flit rd = mk_rd(2, 1, 0, 0, 3);
    kh_hdr_set_dst_x(rd.w, 0);
    kh_hdr_set_dst_y(rd.w, 0);
    tep_send(r->src[0], &reply);
    tep_send(r->src[0], &inst);
    tep_send(r->src[0], &rd);
    rig_run(r);
}

/* Default cpu with no processor attached: the reply reaches the agent, the
 * rest is dropped and logged. */
static void cpu_mode_without_processor_routes_replies_to_the_agent(void)
{
    rig r;
    agent a = {0};
    rig_mode(&r, KH_CPU_MODE_CPU, 1, &a, NULL);
    send_three(&r);
    kh_node_counts k;
    kh_node_get_counts(r.n, &k);
    CHECK_EQ(a.taken, 1);
    CHECK_EQ(a.type[0], KH_T_CU_CTRL);
    CHECK_EQ(k.cpu_replies, 1);
    CHECK_EQ(k.cpu_drops, 2);
    CHECK_EQ(r.sink[0]->ngot, 0); /* the read was not served */
    CHECK(strstr(r.lastlog, "Open point 16") != NULL);
    rig_free(&r);
}

/* cpu-exact without a processor: even the reply is dropped. */
static void cpu_exact_without_processor_drops_everything(void)
{
    rig r;
    agent a = {0};
    rig_mode(&r, KH_CPU_MODE_EXACT, 1, &a, NULL);
    send_three(&r);
    kh_node_counts k;
    kh_node_get_counts(r.n, &k);
    CHECK_EQ(a.taken, 0);
    CHECK_EQ(k.cpu_drops, 3);
    CHECK_EQ(k.cpu_replies, 0);
    rig_free(&r);
}

/* agent: no rule 2; the reply and the CU_INST go to the agent (rule 4) and
 * the read is served by the port's engine (rule 3), its beat back to (0,0). */
static void agent_mode_is_the_older_agent(void)
{
    rig r;
    agent a = {0};
    cpu c = {0};
    rig_mode(&r, KH_CPU_MODE_AGENT, 1, &a, &c); /* attached, but agent mode never uses it */
    send_three(&r);
    kh_node_counts k;
    kh_node_get_counts(r.n, &k);
    CHECK_EQ(a.taken, 2);
    CHECK_EQ(a.type[0], KH_T_CU_CTRL);
    CHECK_EQ(a.type[1], KH_T_CU_INST);
    CHECK_EQ(c.taken, 0);
    CHECK_EQ(k.cpu_drops, 0);
    CHECK_EQ(r.sink[0]->ngot, 1);
    CHECK_EQ(kh_hdr_type(r.sink[0]->got[0].w), KH_T_MEM_RD_RESP);
    rig_free(&r);
}

/* drop: every flit to (0,0) dropped, processor attached or not. */
static void drop_mode_drops_everything(void)
{
    rig r;
    agent a = {0};
    cpu c = {0};
    rig_mode(&r, KH_CPU_MODE_DROP, 1, &a, &c);
    send_three(&r);
    kh_node_counts k;
    kh_node_get_counts(r.n, &k);
    CHECK_EQ(a.taken, 0);
    CHECK_EQ(c.taken, 0);
    CHECK_EQ(k.cpu_drops, 3);
    CHECK(strstr(r.lastlog, "cpu_mode drop") != NULL);
    rig_free(&r);
}

/* With a processor: cpu hands it everything but the reply; cpu-exact hands it
 * the reply too. */
static void processor_gets_its_flits(void)
{
    for (unsigned exact = 0; exact < 2; exact++) {
        rig r;
        agent a = {0};
        cpu c = {0};
        rig_mode(&r, exact ? KH_CPU_MODE_EXACT : KH_CPU_MODE_CPU, 1, &a, &c);
        kh_flit req = ctrl_to_00(0, 4);
        tep_send(r.src[0], &req);
        send_three(&r);
        CHECK_EQ(c.taken, exact ? 4u : 3u);
        CHECK_EQ(a.taken, exact ? 0u : 1u);
        CHECK_EQ(c.txn[0], 4);
        kh_node_counts k;
        kh_node_get_counts(r.n, &k);
        CHECK_EQ(k.cpu_flits, c.taken);
        CHECK_EQ(k.cpu_drops, 0);
        rig_free(&r);
    }
}

/* A processor that cannot take a flit: the hub register holds it (the link
 * is refused, nothing dropped) until it can, and the flit behind it, for
 * the engine, waits (memory.md §2: held while the processor is busy). */
static void busy_processor_holds_the_port(void)
{
    rig r;
    agent a = {0};
    cpu c = {.from = 40};
    rig_mode(&r, KH_CPU_MODE_CPU, 1, &a, &c);
    kh_flit inst = mk_hdr(KH_T_CU_INST, 2, 1, 0, 0, 7, 1), rd = mk_rd(2, 1, 0, 0, 8);
    tep_send(r.src[0], &inst);
    tep_send(r.src[0], &rd);
    rig_run(&r);
    CHECK_EQ(c.taken, 1);
    CHECK_EQ(c.at[0], 40);
    kh_node_counts k;
    kh_node_get_counts(r.n, &k);
    CHECK_EQ(k.cpu_drops, 0);
    CHECK_EQ(r.sink[0]->ngot, 1);
    CHECK(r.sink[0]->got_at[0] > 40); /* the read entered only after the release */
    rig_free(&r);
}

/* Two ports offering processor flits in one cycle: one per cycle, the
 * pointer moving past the winner. */
static void processor_round_robin(void)
{
    rig r;
    agent a = {0};
    cpu c = {0};
    rig_mode(&r, KH_CPU_MODE_CPU, 2, &a, &c);
    for (unsigned i = 0; i < 2; i++) {
        kh_flit f0 = mk_hdr(KH_T_CU_INST, 2, 1, 0, 0, 10 + i, 1);
        kh_flit f1 = mk_hdr(KH_T_CU_INST, 2, 3, 0, 0, 20 + i, 1);
        tep_send(r.src[0], &f0);
        tep_send(r.src[1], &f1);
    }
    rig_run(&r);
    CHECK_EQ(c.taken, 4);
    CHECK_EQ(c.txn[0], 10);
    CHECK_EQ(c.txn[1], 20);
    CHECK_EQ(c.txn[2], 11);
    CHECK_EQ(c.txn[3], 21);
    for (unsigned i = 1; i < 4; i++) CHECK(c.at[i] > c.at[i - 1]);
    rig_free(&r);
}

/* Outbound: a processor flit leaves by its row's port; the agent's goes
 * first when both want the same port in the same cycle. */
static void processor_flits_leave_by_row_below_the_agent(void)
{
    rig r;
    agent a = {0};
    cpu c = {0};
    rig_mode(&r, KH_CPU_MODE_CPU, 2, &a, &c);
    c.out[c.nout++] = mk_hdr(KH_T_CU_SIGNAL, 0, 0, 5, 3, 0xC1, 1); /* row 3: port 1 */
    c.out[c.nout++] = mk_hdr(KH_T_CU_SIGNAL, 0, 0, 5, 1, 0xC2, 1); /* row 1: port 0 */
    a.out[a.nout++] = mk_hdr(KH_T_CU_INST, 0, 1, 5, 3, 0xA1, 1);
    kh_node_agent_ready(r.n, kh_sim_now(r.sim));
    kh_node_cpu_ready(r.n, kh_sim_now(r.sim));
    rig_run(&r);
    CHECK_EQ(c.head, 2);
    CHECK_EQ(r.sink[1]->ngot, 2);
    CHECK_EQ(kh_hdr_txn(r.sink[1]->got[0].w), 0xA1);
    CHECK_EQ(kh_hdr_txn(r.sink[1]->got[1].w), 0xC1);
    CHECK(r.sink[1]->got_at[1] > r.sink[1]->got_at[0]);
    CHECK_EQ(r.sink[0]->ngot, 1);
    CHECK_EQ(kh_hdr_txn(r.sink[0]->got[0].w), 0xC2);
    rig_free(&r);
}

/* The option by name, and a bad name refused naming the choices. */
static void mode_names(void)
{
    kh_params p;
    kh_params_default(&p);
    char err[256];
    CHECK_EQ(p.cpu_mode, KH_CPU_MODE_CPU);
    static const char *names[] = {"cpu", "cpu-exact", "agent", "drop"};
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(kh_params_set(&p, "cpu_mode", names[i], err, sizeof err), 0);
        CHECK_EQ(p.cpu_mode, i);
    }
    CHECK_EQ(kh_params_set(&p, "cpu_mode", "rv64", err, sizeof err), -1);
    CHECK(strstr(err, "cpu-exact") != NULL);
    CHECK_EQ(p.cpu_mode, KH_CPU_MODE_DROP); /* unchanged */
    CHECK_EQ(kh_params_set(&p, "cpu_mode", "4", err, sizeof err), -1);
    CHECK_EQ(kh_params_set(&p, "rx_depth", "cpu", err, sizeof err), -1); /* names belong to their row */
}

/* Upstream's discovery on the default machine: a mailbox CU_CTRL read
 * forged with src (0,0) to the unit at (1,1); its reply reaches the
 * orchestrator's RX under cpu and agent, not under drop. */
static void mailbox_enumeration_reply_reaches_rx(void)
{
    static const unsigned modes[] = {KH_CPU_MODE_CPU, KH_CPU_MODE_AGENT, KH_CPU_MODE_DROP};
    for (unsigned i = 0; i < 3; i++) {
        kh_params p;
        kh_params_default(&p);
        p.cpu_mode = modes[i];
        char err[512];
        kh_machine *m = kh_machine_new(NULL, &p, err, sizeof err);
        CHECK(m != NULL);
        if (!m) return;
        kh_card *card = kh_machine_card(m);
        kh_flit f = mk_hdr(KH_T_CU_CTRL, 0, 0, 1, 1, 0x33, 1);
        kh_cu_ctrl_set_op(f.w, 0);
        kh_cu_ctrl_set_index(f.w, 0);
        for (unsigned k = 0; k < 5; k++)
            CHECK_EQ(kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_FLIT + 8 * k), f.w[k], err, sizeof err), 0);
        CHECK_EQ(kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_KICK), 1, err, sizeof err), 0);
        kh_sim_run_until_idle(kh_machine_sim(m), 100000);
        uint64_t st = 0, w[5] = {0};
        CHECK_EQ(kh_card_read64(card, kh_host_ctrl(0, KH_ORCH_RX_STATUS), &st, err, sizeof err), 0);
        int got = !(st >> 16 & 1);
        CHECK_EQ(got, modes[i] != KH_CPU_MODE_DROP);
        if (got) {
            for (unsigned k = 0; k < 5; k++)
                kh_card_read64(card, kh_host_ctrl(0, KH_ORCH_RX_FLIT + 8 * k), &w[k], err, sizeof err);
            kh_flit r;
            memcpy(r.w, w, sizeof w);
            CHECK_EQ(kh_hdr_type(r.w), KH_T_CU_CTRL);
            CHECK_EQ(kh_cu_ctrl_reply_op(r.w), 2);
            CHECK_EQ(kh_hdr_src_x(r.w), 1);
            CHECK_EQ(kh_hdr_src_y(r.w), 1);
            CHECK_EQ(kh_hdr_txn(r.w), 0x33);
        }
        kh_node_counts k;
        kh_node_get_counts(kh_machine_node(m), &k);
        CHECK_EQ(k.cpu_drops, modes[i] == KH_CPU_MODE_DROP);
        kh_machine_free(m);
    }
}

int main(void)
{
    KH_RUN(cpu_mode_without_processor_routes_replies_to_the_agent);
    KH_RUN(cpu_exact_without_processor_drops_everything);
    KH_RUN(agent_mode_is_the_older_agent);
    KH_RUN(drop_mode_drops_everything);
    KH_RUN(processor_gets_its_flits);
    KH_RUN(busy_processor_holds_the_port);
    KH_RUN(processor_round_robin);
    KH_RUN(processor_flits_leave_by_row_below_the_agent);
    KH_RUN(mode_names);
    KH_RUN(mailbox_enumeration_reply_reaches_rx);
    return kh_test_end("t_node_zero");
}
