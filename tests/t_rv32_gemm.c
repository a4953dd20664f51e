/* The upstream reason for the node processor: a whole job with no host
 * round trip. One job, two drivers: the host itself (AUX_CFG writes and
 * AUX_STAT polls per move, the cluster's instructions staged and dispatched
 * by the orchestrator), and examples/rv32/replay.c on the processor (the
 * same register writes replayed from scratchpad descriptors by MVGO, the
 * same CU_INSTs sent through the dispatch region). The job: FILL a region,
 * GENERATE random words, COPY Bt into place, GATHER A's rows back into
 * order, quantise both with XFORM, then FILL A, FILL B, GEMM, DRAIN on a
 * cluster. Checked against independent computations, and the two drivers
 * against each other; the cycles of both go to the note (docs/cpu.md).
 *
 * The dispatch region carries only payload [255:184] (cpu.md §4.5): a GEMM
 * sent that way has anchor 0, not 40, so its products come out 2^40 too
 * large (numerics.md §5: exp_in = ea + eb - anchor - 6). The data are chosen
 * so that no exponent wraps and C * 2^40 fits FP16; both drivers send the
 * same words. Needs build/rv32/replay.elf (make rv32): counted as skipped without it. */
#include <math.h>

#include "kohaku/card.h"
#include "kohaku/gemm.h"
#include "kohaku/gen/cluster.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/mover.h"
#include "kohaku/gen/regs.h"
#include "rv32_kit.h"

#define M 4
#define N 4
#define K 32
#define CL_X 1 /* the cluster at (1,1) */
#define CL_Y 1
#define F_REGION 0x100000ull /* FILL target, 8 words */
#define G_REGION 0x101000ull /* GENERATE target, 4 words */
#define A_SHUF 0x102000ull   /* A with its rows permuted */
#define IDX 0x103000ull      /* the gather's index list */
#define BT_IN 0x104000ull    /* Bt as uploaded, COPY source */
#define FILL_WORD 0xA5C3F00Du
#define SEED 0x0123456789ABCDEFull

typedef struct mv_write {
    uint8_t reg;
    uint64_t v;
} mv_write;

typedef struct move {
    mv_write w[40];
    unsigned n;
} move;

typedef struct job {
    kh_gemm_plan p;
    move mv[6];
    unsigned nmv;
    kh_flit inst[4];
    uint16_t a[M * K], bt[N * K], a_shuf[M * K];
    uint32_t idx[M];
} job;

static void put(move *m, unsigned reg, uint64_t v)
{
    m->w[m->n].reg = (uint8_t)reg;
    m->w[m->n++].v = v;
}

static void walker(move *m, unsigned sel, uint64_t base, unsigned ndim, const unsigned *count, const int64_t *stride,
                   unsigned xform_mode, int xform)
{
    uint64_t v = 0;
    kh_mover_hdr_set_sel(&v, sel);
    kh_mover_hdr_set_base(&v, base);
    kh_mover_hdr_set_ndim(&v, ndim);
    if (xform) {
        kh_mover_hdr_set_xform_id(&v, 1);
        kh_mover_hdr_set_xform_mode(&v, xform_mode);
    }
    put(m, 0x10, v);
    for (unsigned d = 0; d < ndim; d++) {
        uint64_t dv = 0;
        kh_mover_dim_set_sel(&dv, sel);
        kh_mover_dim_set_dim(&dv, d);
        kh_mover_dim_set_count(&dv, count[d]);
        kh_mover_dim_set_stride(&dv, (uint64_t)stride[d]);
        put(m, 0x18, dv);
        put(m, 0x20, 0);
    }
    for (unsigned ax = 0; ax < 2; ax++) {
        uint64_t bv = 0;
        kh_mover_bound_set_sel(&bv, sel);
        kh_mover_bound_set_ax(&bv, ax);
        put(m, 0x28, bv);
    }
}

static void go(move *m, unsigned mode, unsigned ewidth)
{
    put(m, 0x00, rv_mover_ctrl(mode, ewidth, 1));
}

static uint16_t f16(double x)
{
    /* normal FP16 of x (exponent in range, 10-bit fraction, truncated) */
    int e;
    double f = frexp(fabs(x), &e); /* x = f * 2^e, f in [0.5, 1) */
    unsigned exp = (unsigned)(e - 1 + 15), frac = (unsigned)((f * 2 - 1) * 1024);
    return (uint16_t)((x < 0 ? 0x8000 : 0) | exp << 10 | frac);
}

