/* The unit shell (noc_cu_base, control.md §5) with a toy unit on the unit
 * bench: completion codes and arguments, CU_CTRL quirks, discovery
 * registers, output priority, issue order and timing, receive backpressure. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/unitbench.h"
#include "support/test.h"

/* ---- a toy unit: payload w[0] = {result[63:32], flags[15:8], delay[7:0]};
 * flags bit 0: fault, bit 1: send one CU_DATA-typed flit to (5,5) first,
 * bit 2: never retire. It drops everything it receives unless told to hold
 * (hold_recv) and counts it. ---- */
typedef struct toy {
    kh_cu *cu;
    int busy, sent_needed, never;
    int fault;
    uint32_t result;
    kh_cycle done_at, dbg_at;
    unsigned received;
    int hold_recv;
    uint64_t dbg;
} toy;

static void *toy_create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    (void)p;
    (void)err;
    (void)errlen;
    toy *t = calloc(1, sizeof *t);
    t->cu = shell;
    t->dbg = 0x1122334455667788ull;
    t->dbg_at = KH_NEVER;
    return t;
}

static void toy_destroy(void *u) { free(u); }

static int toy_inst(void *u, const kh_flit *inst, kh_cycle now)
{
    toy *t = u;
    uint64_t w = inst->w[0];
    t->busy = 1;
    t->fault = (w >> 8) & 1;
    t->sent_needed = (w >> 9) & 1;
    t->never = (w >> 10) & 1;
    t->result = (uint32_t)(w >> 32);
    unsigned delay = (unsigned)(w & 0xFF);
    t->done_at = now + (delay ? delay : 1);
    kh_cu_wake(t->cu, t->sent_needed ? now + 1 : t->done_at);
    return 1;
}

static int toy_recv(void *u, const kh_flit *f, kh_cycle now)
{
    toy *t = u;
    (void)f;
    (void)now;
    if (t->hold_recv) return 0;
    t->received++;
    return 1;
}

static void toy_step(void *u, kh_cycle now)
{
    toy *t = u;
    if (now == t->dbg_at) {
        kh_cu_dbg_moves(t->cu, now); /* for a kind with dbg_announced */
        t->dbg++;
    }
    if (!t->busy) return;
    if (t->sent_needed) {
        kh_flit f;
        kh_flit_clear(&f);
        kh_hdr_set_dst_x(f.w, 5);
        kh_hdr_set_dst_y(f.w, 5);
        kh_hdr_set_type(f.w, KH_T_CU_DATA);
        kh_hdr_set_last(f.w, 1);
        if (!kh_cu_send(t->cu, &f, now)) return; /* woken when send_ready rises */
        t->sent_needed = 0;
    }
    if (t->never) return;
    if (now >= t->done_at) {
        kh_cu_done(t->cu, t->fault, t->result, now);
        t->busy = 0;
        t->dbg_at = now + 5; /* then CU_DBG counts it, in a cycle of its own */
        kh_cu_wake(t->cu, t->dbg_at);
    } else {
        kh_cu_wake(t->cu, t->done_at);
    }
}

static uint64_t toy_dbg(void *u) { return ((toy *)u)->dbg; }

static int toy_stuck(void *u, char *buf, size_t len)
{
    toy *t = u;
    if (!t->busy) return 0;
    snprintf(buf, len, "toy unit never retires");
    return 1;
}

static const kh_unit_kind toy_kind = {
    .token = NULL,
    .name = "toy",
    .cu_type = 0x5459, /* "TY" */
    .cu_version = 7,
    .n_buffers = 3,
    .create = toy_create,
    .destroy = toy_destroy,
    .inst = toy_inst,
    .recv = toy_recv,
    .step = toy_step,
    .dbg = toy_dbg,
    .describe_stuck = toy_stuck,
};

static kh_ubench *bench(unsigned inst_depth, unsigned recv_depth)
{
    kh_ubench_cfg cfg = {0};
    char err[256];
    cfg.kind = &toy_kind;
    cfg.cu_x = 2;
    cfg.cu_y = 1;
    cfg.mem_x = 1;
    cfg.mem_y = 1;
    cfg.src_x = 3;
    cfg.src_y = 3;
    cfg.rd_lat = 10;
    kh_params_default(&cfg.params);
    cfg.params.inst_depth = inst_depth;
    cfg.params.recv_depth = recv_depth;
    cfg.params.cu_version = 0; /* the unit's own version in CU_CAPS */
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    if (!b) printf("bench: %s\n", err);
    return b;
}

