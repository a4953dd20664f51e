/* The machine builder: map pictures become a simulation with one mesh
 * each (routers, system node, orchestrator, units), joined by their
 * interlinks when there are several, and the host card (docs/design.md §4,
 * docs/machine.md). What to build is a kh_machine_spec (machine_spec.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/ilink.h"
#include "kohaku/machine.h"
#include "kohaku/mesh.h"
#include "kohaku/node.h"
#include "kohaku/rv32.h"
#include "kohaku/rv64.h"

#include "machine/machine_int.h"

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

void kh_machine_layout_json(const kh_machine *m, char *buf, size_t len, size_t *used)
{
    kh_bufcat(buf, len, used, "[");
    for (unsigned i = 0; i < m->nmeshes; i++) {
        if (i) kh_bufcat(buf, len, used, ",");
        kh_mesh_layout_json(m->mesh[i].mesh, m->mesh[i].map, i, buf, len, used);
        /* the control processor's link into the node's hub is no link of the
         * mesh: add it to the mesh's links, from the (0,0) corner to port 0 */
        if (m->mesh[i].cpu && *used >= 2 && !strcmp(buf + *used - 2, "]}")) {
            const kh_map_ep *p0 = kh_map_port(m->mesh[i].map, 0);
            *used -= 2;
            buf[*used] = 0;
            kh_bufcat(buf, len, used, ",{\"name\":\"%s\",\"from\":[0,0],\"to\":[%u,%u]}]}",
                      kh_rv32_out_link(m->mesh[i].cpu)->name, p0->x, p0->y);
        }
    }
    kh_bufcat(buf, len, used, "]");
}

void kh_machine_map_units(kh_map_units *out)
{
    unsigned n;
    const kh_unit_kind *const *k = kh_unit_kinds(&n);
    out->n = 0;
    for (unsigned i = 0; i < n && out->n < KH_MAP_MAX_UNITS; i++)
        if (k[i]->token) snprintf(out->token[out->n++], sizeof out->token[0], "%s", k[i]->token);
}

static int set_check(kh_machine *m, kh_check_report_fn report, void *ctx, int env);

/* ---- the orchestrator's environment: its mesh's node ---- */

static void env_ready(void *ctx, kh_cycle at) { kh_node_agent_ready(((mach_mesh *)ctx)->node, at); }
static uint64_t env_aux_stat(void *ctx, kh_cycle now) { return kh_node_aux_stat(((mach_mesh *)ctx)->node, now); }
static void env_aux_write(void *ctx, unsigned reg, uint64_t value, kh_cycle now)
{
    /* 0x00-0x7F the mover, 0x80-0xFF the interlink (control.md §2.8) */
    kh_node_aux_write(((mach_mesh *)ctx)->node, reg, value, now);
}
static uint64_t env_aux_statw(void *ctx, unsigned k, kh_cycle now)
{
    return kh_node_aux_statw(((mach_mesh *)ctx)->node, k, now);
}
/* the slot at control +0x8000: the RV64 complex's host-load window */
static void env_slot_write(void *ctx, unsigned off, uint64_t data, uint8_t strb, kh_cycle beat)
{
    mach_mesh *mm = ctx;
    if (mm->cpu64) kh_rv64_node_win_write(mm->cpu64, off, data, strb, beat);
}
static uint64_t env_slot_read(void *ctx, unsigned off, kh_cycle now)
{
    mach_mesh *mm = ctx;
    return mm->cpu64 ? kh_rv64_node_win_read(mm->cpu64, off, now) : 0;
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
    kh_check_free(m->check); /* detaches from the simulation: before it goes */
    if (m->sim) kh_sim_destroy(m->sim);
    for (unsigned i = 0; i < KH_MACHINE_MAX_MESHES; i++) {
        kh_mesh_free(m->mesh[i].mesh);
        kh_map_free(m->mesh[i].map);
        free(m->map_text[i]);
    }
    kh_card_free(m->card);
    free(m);
}

