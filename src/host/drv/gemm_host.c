/* Driving a GEMM through the host card (include/kohaku/gemm.h): upload,
 * quantise with mover XFORM moves (cluster.md §9.2), a tiled program per
 * matmul cluster staged in the orchestrator and dispatched by the
 * control-program engine (§9.3, control.md §3-§4), read back (§9.4).
 *
 * On a machine of several meshes every cluster of every mesh takes tiles:
 * each mesh that computes a tile holds its own copy of the operands and
 * their images at the plan's offsets (its mesh id in address bits [37:36],
 * memory.md §14), its clusters drain into its own DRAM, and the host reads
 * each tile back from the mesh that computed it. Tiles are independent, so
 * nothing crosses an interlink. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/drv/gemm_int.h"
#include "kohaku/gen/cluster.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/mover.h"
#include "kohaku/gen/regs.h"
#include "kohaku/node.h"

/* Mover registers within AUX_CFG (memory.md §11.1). */
#define XFORM_QUANT 1 /* occupant 1, FP16 -> MXFP7 (memory.md §12) */
#define CU_TYPE_CLUSTER 0x4D47 /* "MG", the matmul cluster's CU_CAPS type (cluster.md §1) */

#define POLL_STEP 16           /* cycles between the host's status reads */
#define RUN_LIMIT 400000000ull /* cycles before a run is declared hung */

typedef struct host {
    kh_machine *mc;
    kh_card *card;
    kh_sim *sim;
    char *err;
    size_t errlen;
    kh_gemm_pause_fn pause; /* kh_gemm_execute_paused: between the engine's runs, NULL none */
    void *pause_ctx;
} host;

static int wr(host *h, unsigned mesh, uint32_t off, uint64_t v)
{
    return kh_card_write64(h->card, kh_host_ctrl(mesh, off), v, h->err, h->errlen);
}

static int rd(host *h, unsigned mesh, uint32_t off, uint64_t *v)
{
    return kh_card_read64(h->card, kh_host_ctrl(mesh, off), v, h->err, h->errlen);
}

/* A fabric address of the plan (mesh 0's) as mesh `mesh` names it. */
static uint64_t in_mesh(unsigned mesh, uint64_t addr) { return addr | (uint64_t)mesh << 36; }

static void diagnose(host *h, const char *what)
{
    char diag[1500];
    diag[0] = 0;
    kh_machine_diagnose(h->mc, diag, sizeof diag);
    snprintf(h->err, h->errlen, "%s did not finish within %llu cycles: %s", what, (unsigned long long)RUN_LIMIT,
             diag);
}

typedef struct cl_at {
    uint8_t mesh, x, y, port; /* port: the mesh's memory port index */
} cl_at;

/* One mesh's matmul clusters: grouped by the memory port they are bound
 * to, then interleaved port by port, so that consecutive clusters alternate
 * ports (a run of extra tiles spreads over the ports). Within a port, (y, x)
 * order. */
static unsigned order_mesh(kh_machine *mc, unsigned mesh, cl_at *out)
{
    uint8_t px[16], py[16];
    cl_at c[256];
    kh_machine_unit_info units[256];
    unsigned np = 0, n = 0, nu = kh_machine_units(mc, mesh, units, 256);
    for (unsigned i = 0; i < nu && i < 256; i++) {
        const kh_machine_unit_info *u = &units[i];
        if (u->cu_type != CU_TYPE_CLUSTER) continue;
        unsigned k = 0;
        while (k < np && (px[k] != u->mem_x || py[k] != u->mem_y)) k++;
        if (k == np && np < 16) {
            px[np] = u->mem_x;
            py[np++] = u->mem_y;
        }
        c[n++] = (cl_at){(uint8_t)mesh, u->x, u->y, (uint8_t)k};
    }
    unsigned got = 0;
    for (unsigned rank = 0; got < n; rank++)
        for (unsigned k = 0; k < np; k++) {
            unsigned seen = 0;
            for (unsigned i = 0; i < n; i++)
                if (c[i].port == k && seen++ == rank) {
                    out[got++] = c[i];
                    break;
                }
        }
    return n;
}

/* The machine's matmul clusters in the driver's order: each mesh's order,
 * interleaved mesh by mesh (the r-th cluster of mesh 0, of mesh 1, ...). */
static unsigned order_clusters(kh_machine *mc, cl_at *out)
{
    static const unsigned per = 256;
    unsigned nm = kh_machine_nmeshes(mc), cnt[KH_MACHINE_MAX_MESHES], most = 0, n = 0;
    cl_at *each = malloc((size_t)KH_MACHINE_MAX_MESHES * per * sizeof *each);
    if (!each) return 0;
    for (unsigned m = 0; m < nm && m < KH_MACHINE_MAX_MESHES; m++) {
        cnt[m] = order_mesh(mc, m, each + m * per);
        if (cnt[m] > most) most = cnt[m];
    }
    for (unsigned r = 0; r < most; r++)
        for (unsigned m = 0; m < nm && m < KH_MACHINE_MAX_MESHES; m++)
            if (r < cnt[m] && n < KH_GEMM_MAX_CLUSTERS) out[n++] = each[m * per + r];
    free(each);
    return n;
}

