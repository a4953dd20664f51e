/* XFORM (memory.md §11.6, §12): the source walk defines the iteration,
 * IN_BEATS source words make an entry, the destination walker steps once
 * per entry, and the occupant's OUT_WORDS words go out as one burst. */
#include "sysnode/mover/mover_int.h"

static void stop(kh_mover *m, unsigned fault, uint64_t entry)
{
    m->prod_fault = fault;
    m->fault_entry = entry; /* this entry and later ones are never written */
    m->prod_done = 1;
}

void kh_mover_xform_produce(kh_mover *m, kh_cycle now)
{
    (void)now;
    kh_walk_elem s, d;
    if (m->prod_done || kh_ring_count(&m->elems) >= m->elems_cap) {
        kh_mover_read_elem_close(m); /* nothing more joins the open read burst this cycle */
        return;
    }
    if (!kh_walk_get(&m->sw, &s)) {
        m->prod_done = 1;
        kh_mover_read_elem_close(m);
        return;
    }
    uint64_t k = m->e / m->in_beats;
    if (m->e % m->in_beats == 0) {
        if (k > 0) kh_walk_step(&m->dw);
        kh_mover_walk_get(m, 1, &d);
        if (d.misaligned) {              /* destination entry misaligned: fault 6 */
            stop(m, MF_ALIGN, k);
            kh_mover_read_elem_close(m);
            return;
        }
        if (!d.valid) {                  /* destination bound axis: fault 7 (Open point 8) */
            stop(m, MF_BOUND, k);
            kh_mover_read_elem_close(m);
            return;
        }
        m->pdst = d.addr;
    }
    if (!s.valid) {                      /* a padded source word: fault 7 */
        stop(m, MF_BOUND, k);
        kh_mover_read_elem_close(m);
        return;
    }
    if (kh_mover_source_misaligned(m, s.addr)) {
        m->fault_entry = k;
        kh_mover_read_elem_close(m);
        return;
    }
    mv_elem el = {.kind = EK_XBEAT, .daddr = m->pdst, .entry = k};
    kh_mover_read_elem(m, &el, s.addr);
    if (!kh_ring_push(&m->elems, &el) && m->elems_tracked) kh_mover_elem_pushed(m, el.daddr);
    m->e++;
    m->progressed = 1;
    kh_walk_step(&m->sw);
    if (!kh_walk_get(&m->sw, &s)) {
        m->prod_done = 1;
        kh_mover_read_elem_close(m);
    }
}

int kh_mover_xform_retire(kh_mover *m, kh_cycle now)
{
    kh_node *n = m->n;
    if (m->xgot && m->xentry >= m->fault_entry) m->xgot = 0; /* the partial entry is discarded (Open point 7) */
    if (m->xbusy) {
        if (now < m->xdone_at || m->wcl_valid) return 0;
        int remote = 0;
        for (unsigned w = 0; w < m->occ->out_words; w++)
            remote = kh_mover_store(m, m->xdst + 32ull * w, &m->xout[4 * w], now); /* one mesh per entry */
        kh_mover_push_write(m, m->xdst, m->occ->out_words, remote);
        m->xbusy = 0;
        return 1;
    }
    mv_elem *el = kh_ring_at(&m->elems, 0);
    if (!el || !kh_mover_elem_arrived(m, el)) return 0;
    uint64_t w[4];
    kh_mover_consume_read(m, el, w);
    mv_elem e = *el;
    kh_ring_pop(&m->elems);
    m->elems_done++;
    if (e.entry >= m->fault_entry) return 1; /* drained, not converted */
    if (m->xgot == 0) {
        int unknown;
        kh_xform_pick(n, m->xform_id, &unknown);
        if (unknown) n->bank_fault |= 1; /* an entry started with an id that names no occupant (§12) */
        m->xentry = e.entry;
    }
    for (int j = 0; j < 4; j++) m->xin[4 * m->xgot + j] = w[j];
    if (++m->xgot < m->in_beats) return 1;
    /* the whole entry is in: the occupant answers after its latency */
    m->occ->convert(m->xin, m->xform_mode, m->xout);
    m->xdst = e.daddr;
    m->xbusy = 1;
    m->xdone_at = now + (m->occ->latency ? m->occ->latency(n->p) : 1);
    m->xform_entries++;
    m->xform_cycles += m->xdone_at - now;
    m->xgot = 0;
    return 1;
}
