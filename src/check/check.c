/* The live flit checker (include/kohaku/check.h, docs/check.md): a trace
 * sink that runs the validator of flits.md §9 on every flit an endpoint
 * injects and feeds the stream checker with injections and deliveries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/check.h"
#include "kohaku/ckpt.h"
#include "kohaku/gen/flit.h"
#include "kohaku/hex.h"
#include "kohaku/trace.h"

#define NODES 256   /* {y, x} with 4-bit coordinates (flits.md §1) */
#define PAIRS 65536 /* source node * 256 + destination node */
#define MESHES 4

typedef struct ck_mesh {
    int declared;
    kh_flitcheck_ctx base;   /* memory ports and profile: the part every flit shares */
    uint8_t unit[NODES];     /* 1: a compute unit sits there (V17, V20) */
    kh_flitstream *stream;   /* V30-V39 of this mesh (coordinates are per mesh) */
    uint16_t *inj_left;      /* per pair: data flits of the injected CU_DATA burst still due */
} ck_mesh;

typedef struct ck_ep {
    unsigned mesh;
    uint8_t x, y;
    kh_check_ep_kind kind;
    kh_check_origin_fn origin;
    void *ep;
} ck_ep;

struct kh_check {
    kh_trace sink; /* this checker as a trace sink */
    kh_sim *sim;
    kh_check_cfg cfg;
    kh_trace *below;   /* the sink that was attached before us, fed through fan */
    kh_trace *fan;
    int attached;
    ck_mesh mesh[MESHES];
    ck_ep *eps;
    unsigned neps, capeps;
    int32_t *ep_of;    /* component id -> index into eps, -1: not an endpoint */
    unsigned nids;
    kh_check_counts counts;
    kh_check_finding cur; /* the transfer being looked at, for report() */
    unsigned max_rule;    /* findings above this rule are not wanted (RAW endpoints) */
};

static unsigned node(unsigned x, unsigned y) { return y % 16 * 16 + x % 16; }

const char *kh_check_origin_name(kh_flit_origin o)
{
    switch (o) {
    case KH_ORIGIN_UNIT: return "the unit's send path";
    case KH_ORIGIN_SHELL: return "the shell's framework path";
    case KH_ORIGIN_AGENT: return "the memory port's engine";
    case KH_ORIGIN_DISPATCH: return "the orchestrator's dispatcher";
    case KH_ORIGIN_MAILBOX: return "the orchestrator's mailbox";
    case KH_ORIGIN_INTERLINK: return "an interlink injection";
    case KH_ORIGIN_CONTROLLER: return "a controller";
    case KH_ORIGIN_CPU: return "the node processor's send path";
    case KH_ORIGIN_CPU_SHELL: return "the node processor's shell";
    default: return "an endpoint";
    }
}

void kh_check_format(const kh_check_finding *f, char *buf, size_t len)
{
    char hex[KH_FLIT_WORDS * 16 + 1];
    kh_hex_format(f->flit.w, 288, hex);
    if (f->stage == KH_CHECK_SENT)
        snprintf(buf, len, "cycle %llu, %s, sent by %s: %s; flit %s", (unsigned long long)f->cycle,
                 f->link ? f->link->name : "?", kh_check_origin_name(f->origin), f->issue.msg, hex);
    else
        snprintf(buf, len, "cycle %llu, %s, delivered: %s; flit %s", (unsigned long long)f->cycle,
                 f->link ? f->link->name : "?", f->issue.msg, hex);
}

static void report(void *ctx, const kh_flitcheck_issue *is)
{
    kh_check *c = ctx;
    if (is->rule > c->max_rule) return;
    if (is->warn) c->counts.warnings++;
    else c->counts.violations++;
    if (is->rule < sizeof c->counts.by_rule / sizeof c->counts.by_rule[0]) c->counts.by_rule[is->rule]++;
    if (!c->cfg.report) return;
    c->cur.issue = *is;
    c->cfg.report(c->cfg.ctx, &c->cur);
}

/* The flit leaves endpoint e: V1-V23 with e's context, then the stream's
 * send side. */
