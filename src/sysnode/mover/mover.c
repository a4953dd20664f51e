/* The mover's run engine (memory.md §11.3–§11.5, §11.8): GO checks, the
 * destination-driven walk of COPY / GATHER / GENERATE / FILL, read and
 * write burst formation, termination and faults. XFORM's walk is in
 * mover_xform.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysnode/fields.h"
#include "sysnode/mover/fillword.h"
#include "sysnode/mover/mover_int.h"
#include "sysnode/mover/philox.h"

#define PAGE_4K(a) ((a) >> 12) /* bursts never cross a 4 KB boundary (§11.8) */

static unsigned kh_mover_burst_cap(unsigned k)
{
    return k ? 1u << (k - 1) : 128; /* flags[7:5]: 0 = 128 beats, k = 2^(k-1) */
}

/* ---- walkers with the stale-element rule of Open point 10 ---- */

void kh_mover_walk_get(kh_mover *m, int dst, kh_walk_elem *e)
{
    kh_walk *w = dst ? &m->dw : &m->sw;
    kh_walk_elem *last = dst ? &m->ld : &m->ls;
    if (kh_walk_get(w, e)) {
        *last = *e;
        return;
    }
    /* The walk is shorter than the iteration: the RTL presents a stale
     * element; we repeat the last one and warn (Open point 10). */
    *e = *last;
    if (!m->warned_short) {
        m->warned_short = 1;
        kh_comp_log(&m->c, KH_LOG_WARN,
                    "the %s walk has fewer elements than the move iterates: the last element is "
                    "repeated (undefined, memory.md Open point 10)", dst ? "destination" : "source");
    }
}

/* ---- read side ---- */

void kh_mover_read_elem_close(kh_mover *m)
{
    if (!m->rb_open) return;
    kh_ring_push(&m->rbursts, &m->rb);
    m->rb_open = 0;
    m->progressed = 1;
}

/* A misaligned source word: the seeds say a misaligned descriptor faults
 * (instruction-encoding §4.4), so fault 6 stops the move here; the RTL
 * (rtl_compat) reads the aligned-down word instead (Open point 9). */
int kh_mover_source_misaligned(kh_mover *m, uint64_t saddr)
{
    if (!(saddr & 31) || m->n->p->rtl_compat) return 0;
    m->prod_fault = MF_ALIGN;
    m->prod_done = 1;
    return 1;
}

/* Give el a place in the read-beat stream; merge consecutive source words
 * into INCR bursts up to the cap, never across 4 KB (§11.8). */
void kh_mover_read_elem(kh_mover *m, mv_elem *el, uint64_t saddr)
{
    saddr &= ~(uint64_t)31; /* rtl_compat: the aligned-down word (Open point 9) */
    el->saddr = saddr;
    el->rseq = m->rseq_next++;
    if (m->rb_open && saddr == m->rb.addr + 32ull * m->rb.beats && m->rb.beats < m->rcap &&
        PAGE_4K(saddr) == PAGE_4K(m->rb.addr)) {
        m->rb.beats++;
        return;
    }
    kh_mover_read_elem_close(m);
    m->rb.addr = saddr;
    m->rb.beats = 1;
    m->rb_open = 1;
}

static void issue_reads(kh_mover *m, kh_cycle now)
{
    const kh_params *p = m->n->p;
    mv_burst *b = kh_ring_at(&m->rbursts, 0);
    if (!b || m->rd_out >= p->mover_rd_bursts || m->reserved + b->beats > p->mover_rd_fifo) return;
    /* FIFO space is reserved before the AR (§11.8) */
    kh_conv_read(m->rq, b->addr, b->beats, 0, 0, now);
    m->reserved += b->beats;
    m->rd_out++;
    m->rd_bursts++;
    kh_ring_pop(&m->rbursts);
    m->progressed = 1;
}

static void collect(kh_mover *m, kh_cycle now)
{
    const kh_conv_beat *b;
    uint64_t tag;
    while ((b = kh_conv_beat_head(m->rq, now))) {
        m->arrived++;
        if (kh_conv_beat_last(b)) m->rd_out--;
        kh_conv_beat_pop(m->rq);
        m->progressed = 1;
    }
    while (kh_conv_b_pop(m->rq, now, &tag)) {
        m->wr_out--;
        m->progressed = 1;
    }
    const kh_cycle *pb;
    while ((pb = kh_ring_at(&m->rposted, 0)) && *pb <= now) { /* remote bursts are answered locally (§14) */
        kh_ring_pop(&m->rposted);
        m->wr_out--;
        m->progressed = 1;
    }
}