static void inst(kh_ubench *b, unsigned delay, unsigned flags, uint32_t result, uint8_t txn, int last)
{
    kh_flit f;
    kh_flit_clear(&f);
    f.w[0] = (uint64_t)result << 32 | flags << 8 | delay;
    kh_ubench_inst(b, &f, txn, last);
}

static const kh_ubench_rec *nth_signal(kh_ubench *b, size_t k)
{
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) == KH_T_CU_SIGNAL && k-- == 0) return r;
    }
    return NULL;
}

static int run(kh_ubench *b)
{
    char err[2048];
    int rc = kh_ubench_run(b, 100000, err, sizeof err);
    if (rc != 1) printf("run: %s\n", err);
    return rc;
}

/* control.md §5.4 table and flits.md §5: code and arg of each completion;
 * completion flit header: dst = the CU_INST's src, src = the unit, type 6,
 * txn echoed, last 1, rsvd 0; payload [215:0] zero. */
static void completion_codes_and_args(void)
{
    kh_ubench *b = bench(32, 16);
    inst(b, 3, 0, 0xCAFE0001, 0x11, 0); /* INST_COMPLETE, arg = exec_result */
    inst(b, 2, 1, 0xBAD00002, 0x12, 0); /* FAULT, arg = exec_result */
    inst(b, 2, 1, 0xBAD00003, 0x13, 1); /* fault wins over last */
    inst(b, 4, 0, 0x12345678, 0x2A, 1); /* BATCH_COMPLETE, arg = {24'd0, txn} */
    CHECK_EQ(run(b), 1);
    static const struct {
        unsigned code, txn;
        uint32_t arg;
    } want[] = {{0x00, 0x11, 0xCAFE0001}, {0x04, 0x12, 0xBAD00002}, {0x04, 0x13, 0xBAD00003},
                {0x01, 0x2A, 0x0000002A}};
    for (size_t k = 0; k < 4; k++) {
        const kh_ubench_rec *r = nth_signal(b, k);
        CHECK(r != NULL);
        if (!r) continue;
        CHECK_EQ(kh_cu_signal_code(r->f.w), want[k].code);
        CHECK_EQ(kh_cu_signal_arg(r->f.w), want[k].arg);
        CHECK_EQ(kh_hdr_txn(r->f.w), want[k].txn);
        CHECK_EQ(kh_hdr_dst_x(r->f.w), 3);
        CHECK_EQ(kh_hdr_dst_y(r->f.w), 3);
        CHECK_EQ(kh_hdr_src_x(r->f.w), 2);
        CHECK_EQ(kh_hdr_src_y(r->f.w), 1);
        CHECK_EQ(kh_hdr_last(r->f.w), 1);
        CHECK_EQ(kh_hdr_rsvd(r->f.w), 0);
        uint64_t rsv[4] = {1, 1, 1, 1};
        kh_cu_signal_rsv_get(r->f.w, rsv);
        CHECK_EQ(rsv[0] | rsv[1] | rsv[2] | rsv[3], 0);
    }
    kh_ubench_free(b);
}

/* Instructions execute one at a time in arrival order: the next is offered
 * only after exec_done of the previous (control.md §5.3). With the toy's
 * fixed delays, completion k leaves exactly (delay_k + completion path) after
 * completion k-1's exec_done, so the spacing equals the delays. */
static void one_instruction_in_flight_in_order(void)
{
    kh_ubench *b = bench(32, 16);
    inst(b, 20, 0, 1, 1, 0);
    inst(b, 5, 0, 2, 2, 0);
    inst(b, 9, 0, 3, 3, 0);
    CHECK_EQ(run(b), 1);
    const kh_ubench_rec *s0 = nth_signal(b, 0), *s1 = nth_signal(b, 1), *s2 = nth_signal(b, 2);
    CHECK(s0 && s1 && s2);
    if (!(s0 && s1 && s2)) return;
    CHECK_EQ(kh_cu_signal_arg(s0->f.w), 1);
    CHECK_EQ(kh_cu_signal_arg(s1->f.w), 2);
    CHECK_EQ(kh_cu_signal_arg(s2->f.w), 3);
    /* exec_done at D; next accept at D+1 (offered once in_flight is clear);
     * its done at D+1+delay: spacing = delay + 1 */
    CHECK_EQ(s1->cycle - s0->cycle, 5 + 1);
    CHECK_EQ(s2->cycle - s1->cycle, 9 + 1);
    kh_ubench_free(b);
}

