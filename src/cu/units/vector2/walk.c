/* The V2 unpack and pack engines (docs/vector2.md §6): one L1 word a cycle
 * between L1 and a register's chunks, through the GT4 granule transpose and
 * the format converters, budgeted by the chunks in flight; and the GT4
 * block itself. MX7 packing is mxq.c. */
#include <string.h>

#include "cu/units/vector2/v2.h"

/* ---- GT4 (v2_gt4): four words as a 4 x 4 array of 64-bit granules ---- */

void kh_v2_gt4_reset(v2_gt4 *g)
{
    g->tv[1] = g->tv[2] = g->tv[3] = 0;
    g->ph = 0;
    g->out_valid = 0;
}

/* tap k of granule gr: the word that arrived k shifts ago (0: arriving now) */
static uint64_t tap(const v2_gt4 *g, const uint64_t *in, unsigned gr, unsigned k)
{
    return k == 0 ? in[gr] : g->r[(g->hd - k + 1) & 7][gr];
}

void kh_v2_gt4_edge(v2_gt4 *g, int in_valid, int in_gt4, const uint64_t *in, uint32_t in_tag)
{
    int pend = g->tv[1] | g->tv[2] | g->tv[3];
    int shift = in_valid || (pend && g->ph == 0);
    g->out_valid = shift && g->tv[3];
    if (!shift) return;
    if (g->tv[3]) {
        unsigned oph = g->tp[3];
        if (g->tg[3])
            for (unsigned w = 0; w < 4; w++) g->out_data[w] = tap(g, in, oph, 3 + oph - w);
        else /* a plain word: the one of three shifts ago, whole (tap k = 3 of each granule) */
            memcpy(g->out_data, g->r[(g->hd - 2) & 7], sizeof g->out_data);
        g->out_tag = g->tt[3];
    }
    g->hd = (g->hd + 1) & 7;
    if (in_valid) memcpy(g->r[g->hd], in, sizeof g->r[0]);
    g->tv[3] = g->tv[2];
    g->tv[2] = g->tv[1];
    g->tv[1] = (uint8_t)in_valid;
    g->tg[3] = g->tg[2];
    g->tg[2] = g->tg[1];
    g->tg[1] = (uint8_t)in_gt4;
    g->tp[3] = g->tp[2];
    g->tp[2] = g->tp[1];
    g->tp[1] = (uint8_t)g->ph;
    g->tt[3] = g->tt[2];
    g->tt[2] = g->tt[1];
    g->tt[1] = in_tag;
    if (in_valid && in_gt4) g->ph = (g->ph + 1) & 3;
}

/* ---- queues: the head an engine serves ---- */

static const v2_wq_ent *head(const v2_wq *q) { return q->count ? &q->e[q->rp] : NULL; }

/* An unpack's registers are clear: older math writes (W - UW), older unpack
 * writes (UW), older math reads and pack reads of vd have finished. */
static int u_clear(const v2_core *c, const v2_wq_ent *q)
{
    unsigned vd = q->reg;
    return v2_reached((uint8_t)((c->Wc[vd] - c->UWc[vd]) & 63), (uint8_t)((q->s_w - q->s_uw) & 63)) &&
           v2_reached(c->UWc[vd], q->s_uw) && v2_reached(c->MRc[vd], q->s_mr) && v2_reached(c->PRc[vd], q->s_pr);
}

static int p_clear(const v2_core *c, const v2_wq_ent *q)
{
    return v2_reached(c->Wc[q->reg], q->s_w) && v2_reached(c->PRc[q->reg], q->s_pr);
}

/* words - 1 of an entry: F32 moves half a chunk a word, MX7 reads its
 * eight chunks twice */
static unsigned words_m1(const v2_wq_ent *e, int mx)
{
    return mx ? 15u : e->mode == V2_MD_F32 ? (unsigned)e->n * 2 + 1 : e->n;
}

/* The walk's next word address: base + (w % 4) s0 + (w / 4) s1 (gb holds
 * the group's base). */
static void walk_step(unsigned w, unsigned *ra, unsigned *gb, unsigned s0, unsigned s1)
{
    if ((w & 3) == 3) {
        *gb = (*gb + s1) & (V2_L1 - 1);
        *ra = *gb;
    } else {
        *ra = (*ra + s0) & (V2_L1 - 1);
    }
}

/* ---- unpack ---- */

/* Resting edges after which a resting engine's edge moves nothing (two
 * and six, with a margin). */
#define V2_STILL_U 4
#define V2_STILL_P 8

