/* Lanes across processes (docs/mpi.md): when the two ends of a link are
 * stepped by different processes, each keeps a replica of both lanes. The
 * sender's process pushes flits onto its replica of the lane and the
 * receiver's process pops them from its own, so at each window boundary
 * what one side put on a lane (flits sent, credits returned) is taken off
 * its replica and put on the other's. Every entry carries the cycle it
 * becomes visible, at least ilink_lat after it was put there, so a window
 * no longer than ilink_lat never needs an entry before it is delivered. */
#include <stdlib.h>
#include <string.h>

#include "sysnode/ilink/ilink_int.h"

typedef struct xfer_head {
    uint32_t nq[2], ncrd; /* flits per class on the out lane, credits on the in lane */
} xfer_head;

static int append(uint8_t **buf, size_t *len, size_t *cap, const void *p, size_t n)
{
    if (*len + n > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < *len + n) c *= 2;
        uint8_t *b = realloc(*buf, c);
        if (!b) return -1;
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, p, n);
    *len += n;
    return 0;
}

static void earliest(kh_cycle *first, kh_cycle at)
{
    if (at < *first) *first = at;
}

int kh_node_ilink_export(kh_node *n, unsigned link, uint8_t **buf, size_t *len, size_t *cap, kh_cycle *first)
{
    kh_ilink *il = n->ilink;
    il_lane *out = il && link < 2 ? il->link[link].out : NULL, *in = out ? il->link[link].in : NULL;
    if (!out) return 0;
    xfer_head h = {{(uint32_t)kh_ring_count(&out->q[0]), (uint32_t)kh_ring_count(&out->q[1])},
                   (uint32_t)kh_ring_count(&in->crd)};
    if (!h.nq[0] && !h.nq[1] && !h.ncrd) return 0;
    if (append(buf, len, cap, &h, sizeof h)) return -1;
    for (unsigned c = 0; c < 2; c++)
        for (; kh_ring_count(&out->q[c]); kh_ring_pop(&out->q[c])) {
            const il_wflit *w = kh_ring_at(&out->q[c], 0);
            earliest(first, w->at);
            if (append(buf, len, cap, w, sizeof *w)) return -1;
        }
    for (; kh_ring_count(&in->crd); kh_ring_pop(&in->crd)) {
        const il_credit *cr = kh_ring_at(&in->crd, 0);
        earliest(first, cr->at);
        if (append(buf, len, cap, cr, sizeof *cr)) return -1;
    }
    return 1;
}

int kh_node_ilink_import(kh_node *n, unsigned link, const uint8_t *buf, size_t len)
{
    kh_ilink *il = n->ilink;
    il_lane *out = il && link < 2 ? il->link[link].out : NULL, *in = out ? il->link[link].in : NULL;
    xfer_head h;
    if (!out || len < sizeof h) return -1;
    memcpy(&h, buf, sizeof h);
    size_t need = sizeof h + ((size_t)h.nq[0] + h.nq[1]) * sizeof(il_wflit) + (size_t)h.ncrd * sizeof(il_credit);
    if (need != len) return -1;
    const uint8_t *p = buf + sizeof h;
    /* the peer's flits arrive on our in lane, its credits on our out lane */
    for (unsigned c = 0; c < 2; c++)
        for (uint32_t i = 0; i < h.nq[c]; i++, p += sizeof(il_wflit)) {
            il_wflit w;
            memcpy(&w, p, sizeof w);
            if (kh_ring_push(&in->q[c], &w)) return -1;
            kh_comp_wake(&il->c, w.at);
        }
    for (uint32_t i = 0; i < h.ncrd; i++, p += sizeof(il_credit)) {
        il_credit cr;
        memcpy(&cr, p, sizeof cr);
        if (kh_ring_push(&out->crd, &cr)) return -1;
        kh_comp_wake(&il->c, cr.at);
    }
    return 0;
}