static kh_flit ctrl_request(unsigned op, unsigned index, uint64_t value, uint8_t txn)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, 2);
    kh_hdr_set_dst_y(f.w, 1);
    kh_hdr_set_src_x(f.w, 0);
    kh_hdr_set_src_y(f.w, 1);
    kh_hdr_set_type(f.w, KH_T_CU_CTRL);
    kh_hdr_set_txn(f.w, txn);
    kh_hdr_set_last(f.w, 1);
    kh_cu_ctrl_set_op(f.w, op);
    kh_cu_ctrl_set_index(f.w, index);
    kh_cu_ctrl_set_value(f.w, value);
    return f;
}

static const kh_ubench_rec *nth_ctrl(kh_ubench *b, size_t k)
{
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) == KH_T_CU_CTRL && k-- == 0) return r;
    }
    return NULL;
}

/* CU_CAPS = {CU_TYPE, CU_VERSION, N_BUFFERS, INST_DEPTH, 20'b0}
 * (control.md §5.6): type 0x5459, version 7, 3 buffers, depth 32
 * -> 0x5459_07_3_0020_00000. A write (op 1) is answered as a read with
 * the old value, op 0x02 in the reply, index and txn echoed. */
static void ctrl_write_reads_and_caps(void)
{
    kh_ubench *b = bench(32, 16);
    kh_flit f = ctrl_request(1, 0, 0xFFFFFFFFFFFFFFFFull, 0x77);
    kh_ubench_inject(b, &f, 0);
    char err[512];
    kh_ubench_run(b, 1000, err, sizeof err);
    const kh_ubench_rec *r = nth_ctrl(b, 0);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(kh_cu_ctrl_reply_op(r->f.w), 0x02);
        CHECK_EQ(kh_cu_ctrl_reply_index(r->f.w), 0);
        CHECK_EQ(kh_cu_ctrl_reply_value(r->f.w), 0x5459073002000000ull);
        CHECK_EQ(kh_hdr_txn(r->f.w), 0x77);
        CHECK_EQ(kh_hdr_dst_x(r->f.w), 0);
        CHECK_EQ(kh_hdr_dst_y(r->f.w), 1);
        CHECK_EQ(kh_hdr_src_x(r->f.w), 2);
        CHECK_EQ(kh_hdr_src_y(r->f.w), 1);
        CHECK_EQ(kh_hdr_last(r->f.w), 1);
        uint64_t rsv[3] = {1, 1, 1};
        kh_cu_ctrl_reply_rsv_get(r->f.w, rsv);
        CHECK_EQ(rsv[0] | rsv[1] | rsv[2], 0);
    }
    /* the write did not land: a second read still returns CAPS */
    kh_flit g = ctrl_request(0, 0, 0, 0x78);
    kh_ubench_inject(b, &g, kh_sim_now(kh_ubench_sim(b)));
    kh_ubench_run(b, 1000, err, sizeof err);
    r = nth_ctrl(b, 1);
    CHECK(r != NULL);
    if (r) CHECK_EQ(kh_cu_ctrl_reply_value(r->f.w), 0x5459073002000000ull);
    kh_ubench_free(b);
}

/* CU_DBG is the unit's counter verbatim; indices >= 4 read 0. */
static void ctrl_dbg_and_unused_indices(void)
{
    kh_ubench *b = bench(32, 16);
    kh_flit f = ctrl_request(0, 3, 0, 1);
    kh_ubench_inject(b, &f, 0);
    kh_flit g = ctrl_request(0, 200, 0, 2);
    kh_ubench_inject(b, &g, 40); /* after the first reply has left */
    char err[512];
    kh_ubench_run(b, 1000, err, sizeof err);
    const kh_ubench_rec *r0 = nth_ctrl(b, 0), *r1 = nth_ctrl(b, 1);
    CHECK(r0 && r1);
    if (r0) CHECK_EQ(kh_cu_ctrl_reply_value(r0->f.w), 0x1122334455667788ull);
    if (r1) {
        CHECK_EQ(kh_cu_ctrl_reply_index(r1->f.w), 200);
        CHECK_EQ(kh_cu_ctrl_reply_value(r1->f.w), 0);
    }
    kh_ubench_free(b);
}

/* A second CU_CTRL arriving while a reply is pending is consumed and never
 * answered (control.md §5.6, profile S). Back-to-back requests: the second
 * lands while the first reply waits behind a completion. */
