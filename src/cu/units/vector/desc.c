/* Address descriptors and the walk (vector.md §3). */
#include "kohaku/addr.h"
#include "kohaku/gen/vector.h"

#include "cu/units/vector/vec.h"


void kh_vec_desc_reset(vec_desc *d)
{
    d->base = 0;
    for (int k = 0; k < 4; k++) {
        d->stride[k] = 0;
        d->bound[k] = 1; /* reset value (§2) */
    }
}

void kh_vec_desc_set_dim(vec_desc *d, unsigned dim, int32_t stride, uint32_t bound)
{
    d->stride[dim] = stride;
    d->bound[dim] = bound;
}

static uint32_t eff_bound(uint32_t b) { return b ? b : 1; } /* bound 0 reads as 1 (§3) */

static uint32_t sat_mul(uint32_t a, uint32_t b)
{
    uint64_t p = (uint64_t)a * b;
    return p > 65535 ? 65535 : (uint32_t)p;
}

uint32_t kh_vec_desc_total(const vec_desc *d)
{
    uint32_t lo = sat_mul(eff_bound(d->bound[0]), eff_bound(d->bound[1]));
    uint32_t hi = sat_mul(eff_bound(d->bound[2]), eff_bound(d->bound[3]));
    return sat_mul(lo, hi);
}

void kh_vec_walk_init(vec_walk *w, const vec_desc *d, int64_t off)
{
    w->start = kh_addr_wrap(d->base + (uint64_t)off) /* walks wrap in 40 bits (§3) */;
    for (int k = 0; k < 4; k++) {
        w->stride[k] = d->stride[k];
        w->bound[k] = eff_bound(d->bound[k]);
        w->i[k] = 0;
    }
}

uint64_t kh_vec_walk_addr(const vec_walk *w)
{
    uint64_t a = w->start;
    for (int k = 0; k < 4; k++) a += (uint64_t)((int64_t)w->i[k] * w->stride[k]);
    return kh_addr_wrap(a);
}

void kh_vec_walk_step(vec_walk *w)
{
    uint32_t nxt[4];
    for (int k = 0; k < 4; k++) nxt[k] = w->i[k];
    for (int k = 0; k < 4; k++) {
        if (++nxt[k] < w->bound[k]) {
            for (int j = 0; j < 4; j++) w->i[j] = nxt[j];
            return;
        }
        nxt[k] = 0;
    }
    /* past the last tuple: the address stays at the last tuple (§3) */
}

void kh_vec_peer_rec_decode(uint64_t base, vec_peer_rec *r)
{
    const uint64_t w[1] = {base};
    r->offset = (unsigned)kh_vec_peer_offset(w);
    r->ack_x = (unsigned)kh_vec_peer_ack_x(w);
    r->ack_y = (unsigned)kh_vec_peer_ack_y(w);
    r->mesh = (unsigned)kh_vec_peer_mesh(w);
    r->fin_x = (unsigned)kh_vec_peer_fin_x(w);
    r->fin_y = (unsigned)kh_vec_peer_fin_y(w);
}
