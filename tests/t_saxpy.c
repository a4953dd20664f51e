/* The control path end to end on real meshes with saxpy units: the driver
 * sequence of control.md §4 as a session, credits with real completions,
 * CU_CTRL through the mailbox, a control program that runs a whole dispatch
 * with one GO, the saxpy checks and datapath (matmul_saxpy.md §2), and the
 * stall diagnoses. Expected values are computed here, in float arithmetic
 * (whole-valued operands, where the unit's integer datapath is exact) or
 * from the spec's tables. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/card.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/gen/saxpy.h"
#include "kohaku/hex.h"
#include "kohaku/machine.h"
#include "kohaku/session.h"
#include "cu/units/units.h"
#include "support/test.h"

/* Two saxpy units at (1,0) and (1,2), the memory port at (0,1) (the picture
 * of ../shared/maps/saxpy_map.txt). */
static const char two_units[] = "xxx sax xxx\n"
                                "mag nul nul\n"
                                "xxx sax xxx\n";

static kh_machine *machine(void)
{
    char err[512];
    kh_machine *m = kh_machine_new(two_units, NULL, err, sizeof err);
    if (!m) printf("machine: %s\n", err);
    return m;
}

/* ---- session text built in the test ------------------------------------ */

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (t->s && (size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap ? 2 * t->cap + (size_t)n : 4096 + (size_t)n;
        t->s = realloc(t->s, t->cap);
        if (!t->s) abort();
        if (t->len == 0) t->s[0] = 0;
    }
}

static void put_floats(text *t, const float *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, &v[i], 4);
        put(t, "%02x%02x%02x%02x", b & 0xFF, (b >> 8) & 0xFF, (b >> 16) & 0xFF, b >> 24);
    }
}

static uint32_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* The CU_INST payload of matmul_saxpy.md §2.2. */
static void saxpy_payload(uint64_t *w, unsigned op, unsigned n, uint32_t a, uint64_t x, uint64_t y)
{
    memset(w, 0, 4 * sizeof *w);
    kh_saxpy_set_op(w, op);
    kh_saxpy_set_n(w, n);
    kh_saxpy_set_a(w, a);
    kh_saxpy_set_x_addr(w, x);
    kh_saxpy_set_y_addr(w, y);
}

/* ... as the 64 hex digits of a `stage` line. */
static void put_saxpy(text *t, unsigned op, unsigned n, float a, uint64_t x, uint64_t y)
{
    uint64_t w[4];
    char hex[65];
    saxpy_payload(w, op, n, f32_bits(a), x, y);
    kh_hex_format(w, 256, hex);
    put(t, "%s", hex);
}

/* Run session text on m; returns kh_session_run's code, error in err. */
static int run_text(kh_machine *m, const char *s, char *err, size_t errlen)
{
    kh_session *ss = kh_session_parse(s, "t.session", NULL, err, errlen);
    if (!ss) return -2;
    FILE *devnull = fopen("/dev/null", "w");
    int rc = kh_session_run(ss, m, devnull, err, errlen);
    fclose(devnull);
    kh_session_free(ss);
    return rc;
}

/* ---- control.md §4 with two units ----------------------------------------- */

