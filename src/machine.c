/* The machine builder: a map picture becomes a simulation with its mesh,
 * system node, orchestrator, units and host card (docs/design.md §4). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/machine.h"
#include "kohaku/mesh.h"
#include "kohaku/node.h"

#define MAX_COORD 16 /* POS_WIDTH 4 (flits.md §1) */

struct kh_machine {
    kh_sim *sim;
    kh_map *map;
    kh_mesh *mesh;
    kh_node *node;
    kh_orch *orch;
    kh_card *card;
    kh_cu *unit[MAX_COORD][MAX_COORD];
};

/* The picture of ../shared/maps/mesh_2x2_6+2.txt (upstream data, kept as
 * upstream drew it). */
static const char default_map[] =
    "# 6+2 on a 2x2 grid: four clusters on the router locals, two more on the north\n"
    "# and south edges of column 1, two vector cores on column 2's. Two routers and\n"
    "# one SmartConnect port cheaper than the 3x2 shapes.\n"
    "#\n"
    "# ~260,200 LUT = ~60.3% of an SLR, DERIVED from per-unit costs rather than\n"
    "# measured -- synth it before trusting the number.\n"
    "xxx mat vec xxx\n"
    "mag mat mat xxx\n"
    "mag mat mat xxx\n"
    "xxx mat vec xxx\n";

const char *kh_machine_default_map(void) { return default_map; }

/* ---- the orchestrator's environment: the node ---- */

static void env_ready(void *ctx, kh_cycle at) { kh_node_agent_ready(((kh_machine *)ctx)->node, at); }
static uint64_t env_aux_stat(void *ctx, kh_cycle now) { return kh_node_aux_stat(((kh_machine *)ctx)->node, now); }
static void env_aux_write(void *ctx, unsigned reg, uint64_t value, kh_cycle now)
{
    kh_machine *m = ctx;
    /* The mover takes 0x00-0x7F; 0x80+ is the interlink, not built in a
     * one-mesh machine (control.md §2.8, memory.md §1.3 ILINK = 0). */
    if (reg < 0x80)
        kh_node_mover_write(m->node, reg, value, now);
    else
        kh_sim_log(m->sim, KH_LOG_WARN,
                   "AUX_CFG write to interlink register 0x%02x dropped: no interlink in a one-mesh machine "
                   "(control.md §2.8, memory.md §1.3 ILINK = 0)", reg);
}

/* ---- the card's memory window: the node's host path ---- */

static int mem_read(void *ctx, uint64_t inside, uint8_t *b, size_t n, char *err, size_t errlen)
{
    return kh_node_host_read(ctx, inside, b, n, err, errlen);
}
static int mem_write(void *ctx, uint64_t inside, const uint8_t *b, size_t n, char *err, size_t errlen)
{
    return kh_node_host_write(ctx, inside, b, n, err, errlen);
}

void kh_machine_free(kh_machine *m)
{
    if (!m) return;
    if (m->sim) kh_sim_destroy(m->sim);
    kh_mesh_free(m->mesh);
    kh_map_free(m->map);
    kh_card_free(m->card);
    free(m);
}

static int build_node(kh_machine *m, char *err, size_t errlen)
{
    unsigned nports = kh_map_nports(m->map);
    if (nports == 0) {
        snprintf(err, errlen, "the map has no memory port ('mag'): the orchestrator answers at port 0's "
                 "coordinate and needs one (control.md §1, mesh.md §7)");
        return -1;
    }
    kh_node_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.nports = nports;
    cfg.mesh_id = 0;
    cfg.interlink = 0; /* one mesh: ILINK = 0 (memory.md §1.3) */
    for (unsigned i = 0; i < nports; i++) {
        cfg.port[i].x = kh_map_port(m->map, i)->x;
        cfg.port[i].y = kh_map_port(m->map, i)->y;
    }
    m->node = kh_node_new(m->sim, &cfg, err, errlen);
    if (!m->node) return -1;
    for (unsigned i = 0; i < nports; i++) {
        const kh_map_ep *ep = kh_map_port(m->map, i);
        kh_link *out = kh_mesh_attach(m->mesh, ep->x, ep->y, kh_node_port(m->node, i), kh_node_port_accept, i, err,
                                      errlen);
        if (!out) return -1;
        kh_node_set_port_out(m->node, i, out);
    }
    const kh_map_ep *p0 = kh_map_port(m->map, 0);
    kh_orch_cfg ocfg = {.x = p0->x, .y = p0->y, .grid_lo = 1,
                        .grid_hi = (uint8_t)(kh_map_nx(m->map) > kh_map_ny(m->map) ? kh_map_nx(m->map)
                                                                                   : kh_map_ny(m->map))};
    kh_orch_env env = {.ctx = m, .ready = env_ready, .aux_stat = env_aux_stat, .aux_write = env_aux_write};
    m->orch = kh_orch_new(m->sim, &ocfg, &env, err, errlen);
    if (!m->orch) return -1;
    kh_node_agent agent = {.ctx = m->orch,
                           .accept = kh_orch_agent_accept,
                           .peek = kh_orch_agent_peek,
                           .take = kh_orch_agent_take};
    kh_node_set_agent(m->node, &agent);
    return 0;
}

