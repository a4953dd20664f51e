/* The mesh heat map (report.h): plain SVG drawn from the stats JSON's run
 * section (the layout of every mesh, kh_mesh_layout_json) and counters.
 * Each mesh is drawn as its map picture lays it out: routers on the inner
 * cells, edge endpoints on the ring, a router's local endpoint in its
 * cell's corner; each link is a line coloured by its utilisation (flits per
 * cycle), the two directions of a pair side by side; each unit is coloured
 * by its busy share and each memory port by its busy cycles, and so is the
 * control processor in the (0,0) corner. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "statsdoc.h"

#define CELL 160     /* px per map cell */
#define ROUTER 26    /* half the side of a router's square */
#define EP 40        /* half the side of an edge endpoint's box */
#define LOCAL 22     /* half the side of a local endpoint's box */
#define SIDE 7       /* px between a link's two directions */
#define TOP 70       /* title */
#define LEGEND 110   /* below the meshes */

/* Colour of a utilisation u (0..1): grey for none, then a log scale from
 * 0.1 % (pale yellow) to 100 % (dark red), so light loads stay visible. */
static void colour(double u, char out[8])
{
    if (u <= 0) {
        snprintf(out, 8, "#c8c8c8");
        return;
    }
    double t = (log10(u) + 3) / 3;
    if (t < 0) t = 0;
    if (t > 1) t = 1;
    /* yellow (255,255,178) -> orange (253,141,60) -> dark red (189,0,38) */
    double r, g, b;
    if (t < 0.5) {
        double k = t / 0.5;
        r = 255 + (253 - 255) * k, g = 255 + (141 - 255) * k, b = 178 + (60 - 178) * k;
    } else {
        double k = (t - 0.5) / 0.5;
        r = 253 + (189 - 253) * k, g = 141 + (0 - 141) * k, b = 60 + (38 - 60) * k;
    }
    snprintf(out, 8, "#%02x%02x%02x", (unsigned)lround(r), (unsigned)lround(g), (unsigned)lround(b));
}

static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

typedef struct pt {
    double x, y;
} pt;

typedef struct mesh_geo {
    double ox;         /* left edge of this mesh's drawing */
    unsigned nx, ny;
} mesh_geo;

static pt centre(const mesh_geo *g, double x, double y)
{
    return (pt){g->ox + x * CELL + CELL / 2.0, TOP + y * CELL + CELL / 2.0};
}

static int is_router_cell(const mesh_geo *g, unsigned x, unsigned y)
{
    return x >= 1 && x <= g->nx && y >= 1 && y <= g->ny;
}

/* A local endpoint sits in its router cell's upper-left corner. */
static pt local_centre(const mesh_geo *g, unsigned x, unsigned y)
{
    pt c = centre(g, x, y);
    return (pt){c.x - CELL / 2.0 + LOCAL + 4, c.y - CELL / 2.0 + LOCAL + 4};
}

/* Where a link leaves or enters cell (x, y): the router's square, an edge
 * endpoint's box, or (local) the corner box. */
static pt anchor(const mesh_geo *g, unsigned x, unsigned y, int local, double *half)
{
    if (local) {
        *half = LOCAL;
        return local_centre(g, x, y);
    }
    *half = is_router_cell(g, x, y) ? ROUTER : EP;
    return centre(g, x, y);
}

