/* The live flit checker (include/kohaku/check.h, docs/check.md): bad flits
 * put on a running machine through the orchestrator's raw mailbox and by a
 * unit's own send path are named with rule, field and value; the demo GEMM
 * and the driver sequences of control.md §4 run clean; the checker and a
 * trace sink see every transfer together. Expected findings come from the
 * rules of flits.md §9, not from the checker. */
#include <stdlib.h>
#include <string.h>

#include "ilink_kit.h"
#include "kohaku/gemm.h"
#include "kohaku/orch.h"
#include "kohaku/session.h"
#include "kohaku/trace.h"
#include "kohaku/unitbench.h"

/* ---- a reporter that keeps every finding ---- */

#define MAXF 64
typedef struct seen {
    unsigned n, violations, warnings;
    kh_check_finding f[MAXF];
    char line[MAXF][900];
} seen;

static void collect(void *ctx, const kh_check_finding *f)
{
    seen *s = ctx;
    if (f->issue.warn) s->warnings++;
    else s->violations++;
    if (s->n < MAXF) {
        s->f[s->n] = *f;
        kh_check_format(f, s->line[s->n], sizeof s->line[s->n]);
        s->n++;
    }
}

/* The first finding of rule r, or NULL. */
static const kh_check_finding *find(const seen *s, unsigned r, unsigned *at)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->f[i].issue.rule == r) {
            if (at) *at = i;
            return &s->f[i];
        }
    return NULL;
}

static void show(const seen *s)
{
    for (unsigned i = 0; i < s->n; i++) printf("  finding: %s\n", s->line[i]);
}

/* ---- through the orchestrator's raw mailbox (control.md §2.7) ---- */

/* flits.md §9 V15: CU_SIGNAL code 0x02 (BARRIER_REACHED) is allocated and
 * never emitted. The mailbox stamps nothing, so the flit leaves memory port
 * 0 as the host wrote it: the finding names the rule, the field and its
 * value, the link, the path (the mailbox) and carries the flit. */
static void mailbox_flit_is_named_with_rule_field_and_value(void)
{
    kit k;
    if (kit_init(&k, 1, NULL)) return;
    seen s = {0};
    CHECK_EQ(kh_machine_set_check(k.m, collect, &s), 0);
    kh_flit f = kit_hdr(KH_T_CU_SIGNAL, 0, 1, 0, 1, 0x21, 1, 0); /* to the orchestrator itself */
    kh_cu_signal_set_code(f.w, 0x02);
    kit_tx(&k, 0, &f);
    kh_sim_run_until_idle(k.sim, 10000);
    unsigned i;
    const kh_check_finding *g = find(&s, 15, &i);
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ(g->issue.warn, 0);
        CHECK(strstr(g->issue.msg, "code=0x02") != NULL);
        CHECK_EQ(g->stage, KH_CHECK_SENT);
        CHECK_EQ(g->origin, KH_ORIGIN_MAILBOX);
        CHECK(g->link && strstr(g->link->name, "mem_port0") == g->link->name);
        CHECK(!memcmp(g->flit.w, f.w, sizeof f.w));
        CHECK(strstr(s.line[i], "V15 CU_SIGNAL code=0x02") != NULL);
        CHECK(strstr(s.line[i], "the orchestrator's mailbox") != NULL);
    }
    CHECK_EQ(s.violations, 1);
    CHECK(kh_machine_error(k.m) == NULL); /* a reporter of one's own: the machine is not stopped */
    kit_free(&k);
}

/* V1 and V13 at once, and an unknown type carries the value it has. */
static void mailbox_flits_breaking_v1_and_v13(void)
{
    kit k;
    if (kit_init(&k, 1, NULL)) return;
    seen s = {0};
    CHECK_EQ(kh_machine_set_check(k.m, collect, &s), 0);
    kh_flit bad = kit_hdr(0xA, 1, 1, 0, 1, 0, 1, 0);
    kit_tx(&k, 0, &bad);
    kh_flit wr = kit_hdr(KH_T_MEM_WR_REQ, 0, 1, 0, 1, 0x30, 0, 0);
    kh_mem_wr_req_set_len(wr.w, 9); /* a write is at most 8 beats */
    kit_tx(&k, 0, &wr);
    kh_sim_run_until_idle(k.sim, 10000);
    const kh_check_finding *g = find(&s, 1, NULL);
    CHECK(g && strstr(g->issue.msg, "type=0xA") != NULL);
    g = find(&s, 13, NULL);
    CHECK(g && strstr(g->issue.msg, "len=9") != NULL);
    kit_free(&k);
}