static void make_job(job *j, kh_machine *m)
{
    memset(j, 0, sizeof *j);
    kh_gemm_target t;
    kh_gemm_target_of(m, &t);
    t.gm = t.gn = t.bc = 1;
    t.staging_bytes = 0;
    char err[256];
    CHECK_EQ(kh_gemm_plan_make(&j->p, M, N, K, &t, err, sizeof err), 0);
    CHECK_EQ(j->p.ch, 1);
    /* A: every element in [2^-14, 2^-13); Bt: two nonzeros per row, so each
     * C is at most 2^-25 and C * 2^40 at most 2^15 */
    uint32_t s = 12345;
    for (unsigned i = 0; i < M * K; i++) {
        s = s * 1103515245u + 12345u;
        j->a[i] = f16((1.0 + (s >> 16 & 1023) / 1024.0) * ldexp(1, -14) * ((s >> 30) & 1 ? -1 : 1));
    }
    for (unsigned r = 0; r < N; r++)
        for (unsigned k = 0; k < K; k++)
            j->bt[r * K + k] = (k == 3 * r + 1 || k == 31 - 5 * r) ? f16((1.0 + r / 8.0) * ldexp(1, -14)) : 0;
    /* the gather puts row idx[r] of A_SHUF at row r */
    static const uint32_t perm[M] = {2, 0, 3, 1};
    for (unsigned r = 0; r < M; r++) {
        j->idx[r] = perm[r];
        memcpy(&j->a_shuf[perm[r] * K], &j->a[r * K], K * 2);
    }
    const kh_gemm_plan *p = &j->p;
    unsigned c1[1] = {8};
    int64_t s1[1] = {32};
    /* FILL: 8 words of FILL_WORD, 32-bit elements */
    move *mv = &j->mv[j->nmv++];
    walker(mv, 1, F_REGION, 1, c1, s1, 0, 0);
    put(mv, 0x40, FILL_WORD);
    go(mv, 4, 2);
    /* GENERATE: 4 words from the seed */
    mv = &j->mv[j->nmv++];
    unsigned c4[1] = {4};
    walker(mv, 1, G_REGION, 1, c4, s1, 0, 0);
    put(mv, 0x38, SEED);
    go(mv, 3, 1);
    /* COPY Bt (np x kp halves = 8 words) into b_src */
    mv = &j->mv[j->nmv++];
    walker(mv, 0, BT_IN, 1, c1, s1, 0, 0);
    walker(mv, 1, p->b_src, 1, c1, s1, 0, 0);
    go(mv, 0, 1);
    /* GATHER: row r of a_src = row idx[r] of A_SHUF; 2 words a row */
    mv = &j->mv[j->nmv++];
    walker(mv, 0, A_SHUF, 1, c1, s1, 0, 0);
    walker(mv, 1, p->a_src, 1, c1, s1, 0, 0);
    uint64_t iv = 0, gv = 0;
    kh_mover_idx_set_idx_base(&iv, IDX);
    kh_mover_idx_set_idx_count(&iv, M);
    put(mv, 0x30, iv);
    kh_mover_gather_set_pitch(&gv, 2 * K);
    kh_mover_gather_set_gwords(&gv, 2);
    put(mv, 0x50, gv);
    go(mv, 2, 1);
    /* XFORM A (mode 0) and B (mode 1): recipe 2 of cluster.md §9.2 */
    for (unsigned op = 0; op < 2; op++) {
        mv = &j->mv[j->nmv++];
        uint64_t pitch = 2ull * p->kp;
        unsigned groups = op ? p->gn : p->gm, tiles = op ? p->gj : p->gi;
        unsigned c6[6] = {tiles, p->ch, groups, p->bc, 4, 2};
        int64_t s6[6] = {(int64_t)(4 * groups * pitch), 64 * (int64_t)p->bc, (int64_t)(4 * pitch), 64,
                         (int64_t)pitch, 32};
        unsigned entries = tiles * p->ch * groups * p->bc;
        unsigned ce[1] = {entries};
        int64_t se[1] = {128};
        walker(mv, 0, op ? p->b_src : p->a_src, 6, c6, s6, op, 1);
        walker(mv, 1, op ? p->b_img : p->a_img, 1, ce, se, 0, 0);
        go(mv, 5, 1);
    }
    /* the cluster: FILL A, FILL B, GEMM, DRAIN; anchor 0 (see the top) */
    for (unsigned i = 0; i < 4; i++) {
        kh_flit_clear(&j->inst[i]);
        kh_hdr_set_type(j->inst[i].w, KH_T_CU_INST);
    }
    kh_cluster_set_op(j->inst[0].w, KH_CLUSTER_OP_FILL);
    kh_cluster_set_addr(j->inst[0].w, p->a_img);
    kh_cluster_set_n(j->inst[0].w, 1);
    kh_cluster_set_op(j->inst[1].w, KH_CLUSTER_OP_FILL);
    kh_cluster_set_sel(j->inst[1].w, 1);
    kh_cluster_set_addr(j->inst[1].w, p->b_img);
    kh_cluster_set_n(j->inst[1].w, 1);
    kh_cluster_set_op(j->inst[2].w, KH_CLUSTER_OP_GEMM);
    kh_cluster_set_gm(j->inst[2].w, 1);
    kh_cluster_set_gn(j->inst[2].w, 1);
    kh_cluster_set_op(j->inst[3].w, KH_CLUSTER_OP_DRAIN);
    kh_cluster_set_addr(j->inst[3].w, p->c_img);
    kh_cluster_set_n(j->inst[3].w, 1);
    for (unsigned i = 0; i < 4; i++) /* payload [183:0] is zero: the dispatch region sends the same flit */
        CHECK(!j->inst[i].w[0] && !j->inst[i].w[1] && !(j->inst[i].w[2] & ((1ull << 56) - 1)));
}

