/* One clock of the V2 core: every wire from the registers, then every
 * register's next value. The engines' edge functions read only the wires
 * and registers no earlier edge function of the same cycle has written
 * (the order below), so the result is the RTL's whatever the engines do. */
#include <string.h>

#include "cu/units/vector2/v2.h"

static void counters(v2_core *c, const v2_wires *w, const v2_dispatch *e);

int kh_v2_core_init(v2_core *c, const v2_cfg *cfg)
{
    if (cfg->imem_depth != 512 && cfg->imem_depth != 1024) return -1;
    if (cfg->qd < 2 || cfg->qd > V2_QMAX || (cfg->qd & (cfg->qd - 1))) return -1;
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    c->pcw_mask = cfg->imem_depth - 1;
    kh_v2_core_reset(c);
    return 0;
}

/* The core's reset (v2_core's rst): everything but the memories, the
 * register file, predicates and the scalar registers. */
void kh_v2_core_reset(v2_core *c)
{
    kh_v2_fe_reset(c);
    kh_v2_agu_reset(c);
    c->l1_we[0] = c->l1_we[1] = 0;
    /* and what the soft reset clears, as one edge of it */
    c->srst = 1;
    v2_in in;
    memset(&in, 0, sizeof in);
    v2_wires w;
    memset(&w, 0, sizeof w);
    w.in = &in;
    v2_dispatch e;
    memset(&e, 0, sizeof e);
    kh_v2_sb_edge(c, &w, &e);
    kh_v2_lanes_edge(c, &w, 0, 0, NULL);
    kh_v2_math_edge(c, &w);
    kh_v2_unpack_edge(c, &w, 1);
    kh_v2_pack_edge(c, &w, 1);
    kh_v2_dma_edge(c, &w, 1, 0);
    c->mq.rp = c->mq.count = 0;
    for (unsigned q = 0; q < 2; q++) c->uq[q].rp = c->uq[q].count = c->pq[q].rp = c->pq[q].count = 0;
    c->fq.rp = c->fq.count = c->dq.rp = c->dq.count = 0;
    c->srst = 0;
    c->d_old = 0;
}

/* Every engine empty (the RTL's all_idle, which VHALT waits for). The
 * terms most often false on a busy core first (the lanes' pipe holds a
 * beat in three busy edges of four, the math engine runs in one of two),
 * so the chain mostly stops at its first or second test. */
static int all_idle(const v2_core *c, int pipe_empty, int mx_busy)
{
    return pipe_empty && !c->m_act && c->mq.count == 0 && !c->u_act && !c->p_act && c->f_st == V2_E_IDLE &&
           c->d_st == V2_E_IDLE && !c->uq[0].count && !c->uq[1].count && !c->pq[0].count && !c->pq[1].count &&
           !c->fq.count && !c->dq.count && !c->uf_count && !c->pf_count && c->u_occ == 0 && c->p_occ == 0 &&
           !kh_v2_gt4_busy(&c->ugt) && !kh_v2_gt4_busy(&c->pgt) && !mx_busy && c->fill_out == 0 &&
           !c->wr_req_valid && !c->ft_count && !c->ln.iss.v;
}

int kh_v2_core_idle(const v2_core *c)
{
    const v2_lanes *l = &c->ln;
    int pipe_empty = l->nmeta == 0 && !l->iss.v && !l->q1.v && !l->q2.v && !l->alu_iv;
    return !c->run && !c->rd_req_valid && !c->l1_we[0] && !c->l1_we[1] && !c->u_v1 && !c->u_v2 && !c->p_v1 &&
           !c->p_v2 && !c->p_v3 && !c->p_v4 && !c->uf_push && !c->dr_v && !c->c_v && !c->run_v &&
           !l->bw_we[0] && !l->bw_we[1] && !c->ag_start && all_idle(c, pipe_empty, kh_v2_mxq_busy(c));
}

/* ---- queues ---- */
#define QPOP(q, n)                                    \
    do {                                              \
        (q).rp = ((q).rp + 1) & ((n) - 1);             \
        (q).count--;                                  \
    } while (0)