static void driver_sequence_dispatches_to_both_units(void)
{
    /* Unit (1,0): y0 = 3 x0 + y0 over 64 elements, as a 2-instruction
     * program (32 + 32); unit (1,2): y1 = -2 x1 + y1 over 20 elements.
     * Each program has its own slot range (control.md §4). */
    kh_machine *m = machine();
    if (!m) return;
    float x0[64], y0[64], x1[24], y1[24], r0[64], r1[24];
    for (unsigned i = 0; i < 64; i++) {
        x0[i] = (float)((int)(i * 37 % 101) - 50);
        y0[i] = (float)((int)(i * 53 % 97) * 7 - 300);
        r0[i] = 3.0f * x0[i] + y0[i];
    }
    for (unsigned i = 0; i < 24; i++) {
        x1[i] = (float)(i * i);
        y1[i] = (float)(1000 - (int)i);
        r1[i] = i < 20 ? -2.0f * x1[i] + y1[i] : y1[i]; /* the tail of the last line is rewritten unchanged */
    }
    text t = {0};
    put(&t, "upload DRAM(0x1000) hex ");
    put_floats(&t, x0, 64);
    put(&t, "\nupload DRAM(0x2000) hex ");
    put_floats(&t, y0, 64);
    put(&t, "\nupload DRAM(0x3000) hex ");
    put_floats(&t, x1, 24);
    put(&t, "\nupload DRAM(0x4000) hex ");
    put_floats(&t, y1, 24);
    put(&t, "\nwrite SIG_DONE 0\n");
    put(&t, "stage 0 txn=0x11 last=0 payload=");
    put_saxpy(&t, 1, 32, 3.0f, 0x1000, 0x2000);
    put(&t, "\nstage 1 txn=0x11 last=1 payload=");
    put_saxpy(&t, 1, 32, 3.0f, 0x1080, 0x2080);
    put(&t, "\nstage 2 txn=0x22 last=1 payload=");
    put_saxpy(&t, 1, 20, -2.0f, 0x3000, 0x4000);
    put(&t, "\nwrite PROG_BASE 0\nwrite PROG_LEN 2\nwrite PROG_DST XY(1,0)\nwrite PROG_CRED 4\nwrite PROG_KICK 1\n");
    /* Slots 0-1 dispatched before the next program changes PROG_DST: run
     * drops after the last word is read, two cycles before the last push,
     * which still samples PROG_DST (control.md §2.4, Open point 5). */
    put(&t, "poll PROG_STAT 0 mask 1\nrun 2\n");
    put(&t, "write PROG_BASE 2\nwrite PROG_LEN 1\nwrite PROG_DST XY(1,2)\nwrite PROG_CRED 4\nwrite PROG_KICK 1\n");
    /* node (1,0): 2 completions, the last BATCH_COMPLETE with arg = txn */
    put(&t, "poll NODE_STATUS(1,0) 0x0100000011000201 limit 100000\n");
    put(&t, "poll NODE_STATUS(1,2) 0x0100000022000101 limit 100000\n");
    put(&t, "read SIG_DONE 3\nidle\ncompare DRAM(0x2000) hex ");
    put_floats(&t, r0, 64);
    put(&t, "\ncompare DRAM(0x4000) hex ");
    put_floats(&t, r1, 24);
    put(&t, "\ncompare DRAM(0x1000) hex ");
    put_floats(&t, x0, 64);
    put(&t, "\n");
    char err[4096];
    int rc = run_text(m, t.s, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) printf("%s\n", err);
    free(t.s);
    kh_machine_free(m);
}

/* Issue 10: upstream's kick (poll PROG_STAT.run == 0, then PROG_DST,
 * PROG_BASE, PROG_LEN, PROG_KICK) for unit A and right away for unit B,
 * with a host that takes no time (the worst case: every write lands in the
 * end-of-dispatch window). The card holds the PROG_DST write until A's
 * final flit is pushed, so each unit gets exactly its own program; with
 * host_rtl_window = 1 (the RTL) A's last flit goes to B and A never
 * completes. */
static int kick_a_then_b(int rtl_window, uint64_t *held, char *err, size_t errlen)
{
    kh_params p;
    kh_params_default(&p);
    kh_params_profile(&p, "host-zero", err, errlen);
    p.host_rtl_window = (uint64_t)rtl_window;
    kh_machine *m = kh_machine_new(two_units, &p, err, errlen);
    if (!m) return -2;
    kh_sim_set_log(kh_machine_sim(m), NULL, NULL, KH_LOG_ERROR);
    text t = {0};
    put(&t, "write SIG_DONE 0\nstage 0 txn=0x11 last=0 payload=");
    put_saxpy(&t, 1, 8, 1.0f, 0x1000, 0x2000);
    put(&t, "\nstage 1 txn=0x11 last=1 payload=");
    put_saxpy(&t, 1, 8, 1.0f, 0x1100, 0x2100);
    put(&t, "\nstage 2 txn=0x22 last=1 payload=");
    put_saxpy(&t, 1, 8, 1.0f, 0x3000, 0x4000);
    put(&t, "\nwrite PROG_CRED 4\n");
    put(&t, "poll PROG_STAT 0 mask 1\nwrite PROG_DST XY(1,0)\nwrite PROG_BASE 0\nwrite PROG_LEN 2\nwrite PROG_KICK 1\n");
    put(&t, "poll PROG_STAT 0 mask 1\nwrite PROG_DST XY(1,2)\nwrite PROG_BASE 2\nwrite PROG_LEN 1\nwrite PROG_KICK 1\n");
    put(&t, "poll NODE_STATUS(1,0) 0x0100000011000201 limit 100000\n");
    put(&t, "poll NODE_STATUS(1,2) 0x0100000022000101 limit 100000\nidle\n");
    int rc = run_text(m, t.s, err, errlen);
    *held = kh_card_held_beats(kh_machine_card(m), 0);
    free(t.s);
    kh_machine_free(m);
    return rc;
}