static int upload(kh_machine *m, const job *j)
{
    char err[512];
    kh_card *c = kh_machine_card(m);
    uint64_t pad[M * K / 4] = {0};
    memcpy(pad, j->a_shuf, sizeof j->a_shuf);
    uint32_t idx[8] = {0};
    memcpy(idx, j->idx, sizeof j->idx);
    return kh_card_write_block(c, kh_host_dram(0, A_SHUF), pad, sizeof pad, err, sizeof err) ||
           kh_card_write_block(c, kh_host_dram(0, IDX), idx, sizeof idx, err, sizeof err) ||
           kh_card_write_block(c, kh_host_dram(0, BT_IN), j->bt, sizeof j->bt, err, sizeof err);
}

static uint64_t rd(kh_machine *m, uint32_t off)
{
    char err[256];
    uint64_t v = 0;
    kh_card_read64(kh_machine_card(m), kh_host_ctrl(0, off), &v, err, sizeof err);
    return v;
}

static void wr(kh_machine *m, uint32_t off, uint64_t v)
{
    char err[256];
    kh_card_write64(kh_machine_card(m), kh_host_ctrl(0, off), v, err, sizeof err);
}

/* The host drives: cycles from its first write to the last completion. */
static kh_cycle host_driven(kh_machine *m, const job *j)
{
    kh_sim *sim = kh_machine_sim(m);
    kh_cycle t0 = kh_sim_now(sim);
    for (unsigned k = 0; k < j->nmv; k++) {
        for (unsigned i = 0; i < j->mv[k].n; i++) wr(m, KH_ORCH_AUX_CFG + j->mv[k].w[i].reg, j->mv[k].w[i].v);
        for (unsigned tries = 0; tries < 100000; tries++) {
            uint64_t st = rd(m, KH_ORCH_AUX_STAT);
            if (!kh_orch_aux_stat_mover_busy(&st) && tries) break;
        }
    }
    unsigned ns = kh_orch_node_index(CL_X, CL_Y);
    uint64_t before = rd(m, KH_ORCH_NODE_STATUS + 8 * ns);
    for (unsigned s = 0; s < 4; s++)
        for (unsigned k = 0; k < KH_FLIT_WORDS; k++) wr(m, KH_ORCH_STAGE + 40 * s + 8 * k, j->inst[s].w[k]);
    wr(m, KH_ORCH_PROG_DST, (uint64_t)(CL_Y << 4 | CL_X));
    wr(m, KH_ORCH_PROG_BASE, 0);
    wr(m, KH_ORCH_PROG_LEN, 4);
    wr(m, KH_ORCH_PROG_CRED, 4);
    wr(m, KH_ORCH_PROG_KICK, 1);
    for (unsigned tries = 0; tries < 1000000; tries++) {
        uint64_t v = rd(m, KH_ORCH_NODE_STATUS + 8 * ns);
        if (((kh_orch_node_status_count(&v) - kh_orch_node_status_count(&before)) & 0xFFFF) == 4) break;
    }
    return kh_sim_now(sim) - t0;
}