#define QPUSH(q, n, v)                                \
    do {                                              \
        (q).e[((q).rp + (q).count) & ((n) - 1)] = (v); \
        (q).count++;                                  \
    } while (0)

static void queues_edge(v2_core *c, const v2_wires *w, const v2_dispatch *e)
{
    unsigned qd = c->cfg.qd;
    if (c->srst) {
        c->mq.rp = c->mq.count = 0;
        for (unsigned q = 0; q < 2; q++) c->uq[q].rp = c->uq[q].count = c->pq[q].rp = c->pq[q].count = 0;
        c->fq.rp = c->fq.count = c->dq.rp = c->dq.count = 0;
        return;
    }
    /* most edges move no queue: one test instead of twelve (a push needs a
     * dispatch, fe_ok) */
    if (!(w->mq_pop | w->uq0_pop | w->uq1_pop | w->pq0_pop | w->pq1_pop | w->fq_pop | w->dq_pop | w->fe_ok))
        return;
    if (w->mq_pop) QPOP(c->mq, qd);
    if (w->uq0_pop) QPOP(c->uq[0], qd);
    if (w->uq1_pop) QPOP(c->uq[1], qd);
    if (w->pq0_pop) QPOP(c->pq[0], qd);
    if (w->pq1_pop) QPOP(c->pq[1], qd);
    if (w->fq_pop) QPOP(c->fq, V2_AQD);
    if (w->dq_pop) QPOP(c->dq, V2_AQD);
    if (e->mq_push) QPUSH(c->mq, qd, e->mq);
    if (e->uq_push) QPUSH(c->uq[w->d_q], qd, e->wq);
    if (e->pq_push) QPUSH(c->pq[w->d_q], qd, e->wq);
    if (e->fq_push) QPUSH(c->fq, V2_AQD, e->aq);
    if (e->dq_push) QPUSH(c->dq, V2_AQD, e->aq);
}

/* ---- L1: two banks, each one read and one write port ---- */

/* The RAM edge of both banks: each reads the address it held before this
 * edge (ra; read-first, so before its write) and writes what its write
 * port registers held. Only this touches the RAM, and it runs after every
 * engine that reads the output registers (l1_q) and before any that loads
 * the write port, so the edge is the RTL's at whatever point it runs. */
static void l1_edge(v2_core *c, const unsigned ra[2])
{
    for (unsigned b = 0; b < 2; b++) {
        const uint64_t *rd = c->l1[b << 8 | ra[b]];
        if (c->cfg.l1_ultra) {
            memcpy(c->l1_q[b], c->l1_q1[b], sizeof c->l1_q[b]);
            memcpy(c->l1_q1[b], rd, sizeof c->l1_q1[b]);
        } else {
            memcpy(c->l1_q[b], rd, sizeof c->l1_q[b]);
        }
        if (c->l1_we[b]) memcpy(c->l1[b << 8 | c->l1_wa[b]], c->l1_wd[b], sizeof c->l1_wd[b]);
    }
}

/* The write port registers: a fill (or peer CU_DATA) first, a pack word
 * otherwise (pf_pop already yields to a fill into its bank). */
static void l1_port_edge(v2_core *c, const v2_wires *w)
{
    const v2_in *in = w->in;
    c->l1_we[0] = c->l1_we[1] = 0;
    if (in->rr_valid || in->cd_valid) {
        unsigned fill_at = in->rr_valid ? in->rr_tag : in->cd_addr, b = (fill_at >> 8) & 1;
        c->l1_we[b] = 1;
        c->l1_wa[b] = fill_at & 255;
        memcpy(c->l1_wd[b], in->rr_valid ? in->rr_data : in->cd_data, sizeof c->l1_wd[b]);
    }
    if (w->pf_pop) { /* never into the bank a fill writes (kh_v2_pack_wires) */
        unsigned pa = c->pf[c->pf_rp].addr, b = (pa >> 8) & 1;
        c->l1_we[b] = 1;
        c->l1_wa[b] = pa & 255;
        memcpy(c->l1_wd[b], c->pf[c->pf_rp].d, sizeof c->l1_wd[b]);
    }
}