static void back_to_back_kicks_never_misdirect_a_flit(void)
{
    char err[4096];
    uint64_t held = 0;
    int rc = kick_a_then_b(0, &held, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) printf("%s\n", err);
    CHECK_EQ(held, 1); /* B's PROG_DST write waited for A's final push */
    rc = kick_a_then_b(1, &held, err, sizeof err);
    CHECK_EQ(rc, 1);
    CHECK(strstr(err, "NODE_STATUS") || strstr(err, "0x801008")); /* A's poll gives up */
    CHECK_EQ(held, 0);
}

/* ---- credits with real completions (control.md §2.5) --------------------- */

static uint64_t rd(kh_machine *m, uint64_t addr)
{
    char err[512];
    uint64_t v = 0;
    if (kh_card_read64(kh_machine_card(m), addr, &v, err, sizeof err)) printf("read: %s\n", err);
    return v;
}

static void credits_refill_only_on_inst_complete_and_reseed_works(void)
{
    /* Three saxpys with credit 1: each next one waits for an INST_COMPLETE;
     * the final BATCH_COMPLETE refills nothing, so credit ends at
     * 1 - 3 + 2 = 0; a second program without a re-seed stalls; re-seeding
     * releases it. */
    kh_machine *m = machine();
    if (!m) return;
    text t = {0};
    float ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    put(&t, "upload DRAM(0x100) hex ");
    put_floats(&t, ones, 8);
    put(&t, "\nupload DRAM(0x200) hex ");
    put_floats(&t, ones, 8);
    put(&t, "\n");
    for (unsigned s = 0; s < 3; s++) {
        put(&t, "stage %u txn=0x30 last=%u payload=", s, s == 2);
        put_saxpy(&t, 1, 8, 1.0f, 0x100, 0x200);
        put(&t, "\n");
    }
    put(&t, "write PROG_BASE 0\nwrite PROG_LEN 3\nwrite PROG_DST XY(1,0)\nwrite PROG_CRED 1\nwrite PROG_KICK 1\n"
            "run 30\n"
            "read PROG_STAT 0x1 mask 0x1\n"              /* still running: */
            "read PROG_STAT 0 mask 0x1fffe0000\n"        /* credit 0 after the first flit */
            "poll NODE_STATUS(1,0) 0x0100000030000301\n" /* 2 INST + 1 BATCH */
            "read PROG_CRED 0\n"                         /* the batch completion refilled nothing */
            "idle\n"
            "compare DRAM(0x200) hex ");
    float four[8] = {4, 4, 4, 4, 4, 4, 4, 4}; /* y = x + y three times */
    put_floats(&t, four, 8);
    put(&t, "\n");
    char err[4096];
    int rc = run_text(m, t.s, err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) printf("%s\n", err);

    /* Without a re-seed the next 2-instruction program stalls at once... */
    text u = {0};
    put(&u, "write PROG_BASE 1\nwrite PROG_LEN 2\nwrite PROG_KICK 1\n"
            "poll NODE_STATUS(1,0) 0x0100000030000501 limit 100000\n");
    rc = run_text(m, u.s, err, sizeof err);
    CHECK_EQ(rc, 1);
    CHECK(strstr(err, "t.session:4:") != NULL);
    CHECK(strstr(err, "PROG_CRED is 0") != NULL);
    CHECK(strstr(err, "re-seed PROG_CRED") != NULL);
    /* ... and a re-seed releases it */
    rc = run_text(m, "write PROG_CRED 2\npoll NODE_STATUS(1,0) 0x0100000030000501 limit 100000\n", err, sizeof err);
    CHECK_EQ(rc, 0);
    if (rc) printf("%s\n", err);
    free(t.s);
    free(u.s);
    kh_machine_free(m);
}