void kh_mover_set_remote(kh_mover *m, const kh_mover_remote *r) { m->remote = *r; }

void kh_mover_remote_b(kh_mover *m, kh_cycle at)
{
    kh_ring_push(&m->rposted, &at);
    kh_comp_wake(&m->c, at);
}

int kh_mover_elem_arrived(const kh_mover *m, const mv_elem *el) { return m->arrived > el->rseq; }

/* The word a read element brings: memory as it is now, at retirement. */
void kh_mover_consume_read(kh_mover *m, const mv_elem *el, uint64_t out[4])
{
    if (!m->warned_overlap && el->saddr >= m->wlo && el->saddr < m->whi) {
        m->warned_overlap = 1; /* a read inside what this move already wrote */
        kh_comp_log(&m->c, KH_LOG_WARN,
                    "the move reads 0x%010llx inside the range it has written: overlapping source "
                    "and destination are undefined, simulated sequentially (memory.md §11.3, "
                    "Open point 11)", (unsigned long long)el->saddr);
    }
    kh_target t = kh_node_target(m->n, el->saddr);
    if (t == KH_TGT_LOST) memset(out, 0, 32); /* unreachable: such a beat never arrives */
    else kh_node_word_read(m->n, t, el->saddr, out);
    m->reserved--;
}

/* ---- write side ---- */

/* A closed write burst waits in one slot until fewer than mover_wr_bursts
 * writes are in flight. Returns 0 when the slot is taken. */
int kh_mover_push_write(kh_mover *m, uint64_t addr, unsigned beats, int remote)
{
    if (m->wcl_valid) return 0;
    m->wcl.addr = addr;
    m->wcl.beats = beats;
    m->wcl.remote = remote;
    m->wcl_valid = 1;
    m->progressed = 1;
    return 1;
}

static void close_wb(kh_mover *m)
{
    if (m->wb_open && kh_mover_push_write(m, m->wb.addr, m->wb.beats, m->wb.remote)) m->wb_open = 0;
}

static void issue_writes(kh_mover *m, kh_cycle now)
{
    if (!m->wcl_valid || m->wr_out >= m->n->p->mover_wr_bursts) return;
    if (m->wcl.remote) {
        /* The interlink's splitter: one posted MEM_WR per word; the burst is
         * answered once its last word is on the link (memory.md §14). */
        for (unsigned i = 0; i < m->wcl.beats; i++) {
            const mv_rword *w = kh_ring_at(&m->rwords, 0);
            m->remote.word(m->remote.ctx, w->addr, w->d, i + 1 == m->wcl.beats, now);
            kh_ring_pop(&m->rwords);
        }
    } else {
        /* timing only: the data was stored when its element retired */
        kh_conv_write(m->rq, m->wcl.addr, m->wcl.beats, 0, NULL, now);
    }
    m->wr_out++;
    m->wr_bursts++;
    m->wcl_valid = 0;
    m->progressed = 1;
}

int kh_mover_store(kh_mover *m, uint64_t addr, const uint64_t w[4], kh_cycle now)
{
    if (m->remote.is_remote && m->remote.is_remote(m->remote.ctx, addr, now)) {
        mv_rword r = {.addr = addr & ~(uint64_t)31};
        memcpy(r.d, w, sizeof r.d);
        kh_ring_push(&m->rwords, &r);
        return 1;
    }
    kh_target t = kh_node_target(m->n, addr);
    addr &= ~(uint64_t)31;
    if (addr < m->wlo) m->wlo = addr;
    if (addr + 32 > m->whi) m->whi = addr + 32;
    if (t != KH_TGT_LOST) kh_node_word_write(m->n, t, addr, w);
    return 0;
}

/* Add one destination word to the open write burst (flags[3] merges words
 * of the same kind; GENERATE words never merge, §11.8). */
