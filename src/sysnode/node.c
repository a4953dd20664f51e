/* The system node object: construction, the agent hook, AUX_STAT and
 * AUX_CFG, counters. The host window is in host.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "sysnode/fields.h"
#include "sysnode/ilink/ilink_int.h"
#include "sysnode/mover/mover_int.h"
#include "sysnode/port/port_int.h"

void kh_node_say(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used) kh_bufcat(buf, len, used, "; ");
    va_list ap;
    va_start(ap, fmt);
    kh_vbufcat(buf, len, used, fmt, ap);
    va_end(ap);
}

static int check_cfg(const kh_node_cfg *cfg, const kh_params *p, char *err, size_t errlen)
{
    if (cfg->mesh_id > 3) {
        snprintf(err, errlen, "node mesh_id %u: a mesh id is 0..3 (memory.md §1)", cfg->mesh_id);
        return -1;
    }
    if (cfg->nports < 1 || cfg->nports > KH_NODE_MAX_PORTS) {
        snprintf(err, errlen, "node has %u memory ports: PORTS is 1..4 (memory.md §2)", cfg->nports);
        return -1;
    }
    for (unsigned i = 0; i < cfg->nports; i++) {
        if (cfg->port[i].x > 15 || cfg->port[i].y > 15) {
            snprintf(err, errlen, "memory port %u at (%u,%u): coordinates are 4 bits (flits.md §2)", i,
                     cfg->port[i].x, cfg->port[i].y);
            return -1;
        }
        for (unsigned j = 0; j < i; j++)
            if (cfg->port[j].x == cfg->port[i].x && cfg->port[j].y == cfg->port[i].y) {
                snprintf(err, errlen, "memory ports %u and %u both at (%u,%u): ports must sit on different "
                         "routers (memory.md §2)", j, i, cfg->port[i].x, cfg->port[i].y);
                return -1;
            }
    }
    /* the table's ranges (params.def), whoever filled the parameters */
    if (kh_param_check_named(p, "dram_words_log2", err, errlen) ||
        kh_param_check_named(p, "stage_bytes_log2", err, errlen))
        return -1;
    return 0;
}

/* The mover's way to other meshes, bound to this node's interlink. */
static int mover_is_remote(void *il, uint64_t addr, kh_cycle now) { return kh_ilink_mover_remote(il, addr, now); }

static void mover_remote_word(void *il, uint64_t addr, const uint64_t d[4], int last, kh_cycle now)
{
    kh_ilink_mover_word(il, addr, d, last, now);
}

kh_node *kh_node_new(kh_sim *sim, const kh_node_cfg *cfg, char *err, size_t errlen)
{
    const kh_params *p = kh_sim_params(sim);
    if (check_cfg(cfg, p, err, errlen)) return NULL;
    kh_node *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(err, errlen, "out of memory building the system node");
        return NULL;
    }
    n->sim = sim;
    n->cfg = *cfg;
    n->p = p;
    kh_pages_init(&n->dram);
    kh_pages_init(&n->stage);
    n->dram_bytes_mask = (UINT64_C(32) << p->dram_words_log2) - 1;
    n->stage_bytes_mask = (UINT64_C(1) << p->stage_bytes_log2) - 1;
    n->agent_out_cycle = KH_NEVER;
    n->agent_arb.fn = kh_node_agent_arbitrate;
    n->agent_arb.ctx = n;
    n->cpu_out_cycle = KH_NEVER;
    n->cpu_arb.fn = kh_node_cpu_arbitrate;
    n->cpu_arb.ctx = n;
    kh_xform_slot_init(n);
    /* Requester channels: ports, host upload, mover, interlink (§7). */
    n->conv = kh_conv_new(n, cfg->nports + 2 + (cfg->interlink ? 1 : 0));
    if (!n->conv) {
        free(n);
        snprintf(err, errlen, "out of memory building the converged path");
        return NULL;
    }
    /* From here the node belongs to the simulation (freed with the path). */
    n->mover = kh_mover_new(n);
    if (!n->mover) {
        snprintf(err, errlen, "out of memory building the mover");
        return NULL;
    }
    for (unsigned i = 0; i < cfg->nports; i++)
        if (!(n->port[i] = kh_port_new(n, i, err, errlen))) return NULL;
    if (cfg->interlink) {
        if (!(n->ilink = kh_ilink_new(n, err, errlen))) return NULL;
        kh_mover_set_remote(n->mover, &(kh_mover_remote){n->ilink, mover_is_remote, mover_remote_word});
    }
    return n;
}