/* ---- CU_CTRL through the mailbox (control.md §5.6, flits.md §4.8) -------- */

static void cu_ctrl_write_reads_and_returns_the_old_value(void)
{
    kh_machine *m = machine();
    if (!m) return;
    kh_card *card = kh_machine_card(m);
    char err[512];
    uint64_t ret[2];
    for (unsigned op = 1;; op = 0) {
        kh_flit f;
        kh_flit_clear(&f);
        kh_hdr_set_dst_x(f.w, 1);
        kh_hdr_set_dst_y(f.w, 2);
        kh_hdr_set_src_x(f.w, 0); /* the orchestrator's coordinate: the reply lands in RX */
        kh_hdr_set_src_y(f.w, 1);
        kh_hdr_set_type(f.w, KH_T_CU_CTRL);
        kh_hdr_set_txn(f.w, 0x5A);
        kh_hdr_set_last(f.w, 1);
        kh_cu_ctrl_set_op(f.w, op);
        kh_cu_ctrl_set_index(f.w, 0);
        kh_cu_ctrl_set_value(f.w, 0xFFFFFFFFFFFFFFFFu);
        for (unsigned k = 0; k < 5; k++)
            kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_FLIT + 8 * k), f.w[k], err, sizeof err);
        kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_KICK), 1, err, sizeof err);
        kh_sim_run_until_idle(kh_machine_sim(m), 10000);
        uint64_t st = rd(m, kh_host_ctrl(0, KH_ORCH_RX_STATUS));
        CHECK_EQ(kh_orch_rx_status_empty(&st), 0);
        kh_flit r;
        for (unsigned k = 0; k < 5; k++) r.w[k] = rd(m, kh_host_ctrl(0, KH_ORCH_RX_FLIT + 8 * k));
        kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_RX_POP), 1, err, sizeof err);
        kh_sim_run(kh_machine_sim(m), 2);
        CHECK_EQ(kh_hdr_type(r.w), KH_T_CU_CTRL);
        CHECK_EQ(kh_hdr_src_x(r.w), 1);
        CHECK_EQ(kh_hdr_src_y(r.w), 2);
        CHECK_EQ(kh_hdr_txn(r.w), 0x5A);
        CHECK_EQ(kh_cu_ctrl_reply_op(r.w), 0x02);
        CHECK_EQ(kh_cu_ctrl_reply_index(r.w), 0);
        ret[op] = kh_cu_ctrl_reply_value(r.w);
        if (op == 0) break;
    }
    /* CU_CAPS: 'SX', version 1, one buffer, INST_DEPTH 512 (generated mesh) */
    uint64_t caps = 0;
    kh_cu_caps_set_cu_type(&caps, 0x5358);
    kh_cu_caps_set_cu_version(&caps, 1);
    kh_cu_caps_set_n_buffers(&caps, 1);
    kh_cu_caps_set_inst_depth(&caps, 512);
    CHECK_EQ(ret[1], caps); /* the write returned the old value... */
    CHECK_EQ(ret[0], caps); /* ... and changed nothing */
    kh_machine_free(m);
}

/* ---- a control program: one GO runs a whole dispatch (control.md §3) ----- */