static void add_write(kh_mover *m, uint64_t addr, int cls, int remote)
{
    if (m->wb_open && m->rcoalesce && cls != WC_GEN && cls == m->wb_cls && remote == m->wb.remote &&
        addr == m->wb.addr + 32ull * m->wb.beats && m->wb.beats < m->rcap &&
        PAGE_4K(addr) == PAGE_4K(m->wb.addr)) {
        m->wb.beats++;
    } else {
        close_wb(m);
        m->wb.addr = addr;
        m->wb.beats = 1;
        m->wb.remote = remote;
        m->wb_cls = cls;
        m->wb_open = 1;
    }
    if (!m->rcoalesce || cls == WC_GEN) close_wb(m);
}

/* Retire the oldest element if its data is resident. 1 if one retired. */
static int retire(kh_mover *m, kh_cycle now)
{
    mv_elem *el = kh_ring_at(&m->elems, 0);
    if (!el || m->wcl_valid) return 0;
    uint64_t w[4];
    int cls;
    switch (el->kind) {
    case EK_SKIP:
        kh_ring_pop(&m->elems);
        return 1;
    case EK_READ:
        if (!kh_mover_elem_arrived(m, el)) return 0;
        kh_mover_consume_read(m, el, w);
        cls = WC_READ;
        break;
    case EK_GEN:
        kh_mover_gen_word(el->daddr, m->seed, w);
        cls = WC_GEN;
        break;
    default:
        kh_mover_fill_word(m->imm, m->rewidth, w);
        cls = WC_FILL;
        break;
    }
    int remote = kh_mover_store(m, el->daddr, w, now);
    add_write(m, el->daddr, cls, remote);
    m->elems_done++;
    kh_ring_pop(&m->elems);
    return 1;
}

/* ---- producer: the destination walk (§11.3) ---- */

static void produce(kh_mover *m)
{
    if (m->prod_done || kh_ring_count(&m->elems) >= m->elems_cap) {
        kh_mover_read_elem_close(m); /* nothing more joins the open burst this cycle */
        return;
    }
    kh_walk_elem d, s;
    if (!kh_walk_get(&m->dw, &d)) {
        m->prod_done = 1;
        kh_mover_read_elem_close(m);
        return;
    }
    if (m->rmode == MV_COPY) kh_mover_walk_get(m, 0, &s); /* only COPY reads the source walk */
    else s.valid = 0;
    mv_elem el = {.kind = EK_SKIP, .daddr = d.addr};
    uint64_t e = m->e;
    if (!d.valid) {
        el.kind = EK_SKIP;                 /* 1: no read, no write */
    } else if (d.misaligned) {
        m->prod_fault = MF_ALIGN;          /* 2: fault 6, the move stops here */
        m->prod_done = 1;
        kh_mover_read_elem_close(m);
        return;
    } else if (m->rmode == MV_FILL) {
        el.kind = EK_FILL;                 /* 3 */
    } else if (m->rmode == MV_GENERATE) {
        el.kind = EK_GEN;                  /* 4 */
    } else if (m->rmode == MV_GATHER || s.valid) {
        uint64_t sa = m->rmode == MV_GATHER ? kh_gather_addr(&m->gbuf, m->walk[0].base, m->pitch, m->gwords, e)
                                            : s.addr; /* 5 / 6 */
        if (kh_mover_source_misaligned(m, sa)) {
            kh_mover_read_elem_close(m);
            return;
        }
        el.kind = EK_READ;
        kh_mover_read_elem(m, &el, sa);
    } else {
        el.kind = EK_FILL;                 /* 7: source padding */
    }
    if (!kh_ring_push(&m->elems, &el) && m->elems_tracked) kh_mover_elem_pushed(m, el.daddr);
    m->e++;
    m->progressed = 1;
    kh_walk_step(&m->dw);
    kh_walk_step(&m->sw);
    if (!kh_walk_get(&m->dw, &d)) {
        m->prod_done = 1;
        kh_mover_read_elem_close(m);
    }
}

/* ---- GATHER index load (§11.5) ---- */

static void idx_load_start(kh_mover *m)
{
    m->idx_phase = 1;
    m->idx_words = kh_gather_load_words(m->idx_count);
    for (uint64_t i = 0; i < m->idx_words; i++) {
        mv_elem el = {0};
        kh_mover_read_elem(m, &el, m->idx_base + 32 * i);
    }
    kh_mover_read_elem_close(m);
}

