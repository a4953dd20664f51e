/* Driving a GEMM through the host card (include/kohaku/gemm.h): upload,
 * quantise with mover XFORM moves (cluster.md §9.2), a tiled program per
 * matmul cluster staged in the orchestrator and dispatched by the
 * control-program engine (§9.3, control.md §3-§4), read back (§9.4). */
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
} host;

static int wr(host *h, uint32_t off, uint64_t v)
{
    return kh_card_write64(h->card, kh_host_ctrl(0, off), v, h->err, h->errlen);
}

static int rd(host *h, uint32_t off, uint64_t *v)
{
    return kh_card_read64(h->card, kh_host_ctrl(0, off), v, h->err, h->errlen);
}

static void diagnose(host *h, const char *what)
{
    char diag[1500];
    diag[0] = 0;
    kh_machine_diagnose(h->mc, diag, sizeof diag);
    snprintf(h->err, h->errlen, "%s did not finish within %llu cycles: %s", what, (unsigned long long)RUN_LIMIT,
             diag);
}

/* The machine's matmul clusters in the driver's order: grouped by the
 * memory port they are bound to, then interleaved port by port, so that
 * consecutive clusters alternate ports (a run of extra tiles spreads over
 * the ports). Within a port, (y, x) order. */
static unsigned order_clusters(kh_machine *mc, uint8_t *xs, uint8_t *ys, uint8_t *ports, unsigned max)
{
    uint8_t px[16], py[16], cx[KH_GEMM_MAX_CLUSTERS], cy[KH_GEMM_MAX_CLUSTERS], cp[KH_GEMM_MAX_CLUSTERS];
    kh_machine_unit_info units[256];
    unsigned np = 0, n = 0, nu = kh_machine_units(mc, 0, units, 256);
    for (unsigned i = 0; i < nu && i < 256; i++) {
        const kh_machine_unit_info *u = &units[i];
        if (u->cu_type != CU_TYPE_CLUSTER || n == KH_GEMM_MAX_CLUSTERS) continue;
        unsigned k = 0;
        while (k < np && (px[k] != u->mem_x || py[k] != u->mem_y)) k++;
        if (k == np && np < 16) {
            px[np] = u->mem_x;
            py[np++] = u->mem_y;
        }
        cx[n] = u->x;
        cy[n] = u->y;
        cp[n++] = (uint8_t)k;
    }
    unsigned out = 0;
    for (unsigned rank = 0; out < n && out < max; rank++)
        for (unsigned k = 0; k < np && out < max; k++) {
            unsigned seen = 0;
            for (unsigned i = 0; i < n; i++)
                if (cp[i] == k && seen++ == rank) {
                    xs[out] = cx[i];
                    ys[out] = cy[i];
                    ports[out++] = (uint8_t)k;
                    break;
                }
        }
    return out;
}

void kh_gemm_target_of(kh_machine *mc, kh_gemm_target *t)
{
    const kh_params *par = kh_machine_params(mc);
    uint8_t xs[KH_GEMM_MAX_CLUSTERS], ys[KH_GEMM_MAX_CLUSTERS];
    memset(t, 0, sizeof *t);
    t->tiles = (unsigned)par->cluster_tiles;
    t->clusters = order_clusters(mc, xs, ys, t->port, KH_GEMM_MAX_CLUSTERS);
    if (par->stage_built && par->stage_bytes_log2 < 40) t->staging_bytes = 1ull << par->stage_bytes_log2;
}

/* ---- upload ---- */

static int put(host *h, uint64_t off, const void *bytes, size_t n)
{
    return kh_card_write_block(h->card, kh_host_dram(0, off), bytes, n, h->err, h->errlen);
}

/* A zero-padded row-major copy, rows x kp halves, little-endian bytes. */
static int put_rowmajor(host *h, uint64_t off, const uint16_t *x, unsigned rows, unsigned prows, unsigned k,
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
        rc = put(h, off + 2ull * kp * r, line, 2ull * kp);
    }
    free(line);
    return rc;
}

static int put_tiled(host *h, const kh_gemm_plan *p, uint64_t off, const uint16_t *x, unsigned rows,
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
        rc = put(h, off, by, n * 2);
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
    host h = {mc, kh_machine_card(mc), kh_machine_sim(mc), err, errlen};
    if (recipe == KH_GEMM_RECIPE_TILED)
        return put_tiled(&h, p, p->a_src, a, p->m, p->gm, p->gi) || put_tiled(&h, p, p->b_src, bt, p->n, p->gn, p->gj)
                   ? -1 : 0;
    return put_rowmajor(&h, p->a_src, a, p->m, p->mp, p->k, p->kp) ||
                   put_rowmajor(&h, p->b_src, bt, p->n, p->np, p->k, p->kp)
               ? -1 : 0;
}