static int build_node(kh_machine *m, unsigned id, int interlink, char *err, size_t errlen)
{
    mach_mesh *mm = &m->mesh[id];
    unsigned nports = kh_map_nports(mm->map);
    if (nports == 0) {
        snprintf(err, errlen, "the map has no memory port ('mag'): the orchestrator answers at port 0's "
                 "coordinate and needs one (control.md §1, mesh.md §7)");
        return -1;
    }
    kh_node_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.nports = nports;
    cfg.mesh_id = id;
    cfg.interlink = interlink; /* a map picture alone: ILINK = 0 (memory.md §1.3) */
    for (unsigned i = 0; i < nports; i++) {
        cfg.port[i].x = kh_map_port(mm->map, i)->x;
        cfg.port[i].y = kh_map_port(mm->map, i)->y;
    }
    mm->node = kh_node_new(m->sim, &cfg, err, errlen);
    if (!mm->node) return -1;
    for (unsigned i = 0; i < nports; i++) {
        const kh_map_ep *ep = kh_map_port(mm->map, i);
        kh_link *out = kh_mesh_attach(mm->mesh, ep->x, ep->y, kh_node_port(mm->node, i), kh_node_port_accept, i,
                                      err, errlen);
        if (!out) return -1;
        kh_node_set_port_out(mm->node, i, out);
    }
    const kh_map_ep *p0 = kh_map_port(mm->map, 0);
    unsigned nx = kh_map_nx(mm->map), ny = kh_map_ny(mm->map);
    kh_orch_cfg ocfg = {.x = p0->x, .y = p0->y, .grid_lo = 1, .grid_hi = (uint8_t)(nx > ny ? nx : ny)};
    kh_orch_env env = {.ctx = mm,
                       .ready = env_ready,
                       .aux_stat = env_aux_stat,
                       .aux_write = env_aux_write,
                       .aux_statw = env_aux_statw,
                       .slot_write = env_slot_write,
                       .slot_read = env_slot_read};
    mm->orch = kh_orch_new(m->sim, &ocfg, &env, err, errlen);
    if (!mm->orch) return -1;
    kh_node_agent agent = {.ctx = mm->orch,
                           .accept = kh_orch_agent_accept,
                           .peek = kh_orch_agent_peek,
                           .take = kh_orch_agent_take,
                           .origin = kh_orch_agent_origin};
    kh_node_set_agent(mm->node, &agent);
    return 0;
}

static int build_units(kh_machine *m, unsigned id, char *err, size_t errlen)
{
    mach_mesh *mm = &m->mesh[id];
    for (unsigned i = 0; i < kh_map_nendpoints(mm->map); i++) {
        const kh_map_ep *ep = kh_map_endpoint(mm->map, i);
        if (ep->kind != KH_EP_UNIT) continue;
        const kh_map_ep *port = kh_map_port(mm->map, ep->bound_port >= 0 ? (unsigned)ep->bound_port : 0);
        kh_cu_place place = {.x = ep->x, .y = ep->y, .mem_x = port->x, .mem_y = port->y, .mesh_id = (uint8_t)id};
        char e2[256];
        const kh_unit_kind *kind = kh_unit_by_token(ep->token);
        if (!strcmp(ep->token, "vec") && kh_sim_params(m->sim)->vec_core_v2) kind = kh_unit_by_token("vc2");
        kh_cu *cu = kh_cu_new(m->sim, kind, &place, e2, sizeof e2);
        if (!cu) {
            snprintf(err, errlen, "map line %u, token '%s' at (%u,%u): %s", ep->line, ep->token, ep->x, ep->y, e2);
            return -1;
        }
        kh_link *out = kh_mesh_attach(mm->mesh, ep->x, ep->y, kh_cu_comp(cu), kh_cu_accept, 0, err, errlen);
        if (!out) return -1;
        kh_cu_set_out(cu, out);
        mm->unit[ep->x][ep->y] = cu;
    }
    return 0;
}

/* Components and links of mesh id carry "m<id>." in front of their names
 * when a machine has several meshes, so reports and traces tell them apart. */