static void idx_load_finish(kh_mover *m)
{
    if (m->arrived < m->idx_words) return;
    for (uint64_t i = 0; i < m->idx_words; i++) {
        mv_elem el = {.saddr = (m->idx_base + 32 * i) & ~(uint64_t)31};
        kh_mover_consume_read(m, &el, m->gbuf.w[i]);
    }
    m->idx_phase = 0;
    m->progressed = 1;
}

/* ---- GO (§11.4) ---- */

void kh_mover_go(kh_mover *m, kh_cycle now)
{
    unsigned fault = MF_NONE;
    if (m->ewidth == 3) fault = MF_EWIDTH;                                  /* 1 */
    else if (m->mode == MV_TRANSPOSE) fault = MF_MODE;                      /* 2 */
    else if (m->mode == MV_GATHER && m->idx_count > KH_GATHER_MAX_IDX) fault = MF_IDX_LEN; /* 3 */
    if (fault) {
        m->faults++;
        kh_mover_set_status(m, now, 0, fault, m->done);
        kh_comp_log(&m->c, KH_LOG_INFO, "GO refused with fault %u (memory.md §11.4)", fault);
        return;
    }
    m->rmode = m->mode;
    if (m->rmode > MV_XFORM) {
        kh_comp_log(&m->c, KH_LOG_WARN, "mode %u is undefined: run as COPY like the RTL (memory.md Open point 9)",
                    m->rmode);
        m->rmode = MV_COPY;
    }
    m->rewidth = m->ewidth;
    m->rcoalesce = km_ctrl_coalesce(m->ctrl);
    m->rcap = kh_mover_burst_cap(km_ctrl_burst(m->ctrl));
    kh_walk_start(&m->sw, &m->walk[0]);
    kh_walk_start(&m->dw, &m->walk[1]);
    memset(&m->ls, 0, sizeof m->ls);
    memset(&m->ld, 0, sizeof m->ld);
    m->warned_short = 0;
    m->wlo = UINT64_MAX;
    m->whi = 0;
    m->warned_overlap = 0;
    m->e = 0;
    m->prod_done = 0;
    m->prod_fault = MF_NONE;
    m->rseq_next = m->arrived = 0;
    m->xgot = 0;
    m->xbusy = 0;
    m->fault_entry = UINT64_MAX;
    m->moves++;
    m->go_at = now;
    kh_mover_set_status(m, now, 1, MF_NONE, m->done); /* the fault clears at an accepted GO */
    if (m->rmode == MV_XFORM) {
        int unknown;
        m->occ = kh_xform_pick(m->n, m->xform_id, &unknown);
        m->in_beats = m->occ->in_bits / 256;
    }
    if (m->rmode == MV_GATHER) idx_load_start(m);
}

static void finish(kh_mover *m, kh_cycle now)
{
    int idle = m->prod_done && !kh_ring_count(&m->elems) && !m->rb_open && !kh_ring_count(&m->rbursts) &&
               !m->rd_out && !m->wb_open && !m->wcl_valid && !m->wr_out && !m->xbusy && !m->idx_phase;
    if (!idle || (m->rmode == MV_XFORM && m->xgot && !m->prod_fault)) return;
    m->busy_cycles += now + 1 - m->go_at;
    if (kh_sim_trace(m->c.sim)) {
        char args[96];
        snprintf(args, sizeof args, "\"mode\": %u, \"elements\": %llu, \"fault\": %u", m->rmode,
                 (unsigned long long)m->e, m->prod_fault);
        kh_trace_span(&m->c, "move", m->go_at, now + 1, args);
    }
    if (m->prod_fault) {
        m->faults++;
        kh_mover_set_status(m, now, 0, m->prod_fault, m->done);
    } else {
        kh_mover_set_status(m, now, 0, MF_NONE, m->done + 1);
    }
    m->progressed = 1;
}