static void draw_link(FILE *f, const mesh_geo *g, const kh_json_val *root, const kh_json_val *l, double cycles)
{
    const kh_json_val *from = kh_json_get(l, "from"), *to = kh_json_get(l, "to");
    unsigned fx = (unsigned)kh_sd_num(kh_json_at(from, 0), ""), fy = (unsigned)kh_sd_num(kh_json_at(from, 1), "");
    unsigned tx = (unsigned)kh_sd_num(kh_json_at(to, 0), ""), ty = (unsigned)kh_sd_num(kh_json_at(to, 1), "");
    int local = fx == tx && fy == ty; /* a router and its local endpoint share the cell */
    const char *name = kh_sd_str(l, "name");
    /* the local endpoint's end is the one that is not the router: the link
     * from the router (r(x,y).L>...) starts at the square */
    int from_router = !strncmp(name, "r(", 2);
    double hf, ht;
    pt a = anchor(g, fx, fy, local && !from_router, &hf), b = anchor(g, tx, ty, local && from_router, &ht);
    double dx = b.x - a.x, dy = b.y - a.y, len = sqrt(dx * dx + dy * dy);
    if (len <= 0) return;
    dx /= len, dy /= len;
    /* leave the box along the direction; the two directions of a pair sit
     * SIDE px apart, each on its right-hand side */
    double sa = hf / (fabs(dx) > fabs(dy) ? fabs(dx) : fabs(dy)), sb = ht / (fabs(dx) > fabs(dy) ? fabs(dx) : fabs(dy));
    double px = -dy * SIDE / 2, py = dx * SIDE / 2;
    double flits = kh_sd_link_flits(root, name), u = kh_sd_share(flits, cycles);
    char col[8];
    colour(u, col);
    fprintf(f, "<line class=\"link\" data-name=\"");
    xml_text(f, name);
    fprintf(f, "\" data-flits=\"%.0f\" data-util=\"%.6g\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
               "stroke-width=\"5\" marker-end=\"url(#arrow)\"><title>",
            flits, u, a.x + dx * sa + px, a.y + dy * sa + py, b.x - dx * (sb + 4) + px, b.y - dy * (sb + 4) + py, col);
    xml_text(f, name);
    fprintf(f, ": %.0f flits, %.2f %% of one per cycle</title></line>\n", flits, 100 * u);
}

static void draw_box(FILE *f, pt c, double half, const char *fill, const char *cls)
{
    fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"6\" fill=\"%s\" "
               "stroke=\"#333\" stroke-width=\"1.5\"",
            cls, c.x - half, c.y - half, 2 * half, 2 * half, fill);
}

/* The rest of a box draw_box opened: its busy share (share < 0: none),
 * its title, and its label with the share below it, in an edge box's
 * sizes when big, else a local endpoint's. */
static void end_box(FILE *f, pt p, const char *title, const char *label, double share, int big)
{
    if (share >= 0) fprintf(f, " data-busy=\"%.6g\"", share);
    fprintf(f, "><title>");
    xml_text(f, title);
    if (share >= 0) fprintf(f, ": busy %.1f %% of the run", 100 * share);
    fprintf(f, "</title></rect>\n");
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"middle\">", p.x,
            p.y + (share >= 0 ? -4 : 4), big ? 14 : 11);
    xml_text(f, label);
    fprintf(f, "</text>\n");
    if (share >= 0)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"middle\">%.1f %%</text>\n", p.x,
                p.y + (big ? 14 : 9), big ? 11 : 9, 100 * share);
}

static void draw_endpoint(FILE *f, const mesh_geo *g, const kh_json_val *root, const kh_json_val *ep, double cycles)
{
    unsigned x = (unsigned)kh_sd_num(ep, "x"), y = (unsigned)kh_sd_num(ep, "y");
    int edge = kh_sd_num(ep, "edge") != 0;
    const char *token = kh_sd_str(ep, "token"), *comp = kh_sd_str(ep, "comp");
    const kh_json_val *c = *comp ? kh_sd_comp(root, comp) : NULL, *st = kh_json_get(c, "stats");
    const char *kind = kh_sd_str(c, "kind");
    double share = -1;
    if (!strcmp(kind, "cu")) share = kh_sd_share(kh_sd_num(st, "cycles.busy"), cycles);
    else if (!strcmp(kind, "mem_port")) share = kh_sd_share(kh_sd_num(st, "busy_cycles"), cycles);
    char col[8] = "#ffffff";
    if (share >= 0) colour(share, col);
    pt p = edge ? centre(g, x, y) : local_centre(g, x, y);
    double half = edge ? EP : LOCAL;
    draw_box(f, p, half, c ? col : "#f4f4f4", "endpoint");
    fprintf(f, " data-x=\"%u\" data-y=\"%u\" data-token=\"", x, y);
    xml_text(f, token);
    fprintf(f, "\" data-comp=\"");
    xml_text(f, comp);
    fputc('"', f);
    /* a position with nothing attached (xxx, ..., nul: kind "none") says so
     * rather than showing the map's raw token */
    if (*comp || strcmp(kh_sd_str(ep, "kind"), "none")) {
        end_box(f, p, *comp ? comp : token, token, share, edge);
        return;
    }
    char title[160];
    snprintf(title, sizeof title, "(%u,%u): empty position (map token %s): no endpoint, the router's port there is tied off (mesh.md §2)",
             x, y, token);
    end_box(f, p, title, "empty", share, edge);
}