/* Edges an idle core with no input must still take before it stops moving
 * (a pulse register drops, a read register takes what its address holds).
 * Past that, an edge changes nothing but a load: a descriptor (read by a
 * walker only at its start) or an IMEM word away from the one the idle
 * front end reads (the RUN's start pc). Such an edge is the load alone. */
#define V2_STILL 8

static unsigned imem_addr(const v2_core *c, const v2_in *in)
{
    return (unsigned)(((in->ld_data >> 32) & 1) << 9 | (in->ld_addr & 511)) & c->pcw_mask;
}

/* flatten: every engine's wires and edge (each called once a clock, from
 * other files) inlined here, which LTO alone leaves as calls: no call and
 * spill per engine per edge, and the wires stay in registers. */
__attribute__((flatten)) void kh_v2_core_cycle(v2_core *c, const v2_in *in)
{
    int load_only = !c->run && (!in->ld_en || in->ld_kind || imem_addr(c, in) != (in->start_pc & c->pcw_mask));
    /* still_idle: the last edge was a still one, which moved no register
     * kh_v2_core_idle reads, so the core is idle still (on the fast engine) */
    if (load_only && !in->start && !in->rr_valid && !in->cd_valid && !in->cd_fault && !c->srst &&
        ((c->still_idle && !c->ref) || kh_v2_core_idle(c))) {
        if (c->still >= V2_STILL) { /* on both engines: a checkpoint's ring positions depend on it */
            if (in->ld_en && in->ld_kind) kh_v2_agu_load(c, in);
            else if (in->ld_en) c->imem[imem_addr(c, in)] = (uint32_t)in->ld_data;
            c->still_idle = 1;
            return;
        }
        c->still++;
    } else {
        c->still = 0;
    }
    c->still_idle = 0;
    v2_wires w;
    v2_dispatch e;
    w.in = in;
    int erst = c->srst;

    /* wires */
    kh_v2_lanes_wires(c, &w);
    kh_v2_math_wires(c, &w);
    kh_v2_unpack_wires(c, &w);
    kh_v2_dma_wires(c, &w);
    kh_v2_pack_wires(c, &w);
    w.k_done = 0; /* most edges finish nothing: no FIFO heads looked at then */
    if (w.ft_pop | w.u_retire | w.wb_last | w.p_retire | w.a_done_dr)
        w.k_done = (unsigned)w.ft_pop << V2_K_F | (unsigned)(w.u_retire && !c->uf[c->uf_rp].qb) << V2_K_U |
                   (unsigned)w.wb_last << V2_K_M | (unsigned)(w.p_retire && !c->pf[c->pf_rp].qb) << V2_K_P |
                   (unsigned)w.a_done_dr << V2_K_D | (unsigned)(w.u_retire && c->uf[c->uf_rp].qb) << V2_K_U1 |
                   (unsigned)(w.p_retire && c->pf[c->pf_rp].qb) << V2_K_P1;
    w.all_idle = all_idle(c, w.pipe_empty, w.mx_busy);
    kh_v2_fe_wires(c, &w);
    kh_v2_fe_entries(c, &w, &e);
    if (c->busy) counters(c, &w, &e);

    /* the edge */
    unsigned l1ra[2] = {c->l1_ra[0], c->l1_ra[1]};
    int uw_we = w.uf_pop;
    uint8_t uw_wa = uw_we ? c->uf[c->uf_rp].wa : 0;
    kh_e8 uw_wd[V2_LANES];
    if (uw_we) memcpy(uw_wd, c->uf[c->uf_rp].d, sizeof uw_wd);

    kh_v2_sb_edge(c, &w, &e);
    kh_v2_lanes_edge(c, &w, uw_we, uw_wa, uw_wd);
    kh_v2_math_edge(c, &w);
    /* the unpack read address (priority over the drain's, dma.c) */
    if (w.u_rd) c->l1_ra[(c->u_ra >> 8) & 1] = c->u_ra & 255;
    kh_v2_dma_edge(c, &w, erst, 0);
    kh_v2_unpack_edge(c, &w, erst);
    l1_edge(c, l1ra);
    l1_port_edge(c, &w);
    kh_v2_pack_edge(c, &w, erst);
    queues_edge(c, &w, &e);
    kh_v2_fe_edge(c, &w, 0);
    if (in->ld_en && !in->ld_kind) c->imem[imem_addr(c, in)] = (uint32_t)in->ld_data;
}

