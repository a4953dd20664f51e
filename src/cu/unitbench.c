/* The unit-level bench (include/kohaku/unitbench.h): a shell + unit wired to
 * one endpoint that sends instructions, answers memory requests after a
 * fixed latency and records what the unit sends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/addr.h"
#include "kohaku/check.h"
#include "kohaku/gen/flit.h"
#include "kohaku/unitbench.h"
#include "util/pages.h"

/* ---- growable arrays ---- */

#define VEC(T)          \
    struct {            \
        T *v;           \
        size_t n, cap;  \
    }

#define VEC_PUSH(vec, item)                                                   \
    do {                                                                      \
        if ((vec).n == (vec).cap) {                                           \
            size_t c_ = (vec).cap ? 2 * (vec).cap : 16;                       \
            void *p_ = realloc((vec).v, c_ * sizeof *(vec).v);                \
            if (!p_) abort();                                                 \
            (vec).v = p_;                                                     \
            (vec).cap = c_;                                                   \
        }                                                                     \
        (vec).v[(vec).n++] = (item);                                          \
    } while (0)

typedef struct timed_flit {
    kh_flit f;
    kh_cycle at;
} timed_flit;

typedef struct open_write {
    uint8_t src_x, src_y;
    uint8_t txn;
    uint64_t addr;
    unsigned beats, got;
    uint8_t data[8][32];
} open_write;

typedef struct bench_ep {
    kh_comp base;
    kh_ubench *b;
} bench_ep;

struct kh_ubench {
    kh_ubench_cfg cfg;
    kh_sim *sim;
    kh_cu *cu;
    bench_ep *ep;
    kh_link *to_cu, *from_cu;
    kh_pages mem;           /* the memory model: full 40-bit byte addresses */
    VEC(timed_flit) resp;   /* memory responses, in order, with earliest send cycle */
    size_t resp_head;
    kh_cycle resp_free;     /* the model emits one stream after another */
    VEC(timed_flit) inj;    /* injected flits, in queue order */
    size_t inj_head;
    VEC(kh_flit) insts;
    size_t inst_head;
    VEC(kh_ubench_rec) out;
    VEC(kh_ubench_rec) reqs;
    VEC(kh_ubench_write) writes;
    VEC(open_write) wopen;
    size_t completions;
    int sending;            /* what ep_step offers now: 1 response, 2 injected, 3 instruction */
    kh_check *check;        /* the live flit checker, NULL when off (docs/check.md) */
    unsigned check_logged[40];
    int check_env;          /* turned on by KOHAKU_CHECK: findings to stderr, past any log sink */
};

static void ep_wake_next(kh_ubench *b, kh_cycle now)
{
    kh_cycle t = KH_NEVER;
    if (b->resp_head < b->resp.n) t = b->resp.v[b->resp_head].at;
    if (b->inj_head < b->inj.n && b->inj.v[b->inj_head].at < t) t = b->inj.v[b->inj_head].at;
    if (b->inst_head < b->insts.n) t = now + 1 < t ? now + 1 : t;
    if (t == KH_NEVER) return;
    kh_comp_wake(&b->ep->base, t > now ? t : now + 1);
}

static void ep_step(kh_comp *c, kh_cycle now)
{
    kh_ubench *b = ((bench_ep *)c)->b;
    const kh_flit *f = NULL;
    int which = 0;
    if (b->resp_head < b->resp.n && b->resp.v[b->resp_head].at <= now) {
        f = &b->resp.v[b->resp_head].f;
        which = 1;
    } else if (b->inj_head < b->inj.n && b->inj.v[b->inj_head].at <= now) {
        f = &b->inj.v[b->inj_head].f;
        which = 2;
    } else if (b->inst_head < b->insts.n) {
        f = &b->insts.v[b->inst_head];
        which = 3;
    }
    b->sending = which;
    if (f && kh_link_send(b->to_cu, f, now)) {
        if (which == 1) b->resp_head++;
        if (which == 2) b->inj_head++;
        if (which == 3) b->inst_head++;
    } else if (f) {
        return; /* refused: kh_link_space wakes us */
    }
    ep_wake_next(b, now);
}