/* V31 is a stream rule: MEM_WR_DATA reaching a port with no open write
 * from its source. It is seen at delivery, on the link into the port. */
static void stream_rule_is_found_at_delivery(void)
{
    kit k;
    if (kit_init(&k, 1, NULL)) return;
    seen s = {0};
    CHECK_EQ(kh_machine_set_check(k.m, collect, &s), 0);
    kh_flit d = kit_hdr(KH_T_MEM_WR_DATA, 0, 1, 1, 1, 0x30, 1, 0);
    kit_tx(&k, 0, &d);
    kh_sim_run_until_idle(k.sim, 10000);
    const kh_check_finding *g = find(&s, 31, NULL);
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ(g->stage, KH_CHECK_DELIVERED);
        CHECK(strstr(g->link->name, ">mem_port0") != NULL);
        CHECK(strstr(g->issue.msg, "from (1,1)") != NULL);
    }
    kit_free(&k);
}

/* With no reporter of its own the machine logs the finding and the first
 * violation is the machine's error, so a session stops there. */
static void the_machines_own_reporter_makes_a_violation_its_error(void)
{
    kit k;
    if (kit_init(&k, 1, NULL)) return;
    CHECK_EQ(kh_machine_set_check(k.m, NULL, NULL), 0);
    kh_flit f = kit_hdr(KH_T_CU_SIGNAL, 0, 1, 0, 1, 0, 1, 0);
    kh_cu_signal_set_code(f.w, 0x05); /* reserved to the framework */
    kit_tx(&k, 0, &f);
    kh_sim_run_until_idle(k.sim, 10000);
    const char *e = kh_machine_error(k.m);
    CHECK(e && strstr(e, "V15 CU_SIGNAL code=0x05") != NULL);
    CHECK(k.warnings >= 1 && strstr(k.lastwarn, "flit check") != NULL); /* logged as an error */
    kh_check_counts n;
    kh_check_get_counts(kh_machine_check(k.m), &n);
    CHECK_EQ(n.violations, 1);
    CHECK_EQ(n.by_rule[15], 1);
    kit_free(&k);
}

/* flits.md §9 V8: an interlink injection keeps its remote sender's src
 * (2,3), which is no endpoint of the far mesh; the checker knows the port
 * injected it for the interlink, so no V8. The sending mesh's mailbox
 * may put any src (V8's exception too). */
static void interlink_injection_keeps_its_remote_src(void)
{
    kit k;
    if (kit_init(&k, 2, NULL)) return;
    seen s = {0};
    CHECK_EQ(kh_machine_set_check(k.m, collect, &s), 0);
    kh_flit b[3];
    unsigned n = kit_remote_burst(b, 1, 0x10, 2, 3, 2, 0, 1); /* to the far orchestrator, ack (0,1) */
    for (unsigned i = 0; i < n; i++) kit_tx(&k, 0, &b[i]);
    kh_sim_run_until_idle(k.sim, 200000);
    unsigned rx = 0;
    while (rx < 4 && kit_rx_has(&k, 1, 0)) {
        kh_flit got = kit_rx_pop(&k, 1);
        CHECK_EQ(kh_hdr_src_x(got.w), 2); /* the remote sender's */
        rx++;
    }
    CHECK_EQ(rx, 3); /* it did cross */
    CHECK_EQ(s.violations, 0);
    if (s.violations) show(&s);
    kh_check_counts c;
    kh_check_get_counts(kh_machine_check(k.m), &c);
    CHECK_EQ(c.sent, 6); /* three by mesh 0's mailbox, three by mesh 1's port for the interlink */
    kit_free(&k);
}

/* ---- the orchestrator says which of its paths made a flit ---- */