void kh_node_free(kh_node *n)
{
    if (!n) return;
    kh_pages_free(&n->dram);
    kh_pages_free(&n->stage);
    free(n);
}

kh_comp *kh_node_port(kh_node *n, unsigned i) { return i < n->cfg.nports ? kh_port_comp(n->port[i]) : NULL; }

void kh_node_set_port_out(kh_node *n, unsigned i, kh_link *out)
{
    if (i < n->cfg.nports) kh_port_set_out(n->port[i], out);
}

unsigned kh_node_port_for_row(const kh_node *n, unsigned y)
{
    for (unsigned i = 0; i < n->cfg.nports; i++)
        if (n->cfg.port[i].y == y) return i;
    return 0; /* no port on that row: port 0 (memory.md §2) */
}

void kh_node_set_agent(kh_node *n, const kh_node_agent *a)
{
    if (a) {
        n->agent = *a;
        n->have_agent = 1;
        n->agent_at = 0; /* ask it from the start */
    } else {
        memset(&n->agent, 0, sizeof n->agent);
        n->have_agent = 0;
    }
}

void kh_node_set_cpu(kh_node *n, const kh_node_cpu *c)
{
    if (c) {
        n->cpu = *c;
        n->have_cpu = 1;
        n->cpu_at = 0;
    } else {
        memset(&n->cpu, 0, sizeof n->cpu);
        n->have_cpu = 0;
    }
}

/* The processor's flit is there from the call on (its hub register is set
 * before it calls), so the ports may ask from the current cycle. */
void kh_node_cpu_ready(kh_node *n, kh_cycle at)
{
    kh_cycle now = kh_sim_now(n->sim);
    if (now < n->cpu_at) n->cpu_at = now;
    kh_node_wake_ports(n, at);
}

/* The agent's flit is there from cycle at (its TX FIFO's head ready). */
void kh_node_agent_ready(kh_node *n, kh_cycle at)
{
    if (at < n->agent_at) n->agent_at = at;
    kh_node_wake_ports(n, at);
}

void kh_node_wake_ports(kh_node *n, kh_cycle at)
{
    for (unsigned i = 0; i < n->cfg.nports; i++) kh_comp_wake(kh_port_comp(n->port[i]), at);
}

uint64_t kh_node_aux_stat(kh_node *n, kh_cycle now)
{
    unsigned busy, fault, ar = 0, wr = 0;
    uint32_t done;
    kh_mover_status(n->mover, now, &busy, &fault, &done);
    for (unsigned i = 0; i < n->cfg.nports; i++) {
        ar += kh_port_rd_count(n->port[i]);
        wr += kh_port_wr_count(n->port[i]);
    }
    /* the fields keep the low 24 / 16 / 16 bits of the counters (control.md §2.8) */
    return km_aux_stat(done, ar, wr, fault, busy);
}

int kh_node_mover_write(kh_node *n, unsigned reg, uint64_t value, kh_cycle now)
{
    return kh_mover_write(n->mover, reg, value, now);
}

int kh_node_aux_write(kh_node *n, unsigned reg, uint64_t value, kh_cycle now)
{
    reg &= 0xF8;
    if (reg < 0x80) return kh_mover_write(n->mover, reg, value, now); /* the mover ignores 0x80+ (§2.8) */
    if (!n->ilink) {
        kh_sim_log(n->sim, KH_LOG_WARN,
                   "AUX_CFG write to interlink register 0x%02x of mesh %u dropped: no interlink built "
                   "(control.md §2.8, §7: ILINK = 0)", reg, n->cfg.mesh_id);
        return -1;
    }
    return kh_ilink_write(n->ilink, reg, value, now);
}

uint64_t kh_node_aux_statw(kh_node *n, unsigned k, kh_cycle now)
{
    return n->ilink ? kh_ilink_read(n->ilink, k, now) : 0; /* no client: reads 0 */
}

void kh_node_get_counts(const kh_node *n, kh_node_counts *out) { *out = n->counts; }

uint64_t kh_node_touched_bytes(const kh_node *n)
{
    return ((uint64_t)n->dram.used + n->stage.used) * KH_PAGE_BYTES;
}
