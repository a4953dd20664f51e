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

/* an XFORM entry writes up to all of xout's words from its D_k on */
#define TAIL (32 * (int64_t)(sizeof ((kh_mover *)0)->xout / sizeof ((kh_mover *)0)->xout[0] / 4))

/* The mesh an element writing from daddr (up to TAIL bytes on) lies in
 * whole, unwrapped; KH_MV_NO_MESH if none. */
static unsigned elem_mesh(uint64_t daddr)
{
    uint64_t u = daddr;
    unsigned mesh = (unsigned)kh_addr_mesh(&u);
    return in_mesh((int64_t)daddr, mesh) && in_mesh((int64_t)daddr + TAIL, mesh) ? mesh : KH_MV_NO_MESH;
}

/* At every push while tracked, so that an agreement reads the ring's
 * meshes in O(1): the newest elems_run pushes all lie in elems_mesh (pops
 * take the oldest, so the ring's elements are all in it while elems_run
 * >= its count). */
void kh_mover_elem_pushed(kh_mover *m, uint64_t daddr)
{
    unsigned mesh = elem_mesh(daddr);
    if (m->elems_run && m->elems_mesh == mesh) {
        m->elems_run++;
    } else {
        m->elems_mesh = mesh;
        m->elems_run = 1;
    }
}

/* The run made again from the ring's elements (the first reading, a
 * restored checkpoint); kept from here on. */
void kh_mover_elems_recount(kh_mover *m)
{
    m->elems_tracked = 1;
    m->elems_run = 0;
    for (size_t i = 0; i < kh_ring_count(&m->elems); i++)
        kh_mover_elem_pushed(m, ((const mv_elem *)kh_ring_at(&m->elems, i))->daddr);
}

int kh_mover_stays_local(const kh_mover *m, unsigned mesh)
{
    if (kh_ring_count(&m->rwords) || kh_ring_count(&m->regw)) return 0;
    if ((m->wb_open && m->wb.remote) || (m->wcl_valid && m->wcl.remote)) return 0;
    int busy = m->running || kh_ring_count(&m->elems) || m->xbusy || m->wb_open || m->wcl_valid;
    if (!busy) return 1;
    int64_t tail = TAIL;
    int64_t lo, hi;
    if (!walk_span(&m->walk[1], m->running ? m->dw.idx : NULL, &lo, &hi)) return 0;
    hi += tail;
    uint64_t step = 0;
    kh_addr_set_mesh(&step, 1); /* the span of one mesh value: a wider range could pass through another */
    if (hi - lo >= (int64_t)step || !in_mesh(lo, mesh) || !in_mesh(hi, mesh)) return 0;
    /* elements produced before a register write changed the walk: each
     * lies in `mesh` whole (elem_mesh; the caller tracks them first,
     * kh_node_busy_stays_local, else the ring is walked) */
    size_t n = kh_ring_count(&m->elems);
    if (m->elems_tracked) {
        if (n && (m->elems_mesh != mesh || m->elems_run < n)) return 0;
    } else {
        for (size_t i = 0; i < n; i++)
            if (elem_mesh(((const mv_elem *)kh_ring_at(&m->elems, i))->daddr) != mesh) return 0;
    }
    if (m->xbusy && (!in_mesh((int64_t)m->xdst, mesh) || !in_mesh((int64_t)m->xdst + tail, mesh))) return 0;
    /* an XFORM entry's remaining beats go to the D_k taken at its first,
     * whatever the walk's registers say since */
    if (m->running && m->in_beats && m->e % m->in_beats &&
        (!in_mesh((int64_t)m->pdst, mesh) || !in_mesh((int64_t)m->pdst + tail, mesh)))
        return 0;
    return 1;
}
