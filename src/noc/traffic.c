/* Synthetic traffic generators and sinks (traffic.h). A generator is a
 * component stepped only when it has a flit to offer or an arrival is due;
 * arrivals while it waits for space are generated lazily when it wakes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/ckpt.h"
#include "kohaku/gen/flit.h"
#include "kohaku/traffic.h"
#include "noc/router_int.h"
#include "noc/traffic_gap.h"

typedef struct tgen tgen;

struct kh_traffic {
    kh_traffic_cfg cfg;
    unsigned n;
    tgen **ep;
    uint32_t *tx_seq;    /* [src * n + dst]: next sequence number to send */
    uint32_t *rx_seq;    /* [src * n + dst]: next sequence number expected */
    uint64_t *hdr;       /* [src * n + dst]: header word */
    int hotspot;         /* endpoint index of memory port 0 (or 0) */
    uint64_t refused, errors;
    char first_error[256];
};

struct tgen {
    kh_comp comp; /* first member */
    kh_traffic *t;
    unsigned idx;
    uint8_t x, y;
    int transpose_dst;   /* endpoint index, -1 if this source is silent */
    kh_link *out;        /* into the router */
    kh_link *in;         /* from the router (woken with kh_link_space) */
    uint64_t rng;
    uint64_t threshold;  /* arrival iff rng < threshold; 0 = every cycle */
    int gap_avx512;      /* gap() searches 8 (1) or 32 (2) draws at once (traffic_x86.c), resolved once */
    double log_miss;     /* rates below GEOMETRIC_BELOW: log(1 - rate), one draw per arrival; else 0 */
    uint64_t limit;      /* cfg.max_flits, UINT64_MAX for none (one compare per step) */
    kh_cycle stop;       /* cfg.stop */
    kh_cycle next_arrival;
    uint64_t generated;
    uint32_t *tx_row;    /* &t->tx_seq[idx * n], &t->hdr[idx * n]: this source's row, */
    const uint64_t *hdr_row; /* and the settings below, at hand in the endpoint (per-flit reads) */
    unsigned sink_period, others; /* cfg.sink_period; n - 1 */
    kh_traffic_pattern pattern;
    unsigned pending;    /* arrivals queued, not yet built */
    kh_router *down;     /* the router `out` feeds when it steps before us (saturating_refused) */
    unsigned down_port;
    kh_cycle early_at;   /* cur was built ahead for this cycle (saturating_refused); 0: never */
    int has_cur;
    kh_flit cur;
    /* statistics */
    uint64_t sent, delivered, latency_sum, latency_max;
};

/* Test-flit payload words: the endpoint's own data, not a protocol field. */
enum { PW_SEQ = 0, PW_OFFERED = 1, PW_SRC = 2, PW_DST = 3 };

/* splitmix64 without its last step, z ^ (z >> 31) */
static uint64_t splitmix_pre(uint64_t *s)
{
    uint64_t z = (*s += KH_SPLITMIX_GAMMA);
    z = (z ^ (z >> 30)) * KH_SPLITMIX_M1;
    return (z ^ (z >> 27)) * KH_SPLITMIX_M2;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = splitmix_pre(s);
    return z ^ (z >> 31);
}

/* Cycles to the next arrival: one draw per cycle until a draw is below the
 * threshold. The last step of a draw keeps bits 63..33 of z, so z above
 * thr | (2^33 - 1) is a miss without it (one compare per cycle of the gap
 * instead of three operations; the same draws, the same answer). */
/* Below this threshold (rate 2^-20) a per-cycle draw would spend about a
 * million draws per arrival, and rate * 2^64 loses the rate's precision:
 * the gap is drawn once, from the geometric distribution the per-cycle
 * draws follow. Every rate above keeps its per-cycle draws and figures. */
#define GEOMETRIC_BELOW (UINT64_C(1) << 44)
/* A gap this long is "never" (the clock is far from wrapping after it). */
#define GAP_MAX (UINT64_C(1) << 62)

static kh_cycle gap_geometric(tgen *g)
{
    double u = ((double)(splitmix(&g->rng) >> 11) + 1.0) * 0x1p-53; /* (0, 1] */
    double k = floor(log(u) / g->log_miss);                          /* misses before the arrival */
    return k < (double)(GAP_MAX - 1) ? (kh_cycle)k + 1 : GAP_MAX;
}

