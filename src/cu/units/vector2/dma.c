/* The V2 fill and drain engines (docs/vector2.md §5): v1's VFILL / VDRAIN
 * walks on two walkers of one AGU over the eight-descriptor table, the
 * fill's chunk register and run coalescer (a run: at most 255 words, never
 * across a 256-word L1 boundary, one read request), the drain's L1 reads
 * and write bursts, and the fills' completion FIFO. */
#include "kohaku/gen/vector2.h"

#include "cu/units/vector2/v2.h"

#define SEXT18(v) ((int32_t)((uint32_t)(v) << 14) >> 14)

/* ---- the AGU (v2_agu) ---- */

void kh_v2_agu_reset(v2_core *c)
{
    for (unsigned d = 0; d < 8; d++) {
        c->ag_base[d] = 0;
        for (unsigned k = 0; k < 4; k++) {
            c->ag_strd[d][k] = 0;
            c->ag_bnd[d][k] = 1;
        }
    }
    for (unsigned i = 0; i < 2; i++) {
        v2_walker *k = &c->wk[i];
        k->cb0 = 1;
        k->cb1m = k->cb2m = 0;
        k->cb3 = 1;
        k->cs0 = k->cs1 = k->cs2 = k->cs3 = 0;
        k->lft = 1;
        k->r1 = k->r2 = k->r3 = 0;
        k->a = k->b1 = 0;
        k->busy = 0;
        k->c32 = 0;
    }
}

/* The walker's step size: one word, or in a contiguous dimension 0
 * min(cap, left0); in0: the step stays in dimension 0. */
static unsigned walker_n(const v2_walker *k, unsigned cap, int *in0)
{
    *in0 = k->c32 ? cap < k->lft : k->lft != 1;
    return !k->c32 ? 1u : *in0 ? cap : k->lft;
}

static void walker_edge(v2_core *c, v2_walker *k, int go, unsigned rsel, uint64_t off, int step, unsigned cap)
{
    if (!go && !k->settle && !(step && k->busy)) return; /* nothing moves: its registers hold */
    /* the settling pipeline: its inputs change only at a start, and it
     * settles three edges after (every edge in the RTL, the same values) */
    if (k->settle) k->settle--;
    int64_t p1 = k->p1, p2 = k->p2;
    uint64_t q12 = k->q12;
    k->p1 = (int64_t)k->cb1m * k->cs1;
    k->p2 = (int64_t)k->cb2m * k->cs2;
    k->d2 = (uint64_t)((int64_t)k->cs2 - p1) & V2_AW_MASK;
    k->q12 = (uint64_t)(p1 + p2) & V2_AW_MASK;
    k->d3 = ((uint64_t)(int64_t)k->cs3 - q12) & V2_AW_MASK;
    uint32_t t01 = k->t01, t23 = k->t23;
    uint16_t s01 = k->s01, s23 = k->s23;
    k->t01 = (uint32_t)k->cb0 * ((uint32_t)k->cb1m + 1);
    k->t23 = ((uint32_t)k->cb2m + 1) * k->cb3;
    k->s01 = (uint16_t)(t01 >> 16 ? 0xFFFF : t01);
    k->s23 = (uint16_t)(t23 >> 16 ? 0xFFFF : t23);
    k->total = (uint32_t)s01 * s23;
    if (go) {
        uint16_t b[4];
        for (unsigned d = 0; d < 4; d++) b[d] = c->ag_bnd[rsel][d] ? c->ag_bnd[rsel][d] : 1;
        uint64_t a0 = (c->ag_base[rsel] + off) & V2_AW_MASK;
        k->cb0 = b[0];
        k->cb1m = (uint16_t)(b[1] - 1);
        k->cb2m = (uint16_t)(b[2] - 1);
        k->cb3 = b[3];
        k->cs0 = c->ag_strd[rsel][0];
        k->cs1 = c->ag_strd[rsel][1];
        k->cs2 = c->ag_strd[rsel][2];
        k->cs3 = c->ag_strd[rsel][3];
        k->c32 = c->ag_strd[rsel][0] == 32;
        k->lft = b[0];
        k->r1 = (uint16_t)(b[1] - 1);
        k->r2 = (uint16_t)(b[2] - 1);
        k->r3 = (uint16_t)(b[3] - 1);
        k->a = k->b1 = a0;
        k->busy = 1;
        k->settle = 4;
    } else if (step && k->busy) {
        int in0;
        unsigned nw = walker_n(k, cap, &in0);
        if (in0) {
            k->lft = (uint16_t)(k->lft - nw);
            k->a = (k->c32 ? k->a + (uint64_t)cap * 32 : k->a + (uint64_t)(int64_t)k->cs0) & V2_AW_MASK;
        } else if (k->r1 | k->r2 | k->r3) {
            uint64_t bstep = k->r1 ? (uint64_t)(int64_t)k->cs1 : k->r2 ? k->d2 : k->d3;
            uint64_t bsum = (k->b1 + bstep) & V2_AW_MASK;
            k->lft = k->cb0;
            k->a = k->b1 = bsum;
            if (k->r1) {
                k->r1--;
            } else if (k->r2) {
                k->r1 = k->cb1m;
                k->r2--;
            } else {
                k->r1 = k->cb1m;
                k->r2 = k->cb2m;
                k->r3--;
            }
        } else {
            k->busy = 0;
        }
    }
}