static void second_ctrl_while_pending_is_discarded(void)
{
    kh_ubench *b = bench(32, 16);
    inst(b, 1, 0, 5, 1, 0);
    kh_flit f = ctrl_request(0, 0, 0, 1), g = ctrl_request(0, 1, 0, 2);
    kh_ubench_inject(b, &f, 0);
    kh_ubench_inject(b, &g, 0);
    CHECK_EQ(run(b), 1);
    CHECK(nth_ctrl(b, 0) != NULL);
    CHECK(nth_ctrl(b, 1) == NULL);
    CHECK(kh_sim_log_count(kh_ubench_sim(b), KH_LOG_WARN) >= 1);
    kh_ubench_free(b);
}

/* CU_STATUS: busy and inst_space = INST_DEPTH - occupancy (control.md §5.3,
 * §5.6). With a never-retiring instruction and two more queued behind it,
 * occupancy is 2 once the first has been popped: space = 32 - 2. */
static void status_reports_busy_and_space(void)
{
    kh_ubench *b = bench(32, 16);
    inst(b, 1, 4, 0, 1, 0); /* never retires */
    inst(b, 1, 0, 0, 2, 0);
    inst(b, 1, 0, 0, 3, 0);
    kh_flit f = ctrl_request(0, 1, 0, 9);
    kh_ubench_inject(b, &f, 30);
    char err[2048];
    CHECK_EQ(kh_ubench_run(b, 1000, err, sizeof err), -1); /* stuck by design */
    CHECK(strstr(err, "has not retired") != NULL);
    CHECK(strstr(err, "toy unit never retires") != NULL);
    const kh_ubench_rec *r = nth_ctrl(b, 0);
    CHECK(r != NULL);
    if (r) {
        uint64_t v = kh_cu_ctrl_reply_value(r->f.w);
        CHECK_EQ(kh_cu_status_busy(&v), 1);
        CHECK_EQ(kh_cu_status_inst_space(&v), 30);
    }
    kh_ubench_free(b);
}

/* Outbound priority (control.md §5.5): a completion goes out before the
 * unit's own flit when both are pending; here the unit's flit is sent first
 * (no completion pending yet), then the completion. */
static void unit_flits_and_completions_share_the_output(void)
{
    kh_ubench *b = bench(32, 16);
    inst(b, 1, 2, 7, 1, 0); /* send a flit, then retire */
    CHECK_EQ(run(b), 1);
    CHECK_EQ(kh_ubench_nout(b), 2);
    const kh_ubench_rec *a = kh_ubench_out(b, 0), *c = kh_ubench_out(b, 1);
    if (a && c) {
        CHECK_EQ(kh_hdr_type(a->f.w), KH_T_CU_DATA);
        CHECK_EQ(kh_hdr_type(c->f.w), KH_T_CU_SIGNAL);
        CHECK(a->cycle < c->cycle);
    }
    kh_ubench_free(b);
}

/* Busy = instruction FIFO full OR receive FIFO full (control.md §5.2): a
 * unit that stops taking receive flits stalls its instruction stream too. */
static void full_receive_fifo_stalls_instructions(void)
{
    kh_ubench *b = bench(32, 2);
    toy *t = kh_cu_unit(kh_ubench_cu(b));
    t->hold_recv = 1;
    for (int i = 0; i < 6; i++) { /* more than RECV_DEPTH (2) junk flits */
        kh_flit f;
        kh_flit_clear(&f);
        kh_hdr_set_dst_x(f.w, 2);
        kh_hdr_set_dst_y(f.w, 1);
        kh_hdr_set_type(f.w, KH_T_MEM_WR_ACK);
        kh_hdr_set_last(f.w, 1);
        kh_ubench_inject(b, &f, 0);
    }
    inst(b, 1, 0, 1, 1, 0);
    char err[2048];
    CHECK_EQ(kh_ubench_run(b, 1000, err, sizeof err), -1);
    CHECK(strstr(err, "receive FIFO") != NULL);
    CHECK(nth_signal(b, 0) == NULL); /* the instruction never got in */
    t->hold_recv = 0;
    kh_comp_wake(kh_cu_comp(kh_ubench_cu(b)), kh_sim_now(kh_ubench_sim(b)));
    CHECK_EQ(run(b), 1);
    CHECK_EQ(t->received, 6);
    CHECK(nth_signal(b, 0) != NULL);
    kh_ubench_free(b);
}