static void no_ready(void *ctx, kh_cycle at) { (void)ctx, (void)at; }
static const kh_comp_ops idle_ops = {.kind = "stand-in"};

/* control.md §2.4, §2.7: the dispatcher and the mailbox share the TX FIFO;
 * kh_orch_agent_origin names the head's maker, in FIFO order, across many
 * times the FIFO's capacity (mailbox, two dispatched, mailbox per round). */
static void orchestrator_tells_dispatcher_from_mailbox_in_fifo_order(void)
{
    kh_params p;
    kh_params_default(&p);
    kh_sim *sim = kh_sim_new(&p);
    kh_comp *stand_in = calloc(1, sizeof *stand_in); /* the node's place: takes nothing by itself */
    kh_sim_add(sim, stand_in, &idle_ops, "node");
    kh_orch_cfg cfg = {.x = 0, .y = 1, .grid_lo = 1, .grid_hi = 2};
    kh_orch_env env = {.ctx = NULL, .ready = no_ready};
    char err[256];
    kh_orch *o = kh_orch_new(sim, &cfg, &env, err, sizeof err);
    CHECK(o != NULL);
    if (!o) return;
    kh_flit inst = kit_hdr(KH_T_CU_INST, 0, 0, 0, 0, 1, 0, 0), mb = kit_hdr(KH_T_CU_SIGNAL, 0, 1, 5, 5, 0, 1, 0);
    for (unsigned s = 0; s < 2; s++)
        for (unsigned k = 0; k < 5; k++) kh_orch_write(o, KH_ORCH_STAGE + 40 * s + 8 * k, inst.w[k], 0xFF, kh_sim_now(sim));
    unsigned bad = 0;
    for (unsigned round = 0; round < 20; round++) { /* 80 flits through a 16-entry FIFO */
        kh_cycle t = kh_sim_now(sim);
        for (unsigned k = 0; k < 5; k++) kh_orch_write(o, KH_ORCH_TX_FLIT + 8 * k, mb.w[k], 0xFF, t);
        kh_orch_write(o, KH_ORCH_TX_KICK, 1, 0xFF, t);
        kh_sim_run(sim, 5);
        t = kh_sim_now(sim);
        kh_orch_write(o, KH_ORCH_PROG_BASE, 0, 0xFF, t);
        kh_orch_write(o, KH_ORCH_PROG_LEN, 2, 0xFF, t);
        kh_orch_write(o, KH_ORCH_PROG_DST, kh_orch_node_index(1, 1), 0xFF, t);
        kh_orch_write(o, KH_ORCH_PROG_CRED, 2, 0xFF, t);
        kh_sim_run(sim, 1);
        kh_orch_write(o, KH_ORCH_PROG_KICK, 1, 0xFF, kh_sim_now(sim));
        kh_sim_run(sim, 40);
        t = kh_sim_now(sim);
        for (unsigned k = 0; k < 5; k++) kh_orch_write(o, KH_ORCH_TX_FLIT + 8 * k, mb.w[k], 0xFF, t);
        kh_orch_write(o, KH_ORCH_TX_KICK, 1, 0xFF, t);
        kh_sim_run(sim, 5);
        static const kh_flit_origin want[4] = {KH_ORIGIN_MAILBOX, KH_ORIGIN_DISPATCH, KH_ORIGIN_DISPATCH,
                                               KH_ORIGIN_MAILBOX};
        for (unsigned i = 0; i < 4; i++) {
            kh_cycle now = kh_sim_now(sim);
            const kh_flit *f = kh_orch_agent_peek(o, now);
            if (!f) {
                bad++;
                break;
            }
            if (kh_orch_agent_origin(o, now) != want[i] ||
                (unsigned)kh_hdr_type(f->w) != (want[i] == KH_ORIGIN_MAILBOX ? KH_T_CU_SIGNAL : KH_T_CU_INST))
                bad++;
            kh_orch_agent_take(o, now);
            kh_sim_run(sim, 3);
        }
        /* the dispatcher waits for its credit back: give it */
        kh_orch_write(o, KH_ORCH_PROG_CRED, 2, 0xFF, kh_sim_now(sim));
        kh_sim_run(sim, 3);
    }
    CHECK_EQ(bad, 0);
    kh_sim_destroy(sim);
    free(stand_in);
}

