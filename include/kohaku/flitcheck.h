/* The flit validator of flits.md §9.
 *
 * kh_flitcheck() runs every per-flit check (V1-V23) that one flit and the
 * context given allow; a check whose context is missing is skipped and
 * kh_flitcheck_skipped() names it. kh_flitstream is the stateful checker of
 * the stream rules (V30-V39): feed it every flit when it leaves its sender
 * and when it reaches the endpoint at its dst.
 *
 * Each finding names the rule, the field and its value. No global state:
 * a kh_flitstream belongs to one simulation. */
#ifndef KOHAKU_FLITCHECK_H
#define KOHAKU_FLITCHECK_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/flit.h"

typedef struct kh_flitcheck_issue {
    unsigned rule; /* the V-number of flits.md §9 */
    int warn;      /* 1 = warning (legal but suspicious), 0 = violation */
    char msg[240]; /* "V13 MEM_WR_REQ len=8 exceeds 7 (flits.md §9)" */
} kh_flitcheck_issue;

typedef void (*kh_flitcheck_report_fn)(void *ctx, const kh_flitcheck_issue *issue);

/* Who put the flit on the mesh (V8, V16, V23). */
typedef enum kh_flit_origin {
    KH_ORIGIN_UNKNOWN = 0, /* origin checks are skipped */
    KH_ORIGIN_UNIT,        /* a compute unit's own send path */
    KH_ORIGIN_SHELL,       /* the unit shell's framework path: completions, CU_CTRL replies */
    KH_ORIGIN_AGENT,       /* a memory port: responses, acknowledgements */
    KH_ORIGIN_DISPATCH,    /* the orchestrator's dispatcher */
    KH_ORIGIN_MAILBOX,     /* the orchestrator's raw mailbox: anything allowed */
    KH_ORIGIN_INTERLINK,   /* an interlink injection: src is the remote sender */
    KH_ORIGIN_CONTROLLER,  /* a controller sending CU_CTRL requests */
    KH_ORIGIN_CPU,         /* the node's control processor through a memory port: pushes, dispatched CU_INSTs; src (0,0) */
    KH_ORIGIN_CPU_SHELL,   /* the control processor's shell (completions, CU_CTRL replies) through a memory port; src (0,0) */
} kh_flit_origin;

#define KH_FLITCHECK_MAX_PORTS 16

enum { KH_DEST_UNKNOWN = 0, KH_DEST_UNIT = 1, KH_DEST_OTHER = 2 };
enum { KH_CTRL_BY_OP = 0, KH_CTRL_REQUEST = 1, KH_CTRL_REPLY = 2 }; /* by op: op 2 is a reply */

/* Context for one flit. Zero-initialise, then fill in what is known. */
typedef struct kh_flitcheck_ctx {
    kh_flit_origin origin;
    int know_src;                          /* src_x/src_y below are the injector's (V8) */
    uint8_t src_x, src_y;
    unsigned nports;                       /* memory-port coordinates of this mesh (V4, V8) */
    uint8_t port_x[KH_FLITCHECK_MAX_PORTS], port_y[KH_FLITCHECK_MAX_PORTS]; /* port 0 first */
    int dest;                              /* KH_DEST_*: what sits at dst (V17, V20) */
    int ctrl;                              /* KH_CTRL_*: type 0x7 request or reply (V17, V18) */
    int cu_data_data;                      /* type 0x8: 1 a data flit, 0 a descriptor (V19-V21) */
    int profile_l;                         /* MEM_WR_ACK may carry the drop flag (V22, flits.md §4.4) */
} kh_flitcheck_ctx;

/* Run V1-V23 on f. ctx may be NULL (no context). Returns the number of
 * violations (warnings not counted); each finding goes to report (may be NULL). */
int kh_flitcheck(const kh_flit *f, const kh_flitcheck_ctx *ctx, kh_flitcheck_report_fn report,
                 void *rctx);
/* Names of the per-flit checks kh_flitcheck skips for lack of context, e.g.
 * "V4 (memory-port coordinates) V8 (injector) ...". Empty when none. */
void kh_flitcheck_skipped(const kh_flit *f, const kh_flitcheck_ctx *ctx, char *out, size_t outlen);

/* ---- stream rules V30-V39 ---- */
typedef struct kh_flitstream kh_flitstream;

typedef struct kh_flitstream_cfg {
    unsigned inst_depth;  /* each unit's INST_DEPTH (V35); 0 = 512 */
    unsigned recv_depth;  /* each endpoint's RECV_DEPTH (V37); 0 = 512 */
    int multi_burst;      /* receivers reassemble several CU_DATA bursts at once (V33) */
} kh_flitstream_cfg;

kh_flitstream *kh_flitstream_new(const kh_flitstream_cfg *cfg);
void kh_flitstream_free(kh_flitstream *s);
/* f leaves its sender's send path (or the framework path of its shell /
 * memory port). Returns the number of violations found. */
int kh_flitstream_sent(kh_flitstream *s, const kh_flit *f, kh_flitcheck_report_fn report,
                       void *rctx);
/* f reaches the endpoint at its (dst_x, dst_y). */
int kh_flitstream_delivered(kh_flitstream *s, const kh_flit *f, kh_flitcheck_report_fn report,
                            void *rctx);
/* Checkpoints (docs/checkpoint.md): the stream state, saved or loaded
 * (kohaku/ckpt.h); the configuration is compared, not loaded. */
struct kh_ck;
void kh_flitstream_ckpt(kh_flitstream *s, struct kh_ck *ck);

#endif
