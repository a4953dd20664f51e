/* Checkpoints (docs/checkpoint.md): the checksum against its published
 * check value; a machine saved mid-GEMM and restored into a second machine
 * runs on exactly as the first (cycles, statistics, the result in DRAM, and
 * the state saved again); the same for the RV64 core's programs, as the
 * node's processor and as a mesh unit, saved at points across their runs;
 * the legacy matmul unit's program (examples/mxm.session) likewise; values
 * out of range and a unit kind without state refused; the reader's
 * refusals. The CLI side (sessions, the saxpy example, the refusals'
 * wording) is tests/cli/ckpt.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kohaku/ckpt.h"
#include "kohaku/cu.h"
#include "kohaku/gemm.h"
#include "kohaku/mesh.h"
#include "kohaku/params.h"
#include "kohaku/rv64.h"
#include "kohaku/session.h"
#include "kohaku/trace.h"
#include "kohaku/traffic.h"
#include "rv64/sys_int.h"
#include "sim/sim_int.h"
#include "rv64_kit.h"
#include "support/test.h"

/* The CRC-32 "check" value of the nine ASCII digits (the catalogue of
 * parametrised CRC algorithms, CRC-32/ISO-HDLC). */
static void crc32_of_the_check_string(void)
{
    CHECK_EQ(kh_crc32(0, "123456789", 9), 0xCBF43926u);
    CHECK_EQ(kh_crc32(kh_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u); /* continued */
}

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint16_t rnd_f16(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint16_t)((rs >> 4 & 1) << 15 | (10 + (rs >> 5) % 7) << 10 | (rs >> 8) % 1024);
}

/* The statistics JSON of a machine (the --stats body), malloc'd. */
static char *stats(kh_machine *m)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    kh_stats_fprint_json(kh_machine_sim(m), f);
    fclose(f);
    return buf;
}

typedef struct pause_at {
    unsigned calls, at;
    int checked;
} pause_at;

/* Two machines must agree on everything a host can see. */
static void same(kh_machine *a, kh_machine *b, const char *when)
{
    CHECK_EQ(kh_sim_now(kh_machine_sim(a)), kh_sim_now(kh_machine_sim(b)));
    char *sa = stats(a), *sb = stats(b);
    if (!sa || !sb || strcmp(sa, sb)) kh_test_fail(__FILE__, __LINE__, "%s: the statistics differ", when);
    free(sa);
    free(sb);
    /* every byte of DRAM the GEMM touches (operands, images, result) */
    size_t n = 1u << 20;
    uint8_t *x = malloc(n), *y = malloc(n);
    char err[300];
    for (uint64_t off = 0; off < (UINT64_C(8) << 20); off += n) {
        if (kh_card_read_block(kh_machine_card(a), kh_host_dram(0, off), x, n, err, sizeof err) ||
            kh_card_read_block(kh_machine_card(b), kh_host_dram(0, off), y, n, err, sizeof err)) {
            kh_test_fail(__FILE__, __LINE__, "read: %s", err);
            break;
        }
        if (memcmp(x, y, n)) {
            kh_test_fail(__FILE__, __LINE__, "%s: DRAM differs in the MiB at 0x%llx", when, (unsigned long long)off);
            break;
        }
    }
    free(x);
    free(y);
}

