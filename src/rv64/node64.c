/* The RV64 complex as the system node's control processor (machine
 * parameter cpu_rv64; docs/rv64.md §7-§10, §14): the node complex of
 * sys.c stepped once per simulation cycle while anything in it moves, its
 * node port an AXI slave made of the converged path's processor channel,
 * its mover and interlink ports the node's configuration writes, its
 * mailbox the node's processor client at (0,0), and upstream's
 * rv64_load_win in front of the host window, reached at control offset
 * 0x8000 of the node's window. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "kohaku/gen/rv64.h"
#include "kohaku/ilink.h"
#include "kohaku/node.h"
#include "rv64/sys_int.h"
#include "sysnode/node_int.h"
#include "sysnode/port/conv.h"

#define WIN_LOADC 0x080 /* {region [0], byte offset [23:8]} */
#define WIN_LOADD 0x088 /* stream one word into the window or the scratchpad */
#define WIN_CONS 0x090  /* read {valid [8], byte}; a write pops */
#define HOSTQ 16        /* host-window writes not yet at their cycle */

typedef struct hwrite {
    kh_cycle at;
    unsigned off;
    uint64_t data;
    uint8_t strb;
} hwrite;

struct kh_rv64_node {
    kh_comp comp;
    kh_node *n;
    rv6_sys *s;
    kh_creq *rq;
    kh_cycle now;
    kh_cycle stepped;     /* last cycle the complex was clocked */
    /* the node port's slave: one read and one write at a time */
    int r_out, w_out, got_aw, got_w;
    uint64_t aw_addr, wdata[4];
    uint32_t wstrb;
    /* the load window */
    int ld_region;
    unsigned ld_off;
    uint8_t con[256];
    uint8_t con_wr, con_rd;
    FILE *tap;
    hwrite q[HOSTQ];
    unsigned qn;
    int tx_seen;
    uint64_t reads, writes, host_writes, xf_dropped;
};

static kh_rv64_node *of(kh_comp *c) { return (kh_rv64_node *)(void *)c; }

/* ---- the environment of the complex ---- */

static void env_axi(void *ctx, const rv6_axi_out *o, rv6_axi_in *in)
{
    kh_rv64_node *r = ctx;
    uint64_t tag;
    in->arready = !r->r_out;
    if (o->arvalid && !r->r_out) {
        kh_conv_read(r->rq, o->araddr, 1, 0, 1, r->now);
        r->r_out = 1;
        r->reads++;
    }
    /* the node port outlives the core's resets (upstream resets it with the
     * node), so every answer is for the transaction it has open */
    const kh_conv_beat *b = kh_conv_beat_head(r->rq, r->now);
    if (b) {
        memcpy(in->rdata, kh_conv_beat_data(b), sizeof in->rdata);
        kh_conv_beat_pop_head(r->rq, b);
        in->rvalid = 1;
        r->r_out = 0;
    }
    in->awready = in->wready = !r->w_out;
    if (o->awvalid && !r->w_out && !r->got_aw) {
        r->aw_addr = o->awaddr;
        r->got_aw = 1;
    }
    if (o->wvalid && !r->w_out && !r->got_w) {
        memcpy(r->wdata, o->wdata, sizeof r->wdata);
        r->wstrb = o->wstrb;
        r->got_w = 1;
    }
    if (r->got_aw && r->got_w && !r->w_out) {
        kh_conv_write_strb(r->rq, r->aw_addr, r->wdata, r->wstrb, 0, r->now);
        r->w_out = 1;
        r->got_aw = r->got_w = 0;
        r->writes++;
    }
    if (kh_conv_b_pop(r->rq, r->now, &tag)) {
        in->bvalid = 1;
        r->w_out = 0;
    }
}

static void env_mv_write(void *ctx, unsigned reg, uint64_t value)
{
    kh_rv64_node *r = ctx;
    kh_node_mover_write(r->n, reg & 0x78, value, r->now);
}

static void env_mv_status(void *ctx, int *busy, unsigned *fault, uint32_t *done)
{
    kh_rv64_node *r = ctx;
    unsigned b;
    kh_mover_status(r->n->mover, r->now, &b, fault, done);
    *busy = (int)b;
}

static void env_db_write(void *ctx, unsigned reg, uint64_t value)
{
    kh_rv64_node *r = ctx;
    kh_node_aux_write(r->n, reg, value, r->now);
}

/* inbound doorbell counts: mesh k's received count in lane k */
static uint64_t env_db_status(void *ctx)
{
    kh_rv64_node *r = ctx;
    uint64_t v = 0;
    for (unsigned k = 0; k < 4; k++) v |= (kh_node_aux_statw(r->n, 2 + k, r->now) & 0xFFFF) << (16 * k);
    return v;
}

static int env_irq_summary(void *ctx)
{
    kh_rv64_node *r = ctx;
    unsigned busy, fault;
    uint32_t done;
    kh_mover_status(r->n->mover, r->now, &busy, &fault, &done);
    return fault != 0;
}

