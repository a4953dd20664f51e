/* The live flit checker (docs/check.md): the validator of flits.md §9
 * (flitcheck.h) watching a running simulation.
 *
 * It is a trace sink (sim.h struct kh_trace): the kernel shows it every link
 * transfer. A transfer out of a registered endpoint is an injection: the
 * per-flit checks V1-V23 run with the sender's context (its coordinate, the
 * path inside it that made the flit, the mesh's memory ports, what sits at
 * dst) and the stream checker (kh_flitstream) sees it sent. A transfer into
 * a registered endpoint is a delivery, which the stream checker sees too.
 * Transfers between routers are not looked at.
 *
 * The builder of a simulation (the machine, the unit bench, the NoC bench)
 * tells the checker its meshes and endpoints; kh_machine_set_check() and
 * kh_ubench_set_check() do it for theirs. Attaching fans out to a sink
 * already attached (the JSON trace writer), so both work at once. Nothing
 * of this runs unless a checker is attached: the kernel's one trace branch.
 */
#ifndef KOHAKU_CHECK_H
#define KOHAKU_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/flitcheck.h"
#include "kohaku/sim.h"

typedef struct kh_check kh_check;

typedef enum kh_check_stage {
    KH_CHECK_SENT = 0,      /* leaving its sender (per-flit checks, stream send side) */
    KH_CHECK_DELIVERED = 1, /* reaching the endpoint at its dst (stream receive side) */
} kh_check_stage;

/* One finding, with where and when it was seen. */
typedef struct kh_check_finding {
    kh_flitcheck_issue issue; /* rule, warning or violation, message */
    kh_cycle cycle;           /* the transfer's cycle */
    unsigned mesh;            /* the mesh's index (0 in a one-mesh machine) */
    kh_check_stage stage;
    kh_flit_origin origin;    /* the path that made the flit (KH_CHECK_SENT) */
    const kh_link *link;      /* the link it crossed */
    kh_flit flit;
} kh_check_finding;

typedef void (*kh_check_report_fn)(void *ctx, const kh_check_finding *f);

/* What sits at an endpoint: decides the context of the flits it sends. */
typedef enum kh_check_ep_kind {
    KH_CHECK_EP_UNIT,  /* a unit shell: origin() says framework or unit send path */
    KH_CHECK_EP_PORT,  /* a memory port: origin() says engine, agent (dispatch/mailbox) or interlink */
    KH_CHECK_EP_BENCH, /* a bench endpoint standing in for port and orchestrator: origin() per flit */
    KH_CHECK_EP_RAW,   /* a synthetic traffic endpoint: its payload is test bookkeeping, not a
                        * message, so only the header rules V1-V8 run (V8: src is its own
                        * coordinate unless origin() says otherwise) and no stream rule */
} kh_check_ep_kind;

/* Who made the flit endpoint ep is sending now (called while it is on the
 * link). NULL: KH_ORIGIN_UNKNOWN. */
typedef kh_flit_origin (*kh_check_origin_fn)(void *ep);

typedef struct kh_check_cfg {
    kh_flitstream_cfg stream; /* INST_DEPTH, RECV_DEPTH, multi-burst receivers (V33, V35, V37) */
    int profile_l;            /* MEM_WR_ACK may carry the drop flag (V22) */
    kh_check_report_fn report; /* NULL: findings are only counted */
    void *ctx;
} kh_check_cfg;

kh_check *kh_check_new(kh_sim *sim, const kh_check_cfg *cfg);
/* Detaches the checker if it is attached, then frees it. */
void kh_check_free(kh_check *c);

/* Mesh `mesh` (0..3) has these memory ports, port 0 first (V4, V8). */
int kh_check_mesh(kh_check *c, unsigned mesh, unsigned nports, const uint8_t *port_x, const uint8_t *port_y);
/* A compute unit sits at (x, y) of mesh (V17, V20: what a flit's dst is). */
void kh_check_unit_at(kh_check *c, unsigned mesh, unsigned x, unsigned y);
/* Endpoint component comp sits at (x, y) of mesh. 0, or -1 (out of memory,
 * a mesh not declared). */
int kh_check_endpoint(kh_check *c, unsigned mesh, const kh_comp *comp, unsigned x, unsigned y,
                      kh_check_ep_kind kind, kh_check_origin_fn origin, void *ep);

/* Become the simulation's trace sink, in front of the one attached (if
 * any), which goes on seeing every event. kh_check_detach restores it. */
int kh_check_attach(kh_check *c);
void kh_check_detach(kh_check *c);

typedef struct kh_check_counts {
    uint64_t sent, delivered;   /* transfers looked at */
    uint64_t violations, warnings;
    uint64_t by_rule[40];       /* violations + warnings per V-number */
} kh_check_counts;
void kh_check_get_counts(const kh_check *c, kh_check_counts *out);

/* Checkpoints (docs/checkpoint.md): the counts and every declared mesh's
 * stream state, saved or loaded (kohaku/ckpt.h) into a checker declared
 * with the same meshes. */
struct kh_ck;
void kh_check_ckpt(kh_check *c, struct kh_ck *ck);
/* The counts start over at 0 (the stream state stays): under MPI every
 * rank restores the whole machine's counts, and the ranks' counts are
 * summed, so all but one rank drop them. */
void kh_check_clear_counts(kh_check *c);
/* Where findings go from now on (a restored checker handed to a new reporter). */
void kh_check_set_report(kh_check *c, kh_check_report_fn report, void *ctx);

/* "cycle 123, mem_port0(0,1)>r(1,1).W, sent by the dispatcher: V8 ...;
 * flit 0123..." (the flit as 72 hex digits, header first). */
void kh_check_format(const kh_check_finding *f, char *buf, size_t len);
/* "the unit's send path", "the shell's framework path", ... */
const char *kh_check_origin_name(kh_flit_origin o);

#endif