static int save_restore_compare(void *ctx, kh_machine *a)
{
    pause_at *pa = ctx;
    if (++pa->calls != pa->at) return 0;
    char err[2000];
    uint8_t *b1 = NULL, *b2 = NULL, *c1 = NULL, *c2 = NULL;
    size_t n1, n2, m1, m2;
    if (kh_machine_save_bytes(a, NULL, &b1, &n1, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "save mid-GEMM: %s", err);
        return 1;
    }
    kh_machine *b = kh_machine_restore_bytes(b1, n1, a, NULL, err, sizeof err);
    if (!b) {
        kh_test_fail(__FILE__, __LINE__, "restore: %s", err);
        free(b1);
        return 1;
    }
    /* save, restore, save: the same bytes */
    if (kh_machine_save_bytes(b, NULL, &b2, &n2, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
    CHECK(b2 && n1 == n2 && !memcmp(b1, b2, n1));
    /* on from here with no host access: the same cycle by cycle */
    kh_sim_run(kh_machine_sim(a), 777);
    kh_sim_run(kh_machine_sim(b), 777);
    same(a, b, "777 cycles on");
    CHECK_EQ(kh_sim_run_until_idle(kh_machine_sim(a), 100000000), 1);
    CHECK_EQ(kh_sim_run_until_idle(kh_machine_sim(b), 100000000), 1);
    same(a, b, "idle");
    if (kh_machine_save_bytes(a, NULL, &c1, &m1, err, sizeof err) ||
        kh_machine_save_bytes(b, NULL, &c2, &m2, err, sizeof err))
        kh_test_fail(__FILE__, __LINE__, "%s", err);
    CHECK(c1 && c2 && m1 == m2 && !memcmp(c1, c2, m1));
    pa->checked = 1;
    free(b1);
    free(b2);
    free(c1);
    free(c2);
    kh_machine_free(b);
    return 1; /* the driver stops: both machines ran on without it */
}

static void mid_gemm(unsigned at)
{
    char err[400];
    kh_machine *mc = kh_machine_new(NULL, NULL, err, sizeof err);
    if (!mc) {
        kh_test_fail(__FILE__, __LINE__, "machine: %s", err);
        return;
    }
    kh_gemm_target t;
    kh_gemm_target_of(mc, &t);
    kh_gemm_plan p;
    unsigned m = 128, n = 128, k = 256;
    uint16_t *a = malloc((size_t)m * k * 2), *bt = malloc((size_t)n * k * 2);
    for (size_t i = 0; i < (size_t)m * k; i++) a[i] = rnd_f16();
    for (size_t i = 0; i < (size_t)n * k; i++) bt[i] = rnd_f16();
    pause_at pa = {0, at, 0};
    if (kh_gemm_plan_make(&p, m, n, k, &t, err, sizeof err) ||
        kh_gemm_upload(mc, &p, KH_GEMM_RECIPE_TILED, a, bt, err, sizeof err) ||
        kh_gemm_quantise(mc, &p, KH_GEMM_RECIPE_TILED, NULL, err, sizeof err))
        kh_test_fail(__FILE__, __LINE__, "%s", err);
    else
        kh_gemm_execute_paused(mc, &p, NULL, save_restore_compare, &pa, err, sizeof err);
    CHECK(pa.checked);
    free(a);
    free(bt);
    kh_machine_free(mc);
}

static void a_gemm_saved_mid_run_resumes_exactly(void)
{
    mid_gemm(1);  /* the first engine program just started */
    mid_gemm(60); /* sweeps and drains under way */
    mid_gemm(400);
}

/* ---- the RV64 core (docs/rv64.md): examples/rv64, built by `make rv64` ---- */

/* the default 2x2 picture with an RV64 unit at (1,0) */
static const char r64_map[] = "xxx r64 vec xxx\n"
                              "mag mat mat xxx\n"
                              "mag mat mat xxx\n"
                              "xxx mat vec xxx\n";

static kh_machine *rv64_machine(int node, const char *map)
{
    kh_params p;
    char err[512];
    kh_params_default(&p);
    if (node && kh_params_set(&p, "cpu_rv64", "1", err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return NULL;
    }
    kh_machine *m = kh_machine_new(map, &p, err, sizeof err);
    if (!m) kh_test_fail(__FILE__, __LINE__, "%s", err);
    return m;
}

/* One RV64 run: the program on the node's complex (node) or on the unit
 * at (1,0) of r64_map, started, then waited for. */
typedef struct rv64_run {
    int node;
    const char *map;
    kh_rv64_elf elf;
    uint64_t mark;
    kh_rv64_result nres;
    kh_rv64_pe_result pres;
} rv64_run;

static int rv64_start(rv64_run *r, kh_machine *m)
{
    char err[2000];
    int rc = r->node ? kh_rv64_node_start(m, 0, &r->elf, err, sizeof err)
                     : kh_rv64_pe_start(m, 0, 1, 0, &r->elf, &r->mark, err, sizeof err);
    if (rc) kh_test_fail(__FILE__, __LINE__, "start: %s", err);
    return rc;
}

static int rv64_wait(rv64_run *r, kh_machine *m)
{
    char err[2000];
    int rc = r->node ? kh_rv64_node_wait(m, 0, 10000000, NULL, NULL, &r->nres, err, sizeof err)
                     : kh_rv64_pe_wait(m, 0, 1, 0, r->mark, 10000000, NULL, NULL, &r->pres, err, sizeof err);
    if (rc) kh_test_fail(__FILE__, __LINE__, "wait: %s", err);
    return rc;
}

/* the core is mid-program: it has retired something and not halted */
static int rv64_busy(const rv64_run *r, kh_machine *m)
{
    if (r->node) {
        kh_rv64 *c = kh_rv64_node_core(kh_machine_cpu64_at(m, 0));
        kh_rv64_status st;
        kh_rv64_stats s;
        kh_rv64_status_get(c, &st);
        kh_rv64_stats_get(c, &s);
        return !st.halted && s.retired > 0;
    }
    /* the unit says what it is doing when asked why it is not idle */
    kh_cu *cu = kh_machine_unit_at(m, 0, 1, 0);
    char why[200] = "";
    return kh_cu_kind(cu)->describe_stuck(kh_cu_unit(cu), why, sizeof why) && strstr(why, "RV64 core running");
}

/* Start the program, run `after` cycles, save; restore into a second
 * machine (saving it again gives the same bytes); both wait for the end:
 * the same result, statistics and final checkpoint. 1 when the core was
 * mid-program at the save. */
static int rv64_resume_at(rv64_run *r, uint64_t after, const char *what)
{
    char err[2000];
    int busy = 0;
    uint8_t *b1 = NULL, *b2 = NULL, *c1 = NULL, *c2 = NULL;
    size_t n1 = 0, n2 = 0, m1 = 0, m2 = 0;
    kh_machine *a = rv64_machine(r->node, r->map), *b = NULL;
    if (!a || rv64_start(r, a)) goto out;
    kh_sim_run(kh_machine_sim(a), after);
    busy = rv64_busy(r, a);
    if (kh_machine_save_bytes(a, NULL, &b1, &n1, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%s: save %llu cycles in: %s", what, (unsigned long long)after, err);
        goto out;
    }
    b = kh_machine_restore_bytes(b1, n1, a, NULL, err, sizeof err);
    if (!b) {
        kh_test_fail(__FILE__, __LINE__, "%s: restore %llu cycles in: %s", what, (unsigned long long)after, err);
        goto out;
    }
    if (kh_machine_save_bytes(b, NULL, &b2, &n2, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
    if (!b2 || n1 != n2 || memcmp(b1, b2, n1))
        kh_test_fail(__FILE__, __LINE__, "%s: save, restore, save %llu cycles in: the files differ", what,
                     (unsigned long long)after);
    rv64_run rb = *r;
    if (rv64_wait(r, a) || rv64_wait(&rb, b)) goto out;
    if (r->node) {
        CHECK_EQ(rb.nres.end, r->nres.end);
        CHECK_EQ(rb.nres.code, r->nres.code);
        CHECK_EQ(rb.nres.instret, r->nres.instret);
        CHECK_EQ(rb.nres.cycles, r->nres.cycles);
    } else {
        CHECK_EQ(rb.pres.code, r->pres.code);
        CHECK_EQ(rb.pres.word, r->pres.word);
        CHECK_EQ(rb.pres.instret, r->pres.instret);
        CHECK_EQ(rb.pres.cycles, r->pres.cycles);
    }
    CHECK_EQ(kh_sim_now(kh_machine_sim(a)), kh_sim_now(kh_machine_sim(b)));
    char *sa = stats(a), *sb = stats(b);
    if (!sa || !sb || strcmp(sa, sb))
        kh_test_fail(__FILE__, __LINE__, "%s: resumed %llu cycles in: the statistics differ", what,
                     (unsigned long long)after);
    free(sa);
    free(sb);
    if (kh_machine_save_bytes(a, NULL, &c1, &m1, err, sizeof err) ||
        kh_machine_save_bytes(b, NULL, &c2, &m2, err, sizeof err))
        kh_test_fail(__FILE__, __LINE__, "%s", err);
    if (!c1 || !c2 || m1 != m2 || memcmp(c1, c2, m1))
        kh_test_fail(__FILE__, __LINE__, "%s: resumed %llu cycles in: the final states differ", what,
                     (unsigned long long)after);
out:
    free(b1);
    free(b2);
    free(c1);
    free(c2);
    kh_machine_free(a);
    kh_machine_free(b);
    return busy;
}

/* Where the program runs: stepping a machine from the program's start
 * cycle by cycle, the first and the last cycle the core is mid-program;
 * then saves at `points` places spread over that span: the result each
 * time is the uninterrupted run's. */
static void rv64_resumes(int node, const char *map, const char *name, unsigned points)
{
    rv64_run r = {.node = node, .map = map};
    if (r6_example_elf(name, &r.elf)) return;
    kh_machine *m = rv64_machine(node, map);
    if (!m || rv64_start(&r, m)) {
        kh_machine_free(m);
        kh_rv64_elf_free(&r.elf);
        return;
    }
    kh_sim *sim = kh_machine_sim(m);
    uint64_t t = 0, first = 0, last = 0;
    for (int seen = 0; t < 10000000; t++) {
        int busy = rv64_busy(&r, m);
        if (busy && !seen) first = t;
        if (busy) last = t;
        if (seen && !busy) break;
        seen |= busy;
        kh_sim_run(sim, 1);
    }
    rv64_run whole = r;
    if (!rv64_wait(&whole, m)) {
        CHECK(last > first);
        unsigned busy = 0;
        for (unsigned i = 0; i < points; i++) {
            rv64_run at = r;
            uint64_t after = first + (last - first) * i / points;
            busy += (unsigned)rv64_resume_at(&at, after, name);
            /* and the same program end as the run that never stopped */
            if (node) {
                CHECK_EQ(at.nres.code, whole.nres.code);
                CHECK_EQ(at.nres.instret, whole.nres.instret);
                CHECK_EQ(at.nres.cycles, whole.nres.cycles);
            } else {
                CHECK_EQ(at.pres.word, whole.pres.word);
                CHECK_EQ(at.pres.instret, whole.pres.instret);
                CHECK_EQ(at.pres.cycles, whole.pres.cycles);
            }
        }
        if (busy != points)
            kh_test_fail(__FILE__, __LINE__, "%s: %u of %u saves were taken mid-program", name, busy, points);
    }
    kh_machine_free(m);
    kh_rv64_elf_free(&r.elf);
}

/* the node's processor: the mailbox, the mover, Sv39 with user pages (the
 * TLB, the walker and the fetch page register live), a dispatch to an RV64
 * unit */
static void rv64_node_programs_resume_exactly(void)
{
    rv64_resumes(1, NULL, "node_dispatch", 6);
    rv64_resumes(1, NULL, "node_sv39", 12);
    rv64_resumes(1, NULL, "node_mover", 6);
    rv64_resumes(1, r64_map, "node_kick_pe", 6);
}

/* the mesh unit rv64_sys_pe */
static void rv64_unit_programs_resume_exactly(void)
{
    rv64_resumes(0, r64_map, "pe_sum", 6);
}

/* The RV64 complex's state with one value no complex can hold: saved as
 * it stands, the restore into a fresh complex is refused naming it. */
typedef void (*rv64_spoil)(rv6_sys *s);
static void spoil_cq(rv6_sys *s) { s->cq_n = R6_CQ + 1; }
static void spoil_rq_head(rv6_sys *s) { s->rq_head = R6_RQ; }
static void spoil_level(rv6_sys *s) { s->mmu.level = 3; }
static void spoil_victim(rv6_sys *s) { s->l1.vic = R6_L1_LINES; }
static void spoil_lane(rv6_sys *s) { s->np.lane = 4; }
static void spoil_priv(rv6_sys *s) { kh_rv6_sys_core(s)->csr.priv = 2; }
static void spoil_mul(rv6_sys *s)
{
    kh_rv6_sys_core(s)->md_state = MD_MUL;
    kh_rv6_sys_core(s)->md_cnt = 6;
}
static void spoil_div(rv6_sys *s)
{
    kh_rv6_sys_core(s)->md_state = MD_DIV;
    kh_rv6_sys_core(s)->md_cnt = 64;
}
static void spoil_ghist(rv6_sys *s) { kh_rv6_sys_core(s)->bp.ghist = 256; }
static void spoil_ras(rv6_sys *s) { kh_rv6_sys_core(s)->bp.ras_sp = R6_RAS; }
static void spoil_x0(rv6_sys *s) { kh_rv6_sys_core(s)->x[0] = 1; }
/* not spoilt: a divide's step stays at 64 once it has finished */
static void after_divide(rv6_sys *s)
{
    kh_rv6_sys_core(s)->md_state = MD_IDLE;
    kh_rv6_sys_core(s)->md_cnt = 64;
}

/* A fresh complex changed by `change` (none: NULL), saved and restored into
 * another: the restore's refusal, "" when it took the whole stream. */
static void restore_changed(rv64_spoil change, char *why, size_t len)
{
    rv6_sys_env env = {0};
    rv6_sys *a = kh_rv6_sys_new(&env, 2, 0, 0), *b = kh_rv6_sys_new(&env, 2, 0, 0);
    kh_ck *w = kh_ck_writer();
    snprintf(why, len, "out of memory");
    if (a && b && w) {
        if (change) change(a);
        kh_rv6_sys_ckpt(a, w);
        CHECK(!kh_ck_failed(w));
        size_t n;
        const uint8_t *bytes = kh_ck_data(w, &n);
        kh_ck *r = kh_ck_reader(bytes, n);
        kh_rv6_sys_ckpt(b, r);
        if (!kh_ck_failed(r) && kh_ck_left(r) == 0) why[0] = 0;
        else snprintf(why, len, "%s", kh_ck_failed(r) ? kh_ck_error(r) : "bytes left over");
        kh_ck_free(r);
    }
    kh_ck_free(w);
    kh_rv6_sys_free(a);
    kh_rv6_sys_free(b);
}

static void rv64_values_out_of_range_are_refused(void)
{
    static const struct {
        rv64_spoil spoil;
        const char *says;
    } cases[] = {
        {spoil_cq, "completion queue's count is 17, not below 17"},
        {spoil_rq_head, "RX queue's head is 8, not below 8"},
        {spoil_level, "page walk's level is 3, not below 3"},
        {spoil_victim, "L1 victim line is 64, not below 64"},
        {spoil_lane, "node port's lane is 4, not below 4"},
        {spoil_priv, "privilege level is 2, not 0 (U), 1 (S) or 3 (M)"},
        {spoil_mul, "multiply/divide step is 6, not below 6"},
        {spoil_div, "multiply/divide step is 64, not below 64"},
        {spoil_ghist, "global history is 256, not below 256"},
        {spoil_ras, "return-stack pointer is 16, not below 16"},
        {spoil_x0, "x0 is 0x1"},
    };
    char why[512];
    restore_changed(NULL, why, sizeof why);
    if (why[0]) kh_test_fail(__FILE__, __LINE__, "a fresh complex: %s", why);
    restore_changed(after_divide, why, sizeof why);
    if (why[0]) kh_test_fail(__FILE__, __LINE__, "a complex after a divide: %s", why);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        restore_changed(cases[i].spoil, why, sizeof why);
        if (!strstr(why, cases[i].says)) kh_test_fail(__FILE__, __LINE__, "want '%s' in '%s'", cases[i].says, why);
    }
}

/* ---- the legacy mx_matmul_cu (token mxm): examples/mxm.session ---- */

/* examples/mxm_map.txt */
static const char mxm_map[] = "xxx mxm xxx\n"
                              "mag nul nul\n"
                              "xxx mxm xxx\n";

/* examples/mxm.session up to its first kick (the uploads, the program of
 * unit (1,0) staged and kicked), malloc'd; NULL when it cannot be read. */
static char *mxm_session_to_first_kick(void)
{
    FILE *f = fopen("examples/mxm.session", "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16;
    char *text = malloc(cap);
    size_t n = text ? fread(text, 1, cap - 1, f) : 0;
    fclose(f);
    if (!text) return NULL;
    text[n] = 0;
    char *kick = strstr(text, "write PROG_KICK 1\n");
    if (!kick) {
        free(text);
        return NULL;
    }
    kick[strlen("write PROG_KICK 1\n")] = 0;
    return text;
}

/* A machine of mxm_map with the session's head run on it (the kick just
 * written), NULL after a failure. */
static kh_machine *mxm_kicked(const char *head)
{
    char err[2000];
    kh_machine *m = kh_machine_new(mxm_map, NULL, err, sizeof err);
    if (!m) {
        kh_test_fail(__FILE__, __LINE__, "machine: %s", err);
        return NULL;
    }
    kh_session *s = kh_session_parse(head, "mxm.session", "examples", err, sizeof err);
    FILE *out = fopen("/dev/null", "w");
    if (!s || !out || kh_session_run(s, m, out, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "session: %s", err);
        kh_machine_free(m);
        m = NULL;
    }
    if (out) fclose(out);
    kh_session_free(s);
    return m;
}

/* Saved at points across unit (1,0)'s program (BLOCK, BLOCK, EMIT, BLOCK,
 * EMIT: reads out, operand words arriving, the write going), restored and
 * run on: the same cycles, statistics, DRAM and final checkpoint bytes. */
static void mxm_programs_resume_exactly(void)
{
    char *head = mxm_session_to_first_kick();
    if (!head) {
        kh_test_fail(__FILE__, __LINE__, "examples/mxm.session: not readable, or no kick in it");
        return;
    }
    /* the program's length, run once whole */
    kh_machine *m = mxm_kicked(head);
    if (!m) {
        free(head);
        return;
    }
    kh_cycle kicked = kh_sim_now(kh_machine_sim(m));
    CHECK_EQ(kh_sim_run_until_idle(kh_machine_sim(m), 10000000), 1);
    kh_cycle span = kh_sim_now(kh_machine_sim(m)) - kicked;
    kh_machine_free(m);
    CHECK(span > 100); /* five instructions, each a DRAM round trip or more */
    for (unsigned k = 0; k < 24; k++) {
        m = mxm_kicked(head);
        if (!m) break;
        kh_sim_run(kh_machine_sim(m), k * span / 24);
        pause_at pa = {0, 1, 0};
        save_restore_compare(&pa, m);
        CHECK(pa.checked);
        kh_machine_free(m);
    }
    free(head);
}

/* Every value of the unit's state that indexes or selects is checked on
 * restore: the stream of a fresh unit with one of them spoilt (the layout:
 * rtl_compat as 8 bytes, then the phase, the sub-tile index and the words
 * received as 4 bytes each, little-endian) is refused naming it. */
static void mxm_values_out_of_range_are_refused(void)
{
    static const struct {
        size_t at;
        uint8_t value;
        const char *says;
    } cases[] = {
        {0, 0, NULL}, /* nothing spoilt: the restore takes it */
        {0, 1, "rtl_compat is 1 in the file, 0 in the machine"},
        {8, 8, "phase is 8, not below 8"},
        {12, 16, "sub-tile index is 16, not below 16"},
        {16, 4, "count of operand words received is 4, not below 4"},
    };
    const kh_unit_kind *kind = kh_unit_by_token("mxm");
    if (!kind || !kind->ckpt) {
        kh_test_fail(__FILE__, __LINE__, "mxm has no state function");
        return;
    }
    kh_params p;
    kh_params_default(&p);
    char err[300];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *a = kind->create(NULL, &p, err, sizeof err), *b = kind->create(NULL, &p, err, sizeof err);
        kh_ck *w = kh_ck_writer();
        if (!a || !b || !w) {
            kh_test_fail(__FILE__, __LINE__, "out of memory");
            break;
        }
        kind->ckpt(a, w);
        size_t n;
        const uint8_t *saved = kh_ck_data(w, &n);
        uint8_t *bytes = malloc(n);
        kh_ck *r = bytes ? kh_ck_reader(bytes, n) : NULL;
        if (!r) {
            kh_test_fail(__FILE__, __LINE__, "out of memory");
            free(bytes);
            break;
        }
        memcpy(bytes, saved, n);
        if (cases[i].says) bytes[cases[i].at] = cases[i].value;
        kind->ckpt(b, r);
        if (!cases[i].says) CHECK(!kh_ck_failed(r) && kh_ck_left(r) == 0);
        else if (!strstr(kh_ck_error(r), cases[i].says))
            kh_test_fail(__FILE__, __LINE__, "want '%s' in '%s'", cases[i].says, kh_ck_error(r));
        kh_ck_free(r);
        kh_ck_free(w);
        free(bytes);
        kind->destroy(a);
        kind->destroy(b);
    }
}

/* A unit kind with no state function (every kind the map tokens reach has
 * one): a machine holding it is refused at save, naming the unit. */
static void *uncovered_create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    (void)shell, (void)p, (void)err, (void)errlen;
    return malloc(1); /* a datapath with nothing in it */
}

static void an_uncovered_unit_kind_refuses_the_save(void)
{
    static const kh_unit_kind uncovered = {
        .name = "uncovered_test_cu",
        .cu_type = 0x5554,
        .cu_version = 1,
        .n_buffers = 1,
        .create = uncovered_create,
        .destroy = free,
    };
    char err[2000];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    if (!m) {
        kh_test_fail(__FILE__, __LINE__, "machine: %s", err);
        return;
    }
    const kh_cu_place at = {.x = 3, .y = 3, .mem_x = 0, .mem_y = 1};
    CHECK(kh_cu_new(kh_machine_sim(m), &uncovered, &at, err, sizeof err) != NULL);
    uint8_t *b = NULL;
    size_t n = 0;
    CHECK_EQ(kh_machine_save_bytes(m, NULL, &b, &n, err, sizeof err), -1);
    CHECK(b == NULL);
    if (!strstr(err, "unit 'uncovered_test_cu(3,3)' (kind uncovered_test_cu) has no checkpoint state"))
        kh_test_fail(__FILE__, __LINE__, "the refusal does not name the unit: '%s'", err);
    free(b);
    kh_machine_free(m);
}

static void refusals_name_what_breaks(void)
{
    char err[2000];
    kh_machine *mc = kh_machine_new(NULL, NULL, err, sizeof err);
    if (!mc) return;
    kh_sim_run(kh_machine_sim(mc), 100);
    uint8_t *b = NULL;
    size_t n = 0;
    CHECK_EQ(kh_machine_save_bytes(mc, NULL, &b, &n, err, sizeof err), 0);
    kh_machine *r;
    /* every proper prefix is refused, never half-restored */
    for (size_t cut = 0; cut < n; cut += n / 97 + 1) {
        r = kh_machine_restore_bytes(b, cut, NULL, NULL, err, sizeof err);
        CHECK(r == NULL);
        kh_machine_free(r);
    }
    /* one bit flipped in each of several places: refused (checksum or header) */
    for (size_t at = 9; at < n; at += n / 31 + 1) {
        b[at] ^= 0x10;
        r = kh_machine_restore_bytes(b, n, NULL, NULL, err, sizeof err);
        if (r) kh_test_fail(__FILE__, __LINE__, "a flipped bit at offset %zu was not refused", at);
        kh_machine_free(r);
        b[at] ^= 0x10;
    }
    /* another machine: the parameter named */
    kh_params q;
    kh_params_default(&q);
    q.recv_depth = 64;
    kh_machine *other = kh_machine_new(NULL, &q, err, sizeof err);
    r = kh_machine_restore_bytes(b, n, other, NULL, err, sizeof err);
    CHECK(r == NULL);
    CHECK(strstr(err, "parameter recv_depth is 512 in the file, 64 here") != NULL);
    kh_machine_free(r);
    kh_machine_free(other);
    /* a section name longer than a name can be (found by fuzz_ckpt) */
    uint8_t hdr[64];
    memcpy(hdr, b, 32);
    memcpy(hdr + 32, "DESC", 4);
    hdr[36] = 0x2c; /* 300 */
    hdr[37] = 0x01;
    memset(hdr + 38, 'x', sizeof hdr - 38);
    r = kh_machine_restore_bytes(hdr, sizeof hdr, NULL, NULL, err, sizeof err);
    CHECK(r == NULL);
    CHECK(strstr(err, "a name of 300 bytes") != NULL);
    kh_machine_free(r);
    /* the intact file still restores */
    r = kh_machine_restore_bytes(b, n, mc, NULL, err, sizeof err);
    CHECK(r != NULL);
    if (r) CHECK_EQ(kh_sim_now(kh_machine_sim(r)), 100);
    kh_machine_free(r);
    free(b);
    kh_machine_free(mc);
}

/* kh_ck_sparse keeps a mostly-zero table as its non-zero entries and reads
 * it back whole; an index outside the table or out of order is refused, as
 * kh_ck_below refuses a position past its ring. */
static int error_has(const kh_ck *ck, const char *what)
{
    char e[1100];
    snprintf(e, sizeof e, "%s", kh_ck_error(ck));
    return strstr(e, what) != NULL;
}

static void sparse_tables_and_positions(void)
{
    uint16_t t[1000] = {0}, u[1000];
    t[3] = 7;
    t[999] = 0xffff;
    kh_ck *w = kh_ck_writer();
    kh_ck_sparse(w, t, sizeof *t, 1000, "t");
    size_t n;
    const uint8_t *b = kh_ck_data(w, &n);
    CHECK_EQ(n, 8 + 2 * (8 + 2)); /* the count, then two (index, value) */
    memset(u, 0x55, sizeof u);
    kh_ck *r = kh_ck_reader(b, n);
    kh_ck_sparse(r, u, sizeof *u, 1000, "t");
    CHECK(!kh_ck_failed(r) && !kh_ck_left(r) && !memcmp(t, u, sizeof t));
    kh_ck_free(r);
    kh_ck_free(w);
    /* hand-made: one entry at index 1000 of a table of 1000 */
    w = kh_ck_writer();
    uint64_t one = 1, at = 1000;
    uint16_t v = 1;
    KH_CK(w, one), KH_CK(w, at), KH_CK(w, v);
    b = kh_ck_data(w, &n);
    r = kh_ck_reader(b, n);
    kh_ck_sparse(r, u, sizeof *u, 1000, "a test table");
    CHECK(error_has(r, "a test table is 1000, not below 1000"));
    kh_ck_free(r);
    kh_ck_free(w);
    /* two entries, the second before the first */
    w = kh_ck_writer();
    uint64_t two = 2, a1 = 5, a2 = 4;
    KH_CK(w, two), KH_CK(w, a1), KH_CK(w, v), KH_CK(w, a2), KH_CK(w, v);
    b = kh_ck_data(w, &n);
    r = kh_ck_reader(b, n);
    kh_ck_sparse(r, u, sizeof *u, 1000, "t");
    CHECK(error_has(r, "index 4 after 5"));
    kh_ck_free(r);
    kh_ck_free(w);
    /* a ring's head: below its size on restore, never checked on save */
    w = kh_ck_writer();
    kh_ck_below(w, 9, 8, "a ring's head");
    CHECK(!kh_ck_failed(w));
    b = kh_ck_data(w, &n);
    r = kh_ck_reader(b, n);
    kh_ck_below(r, 7, 8, "a ring's head");
    CHECK(!kh_ck_failed(r));
    kh_ck_below(r, 8, 8, "a ring's head");
    CHECK(error_has(r, "a ring's head is 8, not below 8"));
    kh_ck_free(r);
    kh_ck_free(w);
}

/* ---- kohaku bench noc's machine: a mesh of test endpoints ---- */

/* The bench's default picture (tools/kohaku/bench_noc.c). */
static const char noc_map[] = "xxx vec vec vec vec xxx\n"
                              "mag mat nul mat nul vec\n"
                              "mag mat nul mat nul vec\n"
                              "mag mat nul mat nul vec\n"
                              "mag mat nul mat nul vec\n"
                              "xxx vec vec vec vec xxx\n";

typedef struct noc_bench {
    kh_map *map;
    kh_sim *sim;
    kh_mesh *mesh;
    kh_traffic *t;
} noc_bench;

static int noc_new(noc_bench *b, const kh_traffic_cfg *cfg, uint64_t fifo_depth)
{
    char err[400];
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_params p;
    kh_params_default(&p);
    if (fifo_depth) p.router_fifo_depth = fifo_depth;
    memset(b, 0, sizeof *b);
    b->map = kh_map_parse(noc_map, &units, err, sizeof err);
    b->sim = b->map ? kh_sim_new(&p) : NULL;
    b->mesh = b->sim ? kh_mesh_new(b->sim, b->map, err, sizeof err) : NULL;
    b->t = b->mesh ? kh_traffic_new(b->mesh, b->map, cfg, err, sizeof err) : NULL;
    if (!b->t) kh_test_fail(__FILE__, __LINE__, "bench noc: %s", err);
    return b->t ? 0 : -1;
}

static void noc_free(noc_bench *b)
{
    kh_traffic_free(b->t);
    kh_mesh_free(b->mesh);
    kh_sim_destroy(b->sim);
    kh_map_free(b->map);
}

/* The simulation's state as the checkpoint writes it, malloc'd. */
static uint8_t *sim_bytes(kh_sim *sim, size_t *n, char *err, size_t errlen)
{
    kh_ck *w = kh_ck_writer();
    uint8_t *out = NULL;
    *n = 0;
    if (w && !kh_sim_ckpt(sim, w)) {
        const uint8_t *d = kh_ck_data(w, n);
        if ((out = malloc(*n))) memcpy(out, d, *n);
    }
    snprintf(err, errlen, "%s", w ? kh_ck_error(w) : "out of memory");
    kh_ck_free(w);
    return out;
}

static char *sim_stats(kh_sim *sim)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    kh_stats_fprint_json(sim, f);
    fclose(f);
    return buf;
}

/* Everything the bench reports and checks, equal in a and b. */
static void noc_same(const noc_bench *a, const noc_bench *b, const char *when)
{
    kh_traffic_stats sa, sb;
    kh_traffic_stats_get(a->t, &sa);
    kh_traffic_stats_get(b->t, &sb);
    if (kh_sim_now(a->sim) != kh_sim_now(b->sim) || memcmp(&sa, &sb, sizeof sa) ||
        kh_mesh_hops(a->mesh) != kh_mesh_hops(b->mesh))
        kh_test_fail(__FILE__, __LINE__, "%s: cycle %llu/%llu, delivered %llu/%llu, hops %llu/%llu", when,
                     (unsigned long long)kh_sim_now(a->sim), (unsigned long long)kh_sim_now(b->sim),
                     (unsigned long long)sa.delivered, (unsigned long long)sb.delivered,
                     (unsigned long long)kh_mesh_hops(a->mesh), (unsigned long long)kh_mesh_hops(b->mesh));
    char *ja = sim_stats(a->sim), *jb = sim_stats(b->sim);
    if (!ja || !jb || strcmp(ja, jb)) kh_test_fail(__FILE__, __LINE__, "%s: the statistics differ", when);
    free(ja);
    free(jb);
    CHECK_EQ(sa.errors, 0);
}

/* Run a saved at cycle `at` into a fresh b, both on to the stop cycle and
 * drained: equal in every figure, and their final states byte for byte. */
static void noc_resumes(const kh_traffic_cfg *cfg, uint64_t fifo_depth, kh_cycle at)
{
    noc_bench a, b;
    char err[2000];
    if (noc_new(&a, cfg, fifo_depth) || noc_new(&b, cfg, fifo_depth)) goto done;
    kh_sim_run(a.sim, at);
    size_t n1 = 0, n2 = 0;
    uint8_t *b1 = sim_bytes(a.sim, &n1, err, sizeof err), *b2 = NULL;
    if (!b1) {
        kh_test_fail(__FILE__, __LINE__, "save at cycle %llu: %s", (unsigned long long)at, err);
        goto done;
    }
    kh_ck *r = kh_ck_reader(b1, n1);
    if (kh_sim_ckpt(b.sim, r) || kh_ck_left(r))
        kh_test_fail(__FILE__, __LINE__, "restore at cycle %llu: %s", (unsigned long long)at, kh_ck_error(r));
    kh_ck_free(r);
    b2 = sim_bytes(b.sim, &n2, err, sizeof err);
    CHECK(b2 && n1 == n2 && !memcmp(b1, b2, n1)); /* save, restore, save */
    free(b2);
    noc_same(&a, &b, "restored");
    kh_sim_run(a.sim, 313);
    kh_sim_run(b.sim, 313);
    noc_same(&a, &b, "313 cycles on");
    CHECK_EQ(kh_sim_run_until_idle(a.sim, cfg->stop + 200000), 1);
    CHECK_EQ(kh_sim_run_until_idle(b.sim, cfg->stop + 200000), 1);
    noc_same(&a, &b, "drained");
    CHECK_EQ(kh_traffic_check(a.t, err, sizeof err), 0); /* every flit delivered once, in order */
    CHECK_EQ(kh_traffic_check(b.t, err, sizeof err), 0);
    kh_traffic_stats s;
    kh_traffic_stats_get(a.t, &s);
    CHECK(s.delivered > 0 && s.delivered == s.sent); /* a run that did something, all of it delivered */
    free(b1);
    b1 = sim_bytes(a.sim, &n1, err, sizeof err);
    b2 = sim_bytes(b.sim, &n2, err, sizeof err);
    CHECK(b1 && b2 && n1 == n2 && !memcmp(b1, b2, n1));
    free(b1);
    free(b2);
done:
    noc_free(&a);
    noc_free(&b);
}

static void bench_noc_traffic_resumes_exactly(void)
{
    kh_traffic_cfg cfg = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.1, .seed = 7, .stop = 3000};
    noc_resumes(&cfg, 0, 1);
    noc_resumes(&cfg, 0, 1234);
    cfg.pattern = KH_TRAFFIC_HOTSPOT;
    cfg.rate = 0.4;
    cfg.src_queue = 3; /* refusals at the source queue */
    noc_resumes(&cfg, 2, 777);
    /* saturating with shallow FIFOs: flits built ahead of a refused cycle */
    kh_traffic_cfg sat = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 1, .seed = 3, .stop = 2000};
    for (kh_cycle at = 100; at < 110; at++) noc_resumes(&sat, 2, at);
    sat.pattern = KH_TRAFFIC_TRANSPOSE;
    noc_resumes(&sat, 0, 555);
    /* a rate low enough for the geometric gap */
    kh_traffic_cfg rare = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 1e-7, .seed = 11, .stop = 400000000};
    noc_resumes(&rare, 0, 30000000);
}