static void env_console(void *ctx, uint8_t byte)
{
    kh_rv64_node *r = ctx;
    r->con[r->con_wr++] = byte; /* 256 bytes; a full FIFO wraps, as upstream's does */
    if (r->tap) {
        fputc(byte, r->tap);
        if (byte == '\n') fflush(r->tap);
    }
}

static void env_xf_write(void *ctx, unsigned id, unsigned reg, uint64_t value)
{
    kh_rv64_node *r = ctx;
    (void)id;
    (void)value;
    if (reg == 0)
        kh_node_xform_bank_clear(r->n);
    else if (!r->xf_dropped++)
        kh_comp_log(&r->comp, KH_LOG_WARN,
                    "transform configuration write (id %u register 0x%02x) dropped: kohaku's occupants have "
                    "no configuration registers (docs/rv64.md §14)", id, reg);
}

/* ---- the load window (upstream's rv64_load_win) ---- */

static void host_access(kh_rv64_node *r, const hwrite *w)
{
    r->host_writes++;
    if (w->off < 0x80) {
        kh_rv6_sys_host_write(r->s, 0x20000000u | w->off, w->data, w->strb);
    } else if (w->off == WIN_LOADC) {
        r->ld_region = (int)kh_rv64_loadc_region(&w->data);
        r->ld_off = (unsigned)kh_rv64_loadc_off(&w->data);
    } else if (w->off == WIN_LOADD) {
        uint32_t a = (r->ld_region ? 0x10000000u : 0) | r->ld_off;
        kh_rv6_sys_host_write(r->s, a, w->data, r->ld_region ? w->strb : 0x0F);
        r->ld_off = (r->ld_off + (r->ld_region ? 8u : 4u)) & 0xFFFF;
    } else if (w->off == WIN_CONS) {
        if (r->con_wr != r->con_rd) r->con_rd++;
    }
}

void kh_rv64_node_win_write(kh_rv64_node *r, unsigned off, uint64_t data, uint8_t strb, kh_cycle beat)
{
    if (r->qn == HOSTQ) {
        kh_comp_log(&r->comp, KH_LOG_ERROR, "host-window write at 0x%03x dropped: %u writes already wait", off,
                    HOSTQ);
        return;
    }
    unsigned i = r->qn++;
    while (i > 0 && r->q[i - 1].at > beat) {
        r->q[i] = r->q[i - 1];
        i--;
    }
    r->q[i] = (hwrite){.at = beat, .off = off & 0xFFF, .data = data, .strb = strb};
    kh_comp_wake(&r->comp, beat > kh_sim_now(r->comp.sim) ? beat : kh_sim_now(r->comp.sim));
}

uint64_t kh_rv64_node_win_read(kh_rv64_node *r, unsigned off, kh_cycle now)
{
    (void)now;
    off &= 0xFFF;
    if (off < 0x80) return kh_rv6_sys_host_read(r->s, off);
    if (off == WIN_CONS) {
        uint64_t v = 0;
        if (r->con_wr != r->con_rd) {
            kh_rv64_byteq_set_valid(&v, 1);
            kh_rv64_byteq_set_byte(&v, r->con[r->con_rd]);
        }
        return v;
    }
    return 0;
}

/* ---- the component ---- */

static void node_step(kh_comp *c, kh_cycle now)
{
    kh_rv64_node *r = of(c);
    if (r->stepped == now) return;
    r->stepped = now;
    r->now = now;
    if (r->qn && r->q[0].at <= now) { /* one host access a clock */
        host_access(r, &r->q[0]);
        memmove(r->q, r->q + 1, (r->qn - 1) * sizeof r->q[0]);
        r->qn--;
    }
    kh_rv6_sys_cycle(r->s);
    const kh_flit *tx = kh_rv6_sys_tx_peek(r->s);
    if (tx && !r->tx_seen) kh_node_cpu_ready(r->n, now + 1);
    r->tx_seen = tx != NULL;
    kh_cycle next = kh_rv6_sys_active(r->s) ? now + 1 : KH_NEVER;
    if (r->qn) {
        kh_cycle t = r->q[0].at > now ? r->q[0].at : now + 1;
        if (t < next) next = t;
    }
    if (next != KH_NEVER) kh_comp_wake(c, next);
}

static int node_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_rv64_node *r = of(c);
    rv6_sys_view v;
    kh_rv6_sys_view(r->s, &v);
    if (!v.core_rstn) return 0;
    kh_rv64_status st;
    kh_rv64_status_get(kh_rv6_sys_core(r->s), &st);
    snprintf(buf, len, "RV64 core running at pc 0x%llx, %llu instructions retired since boot",
             (unsigned long long)st.pc_e, (unsigned long long)v.retired);
    return 1;
}