/* Nothing walking, in the read pipe, in the GT4 block or waiting to be
 * written back: if it takes no queue entry either, the engine's edge moves
 * nothing but its tag and bank registers, so the fast engine does only
 * that (kh_v2_unpack_edge). */
static int unpack_idle(const v2_core *c)
{
    return !c->u_act && !c->u_v1 && !c->u_v2 && !c->uf_push && !c->uf_count && !kh_v2_gt4_busy(&c->ugt) &&
           !c->ugt.out_valid;
}

/* Idle with both queues empty: the wires need not be worked out. A
 * resting edge (u_still > 0: the last edge was one) leaves the engine idle. */
static int unpack_at_rest(const v2_core *c)
{
    return !c->ref && !c->uq[0].count && !c->uq[1].count && (c->u_still || unpack_idle(c));
}

void kh_v2_unpack_wires(v2_core *c, v2_wires *w)
{
    w->u_rest = unpack_at_rest(c);
    if (w->u_rest) { /* what the wires below give with empty queues and an idle engine */
        w->u0_go = w->u1_go = 0;
        w->u_sel = (int)c->cfg.dualq;
        w->uh_sync = 0;
        w->u_room = c->u_occ < 8;
        w->u_rd = w->u_endw = w->u_take = w->uq0_pop = w->uq1_pop = w->u_chunk_iss = 0;
        w->uf_pop = w->u_retire = 0;
        return;
    }
    const v2_wq_ent *h0 = head(&c->uq[0]), *h1 = head(&c->uq[1]);
    int s0 = h0 && h0->sync, s1 = h1 && h1->sync;
    w->u0_go = s0 && kh_v2_sync_ok(c, h0->on, h0->tgt);
    w->u1_go = s1 && kh_v2_sync_ok(c, h1->on, h1->tgt);
    int r0 = h0 && !s0 && u_clear(c, h0), r1 = h1 && !s1 && u_clear(c, h1);
    w->u_sel = c->cfg.dualq && !r0;
    w->uh_sync = (h0 || h1) && (!h0 || s0) && (!h1 || s1);
    int f32 = c->u_e.mode == V2_MD_F32;
    w->u_room = c->u_occ < 8;
    w->u_rd = c->u_act && w->u_room;
    w->u_endw = w->u_rd && c->u_w == words_m1(&c->u_e, 0);
    int u_free = !c->u_act || w->u_endw;
    w->u_take = (r0 || r1) && u_free;
    w->uq0_pop = (w->u_take && !w->u_sel) || w->u0_go;
    w->uq1_pop = (w->u_take && w->u_sel) || w->u1_go;
    w->u_chunk_iss = w->u_rd && (!f32 || !(c->u_w & 1));
    w->uf_pop = c->uf_count && !((w->mw_bank_next >> (c->uf[c->uf_rp].wa & 1)) & 1);
    w->u_retire = w->uf_pop && c->uf[c->uf_rp].last;
    /* idle with its queue heads blocked (a sync not met, a hazard): the
     * edge is the resting one (the heads leave through queues_edge) */
    w->u_rest = !c->ref && !w->u_take && (c->u_still || unpack_idle(c));
}

/* unpack tag: vd[12:8] chunk[7:5] queue[4] last[3] half[2] gt4[1] f32[0] */
static uint32_t u_tag0(const v2_core *c)
{
    const v2_wq_ent *e = &c->u_e;
    int f32 = e->mode == V2_MD_F32;
    unsigned chunk = (e->cb + (f32 ? c->u_w >> 1 : c->u_w)) & 7;
    return (uint32_t)e->reg << 8 | chunk << 5 | (unsigned)c->u_eq << 4 | (unsigned)(c->u_w == words_m1(e, 0)) << 3 |
           (unsigned)(f32 && (c->u_w & 1)) << 2 | (unsigned)(e->mode == V2_MD_GT4) << 1 | (unsigned)f32;
}