/* Which meshes compute at least one tile (and so need the operands). */
static void meshes_used(kh_machine *mc, const kh_gemm_plan *p, int *used)
{
    cl_at *cl = malloc(KH_GEMM_MAX_CLUSTERS * sizeof *cl);
    unsigned n = cl ? order_clusters(mc, cl) : 0;
    for (unsigned m = 0; m < KH_MACHINE_MAX_MESHES; m++) used[m] = 0;
    for (unsigned t = 0; n && t < p->gi * p->gj; t++) used[cl[kh_gemm_tile_owner(p, n, t)].mesh] = 1;
    if (!n) used[0] = 1;
    free(cl);
}

void kh_gemm_target_of(kh_machine *mc, kh_gemm_target *t)
{
    const kh_params *par = kh_machine_params(mc);
    memset(t, 0, sizeof *t);
    t->tiles = (unsigned)par->cluster_tiles;
    cl_at *cl = malloc(KH_GEMM_MAX_CLUSTERS * sizeof *cl);
    t->clusters = cl ? order_clusters(mc, cl) : 0;
    for (unsigned i = 0; i < t->clusters; i++) t->port[i] = (uint8_t)(cl[i].mesh * 16u + cl[i].port); /* ports of different meshes differ */
    free(cl);
    if (par->stage_built && par->stage_bytes_log2 < 40) t->staging_bytes = 1ull << par->stage_bytes_log2;
}

/* ---- upload ---- */

static int put(host *h, unsigned mesh, uint64_t off, const void *bytes, size_t n)
{
    return kh_card_write_block(h->card, kh_host_dram(mesh, off), bytes, n, h->err, h->errlen);
}

/* A zero-padded row-major copy, rows x kp halves, little-endian bytes. */
static int put_rowmajor(host *h, unsigned mesh, uint64_t off, const uint16_t *x, unsigned rows, unsigned prows, unsigned k,
                        unsigned kp)
{
    uint8_t *line = calloc(kp, 2);
    if (!line) {
        snprintf(h->err, h->errlen, "out of memory for a row of %u halves", kp);
        return -1;
    }
    int rc = 0;
    for (unsigned r = 0; r < prows && !rc; r++) {
        memset(line, 0, 2ull * kp);
        for (unsigned c = 0; r < rows && c < k; c++) {
            line[2 * c] = (uint8_t)x[(size_t)r * k + c];
            line[2 * c + 1] = (uint8_t)(x[(size_t)r * k + c] >> 8);
        }
        rc = put(h, mesh, off + 2ull * kp * r, line, 2ull * kp);
    }
    free(line);
    return rc;
}

static int put_tiled(host *h, unsigned mesh, const kh_gemm_plan *p, uint64_t off, const uint16_t *x, unsigned rows,
                     unsigned groups, unsigned tiles)
{
    size_t n = (size_t)tiles * groups * 4 * p->kp;
    uint16_t *img = malloc(n * 2);
    uint8_t *by = malloc(n * 2);
    int rc = -1;
    if (img && by) {
        kh_gemm_pack_fp16_tiled(p, x, rows, groups, tiles, img);
        for (size_t i = 0; i < n; i++) {
            by[2 * i] = (uint8_t)img[i];
            by[2 * i + 1] = (uint8_t)(img[i] >> 8);
        }
        rc = put(h, mesh, off, by, n * 2);
    } else {
        snprintf(h->err, h->errlen, "out of memory for a %zu-half FP16 image", n);
    }
    free(img);
    free(by);
    return rc;
}

int kh_gemm_upload(kh_machine *mc, const kh_gemm_plan *p, int recipe, const uint16_t *a, const uint16_t *bt,
                   char *err, size_t errlen)
{
    host h = {mc, kh_machine_card(mc), kh_machine_sim(mc), err, errlen, NULL, NULL};
    int used[KH_MACHINE_MAX_MESHES];
    meshes_used(mc, p, used);
    for (unsigned m = 0; m < KH_MACHINE_MAX_MESHES; m++) {
        if (!used[m]) continue;
        int rc = recipe == KH_GEMM_RECIPE_TILED
                     ? put_tiled(&h, m, p, p->a_src, a, p->m, p->gm, p->gi) ||
                           put_tiled(&h, m, p, p->b_src, bt, p->n, p->gn, p->gj)
                     : put_rowmajor(&h, m, p->a_src, a, p->m, p->mp, p->k, p->kp) ||
                           put_rowmajor(&h, m, p->b_src, bt, p->n, p->np, p->k, p->kp);
        if (rc) return -1;
    }
    return 0;
}

/* ---- quantising with the mover (§9.2) ---- */

/* One walker: header, then each dimension as 0x18 immediately before its
 * 0x20 commit (the latch trap of memory.md §11.1). Dimension 0 outermost. */