static void control_program_runs_dispatch_and_completion_with_one_go(void)
{
    kh_machine *m = machine();
    if (!m) return;
    kh_card *card = kh_machine_card(m);
    char err[512];
    float x[8], y[8], r[8];
    for (unsigned i = 0; i < 8; i++) {
        x[i] = (float)i;
        y[i] = (float)(10 * i);
        r[i] = 5.0f * x[i] + y[i];
    }
    kh_card_write_block(card, kh_host_dram(0, 0x600), x, 32, err, sizeof err);
    kh_card_write_block(card, kh_host_dram(0, 0x700), y, 32, err, sizeof err);
    /* the staged flit, built here */
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_type(f.w, KH_T_CU_INST);
    kh_hdr_set_txn(f.w, 0x77);
    kh_hdr_set_last(f.w, 1);
    saxpy_payload(f.w, 1, 8, f32_bits(5.0f), 0x600, 0x700);
    /* commands: the §4 sequence through the alias the upstream driver uses */
    const uint64_t A = KH_HOST_CTRL_ALIAS;
    uint64_t cmds[][4] = {
        {KH_ENG_OP_WR, A + KH_ORCH_SIG_DONE, 0, 0},
        {KH_ENG_OP_WR, A + KH_ORCH_STAGE + 0, f.w[0], 0},
        {KH_ENG_OP_WR, A + KH_ORCH_STAGE + 8, f.w[1], 0},
        {KH_ENG_OP_WR, A + KH_ORCH_STAGE + 16, f.w[2], 0},
        {KH_ENG_OP_WR, A + KH_ORCH_STAGE + 24, f.w[3], 0},
        {KH_ENG_OP_WR, A + KH_ORCH_STAGE + 32, f.w[4], 0},
        {KH_ENG_OP_WR, A + KH_ORCH_PROG_BASE, 0, 0},
        {KH_ENG_OP_WR, A + KH_ORCH_PROG_LEN, 1, 0},
        {KH_ENG_OP_WR, A + KH_ORCH_PROG_DST, kh_orch_node_index(1, 2), 0},
        {KH_ENG_OP_WR, A + KH_ORCH_PROG_CRED, 4, 0},
        {KH_ENG_OP_WR, A + KH_ORCH_PROG_KICK, 1, 0},
        {KH_ENG_OP_POLL, A + KH_ORCH_SIG_DONE, 1, 0xFFFF},
        {KH_ENG_OP_POLL, A + KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 2), 0x0100000077000001u,
         0xFFFFFFFFFF0000FFu},
        {KH_ENG_OP_DONE, 0, 0xD0E, 0},
    };
    for (unsigned n = 0; n < sizeof cmds / sizeof cmds[0]; n++)
        for (unsigned k = 0; k < 4; k++)
            kh_card_write64(card, KH_ENG_CMD + 32 * n + 8 * k, cmds[n][k], err, sizeof err);
    kh_card_write64(card, KH_ENG_CTRL, 1, err, sizeof err); /* the one GO */
    kh_sim_run_until_idle(kh_machine_sim(m), 100000);
    uint64_t c = rd(m, KH_ENG_CTRL);
    CHECK_EQ(kh_eng_ctrl_done(&c), 1);
    CHECK_EQ(kh_eng_ctrl_err(&c), 0);
    CHECK_EQ(rd(m, KH_ENG_CODE), 0xD0E);
    CHECK_EQ(rd(m, KH_ENG_PC), 13);
    CHECK(rd(m, KH_ENG_POLLS) >= 2);
    float got[8];
    kh_card_read_block(card, kh_host_dram(0, 0x700), got, 32, err, sizeof err);
    CHECK(!memcmp(got, r, 32));
    kh_machine_free(m);
}

/* ---- saxpy checks and datapath (matmul_saxpy.md §2.3-§2.6) ----------------- */

/* Dispatch one instruction to (1,0) and return the NODE_STATUS word. */
static uint64_t one_inst(kh_machine *m, unsigned op, unsigned n, uint32_t a, uint64_t x, uint64_t y,
                         kh_cycle *cycles)
{
    kh_card *card = kh_machine_card(m);
    char err[512];
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_type(f.w, KH_T_CU_INST);
    kh_hdr_set_txn(f.w, 0x66);
    kh_hdr_set_last(f.w, 1);
    saxpy_payload(f.w, op, n, a, x, y);
    for (unsigned k = 0; k < 5; k++) kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_STAGE + 8 * k), f.w[k], err, sizeof err);
    kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_PROG_BASE), 0, err, sizeof err);
    kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_PROG_LEN), 1, err, sizeof err);
    kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_PROG_DST), kh_orch_node_index(1, 0), err, sizeof err);
    kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_PROG_CRED), 4, err, sizeof err);
    kh_cycle t = kh_sim_now(kh_machine_sim(m));
    kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_PROG_KICK), 1, err, sizeof err);
    kh_sim_run_until_idle(kh_machine_sim(m), 100000);
    if (cycles) *cycles = kh_sim_now(kh_machine_sim(m)) - t;
    return rd(m, kh_host_ctrl(0, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 0)));
}

