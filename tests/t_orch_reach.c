/* Lane promises' reading of the orchestrator (kh_orch_stays_local,
 * src/orch/orch_reach.c, docs/mpi.md "Lane promises"): what it has pushed
 * and what it will push without a register write, judged flit by flit (the
 * remote marker, flits.md §2.4) and CU_INST by CU_INST (the caller's
 * inst_ok, told the destination from PROG_DST and whether the cluster
 * word's dfin field, isa/cluster.isa, names a far mesh). A stand-in for
 * the node takes every flit the orchestrator offers. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/cluster.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/orch.h"
#include "support/test.h"

typedef struct node {
    kh_comp base;
    kh_orch *o;
    unsigned got;
} node;

static void node_step(kh_comp *c, kh_cycle now)
{
    node *n = (node *)c;
    if (kh_orch_agent_peek(n->o, now)) {
        n->got++;
        kh_orch_agent_take(n->o, now);
    }
}

static const kh_comp_ops node_ops = {.kind = "node", .step = node_step};
static void env_ready(void *ctx, kh_cycle at) { kh_comp_wake(&((node *)ctx)->base, at); }

typedef struct bench {
    kh_sim *sim;
    kh_orch *o;
    node *n;
} bench;

static bench make(void)
{
    kh_params p;
    kh_params_default(&p);
    bench b;
    b.sim = kh_sim_new(&p);
    b.n = calloc(1, sizeof *b.n);
    kh_sim_add(b.sim, &b.n->base, &node_ops, "node");
    kh_orch_cfg cfg = {.x = 0, .y = 1, .grid_lo = 1, .grid_hi = 2};
    kh_orch_env env = {.ctx = b.n, .ready = env_ready};
    char err[256];
    b.o = kh_orch_new(b.sim, &cfg, &env, err, sizeof err);
    if (!b.o) printf("orch: %s\n", err);
    b.n->o = b.o;
    return b;
}

static void done(bench *b)
{
    kh_sim_destroy(b->sim);
    free(b->n);
}

static void wr(bench *b, uint32_t off, uint64_t v) { kh_orch_write(b->o, off, v, 0xFF, kh_sim_now(b->sim)); }
static void run(bench *b, kh_cycle n) { kh_sim_run(b->sim, n); }

/* The judge: records each CU_INST asked about; accepts (1,1) without dfin. */
typedef struct judge {
    unsigned asked, x, y;
    int dfin;
} judge;

static int inst_ok(void *ctx, unsigned x, unsigned y, int dfin)
{
    judge *j = ctx;
    j->asked++;
    j->x = x;
    j->y = y;
    j->dfin = dfin;
    return x == 1 && y == 1 && !dfin;
}

static kh_flit inst(unsigned dfin)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_type(f.w, KH_T_CU_INST);
    kh_hdr_set_txn(f.w, 1);
    kh_cluster_set_dfin(f.w, dfin);
    return f;
}

static void stage(bench *b, unsigned s, const kh_flit *f)
{
    for (unsigned k = 0; k < 5; k++) wr(b, KH_ORCH_STAGE + 40 * s + 8 * k, f->w[k]);
}

/* PROG_* for slots [base, base + len) to (x, y), then settle the beats */
static void program(bench *b, unsigned base, unsigned len, unsigned x, unsigned y)
{
    wr(b, KH_ORCH_PROG_BASE, base);
    wr(b, KH_ORCH_PROG_LEN, len);
    wr(b, KH_ORCH_PROG_DST, kh_orch_node_index(x, y));
    wr(b, KH_ORCH_PROG_CRED, 8);
    run(b, 3);
}

static void fresh_orchestrator_stays_local(void)
{
    bench b = make();
    judge j = {0};
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 1);
    CHECK_EQ(j.asked, 0);
    done(&b);
}

static void a_pending_register_beat_may_start_anything(void)
{
    bench b = make();
    judge j = {0};
    wr(&b, KH_ORCH_PROG_LEN, 1); /* lands at the end of its cycle, acts after */
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 0);
    run(&b, 3);
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 1);
    done(&b);
}