/* A restore built with another traffic configuration is refused. */
static void bench_noc_other_rate_refused(void)
{
    kh_traffic_cfg cfg = {.pattern = KH_TRAFFIC_UNIFORM, .rate = 0.1, .seed = 7, .stop = 3000};
    noc_bench a, b;
    char err[2000];
    if (noc_new(&a, &cfg, 0)) return;
    cfg.rate = 0.2;
    if (noc_new(&b, &cfg, 0)) {
        noc_free(&a);
        return;
    }
    kh_sim_run(a.sim, 100);
    size_t n = 0;
    uint8_t *bytes = sim_bytes(a.sim, &n, err, sizeof err);
    kh_ck *r = bytes ? kh_ck_reader(bytes, n) : NULL;
    CHECK(r && kh_sim_ckpt(b.sim, r) != 0);
    if (r) CHECK(strstr(kh_ck_error(r), "the arrival threshold (--rate)") != NULL);
    kh_ck_free(r);
    free(bytes);
    noc_free(&a);
    noc_free(&b);
}

/* ---- the kernel's own section ---- */

static void idle_step(kh_comp *c, kh_cycle now) { (void)c, (void)now; }
static void no_state(kh_comp *c, kh_ck *ck) { (void)c, (void)ck; }
static const kh_comp_ops idle_ops = {.kind = "idle", .step = idle_step, .ckpt = no_state};