static kh_cycle gap(tgen *g)
{
    if (g->log_miss != 0) return gap_geometric(g);
    if (!g->threshold) return 1;
#ifdef KH_TRAFFIC_HAVE_X86
    if (g->gap_avx512)
        return g->gap_avx512 == 2 ? kh_traffic_gap32_avx512(&g->rng, g->threshold)
                                  : kh_traffic_gap8_avx512(&g->rng, g->threshold);
#endif
    uint64_t thr = g->threshold, miss = thr | ((UINT64_C(1) << 33) - 1);
    kh_cycle k = 1;
    for (;; k++) {
        uint64_t z = splitmix_pre(&g->rng);
        if (z <= miss && (z ^ (z >> 31)) < thr) return k;
    }
}

static int pick_dst(tgen *g)
{
    switch (g->pattern) {
    case KH_TRAFFIC_TRANSPOSE: return g->transpose_dst;
    case KH_TRAFFIC_HOTSPOT:
        if ((int)g->idx != g->t->hotspot && (splitmix(&g->rng) & 3) == 0) return g->t->hotspot;
        /* fall through */
    default: {
        if (!g->others) return -1;
        /* multiply-shift instead of a 64-bit modulo: uniform enough here */
        unsigned d = (unsigned)(((splitmix(&g->rng) & 0xffffffffu) * g->others) >> 32);
        return (int)(d >= g->idx ? d + 1 : d);
    }
    }
}

/* Header word of a flit from endpoint src to endpoint dst, built once
 * through the accessors (flits.md §2). */
static uint64_t header_word(const tgen *src, const tgen *dst)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, dst->x);
    kh_hdr_set_dst_y(f.w, dst->y);
    kh_hdr_set_src_x(f.w, src->x);
    kh_hdr_set_src_y(f.w, src->y);
    kh_hdr_set_type(f.w, KH_T_CU_DATA);
    kh_hdr_set_last(f.w, 1);
    return f.w[KH_FLIT_HDR_WORD];
}

static void build(tgen *g, unsigned dst, kh_cycle now)
{
    uint64_t *w = g->cur.w;
    w[PW_SEQ] = g->tx_row[dst]++;
    w[PW_OFFERED] = now;
    w[PW_SRC] = g->idx;
    w[PW_DST] = dst;
    w[KH_FLIT_HDR_WORD] = g->hdr_row[dst];
}

static int below_max(const tgen *g) { return g->generated < g->limit; }

static int generating(const tgen *g) { return g->next_arrival < g->stop && below_max(g); }

/* Bernoulli source: count the arrivals up to now into the bounded source
 * queue. Arrivals are counted lazily (when the generator next looks), which
 * gives the same counts since nothing leaves the queue in between. */
static void arrivals(tgen *g, kh_cycle now)
{
    kh_traffic *t = g->t;
    unsigned cap = t->cfg.src_queue ? t->cfg.src_queue : 64;
    while (g->next_arrival <= now && generating(g)) {
        g->generated++;
        if (g->pending < cap)
            g->pending++;
        else
            t->refused++;
        g->next_arrival += gap(g);
    }
}

/* A saturating source that sent in cycle now offers again in now + 1, and
 * that offer is refused if the router input is full now: the router steps
 * before us (lower id), so its pop of this cycle, if any, is counted. The
 * source then builds that flit ahead (offered now + 1, the same draws in
 * the same order), marks the link refused from now + 1 and sleeps until
 * the router's pop wakes it (kh_link_space), skipping the refused step.
 * Only while the router has a step in now + 1 anyway, so the cycles the
 * simulation runs are the same; kh_traffic_stats_get, tgen_stuck and
 * kh_traffic_check leave out a flit built ahead for a cycle not yet run. */
static int saturating_refused(tgen *g, kh_cycle now)
{
    kh_router *r = g->down;
    if (!r || r->in[g->down_port].count < r->in[g->down_port].cap) return 0;
    return kh_comp_steps_next(&r->comp, now);
}

/* A flit built ahead for a cycle the simulation has not run yet. */
static int built_ahead(const tgen *g) { return g->early_at && g->early_at >= kh_sim_now(g->comp.sim); }