void kh_v2_unpack_edge(v2_core *c, const v2_wires *w, int erst)
{
    if (w->u_rest && !erst) { /* the edge below at rest: no FIFO move, no GT4 shift, no walk */
        /* u_tag0 and u_ra hold at rest: two resting edges fill both tag and
         * bank registers with them, and the next move nothing */
        if (c->u_still >= V2_STILL_U) return;
        c->u_still++;
        c->u_tag2 = c->u_tag1;
        c->u_tag1 = u_tag0(c);
        c->u_bk2 = c->u_bk1;
        c->u_bk1 = (int)(c->u_ra >> 8);
        return;
    }
    c->u_still = 0;
    /* the output FIFO: the registered push of the last edge, and this cycle's pop */
    if (erst) {
        c->uf_rp = c->uf_count = 0;
    } else {
        if (w->uf_pop) {
            c->uf_rp = (c->uf_rp + 1) & (V2_UFD - 1);
            c->uf_count--;
        }
        if (c->uf_push) {
            unsigned i = (c->uf_rp + c->uf_count) & (V2_UFD - 1);
            c->uf[i].wa = c->uf_din_wa;
            c->uf[i].qb = c->uf_din_qb;
            c->uf[i].last = c->uf_din_last;
            memcpy(c->uf[i].d, c->uf_din, sizeof c->uf_din);
            c->uf_count++;
        }
    }
    /* the converters on the GT4 output, registered into uf_din */
    const v2_gt4 *g = &c->ugt;
    int gv = g->out_valid;
    uint32_t gt = g->out_tag;
    int f32 = gt & 1, half = (gt >> 2) & 1;
    c->uf_push = !erst && gv && !(f32 && !half);
    if (gv) {
        kh_e8 f[8];
        if (f32)
            for (unsigned e = 0; e < 8; e++)
                f[e] = kh_e8_from_f32((uint32_t)(g->out_data[e >> 1] >> ((e & 1) * 32)));
        if (f32 && !half) {
            memcpy(c->u_hold, f, sizeof f);
        } else {
            c->uf_din_wa = (uint8_t)(gt >> 5);
            c->uf_din_qb = (uint8_t)((gt >> 4) & 1);
            c->uf_din_last = (uint8_t)((gt >> 3) & 1);
            if (f32) {
                memcpy(c->uf_din, c->u_hold, sizeof c->u_hold);
                memcpy(c->uf_din + 8, f, sizeof f);
            } else {
                kh_e8_from_f16_words(g->out_data, c->uf_din, 4);
            }
        }
    }
    /* the GT4 block on the word the L1 read of two edges ago returned */
    if (c->u_v2 || kh_v2_gt4_busy(&c->ugt))
        kh_v2_gt4_edge(&c->ugt, c->u_v2, (c->u_tag2 >> 1) & 1, c->l1_q[c->u_bk2], c->u_tag2);
    else
        c->ugt.out_valid = 0; /* nothing in, nothing pending: the block does not shift */
    if (erst) kh_v2_gt4_reset(&c->ugt);

    c->u_tag2 = c->u_tag1;
    c->u_tag1 = u_tag0(c);
    c->u_bk2 = c->u_bk1;
    c->u_bk1 = (int)(c->u_ra >> 8);
    c->u_occ = erst ? 0 : c->u_occ + (unsigned)w->u_chunk_iss - (unsigned)w->uf_pop;
    if (erst) {
        c->u_act = 0;
        c->u_w = 0;
        c->u_v1 = c->u_v2 = 0;
        return;
    }
    c->u_v2 = c->u_v1;
    c->u_v1 = w->u_rd;
    if (w->u_take) {
        const v2_wq_ent *h = w->u_sel ? &c->uq[1].e[c->uq[1].rp] : &c->uq[0].e[c->uq[0].rp];
        c->u_e = *h;
        c->u_act = 1;
        c->u_w = 0;
        c->u_eq = w->u_sel;
        c->u_ra = c->u_gb = h->addr;
    } else if (w->u_endw) {
        c->u_act = 0;
    } else if (w->u_rd) {
        walk_step(c->u_w, &c->u_ra, &c->u_gb, c->u_e.s0, c->u_e.s1);
        c->u_w++;
    }
}

/* ---- pack ---- */

/* Nothing walking, in the read pipe, in GT4 or waiting for L1 (MX7 is
 * asked apart: the wires hold its answer): if it takes no queue entry and
 * MX7 is idle too, the edge moves only the tag registers (and MX7's chunk
 * registers). */
static int pack_idle(const v2_core *c)
{
    return !c->p_act && !c->p_v1 && !c->p_v2 && !c->p_v3 && !c->p_v4 && !c->pf_count && !kh_v2_gt4_busy(&c->pgt) &&
           !c->pgt.out_valid;
}

/* Idle with both queues empty and MX7 idle: the wires need not be worked
 * out. A resting edge (p_still > 0) leaves the engine and MX7 idle. */
static int pack_at_rest(const v2_core *c)
{
    return !c->ref && !c->pq[0].count && !c->pq[1].count && (c->p_still || (pack_idle(c) && !kh_v2_mxq_busy(c)));
}