/* ---- a unit's own send path (the shell knows which queue a flit is from) ---- */

/* A unit that, per instruction, sends what a unit must not and then
 * retires properly: a framework completion code (V16), a CU_INST (V23), a
 * flit with another node's src (V8). */
typedef struct rogue {
    kh_cu *cu;
    unsigned step, busy;
} rogue;

static void *rogue_create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    (void)p, (void)err, (void)errlen;
    rogue *r = calloc(1, sizeof *r);
    if (r) r->cu = shell;
    return r;
}
static void rogue_destroy(void *u) { free(u); }
static int rogue_inst(void *u, const kh_flit *f, kh_cycle now)
{
    rogue *r = u;
    (void)f;
    r->busy = 1;
    r->step = 0;
    kh_cu_wake(r->cu, now + 1);
    return 1;
}
static void rogue_step(void *u, kh_cycle now)
{
    rogue *r = u;
    if (!r->busy) return;
    const kh_cu_place *at = kh_cu_where(r->cu);
    kh_flit f;
    kh_flit_clear(&f);
    kh_flit_set_hdr(&f, &(kh_flit_hdr){.dst_x = at->mem_x, .dst_y = at->mem_y, .src_x = at->x, .src_y = at->y,
                                       .type = KH_T_CU_SIGNAL, .txn = 7, .last = 1});
    if (r->step == 0) {
        kh_cu_signal_set_code(f.w, 0x00); /* INST_COMPLETE: the framework's, not the unit's */
    } else if (r->step == 1) {
        kh_hdr_set_type(f.w, KH_T_CU_INST);
    } else if (r->step == 2) {
        kh_cu_signal_set_code(f.w, 0x40); /* a unit code, legal */
        kh_hdr_set_src_x(f.w, 5);         /* but not its own coordinate */
    } else {
        kh_cu_done(r->cu, 0, 0, now);
        r->busy = 0;
        return;
    }
    if (kh_cu_send(r->cu, &f, now)) r->step++;
    kh_cu_wake(r->cu, now + 1);
}

static const kh_unit_kind rogue_kind = {.name = "rogue", .cu_type = 0x5247, .cu_version = 1, .n_buffers = 1,
                                        .create = rogue_create, .destroy = rogue_destroy, .inst = rogue_inst,
                                        .step = rogue_step};

static void a_units_send_path_is_told_from_the_framework_path(void)
{
    kh_ubench_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.kind = &rogue_kind;
    cfg.cu_x = 2, cfg.cu_y = 1, cfg.mem_x = 0, cfg.mem_y = 1, cfg.src_x = 0, cfg.src_y = 1, cfg.rd_lat = 4;
    kh_params_default(&cfg.params);
    char err[256];
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    CHECK(b != NULL);
    if (!b) return;
    seen s = {0};
    CHECK_EQ(kh_ubench_set_check(b, collect, &s), 0);
    kh_flit inst;
    kh_flit_clear(&inst);
    kh_ubench_inst(b, &inst, 0x2A, 1);
    CHECK_EQ(kh_ubench_run(b, 1000, err, sizeof err), 1);
    const kh_check_finding *g = find(&s, 16, NULL);
    CHECK(g && g->origin == KH_ORIGIN_UNIT && strstr(g->issue.msg, "code=0x00") != NULL);
    g = find(&s, 23, NULL);
    CHECK(g && g->origin == KH_ORIGIN_UNIT);
    g = find(&s, 8, NULL);
    CHECK(g && strstr(g->issue.msg, "src=(5,1)") != NULL && strstr(g->issue.msg, "(2,1)") != NULL);
    /* the shell's BATCH_COMPLETE for txn 0x2A came by the framework path: no
     * V16 for it, and V36 matched it to the instruction (the unit's fake
     * completion retired nothing) */
    unsigned v16 = 0;
    for (unsigned i = 0; i < s.n; i++) v16 += s.f[i].issue.rule == 16;
    CHECK_EQ(v16, 1);
    CHECK(find(&s, 36, NULL) == NULL);
    CHECK_EQ(s.violations, 3);
    if (v16 != 1 || s.violations != 3) show(&s);
    kh_ubench_free(b);
}