static void respond(kh_ubench *b, unsigned dst_x, unsigned dst_y, uint64_t addr, unsigned nwords,
                    uint8_t txn, int streaming, unsigned ew)
{
    for (unsigned i = 0; i < nwords; i++) {
        timed_flit t;
        uint64_t a = kh_addr_wrap(addr + 32ull * i);
        kh_flit_clear(&t.f);
        kh_flit_hdr h = {.dst_x = dst_x, .dst_y = dst_y, .src_x = b->cfg.mem_x, .src_y = b->cfg.mem_y,
                         .type = KH_T_MEM_RD_RESP, .txn = txn, .last = i == nwords - 1};
        if (streaming) { /* memory.md §3.2 */
            unsigned entry = i / ew, word = i % ew;
            h.txn = (txn + entry) % 256;
            h.last = word == ew - 1;
            kh_flit_set_hdr(&t.f, &h);
            kh_hdr_set_rsvd_word(t.f.w, word); /* rsvd = {0, word} */
        } else {
            kh_flit_set_hdr(&t.f, &h);
        }
        uint8_t bytes[32];
        kh_ubench_mem_read(b, a, bytes, 32);
        kh_flit_payload_from_bytes(&t.f, bytes);
        t.at = b->resp_free;
        b->resp_free++;
        VEC_PUSH(b->resp, t);
    }
}

static void read_request(kh_ubench *b, const kh_flit *f, kh_cycle now)
{
    uint64_t addr = kh_mem_rd_req_addr(f->w) & ~31ull;
    unsigned src_x = (unsigned)kh_hdr_src_x(f->w), src_y = (unsigned)kh_hdr_src_y(f->w);
    uint8_t txn = (uint8_t)kh_hdr_txn(f->w);
    kh_cycle start = now + 1 + b->cfg.rd_lat; /* counted from the edge after the request */
    if (b->resp_free < start) b->resp_free = start;
    if (kh_mem_rd_req_flag_stream(f->w)) {
        /* memory.md §3.2: 0 or >4 entry words mean 4; count 0 means 1 */
        unsigned ew = (unsigned)kh_mem_rd_req_entry_words(f->w);
        unsigned n = (unsigned)kh_mem_rd_req_count(f->w);
        if (ew == 0 || ew > 4) ew = 4;
        if (n == 0) n = 1;
        for (unsigned e = 0; e < n; e++)
            respond(b, src_x, src_y, addr + 32ull * ew * e, ew, (uint8_t)(txn + e), 1, ew);
        /* peers get their own copies only in a real agent: record them */
    } else {
        respond(b, src_x, src_y, addr, (unsigned)kh_mem_rd_req_len(f->w) + 1, txn, 0, 1);
    }
    kh_comp_wake(&b->ep->base, b->resp.v[b->resp_head].at > now ? b->resp.v[b->resp_head].at : now + 1);
}

static open_write *find_write(kh_ubench *b, unsigned x, unsigned y)
{
    for (size_t i = 0; i < b->wopen.n; i++)
        if (b->wopen.v[i].src_x == x && b->wopen.v[i].src_y == y) return &b->wopen.v[i];
    return NULL;
}