static int walker(host *h, unsigned mesh, unsigned sel, uint64_t base, unsigned ndim, const unsigned *count, const int64_t *stride,
                  unsigned mode)
{
    uint64_t v = 0;
    kh_mover_hdr_set_sel(&v, sel);
    kh_mover_hdr_set_base(&v, base);
    kh_mover_hdr_set_ndim(&v, ndim);
    if (sel == 0) {
        kh_mover_hdr_set_xform_id(&v, XFORM_QUANT);
        kh_mover_hdr_set_xform_mode(&v, mode);
    }
    if (wr(h, mesh, KH_ORCH_AUX_CFG + KH_MOVER_REG_HDR, v)) return -1;
    for (unsigned d = 0; d < ndim; d++) {
        uint64_t dv = 0, av = 0;
        kh_mover_dim_set_sel(&dv, sel);
        kh_mover_dim_set_dim(&dv, d);
        kh_mover_dim_set_count(&dv, count[d]);
        kh_mover_dim_set_stride(&dv, (uint64_t)stride[d]);
        if (wr(h, mesh, KH_ORCH_AUX_CFG + KH_MOVER_REG_DIM, dv) || wr(h, mesh, KH_ORCH_AUX_CFG + KH_MOVER_REG_AXIS, av)) return -1;
    }
    for (unsigned ax = 0; ax < 2; ax++) { /* no bound axes: every element valid */
        uint64_t bv = 0;
        kh_mover_bound_set_sel(&bv, sel);
        kh_mover_bound_set_ax(&bv, ax);
        if (wr(h, mesh, KH_ORCH_AUX_CFG + KH_MOVER_REG_BOUND, bv)) return -1;
    }
    return 0;
}

static int wait_mover(host *h, unsigned mesh, uint64_t moves_before)
{
    uint64_t st, busy = 0;
    kh_orch_aux_stat_set_mover_busy(&busy, 1);
    /* a POLL_STEP run and a status read until the mover is not busy */
    int rc = kh_card_poll64(h->card, kh_host_ctrl(mesh, KH_ORCH_AUX_STAT), POLL_STEP, busy, 0, RUN_LIMIT, &st, h->err,
                            h->errlen);
    if (rc < 0) return -1;
    if (rc) {
        diagnose(h, "an XFORM move");
        return -1;
    }
    if (kh_orch_aux_stat_mover_fault(&st)) {
        snprintf(h->err, h->errlen, "the XFORM move stopped with mover fault %u (memory.md §11.4)",
                 (unsigned)kh_orch_aux_stat_mover_fault(&st));
        return -1;
    }
    if (((kh_orch_aux_stat_moves(&st) - moves_before) & 0xFFFFFF) != 1) {
        snprintf(h->err, h->errlen, "the XFORM move ended without counting as done (AUX_STAT 0x%016llx)",
                 (unsigned long long)st);
        return -1;
    }
    return 0;
}

/* One operand on one mesh: lanes = 4·groups·tiles rows of kp halves, to
 * `entries` 128-byte entries at img; started, with the move count before
 * it in *before (wait_mover). */
static int quantise_start(host *h, unsigned mesh, const kh_gemm_plan *p, int recipe, uint64_t src, uint64_t img,
                          unsigned groups, unsigned tiles, unsigned mode, uint64_t *before)
{
    const uint64_t pitch = 2ull * p->kp; /* P = 2K bytes */
    const uint64_t entries = (uint64_t)tiles * p->ch * groups * p->bc;
    unsigned scount[6], dcount[2], sdim, ddim;
    int64_t sstride[6], dstride[2];
    if (recipe == KH_GEMM_RECIPE_TILED) { /* recipe 1: 8 words per entry, in order */
        if (8 * entries <= 0xFFFF) {
            sdim = 1;
            scount[0] = (unsigned)(8 * entries);
            sstride[0] = 32;
        } else {
            sdim = 2;
            scount[0] = (unsigned)entries;
            sstride[0] = 256;
            scount[1] = 8;
            sstride[1] = 32;
        }
    } else { /* recipe 2: t, c, g, b, lane, half over the row-major matrix */
        sdim = 6;
        unsigned c6[6] = {tiles, p->ch, groups, p->bc, 4, 2};
        int64_t s6[6] = {(int64_t)(4 * groups * pitch), 64 * (int64_t)p->bc, (int64_t)(4 * pitch), 64,
                         (int64_t)pitch, 32};
        memcpy(scount, c6, sizeof c6);
        memcpy(sstride, s6, sizeof s6);
    }
    if (entries <= 0xFFFF) {
        ddim = 1;
        dcount[0] = (unsigned)entries;
        dstride[0] = 128;
    } else {
        ddim = 2;
        dcount[0] = tiles;
        dstride[0] = 128 * (int64_t)(entries / tiles);
        dcount[1] = (unsigned)(entries / tiles);
        dstride[1] = 128;
    }
    uint64_t st, go = 0;
    if (rd(h, mesh, KH_ORCH_AUX_STAT, &st)) return -1;
    if (walker(h, mesh, 0, in_mesh(mesh, src), sdim, scount, sstride, mode) ||
        walker(h, mesh, 1, in_mesh(mesh, img), ddim, dcount, dstride, 0))
        return -1;
    kh_mover_ctrl_set_mode(&go, KH_MOVER_CTRL_MODE_XFORM);
    kh_mover_ctrl_set_ewidth(&go, 1);
    kh_mover_ctrl_set_go(&go, 1);
    *before = kh_orch_aux_stat_moves(&st);
    return wr(h, mesh, KH_ORCH_AUX_CFG + KH_MOVER_REG_CTRL, go);
}

