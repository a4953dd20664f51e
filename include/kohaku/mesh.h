/* The on-chip mesh: map pictures, XY routers and mesh assembly (mesh.md).
 *
 * A map picture (mesh.md §2) is a rectangle of 3-character tokens: rows are
 * y = 0 .. NY+1 (north to south), columns x = 0 .. NX+1 (west to east).
 * Routers sit at x in [1, NX], y in [1, NY]; every other non-corner position
 * is an edge endpoint reached through the outward link of the router next to
 * it. kh_map_parse() turns the text into a kh_map; kh_mesh_new() builds the
 * routers of a map inside a simulation with every endpoint port tied off,
 * and kh_mesh_attach() plugs an endpoint component in at a coordinate.
 *
 * Router timing is docs/design.md "Router timing" and docs/timing.md.
 */
#ifndef KOHAKU_MESH_H
#define KOHAKU_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/sim.h"

#define KH_MAP_MAX_N 14    /* NX, NY <= 14 so edge x = NX+1 fits POS_WIDTH 4 (mesh.md §1) */
#define KH_MAP_MAX_PORTS 4 /* at most four `mag` memory ports (mesh.md §2) */

/* ---- map pictures (src/noc/map.c) --------------------------------------- */

typedef enum kh_ep_kind {
    KH_EP_NONE = 0, /* xxx, ..., nul: nothing attached, port tied off */
    KH_EP_MEM,      /* mag: a memory port of the system node */
    KH_EP_UNIT,     /* a compute unit: one of the caller's unit tokens */
} kh_ep_kind;

/* One endpoint position of a map (every non-corner position outside or on
 * the router grid: NX*NY router locals plus 2*(NX+NY) edge slots). */
typedef struct kh_map_ep {
    uint8_t x, y;               /* coordinate (mesh.md §1) */
    uint8_t edge;               /* 1: edge ring; 0: a router's local port */
    char token[4];              /* the map token, NUL-terminated */
    kh_ep_kind kind;
    int port;                   /* KH_EP_MEM: memory-port index (row-major order of mag); else -1 */
    int bound_port;             /* KH_EP_UNIT: nearest port by clamped Manhattan distance; else -1 */
    unsigned line;              /* line of the map text the token came from (1-based) */
} kh_map_ep;

typedef struct kh_map kh_map;

/* The unit tokens a map may name, from the caller: the map knows no unit
 * (kh_machine_map_units gives the unit registry's). */
#define KH_MAP_MAX_UNITS 32
typedef struct kh_map_units {
    unsigned n;
    char token[KH_MAP_MAX_UNITS][4];
} kh_map_units;

/* Parse a map picture exactly as mesh.md §2, `units` the tokens that name
 * a compute unit. NULL on a violated rule, with a message in err naming the
 * line, the row (y), the column (x), the token and the rule. */
kh_map *kh_map_parse(const char *text, const kh_map_units *units, char *err, size_t errlen);
/* Read and parse a map file; errors are prefixed with the file name. */
kh_map *kh_map_load(const char *path, const kh_map_units *units, char *err, size_t errlen);
void kh_map_free(kh_map *m);

unsigned kh_map_nx(const kh_map *m); /* routers per row */
unsigned kh_map_ny(const kh_map *m); /* router rows */
/* Every endpoint position, in row-major order (y outer, x inner). */
unsigned kh_map_nendpoints(const kh_map *m);
const kh_map_ep *kh_map_endpoint(const kh_map *m, unsigned i);
/* The endpoint position at (x, y); NULL for a corner or outside the map. */
const kh_map_ep *kh_map_at(const kh_map *m, unsigned x, unsigned y);
/* Memory ports in index order (port 0 is the orchestrator's coordinate). */
unsigned kh_map_nports(const kh_map *m);
const kh_map_ep *kh_map_port(const kh_map *m, unsigned index);
/* "memory port", "unit" or "none". */
const char *kh_ep_kind_name(kh_ep_kind k);

/* ---- routing (mesh.md §3) ------------------------------------------------ */

/* Router ports, inputs and outputs alike; the input index is also the
 * arbitration index of mesh.md §5 (0 = N, 1 = E, 2 = S, 3 = W, 4 = L). */
enum { KH_DIR_N = 0, KH_DIR_E = 1, KH_DIR_S = 2, KH_DIR_W = 3, KH_DIR_L = 4, KH_NDIRS = 5 };

/* The output a router at (mx, my) of an nx x ny grid picks for a flit with
 * destination (px, py): the exact function of mesh.md §3. */
unsigned kh_noc_route(unsigned mx, unsigned my, unsigned nx, unsigned ny, unsigned px, unsigned py);
/* Where a flit addressed to (px, py) is delivered (mesh.md §3 "Delivery
 * point"): an edge endpoint or a router's local port. */
void kh_noc_delivery(unsigned nx, unsigned ny, unsigned px, unsigned py, unsigned *x, unsigned *y);
/* "N", "E", "S", "W", "L". */
const char *kh_dir_name(unsigned dir);
/* The port a flit leaving by dir enters the neighbour on (N <-> S, E <-> W). */
unsigned kh_dir_opposite(unsigned dir);