static void write_flit(kh_ubench *b, const kh_flit *f, kh_cycle now)
{
    unsigned x = (unsigned)kh_hdr_src_x(f->w), y = (unsigned)kh_hdr_src_y(f->w);
    if (kh_hdr_type(f->w) == KH_T_MEM_WR_REQ) {
        open_write w;
        memset(&w, 0, sizeof w);
        w.src_x = (uint8_t)x;
        w.src_y = (uint8_t)y;
        w.txn = (uint8_t)kh_hdr_txn(f->w);
        w.addr = kh_mem_wr_req_addr(f->w) & ~31ull;
        w.beats = ((unsigned)kh_mem_wr_req_len(f->w) & 7) + 1; /* memory.md §4: len <= 7 */
        if (find_write(b, x, y))
            kh_sim_log(b->sim, KH_LOG_WARN,
                       "unit bench: second MEM_WR_REQ from (%u,%u) before the first completed", x, y);
        VEC_PUSH(b->wopen, w);
        return;
    }
    open_write *w = find_write(b, x, y);
    if (!w) {
        kh_sim_log(b->sim, KH_LOG_WARN, "unit bench: MEM_WR_DATA from (%u,%u) with no open write dropped",
                   x, y);
        return;
    }
    kh_flit_payload_to_bytes(f, w->data[w->got++]);
    if (w->got < w->beats) return;
    for (unsigned i = 0; i < w->beats; i++) {
        kh_ubench_write rec;
        rec.addr = kh_addr_wrap(w->addr + 32ull * i);
        memcpy(rec.bytes, w->data[i], 32);
        rec.cycle = now;
        kh_ubench_mem_write(b, rec.addr, rec.bytes, 32);
        VEC_PUSH(b->writes, rec);
    }
    if (b->cfg.send_acks) {
        timed_flit t;
        kh_flit_clear(&t.f);
        kh_flit_set_hdr(&t.f, &(kh_flit_hdr){.dst_x = x, .dst_y = y, .src_x = b->cfg.mem_x, .src_y = b->cfg.mem_y,
                                             .type = KH_T_MEM_WR_ACK, .txn = w->txn, .last = 1}); /* memory.md §5 */
        t.at = now + b->cfg.rd_lat;
        if (b->resp_free > t.at) t.at = b->resp_free;
        b->resp_free = t.at + 1;
        VEC_PUSH(b->resp, t);
        kh_comp_wake(&b->ep->base, t.at > now ? t.at : now + 1); /* we are inside the unit's step */
    }
    *w = b->wopen.v[--b->wopen.n]; /* close the slot */
}

static int ep_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    kh_ubench *b = ((bench_ep *)dst)->b;
    kh_ubench_rec rec = {*f, now};
    (void)port;
    switch (kh_hdr_type(f->w)) {
    case KH_T_MEM_RD_REQ:
        VEC_PUSH(b->reqs, rec);
        read_request(b, f, now);
        break;
    case KH_T_MEM_WR_REQ:
        VEC_PUSH(b->reqs, rec);
        write_flit(b, f, now);
        break;
    case KH_T_MEM_WR_DATA:
        write_flit(b, f, now);
        break;
    case KH_T_CU_SIGNAL: {
        unsigned code = (unsigned)kh_cu_signal_code(f->w);
        if (code == KH_SIG_INST_COMPLETE || code == KH_SIG_BATCH_COMPLETE || code == KH_SIG_FAULT)
            b->completions++;
        VEC_PUSH(b->out, rec);
        break;
    }
    default:
        VEC_PUSH(b->out, rec);
        break;
    }
    return 1; /* never back-pressured */
}

static int ep_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_ubench *b = ((bench_ep *)c)->b;
    if (b->wopen.n) {
        snprintf(buf, len, "memory model: write from (%u,%u) waits for %u more data flits",
                 b->wopen.v[0].src_x, b->wopen.v[0].src_y, b->wopen.v[0].beats - b->wopen.v[0].got);
        return 1;
    }
    return 0;
}

static void ep_destroy(kh_comp *c) { free(c); }

static const kh_comp_ops ep_ops = {
    .kind = "bench", .step = ep_step, .describe_stuck = ep_stuck, .destroy = ep_destroy};

static int set_check(kh_ubench *b, kh_check_report_fn report, void *ctx, int env);

kh_ubench *kh_ubench_new(const kh_ubench_cfg *cfg, char *err, size_t errlen)
{
    kh_ubench *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    b->cfg = *cfg;
    kh_pages_init(&b->mem);
    b->sim = kh_sim_new(&cfg->params);
    b->ep = calloc(1, sizeof *b->ep);
    if (!b->sim || !b->ep) {
        snprintf(err, errlen, "out of memory");
        kh_sim_destroy(b->sim);
        free(b->ep);
        free(b);
        return NULL;
    }
    b->ep->b = b;
    kh_sim_add(b->sim, &b->ep->base, &ep_ops, "bench");
    kh_cu_place place = {cfg->cu_x, cfg->cu_y, cfg->mem_x, cfg->mem_y, 0};
    b->cu = kh_cu_new(b->sim, cfg->kind, &place, err, errlen);
    if (!b->cu) {
        kh_ubench_free(b);
        return NULL;
    }
    b->to_cu = kh_link_new(b->sim, &b->ep->base, kh_cu_comp(b->cu), 0, kh_cu_accept, "bench->unit");
    b->from_cu = kh_link_new(b->sim, kh_cu_comp(b->cu), &b->ep->base, 0, ep_accept, "unit->bench");
    kh_cu_set_out(b->cu, b->from_cu);
    const char *env = getenv("KOHAKU_CHECK"); /* the test-sweep switch (docs/check.md) */
    if (env && *env && strcmp(env, "0") && set_check(b, NULL, NULL, 1)) {
        snprintf(err, errlen, "out of memory for the flit checker");
        kh_ubench_free(b);
        return NULL;
    }
    return b;
}

