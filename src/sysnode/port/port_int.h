/* One memory port's private layout (port*.c): the seed-era engine of
 * memory.md §10 — two intake FIFOs, write slots, the shared FSM for plain
 * reads and writes, the streaming engine with its emitter, and one output
 * register. */
#ifndef KH_SYSNODE_PORT_INT_H
#define KH_SYSNODE_PORT_INT_H

#include "sysnode/node_int.h"

#define KH_WBURST 8 /* beats a write slot holds (memory.md §4) */

enum kh_wslot_state {
    WS_FREE,  /* from reset, or once its ack was sent */
    WS_OPEN,  /* descriptor seen, data not complete, not yet issued */
    WS_READY, /* all beats in: queued for issue in ready order */
    WS_BUSY,  /* taken by the FSM: on AXI, or its ack waits */
};

typedef struct kh_wslot {
    int state;
    unsigned sx, sy, txn;
    uint64_t addr;
    unsigned nbeats; /* (len & 15) + 1 */
    unsigned got;    /* data beats arrived */
    uint64_t data[KH_WBURST][4];
} kh_wslot;

enum kh_port_st {
    ST_IDLE,
    ST_PLAIN, /* a plain read: AR issued, beats become flits */
    ST_WRITE, /* a write burst on AXI, waiting for its response */
    ST_ACK,   /* the ack waits for the output register */
};

/* Tags of this port's converged-path bursts. */
enum { TAG_PLAIN = 1, TAG_STREAM = 2, TAG_WRITE = 3 };

typedef struct kh_sreq {
    uint64_t addr;
    unsigned n, ew, txn;        /* entries, words per entry, request tag */
    unsigned ndest;             /* 1 + n_peer */
    uint8_t dx[4], dy[4];       /* destination 0 = requester, then peers */
    unsigned next_ar;           /* entries whose AR was issued */
    unsigned cap_entry, cap_beats;
    int cap_full;               /* the capture registers hold a whole entry */
    uint64_t cap[8][4];         /* 4 words an entry; 8 FP16 words under quant */
    int quant;                  /* read_quant: FP16 entries quantised on the way (flags[4]) */
    unsigned qmode;             /* flags[5]: 0 the A packing, 1 the B packing */
    int emit_valid;             /* the emit buffer holds entry emit_entry */
    unsigned emit_entry, emit_d, emit_w;
    kh_cycle emit_free;         /* the emitter is idle from this cycle */
    uint64_t emit[4][4];
    unsigned emitted;           /* entries fully emitted */
} kh_sreq;

typedef struct kh_dropped_rd {
    unsigned sx, sy, txn;
    uint64_t addr;
    kh_cycle at;
} kh_dropped_rd;

struct kh_port {
    kh_comp c;
    kh_node *n;
    unsigned index;
    unsigned x, y;
    kh_fifo rdq, wrq;           /* MEM_RD_REQ; MEM_WR_REQ + MEM_WR_DATA (§10) */
    unsigned busy_at;           /* either FIFO holding this many is busy to the mesh (engine_busy) */
    int lean;                   /* kh_node_port_accept may take its lean path (no interlink, latency in the wheel) */
    kh_link *in, *out;
    int in_looked;
    kh_creq *rq;                /* this port's converged-path channel */
    /* output register (one flit, §10) */
    kh_flit oreg;
    int ovalid;
    kh_flit_origin oorigin;     /* who filled oreg (kh_node_port_out_origin) */
    kh_cycle oplaced;
    uint64_t out_lost;          /* flits with no output link attached */
    /* write slots (§4) */
    kh_wslot *slot;
    unsigned nslots;
    unsigned *ready;            /* slot numbers in the order they became ready */
    unsigned rhead, rcount;
    /* shared FSM (§10) */
    int st;
    kh_cycle st_free;           /* the FSM is back in IDLE from this cycle (state register) */
    unsigned cur_slot;          /* ST_WRITE / ST_ACK */
    int ack_drop;               /* ST_ACK for a dropped write (profile L) */
    unsigned pr_sx, pr_sy, pr_txn;
    uint64_t pr_hdr[2];         /* its response beats' header word, [1] the last one's (built once per read) */
    uint64_t rd_hdr, ack_hdr;   /* the header word of a read response / an ack from this port, with no
                                 * destination and txn 0: each read and ack sets those fields only */
    /* streaming engine (§3.2, §10) */
    int rs_run;
    kh_cycle rs_free;           /* the streaming engine is idle again from this cycle */
    kh_sreq s;
    /* counters */
    uint16_t rd_count, wr_count; /* mem_rd_count / mem_wr_count (§10) */
    uint64_t flits_out, agent_out, ilink_out, reads, stream_reads, writes;
    uint64_t busy_cycles;       /* an engine working or the output register full (stats) */
    kh_cycle busy_since;        /* KH_NEVER while idle: the busy stretch open since (trace slice) */
    kh_dropped_rd dropped[4];   /* most recent dropped streaming reads, for the hang report */
    unsigned ndropped;
    /* per step */
    int progressed;
    int rd_popped;              /* the read queue was popped in this step (one pop a cycle) */
};

/* port_write.c */
/* Checkpoints (port_ckpt.c). */
struct kh_ck;
void kh_port_ckpt(kh_comp *c, struct kh_ck *ck);

int kh_port_write_init(kh_port *p);
int kh_port_write_intake(kh_port *p, kh_cycle now); /* 1 if it popped the write queue */
int kh_port_write_issue(kh_port *p, kh_cycle now); /* from ST_IDLE: 1 if a write started */
void kh_port_ack_flit(kh_port *p, kh_flit *f);      /* ST_ACK: the ack; frees the slot */
int kh_port_write_stuck(kh_port *p, char *buf, size_t len, size_t *used, kh_cycle now);

/* port_read.c */
/* f: the read queue's visible head (NULL if none), the starts' request */
int kh_port_plain_start(kh_port *p, const kh_flit *f, kh_cycle now); /* from ST_IDLE */
int kh_port_plain_flit(kh_port *p, kh_flit *f, kh_cycle now);
int kh_port_stream_start(kh_port *p, const kh_flit *f, kh_cycle now);
void kh_port_stream_capture(kh_port *p, kh_cycle now); /* while rs_run */
int kh_port_stream_flit(kh_port *p, kh_flit *f, kh_cycle now);
int kh_port_read_stuck(kh_port *p, char *buf, size_t len, size_t *used);

#endif