/* One operand on every mesh that needs it, the movers working at once.
 * KH_GEMM_WAIT_QUIET: one run until nothing is pending (only the movers
 * and the memory they write work in this phase), then each status polled
 * once (one POLL_STEP run and a read). */
static int quantise_each(host *h, const int *used, const kh_gemm_plan *p, int recipe, int wait, uint64_t src,
                         uint64_t img, unsigned groups, unsigned tiles, unsigned mode)
{
    uint64_t before[KH_MACHINE_MAX_MESHES] = {0};
    for (unsigned m = 0; m < KH_MACHINE_MAX_MESHES; m++)
        if (used[m] && quantise_start(h, m, p, recipe, src, img, groups, tiles, mode, &before[m])) return -1;
    if (wait == KH_GEMM_WAIT_QUIET && !kh_sim_run_until_idle(h->sim, RUN_LIMIT)) {
        diagnose(h, "an XFORM move");
        return -1;
    }
    for (unsigned m = 0; m < KH_MACHINE_MAX_MESHES; m++)
        if (used[m] && wait_mover(h, m, before[m])) return -1;
    return 0;
}

int kh_gemm_quantise(kh_machine *mc, const kh_gemm_plan *p, int recipe, kh_gemm_stats *st, char *err,
                     size_t errlen)
{
    return kh_gemm_quantise_wait(mc, p, recipe, KH_GEMM_WAIT_POLL, st, err, errlen);
}

int kh_gemm_quantise_wait(kh_machine *mc, const kh_gemm_plan *p, int recipe, int wait, kh_gemm_stats *st,
                          char *err, size_t errlen)
{
    if (wait != KH_GEMM_WAIT_POLL && wait != KH_GEMM_WAIT_QUIET) {
        snprintf(err, errlen, "quantise wait %d: want KH_GEMM_WAIT_POLL (0) or KH_GEMM_WAIT_QUIET (1)", wait);
        return -1;
    }
    host h = {mc, kh_machine_card(mc), kh_machine_sim(mc), err, errlen, NULL, NULL};
    kh_cycle t0 = kh_sim_now(h.sim);
    int used[KH_MACHINE_MAX_MESHES];
    meshes_used(mc, p, used);
    /* XFORM_MODE 0 packs A (rows), 1 packs B (columns): numerics §2.2 */
    if (quantise_each(&h, used, p, recipe, wait, p->a_src, p->a_img, p->gm, p->gi, 0) ||
        quantise_each(&h, used, p, recipe, wait, p->b_src, p->b_img, p->gn, p->gj, 1))
        return -1;
    if (st) st->quant_cycles = kh_sim_now(h.sim) - t0;
    return 0;
}

/* ---- the tiled program (§9.3) ---- */

typedef struct cl_prog {
    uint8_t mesh, x, y;
    unsigned slots, base; /* its staging slots in each engine program of its group */
    kh_flit *inst; /* payloads, in order */
    size_t n, cap, sent;
    unsigned base_count; /* NODE_STATUS count before the run */
} cl_prog;

static int push(host *h, cl_prog *c, const kh_flit *f)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        kh_flit *v = realloc(c->inst, cap * sizeof *v);
        if (!v) {
            snprintf(h->err, h->errlen, "out of memory building a cluster program");
            return -1;
        }
        c->inst = v;
        c->cap = cap;
    }
    c->inst[c->n++] = *f;
    return 0;
}

/* FILL, FILL, GEMM per chunk (banks alternate so the next chunk's FILLs land
 * beside the running sweep), then one explicit DRAIN of the tile. */
