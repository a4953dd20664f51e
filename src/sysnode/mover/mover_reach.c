/* Whether the mover can still hand anything to the interlink (docs/mpi.md
 * "Lane promises"): its remote words go there (kh_mover_store), so it
 * cannot while no remote word or burst is held, no register write is
 * queued (a GO could start another walk), and every address the
 * destination walk can still name lies in mesh `mesh`. Conservative: the
 * bound covers the whole walk, taken or not; only reads. */
#include "sysnode/mover/mover_int.h"

#include "kohaku/addr.h"

/* Every byte address of desc d lies in [*lo, *hi]; 0 if the offsets can
 * wrap at 32 bits (walker.c sums them in 32 bits, then sign-extends).
 * pos: the walker's odometer when one walks d (else NULL); a register write
 * during the move can leave an index at or past a smaller count, or a
 * stale one under a larger ndim, and the walk names it before it wraps. */
static int walk_span(const kh_walk_desc *d, const uint32_t *pos, int64_t *lo, int64_t *hi)
{
    unsigned live = d->ndim >= KH_WALK_DIMS ? KH_WALK_DIMS : d->ndim;
    int64_t a = 0, b = 0;
    for (unsigned i = 0; i < live; i++) {
        int64_t top = (int64_t)(d->dim[i].count ? d->dim[i].count : 1) - 1;
        if (pos && pos[i] > top) top = pos[i];
        int64_t far = top * d->dim[i].stride;
        if (far < 0) a += far;
        else b += far;
    }
    if (a < -(INT64_C(1) << 31) || b >= INT64_C(1) << 31) return 0;
    *lo = (int64_t)d->base + a;
    *hi = (int64_t)d->base + b;
    return 1;
}

/* a in mesh `mesh`, not wrapped */
static int in_mesh(int64_t a, unsigned mesh)
{
    uint64_t u = (uint64_t)a;
    return a >= 0 && kh_addr_wrap(u) == u && kh_addr_mesh(&u) == mesh;
}

int kh_mover_stays_local(const kh_mover *m, unsigned mesh)
{
    if (kh_ring_count(&m->rwords) || kh_ring_count(&m->regw)) return 0;
    if ((m->wb_open && m->wb.remote) || (m->wcl_valid && m->wcl.remote)) return 0;
    int busy = m->running || kh_ring_count(&m->elems) || m->xbusy || m->wb_open || m->wcl_valid;
    if (!busy) return 1;
    /* an XFORM entry writes up to all of xout's words from its D_k on */
    int64_t tail = 32 * (int64_t)(sizeof m->xout / sizeof m->xout[0] / 4);
    int64_t lo, hi;
    if (!walk_span(&m->walk[1], m->running ? m->dw.idx : NULL, &lo, &hi)) return 0;
    hi += tail;
    uint64_t step = 0;
    kh_addr_set_mesh(&step, 1); /* the span of one mesh value: a wider range could pass through another */
    if (hi - lo >= (int64_t)step || !in_mesh(lo, mesh) || !in_mesh(hi, mesh)) return 0;
    /* elements produced before a register write changed the walk */
    for (size_t i = 0; i < kh_ring_count(&m->elems); i++) {
        const mv_elem *e = kh_ring_at(&m->elems, i);
        if (!in_mesh((int64_t)e->daddr, mesh) || !in_mesh((int64_t)e->daddr + tail, mesh)) return 0;
    }
    if (m->xbusy && (!in_mesh((int64_t)m->xdst, mesh) || !in_mesh((int64_t)m->xdst + tail, mesh))) return 0;
    /* an XFORM entry's remaining beats go to the D_k taken at its first,
     * whatever the walk's registers say since */
    if (m->running && m->in_beats && m->e % m->in_beats &&
        (!in_mesh((int64_t)m->pdst, mesh) || !in_mesh((int64_t)m->pdst + tail, mesh)))
        return 0;
    return 1;
}