/* The processor drives: descriptors and the step list in the scratchpad. */
static void on_card_image(const job *j, kh_rv32_image *img)
{
    uint32_t *sp = img->spad;
    unsigned s = 0x1000 / 4;                              /* the step list (replay.c) */
    unsigned w = s + 2 * j->nmv + 5 * 4 + 3;              /* descriptors right after it */
    for (unsigned k = 0; k < j->nmv; k++) {
        sp[s++] = 1;
        sp[s++] = w * 4;
        sp[w++] = j->mv[k].n;
        for (unsigned i = 0; i < j->mv[k].n; i++) {
            sp[w++] = j->mv[k].w[i].reg;
            sp[w++] = (uint32_t)j->mv[k].w[i].v;
            sp[w++] = (uint32_t)(j->mv[k].w[i].v >> 32);
        }
    }
    for (unsigned i = 0; i < 4; i++) {
        sp[s++] = 2;
        sp[s++] = (uint32_t)(CL_Y << 4 | CL_X) | (i + 1) << 8;
        sp[s++] = (uint32_t)kh_rv32_kick_op(j->inst[i].w);
        sp[s++] = (uint32_t)kh_rv32_kick_pc(j->inst[i].w);
        sp[s++] = (uint32_t)kh_rv32_kick_arg(j->inst[i].w);
    }
    sp[s++] = 3;
    sp[s++] = 4;
    sp[s++] = 0;
    CHECK(s == 0x1000 / 4 + 2 * j->nmv + 5 * 4 + 3 && w <= 0x1E00 / 4);
    img->spad_lo = 0x1000 / 32;
    img->spad_hi = (w * 4 + 31) / 32;
}

static void read_dram(kh_machine *m, uint64_t off, void *out, size_t n)
{
    char err[256];
    CHECK_EQ(kh_card_read_block(kh_machine_card(m), kh_host_dram(0, off), out, n, err, sizeof err), 0);
}

/* Independent checks of one machine's results. */
static void check_results(kh_machine *m, const job *j, uint16_t *c)
{
    uint32_t f[64];
    read_dram(m, F_REGION, f, 8 * 32);
    unsigned bad = 0;
    for (unsigned i = 0; i < 64; i++) bad += f[i] != FILL_WORD;
    CHECK_EQ(bad, 0);
    uint16_t b[N * K], a[M * K];
    read_dram(m, j->p.b_src, b, sizeof b);
    CHECK(!memcmp(b, j->bt, sizeof b));
    read_dram(m, j->p.a_src, a, sizeof a);
    CHECK(!memcmp(a, j->a, sizeof a));
    uint64_t g[16];
    read_dram(m, G_REGION, g, sizeof g);
    unsigned nz = 0;
    for (unsigned i = 0; i < 16; i++) nz += g[i] != 0;
    CHECK(nz >= 12);
    char err[512];
    CHECK_EQ(kh_gemm_read_c(m, &j->p, c, err, sizeof err), 0);
    /* MXFP7 keeps about 5 bits of each element relative to its block's
     * largest: bound the error by the sum of the terms' magnitudes */
    double ref[M * N], mag[M * N];
    uint16_t aa[M * K], ba[N * K];
    for (unsigned i = 0; i < M * K; i++) aa[i] = j->a[i] & 0x7FFF;
    for (unsigned i = 0; i < N * K; i++) ba[i] = j->bt[i] & 0x7FFF;
    kh_gemm_reference_float(M, N, K, j->a, j->bt, ref);
    kh_gemm_reference_float(M, N, K, aa, ba, mag);
    for (unsigned i = 0; i < M * N; i++) {
        double want = ldexp(ref[i], 40), got = kh_gemm_f16_to_double(c[i]);
        if (fabs(got - want) > 0.08 * ldexp(mag[i], 40) + 1.0)
            kh_test_fail(__FILE__, __LINE__, "C[%u] = %g, want %g (C * 2^40 from the FP16 inputs)", i, got, want);
    }
}