/* Three components: ids 0-2 of the wheel's one word. A saved wheel with a
 * wake for id 5 (no such component: stepping it would read past the
 * component table) is refused naming it; the unspoilt one restores. */
static void a_wake_past_the_last_component_is_refused(void)
{
    for (int spoil = 0; spoil < 2; spoil++) {
        kh_sim *a = kh_sim_new(NULL), *b = kh_sim_new(NULL);
        kh_comp ca[3], cb[3];
        CHECK(a && b);
        if (!a || !b) {
            kh_sim_destroy(a);
            kh_sim_destroy(b);
            return;
        }
        for (int i = 0; i < 3; i++) {
            memset(&ca[i], 0, sizeof ca[i]);
            memset(&cb[i], 0, sizeof cb[i]);
            kh_sim_add(a, &ca[i], &idle_ops, "idle");
            kh_sim_add(b, &cb[i], &idle_ops, "idle");
        }
        kh_comp_wake(&ca[1], 4);
        if (spoil) a->sched.wheel[7] |= UINT64_C(1) << 5;
        kh_ck *w = kh_ck_writer();
        CHECK(kh_sim_ckpt(a, w) == 0);
        size_t n;
        const uint8_t *bytes = kh_ck_data(w, &n);
        kh_ck *r = kh_ck_reader(bytes, n);
        int rc = kh_sim_ckpt(b, r);
        if (!spoil) CHECK(rc == 0 && !kh_ck_failed(r));
        else if (rc == 0 || !strstr(kh_ck_error(r), "slot 7 wakes a component past the last (3)"))
            kh_test_fail(__FILE__, __LINE__, "want the wake for id 5 refused, got '%s'", kh_ck_error(r));
        kh_ck_free(r);
        kh_ck_free(w);
        kh_sim_destroy(a);
        kh_sim_destroy(b);
    }
}

int main(void)
{
    KH_RUN(crc32_of_the_check_string);
    KH_RUN(a_gemm_saved_mid_run_resumes_exactly);
    KH_RUN(rv64_node_programs_resume_exactly);
    KH_RUN(rv64_unit_programs_resume_exactly);
    KH_RUN(rv64_values_out_of_range_are_refused);
    KH_RUN(mxm_programs_resume_exactly);
    KH_RUN(mxm_values_out_of_range_are_refused);
    KH_RUN(an_uncovered_unit_kind_refuses_the_save);
    KH_RUN(refusals_name_what_breaks);
    KH_RUN(a_wake_past_the_last_component_is_refused);
    KH_RUN(sparse_tables_and_positions);
    KH_RUN(bench_noc_traffic_resumes_exactly);
    KH_RUN(bench_noc_other_rate_refused);
    return kh_test_end("t_ckpt");
}
