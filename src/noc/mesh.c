/* Mesh assembly: routers of a map, neighbour links, tied-off endpoint ports
 * (mesh.md §2) and kh_mesh_attach, the one way an endpoint joins the mesh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/mesh.h"

#define GRID (KH_MAP_MAX_N + 2)

struct kh_mesh {
    kh_sim *sim;
    unsigned nx, ny;
    kh_router *r[GRID][GRID];  /* [y][x], routers at 1..NX, 1..NY */
    kh_link *to[GRID][GRID];   /* router output into the endpoint position */
    kh_link *from[GRID][GRID]; /* endpoint into its router, once attached */
};

static int is_endpoint_pos(const kh_mesh *m, unsigned x, unsigned y)
{
    if (x > m->nx + 1 || y > m->ny + 1) return 0;
    int xe = x == 0 || x == m->nx + 1, ye = y == 0 || y == m->ny + 1;
    return !(xe && ye); /* corners touch no router (mesh.md §1) */
}

int kh_mesh_port_of(const kh_mesh *m, unsigned x, unsigned y, kh_router **r, unsigned *dir)
{
    if (!is_endpoint_pos(m, x, y)) return -1;
    if (y == 0) {
        *r = m->r[1][x], *dir = KH_DIR_N;
    } else if (y == m->ny + 1) {
        *r = m->r[m->ny][x], *dir = KH_DIR_S;
    } else if (x == 0) {
        *r = m->r[y][1], *dir = KH_DIR_W;
    } else if (x == m->nx + 1) {
        *r = m->r[y][m->nx], *dir = KH_DIR_E;
    } else {
        *r = m->r[y][x], *dir = KH_DIR_L;
    }
    return 0;
}

kh_mesh *kh_mesh_new(kh_sim *sim, const kh_map *map, char *err, size_t errlen)
{
    return kh_mesh_new_cfg(sim, map, NULL, err, errlen);
}

kh_mesh *kh_mesh_new_cfg(kh_sim *sim, const kh_map *map, const kh_mesh_cfg *cfg, char *err, size_t errlen)
{
    kh_mesh *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "mesh: out of memory");
        return NULL;
    }
    m->sim = sim;
    m->nx = kh_map_nx(map);
    m->ny = kh_map_ny(map);
    for (unsigned y = 1; y <= m->ny; y++)
        for (unsigned x = 1; x <= m->nx; x++)
            if (!(m->r[y][x] = kh_router_new(sim, x, y, m->nx, m->ny, cfg, err, errlen))) {
                free(m);
                return NULL;
            }
    static const int dx[KH_NDIRS] = {0, 1, 0, -1, 0}, dy[KH_NDIRS] = {-1, 0, 1, 0, 0};
    for (unsigned y = 1; y <= m->ny; y++) {
        for (unsigned x = 1; x <= m->nx; x++) {
            kh_router *r = m->r[y][x];
            for (unsigned d = 0; d < KH_NDIRS; d++) {
                unsigned tx = (unsigned)((int)x + dx[d]), ty = (unsigned)((int)y + dy[d]);
                kh_router *nb = d != KH_DIR_L ? m->r[ty][tx] : NULL;
                char name[64];
                kh_link *l;
                if (nb) {
                    unsigned in = kh_dir_opposite(d);
                    snprintf(name, sizeof name, "r(%u,%u).%s>r(%u,%u).%s", x, y, kh_dir_name(d),
                             tx, ty, kh_dir_name(in));
                    l = kh_link_new(sim, kh_router_comp(r), kh_router_comp(nb), in,
                                    kh_router_accept, name);
                    if (l) kh_router_set_in(nb, in, l);
                } else {
                    snprintf(name, sizeof name, "r(%u,%u).%s>tie(%u,%u)", x, y, kh_dir_name(d),
                             tx, ty);
                    l = kh_link_new(sim, kh_router_comp(r), NULL, 0, NULL, name);
                    m->to[ty][tx] = l;
                }
                if (!l) {
                    snprintf(err, errlen, "mesh: out of memory for links");
                    free(m);
                    return NULL;
                }
                kh_router_set_out(r, d, l);
            }
        }
    }
    return m;
}

void kh_mesh_free(kh_mesh *m) { free(m); }

kh_link *kh_mesh_attach(kh_mesh *m, unsigned x, unsigned y, kh_comp *ep, kh_accept_fn accept,
                        unsigned ep_port, char *err, size_t errlen)
{
    kh_router *r;
    unsigned dir;
    if (kh_mesh_port_of(m, x, y, &r, &dir)) {
        snprintf(err, errlen,
                 "attach %s at (%u,%u): not an endpoint position of a %ux%u mesh (router locals "
                 "and the edge ring without its corners, mesh.md §1)",
                 ep->name, x, y, m->nx, m->ny);
        return NULL;
    }
    if (m->from[y][x]) {
        snprintf(err, errlen, "attach %s at (%u,%u): position already holds %s", ep->name, x, y,
                 m->from[y][x]->src->name);
        return NULL;
    }
    char name[64];
    snprintf(name, sizeof name, "%.24s>r(%u,%u).%s", ep->name, kh_router_x(r), kh_router_y(r),
             kh_dir_name(dir));
    kh_link *in = kh_link_new(m->sim, ep, kh_router_comp(r), dir, kh_router_accept, name);
    if (!in) {
        snprintf(err, errlen, "attach %s at (%u,%u): out of memory", ep->name, x, y);
        return NULL;
    }
    kh_router_set_in(r, dir, in);
    /* the tie-off becomes the endpoint's inbound link */
    kh_link *out = m->to[y][x];
    kh_link_set_dst(out, ep, ep_port, accept);
    snprintf(out->name, sizeof out->name, "r(%u,%u).%s>%.24s", kh_router_x(r), kh_router_y(r),
             kh_dir_name(dir), ep->name);
    kh_router_set_out(r, dir, out);
    m->from[y][x] = in;
    return in;
}

unsigned kh_mesh_nx(const kh_mesh *m) { return m->nx; }
unsigned kh_mesh_ny(const kh_mesh *m) { return m->ny; }
kh_sim *kh_mesh_sim(const kh_mesh *m) { return m->sim; }

kh_router *kh_mesh_router(const kh_mesh *m, unsigned x, unsigned y)
{
    return x >= 1 && x <= m->nx && y >= 1 && y <= m->ny ? m->r[y][x] : NULL;
}

kh_link *kh_mesh_link_to(const kh_mesh *m, unsigned x, unsigned y)
{
    return is_endpoint_pos(m, x, y) ? m->to[y][x] : NULL;
}

kh_link *kh_mesh_link_from(const kh_mesh *m, unsigned x, unsigned y)
{
    return is_endpoint_pos(m, x, y) ? m->from[y][x] : NULL;
}

uint64_t kh_mesh_hops(const kh_mesh *m)
{
    uint64_t n = 0;
    for (unsigned y = 1; y <= m->ny; y++)
        for (unsigned x = 1; x <= m->nx; x++) n += kh_router_hops(m->r[y][x]);
    return n;
}