static int tile_program(host *h, const kh_gemm_plan *p, unsigned ti, unsigned tj, int reuse_a, cl_prog *c)
{
    const unsigned m = c->mesh;
    for (unsigned ch = 0; ch < p->ch; ch++) {
        unsigned bank = ch % 2;
        kh_flit f;
        kh_flit_clear(&f);
        kh_cluster_set_op(f.w, KH_CLUSTER_OP_FILL);
        kh_cluster_set_sel(f.w, 0);
        kh_cluster_set_addr(f.w, in_mesh(m, p->a_img + 128ull * ((uint64_t)(ti * p->ch + ch) * p->gm * p->bc)));
        kh_cluster_set_n(f.w, p->gm * p->bc);
        kh_cluster_set_fbank(f.w, bank);
        kh_cluster_set_nk(f.w, 1);
        kh_cluster_set_anchor(f.w, 40);
        if (!reuse_a && push(h, c, &f)) return -1; /* A still in L1 from the previous tile */
        kh_cluster_set_sel(f.w, 1);
        kh_cluster_set_addr(f.w, in_mesh(m, p->b_img + 128ull * ((uint64_t)(tj * p->ch + ch) * p->gn * p->bc)));
        kh_cluster_set_n(f.w, p->gn * p->bc);
        if (push(h, c, &f)) return -1;
        kh_flit g;
        kh_flit_clear(&g);
        kh_cluster_set_op(g.w, KH_CLUSTER_OP_GEMM);
        kh_cluster_set_gm(g.w, p->gm);
        kh_cluster_set_gn(g.w, p->gn);
        kh_cluster_set_nk(g.w, p->bc);
        kh_cluster_set_acc(g.w, ch > 0);
        kh_cluster_set_abank(g.w, bank);
        kh_cluster_set_bbank(g.w, bank);
        kh_cluster_set_anchor(g.w, 40); /* numerics §5: cancels both scale biases */
        if (push(h, c, &g)) return -1;
    }
    kh_flit d;
    kh_flit_clear(&d);
    kh_cluster_set_op(d.w, KH_CLUSTER_OP_DRAIN);
    kh_cluster_set_addr(d.w, in_mesh(m, p->c_img + 32ull * ((uint64_t)(ti * p->gj + tj) * p->gm * p->gn)));
    kh_cluster_set_n(d.w, p->gm * p->gn);
    kh_cluster_set_nk(d.w, 1);
    kh_cluster_set_anchor(d.w, 40);
    return push(h, c, &d);
}

static unsigned find_clusters(host *h, cl_prog *cl)
{
    cl_at *at = malloc(KH_GEMM_MAX_CLUSTERS * sizeof *at);
    unsigned n = at ? order_clusters(h->mc, at) : 0;
    for (unsigned i = 0; i < n; i++) {
        memset(&cl[i], 0, sizeof cl[i]);
        cl[i].mesh = at[i].mesh;
        cl[i].x = at[i].x;
        cl[i].y = at[i].y;
    }
    free(at);
    return n;
}

/* Staging slot s: the five words of flits.md §8, header = type CU_INST,
 * txn = program id, last on the program's final flit. */
static int stage(host *h, unsigned mesh, unsigned slot, const kh_flit *payload, unsigned txn, int last)
{
    kh_flit f = *payload;
    f.w[4] = 0;
    kh_hdr_set_type(f.w, KH_T_CU_INST);
    kh_hdr_set_txn(f.w, txn);
    kh_hdr_set_last(f.w, last ? 1 : 0);
    uint8_t by[40];
    kh_words_to_bytes(f.w, 5, by); /* the flit in host-window order (flits.md §8) */
    return kh_card_write_block(h->card, kh_host_ctrl(mesh, KH_ORCH_STAGE + 40u * slot), by, 40, h->err, h->errlen);
}

typedef struct eng_prog {
    unsigned max, n; /* command slots (NCMD), used */
} eng_prog;

static int cmd(host *h, eng_prog *e, unsigned mesh, unsigned op, uint32_t off, uint64_t data, uint64_t mask)
{
    uint64_t opw = 0, at = 0;
    kh_eng_cmd_op_set_op(&opw, op);
    if (e->n >= e->max) {
        snprintf(h->err, h->errlen, "a round's control program needs more than NCMD = %u commands (control.md §3)",
                 e->max);
        return -1;
    }
    kh_eng_cmd_addr_set_window(&at, KH_ENG_CMD_ADDR_WINDOW_CMD);
    kh_eng_cmd_addr_set_cmd(&at, e->n++);
    const uint64_t field[4] = {opw, kh_host_ctrl(mesh, off), data, mask}; /* opcode, address, data, mask (§3) */
    for (unsigned f = 0; f < 4; f++) {
        kh_eng_cmd_addr_set_word(&at, f);
        if (kh_card_write64(h->card, KH_HOST_CMD_BASE + at, field[f], h->err, h->errlen)) return -1;
    }
    return 0;
}

/* Run the engine's program to its DONE; `final` runs until the whole machine
 * is quiet (the last completions have arrived). */