static void saxpy_faults_bad_op_then_too_big_and_n_0_succeeds(void)
{
    kh_machine *m = machine();
    if (!m) return;
    uint64_t w = one_inst(m, 2, 65, 0, 0, 0, NULL); /* op checked first */
    CHECK_EQ(kh_orch_node_status_code(&w), 0x04);
    CHECK_EQ(kh_orch_node_status_arg(&w), 0xBAD00001u);
    w = one_inst(m, 1, 65, 0, 0, 0, NULL);
    CHECK_EQ(kh_orch_node_status_code(&w), 0x04);
    CHECK_EQ(kh_orch_node_status_arg(&w), 0xBAD00002u);
    w = one_inst(m, 1, 0, 0, 0, 0, NULL);
    CHECK_EQ(kh_orch_node_status_code(&w), 0x01);
    CHECK_EQ(kh_orch_node_status_arg(&w), 0x66);
    CHECK_EQ(kh_orch_node_status_count(&w), 3);
    kh_machine_free(m);
}

/* The RTL's integer helpers, written again from §2.4 for the test. */
static int32_t ref_f2i(uint32_t w)
{
    int e = (int)((w >> 23) & 0xFF);
    uint64_t m = (uint64_t)((w & 0x7FFFFF) | 0x800000);
    uint32_t mag = 0;
    if (e != 0) mag = (uint32_t)(e >= 150 ? (e - 150 >= 32 ? 0 : m << (e - 150)) : (150 - e >= 32 ? 0 : m >> (150 - e)));
    return (int32_t)((w & 0x80000000u) ? 0u - mag : mag);
}

static uint32_t ref_i2f(int32_t v)
{
    uint32_t mag = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    if (!mag) return 0;
    int p = 0;
    for (int i = 23; i >= 0; i--)
        if (mag & (1u << i)) {
            p = i;
            break;
        }
    return ((uint32_t)v & 0x80000000u) | (uint32_t)(127 + p) << 23 | ((mag << (23 - p)) & 0x7FFFFF);
}

static void saxpy_integer_datapath_matches_the_rtl_helpers(void)
{
    /* Fractions truncate, huge magnitudes lose bits, i2f ignores bits above
     * 23: operands chosen to hit each. */
    kh_machine *m = machine();
    if (!m) return;
    uint32_t x[16] = {0x3fc00000, 0xbfc00000, 0x4b000001, 0x4c000003, 0x7f800000, 0x00000001, 0x4effffff, 0xcf000000,
                      0x45800000, 0x3f800000, 0x40490fdb, 0xc0490fdb, 0x4b7fffff, 0x4a000005, 0x00800000, 0x47000000};
    uint32_t y[16] = {0x41200000, 0x41200000, 0x00000000, 0x3f800000, 0x3f800000, 0x41f00000, 0x3f000000, 0xbf800000,
                      0x46000000, 0xff800000, 0x4b000000, 0x4b000000, 0x4b7fffff, 0xcb000000, 0x3f800000, 0x47000000};
    uint32_t a = 0x40400000; /* 3.0 */
    char err[256];
    kh_card_write_block(kh_machine_card(m), kh_host_dram(0, 0x800), x, 64, err, sizeof err);
    kh_card_write_block(kh_machine_card(m), kh_host_dram(0, 0x900), y, 64, err, sizeof err);
    uint64_t w = one_inst(m, 1, 13, a, 0x800, 0x900, NULL);
    CHECK_EQ(kh_orch_node_status_code(&w), 0x01);
    uint32_t got[16];
    kh_card_read_block(kh_machine_card(m), kh_host_dram(0, 0x900), got, 64, err, sizeof err);
    for (unsigned i = 0; i < 16; i++) {
        uint32_t want = i < 13 ? ref_i2f((int32_t)((uint32_t)ref_f2i(a) * (uint32_t)ref_f2i(x[i]) +
                                                   (uint32_t)ref_f2i(y[i])))
                               : y[i]; /* n..15 rewritten with the values read */
        if (got[i] != want) kh_test_fail(__FILE__, __LINE__, "element %u: got 0x%08x, want 0x%08x", i, got[i], want);
    }
    kh_machine_free(m);
}

/* A word with the exponent drawn from the classes f2i treats apart (0, the
 * shifts right and left around 150, 32 or more either way, 255) and random
 * sign and fraction bits. */
