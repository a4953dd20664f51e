/* CU_DATA reception into L1 (vector.md §1.4; flits.md §4.7; control.md §5.8)
 * and the dispatch of every inbound flit the shell passes on. */
#include <stdio.h>

#include "cu/units/vector/vec.h"

#define VEC_BUF 0 /* the one flat buffer this core accepts (§1.4) */

static void latch_fault(vec_core *c, const char *why)
{
    c->cudata_fault = 1;
    kh_vec_core_log(c, KH_LOG_WARN, "CU_DATA %s: F_CUDATA latched, reported at the next RUN start "
                                 "or instruction fetch (vector.md §1.4)", why);
}

static int vec_cudata_recv(vec_core *c, const kh_flit *f, kh_cycle now)
{
    vec_rx *rx = &c->rx;
    unsigned sx = kh_vec_flit_src_x(f), sy = kh_vec_flit_src_y(f);
    if (!rx->open) { /* a descriptor */
        vec_cudata_desc d;
        kh_vec_flit_cudata_desc(f, &d);
        rx->open = 1;
        rx->accepted = d.buf == VEC_BUF && d.offset + d.len < VEC_L1; /* no 16-bit wrap */
        rx->remaining = d.len + 1;
        rx->next = 0;
        rx->off = d.offset;
        rx->buf = d.buf;
        rx->signal = d.flags & 1u;
        rx->ack_x = d.ack_x;
        rx->ack_y = d.ack_y;
        rx->src_x = sx;
        rx->src_y = sy;
        if (!rx->accepted) {
            char why[96];
            snprintf(why, sizeof why, "burst to buffer %u offset %u len %u rejected (buffer 0, "
                     "offset + len < 512)", d.buf, d.offset, d.len);
            latch_fault(c, why);
        }
        return 1;
    }
    if (sx != rx->src_x || sy != rx->src_y) { /* interleaved: drop the rest of the burst */
        rx->open = 0;
        latch_fault(c, "data flit from another source inside an open burst");
        return 1;
    }
    int final = rx->remaining == 1;
    if (final && rx->accepted && rx->signal && c->q.n >= VEC_OUTQ)
        return 0; /* no room for DATA_RECEIVED yet: the send path frees it */
    if (rx->accepted) {
        uint64_t *w = c->st.l1[(rx->off + rx->next) % VEC_L1];
        for (int k = 0; k < 4; k++) w[k] = f->w[k];
        c->stats.cudata_words++;
    }
    rx->next++;
    rx->remaining--;
    if (final) {
        rx->open = 0;
        if (rx->accepted && rx->signal) { /* the cluster differs: txn echo, rejects acked */
            unsigned dx = rx->ack_x, dy = rx->ack_y;
            if (!dx && !dy) {
                dx = rx->src_x;
                dy = rx->src_y;
            }
            kh_flit s;
            kh_vec_flit_data_received(c, dx, dy, rx->buf, &s);
            kh_vec_outq_push(c, &s, now + 1, 0);
        }
    }
    return 1;
}

int kh_vec_core_recv(vec_core *c, const kh_flit *f, kh_cycle now)
{
    switch (kh_vec_flit_type(f)) {
    case KH_T_MEM_RD_RESP:
        kh_vec_fill_response(c, f, now);
        return 1;
    case KH_T_CU_DATA:
        return vec_cudata_recv(c, f, now);
    default: /* MEM_WR_ACK and anything unknown: accepted and dropped (control.md §5.7) */
        return 1;
    }
}
