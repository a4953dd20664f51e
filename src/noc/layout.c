/* A mesh's layout as JSON for the stats' run section (mesh.h): where each
 * router, endpoint position and link sits in the map picture, so the report
 * and the heat map draw the machine from the stats file alone. */
#include <stdio.h>

#include "kohaku/bufcat.h"
#include "kohaku/mesh.h"
#include "kohaku/trace.h"

static void link_row(char *buf, size_t len, size_t *used, int *first, const kh_link *l, unsigned fx,
                     unsigned fy, unsigned tx, unsigned ty)
{
    char name[160];
    if (!l) return;
    kh_json_escape(name, sizeof name, l->name);
    kh_bufcat(buf, len, used, "%s{\"name\":\"%s\",\"from\":[%u,%u],\"to\":[%u,%u]}", *first ? "" : ",", name, fx,
              fy, tx, ty);
    *first = 0;
}

void kh_mesh_layout_json(const kh_mesh *m, const kh_map *map, unsigned mesh_id, char *buf, size_t len,
                         size_t *used)
{
    unsigned nx = kh_mesh_nx(m), ny = kh_mesh_ny(m);
    char name[160];
    kh_bufcat(buf, len, used, "{\"mesh\":%u,\"nx\":%u,\"ny\":%u,\"routers\":[", mesh_id, nx, ny);
    for (unsigned y = 1; y <= ny; y++)
        for (unsigned x = 1; x <= nx; x++) {
            kh_json_escape(name, sizeof name, kh_router_comp(kh_mesh_router(m, x, y))->name);
            kh_bufcat(buf, len, used, "%s{\"x\":%u,\"y\":%u,\"comp\":\"%s\"}", x + y > 2 ? "," : "", x, y, name);
        }
    kh_bufcat(buf, len, used, "],\"endpoints\":[");
    for (unsigned i = 0; i < kh_map_nendpoints(map); i++) {
        const kh_map_ep *ep = kh_map_endpoint(map, i);
        const kh_link *to = kh_mesh_link_to(m, ep->x, ep->y);
        kh_json_escape(name, sizeof name, to && to->dst ? to->dst->name : "");
        kh_bufcat(buf, len, used, "%s{\"x\":%u,\"y\":%u,\"edge\":%u,\"token\":\"%s\",\"kind\":\"%s\",\"comp\":\"%s\"}",
                  i ? "," : "", ep->x, ep->y, ep->edge, ep->token, kh_ep_kind_name(ep->kind), name);
    }
    /* every link of the mesh once: each router's five outputs, and each
     * attached endpoint's link into its router */
    kh_bufcat(buf, len, used, "],\"links\":[");
    int first = 1;
    static const int dx[KH_NDIRS] = {0, 1, 0, -1, 0}, dy[KH_NDIRS] = {-1, 0, 1, 0, 0};
    for (unsigned y = 1; y <= ny; y++)
        for (unsigned x = 1; x <= nx; x++) {
            kh_router *r = kh_mesh_router(m, x, y);
            for (unsigned d = 0; d < KH_NDIRS; d++)
                link_row(buf, len, used, &first, kh_router_out(r, d), x, y, (unsigned)((int)x + dx[d]),
                         (unsigned)((int)y + dy[d]));
        }
    for (unsigned i = 0; i < kh_map_nendpoints(map); i++) {
        const kh_map_ep *ep = kh_map_endpoint(map, i);
        kh_router *r;
        unsigned dir;
        if (kh_mesh_port_of(m, ep->x, ep->y, &r, &dir)) continue;
        link_row(buf, len, used, &first, kh_mesh_link_from(m, ep->x, ep->y), ep->x, ep->y, kh_router_x(r),
                 kh_router_y(r));
    }
    kh_bufcat(buf, len, used, "]}");
}