static void sent(kh_check *c, const ck_ep *e, const kh_flit *f)
{
    ck_mesh *m = &c->mesh[e->mesh];
    const uint64_t *w = f->w;
    kh_flitcheck_ctx x = m->base;
    kh_flit_origin o = e->origin ? e->origin(e->ep) : KH_ORIGIN_UNKNOWN;
    unsigned type = (unsigned)kh_hdr_type(w);
    unsigned dst = node((unsigned)kh_hdr_dst_x(w), (unsigned)kh_hdr_dst_y(w));
    c->counts.sent++;
    c->cur.origin = o;
    c->cur.stage = KH_CHECK_SENT;
    x.know_src = 1;
    x.src_x = e->x;
    x.src_y = e->y;
    /* the node processor's flits leave by a memory port but come from (0,0) (cpu.md §1) */
    if (o == KH_ORIGIN_CPU || o == KH_ORIGIN_CPU_SHELL) x.src_x = x.src_y = 0;
    if (o == KH_ORIGIN_CPU_SHELL) o = KH_ORIGIN_SHELL;
    x.origin = o;
    x.dest = m->unit[dst] ? KH_DEST_UNIT : KH_DEST_OTHER;
    /* the shell answers CU_CTRL requests; everyone else asks */
    x.ctrl = o == KH_ORIGIN_SHELL ? KH_CTRL_REPLY : KH_CTRL_REQUEST;
    if (e->kind == KH_CHECK_EP_RAW) {
        c->max_rule = 8; /* header rules only: the payload is the bench's bookkeeping */
        if (o == KH_ORIGIN_UNKNOWN) x.origin = KH_ORIGIN_UNIT; /* its own send path: V8 src is its coordinate */
        x.cu_data_data = 1;
        kh_flitcheck(f, &x, report, c);
        c->max_rule = ~0u;
        return;
    }
    if (type == KH_HDR_TYPE_CU_DATA) {
        /* descriptor or data: the first CU_DATA of a pair after a closed
         * burst is a descriptor announcing len + 1 data flits (flits.md §4.7) */
        unsigned pair = node((unsigned)kh_hdr_src_x(w), (unsigned)kh_hdr_src_y(w)) * NODES + dst;
        if (m->inj_left[pair]) {
            x.cu_data_data = 1;
            m->inj_left[pair]--;
        } else {
            x.cu_data_data = 0;
            m->inj_left[pair] = (uint16_t)(kh_cu_data_len(w) + 1);
        }
    }
    kh_flitcheck(f, &x, report, c);
    /* The send side of the stream rules. An interlink injection was sent
     * (and checked) in its own mesh; its src names a node there. V39 is
     * about the port's engine: a read response the mailbox makes answers
     * no request. */
    if (o == KH_ORIGIN_INTERLINK) return;
    if (type == KH_HDR_TYPE_MEM_RD_RESP && o != KH_ORIGIN_AGENT) return;
    /* Only the shell completes an instruction (V35, V36): a completion code
     * from a unit's send path (V16 above) or the mailbox retires nothing. */
    if (type == KH_HDR_TYPE_CU_SIGNAL && o != KH_ORIGIN_SHELL && o != KH_ORIGIN_UNKNOWN) return;
    kh_flitstream_sent(m->stream, f, report, c);
}

static void delivered(kh_check *c, const ck_ep *e, const kh_flit *f)
{
    if (e->kind == KH_CHECK_EP_RAW) return;
    c->counts.delivered++;
    c->cur.stage = KH_CHECK_DELIVERED;
    c->cur.origin = KH_ORIGIN_UNKNOWN;
    kh_flitstream_delivered(c->mesh[e->mesh].stream, f, report, c);
}

static const ck_ep *ep_of(const kh_check *c, const kh_comp *comp)
{
    if (!comp || comp->id >= c->nids) return NULL;
    int32_t i = c->ep_of[comp->id];
    return i < 0 ? NULL : &c->eps[i];
}

static void on_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    kh_check *c = ctx;
    const ck_ep *s = ep_of(c, l->src), *d = ep_of(c, l->dst);
    if (!s && !d) return; /* between routers */
    c->cur.cycle = now;
    c->cur.link = l;
    c->cur.flit = *f;
    if (s) {
        c->cur.mesh = s->mesh;
        sent(c, s, f);
    }
    if (d) {
        c->cur.mesh = d->mesh;
        delivered(c, d, f);
    }
}

kh_check *kh_check_new(kh_sim *sim, const kh_check_cfg *cfg)
{
    kh_check *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->sim = sim;
    if (cfg) c->cfg = *cfg;
    c->sink.ctx = c;
    c->sink.link = on_link;
    c->max_rule = ~0u;
    return c;
}

void kh_check_free(kh_check *c)
{
    if (!c) return;
    kh_check_detach(c);
    for (unsigned i = 0; i < MESHES; i++) {
        kh_flitstream_free(c->mesh[i].stream);
        free(c->mesh[i].inj_left);
    }
    free(c->eps);
    free(c->ep_of);
    free(c);
}

