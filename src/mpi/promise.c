/* Lane promises (docs/mpi.md "Lane promises"): a mesh's parts reach its
 * interlink through a handful of entry points (a port taking a remote
 * flit, the mover's remote words, interlink register writes, remote
 * stores, the lanes themselves). A part with nothing pending in the kernel
 * acts again only when another part, an arrival or the host wakes it; so
 * when the only parts with work are ones that provably cannot reach an
 * entry point, nothing of the meshes can until something from outside
 * arrives. Anything else, and any armed timer, promises only `now`.
 *
 * The network, ports and clusters are read as a whole (mesh_quiet): in a
 * mesh where no flit with the remote marker was ever pushed, no flit from
 * another mesh ever injected, and every CU_INST ever sent or still to be
 * sent without a register write went to a matmul cluster without a
 * far-mesh destination (dfin 0) or to a saxpy unit (which has none), no
 * part can make a remote flit: clusters make them only from such words
 * (src/cu/units/cluster/drain.c), routers and ports pass flits on, ports
 * answer memory requests without the marker, the processor starts only on
 * a CU_INST (so it is still halted) and the vector units act only on one
 * (so they are still idle). Then routers, memory ports, the memory path
 * (while the mover, which it also answers, writes inside the mesh: a mover
 * waiting for an answer is not busy in the kernel), the orchestrator,
 * clusters and their timers (the routers' hops and the
 * shells' receive timers, the only ones armed anywhere) can be busy and
 * still stay off the lanes. A mesh with any other kind of part is not
 * read (the RV64 complex, V2 frames, traffic generators). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ilink.h"
#include "mpi/promise.h"

/* A part's class for the readings. */
enum {
    PR_UNKNOWN,  /* a kind the readings do not know: the mesh is not read */
    PR_QUIET,    /* busy or not, stays off the lanes in a quiet mesh */
    PR_MAT,      /* a matmul cluster: quiet, and a CU_INST without dfin to it is fine */
    PR_SAX,      /* a saxpy unit: quiet, any CU_INST to it is fine */
    PR_IDLE,     /* acts only on a CU_INST (vector unit, processor): must not be busy, none may be sent */
    PR_NODE,     /* the mover and the interlink: kh_node_busy_stays_local */
    PR_ROUTER,   /* quiet, and not a destination of its own */
    PR_PATH,     /* the memory path: quiet while the mover, whose reads it answers too, stays in the mesh
                    and no landing write waits for its answer */
};

/* name's kind ("m1.mem_port0(1,2)": "mem_port"; machine.c prefixes
 * "m<mesh>."), into kind[len]; returns the rest of the name ("(1,2)"). */
static const char *kind_of(const char *name, char *kind, size_t len)
{
    size_t n = 0;
    if (name[0] == 'm' && name[1] >= '0' && name[1] <= '9') {
        const char *dot = name + 1;
        while (*dot >= '0' && *dot <= '9') dot++;
        if (*dot == '.') name = dot + 1;
    }
    while (name[n] && name[n] != '(' && n + 1 < len) n++;
    const char *rest = name + n;
    while (n && name[n - 1] >= '0' && name[n - 1] <= '9') n--;
    memcpy(kind, name, n);
    kind[n] = 0;
    return rest;
}

/* held's entry for the kind of a part named `name` ("m1.mem_port0(1,2)":
 * "mem_port"; machine.c prefixes "m<mesh>."), made on first sight;
 * "other" once the table is full. */
static unsigned held_slot(kh_mpi_held *held, const char *name)
{
    char kind[sizeof held->k[0].kind];
    kind_of(name, kind, sizeof kind);
    unsigned i = 0;
    for (; i + 1 < KH_MPI_HELD_KINDS; i++) {
        if (!held->k[i].kind[0]) memcpy(held->k[i].kind, kind, sizeof kind);
        if (!strcmp(held->k[i].kind, kind)) return i;
    }
    strcpy(held->k[i].kind, "other");
    return i;
}

static void tally(kh_mpi_held *held, uint32_t kinds)
{
    held->refused++;
    for (unsigned i = 0; i < KH_MPI_HELD_KINDS; i++) {
        if (!(kinds >> i & 1)) continue;
        held->k[i].any++;
        held->k[i].alone += !(kinds & (kinds - 1));
    }
}

static int class_of(const char *kind)
{
    static const struct { const char *kind; int cls; } known[] = {
        {"router", PR_ROUTER}, {"mem_port", PR_QUIET}, {"mem_path", PR_PATH}, {"orch", PR_QUIET},
        {"mat", PR_MAT},       {"sax", PR_SAX},        {"vec", PR_IDLE},      {"rv_mag_pe", PR_IDLE},
        {"rv32_hub", PR_IDLE}, {"mover", PR_NODE},     {"interlink", PR_NODE},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(kind, known[i].kind)) return known[i].cls;
    return PR_UNKNOWN;
}