static void agu_edge(v2_core *c, const v2_wires *w, int rst)
{
    const v2_in *in = w->in;
    unsigned start = c->ag_start;
    const v2_walker *k0 = &c->wk[0], *k1 = &c->wk[1];
    if (!start && !rst && !(in->ld_en && in->ld_kind) && !k0->settle && !k1->settle && !(w->c_load && k0->busy) &&
        !(w->dr_take && k1->busy))
        return; /* neither walker moves and no descriptor is written (walker_edge and the load do nothing) */
    unsigned rsel = (start & 2) ? c->d_sel : c->f_sel;
    /* the walkers read the table before this edge's write */
    walker_edge(c, &c->wk[0], (start & 1) && !(start & 2), rsel, c->f_off, w->c_load, c->fl_cap_q);
    walker_edge(c, &c->wk[1], (start & 2) != 0, rsel, c->dd_off, w->dr_take, 1);
    if (rst)
        kh_v2_agu_reset(c);
    else
        kh_v2_agu_load(c, in);
}

void kh_v2_agu_load(v2_core *c, const v2_in *in)
{
    if (!in->ld_en || !in->ld_kind) return;
    unsigned ad = (in->ld_addr >> 3) & 7, fld = in->ld_addr & 7;
    if (fld == 0) {
        c->ag_base[ad] = in->ld_data & V2_AW_MASK;
    } else if (fld <= 4) {
        c->ag_strd[ad][fld - 1] = SEXT18(in->ld_data >> 16);
        c->ag_bnd[ad][fld - 1] = (uint16_t)in->ld_data;
    }
}

/* ---- the engines ---- */

static const v2_aq_ent *ahead(const v2_aq *q) { return q->count ? &q->e[q->rp] : NULL; }

/* Neither engine has anything: no walk, no read landing, and no entry
 * but (on the fast engine) VSYNC marks at the queues' heads, which leave
 * when met (fq_pop, dq_pop) and start nothing. An idle fill engine holds
 * no chunk or run (c_v, run_v: it goes idle only without them). */
static int dma_quiet(const v2_core *c)
{
    if (c->f_st != V2_E_IDLE || c->d_st != V2_E_IDLE || c->dr_v || c->ag_start) return 0;
    if (!c->fq.count && !c->dq.count) return 1;
    const v2_aq_ent *fh = ahead(&c->fq), *dh = ahead(&c->dq);
    return !c->ref && (!fh || fh->sync) && (!dh || dh->sync);
}