static int build_units(kh_machine *m, char *err, size_t errlen)
{
    for (unsigned i = 0; i < kh_map_nendpoints(m->map); i++) {
        const kh_map_ep *ep = kh_map_endpoint(m->map, i);
        if (ep->kind != KH_EP_UNIT) continue;
        const kh_map_ep *port = kh_map_port(m->map, ep->bound_port >= 0 ? (unsigned)ep->bound_port : 0);
        kh_cu_place place = {.x = ep->x, .y = ep->y, .mem_x = port->x, .mem_y = port->y, .mesh_id = 0};
        char e2[256];
        kh_cu *cu = kh_cu_new(m->sim, ep->unit, &place, e2, sizeof e2);
        if (!cu) {
            snprintf(err, errlen, "map line %u, token '%s' at (%u,%u): %s", ep->line, ep->token, ep->x, ep->y, e2);
            return -1;
        }
        kh_link *out = kh_mesh_attach(m->mesh, ep->x, ep->y, kh_cu_comp(cu), kh_cu_accept, 0, err, errlen);
        if (!out) return -1;
        kh_cu_set_out(cu, out);
        m->unit[ep->x][ep->y] = cu;
    }
    return 0;
}

kh_machine *kh_machine_new(const char *map_text, const kh_params *p, char *err, size_t errlen)
{
    kh_params defaults;
    if (!p) {
        kh_params_default(&defaults);
        p = &defaults;
    }
    kh_machine *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory building the machine");
        return NULL;
    }
    m->map = kh_map_parse(map_text ? map_text : default_map, err, errlen);
    if (!m->map) goto bad;
    m->sim = kh_sim_new(p);
    if (!m->sim) {
        snprintf(err, errlen, "out of memory creating the simulation");
        goto bad;
    }
    kh_sim_set_user(m->sim, m);
    m->mesh = kh_mesh_new(m->sim, m->map, err, errlen);
    if (!m->mesh) goto bad;
    if (build_node(m, err, errlen) || build_units(m, err, errlen)) goto bad;
    m->card = kh_card_new(m->sim, err, errlen);
    if (!m->card) goto bad;
    kh_card_mem mem = {.ctx = m->node, .read = mem_read, .write = mem_write};
    if (kh_card_attach_mesh(m->card, 0, m->orch, &mem, err, errlen)) goto bad;
    return m;
bad:
    kh_machine_free(m);
    return NULL;
}

kh_machine *kh_machine_load(const char *path, const kh_params *p, char *err, size_t errlen)
{
    char *text = kh_file_read(path, NULL, err, errlen);
    if (!text) return NULL;
    char e2[512];
    kh_machine *m = kh_machine_new(text, p, e2, sizeof e2);
    free(text);
    if (!m) snprintf(err, errlen, "%s: %s", path, e2);
    return m;
}

kh_sim *kh_machine_sim(const kh_machine *m) { return m->sim; }
kh_card *kh_machine_card(const kh_machine *m) { return m->card; }
kh_mesh *kh_machine_mesh(const kh_machine *m) { return m->mesh; }
kh_node *kh_machine_node(const kh_machine *m) { return m->node; }
kh_orch *kh_machine_orch(const kh_machine *m) { return m->orch; }

kh_cu *kh_machine_unit(const kh_machine *m, unsigned x, unsigned y)
{
    return x < MAX_COORD && y < MAX_COORD ? m->unit[x][y] : NULL;
}

const char *kh_machine_error(const kh_machine *m)
{
    return m->orch ? kh_orch_error(m->orch) : NULL;
}

int kh_machine_diagnose(kh_machine *m, char *buf, size_t len)
{
    buf[0] = 0;
    int n = kh_sim_describe_stuck(m->sim, buf, len);
    size_t used = strlen(buf);
    if (used < len) n += kh_orch_explain(m->orch, buf + used, len - used);
    return n;
}