static void prefix_names(kh_machine *m, unsigned id, unsigned first_comp, unsigned first_link)
{
    char pre[8];
    snprintf(pre, sizeof pre, "m%u.", id);
    size_t k = strlen(pre);
    for (unsigned i = first_comp; i < kh_sim_ncomps(m->sim); i++) {
        char *name = kh_sim_comp(m->sim, i)->name;
        size_t cap = sizeof kh_sim_comp(m->sim, i)->name, n = strlen(name);
        if (n + k >= cap) n = cap - k - 1; /* keep the tail short rather than the prefix */
        memmove(name + k, name, n);
        memcpy(name, pre, k);
        name[n + k] = 0;
    }
    for (unsigned i = first_link; i < kh_sim_nlinks(m->sim); i++) {
        char *name = kh_sim_link(m->sim, i)->name;
        size_t cap = sizeof kh_sim_link(m->sim, i)->name, n = strlen(name);
        if (n + k >= cap) n = cap - k - 1;
        memmove(name + k, name, n);
        memcpy(name, pre, k);
        name[n + k] = 0;
    }
}

/* The control processor is structural in the seed-era node (cpu.md §1):
 * built unless cpu_mode says the node has none. */
static int build_cpu(kh_machine *m, unsigned id, char *err, size_t errlen)
{
    mach_mesh *mm = &m->mesh[id];
    const kh_params *p = kh_sim_params(m->sim);
    if (p->cpu_mode != KH_CPU_MODE_CPU && p->cpu_mode != KH_CPU_MODE_EXACT) return 0;
    if (p->cpu_rv64) {
        mm->cpu64 = kh_rv64_node_attach(mm->node, err, errlen);
        return mm->cpu64 ? 0 : -1;
    }
    mm->cpu = kh_rv32_attach(mm->node, err, errlen);
    return mm->cpu ? 0 : -1;
}

static int build_mesh(kh_machine *m, unsigned id, const char *map_text, int interlink, char *err, size_t errlen)
{
    mach_mesh *mm = &m->mesh[id];
    unsigned c0 = kh_sim_ncomps(m->sim), l0 = kh_sim_nlinks(m->sim);
    kh_map_units units;
    kh_machine_map_units(&units);
    mm->map = kh_map_parse(map_text ? map_text : default_map, &units, err, errlen);
    if (!mm->map) return -1;
    mm->mesh = kh_mesh_new(m->sim, mm->map, err, errlen);
    if (!mm->mesh) return -1;
    if (build_node(m, id, interlink, err, errlen) || build_units(m, id, err, errlen) ||
        build_cpu(m, id, err, errlen))
        return -1;
    if (m->nmeshes > 1) prefix_names(m, id, c0, l0);
    mm->comp_lo = c0;
    mm->comp_hi = kh_sim_ncomps(m->sim);
    return 0;
}

static kh_machine *build(const char *const *maps, unsigned n, int interlink, const kh_params *p, char *err,
                         size_t errlen)
{
    kh_params defaults;
    if (!p) {
        kh_params_default(&defaults);
        p = &defaults;
    }
    if (n < 1 || n > KH_MACHINE_MAX_MESHES) {
        snprintf(err, errlen, "%u meshes: a machine has 1 to %u, in a line (control.md §7.1)", n,
                 KH_MACHINE_MAX_MESHES);
        return NULL;
    }
    kh_machine *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, errlen, "out of memory building the machine");
        return NULL;
    }
    m->nmeshes = n;
    m->interlink = interlink;
    for (unsigned i = 0; i < n; i++)
        if (maps && maps[i] && !(m->map_text[i] = strdup(maps[i]))) {
            snprintf(err, errlen, "out of memory building the machine");
            goto bad;
        }
    m->sim = kh_sim_new(p);
    if (!m->sim) {
        snprintf(err, errlen, "out of memory creating the simulation");
        goto bad;
    }
    kh_sim_set_user(m->sim, m);
    for (unsigned i = 0; i < n; i++) {
        char e2[512];
        if (build_mesh(m, i, maps ? maps[i] : NULL, interlink, e2, sizeof e2)) {
            if (n > 1) snprintf(err, errlen, "mesh %u: %s", i, e2);
            else snprintf(err, errlen, "%s", e2);
            goto bad;
        }
    }
    /* The line of control.md §7.1: link1 of mesh i to link0 of mesh i+1. */
    for (unsigned i = 0; i + 1 < n; i++)
        if (kh_node_ilink_join(m->mesh[i].node, m->mesh[i + 1].node, err, errlen)) goto bad;
    m->card = kh_card_new(m->sim, err, errlen);
    if (!m->card) goto bad;
    for (unsigned i = 0; i < n; i++) {
        kh_card_mem mem = {.ctx = m->mesh[i].node, .read = mem_read, .write = mem_write};
        if (kh_card_attach_mesh(m->card, i, m->mesh[i].orch, &mem, err, errlen)) goto bad;
    }
    const char *env = getenv("KOHAKU_CHECK"); /* the test-sweep switch (docs/check.md) */
    if (env && *env && strcmp(env, "0") && set_check(m, NULL, NULL, 1)) {
        snprintf(err, errlen, "out of memory for the flit checker");
        goto bad;
    }
    return m;