/* The node's control processor at the (0,0) corner, where its link into
 * the hub starts (the layout's link from (0,0)): a box coloured by the busy
 * share of the unit that sends on that link (the stats' link names it). */
static void draw_processor(FILE *f, const mesh_geo *g, const kh_json_val *root, const kh_json_val *l, double cycles)
{
    const char *comp = kh_sd_str(kh_sd_link(root, kh_sd_str(l, "name")), "from");
    const kh_json_val *c = *comp ? kh_sd_comp(root, comp) : NULL;
    double share = c ? kh_sd_share(kh_sd_num(kh_json_get(c, "stats"), "cycles.busy"), cycles) : -1;
    char col[8] = "#f4f4f4";
    if (share >= 0) colour(share, col);
    pt p = centre(g, 0, 0);
    draw_box(f, p, EP, col, "processor");
    fprintf(f, " data-comp=\"");
    xml_text(f, comp);
    fputc('"', f);
    end_box(f, p, *comp ? comp : "control processor", "rv32", share, 1);
}

static void draw_router(FILE *f, const mesh_geo *g, const kh_json_val *root, const kh_json_val *r, double cycles)
{
    unsigned x = (unsigned)kh_sd_num(r, "x"), y = (unsigned)kh_sd_num(r, "y");
    const char *comp = kh_sd_str(r, "comp");
    double hops = kh_sd_num(kh_json_get(kh_sd_comp(root, comp), "stats"), "hops");
    double u = kh_sd_share(hops, 5 * cycles); /* five outputs, one flit each per cycle */
    char col[8];
    colour(u, col);
    pt c = centre(g, x, y);
    draw_box(f, c, ROUTER, col, "router");
    fprintf(f, " data-comp=\"");
    xml_text(f, comp);
    fprintf(f, "\" data-util=\"%.6g\"><title>", u);
    xml_text(f, comp);
    fprintf(f, ": %.0f flit-hops, %.2f %% of five per cycle</title></rect>\n", hops, 100 * u);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">(%u,%u)</text>\n", c.x, c.y + 4, x, y);
}

static void legend(FILE *f, double y, double width)
{
    fprintf(f, "<defs><linearGradient id=\"scale\">");
    for (int i = 0; i <= 10; i++) {
        char col[8];
        colour(pow(10, -3 + 0.3 * i), col);
        fprintf(f, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", 10 * i, col);
    }
    fprintf(f, "</linearGradient></defs>\n");
    double x0 = 90, w = width - 180 < 420 ? width - 180 : 420;
    char grey[8];
    colour(0, grey);
    fprintf(f, "<g class=\"legend\"><rect x=\"20\" y=\"%.1f\" width=\"40\" height=\"16\" fill=\"%s\"/>"
               "<text x=\"40\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">0</text>",
            y, grey, y + 30);
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" fill=\"url(#scale)\"/>", x0, y, w);
    static const char *ticks[] = {"0.1 %", "1 %", "10 %", "100 %"};
    for (int i = 0; i < 4; i++)
        fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\">%s</text>", x0 + w * i / 3.0,
                y + 30, ticks[i]);
    fprintf(f, "<text x=\"20\" y=\"%.1f\" font-size=\"12\">log scale of the run: links, flits per cycle; units, busy "
               "share;</text><text x=\"20\" y=\"%.1f\" font-size=\"12\">memory ports, busy share; routers, "
               "flit-hops of five per cycle</text></g>\n",
            y + 50, y + 66);
}