void kh_v2_dma_wires(v2_core *c, v2_wires *w)
{
    const v2_in *in = w->in;
    w->dma_quiet = dma_quiet(c);
    if (w->dma_quiet) {
        unsigned fl_b = 256 - (c->f_l1 & 255);
        unsigned fl_m = fl_b < c->f_left ? fl_b : c->f_left;
        w->fl_cap = fl_m >= 256 ? 255 : fl_m;
        w->dr_land = w->dr_take = w->dr_blk = w->dr_bend = w->dr_want = w->dr_gnt = 0;
        w->dr_room = !c->wr_req_valid || in->wr_req_ready;
        w->dr_blen = 0;
        w->fl_n = w->run_sum = 0;
        w->run_ext = w->c_take = w->c_load = w->fill_emit = w->d_take = w->f_take = 0;
        const v2_aq_ent *fh = ahead(&c->fq), *dh = ahead(&c->dq);
        w->fq_pop = fh && kh_v2_sync_ok(c, fh->on, fh->tgt);
        w->dq_pop = dh && kh_v2_sync_ok(c, dh->on, dh->tgt);
        w->a_done_dr = w->a_done_fl = w->ft_push = 0;
        w->ft_pop = c->ft_count && c->ft_landed >= c->ft[c->ft_rp];
        return;
    }
    const v2_walker *dk = &c->wk[1], *fk = &c->wk[0];
    const v2_aq_ent *fh = ahead(&c->fq), *dh = ahead(&c->dq);
    unsigned tap = c->cfg.l1_ultra ? 2 : 1;
    /* drain */
    w->dr_land = (c->dr_v >> tap) & 1;
    w->dr_room = !c->wr_req_valid || in->wr_req_ready;
    w->dr_take = w->dr_land && w->dr_room;
    w->dr_blk = w->dr_land && !w->dr_room;
    unsigned dr_al = 8 - ((unsigned)(dk->a >> 5) & 7);
    unsigned dr_run = dk->cs0 != 32 ? 1u : dk->lft < 8 ? dk->lft : 8u;
    unsigned dr_mem = c->d_left < 8 ? c->d_left : 8u;
    unsigned b1 = dr_al < dr_run ? dr_al : dr_run;
    w->dr_blen = b1 < dr_mem ? b1 : dr_mem;
    w->dr_bend = w->dr_take && !c->nd_valid && (c->wb_left == 0 ? w->dr_blen == 1 : c->wb_left == 1);
    w->dr_want = c->d_st == V2_E_RUN && c->dr_left != 0 && !w->dr_blk && !w->dr_bend;
    w->dr_gnt = w->dr_want && !(w->u_rd && ((c->u_ra ^ c->dr_ptr) & 256) == 0);
    /* fill: the chunk register and the run */
    unsigned fl_b = 256 - (c->f_l1 & 255);
    unsigned fl_m = fl_b < c->f_left ? fl_b : c->f_left;
    w->fl_cap = fl_m >= 256 ? 255 : fl_m;
    if (c->f_st != V2_E_RUN && !c->c_v && !c->run_v && !c->ref) {
        /* no fill run, chunk or run register: nothing below can be set (fl_n and
         * run_sum are read only with c_load and c_take) */
        w->fl_n = w->run_sum = 0;
        w->run_ext = w->c_take = w->c_load = w->fill_emit = 0;
    } else {
        int in0;
        w->fl_n = walker_n(fk, c->fl_cap_q, &in0) & 255;
        w->run_sum = c->run_cnt + c->c_n;
        w->run_ext = c->run_v && c->c_addr == c->run_next && w->run_sum < 256 && (c->c_l1 & 255) != 0;
        w->c_take = c->c_v && (!c->run_v || w->run_ext);
        w->c_load =
            c->f_st == V2_E_RUN && c->f_left != 0 && (!c->c_v || w->c_take) && (c->fl_fresh || !fk->c32);
        w->fill_emit =
            c->f_st == V2_E_RUN && c->run_v && !c->rd_req_valid && (c->c_v ? !w->run_ext : c->f_left == 0);
    }
    /* starts: a drain wins the shared table read */
    w->d_take = c->d_st == V2_E_IDLE && dh && !dh->sync && !c->wr_req_valid;
    w->f_take = c->f_st == V2_E_IDLE && fh && !fh->sync && !w->d_take;
    int f_go = fh && fh->sync && kh_v2_sync_ok(c, fh->on, fh->tgt);
    int d_go = dh && dh->sync && kh_v2_sync_ok(c, dh->on, dh->tgt);
    w->fq_pop = w->f_take || (c->f_st == V2_E_IDLE && f_go);
    w->dq_pop = w->d_take || (c->d_st == V2_E_IDLE && d_go);
    w->a_done_dr = c->d_st == V2_E_RUN && (c->d_left == 0 || (w->dr_take && c->d_left == 1));
    w->a_done_fl = c->f_st == V2_E_RUN && c->f_left == 0 && !c->c_v && !c->run_v;
    w->ft_push = c->f_st == V2_E_MEM0 && fk->total <= 256;
    w->ft_pop = c->ft_count && c->ft_landed >= c->ft[c->ft_rp];
}