static int run_engine(host *h, int final, const char *what)
{
    uint64_t go = 0, ctrl;
    kh_eng_ctrl_set_go(&go, 1);
    if (kh_card_write64(h->card, KH_HOST_CMD_BASE + KH_ENG_CTRL, go, h->err, h->errlen)) return -1;
    kh_cycle start = kh_sim_now(h->sim);
    for (;;) {
        if (final) {
            /* with a pause hook, the same run in steps (exact: kh_sim_run
             * settles at each end), the hook between them */
            while (h->pause && !kh_sim_idle(h->sim) && kh_sim_now(h->sim) - start < RUN_LIMIT) {
                kh_sim_run(h->sim, POLL_STEP);
                if (h->pause(h->pause_ctx, h->mc)) {
                    snprintf(h->err, h->errlen, "stopped by the pause hook at cycle %llu",
                             (unsigned long long)kh_sim_now(h->sim));
                    return -1;
                }
            }
            if (!kh_sim_run_until_idle(h->sim, RUN_LIMIT)) {
                diagnose(h, what);
                return -1;
            }
        } else if (!h->pause) {
            /* POLL_STEP runs and reads of ENG_CTRL until DONE (the loop below
             * written out: kh_card_poll64) */
            uint64_t done = 0;
            kh_eng_ctrl_set_done(&done, 1);
            int rc = kh_card_poll64(h->card, KH_HOST_CMD_BASE + KH_ENG_CTRL, POLL_STEP, done, done, RUN_LIMIT, &ctrl,
                                    h->err, h->errlen);
            if (rc < 0) return -1;
            if (rc) {
                diagnose(h, what);
                return -1;
            }
            break;
        } else {
            kh_sim_run(h->sim, POLL_STEP);
            if (h->pause(h->pause_ctx, h->mc)) {
                snprintf(h->err, h->errlen, "stopped by the pause hook at cycle %llu",
                         (unsigned long long)kh_sim_now(h->sim));
                return -1;
            }
        }
        if (kh_card_read64(h->card, KH_HOST_CMD_BASE + KH_ENG_CTRL, &ctrl, h->err, h->errlen)) return -1;
        if (kh_eng_ctrl_done(&ctrl)) break;
        if (final || kh_sim_now(h->sim) - start > RUN_LIMIT) {
            diagnose(h, what);
            return -1;
        }
    }
    if (kh_eng_ctrl_err(&ctrl)) {
        snprintf(h->err, h->errlen, "the control program stopped on an illegal command (control.md §3)");
        return -1;
    }
    return 0;
}

static uint64_t node_status_off(const cl_prog *c)
{
    uint64_t off = 0;
    kh_orch_node_status_addr_set_window(&off, KH_ORCH_NODE_STATUS_ADDR_WINDOW_MIRROR);
    kh_orch_node_status_addr_set_idx(&off, kh_orch_node_index(c->x, c->y));
    return off;
}

/* Commands per cluster in one engine program at most: a POLL for its
 * instruction FIFO, BASE, LEN, DST, CRED, KICK, a POLL for the dispatch;
 * plus its completion POLL in the last program. */
#define CMDS_PER_CLUSTER 8u

/* Clusters go to engine programs in fixed groups of `per` (in the driver's
 * order), so that a group's commands fit NCMD; within a group, the
 * clusters of one mesh share that mesh's staging RAM in equal ranges. */
static int assign_slots(host *h, cl_prog *cl, unsigned ncl, unsigned per, unsigned stage_flits, unsigned depth)
{
    for (unsigned g0 = 0; g0 < ncl; g0 += per) {
        unsigned g1 = g0 + per < ncl ? g0 + per : ncl, cnt[KH_MACHINE_MAX_MESHES] = {0}, most = 0;
        for (unsigned i = g0; i < g1; i++)
            if (++cnt[cl[i].mesh] > most) most = cnt[cl[i].mesh];
        unsigned slots = stage_flits / most;
        if (slots > depth) slots = depth;
        if (slots < 1) {
            snprintf(h->err, h->errlen, "%u staging slots cannot hold a program for each of %u clusters",
                     stage_flits, most);
            return -1;
        }
        unsigned next[KH_MACHINE_MAX_MESHES] = {0};
        for (unsigned i = g0; i < g1; i++) {
            cl[i].slots = slots;
            cl[i].base = next[cl[i].mesh]++ * slots;
        }
    }
    return 0;
}

/* The next part of cluster c's program into its staging slots, and the
 * engine commands that dispatch it (control.md §4). */
static int send_part(host *h, eng_prog *e, cl_prog *c, unsigned round, unsigned depth)
{
    size_t left = c->n - c->sent;
    unsigned len = left < c->slots ? (unsigned)left : c->slots;
    unsigned txn = (round + 1) & 0xFF, m = c->mesh;
    uint64_t want = 0, mask = 0, dst = 0, run_mask = 0;
    kh_orch_node_status_set_count(&mask, ~UINT64_C(0)); /* every bit of count */
    /* never more queued than the unit's instruction FIFO holds: wait until
     * this cluster has retired everything sent so far (a count that cannot
     * move past the polled value) */
    if (c->sent && c->sent + len > depth) {
        kh_orch_node_status_set_count(&want, c->base_count + c->sent); /* 16-bit wrap: the setter masks */
        if (cmd(h, e, m, KH_ENG_OP_POLL, (uint32_t)node_status_off(c), want, mask)) return -1;
    }
    for (unsigned s = 0; s < len; s++)
        if (stage(h, m, c->base + s, &c->inst[c->sent + s], txn, s == len - 1)) return -1;
    kh_orch_prog_dst_set_x(&dst, c->x);
    kh_orch_prog_dst_set_y(&dst, c->y);
    kh_orch_prog_stat_set_run(&run_mask, 1);
    /* control.md §4 order: BASE, LEN, DST, CRED, KICK; then wait for the
     * dispatch to drain before the next kick reuses the dispatcher */
    if (cmd(h, e, m, KH_ENG_OP_WR, KH_ORCH_PROG_BASE, c->base, 0) ||
        cmd(h, e, m, KH_ENG_OP_WR, KH_ORCH_PROG_LEN, len, 0) ||
        cmd(h, e, m, KH_ENG_OP_WR, KH_ORCH_PROG_DST, dst, 0) ||
        cmd(h, e, m, KH_ENG_OP_WR, KH_ORCH_PROG_CRED, len, 0) ||
        cmd(h, e, m, KH_ENG_OP_WR, KH_ORCH_PROG_KICK, 1, 0) ||
        cmd(h, e, m, KH_ENG_OP_POLL, KH_ORCH_PROG_STAT, 0, run_mask))
        return -1;
    c->sent += len;
    return 0;
}