static int build(kh_promise_mesh *pm, kh_machine *m, unsigned mesh)
{
    kh_sim *sim = kh_machine_sim(m);
    pm->built = 1;
    if (kh_machine_mesh_comps(m, mesh, &pm->a, &pm->b) || pm->b <= pm->a) return 0;
    pm->cls = calloc(pm->b - pm->a, 1);
    pm->unit = calloc(pm->b - pm->a, sizeof *pm->unit);
    if (!pm->cls || !pm->unit) return -1;
    pm->known = 1;
    for (unsigned id = pm->a; id < pm->b; id++) {
        char kind[32];
        const char *rest = kind_of(kh_sim_comp(sim, id)->name, kind, sizeof kind);
        int cls = class_of(kind);
        unsigned x, y;
        pm->cls[id - pm->a] = (uint8_t)cls;
        pm->known &= cls != PR_UNKNOWN;
        if (cls != PR_ROUTER && sscanf(rest, "(%u,%u)", &x, &y) == 2 && x < 256 && y < 256)
            pm->unit[pm->nunit++] = (struct kh_promise_unit){(uint8_t)x, (uint8_t)y, (uint8_t)cls};
    }
    return 0;
}

/* A CU_INST to (x, y): fine when everything there is a matmul cluster
 * (and the word names no far mesh) or a saxpy unit. */
static int inst_ok(void *ctx, unsigned x, unsigned y, int dfin)
{
    const kh_promise_mesh *pm = ctx;
    int any = 0;
    for (unsigned i = 0; i < pm->nunit; i++) {
        if (pm->unit[i].x != x || pm->unit[i].y != y) continue;
        if (pm->unit[i].cls == PR_SAX || (pm->unit[i].cls == PR_MAT && !dfin)) any = 1;
        else return 0;
    }
    return any;
}

/* 1 when nothing of the mesh's network, ports, orchestrator and units can
 * make anything reach the interlink (the file's comment), -1 no memory. */
static int mesh_quiet(kh_promise *p, kh_machine *m, unsigned mesh, kh_node *node)
{
    kh_promise_mesh *pm = &p->mesh[mesh];
    if (!pm->built && build(pm, m, mesh)) return -1;
    kh_orch *o = kh_machine_orch_at(m, mesh);
    return pm->known && o && !kh_node_landed(node) && kh_orch_stays_local(o, inst_ok, pm);
}

int kh_promise_meshes(kh_promise *p, kh_machine *m, unsigned lo, unsigned hi, kh_cycle now, kh_cycle *earliest,
                      kh_mpi_held *held)
{
    kh_sim *sim = kh_machine_sim(m);
    unsigned n = kh_sim_ncomps(sim), nw = (n + 63) / 64;
    *earliest = now;
    if (nw > p->nwords) {
        uint64_t *v = realloc(p->mask, (size_t)nw * sizeof *v);
        if (!v) return -1;
        p->mask = v;
        p->nwords = nw;
    }
    uint32_t kinds = 0; /* held's entries of the parts holding the promise at now */
    if (held && !held->k[0].kind[0]) held_slot(held, "timer");
    int timer = kh_sim_pending(sim, p->mask, nw);
    /* which meshes are read as quiet; a timer is harmless only when all are */
    unsigned quiet = 0, all = 0;
    for (unsigned mesh = lo; mesh < hi && p->units; mesh++) {
        kh_node *node = kh_machine_node_at(m, mesh);
        int q = node ? mesh_quiet(p, m, mesh, node) : 0;
        if (q < 0) return -1;
        quiet |= (unsigned)q << mesh;
    }
    for (unsigned mesh = lo; mesh < hi; mesh++) all |= 1u << mesh;
    if (timer && quiet != all) {
        if (!held) return 0;
        kinds |= 1;
    }
    for (unsigned mesh = lo; mesh < hi; mesh++) {
        unsigned a, b;
        kh_node *node = kh_machine_node_at(m, mesh);
        if (!node || kh_machine_mesh_comps(m, mesh, &a, &b)) {
            if (!held) return 0;
            kinds |= UINT32_C(1) << held_slot(held, "no node");
            continue;
        }
        const kh_promise_mesh *pm = &p->mesh[mesh];
        for (unsigned id = a; id < b; id++) {
            if (!(p->mask[id / 64] >> (id % 64) & 1)) continue;
            const kh_comp *c = kh_sim_comp(sim, id);
            if (quiet >> mesh & 1) {
                int cls = pm->cls[id - a];
                if (cls == PR_QUIET || cls == PR_MAT || cls == PR_SAX || cls == PR_ROUTER) continue;
                /* an answer may wake a mover waiting for it, not busy in the kernel,
                 * or the interlink whose landing writes it answers: the last answer
                 * releases a held doorbell, whose credit goes back on the lane */
                if (cls == PR_PATH && kh_node_mover_stays_local(node) && !kh_node_landing(node)) continue;
            }
            if (kh_node_busy_stays_local(node, c)) continue;
            if (!held) return 0;
            if (id >= p->nslots) {
                uint8_t *v = realloc(p->slot, n);
                if (!v) return -1;
                memset(v + p->nslots, 0, n - p->nslots);
                p->slot = v;
                p->nslots = n;
            }
            if (!p->slot[id]) p->slot[id] = (uint8_t)(held_slot(held, c->name) + 1);
            kinds |= UINT32_C(1) << (p->slot[id] - 1);
        }
    }
    if (kinds) {
        tally(held, kinds);
        return 0;
    }
    *earliest = KH_NEVER;
    return 0;
}

void kh_promise_free(kh_promise *p)
{
    for (unsigned i = 0; i < KH_MACHINE_MAX_MESHES; i++) {
        free(p->mesh[i].cls);
        free(p->mesh[i].unit);
        memset(&p->mesh[i], 0, sizeof p->mesh[i]);
    }
    free(p->mask);
    free(p->slot);
    p->mask = NULL;
    p->slot = NULL;
    p->nwords = 0;
    p->nslots = 0;
}