void kh_ubench_free(kh_ubench *b)
{
    if (!b) return;
    kh_check_free(b->check); /* detaches from the simulation: before it goes */
    kh_sim_destroy(b->sim);
    kh_pages_free(&b->mem);
    free(b->resp.v);
    free(b->inj.v);
    free(b->insts.v);
    free(b->out.v);
    free(b->reqs.v);
    free(b->writes.v);
    free(b->wopen.v);
    free(b);
}

kh_sim *kh_ubench_sim(kh_ubench *b) { return b->sim; }
kh_cu *kh_ubench_cu(kh_ubench *b) { return b->cu; }

void kh_ubench_mem_write(kh_ubench *b, uint64_t addr, const uint8_t *bytes, size_t n)
{
    if (kh_pages_write(&b->mem, addr, bytes, n)) abort(); /* out of memory in a bench */
}

void kh_ubench_mem_read(kh_ubench *b, uint64_t addr, uint8_t *bytes, size_t n)
{
    kh_pages_read(&b->mem, addr, bytes, n);
}

void kh_ubench_inst(kh_ubench *b, const kh_flit *payload, uint8_t txn, int last)
{
    kh_flit f = *payload;
    f.w[4] = 0;
    kh_hdr_set_dst_x(f.w, b->cfg.cu_x);
    kh_hdr_set_dst_y(f.w, b->cfg.cu_y);
    kh_hdr_set_src_x(f.w, b->cfg.src_x);
    kh_hdr_set_src_y(f.w, b->cfg.src_y);
    kh_hdr_set_type(f.w, KH_T_CU_INST);
    kh_hdr_set_txn(f.w, txn);
    kh_hdr_set_last(f.w, last ? 1 : 0);
    VEC_PUSH(b->insts, f);
    kh_comp_wake(&b->ep->base, kh_sim_now(b->sim));
}

void kh_ubench_inject(kh_ubench *b, const kh_flit *f, kh_cycle at)
{
    timed_flit t = {*f, at};
    VEC_PUSH(b->inj, t);
    kh_comp_wake(&b->ep->base, at > kh_sim_now(b->sim) ? at : kh_sim_now(b->sim));
}

int kh_ubench_run(kh_ubench *b, kh_cycle limit, char *err, size_t errlen)
{
    kh_cycle end = kh_sim_now(b->sim) + limit;
    for (;;) {
        kh_cycle now = kh_sim_now(b->sim);
        if (now >= end) {
            snprintf(err, errlen, "cycle limit %llu reached with %zu of %zu instructions completed",
                     (unsigned long long)limit, b->completions, b->insts.n);
            return 0;
        }
        int idle = kh_sim_run_until_idle(b->sim, end - now);
        if (!idle) continue;
        if (b->completions >= b->insts.n) return 1;
        char diag[2048];
        if (!kh_sim_describe_stuck(b->sim, diag, sizeof diag))
            snprintf(diag, sizeof diag, "nothing reports outstanding work\n");
        snprintf(err, errlen, "stuck at cycle %llu with %zu of %zu instructions completed:\n%s",
                 (unsigned long long)kh_sim_now(b->sim), b->completions, b->insts.n, diag);
        return -1;
    }
}