bad:
    kh_machine_free(m);
    return NULL;
}

kh_machine *kh_machine_new(const char *map_text, const kh_params *p, char *err, size_t errlen)
{
    return build(&map_text, 1, 0, p, err, errlen);
}

kh_machine *kh_machine_new_meshes(const char *const *maps, unsigned n, const kh_params *p, char *err,
                                  size_t errlen)
{
    return build(maps, n, 1, p, err, errlen);
}

kh_machine *kh_machine_build(const kh_machine_spec *s, const kh_params *p, char *err, size_t errlen)
{
    const char *maps[KH_MACHINE_MAX_MESHES];
    unsigned n = kh_machine_spec_nmeshes(s);
    for (unsigned i = 0; i < n && i < KH_MACHINE_MAX_MESHES; i++) maps[i] = kh_machine_spec_map(s, i);
    return build(maps, n, kh_machine_spec_is_file(s), p, err, errlen);
}

kh_machine *kh_machine_load(const char *path, const kh_params *p, char *err, size_t errlen)
{
    kh_machine_spec *s = kh_machine_spec_load(path, err, errlen);
    if (!s) return NULL;
    kh_params q;
    if (p) q = *p;
    else kh_params_default(&q);
    char e2[512];
    kh_machine *m = NULL;
    if (kh_machine_spec_params(s, &q, err, errlen) == 0) {
        m = kh_machine_build(s, &q, e2, sizeof e2);
        if (!m) snprintf(err, errlen, "%s: %s", path, e2);
    }
    kh_machine_spec_free(s);
    return m;
}

kh_sim *kh_machine_sim(const kh_machine *m) { return m->sim; }
kh_card *kh_machine_card(const kh_machine *m) { return m->card; }
unsigned kh_machine_nmeshes(const kh_machine *m) { return m->nmeshes; }
kh_mesh *kh_machine_mesh(const kh_machine *m) { return m->mesh[0].mesh; }
kh_node *kh_machine_node(const kh_machine *m) { return m->mesh[0].node; }
kh_orch *kh_machine_orch(const kh_machine *m) { return m->mesh[0].orch; }
kh_cu *kh_machine_unit(const kh_machine *m, unsigned x, unsigned y) { return kh_machine_unit_at(m, 0, x, y); }

kh_mesh *kh_machine_mesh_at(const kh_machine *m, unsigned i) { return i < m->nmeshes ? m->mesh[i].mesh : NULL; }
kh_node *kh_machine_node_at(const kh_machine *m, unsigned i) { return i < m->nmeshes ? m->mesh[i].node : NULL; }
kh_orch *kh_machine_orch_at(const kh_machine *m, unsigned i) { return i < m->nmeshes ? m->mesh[i].orch : NULL; }

kh_cu *kh_machine_unit_at(const kh_machine *m, unsigned i, unsigned x, unsigned y)
{
    if (i < m->nmeshes && x == 0 && y == 0 && m->mesh[i].cpu) return kh_rv32_shell(m->mesh[i].cpu);
    return i < m->nmeshes && x < MAX_COORD && y < MAX_COORD ? m->mesh[i].unit[x][y] : NULL;
}