/* ---- clean runs ---- */

static kh_machine *load_machine(const char *map_file, char *err, size_t errlen)
{
    char path[512];
    snprintf(path, sizeof path, "%s/maps/%s", kh_test_data_dir(), map_file);
    return kh_machine_load(path, NULL, err, errlen);
}

/* A session file of examples/ on a machine, under checking: every check of
 * the session holds and no flit breaks a rule of flits.md §9. */
static void session_runs_clean(kh_machine *m, const char *session)
{
    char err[4096];
    seen s = {0};
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ(kh_machine_set_check(m, collect, &s), 0);
    kh_session *ss = kh_session_load(session, err, sizeof err);
    FILE *out = fopen("/dev/null", "w"); /* what the session prints is not under test */
    CHECK(ss != NULL && out != NULL);
    if (ss && out) {
        int rc = kh_session_run(ss, m, out, err, sizeof err);
        CHECK_EQ(rc, 0);
        if (rc) printf("  %s: %s\n", session, err);
    }
    kh_session_free(ss);
    if (out) fclose(out);
    kh_check_counts c;
    kh_check_get_counts(kh_machine_check(m), &c);
    CHECK(c.sent > 0 && c.delivered > 0);
    CHECK_EQ(s.violations, 0);
    if (s.violations) show(&s);
    kh_machine_free(m);
}

/* control.md §4: the driver sequence (stage, base, length, destination,
 * credit, kick, poll) running saxpy: dispatcher CU_INSTs, the unit's reads
 * and writes, acks, completions. */
static void saxpy_driver_sequence_runs_clean(void)
{
    char err[512];
    kh_machine *m = load_machine("saxpy_map.txt", err, sizeof err);
    if (!m) printf("  %s\n", err);
    session_runs_clean(m, "examples/saxpy.session");
}

static void vector_session_runs_clean(void)
{
    char err[512];
    kh_machine *m = load_machine("mesh_1x1_min.txt", err, sizeof err);
    if (!m) printf("  %s\n", err);
    session_runs_clean(m, "examples/vector_scale.session");
}

static void two_mesh_session_runs_clean(void)
{
    char err[512];
    kh_machine *m = kh_machine_load("examples/two_mesh.machine", NULL, err, sizeof err);
    if (!m) printf("  %s\n", err);
    session_runs_clean(m, "examples/two_mesh.session");
}

/* The demo GEMM (kohaku demo: 384 x 384 x 512 on the default machine):
 * right result, no violation. Warnings are allowed (the cluster's
 * streaming reads say entry_words 0, legal, cluster.md §4). */
static void demo_gemm_runs_clean(void)
{
    char err[2000];
    kh_machine *mc = kh_machine_new(NULL, NULL, err, sizeof err);
    CHECK(mc != NULL);
    if (!mc) return;
    seen s = {0};
    CHECK_EQ(kh_machine_set_check(mc, collect, &s), 0);
    unsigned m = 384, n = 384, k = 512;
    kh_gemm_target t;
    kh_gemm_plan p;
    kh_gemm_target_of(mc, &t);
    CHECK_EQ(kh_gemm_plan_make(&p, m, n, k, &t, err, sizeof err), 0);
    uint16_t *a = malloc((size_t)m * k * 2), *bt = malloc((size_t)n * k * 2), *c = malloc((size_t)m * n * 2),
             *ref = malloc((size_t)m * n * 2);
    uint64_t r = 0x5DEECE66Dull;
    for (size_t i = 0; i < (size_t)m * k + (size_t)n * k; i++) {
        r ^= r << 13, r ^= r >> 7, r ^= r << 17;
        uint16_t h = (uint16_t)((r >> 4 & 1) << 15 | (12 + (r >> 5) % 4) << 10 | (r >> 8) % 1024);
        if (i < (size_t)m * k) a[i] = h;
        else bt[i - (size_t)m * k] = h;
    }
    kh_gemm_stats st;
    int rc = kh_gemm_machine(mc, &p, KH_GEMM_RECIPE_ROWMAJOR, a, bt, c, &st, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) printf("  gemm: %s\n", err);
    CHECK_EQ(kh_gemm_reference_mx(&p, a, bt, ref), 0);
    CHECK(!rc && !memcmp(c, ref, (size_t)m * n * 2));
    kh_check_counts cn;
    kh_check_get_counts(kh_machine_check(mc), &cn);
    CHECK(cn.sent > 1000);
    CHECK_EQ(s.violations, 0);
    if (s.violations) show(&s);
    free(a), free(bt), free(c), free(ref);
    kh_machine_free(mc);
}

