/* Test rig for the system node: test endpoints attached to the memory
 * ports directly by links (no mesh), flit builders, host-window helpers.
 * Header-only: every function is static inline. */
#ifndef KH_TEST_NODE_RIG_H
#define KH_TEST_NODE_RIG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/gen/mover.h"
#include "kohaku/node.h"
#include "support/test.h"

#define TEP_MAX 8192

/* A test endpoint: sends its queue in order (one flit per cycle, from
 * q_at[i] on), records everything it receives with the cycle. */
typedef struct tep {
    kh_comp c;
    kh_link *out;
    kh_flit *q;
    kh_cycle *q_at;
    unsigned nq, head;
    kh_flit *got;
    kh_cycle *got_at;
    unsigned ngot;
    int refuse; /* busy: refuse every flit */
    unsigned refuse_mod; /* > 0: refuse in cycles where a hash of the cycle % refuse_mod == 0 */
    kh_link *in;         /* the link into this endpoint, to release a refused sender */
    int kick;            /* a refused sender waits: release it next step */
} tep;

static inline void tep_step(kh_comp *c, kh_cycle now)
{
    tep *e = (tep *)c;
    if (e->kick && e->in) {
        e->kick = 0;
        kh_link_space(e->in, now);
    }
    if (e->head >= e->nq) return;
    if (e->q_at[e->head] > now) {
        kh_comp_wake(c, e->q_at[e->head]);
        return;
    }
    if (kh_link_send(e->out, &e->q[e->head], now)) e->head++;
    else return; /* woken by the link when space frees */
    if (e->head < e->nq) kh_comp_wake(c, e->q_at[e->head] > now + 1 ? e->q_at[e->head] : now + 1);
}

static inline int tep_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    tep *e = (tep *)dst;
    (void)port;
    if (e->refuse || e->ngot >= TEP_MAX) return 0;
    if (e->refuse_mod && ((now * 2654435761u) >> 5) % e->refuse_mod == 0) {
        e->kick = 1;
        kh_comp_wake(dst, now + 1);
        return 0;
    }
    e->got[e->ngot] = *f;
    e->got_at[e->ngot++] = now;
    return 1;
}

static inline void tep_destroy(kh_comp *c)
{
    tep *e = (tep *)c;
    free(e->q);
    free(e->q_at);
    free(e->got);
    free(e->got_at);
    free(e);
}

static const kh_comp_ops tep_ops = {.kind = "test_ep", .step = tep_step, .destroy = tep_destroy};

static inline tep *tep_new(kh_sim *sim, const char *name)
{
    tep *e = calloc(1, sizeof *e);
    e->q = calloc(TEP_MAX, sizeof *e->q);
    e->q_at = calloc(TEP_MAX, sizeof *e->q_at);
    e->got = calloc(TEP_MAX, sizeof *e->got);
    e->got_at = calloc(TEP_MAX, sizeof *e->got_at);
    kh_sim_add(sim, &e->c, &tep_ops, name);
    return e;
}

/* Queue f to be sent from cycle `at` on. */
static inline void tep_send_at(tep *e, const kh_flit *f, kh_cycle at)
{
    e->q[e->nq] = *f;
    e->q_at[e->nq++] = at;
    kh_comp_wake(&e->c, at > kh_sim_now(e->c.sim) ? at : kh_sim_now(e->c.sim));
}
static inline void tep_send(tep *e, const kh_flit *f) { tep_send_at(e, f, kh_sim_now(e->c.sim)); }

/* ---- the rig ---- */

typedef struct rig {
    kh_sim *sim;
    kh_node *n;
    tep *src[KH_NODE_MAX_PORTS];
    tep *sink[KH_NODE_MAX_PORTS];
    unsigned logs;
    char lastlog[1024];
} rig;

static inline void rig_log(void *ctx, kh_log_level lvl, const char *msg)
{
    rig *r = ctx;
    (void)lvl;
    r->logs++;
    snprintf(r->lastlog, sizeof r->lastlog, "%s", msg);
}

/* Ports at (0,1), (0,3), (0,4), (0,5) (memory.md §2 defaults). The test
 * endpoints of port order[0] are registered first, then order[1], ... (NULL:
 * ascending), so a test can run the same traffic in another step order. */