/* End the program being built with DONE and run it. */
static int run_program(host *h, eng_prog *e, unsigned round, int final)
{
    char what[80];
    snprintf(what, sizeof what, "GEMM round %u", round);
    if (cmd(h, e, 0, KH_ENG_OP_DONE, 0, round, 0) || run_engine(h, final, what)) return -1;
    e->n = 0;
    return 0;
}

/* Wait until every cluster has retired its whole program: one POLL each,
 * as many programs as NCMD needs, the last run until the machine is quiet. */
static int wait_all(host *h, eng_prog *e, cl_prog *cl, unsigned ncl, unsigned round)
{
    for (unsigned i = 0; i < ncl; i++) {
        if (!cl[i].n) continue;
        if (e->n + 1 >= e->max && run_program(h, e, round, 0)) return -1; /* keep one for DONE */
        uint64_t want = 0, mask = 0;
        kh_orch_node_status_set_count(&want, cl[i].base_count + cl[i].n); /* the setter masks */
        kh_orch_node_status_set_count(&mask, ~UINT64_C(0)); /* every bit of count */
        if (cmd(h, e, cl[i].mesh, KH_ENG_OP_POLL, (uint32_t)node_status_off(&cl[i]), want, mask)) return -1;
    }
    return run_program(h, e, round, 1);
}

int kh_gemm_execute(kh_machine *mc, const kh_gemm_plan *p, kh_gemm_stats *st, char *err, size_t errlen)
{
    return kh_gemm_execute_paused(mc, p, st, NULL, NULL, err, errlen);
}

int kh_gemm_execute_paused(kh_machine *mc, const kh_gemm_plan *p, kh_gemm_stats *st, kh_gemm_pause_fn pause,
                           void *ctx, char *err, size_t errlen)
{
    host h = {mc, kh_machine_card(mc), kh_machine_sim(mc), err, errlen, pause, ctx};
    cl_prog *cl = calloc(KH_GEMM_MAX_CLUSTERS, sizeof *cl);
    unsigned ncl = cl ? find_clusters(&h, cl) : 0;
    int rc = -1;
    if (!cl) {
        snprintf(err, errlen, "out of memory for the cluster programs");
        return -1;
    }
    const kh_params *par = kh_machine_params(mc);
    unsigned depth = (unsigned)par->inst_depth, ncmd = (unsigned)par->ncmd;
    unsigned per = (ncmd - 1) / CMDS_PER_CLUSTER; /* clusters per engine program, DONE kept */
    if (!ncl) {
        snprintf(err, errlen, "the machine has no matmul cluster ('mat')");
        goto out;
    }
    if (per < 1) {
        snprintf(err, errlen, "ncmd=%u: an engine program needs %u commands for one cluster and DONE "
                 "(control.md §3)", ncmd, CMDS_PER_CLUSTER + 1);
        goto out;
    }
    if (assign_slots(&h, cl, ncl, per, (unsigned)par->stage_flits, depth)) goto out;
    /* tiles in contiguous runs per cluster; each tile is independent (§9.3) */
    for (unsigned t = 0; t < p->gi * p->gj; t++)
        if (tile_program(&h, p, t / p->gj, t % p->gj, kh_gemm_tile_reuses_a(p, ncl, t), &cl[kh_gemm_tile_owner(p, ncl, t)]))
            goto out;
    for (unsigned i = 0; i < ncl; i++) {
        uint64_t ns;
        if (rd(&h, cl[i].mesh, (uint32_t)node_status_off(&cl[i]), &ns)) goto out;
        cl[i].base_count = (unsigned)kh_orch_node_status_count(&ns);
    }
    kh_cycle t0 = kh_sim_now(h.sim);
    unsigned round = 0, programs = 0;
    uint64_t total = 0;
    for (int done = 0; !done; round++) {
        /* one engine program per group and round; the program that sends
         * the last part of the last program also waits for every cluster */
        for (unsigned g0 = 0; g0 < ncl && !done; g0 += per) {
            eng_prog e = {ncmd, 0};
            unsigned g1 = g0 + per < ncl ? g0 + per : ncl;
            for (unsigned i = g0; i < g1; i++) {
                if (cl[i].sent == cl[i].n) continue;
                size_t before = cl[i].sent;
                if (send_part(&h, &e, &cl[i], round, depth)) goto out;
                total += cl[i].sent - before;
            }
            done = 1;
            for (unsigned i = 0; i < ncl; i++) done &= cl[i].sent == cl[i].n;
            if (!e.n && !done) continue; /* this group has nothing left to send */
            programs++;
            if (done ? wait_all(&h, &e, cl, ncl, round) : run_program(&h, &e, round, 0)) goto out;
        }
    }
    /* every cluster's last signal: BATCH_COMPLETE of its last program, no fault */
    for (unsigned i = 0; i < ncl; i++) {
        uint64_t ns;
        if (!cl[i].n) continue;
        if (rd(&h, cl[i].mesh, (uint32_t)node_status_off(&cl[i]), &ns)) goto out;
        if (kh_orch_node_status_code(&ns) != KH_SIG_BATCH_COMPLETE) {
            snprintf(err, errlen,
                     "cluster (%u,%u) of mesh %u ended with signal code 0x%02x arg 0x%08x, not BATCH_COMPLETE%s",
                     cl[i].x, cl[i].y, cl[i].mesh, (unsigned)kh_orch_node_status_code(&ns),
                     (unsigned)kh_orch_node_status_arg(&ns),
                     kh_orch_node_status_code(&ns) == KH_SIG_FAULT ? " (a fault: arg = exec_result)" : "");
            goto out;
        }
    }
    if (st) {
        st->gemm_cycles = kh_sim_now(h.sim) - t0;
        st->clusters = ncl;
        st->rounds = round;
        st->programs = programs;
        st->instructions = total;
        st->macs = (uint64_t)p->mp * p->np * p->kp;
    }
    rc = 0;
out:
    for (unsigned i = 0; i < ncl; i++) free(cl[i].inst);
    free(cl);
    return rc;
}

