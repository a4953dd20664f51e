/* Writes at a memory port (memory.md §4–§6): reassembly by source, the
 * slot rules, issue in ready order, acks and the dropped-write cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysnode/fields.h"
#include "sysnode/port/port_int.h"

int kh_port_write_init(kh_port *p)
{
    p->nslots = (unsigned)p->n->p->wr_slots;
    if (!p->nslots) p->nslots = 1;
    p->slot = calloc(p->nslots, sizeof *p->slot);
    p->ready = calloc(p->nslots, sizeof *p->ready);
    return p->slot && p->ready ? 0 : -1;
}

static void ready_push(kh_port *p, unsigned s)
{
    p->ready[(p->rhead + p->rcount) % p->nslots] = s;
    p->rcount++;
}

/* A descriptor takes the lowest-numbered free slot (§4). */
static int take_descriptor(kh_port *p, const kh_flit *f)
{
    for (unsigned s = 0; s < p->nslots; s++) {
        kh_wslot *w = &p->slot[s];
        if (w->state != WS_FREE) continue;
        w->state = WS_OPEN;
        w->sx = kf_src_x(f);
        w->sy = kf_src_y(f);
        w->txn = kf_txn(f);
        w->addr = kf_addr(f);
        w->nbeats = (kf_len(f) & 15) + 1; /* the captured length (§4) */
        w->got = 0;
        if (kf_len(f) > 7)
            kh_comp_log(&p->c, KH_LOG_WARN,
                        "MEM_WR_REQ from (%u,%u) has len %u > 7: undefined, beats alias in the "
                        "8-beat slot (memory.md §4)", w->sx, w->sy, kf_len(f));
        return 1;
    }
    return 0; /* no free slot: the descriptor blocks the queue (§4, §6) */
}

/* A data flit binds to the lowest-numbered open slot of the same source. */
static int take_data(kh_port *p, const kh_flit *f)
{
    unsigned sx = kf_src_x(f), sy = kf_src_y(f);
    for (unsigned s = 0; s < p->nslots; s++) {
        kh_wslot *w = &p->slot[s];
        if (w->state != WS_OPEN || w->sx != sx || w->sy != sy) continue;
        memcpy(w->data[w->got % KH_WBURST], f->w, sizeof w->data[0]);
        if (++w->got == w->nbeats) { /* the agent counts beats, not `last` */
            w->state = WS_READY;
            ready_push(p, s);
        }
        return 1;
    }
    return 0;
}

int kh_port_write_intake(kh_port *p, kh_cycle now)
{
    const kh_flit *f = kh_fifo_head(&p->wrq, now);
    if (!f) return 0;
    if (kf_type(f) == KH_T_MEM_WR_REQ) {
        if (!take_descriptor(p, f)) return 0;
    } else if (!take_data(p, f)) {
        if (p->n->p->rtl_compat) return 0; /* seed RTL: never popped, the queue wedges (Open point 2) */
        p->n->counts.unmatched_data++;
        kh_comp_log(&p->c, KH_LOG_WARN,
                    "MEM_WR_DATA from (%u,%u) has no open write from that source: dropped "
                    "(memory.md §6, Open point 2)", kf_src_x(f), kf_src_y(f));
    }
    kh_fifo_pop(&p->wrq, now);
    p->progressed = 1;
    return 1;
}