static void tgen_step(kh_comp *c, kh_cycle now)
{
    tgen *g = (tgen *)c;
    int saturating = g->threshold == 0;

    /* a sink that refused a flit announces its next ready cycle */
    if (g->sink_period > 1) kh_link_space(g->in, now);

    if (!g->has_cur) {
        if (!saturating) {
            arrivals(g, now);
        } else if (now < g->stop && below_max(g)) {
            /* a saturating source has a new flit whenever one can go */
            g->generated++;
            g->pending = 1;
        }
        if (g->pending) {
            int dst = pick_dst(g);
            g->pending--;
            if (dst >= 0) {
                build(g, (unsigned)dst, now);
                g->has_cur = 1;
            }
        }
    }
    if (g->has_cur) {
        if (!kh_noc_send(g->out, &g->cur, now)) return; /* held (mesh.md §4); kh_link_space wakes us */
        g->has_cur = 0;
        g->sent++;
    }
    if (saturating) {
        if (now + 1 < g->stop && below_max(g)) {
            if (saturating_refused(g, now)) {
                g->generated++;
                build(g, (unsigned)pick_dst(g), now + 1);
                g->has_cur = 1;
                g->early_at = now + 1;
                g->out->blocked_since = now + 1;
            } else {
                kh_comp_wake_next(c, now);
            }
        }
    } else if (g->pending) {
        kh_comp_wake_next(c, now);
    } else if (generating(g)) {
        kh_comp_wake(c, g->next_arrival > now ? g->next_arrival : now + 1);
    }
}

static void record_error(kh_traffic *t, const char *fmt, unsigned a, unsigned b, unsigned long long v,
                         unsigned long long want)
{
    if (!t->errors++) snprintf(t->first_error, sizeof t->first_error, fmt, a, b, v, want);
}

static int tgen_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    tgen *g = (tgen *)dst;
    kh_traffic *t = g->t;
    (void)port;
    unsigned period = t->cfg.sink_period;
    if (period > 1 && now % period) {
        /* busy from own state only (mesh.md §4); announce the next ready cycle */
        kh_cycle ready = now + (period - now % period);
        kh_comp_wake(dst, ready - 1 > now ? ready - 1 : now + 1);
        return 0;
    }
    const uint64_t *w = f->w;
    unsigned src = (unsigned)w[PW_SRC], want_dst = (unsigned)w[PW_DST];
    if (src >= t->n || want_dst != g->idx) {
        record_error(t, "flit from endpoint %u for endpoint %u delivered to (%llu,%llu)", src,
                     want_dst, g->x, g->y);
    } else {
        uint32_t *rx = &t->rx_seq[src * t->n + g->idx];
        if (w[PW_SEQ] != *rx)
            record_error(t, "flit %u->%u out of order or duplicated: seq %llu, expected %llu", src,
                         g->idx, (unsigned long long)w[PW_SEQ], *rx);
        else
            ++*rx;
    }
    uint64_t lat = now - w[PW_OFFERED];
    g->delivered++;
    g->latency_sum += lat;
    if (lat > g->latency_max) g->latency_max = lat;
    return 1;
}

static int tgen_stuck(kh_comp *c, char *buf, size_t len)
{
    tgen *g = (tgen *)c;
    if (!g->has_cur || built_ahead(g)) return 0;
    snprintf(buf, len, "%s: holds a flit for dst (%u,%u) that %s refuses (mesh.md §4)", c->name,
             (unsigned)kh_hdr_dst_x(g->cur.w), (unsigned)kh_hdr_dst_y(g->cur.w), g->out->name);
    return 1;
}

static void tgen_stats(kh_comp *c, char *buf, size_t len)
{
    tgen *g = (tgen *)c;
    size_t o = strlen(buf);
    kh_bufcat(buf, len, &o,
              "\"x\":%u,\"y\":%u,\"sent\":%llu,\"delivered\":%llu,\"latency_sum\":%llu,"
              "\"latency_max\":%llu",
              g->x, g->y, (unsigned long long)g->sent, (unsigned long long)g->delivered,
              (unsigned long long)g->latency_sum, (unsigned long long)g->latency_max);
}

/* Checkpoints (docs/checkpoint.md). The settings (rate, seed's start,
 * limits, pattern) come from the configuration a restore builds with: they
 * are compared, not loaded, so another configuration is refused. Each
 * endpoint saves the sequence numbers it owns: its row of what it sent,
 * its column of what it expects; endpoint 0 also the bench's shared
 * counters (the bench has no component of its own). */