/* The lanes a beat's mask enables (a popcount without the library call
 * a build for any x86-64 makes of __builtin_popcount). */
static unsigned lanes_on(uint16_t m)
{
    unsigned v = m;
    v = v - ((v >> 1) & 0x5555u);
    v = (v & 0x3333u) + ((v >> 2) & 0x3333u);
    v = (v + (v >> 4)) & 0x0F0Fu;
    return (v + (v >> 8)) & 0x1Fu;
}

/* The RTL's measurement block: every engine's busy and stall cycles by cause. */
static void counters(v2_core *c, const v2_wires *w, const v2_dispatch *e)
{
    v2_counters *p = &c->pc;
    (void)e;
    p->busy++;
    if (c->ln.iss.v) {
        p->beats++;
        p->lanes += lanes_on(c->ln.iss.tm);
    }
    if (w->fe_ok) p->insns++;
    if (c->m_act) p->m_act++;
    else if (c->mq.count == 0) p->m_empty++;
    else if (w->h_sync) p->m_sync++;
    else p->m_haz++;
    /* uh_sync, ph_sync and p_haz each hold only with a queue head (walk.c):
     * no test of the queues' counts beside them */
    if (c->u_act) {
        p->u_act++;
        if (!w->u_room) p->u_room++;
    } else if (w->uh_sync) {
        p->u_sync++;
    }
    if (c->uf_count && !w->uf_pop) p->u_wbblk++;
    if (c->p_act) {
        p->p_act++;
        if (!w->p_room) p->p_room++;
    } else if (w->ph_sync) {
        p->p_sync++;
    } else if (w->p_haz) {
        p->p_haz++;
    }
    if (c->pf_count && !w->pf_pop) p->p_l1blk++;
    if (c->f_st != V2_E_IDLE) p->a_act++;
    if (c->d_st != V2_E_IDLE) p->a_dact++;
    if (c->fq.count && c->fq.e[c->fq.rp].sync && c->f_st == V2_E_IDLE) p->a_fsync++;
    if (c->dq.count && c->dq.e[c->dq.rp].sync && c->d_st == V2_E_IDLE) p->a_dsync++;
    if (w->dr_blk) p->a_drblk++;
    if (w->dr_want && !w->dr_gnt) p->a_drarb++;
    unsigned op = c->ir.op;
    if (c->d_v && !w->fe_ok) {
        int mq_f = c->mq.count == c->cfg.qd;
        if (op <= V2_O_EXP2D && mq_f) p->d_mq++;
        else if (op <= V2_O_EXP2D) p->d_sbm++;
        else if (op == V2_O_VUNPK && c->uq[w->d_q].count == c->cfg.qd) p->d_uq++;
        else if (op == V2_O_VUNPK) p->d_sbu++;
        else if (op == V2_O_VPACK) p->d_pq++;
        else if (op == V2_O_VFILL || op == V2_O_VDRAIN) p->d_aq++;
        else if (op == V2_O_VSETI) p->d_seti++;
        else p->d_fe++;
    }
    if (!c->d_v) p->d_idle++;
    if (w->redirect) p->redir++;
    p->l1_rd += (unsigned)w->u_rd + (unsigned)w->dr_gnt;
    p->l1_wr += (unsigned)c->l1_we[0] + (unsigned)c->l1_we[1];
    if (w->in->rr_valid) p->fill_words++;
    if (w->dr_take) p->drain_words++;
}
