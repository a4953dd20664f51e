/* Routing and router timing on whole meshes (mesh.md §3-§5):
 * - every (source, destination) pair, destinations over the whole 4-bit
 *   coordinate space, follows the XY route computed here independently and
 *   is delivered at the delivery point of mesh.md §3;
 * - a lone flit over h routers takes h * (fifo_latency + 2) cycles
 *   (docs/timing.md), with the default and the recording profile;
 * - the arbiter grants in the order p, p+1, ... with p = cycle mod 5;
 * - tied-off ports swallow flits, counted per link and logged once;
 * - kh_mesh_attach refuses corners, positions off the map and doubles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/machine.h"
#include "kohaku/mesh.h"
#include "support/test.h"

/* ---- a probe endpoint: sends queued flits, records what arrives ---- */

typedef struct probe {
    kh_comp c;
    unsigned refuse;      /* refuse this many offers, then free up via kh_comp_space */
    kh_link *out;
    unsigned x, y;
    kh_flit q[8];
    unsigned nq;
    kh_cycle send_at;     /* first send cycle */
    kh_cycle sent_at[8];
    unsigned nsent;
    unsigned got;
    kh_cycle got_at[8];
    kh_flit got_f[8];
} probe;

static void probe_step(kh_comp *c, kh_cycle now)
{
    probe *p = (probe *)c;
    if (p->refuse) {
        /* ready again: wake whoever was refused, the way the unit shell does */
        p->refuse = 0;
        kh_comp_space(c, KH_ALL_PORTS, now);
    }
    if (!p->nq) return;
    if (kh_link_send(p->out, &p->q[0], now)) {
        p->sent_at[p->nsent++ & 7] = now;
        memmove(p->q, p->q + 1, --p->nq * sizeof p->q[0]);
        if (p->nq) kh_comp_wake(c, now + 1);
    }
}

static int probe_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    probe *p = (probe *)dst;
    (void)port;
    if (p->refuse) {
        kh_comp_wake(dst, now + 10);
        return 0;
    }
    p->got_at[p->got & 7] = now;
    p->got_f[p->got & 7] = *f;
    p->got++;
    return 1;
}

static void probe_destroy(kh_comp *c) { free(c); }

static const kh_comp_ops probe_ops = {.kind = "probe", .step = probe_step, .destroy = probe_destroy};

static probe *probe_at(kh_mesh *m, unsigned x, unsigned y)
{
    probe *p = calloc(1, sizeof *p);
    char name[32], err[256];
    snprintf(name, sizeof name, "probe(%u,%u)", x, y);
    kh_sim_add(kh_mesh_sim(m), &p->c, &probe_ops, name);
    p->x = x;
    p->y = y;
    p->out = kh_mesh_attach(m, x, y, &p->c, probe_accept, 0, err, sizeof err);
    if (!p->out) kh_test_fail(__FILE__, __LINE__, "%s", err);
    return p;
}

static kh_flit flit_to(unsigned dx, unsigned dy, unsigned sx, unsigned sy, uint64_t tag)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, dx);
    kh_hdr_set_dst_y(f.w, dy);
    kh_hdr_set_src_x(f.w, sx);
    kh_hdr_set_src_y(f.w, sy);
    kh_hdr_set_type(f.w, KH_T_CU_DATA);
    kh_hdr_set_last(f.w, 1);
    f.w[0] = tag;
    return f;
}

static void probe_send(probe *p, kh_flit f, kh_cycle at)
{
    p->q[p->nq++] = f;
    kh_comp_wake(&p->c, at);
}

/* ---- a trace sink that records which routers forwarded a flit ---- */

typedef struct hops {
    kh_trace t;
    const kh_mesh *m;
    unsigned n;
    unsigned rx[64], ry[64];
} hops;