static void mover_step(kh_comp *c, kh_cycle now)
{
    kh_mover *m = (kh_mover *)c;
    m->progressed = 0;
    collect(m, now);
    kh_mover_apply_writes(m, now);
    if (m->running) {
        issue_writes(m, now);
        if (m->idx_phase) {
            idx_load_finish(m);
        } else if (m->rmode == MV_XFORM) {
            if (kh_mover_xform_retire(m, now)) m->progressed = 1;
            else close_wb(m);
            kh_mover_xform_produce(m, now);
        } else {
            if (retire(m, now)) m->progressed = 1;
            else close_wb(m); /* nothing more is resident now: the burst goes */
            produce(m);
        }
        issue_reads(m, now);
        finish(m, now);
    }
    if (m->progressed) kh_comp_wake(c, now + 1);
    kh_cycle t = kh_conv_next_answer(m->rq);
    const kh_cycle *rb = kh_ring_at(&m->rposted, 0);
    if (rb && *rb < t) t = *rb;
    const mv_regw *w = kh_ring_at(&m->regw, 0);
    if (w && w->at < t) t = w->at;
    if (m->xbusy && m->xdone_at < t) t = m->xdone_at;
    if (t > now && t != KH_NEVER) kh_comp_wake(c, t);
}

static int mover_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_mover *m = (kh_mover *)c;
    size_t used = 0;
    if (len) buf[0] = '\0';
    if (!m->running) return 0;
    if (m->rmode == MV_XFORM && m->prod_done && !m->prod_fault && m->xgot)
        kh_node_say(buf, len, &used,
                    "XFORM source walk ended after %llu words, not a multiple of IN_BEATS = %u: the "
                    "partial entry never completes and the mover stays busy (memory.md §11.6)",
                    (unsigned long long)m->e, m->in_beats);
    kh_node_say(buf, len, &used,
                "mode %u move busy after %llu elements: %llu read beats and %u write responses "
                "outstanding, %llu elements waiting (memory.md §11.4: busy until everything retires)",
                m->rmode, (unsigned long long)m->elems_done, (unsigned long long)(m->rseq_next - m->arrived),
                m->wr_out, (unsigned long long)kh_ring_count(&m->elems));
    return 1;
}

static void mover_stats(kh_comp *c, char *buf, size_t len)
{
    kh_mover *m = (kh_mover *)c;
    snprintf(buf, len,
             "\"moves\": %llu, \"faults\": %llu, \"elements\": %llu, \"read_bursts\": %llu, "
             "\"write_bursts\": %llu, \"busy_cycles\": %llu, \"xform_entries\": %llu, \"xform_cycles\": %llu",
             (unsigned long long)m->moves, (unsigned long long)m->faults, (unsigned long long)m->elems_done,
             (unsigned long long)m->rd_bursts, (unsigned long long)m->wr_bursts,
             (unsigned long long)m->busy_cycles, (unsigned long long)m->xform_entries,
             (unsigned long long)m->xform_cycles);
}

static void mover_destroy(kh_comp *c)
{
    kh_mover *m = (kh_mover *)c;
    kh_ring_free(&m->regw);
    kh_ring_free(&m->elems);
    kh_ring_free(&m->rbursts);
    kh_ring_free(&m->rwords);
    kh_ring_free(&m->rposted);
    free(m);
}

static const kh_comp_ops mover_ops = {
    .kind = "mover",
    .ckpt = kh_mover_ckpt,
    .step = mover_step,
    .describe_stuck = mover_stuck,
    .stats_json = mover_stats,
    .destroy = mover_destroy,
};

kh_mover *kh_mover_new(kh_node *n)
{
    kh_mover *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->n = n;
    kh_ring_init(&m->regw, sizeof(mv_regw));
    kh_ring_init(&m->elems, sizeof(mv_elem));
    kh_ring_init(&m->rbursts, sizeof(mv_burst));
    kh_ring_init(&m->rwords, sizeof(mv_rword));
    kh_ring_init(&m->rposted, sizeof(kh_cycle));
    m->elems_cap = (unsigned)n->p->mover_rd_fifo + 256;
    m->chg_cycle = KH_NEVER;
    kh_mover_regs_reset(m);
    char name[48];
    snprintf(name, sizeof name, "mover(mesh %u)", n->cfg.mesh_id);
    kh_sim_add(n->sim, &m->c, &mover_ops, name);
    m->rq = kh_conv_requester(n->conv, n->cfg.nports + 1, &m->c, name);
    return m;
}