static void tgen_ckpt(kh_comp *c, kh_ck *ck)
{
    tgen *g = (tgen *)c;
    kh_traffic *t = g->t;
    uint64_t log_miss_bits;
    memcpy(&log_miss_bits, &g->log_miss, sizeof log_miss_bits);
    kh_ck_same(ck, t->n, "the traffic endpoints");
    kh_ck_same(ck, g->idx, "the endpoint's index");
    kh_ck_same(ck, g->threshold, "the arrival threshold (--rate)");
    kh_ck_same(ck, log_miss_bits, "the geometric gap's log (--rate)");
    kh_ck_same(ck, g->limit, "the flit limit");
    kh_ck_same(ck, g->stop, "the stop cycle");
    kh_ck_same(ck, (uint64_t)g->pattern, "the pattern");
    kh_ck_same(ck, g->sink_period, "the sink period");
    KH_CK(ck, g->rng);
    KH_CK(ck, g->next_arrival);
    KH_CK(ck, g->generated);
    KH_CK(ck, g->pending);
    KH_CK(ck, g->early_at);
    KH_CK(ck, g->has_cur);
    kh_ck_flit(ck, &g->cur);
    KH_CK(ck, g->sent);
    KH_CK(ck, g->delivered);
    KH_CK(ck, g->latency_sum);
    KH_CK(ck, g->latency_max);
    if (kh_ck_failed(ck)) return;
    KH_CK_ARR(ck, g->tx_row, t->n);
    for (unsigned s = 0; s < t->n; s++) KH_CK(ck, t->rx_seq[(size_t)s * t->n + g->idx]);
    if (g->idx) return;
    KH_CK(ck, t->refused);
    KH_CK(ck, t->errors);
    kh_ck_str(ck, t->first_error, sizeof t->first_error);
}

static void tgen_destroy(kh_comp *c) { free(c); }

static const kh_comp_ops tgen_ops = {
    .kind = "tgen",
    .ckpt = tgen_ckpt,
    .step = tgen_step,
    .describe_stuck = tgen_stuck,
    .stats_json = tgen_stats,
    .destroy = tgen_destroy,
};

int kh_traffic_pattern_parse(const char *s, kh_traffic_pattern *p)
{
    if (!strcmp(s, "uniform")) *p = KH_TRAFFIC_UNIFORM;
    else if (!strcmp(s, "hotspot")) *p = KH_TRAFFIC_HOTSPOT;
    else if (!strcmp(s, "transpose")) *p = KH_TRAFFIC_TRANSPOSE;
    else return -1;
    return 0;
}

