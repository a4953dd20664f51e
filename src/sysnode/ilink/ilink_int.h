/* The interlink's private layout (ilink*.c, control.md §7).
 *
 *   ilink.c        the component: registers, status words, the cycle, hang report
 *   ilink_out.c    what leaves: the hub intake and encapsulator, the mover's
 *                  posted writes, doorbells, the outbound arbiter
 *   ilink_switch.c the switch: link lanes, credits, transmit arbitration,
 *                  transit, local ingress
 *   ilink_in.c     what arrives: landing writes, injection, doorbell counts
 *
 * One component per mesh. Everything two meshes share is an il_lane (one
 * direction of one link), owned by its sender: flits and credits on it are
 * visible to the other side ilink_lat cycles after they were put there.
 */
#ifndef KH_SYSNODE_ILINK_INT_H
#define KH_SYSNODE_ILINK_INT_H

#include "kohaku/ilink.h"
#include "sysnode/node_int.h"

#define IL_DQ_DEPTH 4       /* doorbell queue (later RTL: four deep) */
#define IL_LAND_OUT 8       /* landing writes in flight (mag_ilink) */
#define IL_CRD_BATCH 4      /* credits returned in batches (control.md §7.6) */
#define IL_CRD_TIMEOUT 16   /* ... or after this many idle cycles (kts_rx) */
#define IL_CRD_MAX 15       /* credits per return message (4-bit count) */
#define IL_SKID 2           /* hub intake skid (memory.md §2 rule 1) */

/* Packet kinds (ilink.isa ilink_hdr.kind, control.md §7.6). */
enum { IL_K_MEM_WR = 1, IL_K_NOC_FLIT = 2, IL_K_DOORBELL = 3 };
/* Outbound sources, in the rotating-priority order (control.md §7.4). */
enum { IL_SRC_WR, IL_SRC_FL, IL_SRC_DB, IL_NSRC };
/* Inbound processor states. */
enum { IN_HDR, IN_WR, IN_FLIT, IN_DOOR, IN_SKIP };
/* Owner of a transmit class or of the local ingress while a packet passes. */
enum { OWN_NONE = -1, OWN_LOCAL = 2 };

/* One flit on a link: a header flit or a data beat. */
typedef struct il_wflit {
    kh_flit f;       /* header: ilink_hdr in the low 96 bits; beat: 288 bits */
    uint8_t hdr;     /* a header flit */
    uint8_t last;    /* the packet's final flit */
    uint8_t cls;     /* class: 0 stops at the peer, 1 is forwarded by it */
    kh_cycle at;     /* cycle it is in the receiver's buffer */
} il_wflit;

typedef struct il_credit {
    kh_cycle at;     /* cycle the sender sees it */
    unsigned cls, n;
} il_credit;

/* One direction of one link, owned by its sender. */
typedef struct il_lane {
    kh_ilink *tx, *rx;
    unsigned tx_link;        /* the sender's link index (rx's is 1 - tx_link) */
    kh_ring q[2];            /* il_wflit per class: in flight, then buffered */
    unsigned credit[2];      /* sender: credits held per class */
    kh_ring crd;             /* il_credit on their way back to the sender */
    unsigned owed[2];        /* receiver: credits not yet returned */
    kh_cycle owed_since[2];  /* receiver: last pop or return (timeout) */
    unsigned crd_rr;
} il_lane;

/* A packet leaving this mesh (local egress), flit by flit. */
typedef struct il_pkt {
    il_wflit fl[KH_ILINK_MAX_BEATS + 1];
    unsigned n, sent;        /* flits, flits taken by the switch */
    int link, cls;           /* target link and class; link -1: nowhere (dropped) */
    int src;                 /* IL_SRC_* */
    kh_cycle ready;          /* the header is offered from this cycle */
    unsigned dmesh, wr_last; /* MEM_WR: answers the mover's burst when its header goes */
} il_pkt;

/* A word of a posted remote write. */
typedef struct il_word {
    uint64_t addr;
    uint64_t d[4];
    uint32_t strb;
    int mover_last;          /* final word of a mover burst (answer it when sent) */
    kh_cycle at;             /* visible to the arbiter from this cycle */
} il_word;

typedef struct il_ring {
    unsigned dst, tag;
    kh_cycle at;
} il_ring;

typedef struct il_regw {
    unsigned reg;
    uint64_t value;
    kh_cycle at;
} il_regw;

/* Per link, from this mesh's point of view. */
typedef struct il_link {
    il_lane *out;            /* owned; NULL: no neighbour on this side */
    il_lane *in;             /* the neighbour's lane into this mesh */
    int owner[2];            /* per class: OWN_NONE, OWN_LOCAL or the transit link */
    unsigned mux_rr[2];      /* per class: last winner of local vs transit */
    unsigned vc_rr;          /* last class sent */
    /* counters (control.md §7.5) */
    uint32_t tx_pkts, tx_beats, rx_pkts, rx_beats;
    uint64_t tx_flits;       /* flits sent including headers (idle = elapsed - flits - stalled) */
    uint64_t stalled;
    kh_cycle stall_since;
    /* transit arriving on this link (its class 1): where the packet goes */
    int fwd_link, fwd_cls;   /* fwd_link -1: dropped (no onward link) */
    int fwd_open;            /* a transit packet is passing */
    kh_cycle last_pop;       /* cycle a transit flit last left this link's buffer */
} il_link;