/* ---- with a trace sink ---- */

typedef struct counter {
    kh_trace t;
    uint64_t links;
} counter;

static void count_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    (void)l, (void)f, (void)now;
    ((counter *)ctx)->links++;
}

static uint64_t link_flits(kh_sim *sim)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < kh_sim_nlinks(sim); i++) n += kh_sim_link(sim, i)->flits;
    return n;
}

/* Either order: a sink attached first keeps seeing every transfer under
 * the checker, and one attached on top through kh_trace_fanout_new feeds
 * the checker too; detaching gives the sink below its place back. */
static void checker_and_trace_sink_see_every_transfer(void)
{
    for (int order = 0; order < 2; order++) {
        kit k;
        if (kit_init(&k, 1, NULL)) return;
        counter cnt = {{0}, 0};
        cnt.t.ctx = &cnt;
        cnt.t.link = count_link;
        seen s = {0};
        kh_trace *fan = NULL;
        if (order == 0) {
            kh_sim_set_trace(k.sim, &cnt.t);
            CHECK_EQ(kh_machine_set_check(k.m, collect, &s), 0);
        } else {
            CHECK_EQ(kh_machine_set_check(k.m, collect, &s), 0);
            fan = kh_trace_fanout_new(kh_sim_trace(k.sim), &cnt.t);
            kh_sim_set_trace(k.sim, fan);
        }
        kh_flit f = kit_hdr(KH_T_CU_SIGNAL, 0, 1, 0, 1, 0, 1, 0);
        kh_cu_signal_set_code(f.w, 0x02);
        kit_tx(&k, 0, &f);
        kh_flit g = kit_hdr(KH_T_CU_CTRL, 1, 1, 0, 1, 3, 1, 0); /* CU_CAPS of the vector core */
        kit_tx(&k, 0, &g);
        kh_sim_run_until_idle(k.sim, 10000);
        CHECK_EQ(cnt.links, link_flits(k.sim));
        CHECK(cnt.links >= 6);
        CHECK_EQ(s.violations, 1); /* the V15 */
        kh_check_counts c;
        kh_check_get_counts(kh_machine_check(k.m), &c);
        CHECK_EQ(c.sent, 3); /* two mailbox flits and the CU_CTRL reply */
        if (order == 0) {
            kh_check_detach(kh_machine_check(k.m));
            CHECK(kh_sim_trace(k.sim) == &cnt.t);
        } else {
            kh_sim_set_trace(k.sim, NULL);
            kh_trace_fanout_free(fan);
        }
        kit_free(&k);
    }
}

int main(void)
{
    KH_RUN(mailbox_flit_is_named_with_rule_field_and_value);
    KH_RUN(mailbox_flits_breaking_v1_and_v13);
    KH_RUN(stream_rule_is_found_at_delivery);
    KH_RUN(the_machines_own_reporter_makes_a_violation_its_error);
    KH_RUN(interlink_injection_keeps_its_remote_src);
    KH_RUN(orchestrator_tells_dispatcher_from_mailbox_in_fifo_order);
    KH_RUN(a_units_send_path_is_told_from_the_framework_path);
    KH_RUN(saxpy_driver_sequence_runs_clean);
    KH_RUN(vector_session_runs_clean);
    KH_RUN(two_mesh_session_runs_clean);
    KH_RUN(demo_gemm_runs_clean);
    KH_RUN(checker_and_trace_sink_see_every_transfer);
    return kh_test_end("t_check");
}