kh_traffic *kh_traffic_new(kh_mesh *m, const kh_map *map, const kh_traffic_cfg *cfg, char *err,
                           size_t errlen)
{
    if (!(cfg->rate > 0) || cfg->rate > 1e9) {
        snprintf(err, errlen, "traffic rate %g: must be > 0 flits/cycle/endpoint", cfg->rate);
        return NULL;
    }
    kh_traffic *t = calloc(1, sizeof *t);
    if (!t) goto oom;
    t->cfg = *cfg;
    unsigned nep = kh_map_nendpoints(map);
    t->ep = calloc(nep ? nep : 1, sizeof *t->ep);
    if (!t->ep) goto oom;
    for (unsigned i = 0; i < nep; i++) {
        const kh_map_ep *e = kh_map_endpoint(map, i);
        if (e->kind == KH_EP_NONE && !cfg->every_position) continue;
        tgen *g = calloc(1, sizeof *g);
        if (!g) goto oom;
        g->t = t;
        g->idx = t->n;
        g->x = e->x;
        g->y = e->y;
        g->rng = cfg->seed ^ (UINT64_C(0xd1b54a32d192ed03) * (t->n + 1));
        g->threshold = cfg->rate >= 1 ? 0 : (uint64_t)(cfg->rate * 18446744073709551616.0);
        if (cfg->rate < 1 && g->threshold < GEOMETRIC_BELOW) g->log_miss = log1p(-cfg->rate);
#ifdef KH_TRAFFIC_HAVE_X86
        g->gap_avx512 = !kh_traffic_gap_avx512_ok() ? 0 : g->threshold < KH_TRAFFIC_GAP32_BELOW ? 2 : 1;
#endif
        g->transpose_dst = -1;
        g->limit = cfg->max_flits ? cfg->max_flits : UINT64_MAX;
        g->stop = cfg->stop;
        char name[48];
        snprintf(name, sizeof name, "tgen(%u,%u)", e->x, e->y);
        kh_sim_add(kh_mesh_sim(m), &g->comp, &tgen_ops, name);
        t->ep[t->n++] = g;
        if (e->kind == KH_EP_MEM && e->port == 0) t->hotspot = (int)g->idx;
        if (!(g->out = kh_mesh_attach(m, e->x, e->y, &g->comp, tgen_accept, 0, err, errlen))) {
            kh_traffic_free(t);
            return NULL;
        }
        g->in = kh_mesh_link_to(m, e->x, e->y);
        if (g->out->accept == kh_router_accept && g->out->dst && g->out->dst->id < g->comp.id) {
            g->down = (kh_router *)g->out->dst;
            g->down_port = g->out->dst_port;
        }
    }
    size_t pairs = (size_t)t->n * t->n;
    t->tx_seq = calloc(pairs ? pairs : 1, sizeof *t->tx_seq);
    t->rx_seq = calloc(pairs ? pairs : 1, sizeof *t->rx_seq);
    t->hdr = calloc(pairs ? pairs : 1, sizeof *t->hdr);
    if (!t->tx_seq || !t->rx_seq || !t->hdr) goto oom;
    for (unsigned i = 0; i < t->n; i++) {
        tgen *g = t->ep[i];
        for (unsigned k = 0; k < t->n; k++) t->hdr[(size_t)i * t->n + k] = header_word(g, t->ep[k]);
        g->tx_row = &t->tx_seq[(size_t)i * t->n];
        g->hdr_row = &t->hdr[(size_t)i * t->n];
        g->others = t->n - 1;
        g->pattern = cfg->pattern;
        g->sink_period = cfg->sink_period;
        if (g->threshold || g->sink_period > 1 || (cfg->pattern != KH_TRAFFIC_TRANSPOSE && !g->others)) g->down = NULL;
    }
    kh_cycle now = kh_sim_now(kh_mesh_sim(m));
    for (unsigned i = 0; i < t->n; i++) {
        tgen *g = t->ep[i];
        for (unsigned k = 0; k < t->n; k++)
            if (k != i && t->ep[k]->x == g->y && t->ep[k]->y == g->x) g->transpose_dst = (int)k;
        if (cfg->pattern == KH_TRAFFIC_TRANSPOSE && g->transpose_dst < 0) g->down = NULL;
        g->next_arrival = now + gap(g) - 1;
        int silent = cfg->pattern == KH_TRAFFIC_TRANSPOSE && g->transpose_dst < 0;
        if (g->next_arrival < cfg->stop && !silent) kh_comp_wake(&g->comp, g->next_arrival);
    }
    return t;
oom:
    snprintf(err, errlen, "traffic: out of memory");
    kh_traffic_free(t);
    return NULL;
}

void kh_traffic_free(kh_traffic *t)
{
    if (!t) return;
    free(t->ep);
    free(t->tx_seq);
    free(t->rx_seq);
    free(t->hdr);
    free(t);
}

void kh_traffic_stats_get(const kh_traffic *t, kh_traffic_stats *s)
{
    memset(s, 0, sizeof *s);
    s->endpoints = t->n;
    s->refused = t->refused;
    s->errors = t->errors;
    for (unsigned i = 0; i < t->n; i++) {
        const tgen *g = t->ep[i];
        s->offered += g->generated - (uint64_t)built_ahead(g);
        s->sent += g->sent;
        s->delivered += g->delivered;
        s->latency_sum += g->latency_sum;
        if (g->latency_max > s->latency_max) s->latency_max = g->latency_max;
    }
}

int kh_traffic_check(const kh_traffic *t, char *err, size_t errlen)
{
    if (t->errors) {
        snprintf(err, errlen, "%llu delivery errors; first: %s", (unsigned long long)t->errors,
                 t->first_error);
        return -1;
    }
    for (unsigned s = 0; s < t->n; s++)
        for (unsigned d = 0; d < t->n; d++) {
            size_t k = (size_t)s * t->n + d;
            const tgen *g = t->ep[s];
            uint32_t tx = t->tx_seq[k] - (uint32_t)(built_ahead(g) && g->cur.w[PW_DST] == d);
            if (tx != t->rx_seq[k]) {
                snprintf(err, errlen, "(%u,%u) -> (%u,%u): %u flits sent, %u delivered",
                         t->ep[s]->x, t->ep[s]->y, t->ep[d]->x, t->ep[d]->y, tx,
                         t->rx_seq[k]);
                return -1;
            }
        }
    return 0;
}