void kh_v2_dma_edge(v2_core *c, const v2_wires *w, int erst, int rst)
{
    const v2_in *in = w->in;
    unsigned tap = c->cfg.l1_ultra ? 2 : 1;
    uint64_t f_addr = c->wk[0].a, d_addr = c->wk[1].a;
    uint32_t f_total = c->wk[0].total, d_total = c->wk[1].total;
    /* the drain's read address into L1 (the unpack engine's has priority, walk.c) */
    if (w->dr_gnt && !(w->u_rd && ((c->u_ra ^ c->dr_ptr) & 256) == 0))
        c->l1_ra[(c->dr_ptr >> 8) & 1] = c->dr_ptr & 255;
    unsigned bk2 = c->dr_bk2;
    c->dr_bk2 = c->dr_bk1;
    c->dr_bk1 = (c->dr_ptr >> 8) & 1;
    agu_edge(c, w, rst);
    c->fl_cap_q = w->fl_cap;
    c->fl_fresh = !w->c_load && c->f_st == V2_E_RUN;
    /* fill completions: each VFILL's word count, in order; responses land in order */
    if (erst) {
        c->ft_rp = c->ft_count = 0;
        c->ft_landed = 0;
    } else {
        c->ft_landed = (uint16_t)(c->ft_landed + (unsigned)in->rr_valid - (w->ft_pop ? c->ft[c->ft_rp] : 0));
        if (w->ft_pop) {
            c->ft_rp = (c->ft_rp + 1) & (V2_FTD - 1);
            c->ft_count--;
        }
        if (w->ft_push) {
            c->ft[(c->ft_rp + c->ft_count) & (V2_FTD - 1)] = (uint16_t)(f_total & 511);
            c->ft_count++;
        }
    }
    /* dma_quiet's registers are written by no edge before this one (core.c's
     * order), so the wires' answer is still the registers' */
    if (!erst && w->dma_quiet) { /* nothing walks: only the request handshakes and the counts move */
        c->a_fault = 0;
        if (c->rd_req_valid && in->rd_req_ready) c->rd_req_valid = 0;
        if (c->wr_req_valid && in->wr_req_ready) c->wr_req_valid = 0;
        c->fill_out = (uint16_t)(c->fill_out - (unsigned)in->rr_valid);
        return;
    }
    if (erst) {
        c->f_st = c->d_st = V2_E_IDLE;
        c->ag_start = 0;
        c->run_v = 0;
        c->dr_v = 0;
        c->wb_left = 0;
        c->rd_req_valid = 0;
        c->wr_req_valid = 0;
        c->wr_req_first = 0;
        c->nd_valid = 0;
        c->f_left = c->d_left = c->dr_left = 0;
        c->c_v = 0;
        c->a_fault = 0;
        c->fill_out = 0;
        return;
    }
    c->ag_start = (unsigned)w->d_take << 1 | (unsigned)w->f_take;
    c->a_fault = 0;
    c->dr_v = w->dr_blk ? 0 : ((c->dr_v << 1) | (unsigned)w->dr_gnt) & ((2u << tap) - 1);
    if (c->rd_req_valid && in->rd_req_ready) c->rd_req_valid = 0;
    if (c->wr_req_valid && in->wr_req_ready) c->wr_req_valid = 0;
    c->fill_out = (uint16_t)(c->fill_out + (w->fill_emit ? c->run_cnt : 0) - (unsigned)in->rr_valid);

    /* the fill engine */
    const v2_aq_ent *fh = ahead(&c->fq);
    switch (c->f_st) {
    case V2_E_IDLE:
        if (w->f_take) {
            const uint64_t iw[1] = {fh->ir};
            c->f_sel = (unsigned)kh_v2_ad(iw);
            c->f_off = fh->off;
            c->f_l1 = (unsigned)kh_v2_start(iw);
            c->f_st = V2_E_AGW;
        }
        break;
    case V2_E_MEM0:
        if (f_total > 256) {
            c->a_fault = 1;
            c->a_fcode = V2_F_LEN;
            c->f_st = V2_E_IDLE;
        } else {
            c->f_left = f_total & 511;
            c->f_st = V2_E_RUN;
        }
        break;
    case V2_E_RUN: {
        uint64_t ca = c->c_addr;
        unsigned cn = c->c_n, cl = c->c_l1;
        if (w->c_load) {
            c->c_v = 1;
            c->c_addr = f_addr;
            c->c_n = w->fl_n;
            c->c_l1 = c->f_l1;
            c->f_l1 = (c->f_l1 + w->fl_n) & (V2_L1 - 1);
            c->f_left -= w->fl_n;
        } else if (w->c_take) {
            c->c_v = 0;
        }
        if (w->c_take) {
            if (!c->run_v) {
                c->run_v = 1;
                c->run_addr = ca;
                c->run_tag = cl;
                c->run_cnt = cn;
            } else {
                c->run_cnt = w->run_sum & 255;
            }
            c->run_next = (ca + (uint64_t)cn * 32) & V2_AW_MASK;
        }
        if (w->fill_emit) {
            c->rd_req_valid = 1;
            c->rd_req_addr = c->run_addr;
            c->rd_req_tag = c->run_tag;
            c->rd_req_cnt = c->run_cnt;
            c->run_v = 0;
        }
        if (w->a_done_fl) c->f_st = V2_E_IDLE;
        break;
    }
    default: c->f_st++; break; /* AGW -> W1 -> W2 -> W3 -> MEM0: the table read and the walker settle */
    }

    /* the drain engine */
    const v2_aq_ent *dh = ahead(&c->dq);
    switch (c->d_st) {
    case V2_E_IDLE:
        if (w->d_take) {
            const uint64_t iw[1] = {dh->ir};
            c->nd_valid = (int)kh_v2_peer(iw);
            c->nd_sig = (int)kh_v2_sig(iw);
            c->nd_x = (unsigned)kh_v2_dst_x(iw);
            c->nd_y = (unsigned)kh_v2_dst_y(iw);
            c->nd_buf = (unsigned)kh_v2_buf(iw);
            c->d_sel = (unsigned)kh_v2_ad(iw);
            c->dd_off = dh->off;
            c->dd_l1 = (unsigned)kh_v2_start(iw);
            c->d_st = V2_E_AGW;
        }
        break;
    case V2_E_MEM0:
        if (d_total > 256) {
            c->a_fault = 1;
            c->a_fcode = V2_F_LEN;
            c->d_st = V2_E_IDLE;
        } else {
            c->d_left = d_total & 511;
            c->nd_off = (unsigned)(d_addr & 0xFFFF);
            c->nd_ack = (unsigned)(d_addr >> 16) & 0xFF;
            c->nd_mesh = (unsigned)(d_addr >> 24) & 3;
            c->nd_fin = (unsigned)(d_addr >> 26) & 0xFF;
            c->nd_len = (d_total - 1) & 0xFF;
            c->dr_ptr = c->dd_l1;
            c->dr_left = d_total & 511;
            c->wb_left = 0;
            c->d_st = V2_E_RUN;
        }
        break;
    case V2_E_RUN:
        if (w->dr_gnt) {
            c->dr_ptr = (c->dr_ptr + 1) & (V2_L1 - 1);
            c->dr_left--;
        }
        if (w->dr_blk) { /* the write port refused: re-read from the first word not taken */
            c->dr_ptr = c->dd_l1;
            c->dr_left = c->d_left;
        }
        if (w->dr_take) {
            c->wr_req_valid = 1;
            c->wr_req_addr = d_addr;
            for (unsigned i = 0; i < 4; i++) c->wr_req_data[i] = c->l1_q[bk2][i];
            c->wr_req_first = c->wb_left == 0;
            c->wr_req_cnt = w->dr_blen;
            c->wb_left = c->wb_left == 0 ? w->dr_blen - 1 : c->wb_left - 1;
            c->dd_l1 = (c->dd_l1 + 1) & (V2_L1 - 1);
            c->d_left--;
        }
        if (w->a_done_dr) c->d_st = V2_E_IDLE;
        break;
    default: c->d_st++; break;
    }
}