void kh_v2_pack_wires(v2_core *c, v2_wires *w)
{
    w->p_rest = pack_at_rest(c);
    if (w->p_rest) { /* what the wires below give with empty queues and an idle engine */
        int mx = c->cfg.has_mx && c->p_e.mode == V2_MD_MX7;
        w->p0_go = w->p1_go = 0;
        w->p_sel = (int)c->cfg.dualq;
        w->ph_sync = w->p_haz = w->mx_busy = 0;
        w->p_room = mx ? (c->p_w != 0 || c->p_occ <= 4) : c->p_occ < 8;
        w->p_rd = w->p_endw = w->p_take = w->pq0_pop = w->pq1_pop = w->pf_pop = w->p_retire = 0;
        return;
    }
    const v2_wq_ent *h0 = head(&c->pq[0]), *h1 = head(&c->pq[1]);
    int s0 = h0 && h0->sync, s1 = h1 && h1->sync;
    w->p0_go = s0 && kh_v2_sync_ok(c, h0->on, h0->tgt);
    w->p1_go = s1 && kh_v2_sync_ok(c, h1->on, h1->tgt);
    int r0 = h0 && !s0 && p_clear(c, h0), r1 = h1 && !s1 && p_clear(c, h1);
    w->p_sel = c->cfg.dualq && !r0;
    w->ph_sync = (h0 || h1) && (!h0 || s0) && (!h1 || s1);
    w->p_haz = !r0 && !r1 && (h0 || h1) && !w->ph_sync;
    int mx = c->cfg.has_mx && c->p_e.mode == V2_MD_MX7;
    const v2_wq_ent *h = w->p_sel ? h1 : h0;
    int pq_mx = c->cfg.has_mx && h && h->mode == V2_MD_MX7;
    w->mx_busy = kh_v2_mxq_busy(c);
    w->p_room = mx ? (c->p_w != 0 || c->p_occ <= 4) : c->p_occ < 8;
    w->p_rd = c->p_act && w->p_room;
    w->p_endw = w->p_rd && c->p_w == words_m1(&c->p_e, mx);
    int p_free = !c->p_act || w->p_endw;
    w->p_take = (r0 || r1) && p_free && !(w->mx_busy && !pq_mx);
    w->pq0_pop = (w->p_take && !w->p_sel) || w->p0_go;
    w->pq1_pop = (w->p_take && w->p_sel) || w->p1_go;
    const v2_in *in = w->in;
    int fill_any = in->rr_valid || in->cd_valid;
    unsigned fill_at = in->rr_valid ? in->rr_tag : in->cd_addr;
    w->pf_pop = c->pf_count && !(fill_any && ((fill_at ^ c->pf[c->pf_rp].addr) & 256) == 0);
    w->p_retire = w->pf_pop && c->pf[c->pf_rp].last;
    /* idle with its queue heads blocked: the resting edge */
    w->p_rest = !c->ref && !w->p_take && pack_idle(c) && !w->mx_busy;
}

/* pack tag: addr[13:5] queue[4] last[3] half[2] gt4[1] f32[0] */
static uint32_t p_tag0(const v2_core *c, int mx)
{
    const v2_wq_ent *e = &c->p_e;
    int f32 = e->mode == V2_MD_F32;
    return (uint32_t)c->p_wa << 5 | (unsigned)c->p_eq << 4 | (unsigned)(c->p_w == words_m1(e, mx)) << 3 |
           (unsigned)(f32 && (c->p_w & 1)) << 2 | (unsigned)(e->mode == V2_MD_GT4) << 1 | (unsigned)f32;
}

/* The pack pipe's tag registers shift at every edge, at rest or not. */
static void shift_pack_tags(v2_core *c, int mx)
{
    c->p_tag4 = c->p_tag3;
    c->p_tag3 = c->p_tag2;
    c->p_tag2 = c->p_tag1;
    c->p_tag1 = p_tag0(c, mx);
    c->m_tag4 = c->m_tag3;
    c->m_tag3 = c->m_tag2;
    c->m_tag2 = c->m_tag1;
    c->m_tag1 = (uint8_t)((unsigned)mx << 4 | (c->p_w & 15));
}

