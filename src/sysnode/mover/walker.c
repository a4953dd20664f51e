#include "sysnode/mover/walker.h"

#include "kohaku/addr.h"

#include <string.h>


void kh_walk_desc_reset(kh_walk_desc *d)
{
    memset(d, 0, sizeof *d);
    d->ndim = 1;
}

/* Number of live dimensions (ndim clamped to 6). */
static unsigned kh_walk_live(const kh_walk_desc *d) { return d->ndim >= KH_WALK_DIMS ? KH_WALK_DIMS : d->ndim; }

static uint32_t count_of(const kh_walk_dim *dm) { return dm->count ? dm->count : 1; }

void kh_walk_start(kh_walk *w, const kh_walk_desc *d)
{
    memset(w, 0, sizeof *w);
    w->d = d;
}

static int32_t as_s16(uint32_t v)
{
    v &= 0xFFFF;
    return v >= 0x8000 ? (int32_t)v - 0x10000 : (int32_t)v;
}

int kh_walk_get(const kh_walk *w, kh_walk_elem *e)
{
    if (w->done) return 0;
    const kh_walk_desc *d = w->d;
    unsigned live = kh_walk_live(d);
    uint32_t off = 0, val[2] = {(uint16_t)d->bound[0].base, (uint16_t)d->bound[1].base};
    int last = 1;
    for (unsigned i = 0; i < live; i++) {
        const kh_walk_dim *dm = &d->dim[i];
        uint32_t ix = w->idx[i];
        off += ix * (uint32_t)dm->stride; /* each product and the sum wrap at 32 bits */
        if (dm->axis == 1 || dm->axis == 2) val[dm->axis - 1] += ix * (uint32_t)(uint16_t)dm->astep;
        if (ix + 1 < count_of(dm)) last = 0;
    }
    int64_t soff = off >= UINT32_C(0x80000000) ? (int64_t)off - (INT64_C(1) << 32) : (int64_t)off;
    e->addr = kh_addr_wrap(d->base + (uint64_t)soff);
    e->valid = 1;
    for (unsigned a = 0; a < 2; a++) {
        if (!d->bound[a].ext) continue;
        int32_t v = as_s16(val[a]);
        if (v < 0 || v >= (int32_t)d->bound[a].ext) e->valid = 0;
    }
    e->misaligned = (e->addr & 31) != 0;
    e->last = last;
    return 1;
}

void kh_walk_step(kh_walk *w)
{
    if (w->done) return;
    unsigned live = kh_walk_live(w->d);
    for (unsigned k = live; k-- > 0;) {
        if (++w->idx[k] < count_of(&w->d->dim[k])) return;
        w->idx[k] = 0;
    }
    w->done = 1; /* every live dimension wrapped (or none is live) */
}