int kh_check_mesh(kh_check *c, unsigned mesh, unsigned nports, const uint8_t *port_x, const uint8_t *port_y)
{
    if (mesh >= MESHES || nports > KH_FLITCHECK_MAX_PORTS) return -1;
    ck_mesh *m = &c->mesh[mesh];
    if (!m->stream) m->stream = kh_flitstream_new(&c->cfg.stream);
    if (!m->inj_left) m->inj_left = calloc(PAIRS, sizeof *m->inj_left);
    if (!m->stream || !m->inj_left) return -1;
    memset(&m->base, 0, sizeof m->base);
    m->base.nports = nports;
    for (unsigned i = 0; i < nports; i++) {
        m->base.port_x[i] = port_x[i];
        m->base.port_y[i] = port_y[i];
    }
    m->base.profile_l = c->cfg.profile_l;
    m->declared = 1;
    return 0;
}

void kh_check_unit_at(kh_check *c, unsigned mesh, unsigned x, unsigned y)
{
    if (mesh < MESHES) c->mesh[mesh].unit[node(x, y)] = 1;
}

int kh_check_endpoint(kh_check *c, unsigned mesh, const kh_comp *comp, unsigned x, unsigned y,
                      kh_check_ep_kind kind, kh_check_origin_fn origin, void *ep)
{
    if (mesh >= MESHES || !c->mesh[mesh].declared || !comp) return -1;
    if (comp->id >= c->nids) {
        unsigned n = comp->id + 1 > 2 * c->nids ? comp->id + 1 : 2 * c->nids;
        int32_t *v = realloc(c->ep_of, n * sizeof *v);
        if (!v) return -1;
        for (unsigned i = c->nids; i < n; i++) v[i] = -1;
        c->ep_of = v;
        c->nids = n;
    }
    if (c->neps == c->capeps) {
        unsigned cap = c->capeps ? 2 * c->capeps : 16;
        ck_ep *v = realloc(c->eps, cap * sizeof *v);
        if (!v) return -1;
        c->eps = v;
        c->capeps = cap;
    }
    c->eps[c->neps] = (ck_ep){mesh, (uint8_t)x, (uint8_t)y, kind, origin, ep};
    c->ep_of[comp->id] = (int32_t)c->neps++;
    return 0;
}

int kh_check_attach(kh_check *c)
{
    if (c->attached) return 0;
    kh_trace *below = kh_sim_trace(c->sim);
    if (below) {
        c->fan = kh_trace_fanout_new(&c->sink, below);
        if (!c->fan) return -1;
    }
    c->below = below;
    kh_sim_set_trace(c->sim, c->fan ? c->fan : &c->sink);
    c->attached = 1;
    return 0;
}

void kh_check_detach(kh_check *c)
{
    if (!c->attached) return;
    if (kh_sim_trace(c->sim) == (c->fan ? c->fan : &c->sink)) kh_sim_set_trace(c->sim, c->below);
    kh_trace_fanout_free(c->fan);
    c->fan = NULL;
    c->below = NULL;
    c->attached = 0;
}

void kh_check_get_counts(const kh_check *c, kh_check_counts *out) { *out = c->counts; }

void kh_check_clear_counts(kh_check *c) { memset(&c->counts, 0, sizeof c->counts); }

void kh_check_set_report(kh_check *c, kh_check_report_fn fn, void *ctx)
{
    c->cfg.report = fn;
    c->cfg.ctx = ctx;
}

/* The endpoints and units are the builder's declarations (compared by
 * count); what the flits so far left behind is state. */
void kh_check_ckpt(kh_check *c, kh_ck *ck)
{
    kh_ck_same(ck, c->neps, "the checker's endpoints");
    KH_CK(ck, c->counts.sent);
    KH_CK(ck, c->counts.delivered);
    KH_CK(ck, c->counts.violations);
    KH_CK(ck, c->counts.warnings);
    KH_CK_ARR(ck, c->counts.by_rule, sizeof c->counts.by_rule / sizeof c->counts.by_rule[0]);
    for (unsigned i = 0; i < MESHES && !kh_ck_failed(ck); i++) {
        ck_mesh *m = &c->mesh[i];
        kh_ck_same(ck, (uint64_t)m->declared, "a mesh declared to the checker");
        if (!m->declared || kh_ck_failed(ck)) continue;
        kh_ck_sparse(ck, m->inj_left, sizeof *m->inj_left, PAIRS, "a pair's injected CU_DATA flits due");
        kh_flitstream_ckpt(m->stream, ck);
    }
}
