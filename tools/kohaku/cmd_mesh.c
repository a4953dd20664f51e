/* kohaku mesh MAP: parse a map picture and print the machine (cli.md). */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/machine.h"
#include "kohaku/mesh.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kohaku mesh MAP|MACHINE\n"
            "Parse a map picture (mesh.md §2) and print the grid, every endpoint position\n"
            "with its coordinate, token and kind, the memory-port indices and the port each\n"
            "unit is bound to. A bad map is refused with its line, row (y), column (x),\n"
            "token and rule (exit 1). A machine file (docs/machine.md) prints its mesh\n"
            "count and ilink_lat, then each of its meshes in id order. 'default' is the\n"
            "built-in machine.\n"
            "Exit status: 0 ok, 1 the map or machine file refused, 2 usage (docs/exit-status.md).\n");
}

/* The router port an endpoint position hangs off (mesh.md §1). */
static void attach_point(const kh_map *m, const kh_map_ep *e, char *out, size_t len)
{
    unsigned nx = kh_map_nx(m), ny = kh_map_ny(m), rx = e->x, ry = e->y;
    const char *dir = "L";
    if (e->y == 0) ry = 1, dir = "N";
    else if (e->y == ny + 1) ry = ny, dir = "S";
    else if (e->x == 0) rx = 1, dir = "W";
    else if (e->x == nx + 1) rx = nx, dir = "E";
    snprintf(out, len, "router(%u,%u).%s", rx, ry, dir);
}

static void print_map(const kh_map *m)
{
    unsigned nx = kh_map_nx(m), ny = kh_map_ny(m), nep = kh_map_nendpoints(m);
    printf("grid %ux%u: routers at x=1..%u, y=1..%u; %u endpoint positions (%u local, %u edge)\n",
           nx, ny, nx, ny, nep, nx * ny, 2 * (nx + ny));
    printf("memory ports %u:", kh_map_nports(m));
    for (unsigned i = 0; i < kh_map_nports(m); i++) {
        const kh_map_ep *p = kh_map_port(m, i);
        printf(" %u (%u,%u)", i, p->x, p->y);
    }
    printf("\n%-9s %-5s %-12s %-5s %-16s %s\n", "endpoint", "token", "kind", "port", "attach",
           "detail");
    for (unsigned i = 0; i < nep; i++) {
        const kh_map_ep *e = kh_map_endpoint(m, i);
        char coord[16], at[32], port[8] = "-", detail[96] = "tied off";
        snprintf(coord, sizeof coord, "(%u,%u)", e->x, e->y);
        attach_point(m, e, at, sizeof at);
        if (e->kind == KH_EP_MEM) {
            snprintf(port, sizeof port, "%d", e->port);
            snprintf(detail, sizeof detail, "memory port %d of the system node", e->port);
        } else if (e->kind == KH_EP_UNIT) {
            const kh_map_ep *p = kh_map_port(m, (unsigned)e->bound_port);
            snprintf(detail, sizeof detail, "%s, bound to memory port %d (%u,%u)", kh_unit_by_token(e->token)->name,
                     e->bound_port, p->x, p->y);
        }
        printf("%-9s %-5s %-12s %-5s %-16s %s\n", coord, e->token, kh_ep_kind_name(e->kind), port,
               at, detail);
    }
}

int kh_cmd_mesh(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        usage(stderr);
        return 2;
    }
    char err[1024];
    kh_machine_spec *spec = kh_machine_spec_load(argv[1], err, sizeof err);
    if (!spec) {
        fprintf(stderr, "kohaku mesh: %s\n", err);
        return 1;
    }
    unsigned n = kh_machine_spec_nmeshes(spec);
    int rc = 0;
    if (kh_machine_spec_is_file(spec)) {
        kh_params p;
        kh_params_default(&p);
        if (kh_machine_spec_params(spec, &p, err, sizeof err)) {
            fprintf(stderr, "kohaku mesh: %s\n", err);
            kh_machine_spec_free(spec);
            return 1;
        }
        printf("machine %s: %u mesh%s in a line, ids 0..%u, each node with its interlink (control.md §7.1); "
               "ilink_lat %llu\n", argv[1], n, n == 1 ? "" : "es", n - 1, (unsigned long long)p.ilink_lat);
    }
    for (unsigned i = 0; i < n && !rc; i++) {
        const char *text = kh_machine_spec_map(spec, i);
        char e2[512];
        kh_map_units units;
        kh_machine_map_units(&units);
        kh_map *m = kh_map_parse(text ? text : kh_machine_default_map(), &units, e2, sizeof e2);
        if (!m) {
            fprintf(stderr, "kohaku mesh: %s: %s\n", kh_machine_spec_map_name(spec, i), e2);
            rc = 1;
            break;
        }
        if (kh_machine_spec_is_file(spec)) printf("\nmesh %u: %s\n", i, kh_machine_spec_map_name(spec, i));
        print_map(m);
        kh_map_free(m);
    }
    kh_machine_spec_free(spec);
    return rc;
}