static void hops_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    hops *h = ctx;
    (void)f;
    (void)now;
    for (unsigned y = 1; y <= kh_mesh_ny(h->m); y++)
        for (unsigned x = 1; x <= kh_mesh_nx(h->m); x++)
            if (l->src == kh_router_comp(kh_mesh_router(h->m, x, y)) && h->n < 64) {
                h->rx[h->n] = x;
                h->ry[h->n++] = y;
            }
}

/* ---- the expected route, written from the text of mesh.md §1 and §3 ---- */

static unsigned clampu(unsigned v, unsigned hi) { return v < 1 ? 1 : v > hi ? hi : v; }

/* The router an endpoint position hangs off (mesh.md §1). */
static void router_of(unsigned nx, unsigned ny, unsigned x, unsigned y, unsigned *rx, unsigned *ry)
{
    *rx = clampu(x, nx);
    *ry = clampu(y, ny);
}

/* mesh.md §3 "Delivery point of an arbitrary destination" */
static void delivery(unsigned nx, unsigned ny, unsigned px, unsigned py, unsigned *x, unsigned *y)
{
    if (px < 1) { *x = 0; *y = clampu(py, ny); }
    else if (px > nx) { *x = nx + 1; *y = clampu(py, ny); }
    else if (py < 1) { *x = px; *y = 0; }
    else if (py > ny) { *x = px; *y = ny + 1; }
    else { *x = px; *y = py; }
}

/* XY: along the row to the exit router's column, then along the column. */
static unsigned xy_path(unsigned x0, unsigned y0, unsigned x1, unsigned y1, unsigned *px, unsigned *py)
{
    unsigned n = 0, x = x0, y = y0;
    px[n] = x, py[n++] = y;
    while (x != x1) {
        x = x < x1 ? x + 1 : x - 1;
        px[n] = x, py[n++] = y;
    }
    while (y != y1) {
        y = y < y1 ? y + 1 : y - 1;
        px[n] = x, py[n++] = y;
    }
    return n;
}

static kh_map *load(const char *name)
{
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/maps/%s", kh_test_data_dir(), name);
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *m = kh_map_load(path, &units, err, sizeof err);
    if (!m) kh_test_fail(__FILE__, __LINE__, "%s", err);
    return m;
}

/* Every source position x every destination (x, y) in 0..15 on one map:
 * path, delivery point and, optionally, the latency formula. */