static void every_cu_inst_sent_is_judged_by_destination(void)
{
    bench b = make();
    judge j = {0};
    kh_flit f = inst(0);
    stage(&b, 0, &f);
    program(&b, 0, 1, 1, 1);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 30);
    CHECK_EQ(b.n->got, 1);
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 1);
    CHECK_EQ(j.asked, 1);
    CHECK_EQ(j.x, 1);
    CHECK_EQ(j.y, 1);
    CHECK_EQ(j.dfin, 0);
    /* another program to (1,2): the judge refuses that place, for good */
    program(&b, 0, 1, 1, 2);
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 30);
    CHECK_EQ(b.n->got, 2);
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 0);
    done(&b);
}

static void the_rest_of_a_running_program_is_read_before_it_is_pushed(void)
{
    /* slot 0 harmless, slot 1 a far-mesh drain: while slot 0 is being
     * read the answer is already 0, and stays 0 once both are out */
    bench b = make();
    judge j = {0};
    kh_flit f0 = inst(0), f1 = inst(5);
    stage(&b, 0, &f0);
    stage(&b, 1, &f1);
    program(&b, 0, 2, 1, 1);
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 1); /* not kicked: the RAM is not the program */
    wr(&b, KH_ORCH_PROG_KICK, 1);
    run(&b, 3); /* the kick landed: words of slot 0 are being read */
    CHECK_EQ(b.n->got, 0);
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 0);
    CHECK_EQ(j.dfin, 1);
    run(&b, 40);
    CHECK_EQ(b.n->got, 2);
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 0);
    done(&b);
}

static void a_remote_marker_pushed_is_remembered(void)
{
    bench b = make();
    judge j = {0};
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_type(f.w, KH_T_CU_DATA);
    kh_hdr_set_rsvd_remote(f.w, 1);
    kh_hdr_set_rsvd_mesh(f.w, 2);
    for (unsigned k = 0; k < 5; k++) wr(&b, KH_ORCH_TX_FLIT + 8 * k, f.w[k]);
    run(&b, 3);
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 1); /* staged in the mailbox, not kicked */
    wr(&b, KH_ORCH_TX_KICK, 1);
    run(&b, 20);
    CHECK_EQ(b.n->got, 1); /* gone from the TX FIFO, maybe still on its way */
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 0);
    CHECK_EQ(j.asked, 0);
    done(&b);
}

static void a_mailbox_cu_inst_is_judged_by_its_header_destination(void)
{
    /* the mailbox sends the host's header as it is: dst (2,1), not the
     * PROG_DST, which names (1,1); x and y apart, so a swap shows */
    bench b = make();
    judge j = {0};
    kh_flit f = inst(0);
    kh_hdr_set_dst_x(f.w, 2);
    kh_hdr_set_dst_y(f.w, 1);
    program(&b, 0, 1, 1, 1);
    for (unsigned k = 0; k < 5; k++) wr(&b, KH_ORCH_TX_FLIT + 8 * k, f.w[k]);
    wr(&b, KH_ORCH_TX_KICK, 1);
    run(&b, 20);
    CHECK_EQ(b.n->got, 1);
    CHECK_EQ(kh_orch_stays_local(b.o, inst_ok, &j), 0);
    CHECK_EQ(j.asked, 1);
    CHECK_EQ(j.x, 2);
    CHECK_EQ(j.y, 1);
    CHECK_EQ(j.dfin, 0);
    done(&b);
}

int main(void)
{
    KH_RUN(fresh_orchestrator_stays_local);
    KH_RUN(a_pending_register_beat_may_start_anything);
    KH_RUN(every_cu_inst_sent_is_judged_by_destination);
    KH_RUN(the_rest_of_a_running_program_is_read_before_it_is_pushed);
    KH_RUN(a_remote_marker_pushed_is_remembered);
    KH_RUN(a_mailbox_cu_inst_is_judged_by_its_header_destination);
    return kh_test_end("t_orch_reach");
}