/* ---- quantising with the mover (§9.2) ---- */

/* One walker: header, then each dimension as 0x18 immediately before its
 * 0x20 commit (the latch trap of memory.md §11.1). Dimension 0 outermost. */
static int walker(host *h, unsigned sel, uint64_t base, unsigned ndim, const unsigned *count, const int64_t *stride,
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
    if (wr(h, KH_ORCH_AUX_CFG + KH_MOVER_REG_HDR, v)) return -1;
    for (unsigned d = 0; d < ndim; d++) {
        uint64_t dv = 0, av = 0;
        kh_mover_dim_set_sel(&dv, sel);
        kh_mover_dim_set_dim(&dv, d);
        kh_mover_dim_set_count(&dv, count[d]);
        kh_mover_dim_set_stride(&dv, (uint64_t)stride[d]);
        if (wr(h, KH_ORCH_AUX_CFG + KH_MOVER_REG_DIM, dv) || wr(h, KH_ORCH_AUX_CFG + KH_MOVER_REG_AXIS, av)) return -1;
    }
    for (unsigned ax = 0; ax < 2; ax++) { /* no bound axes: every element valid */
        uint64_t bv = 0;
        kh_mover_bound_set_sel(&bv, sel);
        kh_mover_bound_set_ax(&bv, ax);
        if (wr(h, KH_ORCH_AUX_CFG + KH_MOVER_REG_BOUND, bv)) return -1;
    }
    return 0;
}