int kh_gemm_read_c(kh_machine *mc, const kh_gemm_plan *p, uint16_t *c, char *err, size_t errlen)
{
    host h = {mc, kh_machine_card(mc), kh_machine_sim(mc), err, errlen, NULL, NULL};
    size_t n = (size_t)p->mp * p->np;
    int used[KH_MACHINE_MAX_MESHES];
    meshes_used(mc, p, used);
    uint8_t *img[KH_MACHINE_MAX_MESHES] = {0};
    cl_at *cl = malloc(KH_GEMM_MAX_CLUSTERS * sizeof *cl);
    unsigned ncl = cl ? order_clusters(mc, cl) : 0;
    int rc = cl ? 0 : -1;
    if (!cl) snprintf(err, errlen, "out of memory for the cluster list");
    /* each mesh's result image, then every output from the mesh that computed its tile */
    for (unsigned m = 0; !rc && m < KH_MACHINE_MAX_MESHES; m++) {
        if (!used[m]) continue;
        if (!(img[m] = malloc(n * 2))) {
            snprintf(err, errlen, "out of memory for the result image");
            rc = -1;
            break;
        }
        rc = kh_card_read_block(h.card, kh_host_dram(m, p->c_img), img[m], n * 2, err, errlen);
    }
    /* tile by tile (§9.4): image word W = (ti·gj + tj)·gm·gn + g·gn + hc
     * holds C[4(ti·gm+g)+i][4(tj·gn+hc)+j] at half 16W + 4i + j */
    for (unsigned t = 0; !rc && t < p->gi * p->gj; t++) {
        const uint8_t *b = img[ncl ? cl[kh_gemm_tile_owner(p, ncl, t)].mesh : 0];
        unsigned ti = t / p->gj, tj = t % p->gj;
        for (unsigned g = 0; g < p->gm; g++)
            for (unsigned i = 0; i < 4; i++) {
                unsigned row = 4 * (ti * p->gm + g) + i;
                if (row >= p->m) break;
                for (unsigned hc = 0; hc < p->gn; hc++) {
                    size_t e = ((size_t)t * p->gm * p->gn + (size_t)g * p->gn + hc) * 16 + 4 * i;
                    for (unsigned j = 0; j < 4; j++) {
                        unsigned col = 4 * (tj * p->gn + hc) + j;
                        if (col < p->n) c[(size_t)row * p->n + col] = (uint16_t)(b[2 * (e + j)] | b[2 * (e + j) + 1] << 8);
                    }
                }
            }
    }
    for (unsigned m = 0; m < KH_MACHINE_MAX_MESHES; m++) free(img[m]);
    free(cl);
    return rc;
}

int kh_gemm_machine(kh_machine *mc, const kh_gemm_plan *p, int recipe, const uint16_t *a, const uint16_t *bt,
                    uint16_t *c, kh_gemm_stats *st, char *err, size_t errlen)
{
    if (st) memset(st, 0, sizeof *st);
    return kh_gemm_upload(mc, p, recipe, a, bt, err, errlen) || kh_gemm_quantise(mc, p, recipe, st, err, errlen) ||
                   kh_gemm_execute(mc, p, st, err, errlen) || kh_gemm_read_c(mc, p, c, err, errlen)
               ? -1 : 0;
}