int kh_port_write_issue(kh_port *p, kh_cycle now)
{
    if (!p->rcount) return 0; /* the caller looks first, too */
    unsigned s = p->ready[p->rhead];
    p->rhead = (p->rhead + 1) % p->nslots;
    p->rcount--;
    kh_wslot *w = &p->slot[s];
    w->state = WS_BUSY;
    p->cur_slot = s;
    if (kh_node_port_drops(p->n, w->addr)) {
        /* Unserved aperture: no AXI transaction, slot freed; profile S sends
         * no ack, profile L an ack with the drop flag (§6, flits.md §4.4). */
        char a[96];
        kh_node_addr_str(p->n, w->addr, a, sizeof a);
        p->n->counts.dropped_writes++;
        kh_comp_log(&p->c, KH_LOG_WARN, "write from (%u,%u) txn %u to %s dropped (memory.md §6)%s",
                    w->sx, w->sy, w->txn, a, p->n->p->l_ack_dropflag ? "; ack with drop flag" : "; no ack");
        if (p->n->p->l_ack_dropflag) {
            p->ack_drop = 1;
            p->st = ST_ACK;
        } else {
            w->state = WS_FREE;
            p->st_free = now + 2; /* through the write state and back to idle */
        }
        return 1;
    }
    if (w->nbeats <= KH_WBURST) {
        kh_conv_write(p->rq, w->addr, w->nbeats, TAG_WRITE, (const uint64_t (*)[4])w->data, now);
    } else { /* len > 7: beats alias in the 8-beat slot (§4) */
        uint64_t data[KH_CONV_MAX_BEATS][4];
        for (unsigned k = 0; k < w->nbeats; k++)
            for (int j = 0; j < 4; j++) data[k][j] = w->data[k % KH_WBURST][j];
        kh_conv_write(p->rq, w->addr, w->nbeats, TAG_WRITE, (const uint64_t (*)[4])data, now);
    }
    p->wr_count++;
    p->writes++;
    p->ack_drop = 0;
    p->st = ST_WRITE;
    return 1;
}

void kh_port_ack_flit(kh_port *p, kh_flit *f)
{
    kh_wslot *w = &p->slot[p->cur_slot];
    kh_flit_clear(f);
    f->w[KH_FLIT_HDR_WORD] = p->ack_hdr;
    kh_hdr_set_dst_x(f->w, w->sx);
    kh_hdr_set_dst_y(f->w, w->sy);
    kh_hdr_set_txn(f->w, w->txn); /* §5 */
    if (p->ack_drop) kf_set_ack_drop(f, 1);
    w->state = WS_FREE; /* the slot frees when its ack is sent */
    p->ack_drop = 0;
}

int kh_port_write_stuck(kh_port *p, char *buf, size_t len, size_t *used, kh_cycle now)
{
    int any = 0;
    for (unsigned s = 0; s < p->nslots; s++) {
        kh_wslot *w = &p->slot[s];
        if (w->state != WS_OPEN) continue;
        kh_node_say(buf, len, used,
                    "write from (%u,%u) txn %u to 0x%010llx holds %u of %u data beats in slot %u "
                    "and waits for the rest (memory.md §4: exactly len+1 MEM_WR_DATA from the "
                    "same source)",
                    w->sx, w->sy, w->txn, (unsigned long long)w->addr, w->got, w->nbeats, s);
        any = 1;
    }
    const kh_flit *f = kh_fifo_head(&p->wrq, now);
    if (f && kf_type(f) == KH_T_MEM_WR_REQ) {
        unsigned busy = 0;
        for (unsigned s = 0; s < p->nslots; s++) busy += p->slot[s].state != WS_FREE;
        if (busy == p->nslots) {
            kh_node_say(buf, len, used,
                        "MEM_WR_REQ from (%u,%u) to 0x%010llx waits at the write-queue head for a "
                        "free slot; all %u slots are taken, blocking later writes and data "
                        "(memory.md §4, §6)",
                        kf_src_x(f), kf_src_y(f), (unsigned long long)kf_addr(f), p->nslots);
            any = 1;
        }
    } else if (f && kf_type(f) == KH_T_MEM_WR_DATA) {
        kh_node_say(buf, len, used,
                    "MEM_WR_DATA from (%u,%u) at the write-queue head has no open write from that "
                    "source; the RTL-compatible port never pops it and the write queue is wedged "
                    "(memory.md §6, Open point 2)",
                    kf_src_x(f), kf_src_y(f));
        any = 1;
    }
    return any;
}