static int wait_mover(host *h, uint64_t moves_before)
{
    kh_cycle start = kh_sim_now(h->sim);
    for (;;) {
        uint64_t st;
        kh_sim_run(h->sim, POLL_STEP);
        if (rd(h, KH_ORCH_AUX_STAT, &st)) return -1;
        if (kh_orch_aux_stat_mover_busy(&st)) {
            if (kh_sim_now(h->sim) - start > RUN_LIMIT) {
                diagnose(h, "an XFORM move");
                return -1;
            }
            continue;
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
}

/* One operand: lanes = 4·groups·tiles rows of kp halves, to `entries`
 * 128-byte entries at img. */
static int quantise_one(host *h, const kh_gemm_plan *p, int recipe, uint64_t src, uint64_t img, unsigned groups,
                        unsigned tiles, unsigned mode)
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
    if (rd(h, KH_ORCH_AUX_STAT, &st)) return -1;
    if (walker(h, 0, src, sdim, scount, sstride, mode) || walker(h, 1, img, ddim, dcount, dstride, 0)) return -1;
    kh_mover_ctrl_set_mode(&go, KH_MOVER_CTRL_MODE_XFORM);
    kh_mover_ctrl_set_ewidth(&go, 1);
    kh_mover_ctrl_set_go(&go, 1);
    if (wr(h, KH_ORCH_AUX_CFG + KH_MOVER_REG_CTRL, go)) return -1;
    return wait_mover(h, kh_orch_aux_stat_moves(&st));
}

int kh_gemm_quantise(kh_machine *mc, const kh_gemm_plan *p, int recipe, kh_gemm_stats *st, char *err,
                     size_t errlen)
{
    host h = {mc, kh_machine_card(mc), kh_machine_sim(mc), err, errlen};
    kh_cycle t0 = kh_sim_now(h.sim);
    /* XFORM_MODE 0 packs A (rows), 1 packs B (columns): numerics §2.2 */
    if (quantise_one(&h, p, recipe, p->a_src, p->a_img, p->gm, p->gi, 0) ||
        quantise_one(&h, p, recipe, p->b_src, p->b_img, p->gn, p->gj, 1))
        return -1;
    if (st) st->quant_cycles = kh_sim_now(h.sim) - t0;
    return 0;
}

/* ---- the tiled program (§9.3) ---- */

typedef struct cl_prog {
    uint8_t x, y;
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
    for (unsigned ch = 0; ch < p->ch; ch++) {
        unsigned bank = ch % 2;
        kh_flit f;
        kh_flit_clear(&f);
        kh_cluster_set_op(f.w, KH_CLUSTER_OP_FILL);
        kh_cluster_set_sel(f.w, 0);
        kh_cluster_set_addr(f.w, p->a_img + 128ull * ((uint64_t)(ti * p->ch + ch) * p->gm * p->bc));
        kh_cluster_set_n(f.w, p->gm * p->bc);
        kh_cluster_set_fbank(f.w, bank);
        kh_cluster_set_nk(f.w, 1);
        kh_cluster_set_anchor(f.w, 40);
        if (!reuse_a && push(h, c, &f)) return -1; /* A still in L1 from the previous tile */
        kh_cluster_set_sel(f.w, 1);
        kh_cluster_set_addr(f.w, p->b_img + 128ull * ((uint64_t)(tj * p->ch + ch) * p->gn * p->bc));
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
    kh_cluster_set_addr(d.w, p->c_img + 32ull * ((uint64_t)(ti * p->gj + tj) * p->gm * p->gn));
    kh_cluster_set_n(d.w, p->gm * p->gn);
    kh_cluster_set_nk(d.w, 1);
    kh_cluster_set_anchor(d.w, 40);
    return push(h, c, &d);
}

static unsigned find_clusters(host *h, cl_prog *cl, unsigned max)
{
    uint8_t xs[KH_GEMM_MAX_CLUSTERS], ys[KH_GEMM_MAX_CLUSTERS], ps[KH_GEMM_MAX_CLUSTERS];
    unsigned n = order_clusters(h->mc, xs, ys, ps, max);
    for (unsigned i = 0; i < n; i++) {
        memset(&cl[i], 0, sizeof cl[i]);
        cl[i].x = xs[i];
        cl[i].y = ys[i];
    }
    return n;
}

/* Staging slot s: the five words of flits.md §8, header = type CU_INST,
 * txn = program id, last on the program's final flit. */
static int stage(host *h, unsigned slot, const kh_flit *payload, unsigned txn, int last)
{
    kh_flit f = *payload;
    f.w[4] = 0;
    kh_hdr_set_type(f.w, KH_T_CU_INST);
    kh_hdr_set_txn(f.w, txn);
    kh_hdr_set_last(f.w, last ? 1 : 0);
    uint8_t by[40];
    kh_words_to_bytes(f.w, 5, by); /* the flit in host-window order (flits.md §8) */
    return kh_card_write_block(h->card, kh_host_ctrl(0, KH_ORCH_STAGE + 40u * slot), by, 40, h->err, h->errlen);
}

typedef struct eng_prog {
    unsigned max, n; /* command slots (NCMD), used */
} eng_prog;

static int cmd(host *h, eng_prog *e, unsigned op, uint32_t off, uint64_t data, uint64_t mask)
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
    const uint64_t field[4] = {opw, kh_host_ctrl(0, off), data, mask}; /* opcode, address, data, mask (§3) */
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
            if (!kh_sim_run_until_idle(h->sim, RUN_LIMIT)) {
                diagnose(h, what);
                return -1;
            }
        } else {
            kh_sim_run(h->sim, POLL_STEP);
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

int kh_gemm_execute(kh_machine *mc, const kh_gemm_plan *p, kh_gemm_stats *st, char *err, size_t errlen)
{
    host h = {mc, kh_machine_card(mc), kh_machine_sim(mc), err, errlen};
    cl_prog cl[KH_GEMM_MAX_CLUSTERS];
    unsigned ncl = find_clusters(&h, cl, KH_GEMM_MAX_CLUSTERS);
    int rc = -1;
    if (!ncl) {
        snprintf(err, errlen, "the machine has no matmul cluster ('mat')");
        return -1;
    }
    const kh_params *par = kh_machine_params(mc);
    unsigned slots = (unsigned)(par->stage_flits / ncl); /* each cluster its own slot range */
    unsigned depth = (unsigned)par->inst_depth;
    if (slots > depth) slots = depth;
    if (slots < 1) {
        snprintf(err, errlen, "%u staging slots cannot hold a program for each of %u clusters",
                 (unsigned)par->stage_flits, ncl);
        return -1;
    }
    /* tiles in contiguous runs per cluster; each tile is independent (§9.3) */
    for (unsigned t = 0; t < p->gi * p->gj; t++)
        if (tile_program(&h, p, t / p->gj, t % p->gj, kh_gemm_tile_reuses_a(p, ncl, t), &cl[kh_gemm_tile_owner(p, ncl, t)]))
            goto out;
    for (unsigned i = 0; i < ncl; i++) {
        uint64_t ns;
        if (rd(&h, (uint32_t)node_status_off(&cl[i]), &ns)) goto out;
        cl[i].base_count = (unsigned)kh_orch_node_status_count(&ns);
    }
    kh_cycle t0 = kh_sim_now(h.sim);
    unsigned round = 0;
    uint64_t total = 0;
    for (;;) {
        eng_prog e = {(unsigned)par->ncmd, 0};
        for (unsigned i = 0; i < ncl; i++) {
            cl_prog *c = &cl[i];
            size_t left = c->n - c->sent;
            if (!left) continue;
            unsigned len = left < slots ? (unsigned)left : slots;
            unsigned base = i * slots, txn = (round + 1) & 0xFF;
            uint64_t want = 0, mask = 0, dst = 0, run_mask = 0;
            kh_orch_node_status_set_count(&mask, ~UINT64_C(0)); /* every bit of count */
            /* never more queued than the unit's instruction FIFO holds: wait
             * until this cluster has retired everything sent so far (a count
             * that cannot move past the polled value) */
            if (c->sent && c->sent + len > depth) {
                kh_orch_node_status_set_count(&want, c->base_count + c->sent); /* 16-bit wrap: the setter masks */
                if (cmd(&h, &e, KH_ENG_OP_POLL, (uint32_t)node_status_off(c), want, mask)) goto out;
            }
            for (unsigned s = 0; s < len; s++)
                if (stage(&h, base + s, &c->inst[c->sent + s], txn, s == len - 1)) goto out;
            kh_orch_prog_dst_set_x(&dst, c->x);
            kh_orch_prog_dst_set_y(&dst, c->y);
            kh_orch_prog_stat_set_run(&run_mask, 1);
            /* control.md §4 order: BASE, LEN, DST, CRED, KICK; then wait for
             * the dispatch to drain before the next kick reuses the dispatcher */
            if (cmd(&h, &e, KH_ENG_OP_WR, KH_ORCH_PROG_BASE, base, 0) ||
                cmd(&h, &e, KH_ENG_OP_WR, KH_ORCH_PROG_LEN, len, 0) ||
                cmd(&h, &e, KH_ENG_OP_WR, KH_ORCH_PROG_DST, dst, 0) ||
                cmd(&h, &e, KH_ENG_OP_WR, KH_ORCH_PROG_CRED, len, 0) ||
                cmd(&h, &e, KH_ENG_OP_WR, KH_ORCH_PROG_KICK, 1, 0) ||
                cmd(&h, &e, KH_ENG_OP_POLL, KH_ORCH_PROG_STAT, 0, run_mask))
                goto out;
            c->sent += len;
            total += len;
        }
        int final = 1;
        for (unsigned i = 0; i < ncl; i++) final &= cl[i].sent == cl[i].n;
        if (final) /* wait until every cluster has retired its whole program */
            for (unsigned i = 0; i < ncl; i++) {
                if (!cl[i].n) continue;
                uint64_t want = 0, mask = 0;
                kh_orch_node_status_set_count(&want, cl[i].base_count + cl[i].n); /* the setter masks */
                kh_orch_node_status_set_count(&mask, ~UINT64_C(0)); /* every bit of count */
                if (cmd(&h, &e, KH_ENG_OP_POLL, (uint32_t)node_status_off(&cl[i]), want, mask)) goto out;
            }
        if (cmd(&h, &e, KH_ENG_OP_DONE, 0, round, 0)) goto out;
        char what[80];
        snprintf(what, sizeof what, "GEMM round %u", round);
        if (run_engine(&h, final, what)) goto out;
        round++;
        if (final) break;
    }
    /* every cluster's last signal: BATCH_COMPLETE of its last program, no fault */
    for (unsigned i = 0; i < ncl; i++) {
        uint64_t ns;
        if (!cl[i].n) continue;
        if (rd(&h, (uint32_t)node_status_off(&cl[i]), &ns)) goto out;
        if (kh_orch_node_status_code(&ns) != KH_SIG_BATCH_COMPLETE) {
            snprintf(err, errlen, "cluster (%u,%u) ended with signal code 0x%02x arg 0x%08x, not BATCH_COMPLETE%s",
                     cl[i].x, cl[i].y, (unsigned)kh_orch_node_status_code(&ns), (unsigned)kh_orch_node_status_arg(&ns),
                     kh_orch_node_status_code(&ns) == KH_SIG_FAULT ? " (a fault: arg = exec_result)" : "");
            goto out;
        }
    }
    if (st) {
        st->gemm_cycles = kh_sim_now(h.sim) - t0;
        st->clusters = ncl;
        st->rounds = round;
        st->instructions = total;
        st->macs = (uint64_t)p->mp * p->np * p->kp;
    }
    rc = 0;
out:
    for (unsigned i = 0; i < ncl; i++) free(cl[i].inst);
    return rc;
}

int kh_gemm_read_c(kh_machine *mc, const kh_gemm_plan *p, uint16_t *c, char *err, size_t errlen)
{
    host h = {mc, kh_machine_card(mc), kh_machine_sim(mc), err, errlen};
    size_t n = (size_t)p->mp * p->np;
    uint8_t *img = malloc(n * 2);
    if (!img) {
        snprintf(err, errlen, "out of memory for the result image");
        return -1;
    }
    int rc = kh_card_read_block(h.card, kh_host_dram(0, p->c_img), img, n * 2, err, errlen);
    for (unsigned r = 0; !rc && r < p->m; r++)
        for (unsigned q = 0; q < p->n; q++) {
            size_t e = kh_gemm_c_index(p, r, q);
            c[(size_t)r * p->n + q] = (uint16_t)(img[2 * e] | img[2 * e + 1] << 8);
        }
    free(img);
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