static inline void rig_init_order(rig *r, const kh_params *pp, unsigned nports, unsigned mesh_id, int ilink,
                                  const unsigned *order)
{
    kh_params p;
    if (pp) p = *pp;
    else kh_params_default(&p);
    memset(r, 0, sizeof *r);
    r->sim = kh_sim_new(&p);
    kh_sim_set_log(r->sim, rig_log, r, KH_LOG_INFO);
    kh_node_cfg cfg = {.mesh_id = mesh_id, .nports = nports, .interlink = ilink};
    static const uint8_t ys[4] = {1, 3, 4, 5};
    for (unsigned i = 0; i < nports; i++) {
        cfg.port[i].x = 0;
        cfg.port[i].y = ys[i];
    }
    char err[256];
    r->n = kh_node_new(r->sim, &cfg, err, sizeof err);
    if (!r->n) {
        printf("rig: %s\n", err);
        exit(1);
    }
    for (unsigned k = 0; k < nports; k++) {
        unsigned i = order ? order[k] : k;
        char nm[32];
        snprintf(nm, sizeof nm, "src%u", i);
        r->src[i] = tep_new(r->sim, nm);
        snprintf(nm, sizeof nm, "sink%u", i);
        r->sink[i] = tep_new(r->sim, nm);
        r->src[i]->out = kh_link_new(r->sim, &r->src[i]->c, kh_node_port(r->n, i), 0, kh_node_port_accept, "in");
        r->sink[i]->in = kh_link_new(r->sim, kh_node_port(r->n, i), &r->sink[i]->c, 0, tep_accept, "out");
        kh_node_set_port_out(r->n, i, r->sink[i]->in);
    }
}

static inline void rig_init(rig *r, const kh_params *pp, unsigned nports, unsigned mesh_id, int ilink)
{
    rig_init_order(r, pp, nports, mesh_id, ilink, NULL);
}

static inline void rig_free(rig *r) { kh_sim_destroy(r->sim); }

/* Run until nothing is pending (bounded). */
static inline void rig_run(rig *r) { kh_sim_run_until_idle(r->sim, 2000000); }

/* ---- flit builders (generated accessors only) ---- */

static inline kh_flit mk_hdr(unsigned type, unsigned sx, unsigned sy, unsigned dx, unsigned dy, unsigned txn,
                             unsigned last)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, dx);
    kh_hdr_set_dst_y(f.w, dy);
    kh_hdr_set_src_x(f.w, sx);
    kh_hdr_set_src_y(f.w, sy);
    kh_hdr_set_type(f.w, type);
    kh_hdr_set_txn(f.w, txn);
    kh_hdr_set_last(f.w, last);
    return f;
}

/* A plain read from (sx,sy) to port (0,1). */
static inline kh_flit mk_rd(unsigned sx, unsigned sy, uint64_t addr, unsigned len, unsigned txn)
{
    kh_flit f = mk_hdr(KH_T_MEM_RD_REQ, sx, sy, 0, 1, txn, 1);
    kh_mem_rd_req_set_addr(f.w, addr);
    kh_mem_rd_req_set_len(f.w, len);
    return f;
}

static inline kh_flit mk_stream(unsigned sx, unsigned sy, uint64_t addr, unsigned count, unsigned ew, unsigned txn)
{
    kh_flit f = mk_hdr(KH_T_MEM_RD_REQ, sx, sy, 0, 1, txn, 1);
    kh_mem_rd_req_set_addr(f.w, addr);
    kh_mem_rd_req_set_flag_stream(f.w, 1);
    kh_mem_rd_req_set_count(f.w, count);
    kh_mem_rd_req_set_entry_words(f.w, ew);
    return f;
}

static inline kh_flit mk_wr(unsigned sx, unsigned sy, uint64_t addr, unsigned len, unsigned txn)
{
    kh_flit f = mk_hdr(KH_T_MEM_WR_REQ, sx, sy, 0, 1, txn, 0);
    kh_mem_wr_req_set_addr(f.w, addr);
    kh_mem_wr_req_set_len(f.w, len);
    return f;
}

/* Data beat whose four words are derived from (tag, beat). */
static inline kh_flit mk_data(unsigned sx, unsigned sy, uint64_t tag, unsigned k, unsigned last)
{
    kh_flit f = mk_hdr(KH_T_MEM_WR_DATA, sx, sy, 0, 1, 0, last);
    for (int j = 0; j < 4; j++) f.w[j] = tag * 0x100000001ull + k * 0x10001ull + (uint64_t)j;
    return f;
}

/* ---- host window helpers ---- */

static inline void host_put_word(rig *r, uint64_t addr, const uint64_t w[4])
{
    uint8_t b[32];
    char err[256];
    for (int j = 0; j < 32; j++) b[j] = (uint8_t)(w[j >> 3] >> (8 * (j & 7)));
    if (kh_node_host_write(r->n, addr, b, 32, err, sizeof err)) printf("host write: %s\n", err);
}

static inline void host_get_word(rig *r, uint64_t addr, uint64_t w[4])
{
    uint8_t b[32];
    char err[256];
    memset(w, 0, 32);
    if (kh_node_host_read(r->n, addr, b, 32, err, sizeof err)) {
        printf("host read: %s\n", err);
        return;
    }
    for (int k = 0; k < 4; k++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--) v = (v << 8) | b[8 * k + j];
        w[k] = v;
    }
}

/* A word pattern for memory at addr. */
static inline void pattern(uint64_t addr, uint64_t w[4])
{
    for (int j = 0; j < 4; j++) w[j] = (addr * 0x9E3779B97F4A7C15ull) ^ (uint64_t)(j + 1) * 0x0101010101010101ull;
}

static inline int rig_stuck(rig *r, char *buf, size_t len) { return kh_sim_describe_stuck(r->sim, buf, len); }

#endif