static uint32_t edge_word(uint64_t *seed)
{
    static const unsigned exps[] = {0, 1, 100, 117, 118, 126, 127, 128, 140, 149, 150, 151, 160, 181, 182, 200, 254, 255};
    *seed = *seed * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    uint32_t r = (uint32_t)(*seed >> 32);
    if (r & 1) return r; /* half of them any bits at all */
    unsigned e = exps[(r >> 1) % (sizeof exps / sizeof exps[0])];
    return (r & 0x807FFFFFu) | (uint32_t)e << 23;
}

/* The AVX2 line step, where this CPU has AVX2, gives every element what the
 * RTL helpers above give; elsewhere it declines and changes nothing. */
static void saxpy_line_step_matches_the_rtl_helpers(void)
{
    uint64_t seed = 12345;
    unsigned bad = 0;
    for (unsigned round = 0; round < 4000; round++) {
        kh_flit x[3], y[3], y0[3];
        for (unsigned l = 0; l < 3; l++)
            for (unsigned k = 0; k < 4; k++) {
                x[l].w[k] = edge_word(&seed) | (uint64_t)edge_word(&seed) << 32;
                y[l].w[k] = edge_word(&seed) | (uint64_t)edge_word(&seed) << 32;
            }
        memcpy(y0, y, sizeof y);
        uint32_t a = edge_word(&seed);
        int32_t ia = ref_f2i(a);
        if (!kh_sx_lines_x86(ia, x, y, 3)) {
            CHECK(!memcmp(y, y0, sizeof y));
            return;
        }
        for (unsigned j = 0; j < 24 && bad < 5; j++) {
            uint32_t xe = (uint32_t)(x[j / 8].w[j % 8 / 2] >> (32 * (j % 2)));
            uint32_t ye = (uint32_t)(y0[j / 8].w[j % 8 / 2] >> (32 * (j % 2)));
            uint32_t got = (uint32_t)(y[j / 8].w[j % 8 / 2] >> (32 * (j % 2)));
            uint32_t want = ref_i2f((int32_t)((uint32_t)ia * (uint32_t)ref_f2i(xe) + (uint32_t)ref_f2i(ye)));
            if (got != want) {
                bad++;
                kh_test_fail(__FILE__, __LINE__, "a 0x%08x x 0x%08x y 0x%08x: got 0x%08x, want 0x%08x", a, xe, ye, got,
                             want);
            }
        }
    }
}

static void saxpy_counts_elements_in_cu_dbg(void)
{
    /* CU_DBG = {32'b0, elements} (matmul_saxpy.md §2.1): 13 elements, then a
     * fault (no element), then 5. */
    kh_machine *m = machine();
    if (!m) return;
    one_inst(m, 1, 13, 0, 0x800, 0x900, NULL);
    one_inst(m, 9, 13, 0, 0x800, 0x900, NULL);
    one_inst(m, 1, 5, 0, 0x800, 0x900, NULL);
    kh_card *card = kh_machine_card(m);
    char err[256];
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, 1);
    kh_hdr_set_dst_y(f.w, 0);
    kh_hdr_set_src_x(f.w, 0);
    kh_hdr_set_src_y(f.w, 1);
    kh_hdr_set_type(f.w, KH_T_CU_CTRL);
    kh_hdr_set_last(f.w, 1);
    kh_cu_ctrl_set_index(f.w, 3);
    for (unsigned k = 0; k < 5; k++) kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_FLIT + 8 * k), f.w[k], err, sizeof err);
    kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_KICK), 1, err, sizeof err);
    kh_sim_run_until_idle(kh_machine_sim(m), 10000);
    kh_flit r;
    for (unsigned k = 0; k < 5; k++) r.w[k] = rd(m, kh_host_ctrl(0, KH_ORCH_RX_FLIT + 8 * k));
    CHECK_EQ(kh_cu_ctrl_reply_index(r.w), 3);
    CHECK_EQ(kh_cu_ctrl_reply_value(r.w), 18);
    kh_machine_free(m);
}

/* ---- stall diagnosis ----------------------------------------------------- */