static void one_job_two_drivers(void)
{
    char path[512];
    const char *b = getenv("BUILD");
    snprintf(path, sizeof path, "%s/rv32/replay.elf", b ? b : "build");
    static kh_rv32_image img;
    char err[4096];
    if (kh_rv32_image_load(path, &img, err, sizeof err)) {
        char why[4200];
        snprintf(why, sizeof why, "%s (make rv32 builds it with riscv64-unknown-elf-gcc)", err);
        kh_test_skip("gcc-riscv64-unknown-elf", why);
        return;
    }
    for (unsigned h = 0; h < 2; h++) {
        kh_params p;
        kh_params_default(&p); /* h = 1: the default host link (docs/host-link.md) */
        if (h == 0) CHECK_EQ(kh_params_profile(&p, "host-zero", err, sizeof err), 0);
        /* host-driven */
        kh_machine *m = kh_machine_new(NULL, &p, err, sizeof err);
        static job j;
        make_job(&j, m);
        CHECK_EQ(upload(m, &j), 0);
        kh_sim_run_until_idle(kh_machine_sim(m), 100000);
        kh_cycle host_cycles = host_driven(m, &j);
        uint16_t c_host[M * N], c_card[M * N];
        check_results(m, &j, c_host);
        uint8_t img_host[256];
        read_dram(m, j.p.a_img, img_host, 128);
        read_dram(m, j.p.b_img, img_host + 128, 128);
        uint64_t g_host[16];
        read_dram(m, G_REGION, g_host, sizeof g_host);
        kh_machine_free(m);
        /* on the processor */
        m = kh_machine_new(NULL, &p, err, sizeof err);
        CHECK_EQ(upload(m, &j), 0);
        kh_sim_run_until_idle(kh_machine_sim(m), 100000);
        /* the program once (an empty step list: it returns at once), then the
         * job: its descriptors and step list, and the kick */
        kh_rv32_image *im = calloc(1, sizeof *im);
        *im = img;
        kh_rv32_result res;
        if (kh_rv32_run(m, 0, im, 0, 10000000, &res, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
        kh_cycle code_load = res.done_cycle - res.load_cycle;
        memset(im, 0, sizeof *im);
        im->entry = img.entry;
        on_card_image(&j, im);
        int rc = kh_rv32_run(m, 0, im, 0, 10000000, &res, err, sizeof err);
        kh_cycle with_upload = res.done_cycle - res.load_cycle;
        /* the same job again, resident: only the kick (new data would be uploaded to DRAM as before) */
        memset(im, 0, sizeof *im);
        im->entry = img.entry;
        rc |= kh_rv32_run(m, 0, im, 0, 10000000, &res, err, sizeof err);
        CHECK_EQ(rc, 0);
        if (rc) printf("%s\n", err);
        CHECK_EQ(res.cause, 1);
        CHECK_EQ(res.a0, 0); /* replay.c: every step done */
        check_results(m, &j, c_card);
        CHECK(!memcmp(c_host, c_card, sizeof c_host));
        uint8_t img_card[256];
        read_dram(m, j.p.a_img, img_card, 128);
        read_dram(m, j.p.b_img, img_card + 128, 128);
        CHECK(!memcmp(img_host, img_card, sizeof img_host));
        uint64_t g_card[16];
        read_dram(m, G_REGION, g_card, sizeof g_card);
        CHECK(!memcmp(g_host, g_card, sizeof g_host));
        printf("host link %s (write %llu, read %llu cycles): host-driven %llu cycles; on the processor: %llu with the job's descriptors "
               "uploaded, %llu for the kick of a resident job (core %u cycles, %u instructions); loading the "
               "program once: %llu\n",
               h ? "default" : "host-zero", (unsigned long long)p.host_write_cycles,
               (unsigned long long)p.host_read_cycles, (unsigned long long)host_cycles, (unsigned long long)with_upload,
               (unsigned long long)(res.done_cycle - res.load_cycle), res.cycles, res.instret,
               (unsigned long long)code_load);
        free(im);
        kh_machine_free(m);
    }
}

int main(void)
{
    KH_RUN(one_job_two_drivers);
    return kh_test_end("t_rv32_gemm");
}