int kh_heatmap_write(const kh_json_val *root, const char *path, char *err, size_t errlen)
{
    const kh_json_val *run = kh_json_get(root, "run"), *meshes = kh_json_get(run, "meshes");
    if (!kh_json_len(meshes)) {
        snprintf(err, errlen, "heat map %s: the statistics have no run section with a mesh layout", path);
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errlen, "heat map %s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    double cycles = kh_sd_num(root, "cycle"), width = 0, height = 0;
    for (size_t i = 0; i < kh_json_len(meshes); i++) {
        const kh_json_val *m = kh_json_at(meshes, i);
        width += (kh_sd_num(m, "nx") + 2) * CELL;
        double h = (kh_sd_num(m, "ny") + 2) * CELL;
        if (h > height) height = h;
    }
    if (width < 640) width = 640;
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "font-family=\"sans-serif\">\n",
            width, TOP + height + LEGEND, width, TOP + height + LEGEND);
    fprintf(f, "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"8\" refY=\"5\" markerWidth=\"2.2\" "
               "markerHeight=\"2.2\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#555\"/></marker></defs>\n");
    fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n<text class=\"title\" x=\"20\" y=\"30\" "
               "font-size=\"18\">");
    xml_text(f, kh_sd_str(run, "name"));
    fprintf(f, "</text>\n<text x=\"20\" y=\"52\" font-size=\"13\">%.0f cycles</text>\n", cycles);
    double ox = 0;
    for (size_t i = 0; i < kh_json_len(meshes); i++) {
        const kh_json_val *m = kh_json_at(meshes, i);
        mesh_geo g = {ox, (unsigned)kh_sd_num(m, "nx"), (unsigned)kh_sd_num(m, "ny")};
        fprintf(f, "<g class=\"mesh\" data-mesh=\"%.0f\">\n", kh_sd_num(m, "mesh"));
        if (kh_json_len(meshes) > 1)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"13\">mesh %.0f</text>\n", ox + 20, TOP + 14,
                    kh_sd_num(m, "mesh"));
        const kh_json_val *rs = kh_json_get(m, "routers"), *es = kh_json_get(m, "endpoints"),
                          *ls = kh_json_get(m, "links");
        /* links first: the boxes and their labels go on top of the arrows' ends */
        for (size_t k = 0; k < kh_json_len(ls); k++) draw_link(f, &g, root, kh_json_at(ls, k), cycles);
        for (size_t k = 0; k < kh_json_len(rs); k++) draw_router(f, &g, root, kh_json_at(rs, k), cycles);
        for (size_t k = 0; k < kh_json_len(es); k++) draw_endpoint(f, &g, root, kh_json_at(es, k), cycles);
        for (size_t k = 0; k < kh_json_len(ls); k++) {
            const kh_json_val *from = kh_json_get(kh_json_at(ls, k), "from");
            if (kh_json_len(from) == 2 && kh_sd_num(kh_json_at(from, 0), "") == 0 &&
                kh_sd_num(kh_json_at(from, 1), "") == 0)
                draw_processor(f, &g, root, kh_json_at(ls, k), cycles);
        }
        fprintf(f, "</g>\n");
        ox += (g.nx + 2) * CELL;
    }
    legend(f, TOP + height + 10, width);
    fprintf(f, "</svg>\n");
    int bad = ferror(f);
    if (fclose(f)) bad = 1;
    if (bad) snprintf(err, errlen, "heat map %s: write error", path);
    return bad ? -1 : 0;
}