size_t kh_ubench_nout(const kh_ubench *b) { return b->out.n; }
const kh_ubench_rec *kh_ubench_out(const kh_ubench *b, size_t i) { return i < b->out.n ? &b->out.v[i] : NULL; }
size_t kh_ubench_nreq(const kh_ubench *b) { return b->reqs.n; }
const kh_ubench_rec *kh_ubench_req(const kh_ubench *b, size_t i) { return i < b->reqs.n ? &b->reqs.v[i] : NULL; }
size_t kh_ubench_nwrites(const kh_ubench *b) { return b->writes.n; }
const kh_ubench_write *kh_ubench_writes(const kh_ubench *b, size_t i)
{
    return i < b->writes.n ? &b->writes.v[i] : NULL;
}

/* ---- live flit checking (docs/check.md) ---- */

/* The bench endpoint stands in for a memory port (responses, acks, from
 * mem) and for the orchestrator (instructions from src: the dispatcher when
 * it answers at the memory coordinate as on a machine, else a raw sender;
 * injected flits: the mailbox, anything goes). */
static kh_flit_origin bench_origin(void *ep)
{
    kh_ubench *b = ep;
    if (b->sending == 1) return KH_ORIGIN_AGENT;
    if (b->sending == 3 && b->cfg.src_x == b->cfg.mem_x && b->cfg.src_y == b->cfg.mem_y) return KH_ORIGIN_DISPATCH;
    return KH_ORIGIN_MAILBOX;
}

static kh_flit_origin unit_origin(void *ep) { return kh_cu_out_framework(ep) ? KH_ORIGIN_SHELL : KH_ORIGIN_UNIT; }

static void own_report(void *ctx, const kh_check_finding *f)
{
    kh_ubench *b = ctx;
    unsigned r = f->issue.rule < 40 ? f->issue.rule : 0;
    if (b->check_logged[r] > 5) return;
    if (b->check_logged[r]++ == 5) {
        if (b->check_env) fprintf(stderr, "kohaku: flit check: further V%u findings are counted, not logged\n", r);
        else kh_sim_log(b->sim, KH_LOG_WARN, "flit check: further V%u findings are counted, not logged", r);
        return;
    }
    char line[900];
    kh_check_format(f, line, sizeof line);
    if (b->check_env) /* a sweep: past whatever log sink a test installed (and its counts) */
        fprintf(stderr, "kohaku: %s: flit check: %s\n", f->issue.warn ? "warning" : "error", line);
    else
        kh_sim_log(b->sim, f->issue.warn ? KH_LOG_WARN : KH_LOG_ERROR, "flit check: %s", line);
}

static int set_check(kh_ubench *b, kh_check_report_fn report, void *ctx, int env)
{
    const kh_params *p = &b->cfg.params;
    kh_check_cfg cfg = {.stream = {.inst_depth = (unsigned)p->inst_depth, .recv_depth = (unsigned)p->recv_depth},
                        .profile_l = (int)p->l_ack_dropflag,
                        .report = report ? report : own_report,
                        .ctx = report ? ctx : b};
    kh_check_free(b->check);
    memset(b->check_logged, 0, sizeof b->check_logged);
    b->check_env = env;
    kh_check *c = b->check = kh_check_new(b->sim, &cfg);
    uint8_t mx = b->cfg.mem_x, my = b->cfg.mem_y;
    if (!c || kh_check_mesh(c, 0, 1, &mx, &my)) goto oom;
    kh_check_unit_at(c, 0, b->cfg.cu_x, b->cfg.cu_y);
    if (kh_check_endpoint(c, 0, &b->ep->base, mx, my, KH_CHECK_EP_BENCH, bench_origin, b) ||
        kh_check_endpoint(c, 0, kh_cu_comp(b->cu), b->cfg.cu_x, b->cfg.cu_y, KH_CHECK_EP_UNIT, unit_origin, b->cu) ||
        kh_check_attach(c))
        goto oom;
    return 0;
oom:
    kh_check_free(c);
    b->check = NULL;
    return -1;
}

int kh_ubench_set_check(kh_ubench *b, kh_check_report_fn report, void *ctx)
{
    return set_check(b, report, ctx, 0);
}

kh_check *kh_ubench_check(const kh_ubench *b) { return b->check; }