/* ---- a CU_CTRL reply does not depend on the order components step ----
 * The shell latches the register value of the accept cycle (control.md
 * §5.6), i.e. the state that cycle starts with, whether the sender's step
 * (which offers the request) runs before or after the shell's own. */
typedef struct ctl_sender {
    kh_comp c;
    kh_link *out;
    kh_flit q[2];
    kh_cycle at[2];
    unsigned n, next;
    uint64_t reply;
    int got;
} ctl_sender;

static void ctl_sender_step(kh_comp *c, kh_cycle now)
{
    ctl_sender *s = (ctl_sender *)c;
    if (s->next < s->n && s->at[s->next] <= now && kh_link_send(s->out, &s->q[s->next], now)) s->next++;
    if (s->next < s->n) kh_comp_wake(c, s->at[s->next] > now ? s->at[s->next] : now + 1);
}

static int ctl_sender_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    ctl_sender *s = (ctl_sender *)dst;
    (void)port, (void)now;
    if (kh_hdr_type(f->w) == KH_T_CU_CTRL) {
        s->reply = kh_cu_ctrl_reply_value(f->w);
        s->got = 1;
    }
    return 1;
}

static void ctl_sender_destroy(kh_comp *c) { (void)c; }

static const kh_comp_ops ctl_sender_ops = {"sender", ctl_sender_step, NULL, NULL, ctl_sender_destroy, NULL, NULL};

/* The reply to CU_CTRL `index` sent at cycle k after a 3-cycle instruction
 * sent at cycle 0, with the sender stepping before (sender_first) or after
 * the shell, to a toy of the given kind. */
static uint64_t ctl_reply_of(const kh_unit_kind *kind, unsigned index, kh_cycle k, int sender_first)
{
    kh_params p;
    kh_params_default(&p);
    kh_sim *sim = kh_sim_new(&p);
    ctl_sender s;
    memset(&s, 0, sizeof s);
    char err[200];
    kh_cu_place place = {2, 1, 1, 1, 0};
    if (sender_first) kh_sim_add(sim, &s.c, &ctl_sender_ops, "sender");
    kh_cu *cu = kh_cu_new(sim, kind, &place, err, sizeof err);
    if (!sender_first) kh_sim_add(sim, &s.c, &ctl_sender_ops, "sender");
    s.out = kh_link_new(sim, &s.c, kh_cu_comp(cu), 0, kh_cu_accept, "sender->cu");
    kh_cu_set_out(cu, kh_link_new(sim, kh_cu_comp(cu), &s.c, 0, ctl_sender_accept, "cu->sender"));
    kh_flit_clear(&s.q[0]);
    kh_flit_set_hdr(&s.q[0], &(kh_flit_hdr){.dst_x = 2, .dst_y = 1, .src_x = 3, .src_y = 3,
                                            .type = KH_T_CU_INST, .last = 1});
    s.q[0].w[0] = 3; /* the toy's delay */
    kh_flit_clear(&s.q[1]);
    kh_flit_set_hdr(&s.q[1], &(kh_flit_hdr){.dst_x = 2, .dst_y = 1, .src_x = 3, .src_y = 3,
                                            .type = KH_T_CU_CTRL, .last = 1});
    kh_cu_ctrl_set_index(s.q[1].w, index);
    s.at[0] = 0, s.at[1] = k, s.n = 2;
    kh_comp_wake(&s.c, 0);
    kh_sim_run_until_idle(sim, 1000);
    uint64_t v = s.got ? s.reply : UINT64_MAX;
    kh_sim_destroy(sim);
    return v;
}

static uint64_t ctl_reply_at(unsigned index, kh_cycle k, int sender_first)
{
    return ctl_reply_of(&toy_kind, index, k, sender_first);
}

static void ctrl_reply_does_not_depend_on_step_order(void)
{
    for (unsigned index = 1; index <= 2; index++) /* CU_STATUS, CU_COUNTERS */
        for (kh_cycle k = 1; k < 14; k++) {
            uint64_t a = ctl_reply_at(index, k, 1), b = ctl_reply_at(index, k, 0);
            CHECK(a != UINT64_MAX);
            if (a != b) {
                kh_test_fail(__FILE__, __LINE__, "index %u sent at cycle %llu: reply 0x%016llx with the "
                             "sender stepping first, 0x%016llx with the shell first", index,
                             (unsigned long long)k, (unsigned long long)a, (unsigned long long)b);
                return;
            }
        }
}

