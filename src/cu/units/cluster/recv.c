/* mx_cluster_cu: unsolicited CU_DATA bursts into L1 A / L1 B / the tile
 * (cluster.md §7, flits.md §4.7, control.md §5.8). One burst at a time,
 * framed by descriptor and count. */
#include <string.h>

#include "cu/units/cluster/cluster_int.h"

#include <kohaku/gen/flit.h>

/* Range check of §7 (flits.md §4.7: accept iff off + len < size, no wrap). */
static int accepted(const kh_cluster *u, unsigned buf, unsigned off, unsigned len)
{
    unsigned long end = (unsigned long)off + len;
    switch (buf) {
    case 0: return end < 4ul * u->ga;                 /* L1 A: four words per entry */
    case 1: return end < 4ul * u->gb;                 /* L1 B */
    case KH_CL_BUF_PEER: return end < 2ul * u->tiles && !(off & 1u); /* granule pairs */
    default: return 0;                                /* other buf_ids: never */
    }
}

static void data_received(kh_cluster *u, kh_cycle now)
{
    const kh_cl_rx *rx = &u->rx;
    kh_flit f;
    kh_flit_clear(&f);
    int own = rx->ack_x == 0 && rx->ack_y == 0; /* {ack_y, ack_x} = 0: the descriptor's source */
    kh_flit_set_hdr(&f, &(kh_flit_hdr){.dst_x = own ? rx->src_x : rx->ack_x, .dst_y = own ? rx->src_y : rx->ack_y,
                                       .src_x = u->at.x, .src_y = u->at.y, .type = KH_T_CU_SIGNAL,
                                       .txn = rx->txn, .last = 1});
    kh_cu_signal_set_code(f.w, KH_CL_SIG_DATA_RECEIVED);
    kh_cu_signal_set_arg(f.w, rx->buf); /* {24'b0, buf} */
    kh_cl_queue_flit(u, &f, now);
}

/* ADD_PEER (numerics §6.2): add the 16 received FP22 lanes into the tile. */
static void add_peer(kh_cluster *u, unsigned t, const uint64_t even[4], const uint64_t odd[4])
{
    const unsigned lw = KH_ACC_BITS(u->mw);
    uint64_t wide[8];
    memcpy(wide, even, 4 * sizeof wide[0]);
    memcpy(wide + 4, odd, 4 * sizeof wide[0]);
    if (!u->loaded[t])
        kh_cl_warn(u, "CU_DATA buffer 2 adds into sub-tile %u that was never LOADed: undefined in "
                      "hardware, modelled as zero (cluster.md §7)", t);
    for (unsigned l = 0; l < 16; l++)
        u->tile[t][l] = kh_acc_add(u->tile[t][l], 0, (uint32_t)kh_bits_get(wide, lw * l, lw), 0, u->mw);
}

/* One CU_DATA flit from the receive FIFO. Returns 0 to hold it (a peer
 * stream waits for the accumulator to be idle at its head), 1 if consumed. */
int kh_cl_rx_cu_data(kh_cluster *u, const kh_flit *f, kh_cycle now)
{
    kh_cl_rx *rx = &u->rx;
    if (!rx->open) {
        unsigned buf = (unsigned)kh_cu_data_buf_id(f->w);
        unsigned off = (unsigned)kh_cu_data_offset(f->w);
        unsigned len = (unsigned)kh_cu_data_len(f->w);
        int ok = accepted(u, buf, off, len);
        if (ok && buf == KH_CL_BUF_PEER && now < u->acc_idle_at) {
            kh_cl_kick(u, u->acc_idle_at);
            return 0;
        }
        rx->open = 1;
        rx->accept = ok;
        rx->buf = buf;
        rx->off = off;
        rx->len = len;
        rx->signal = (unsigned)kh_cu_data_flag_signal(f->w); /* flags[0] signal_on_complete */
        rx->ack_y = (unsigned)kh_cu_data_ack_y(f->w);
        rx->ack_x = (unsigned)kh_cu_data_ack_x(f->w);
        rx->src_x = (unsigned)kh_hdr_src_x(f->w);
        rx->src_y = (unsigned)kh_hdr_src_y(f->w);
        rx->txn = (unsigned)kh_hdr_txn(f->w);
        rx->d = 0;
        u->n_rx_bursts++;
        if (!ok) {
            u->fault_latch = 1;
            u->n_rx_rejected++;
            kh_cl_warn(u, "CU_DATA from (%u,%u) rejected: buf %u offset %u len %u is outside the "
                          "buffer (cluster.md §7); consumed, fault at the next retirement",
                       rx->src_x, rx->src_y, buf, off, len);
        }
        return 1;
    }
    if ((unsigned)kh_hdr_src_x(f->w) != rx->src_x || (unsigned)kh_hdr_src_y(f->w) != rx->src_y)
        kh_cl_warn(u, "CU_DATA data flit from (%u,%u) inside the open burst of (%u,%u): interleaved "
                      "senders corrupt both bursts (cluster.md §7)",
                   (unsigned)kh_hdr_src_x(f->w), (unsigned)kh_hdr_src_y(f->w), rx->src_x, rx->src_y);
    if ((unsigned)kh_hdr_last(f->w) != (rx->d == rx->len))
        kh_cl_warn(u, "CU_DATA data flit %u of %u has last=%u: framing is by len (cluster.md §7)",
                   rx->d, rx->len + 1, (unsigned)kh_hdr_last(f->w));
    if (rx->accept) {
        unsigned g = rx->off + rx->d;
        uint64_t data[4];
        kh_cu_data_data_data_get(f->w, data);
        if (rx->buf == KH_CL_BUF_PEER) {
            if (!(g & 1u)) memcpy(rx->even, data, sizeof data);
            else add_peer(u, g >> 1, rx->even, data);
        } else {
            /* entry g >> 2, word g & 3, the side's own permutation (§4.3) */
            kh_mx_entry *side = rx->buf ? u->l1b : u->l1a;
            kh_cl_place_word(u, g & 3u, data, (int)rx->buf, &side[g >> 2]);
            if ((g & 3u) == 3) (rx->buf ? u->fp16_b : u->fp16_a)[g >> 2] = 0; /* a peer's entry, no FILL's (older.c) */
        }
    }
    if (rx->d++ == rx->len) {
        rx->open = 0;
        if (rx->signal) data_received(u, now);
        kh_cl_kick(u, now + 1); /* a start may have waited for the stream */
    }
    return 1;
}
