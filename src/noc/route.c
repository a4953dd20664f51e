/* The routing function of a router input (mesh.md §3), exactly: XY on
 * coordinates clamped into the router grid, with the at-router comparisons
 * on the raw coordinate that send a flit out to an edge endpoint. */
#include "kohaku/mesh.h"

static unsigned clamp(unsigned p, unsigned hi) { return p < 1 ? 1 : p > hi ? hi : p; }

unsigned kh_noc_route(unsigned mx, unsigned my, unsigned nx, unsigned ny, unsigned px, unsigned py)
{
    unsigned rx = clamp(px, nx), ry = clamp(py, ny);
    int x_done = rx == mx, y_done = ry == my, at = x_done && y_done;
    if ((!x_done && rx < mx) || (at && px < mx)) return KH_DIR_W;
    if ((!x_done && rx > mx) || (at && px > mx)) return KH_DIR_E;
    if ((x_done && !y_done && ry < my) || (at && py < my)) return KH_DIR_N;
    if ((x_done && !y_done && ry > my) || (at && py > my)) return KH_DIR_S;
    return KH_DIR_L;
}

void kh_noc_delivery(unsigned nx, unsigned ny, unsigned px, unsigned py, unsigned *x, unsigned *y)
{
    unsigned cy = clamp(py, ny);
    if (px < 1) {
        *x = 0, *y = cy;
    } else if (px > nx) {
        *x = nx + 1, *y = cy;
    } else if (py < 1) {
        *x = px, *y = 0;
    } else if (py > ny) {
        *x = px, *y = ny + 1;
    } else {
        *x = px, *y = py;
    }
}

const char *kh_dir_name(unsigned dir)
{
    static const char *const names[KH_NDIRS] = {"N", "E", "S", "W", "L"};
    return dir < KH_NDIRS ? names[dir] : "?";
}

unsigned kh_dir_opposite(unsigned dir)
{
    static const unsigned char opp[KH_NDIRS] = {KH_DIR_S, KH_DIR_W, KH_DIR_N, KH_DIR_E, KH_DIR_L};
    return dir < KH_NDIRS ? opp[dir] : dir;
}