unsigned kh_machine_units(const kh_machine *m, unsigned mesh, kh_machine_unit_info *out, unsigned max)
{
    unsigned n = 0;
    for (unsigned y = 0; y < MAX_COORD; y++)
        for (unsigned x = 0; x < MAX_COORD; x++) {
            const kh_cu *cu = kh_machine_unit_at(m, mesh, x, y);
            if (!cu) continue;
            if (n < max) {
                const kh_cu_place *pl = kh_cu_where(cu);
                out[n] = (kh_machine_unit_info){(uint8_t)x, (uint8_t)y, pl->mem_x, pl->mem_y, kh_cu_kind(cu)->cu_type};
            }
            n++;
        }
    return n;
}

const kh_params *kh_machine_params(const kh_machine *m) { return kh_sim_params(m->sim); }

int kh_machine_mesh_comps(const kh_machine *m, unsigned mesh, unsigned *lo, unsigned *hi)
{
    if (mesh >= m->nmeshes) return -1;
    *lo = m->mesh[mesh].comp_lo;
    *hi = m->mesh[mesh].comp_hi;
    return 0;
}

/* This process speaks for mesh i (always, in one process). */
static int speaks_for(const kh_machine *m, unsigned i)
{
    return kh_sim_reports(m->sim, kh_orch_comp(m->mesh[i].orch));
}

static const char *local_error(const kh_machine *m)
{
    if (m->check_error[0]) return m->check_error;
    for (unsigned i = 0; i < m->nmeshes; i++) {
        const char *e = m->mesh[i].orch && speaks_for(m, i) ? kh_orch_error(m->mesh[i].orch) : NULL;
        if (e) return e;
    }
    return NULL;
}

/* Several processes: every one's texts, merged by key, into buf. */
static int merge_texts(const kh_machine *m, kh_sync_rec *mine, unsigned n, char *buf, size_t len)
{
    const kh_sync_ops *sy = kh_sim_sync(m->sim);
    kh_sync_rec *all = NULL;
    int nall = sy->gather(kh_sim_sync_ctx(m->sim), mine, n, &all);
    size_t used = strlen(buf);
    for (int i = 0; i < nall; i++) {
        kh_bufcat(buf, len, &used, "%s", all[i].text);
        free(all[i].text);
    }
    free(all);
    return nall > 0 ? nall : 0;
}

const char *kh_machine_error(const kh_machine *m)
{
    const char *e = local_error(m);
    if (!kh_sim_sync(m->sim)) return e;
    kh_machine *w = (kh_machine *)m; /* the merged copy lives in the machine */
    kh_sync_rec mine = {0, e ? strdup(e) : NULL};
    w->shared_error[0] = 0;
    int n = merge_texts(m, &mine, mine.text ? 1 : 0, w->shared_error, sizeof w->shared_error);
    free(mine.text);
    return n ? w->shared_error : NULL;
}

int kh_machine_diagnose(kh_machine *m, char *buf, size_t len)
{
    buf[0] = 0;
    int n = kh_sim_describe_stuck(m->sim, buf, len);
    int sync = kh_sim_sync(m->sim) != NULL;
    kh_sync_rec mine[KH_MACHINE_MAX_MESHES];
    unsigned nmine = 0;
    for (unsigned i = 0; i < m->nmeshes; i++) {
        if (!sync) {
            size_t used = strlen(buf);
            if (used < len) n += kh_orch_explain(m->mesh[i].orch, buf + used, len - used);
            continue;
        }
        char part[2048] = "";
        if (!speaks_for(m, i) || !kh_orch_explain(m->mesh[i].orch, part, sizeof part)) continue;
        if ((mine[nmine].text = strdup(part))) mine[nmine++].key = i;
    }
    if (sync) {
        n += merge_texts(m, mine, nmine, buf, len);
        for (unsigned i = 0; i < nmine; i++) free(mine[i].text);
    }
    return n;
}

/* ---- live flit checking (docs/check.md) ---- */

#define CHECK_LOG_PER_RULE 5 /* the machine's own reporter logs this many findings per rule */

static kh_flit_origin port_origin(void *ep) { return kh_node_port_out_origin(ep); }
static kh_flit_origin shell_origin(void *ep)
{
    return kh_cu_out_framework(ep) ? KH_ORIGIN_SHELL : KH_ORIGIN_UNIT;
}