typedef struct il_status {
    unsigned enable, mesh;
    uint8_t fault;
    uint32_t drx[KH_ILINK_MESHES], dtx[KH_ILINK_MESHES];
    uint8_t dtag[KH_ILINK_MESHES];
    uint32_t door_sent;
} il_status;

struct kh_ilink {
    kh_comp c;
    kh_node *n;
    const kh_params *p;
    /* registers (control.md §7.5), the start-of-cycle copy for reads */
    il_status st, old;
    kh_cycle st_cycle;           /* old is valid for reads in this cycle */
    kh_ring regw;                /* il_regw */
    uint8_t fault_ext;           /* raised by other components, applied next cycle */
    kh_cycle fault_ext_at;
    int warned_local, warned_wrap, warned_v4, warned_reg;
    /* hub intake and encapsulator (control.md §7.2) */
    kh_fifo skid;
    /* Rule 1 round-robin (memory.md §2): a port takes a remote flit into its
     * hub register and holds busy until the flit wins; at the end of each
     * cycle the first held port from hub_ptr enters the skid, if it has room. */
    kh_flit hub[KH_NODE_MAX_PORTS];
    unsigned hub_held;           /* bit i: port i's hub register holds a remote flit */
    unsigned hub_ptr;            /* advances to (winner + 1) mod PORTS on an accepted flit */
    kh_end_hook hub_arb;
    int enc_open, enc_closed;
    kh_cycle enc_closed_at;
    unsigned enc_mesh, enc_fin, enc_sx, enc_sy, enc_n;
    kh_flit enc[KH_ILINK_MAX_BEATS];
    uint16_t cud_left[256];      /* remote CU_DATA data flits still due per source {y,x} */
    uint8_t cud_open[256];
    /* posted writes and doorbells */
    kh_ring words;               /* il_word */
    kh_ring rings;               /* il_ring */
    /* outbound arbiter and local egress (control.md §7.4) */
    unsigned ob_rr;              /* last winner */
    int pkt_valid;
    kh_cycle ob_free;            /* next pick from this cycle */
    il_pkt pkt;
    uint64_t lblock;
    kh_cycle lblock_since;
    /* the switch */
    il_link link[2];
    uint64_t fwd_pkts, fwd_blocked;
    kh_cycle fwd_since;
    int in_owner;                /* local ingress: OWN_NONE or the link */
    unsigned in_rr;
    /* inbound processor (control.md §7.3, §7.4) */
    int inst;
    unsigned in_kind, in_smesh, in_tag, in_left, in_strb;
    uint64_t in_addr;
    unsigned land_out;           /* landing writes without their response */
    kh_creq *rq;                 /* the landing requester channel */
    kh_fifo inj;                 /* injected flits for the ports */
    kh_cycle inj_take_cycle;
    kh_ilink_counts counts;
    int progressed;
    /* Lane promises (ilink_reach.c): landed, a flit was ever injected into
     * this mesh (or a restore may have left one on its way); entry_min,
     * the first cycle anything entered towards a lane since the checking
     * mode last took it (KOHAKU_MPI_PROMISE_CHECK, src/mpi/mpi.c). */
    int landed;
    kh_cycle entry_min;
};

/* ilink.c */
/* Checkpoints (ilink_ckpt.c). */
struct kh_ck;
void kh_ilink_ckpt(kh_comp *c, struct kh_ck *ck);

void kh_ilink_raise(kh_ilink *il, uint8_t bits, kh_cycle now); /* a fault seen in cycle now (own step) */

/* ilink_out.c */
void kh_ilink_hub_arbitrate(void *il, kh_cycle now); /* the rule-1 arbiter, at the end of a cycle */
int kh_ilink_enc_step(kh_ilink *il, kh_cycle now);     /* 1 if progressed */
int kh_ilink_ob_pick(kh_ilink *il, kh_cycle now);
void kh_ilink_pkt_sent(kh_ilink *il, kh_cycle now);     /* the local packet's last flit went */
void kh_ilink_pkt_hdr_sent(kh_ilink *il, kh_cycle now); /* its header went */
int kh_ilink_out_stuck(kh_ilink *il, char *buf, size_t len, size_t *used, kh_cycle now);
kh_cycle kh_ilink_out_next(const kh_ilink *il, kh_cycle now);

/* ilink_switch.c */
il_lane *kh_ilink_lane_new(kh_ilink *tx, unsigned tx_link, kh_ilink *rx);
void kh_ilink_lane_free(il_lane *l);
void kh_ilink_route(const kh_ilink *il, unsigned dmesh, int *link, int *cls);
int kh_ilink_switch_step(kh_ilink *il, kh_cycle now);
const il_wflit *kh_ilink_ingress_head(kh_ilink *il, kh_cycle now, int *from);
void kh_ilink_ingress_pop(kh_ilink *il, int from, kh_cycle now);
int kh_ilink_credit_step(kh_ilink *il, kh_cycle now);
kh_cycle kh_ilink_switch_next(const kh_ilink *il, kh_cycle now);
int kh_ilink_switch_stuck(kh_ilink *il, char *buf, size_t len, size_t *used, kh_cycle now);
uint32_t kh_ilink_stalled(const kh_ilink *il, unsigned link, kh_cycle now);

/* ilink_in.c */
int kh_ilink_in_step(kh_ilink *il, kh_cycle now);
int kh_ilink_in_stuck(kh_ilink *il, char *buf, size_t len, size_t *used, kh_cycle now);

#endif