static void program_without_last_is_diagnosed(void)
{
    kh_machine *m = machine();
    if (!m) return;
    text t = {0};
    put(&t, "stage 0 txn=0x12 last=0 payload=");
    put_saxpy(&t, 1, 0, 0, 0, 0);
    put(&t, "\nwrite PROG_LEN 1\nwrite PROG_DST XY(1,2)\nwrite PROG_CRED 4\nwrite PROG_KICK 1\n"
            "poll NODE_STATUS(1,2) 0x0100000000000000 mask 0xff00000000000000\n");
    char err[4096];
    int rc = run_text(m, t.s, err, sizeof err);
    CHECK_EQ(rc, 1);
    CHECK(strstr(err, "t.session:6:") != NULL);
    CHECK(strstr(err, "node (1,2)") != NULL);
    CHECK(strstr(err, "last = 0") != NULL);
    free(t.s);
    kh_machine_free(m);
}

static void unit_that_never_retires_is_diagnosed(void)
{
    /* x in another mesh's staging aperture: the plain read reaches the DRAM
     * master and is never answered (memory.md §1.1, §7), so the unit waits
     * forever and never raises exec_done. */
    kh_machine *m = machine();
    if (!m) return;
    text t = {0};
    put(&t, "stage 0 txn=0x12 last=1 payload=");
    put_saxpy(&t, 1, 8, 1.0f, 0x9000000000ull, 0x100);
    put(&t, "\nwrite PROG_LEN 1\nwrite PROG_DST XY(1,0)\nwrite PROG_CRED 4\nwrite PROG_KICK 1\n"
            "poll SIG_DONE 1 limit 100000\n");
    char err[4096];
    int rc = run_text(m, t.s, err, sizeof err);
    CHECK_EQ(rc, 1);
    CHECK(strstr(err, "t.session:6:") != NULL);
    CHECK(strstr(err, "not retired") != NULL || strstr(err, "has not retired") != NULL);
    CHECK(strstr(err, "(1,0)") != NULL);
    free(t.s);
    kh_machine_free(m);
}

static void unit_kind_not_built_is_refused_naming_the_token(void)
{
    char err[512];
    kh_machine *m = kh_machine_new("xxx mxm xxx\nmag nul nul\nxxx sax xxx\n", NULL, err, sizeof err);
    if (m) {
        kh_machine_free(m); /* the legacy unit may be built one day */
        return;
    }
    CHECK(strstr(err, "'mxm'") != NULL);
}

static void default_machine_is_the_2x2_picture(void)
{
    /* maps/mesh_2x2_6+2.txt: 2x2 routers (CAPS example of control.md §2.2),
     * clusters at the router locals, vector cores at (2,0) and (2,3), memory
     * ports at (0,1) and (0,2). */
    char err[512];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    CHECK(m != NULL);
    if (!m) {
        printf("%s\n", err);
        return;
    }
    CHECK_EQ(rd(m, kh_host_ctrl(0, KH_ORCH_CAPS)), 0x0000000201040120u);
    CHECK(kh_machine_unit(m, 1, 1) != NULL);
    CHECK(kh_machine_unit(m, 2, 3) != NULL);
    CHECK(kh_machine_unit(m, 0, 1) == NULL);
    CHECK(kh_machine_unit(m, 3, 1) == NULL);
    CHECK_STR(kh_cu_kind(kh_machine_unit(m, 2, 0))->token, "vec");
    kh_machine_free(m);
}

int main(void)
{
    KH_RUN(driver_sequence_dispatches_to_both_units);
    KH_RUN(back_to_back_kicks_never_misdirect_a_flit);
    KH_RUN(credits_refill_only_on_inst_complete_and_reseed_works);
    KH_RUN(cu_ctrl_write_reads_and_returns_the_old_value);
    KH_RUN(control_program_runs_dispatch_and_completion_with_one_go);
    KH_RUN(saxpy_faults_bad_op_then_too_big_and_n_0_succeeds);
    KH_RUN(saxpy_integer_datapath_matches_the_rtl_helpers);
    KH_RUN(saxpy_line_step_matches_the_rtl_helpers);
    KH_RUN(saxpy_counts_elements_in_cu_dbg);
    KH_RUN(program_without_last_is_diagnosed);
    KH_RUN(unit_that_never_retires_is_diagnosed);
    KH_RUN(unit_kind_not_built_is_refused_naming_the_token);
    KH_RUN(default_machine_is_the_2x2_picture);
    return kh_test_end("t_saxpy");
}