static void check_all_routes(const char *mapname, const char *profile, unsigned hop_cycles)
{
    kh_map *map = load(mapname);
    if (!map) return;
    kh_params p;
    char err[256];
    kh_params_default(&p);
    if (profile && kh_params_profile(&p, profile, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
    kh_sim *sim = kh_sim_new(&p);
    kh_mesh *m = kh_mesh_new(sim, map, err, sizeof err);
    CHECK(m != NULL);
    if (!m) return;
    unsigned nx = kh_map_nx(map), ny = kh_map_ny(map), nep = kh_map_nendpoints(map);
    probe *at[16][16] = {{0}};
    for (unsigned i = 0; i < nep; i++) {
        const kh_map_ep *e = kh_map_endpoint(map, i);
        at[e->y][e->x] = probe_at(m, e->x, e->y);
    }
    hops h = {.t = {.ctx = &h, .link = hops_link}, .m = m};
    kh_sim_set_trace(sim, &h.t);
    unsigned bad = 0;
    for (unsigned i = 0; i < nep && bad < 5; i++) {
        const kh_map_ep *s = kh_map_endpoint(map, i);
        for (unsigned py = 0; py < 16 && bad < 5; py++) {
            for (unsigned px = 0; px < 16 && bad < 5; px++) {
                unsigned dx, dy, rx0, ry0, rx1, ry1, ex[64], ey[64];
                delivery(nx, ny, px, py, &dx, &dy);
                router_of(nx, ny, s->x, s->y, &rx0, &ry0);
                router_of(nx, ny, dx, dy, &rx1, &ry1);
                unsigned n = xy_path(rx0, ry0, rx1, ry1, ex, ey);
                probe *src = at[s->y][s->x], *dst = at[dy][dx];
                unsigned got0 = dst->got;
                h.n = 0;
                kh_cycle t0 = kh_sim_now(sim);
                probe_send(src, flit_to(px, py, s->x, s->y, i), t0);
                CHECK(kh_sim_run_until_idle(sim, 1000));
                int ok = dst->got == got0 + 1 && h.n == n;
                for (unsigned k = 0; ok && k < n; k++) ok = h.rx[k] == ex[k] && h.ry[k] == ey[k];
                if (ok && hop_cycles) ok = dst->got_at[got0 & 7] - t0 == (kh_cycle)n * hop_cycles;
                if (!ok) {
                    bad++;
                    kh_test_fail(__FILE__, __LINE__,
                                 "%s: (%u,%u) -> dst (%u,%u): want %u routers to (%u,%u), got %u "
                                 "routers, delivered %u, latency %llu (want %u)",
                                 mapname, s->x, s->y, px, py, n, dx, dy, h.n, dst->got - got0,
                                 (unsigned long long)(dst->got_at[got0 & 7] - t0), n * hop_cycles);
                }
            }
        }
    }
    kh_sim_destroy(sim);
    kh_mesh_free(m);
    kh_map_free(map);
}

static void xy_route_every_pair_2x2(void) { check_all_routes("mesh_2x2.txt", NULL, 0); }
static void xy_route_every_pair_4x2(void) { check_all_routes("mesh_4x2.txt", NULL, 0); }
static void xy_route_every_pair_5x4(void) { check_all_routes("mesh_4x5.txt", NULL, 0); }
static void xy_route_every_pair_2x3(void) { check_all_routes("mesh_2x3_6cu3vec.txt", NULL, 0); }
static void xy_route_every_pair_1x1(void) { check_all_routes("mesh_1x1_min.txt", NULL, 0); }

/* docs/timing.md: a lone flit over h routers, h * (F + 2) cycles. */
static void lone_flit_latency_default_4_per_router(void) { check_all_routes("mesh_4x4.txt", NULL, 4); }
static void lone_flit_latency_recording_3_per_router(void) { check_all_routes("mesh_4x4.txt", "rec", 3); }

static void route_function_matches_delivery_point(void)
{
    /* (0,0) goes to the west endpoint of row 1; x > NX+1 aliases east (mesh.md §3) */
    unsigned x, y;
    kh_noc_delivery(4, 4, 0, 0, &x, &y);
    CHECK(x == 0 && y == 1);
    kh_noc_delivery(4, 4, 9, 2, &x, &y);
    CHECK(x == 5 && y == 2);
    kh_noc_delivery(4, 4, 15, 15, &x, &y);
    CHECK(x == 5 && y == 4);
    kh_noc_delivery(4, 4, 3, 12, &x, &y);
    CHECK(x == 3 && y == 5);
    CHECK_EQ(kh_noc_route(1, 1, 4, 4, 0, 0), KH_DIR_W);
    CHECK_EQ(kh_noc_route(2, 1, 4, 4, 0, 3), KH_DIR_W); /* X first, on the clamped coordinate */
    CHECK_EQ(kh_noc_route(1, 1, 4, 4, 0, 3), KH_DIR_S); /* x done (clamped), then Y */
    CHECK_EQ(kh_noc_route(1, 3, 4, 4, 0, 3), KH_DIR_W); /* at the router: out to the edge */
    CHECK_EQ(kh_noc_route(4, 4, 4, 4, 4, 4), KH_DIR_L);
}

/* Two flits for the same output granted in the same cycle T: inputs N (0)
 * and W (3); pointer p = T mod 5 searches p, p+1, ...: W wins when p is 1,
 * 2 or 3, N when p is 4 or 0 (mesh.md §5). */
static void arbiter_order_follows_cycle_mod_5(void)
{
    for (kh_cycle t = 10; t < 15; t++) {
        char err[256];
        kh_map *map = load("mesh_1x1_min.txt"); /* router (1,1); (2,1) is nul */
        if (!map) return;
        kh_sim *sim = kh_sim_new(NULL);
        kh_mesh *m = kh_mesh_new(sim, map, err, sizeof err);
        probe *north = probe_at(m, 1, 0), *west = probe_at(m, 0, 1), *east = probe_at(m, 2, 1);
        probe_send(north, flit_to(2, 1, 1, 0, 0xa), t);
        probe_send(west, flit_to(2, 1, 0, 1, 0xb), t);
        CHECK(kh_sim_run_until_idle(sim, 1000));
        CHECK_EQ(east->got, 2);
        /* both accepted at t, visible and loaded at t+2, granted from t+3 */
        unsigned p = (unsigned)((t + 3) % 5);
        uint64_t first = p >= 1 && p <= 3 ? 0xb : 0xa;
        CHECK_EQ(east->got_f[0].w[0], first);
        CHECK_EQ(east->got_at[0], t + 4);
        CHECK_EQ(east->got_at[1], t + 5);
        kh_sim_destroy(sim);
        kh_mesh_free(m);
        kh_map_free(map);
    }
}

/* Every set of requesting inputs at every pointer value: one output (S of a
 * lone router) is granted once per cycle T to the first requesting input in
 * the order p, p+1, ... with p = T mod 5 (mesh.md §5), computed here. */
static void arbiter_grants_first_requester_from_pointer_every_set(void)
{
    /* the input each position feeds, and back: N, E, S, W, L (mesh.md §1) */
    static const unsigned px[KH_NDIRS] = {1, 2, 1, 0, 1}, py[KH_NDIRS] = {0, 1, 2, 1, 1};
    kh_map *map = load("mesh_1x1_min.txt");
    if (!map) return;
    for (kh_cycle t = 10; t < 15; t++) {
        for (unsigned set = 1; set < 32; set++) {
            char err[256];
            kh_sim *sim = kh_sim_new(NULL);
            kh_mesh *m = kh_mesh_new(sim, map, err, sizeof err);
            probe *pr[KH_NDIRS];
            for (unsigned d = 0; d < KH_NDIRS; d++) pr[d] = probe_at(m, px[d], py[d]);
            for (unsigned d = 0; d < KH_NDIRS; d++)
                if (set >> d & 1) probe_send(pr[d], flit_to(1, 2, px[d], py[d], d), t);
            CHECK(kh_sim_run_until_idle(sim, 1000));
            probe *south = pr[KH_DIR_S];
            /* accepted at t, loaded at t + 2, one grant per cycle from t + 3 */
            unsigned pending = set, k = 0;
            for (kh_cycle g = t + 3; pending; g++, k++) {
                unsigned p = (unsigned)(g % KH_NDIRS), win = KH_NDIRS;
                for (unsigned j = 0; j < KH_NDIRS && win == KH_NDIRS; j++)
                    if (pending >> ((p + j) % KH_NDIRS) & 1) win = (p + j) % KH_NDIRS;
                pending &= ~(1u << win);
                CHECK(k < south->got);
                if (k >= south->got) break;
                CHECK_EQ(south->got_f[k].w[0], win);
                CHECK_EQ(south->got_at[k], g + 1);
            }
            CHECK_EQ(south->got, k);
            kh_sim_destroy(sim);
            kh_mesh_free(m);
        }
    }
    kh_map_free(map);
}

static void quiet(void *ctx, kh_log_level lvl, const char *msg)
{
    (void)ctx, (void)lvl, (void)msg;
}

/* A flit routed to a position with nothing attached is accepted by the tie
 * and vanishes (mesh.md §2), counted on the link, logged once. */
static void tied_off_port_drops_and_counts(void)
{
    char err[256];
    kh_map *map = load("mesh_1x1_min.txt");
    if (!map) return;
    kh_sim *sim = kh_sim_new(NULL);
    kh_mesh *m = kh_mesh_new(sim, map, err, sizeof err);
    probe *west = probe_at(m, 0, 1);
    kh_sim_set_log(sim, quiet, NULL, KH_LOG_WARN);
    unsigned warns = kh_sim_log_count(sim, KH_LOG_WARN);
    for (unsigned k = 0; k < 3; k++) probe_send(west, flit_to(2, 1, 0, 1, k), 5);
    CHECK(kh_sim_run_until_idle(sim, 1000));
    kh_link *tie = kh_mesh_link_to(m, 2, 1);
    CHECK(tie && tie->dst == NULL);
    CHECK_EQ(tie->flits, 3);
    CHECK_EQ(tie->dropped, 3);
    CHECK_EQ(kh_sim_log_count(sim, KH_LOG_WARN) - warns, 1);
    CHECK_EQ(kh_sim_describe_stuck(sim, err, sizeof err), 0);
    kh_sim_destroy(sim);
    kh_mesh_free(m);
    kh_map_free(map);
}

/* An attached endpoint that refused a flit and frees up with kh_comp_space
 * (as the unit shell does) wakes the router's held output (mesh.md §4). */
static void attached_endpoint_wakes_router_with_comp_space(void)
{
    char err[256];
    kh_map *map = load("mesh_1x1_min.txt");
    if (!map) return;
    kh_sim *sim = kh_sim_new(NULL);
    kh_mesh *m = kh_mesh_new(sim, map, err, sizeof err);
    probe *west = probe_at(m, 0, 1), *north = probe_at(m, 1, 0);
    north->refuse = 1;
    probe_send(west, flit_to(1, 0, 0, 1, 0x5), 0);
    CHECK(kh_sim_run_until_idle(sim, 1000));
    CHECK_EQ(north->got, 1);
    /* offered at 4 and refused; the probe frees up at 14, the router offers at 15 */
    CHECK_EQ(north->got_at[0], 15);
    CHECK_EQ(kh_mesh_link_to(m, 1, 0)->stall_cycles, 11);
    kh_sim_destroy(sim);
    kh_mesh_free(m);
    kh_map_free(map);
}

static void attach_refuses_corners_off_map_and_doubles(void)
{
    char err[256];
    kh_map *map = load("mesh_2x2.txt");
    if (!map) return;
    kh_sim *sim = kh_sim_new(NULL);
    kh_mesh *m = kh_mesh_new(sim, map, err, sizeof err);
    probe *p = probe_at(m, 1, 1);
    CHECK(p->out != NULL);
    CHECK(kh_mesh_attach(m, 0, 0, &p->c, probe_accept, 0, err, sizeof err) == NULL);
    CHECK(strstr(err, "(0,0)") != NULL);
    CHECK(kh_mesh_attach(m, 3, 3, &p->c, probe_accept, 0, err, sizeof err) == NULL);
    CHECK(kh_mesh_attach(m, 4, 1, &p->c, probe_accept, 0, err, sizeof err) == NULL);
    CHECK(kh_mesh_attach(m, 1, 1, &p->c, probe_accept, 0, err, sizeof err) == NULL);
    CHECK(strstr(err, "already") != NULL);
    /* the edge position east of router (2,2) is (3,2) */
    kh_router *r;
    unsigned dir;
    CHECK(kh_mesh_port_of(m, 3, 2, &r, &dir) == 0 && r == kh_mesh_router(m, 2, 2) && dir == KH_DIR_E);
    CHECK(kh_mesh_port_of(m, 1, 0, &r, &dir) == 0 && r == kh_mesh_router(m, 1, 1) && dir == KH_DIR_N);
    kh_sim_destroy(sim);
    kh_mesh_free(m);
    kh_map_free(map);
}

/* ---- routing policies (kh_mesh_cfg) ---- */

typedef struct counting_xy {
    unsigned calls;
} counting_xy;

static unsigned counting_route(void *ctx, unsigned mx, unsigned my, unsigned nx, unsigned ny, unsigned px,
                               unsigned py)
{
    ((counting_xy *)ctx)->calls++;
    return kh_noc_route(mx, my, nx, ny, px, py);
}

/* Y first, then X: the turn masks of mesh.md §3 forbid its second turn. */
static unsigned yx_route(void *ctx, unsigned mx, unsigned my, unsigned nx, unsigned ny, unsigned px, unsigned py)
{
    (void)ctx;
    unsigned dx, dy;
    delivery(nx, ny, px, py, &dx, &dy);
    unsigned ry = clampu(dy, ny);
    if (ry != my) return ry > my ? KH_DIR_S : KH_DIR_N;
    return kh_noc_route(mx, my, nx, ny, px, py);
}

/* (1,0), the north edge above router (1,1), sends to (2,3), the south edge
 * below router (2,2) of mesh_2x2. Returns the flits delivered there. */
static unsigned send_corner_to_corner(const kh_mesh_cfg *cfg, unsigned *errors)
{
    kh_map *map = load("mesh_2x2.txt");
    if (!map) return 0;
    kh_params p;
    char err[256];
    kh_params_default(&p);
    kh_sim *sim = kh_sim_new(&p);
    kh_sim_set_log(sim, NULL, NULL, KH_LOG_ERROR + 1); /* counted, not printed */
    kh_mesh *m = kh_mesh_new_cfg(sim, map, cfg, err, sizeof err);
    CHECK(m != NULL);
    if (!m) return 0;
    probe *src = probe_at(m, 1, 0), *dst = probe_at(m, 2, 3);
    probe_send(src, flit_to(2, 3, 1, 0, 1), 0);
    CHECK(kh_sim_run_until_idle(sim, 1000));
    unsigned got = dst->got;
    *errors = kh_sim_log_count(sim, KH_LOG_ERROR);
    kh_sim_destroy(sim);
    kh_mesh_free(m);
    kh_map_free(map);
    return got;
}

static void routing_policy_is_tabulated_from_the_mesh_config(void)
{
    unsigned errors;
    counting_xy n = {0};
    kh_mesh_cfg cfg = {.route = counting_route, .route_ctx = &n};
    CHECK_EQ(send_corner_to_corner(&cfg, &errors), 1);
    CHECK_EQ(n.calls, 4 * 256); /* each router's table, once, when built */
    CHECK_EQ(errors, 0);
    CHECK_EQ(send_corner_to_corner(NULL, &errors), 1); /* XY, the default */
    /* a policy that asks for a masked turn: the flit is dropped with an error, not delivered */
    kh_mesh_cfg yx = {.route = yx_route};
    CHECK_EQ(send_corner_to_corner(&yx, &errors), 0);
    CHECK_EQ(errors, 1);
}

int main(void)
{
    KH_RUN(routing_policy_is_tabulated_from_the_mesh_config);
    KH_RUN(route_function_matches_delivery_point);
    KH_RUN(xy_route_every_pair_2x2);
    KH_RUN(xy_route_every_pair_4x2);
    KH_RUN(xy_route_every_pair_5x4);
    KH_RUN(xy_route_every_pair_2x3);
    KH_RUN(xy_route_every_pair_1x1);
    KH_RUN(lone_flit_latency_default_4_per_router);
    KH_RUN(lone_flit_latency_recording_3_per_router);
    KH_RUN(arbiter_order_follows_cycle_mod_5);
    KH_RUN(arbiter_grants_first_requester_from_pointer_every_set);
    KH_RUN(tied_off_port_drops_and_counts);
    KH_RUN(attached_endpoint_wakes_router_with_comp_space);
    KH_RUN(attach_refuses_corners_off_map_and_doubles);
    return kh_test_end("t_route");
}