static void own_report(void *ctx, const kh_check_finding *f)
{
    kh_machine *m = ctx;
    char line[900];
    kh_check_format(f, line, sizeof line);
    if (!f->issue.warn && !m->check_error[0])
        snprintf(m->check_error, sizeof m->check_error, "flit check: %s", line);
    unsigned r = f->issue.rule < 40 ? f->issue.rule : 0;
    if (m->check_logged[r] > CHECK_LOG_PER_RULE) return;
    if (m->check_logged[r]++ == CHECK_LOG_PER_RULE) {
        if (m->check_env) fprintf(stderr, "kohaku: flit check: further V%u findings are counted, not logged\n", r);
        else kh_sim_log(m->sim, KH_LOG_WARN, "flit check: further V%u findings are counted, not logged", r);
        return;
    }
    if (m->check_env) /* a sweep: past whatever log sink a test installed (and its counts) */
        fprintf(stderr, "kohaku: %s: flit check: %s\n", f->issue.warn ? "warning" : "error", line);
    else
        kh_sim_log(m->sim, f->issue.warn ? KH_LOG_WARN : KH_LOG_ERROR, "flit check: %s", line);
}

static int set_check(kh_machine *m, kh_check_report_fn report, void *ctx, int env)
{
    const kh_params *p = kh_sim_params(m->sim);
    kh_check_cfg cfg = {.stream = {.inst_depth = (unsigned)p->inst_depth, .recv_depth = (unsigned)p->recv_depth},
                        .profile_l = (int)p->l_ack_dropflag,
                        .report = report ? report : own_report,
                        .ctx = report ? ctx : m};
    kh_check_free(m->check);
    memset(m->check_logged, 0, sizeof m->check_logged);
    m->check_error[0] = 0;
    m->check_env = env;
    kh_check *c = m->check = kh_check_new(m->sim, &cfg);
    if (!c) return -1;
    for (unsigned id = 0; id < m->nmeshes; id++) {
        mach_mesh *mm = &m->mesh[id];
        uint8_t px[KH_MAP_MAX_PORTS], py[KH_MAP_MAX_PORTS];
        unsigned np = kh_map_nports(mm->map);
        for (unsigned i = 0; i < np; i++) {
            px[i] = kh_map_port(mm->map, i)->x;
            py[i] = kh_map_port(mm->map, i)->y;
        }
        if (kh_check_mesh(c, id, np, px, py)) goto oom;
        for (unsigned i = 0; i < np; i++)
            if (kh_check_endpoint(c, id, kh_node_port(mm->node, i), px[i], py[i], KH_CHECK_EP_PORT, port_origin,
                                  kh_node_port(mm->node, i)))
                goto oom;
        for (unsigned x = 0; x < MAX_COORD; x++)
            for (unsigned y = 0; y < MAX_COORD; y++) {
                kh_cu *cu = mm->unit[x][y];
                if (!cu) continue;
                kh_check_unit_at(c, id, x, y);
                if (kh_check_endpoint(c, id, kh_cu_comp(cu), x, y, KH_CHECK_EP_UNIT, shell_origin, cu)) goto oom;
            }
    }
    if (kh_check_attach(c)) goto oom;
    return 0;
oom:
    kh_check_free(c);
    m->check = NULL;
    return -1;
}

int kh_machine_set_check(kh_machine *m, kh_check_report_fn report, void *ctx)
{
    if (m->check && m->check_restored) { /* a restored checker goes on under its new reporter */
        kh_check_set_report(m->check, report ? report : own_report, report ? ctx : m);
        m->check_env = 0;
        m->check_restored = 0;
        return 0;
    }
    return set_check(m, report, ctx, 0);
}

kh_check *kh_machine_check(const kh_machine *m) { return m->check; }

kh_rv32 *kh_machine_cpu_at(const kh_machine *m, unsigned mesh)
{
    return mesh < m->nmeshes ? m->mesh[mesh].cpu : NULL;
}

kh_rv64_node *kh_machine_cpu64_at(const kh_machine *m, unsigned mesh)
{
    return mesh < m->nmeshes ? m->mesh[mesh].cpu64 : NULL;
}