void kh_v2_pack_edge(v2_core *c, const v2_wires *w, int erst)
{
    int mx = c->cfg.has_mx && c->p_e.mode == V2_MD_MX7;
    if (w->p_rest && !erst) { /* the edge below at rest */
        /* p_tag0 and the MX7 tag hold at rest: four resting edges fill the
         * four tag registers, two more MX7's chunk registers from the last,
         * and the next move nothing */
        if (c->p_still >= V2_STILL_P) return;
        c->p_still++;
        kh_v2_mxq_edge(c, 0, 0);
        shift_pack_tags(c, mx);
        return;
    }
    c->p_still = 0;
    /* the output FIFO: the GT4 word of this edge, and this cycle's pop */
    if (erst) {
        c->pf_rp = c->pf_count = 0;
    } else {
        if (w->pf_pop) {
            c->pf_rp = (c->pf_rp + 1) & (V2_UFD - 1);
            c->pf_count--;
        }
        if (c->pgt.out_valid) {
            unsigned i = (c->pf_rp + c->pf_count) & (V2_UFD - 1);
            c->pf[i].addr = (uint16_t)(c->pgt.out_tag >> 5);
            c->pf[i].qb = (uint8_t)((c->pgt.out_tag >> 4) & 1);
            c->pf[i].last = (uint8_t)((c->pgt.out_tag >> 3) & 1);
            memcpy(c->pf[i].d, c->pgt.out_data, sizeof c->pf[i].d);
            c->pf_count++;
        }
    }
    /* GT4 on the converted word, or on an MX7 entry's word */
    int mx_v = c->mx.out_v;
    int p_mx4 = c->p_v4 && ((c->m_tag4 >> 4) & 1);
    int g_in = (c->p_v4 && !p_mx4) || mx_v;
    if (g_in || kh_v2_gt4_busy(&c->pgt)) {
        uint32_t mtag = (uint32_t)c->mx.out_addr << 5 | (unsigned)c->mx.out_eq << 4 | (unsigned)c->mx.out_last << 3;
        uint64_t mxw[4];
        if (mx_v) memcpy(mxw, c->mx.out_word, sizeof mxw);
        kh_v2_gt4_edge(&c->pgt, g_in, !mx_v && ((c->p_tag4 >> 1) & 1), mx_v ? mxw : c->p_cv, mx_v ? mtag : c->p_tag4);
    } else {
        c->pgt.out_valid = 0; /* nothing in, nothing pending: the block does not shift */
    }
    if (erst) kh_v2_gt4_reset(&c->pgt);
    kh_v2_mxq_edge(c, p_mx4, erst);

    /* convert pk_rd (p_tag3's read), register */
    if (c->p_v3) {
        uint32_t t = c->p_tag3;
        const kh_e8 *r = c->ln.pk_rd;
        if (!(t & 1)) {
            kh_e8_to_f16_words(r, c->p_cv, 4);
        } else {
            const kh_e8 *h = r + ((t >> 2) & 1) * 8;
            for (unsigned q = 0; q < 4; q++)
                c->p_cv[q] = (uint64_t)kh_e8_to_f32(h[2 * q]) | (uint64_t)kh_e8_to_f32(h[2 * q + 1]) << 32;
        }
    }
    /* the pack read port's two registers (rf_q d, pk_rd) */
    if (c->p_v2) memcpy(c->ln.pk_rd, c->ln.pk_q, sizeof c->ln.pk_rd);
    if (c->p_v1) memcpy(c->ln.pk_q, c->ln.pk_next, sizeof c->ln.pk_q);
    c->p_v4 = !erst && c->p_v3;
    shift_pack_tags(c, mx);
    unsigned chunk = mx ? c->p_w & 7 : (c->p_e.cb + (c->p_e.mode == V2_MD_F32 ? c->p_w >> 1 : c->p_w)) & 7;
    if (w->p_rd) c->ln.pk_ra = (uint8_t)(c->p_e.reg << 3 | chunk);
    c->p_occ = erst ? 0
                    : c->p_occ + (unsigned)(!w->p_rd ? 0 : !mx ? 1 : c->p_w == 0 ? 4 : 0) - (unsigned)w->pf_pop;
    if (erst) {
        c->p_act = 0;
        c->p_w = 0;
        c->p_v1 = c->p_v2 = c->p_v3 = 0;
        return;
    }
    c->p_v3 = c->p_v2;
    c->p_v2 = c->p_v1;
    c->p_v1 = w->p_rd;
    if (w->p_take) {
        const v2_wq_ent *h = w->p_sel ? &c->pq[1].e[c->pq[1].rp] : &c->pq[0].e[c->pq[0].rp];
        c->p_e = *h;
        c->p_act = 1;
        c->p_w = 0;
        c->p_eq = w->p_sel;
        c->p_wa = c->p_gb = c->p_base = h->addr;
    } else if (w->p_endw) {
        c->p_act = 0;
    } else if (w->p_rd) {
        walk_step(c->p_w, &c->p_wa, &c->p_gb, c->p_e.s0, c->p_e.s1);
        c->p_w++;
    }
}