static void node_stats(kh_comp *c, char *buf, size_t len)
{
    kh_rv64_node *r = of(c);
    rv6_sys_view v;
    kh_rv6_sys_view(r->s, &v);
    snprintf(buf, len,
             "\"rv64_cycles\": %llu, \"rv64_retired\": %llu, \"rv64_port_reads\": %llu, \"rv64_port_writes\": %llu, "
             "\"rv64_host_writes\": %llu",
             (unsigned long long)v.cycles, (unsigned long long)v.retired, (unsigned long long)r->reads,
             (unsigned long long)r->writes, (unsigned long long)r->host_writes);
}

static void node_destroy(kh_comp *c)
{
    kh_rv64_node *r = of(c);
    kh_rv6_sys_free(r->s);
    free(r);
}

/* Checkpoints (docs/checkpoint.md): the node port's slave, the load
 * window and its console FIFO, the host writes waiting for their cycle,
 * the counters, then the complex (sys_ckpt.c). */
static void node_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_rv64_node *r = of(c);
    KH_CK(ck, r->now);
    KH_CK(ck, r->stepped);
    KH_CK(ck, r->r_out);
    KH_CK(ck, r->w_out);
    KH_CK(ck, r->got_aw);
    KH_CK(ck, r->got_w);
    KH_CK(ck, r->aw_addr);
    KH_CK_ARR(ck, r->wdata, 4);
    KH_CK(ck, r->wstrb);
    KH_CK(ck, r->ld_region);
    KH_CK(ck, r->ld_off);
    KH_CK_ARR(ck, r->con, sizeof r->con);
    KH_CK(ck, r->con_wr);
    KH_CK(ck, r->con_rd);
    unsigned qn = (unsigned)kh_ck_count(ck, r->qn, HOSTQ, "host-window writes waiting");
    if (kh_ck_loading(ck)) r->qn = qn;
    for (unsigned i = 0; i < qn; i++) {
        KH_CK(ck, r->q[i].at);
        KH_CK(ck, r->q[i].off);
        KH_CK(ck, r->q[i].data);
        KH_CK(ck, r->q[i].strb);
    }
    KH_CK(ck, r->tx_seen);
    KH_CK(ck, r->reads);
    KH_CK(ck, r->writes);
    KH_CK(ck, r->host_writes);
    KH_CK(ck, r->xf_dropped);
    kh_rv6_sys_ckpt(r->s, ck);
}

static const kh_comp_ops node_ops = {
    .ckpt = node_ckpt,
    .kind = "rv64", .step = node_step, .describe_stuck = node_stuck, .stats_json = node_stats, .destroy = node_destroy};

/* ---- the hub client: the mailbox ---- */

static int hub_accept(void *ctx, const kh_flit *f, kh_cycle now)
{
    kh_rv64_node *r = ctx;
    (void)now;
    return kh_rv6_sys_rx(r->s, f);
}

static const kh_flit *hub_peek(void *ctx, kh_cycle now)
{
    kh_rv64_node *r = ctx;
    (void)now;
    return kh_rv6_sys_tx_peek(r->s);
}

static void hub_take(void *ctx, kh_cycle now)
{
    kh_rv64_node *r = ctx;
    (void)now;
    kh_rv6_sys_tx_take(r->s);
    r->tx_seen = 0;
}

kh_rv64_node *kh_rv64_node_attach(kh_node *n, char *err, size_t errlen)
{
    kh_rv64_node *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory building the RV64 complex");
        return NULL;
    }
    r->n = n;
    r->stepped = KH_NEVER;
    rv6_sys_env env = {.ctx = r, .axi = env_axi, .mv_write = env_mv_write, .mv_status = env_mv_status,
                       .db_write = env_db_write, .db_status = env_db_status, .irq_summary = env_irq_summary,
                       .console = env_console, .xf_write = env_xf_write};
    r->s = kh_rv6_sys_new(&env, 2, 0, 0);
    if (!r->s) {
        free(r);
        snprintf(err, errlen, "out of memory building the RV64 complex");
        return NULL;
    }
    char name[32];
    snprintf(name, sizeof name, "rv64(0,0)");
    kh_sim_add(n->sim, &r->comp, &node_ops, name);
    /* the processor's converged-path channel: PORTS + 2 + ILINK, as the RV32's */
    r->rq = kh_conv_requester(n->conv, n->cfg.nports + 2 + (n->cfg.interlink ? 1 : 0), &r->comp, "rv64_port");
    if (!r->rq) {
        snprintf(err, errlen, "no converged-path channel left for the RV64 complex");
        return NULL; /* the component is the simulation's now: it frees r */
    }
    kh_conv_set_lat(r->rq, 0, 0);
    kh_node_cpu h = {.ctx = r, .accept = hub_accept, .peek = hub_peek, .take = hub_take};
    kh_node_set_cpu(n, &h);
    return r;
}

void kh_rv64_node_set_console(kh_rv64_node *r, FILE *out) { r->tap = out; }
kh_rv64 *kh_rv64_node_core(kh_rv64_node *r) { return kh_rv6_sys_core(r->s); }