/* A kind whose unit announces each change of its dbg (dbg_announced) lets
 * the shell take the CU_CTRL view at the first change after its step, not
 * at every step: every register read gives what the toy read at every step
 * gives, in either step order, the CU_DBG count and the retirement in the
 * cycle of the request included. */
static void ctrl_view_of_an_announcing_unit(void)
{
    kh_unit_kind told = toy_kind;
    told.dbg_announced = 1;
    for (unsigned index = 1; index <= 3; index++) /* CU_STATUS, CU_COUNTERS, CU_DBG */
        for (kh_cycle k = 1; k < 14; k++)
            for (int first = 0; first < 2; first++) {
                uint64_t want = ctl_reply_at(index, k, first), got = ctl_reply_of(&told, index, k, first);
                CHECK(want != UINT64_MAX);
                if (got != want) {
                    kh_test_fail(__FILE__, __LINE__, "index %u sent at cycle %llu, sender %s: reply 0x%016llx, "
                                 "0x%016llx read at every step", index, (unsigned long long)k,
                                 first ? "first" : "second", (unsigned long long)got, (unsigned long long)want);
                    return;
                }
            }
}

/* One source for every parameter rule: a value kh_params_set takes, every
 * unit kind builds with, and one it refuses was refused by kh_params_set
 * already (cluster_acc_mw 20 used to be taken and the machine refused). */
static int builds(const kh_unit_kind *kind, const kh_params *p, char *err, size_t errlen)
{
    kh_sim *sim = kh_sim_new(p);
    kh_cu_place place = {2, 1, 1, 1, 0};
    kh_cu *cu = kh_cu_new(sim, kind, &place, err, errlen);
    kh_sim_destroy(sim);
    return cu != NULL;
}

static void unit_rows_are_the_rules_the_units_enforce(void)
{
    char err[300], num[24];
    unsigned nk;
    const kh_unit_kind *const *kinds = kh_unit_kinds(&nk);
    for (unsigned k = 0; k < nk; k++)
        for (unsigned i = 0; i < kinds[k]->nparams; i++) {
            const kh_param_info *row = &kinds[k]->params[i];
            uint64_t ends[2] = {row->min, row->max};
            for (int e = 0; e < 2; e++) {
                kh_params p;
                kh_params_default(&p);
                snprintf(num, sizeof num, "%llu", (unsigned long long)ends[e]);
                CHECK_EQ(kh_params_set(&p, row->name, num, err, sizeof err), 0);
                if (!builds(kinds[k], &p, err, sizeof err))
                    kh_test_fail(__FILE__, __LINE__, "%s = %s taken by the table, refused by %s: %s", row->name, num,
                                 kinds[k]->name, err);
            }
            kh_params p;
            kh_params_default(&p);
            snprintf(num, sizeof num, "%llu", (unsigned long long)row->max + 1);
            CHECK_EQ(kh_params_set(&p, row->name, num, err, sizeof err), -1);
        }
    kh_params p;
    kh_params_default(&p);
    CHECK_EQ(kh_params_set(&p, "cluster_acc_mw", "20", err, sizeof err), -1);
    CHECK(strstr(err, "11..16") != NULL);
    /* a unit refuses what is out of its rows, whoever filled the parameters */
    p.cluster_acc_mw = 20;
    CHECK(!builds(kh_unit_by_name("mx_cluster_cu"), &p, err, sizeof err));
    CHECK(strstr(err, "cluster_acc_mw = 20") != NULL);
    kh_params_default(&p);
    p.cluster_ga = 384;
    CHECK(!builds(kh_unit_by_name("mx_cluster_cu"), &p, err, sizeof err));
    CHECK(strstr(err, "power of two") != NULL);
}

int main(void)
{
    KH_RUN(unit_rows_are_the_rules_the_units_enforce);
    KH_RUN(completion_codes_and_args);
    KH_RUN(one_instruction_in_flight_in_order);
    KH_RUN(ctrl_write_reads_and_caps);
    KH_RUN(ctrl_dbg_and_unused_indices);
    KH_RUN(second_ctrl_while_pending_is_discarded);
    KH_RUN(status_reports_busy_and_space);
    KH_RUN(unit_flits_and_completions_share_the_output);
    KH_RUN(full_receive_fifo_stalls_instructions);
    KH_RUN(ctrl_reply_does_not_depend_on_step_order);
    KH_RUN(ctrl_view_of_an_announcing_unit);
    return kh_test_end("t_shell");
}