/* ---- routing policies ---------------------------------------------------- */

/* A routing policy: the output (KH_DIR_*) a router at (mx, my) of an nx x ny
 * grid picks for a flit addressed to (px, py). A pure function of its
 * arguments (and ctx), tabulated when each router is built, so a policy
 * costs nothing per flit. The routers keep mesh.md §3's turn masks: a flit
 * the policy sends into a masked turn is dropped with an error. */
typedef unsigned (*kh_route_fn)(void *ctx, unsigned mx, unsigned my, unsigned nx, unsigned ny, unsigned px,
                                unsigned py);
/* Mesh options; all zero is the mesh mesh.md specifies. */
typedef struct kh_mesh_cfg {
    kh_route_fn route; /* NULL: XY, kh_noc_route (mesh.md §3) */
    void *route_ctx;
} kh_mesh_cfg;

/* ---- routers (src/noc/router.c) ----------------------------------------- */

typedef struct kh_router kh_router;

/* Create the router at (x, y) of an nx x ny grid and register it with sim.
 * Input FIFOs: depth router_fifo_depth + fifo_extra_cap, fall-through
 * fifo_latency. Every output must be given a link (kh_router_set_out).
 * cfg NULL: the specified router (XY). */
kh_router *kh_router_new(kh_sim *sim, unsigned x, unsigned y, unsigned nx, unsigned ny, const kh_mesh_cfg *cfg,
                         char *err, size_t errlen);
kh_comp *kh_router_comp(kh_router *r);
/* The accept function of every router input; port = input direction. */
int kh_router_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now);
/* Output dir drives link l (a neighbour's input, an endpoint or a tie-off). */
void kh_router_set_out(kh_router *r, unsigned dir, kh_link *l);
/* Input dir is fed by link l (woken with kh_link_space when space frees). */
void kh_router_set_in(kh_router *r, unsigned dir, kh_link *l);
kh_link *kh_router_out(const kh_router *r, unsigned dir);
kh_link *kh_router_in(const kh_router *r, unsigned dir);
const kh_fifo *kh_router_fifo(const kh_router *r, unsigned dir);
unsigned kh_router_x(const kh_router *r);
unsigned kh_router_y(const kh_router *r);
/* Flits that crossed this router (granted to an output): flit-hops. */
uint64_t kh_router_hops(const kh_router *r);

/* ---- the mesh (src/noc/mesh.c) ------------------------------------------ */

typedef struct kh_mesh kh_mesh;

/* Build the routers of map in sim, wire neighbours, and tie off every
 * endpoint port (a flit sent there is accepted and vanishes, mesh.md §2).
 * The mesh keeps its own copy of what it needs from map. The routers and
 * links belong to sim; the kh_mesh itself is freed with kh_mesh_free (in
 * any order with kh_sim_destroy). */
kh_mesh *kh_mesh_new(kh_sim *sim, const kh_map *map, char *err, size_t errlen);
/* The same with options (cfg NULL: as kh_mesh_new): a routing policy. */
kh_mesh *kh_mesh_new_cfg(kh_sim *sim, const kh_map *map, const kh_mesh_cfg *cfg, char *err, size_t errlen);
void kh_mesh_free(kh_mesh *m);

/* Attach endpoint component ep at (x, y), a router local or an edge slot:
 * the router's output towards (x, y) now delivers into accept(ep, ep_port).
 * Returns the link the endpoint sends on (into the router's input FIFO).
 * NULL with a message for a corner, a coordinate off the map, or a position
 * already attached. */
kh_link *kh_mesh_attach(kh_mesh *m, unsigned x, unsigned y, kh_comp *ep, kh_accept_fn accept,
                        unsigned ep_port, char *err, size_t errlen);

unsigned kh_mesh_nx(const kh_mesh *m);
unsigned kh_mesh_ny(const kh_mesh *m);
kh_sim *kh_mesh_sim(const kh_mesh *m);
/* The router at (x, y), 1 <= x <= NX, 1 <= y <= NY; else NULL. */
kh_router *kh_mesh_router(const kh_mesh *m, unsigned x, unsigned y);
/* For an endpoint position (x, y): the router and its port facing it. */
int kh_mesh_port_of(const kh_mesh *m, unsigned x, unsigned y, kh_router **r, unsigned *dir);
/* The link delivering into the endpoint position (x, y) (a tie-off until
 * something is attached), and the link from it (NULL until attached). */
kh_link *kh_mesh_link_to(const kh_mesh *m, unsigned x, unsigned y);
kh_link *kh_mesh_link_from(const kh_mesh *m, unsigned x, unsigned y);
/* The mesh as the stats' run section describes it (docs/report.md):
 * {"mesh","nx","ny","routers":[{x,y,comp}],"endpoints":[{x,y,edge,token,
 * kind,comp}],"links":[{name,from:[x,y],to:[x,y]}]}, every link of the
 * mesh once, appended to buf (kh_bufcat). map is the one it was built from. */
void kh_mesh_layout_json(const kh_mesh *m, const kh_map *map, unsigned mesh_id, char *buf, size_t len,
                         size_t *used);
/* Flit-hops over all routers. */
uint64_t kh_mesh_hops(const kh_mesh *m);

#endif
