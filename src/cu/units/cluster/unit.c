/* mx_cluster_cu: the sequencer (cluster.md §10.1), completion and faults
 * (§8), the send path shared by the read request, DATA_RECEIVED signals and
 * the write port, and the unit's plug-in row. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu/units/cluster/cluster_int.h"
#include "cu/units/units.h"

#include <kohaku/gen/cluster.h>
#include <kohaku/gen/flit.h>

#include "kohaku/bufcat.h"

void kh_cl_kick(kh_cluster *u, kh_cycle at)
{
    kh_cu_wake(u->cu, at);
}

static void vlog(kh_cluster *u, kh_log_level lvl, const char *fmt, va_list ap)
{
    char msg[400];
    if (!u->cu) return;
    vsnprintf(msg, sizeof msg, fmt, ap);
    kh_cu_log(u->cu, lvl, "%s", msg);
}

void kh_cl_warn(kh_cluster *u, const char *fmt, ...)
{
    va_list ap;
    u->n_warnings++;
    va_start(ap, fmt);
    vlog(u, KH_LOG_WARN, fmt, ap);
    va_end(ap);
}

void kh_cl_log_lint(kh_cluster *u, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(u, KH_LOG_INFO, fmt, ap);
    va_end(ap);
}

/* A single flit for the send path (read request, DATA_RECEIVED). */
void kh_cl_queue_flit(kh_cluster *u, const kh_flit *f, kh_cycle now)
{
    if (u->outq_n == KH_CL_OUTQ) {
        kh_cl_warn(u, "send queue full (%u flits): a flit of type %u is dropped", KH_CL_OUTQ,
                   (unsigned)kh_hdr_type(f->w));
        return;
    }
    u->outq[(u->outq_head + u->outq_n++) % KH_CL_OUTQ] = *f;
    kh_cl_kick(u, now + 1);
}

/* §8: every instruction retires exactly once; exec_result = {16'b0, retired}
 * counting FILL + GEMM + DRAIN (an unknown opcode leaves it unchanged);
 * exec_fault = the latch, cleared when reported. */
static void retire(kh_cluster *u, kh_cycle now)
{
    unsigned op = u->in.op;
    if (op == KH_CL_OP_FILL || op == KH_CL_OP_GEMM || op == KH_CL_OP_DRAIN)
        u->retired = (u->retired + 1) & 0xFFFFu;
    int fault = u->fault_latch;
    u->fault_latch = 0;
    u->state = KH_CL_IDLE;
    kh_cu_done(u->cu, fault, u->retired, now);
}

static void finish_at(kh_cluster *u, kh_cycle at, kh_cycle *next)
{
    u->state = KH_CL_DONE;
    u->done_at = at;
    if (at < *next) *next = at;
}

static int same_dest(const kh_cl_dest *a, const kh_cl_dest *b)
{
    return a->base == b->base && a->dnode == b->dnode && a->dst_x == b->dst_x && a->dst_y == b->dst_y &&
           a->dbuf == b->dbuf && a->dflags == b->dflags && a->dack_y == b->dack_y &&
           a->dack_x == b->dack_x && a->dmesh == b->dmesh && a->dfin == b->dfin;
}

static int unit_inst(void *p, const kh_flit *f, kh_cycle now)
{
    kh_cluster *u = p;
    if (u->state != KH_CL_IDLE) return 0;
    kh_cl_decode(f, &u->in);
    const kh_cl_inst *in = &u->in;
    u->accepted = now;
    u->fill_started = 0;
    switch (in->op) {
    case KH_CL_OP_FILL:
        u->state = KH_CL_FILL;
        break;
    case KH_CL_OP_GEMM:
        if (in->emit) {
            if (u->fused_pending)
                kh_cl_warn(u, "emitting GEMM before the fused DRAIN of the previous one: W and G are "
                              "overwritten while granules may be unwritten (cluster.md §6.3)");
            kh_cl_dest_from_inst(u, in); /* W from the GEMM while it is decoded (§6.3) */
        }
        u->state = KH_CL_GEMM;
        break;
    case KH_CL_OP_DRAIN:
        if (in->fuse) {
            if (!u->fused_pending)
                kh_cl_warn(u, "fused DRAIN without an emitting GEMM before it: it waits for n=%u granules "
                              "of the current batch (cluster.md §6.3)", kh_cl_or1(in->n));
            else if (!same_dest(&u->fused_w, &in->d))
                kh_cl_warn(u, "fused DRAIN's destination differs from its emitting GEMM's: bursts not yet "
                              "sent go to the DRAIN's (cluster.md §6.3)");
            if (u->fused_pending && kh_cl_or1(in->n) < u->fused_total)
                kh_cl_warn(u, "fused DRAIN n=%u < %u emitted granules: it retires while the rest is "
                              "still being written (cluster.md §6.3)", kh_cl_or1(in->n), u->fused_total);
            u->fused_pending = 0;
        } else if (u->fused_pending && kh_cl_batch_outstanding(u)) {
            kh_cl_warn(u, "explicit DRAIN while an emitting GEMM's sub-tiles are still being written: W is "
                          "overwritten, their unsent bursts go to this DRAIN's destination (cluster.md §6.3)");
        }
        kh_cl_dest_from_inst(u, in); /* W from the DRAIN while it is decoded (§6.3) */
        u->state = KH_CL_DRAIN;
        break;
    default: /* any other opcode retires at once as a no-op (§2, §8) */
        u->n_other++;
        u->state = KH_CL_DONE;
        u->done_at = now + 1;
        break;
    }
    kh_cl_kick(u, now + 1);
    return 1;
}

static int unit_recv(void *p, const kh_flit *f, kh_cycle now)
{
    kh_cluster *u = p;
    switch ((unsigned)kh_hdr_type(f->w)) {
    case KH_T_MEM_RD_RESP:
        /* §4.3: accepted only while a FILL executes; held otherwise (it
         * blocks whatever queues behind it) */
        if (u->state != KH_CL_FILL || now <= u->accepted) return 0;
        if (kh_cl_fill_resp(u, f, now)) {
            u->n_fill++;
            u->state = KH_CL_DONE;
            u->done_at = now + KH_CL_FILL_TAIL;
            kh_cl_kick(u, u->done_at);
        }
        return 1;
    case KH_T_CU_DATA:
        return kh_cl_rx_cu_data(u, f, now);
    default: /* MEM_WR_ACK is dropped at the port (S); anything else discarded (§7) */
        return 1;
    }
}

static void seq_step(kh_cluster *u, kh_cycle now, kh_cycle *next)
{
    kh_cycle t;
    switch (u->state) {
    case KH_CL_IDLE:
        break;
    case KH_CL_FILL:
        if (!u->fill_started && now >= u->accepted + KH_CL_REQ_DELAY) {
            u->fill_started = 1;
            kh_cl_fill_start(u, now); /* the leader's request leaves now */
        } else if (!u->fill_started && u->accepted + KH_CL_REQ_DELAY < *next) {
            *next = u->accepted + KH_CL_REQ_DELAY;
        }
        break; /* responses (unit_recv) end the state */
    case KH_CL_GEMM:
        if (kh_cl_sweep_can_start(u, now, &t)) {
            kh_cl_sweep_start(u, now); /* GEMM retires on issue: GWAIT, then DONE */
            finish_at(u, now + KH_CL_GWAIT + 1, next);
        } else if (t < *next) {
            *next = t;
        }
        break;
    case KH_CL_DRAIN:
        if (kh_cl_drain_can_start(u, now, &t)) {
            if (!u->in.fuse) kh_cl_drain_start(u, now);
            u->state = KH_CL_DWAIT;
            if (now + 1 < *next) *next = now + 1;
        } else if (t < *next) {
            *next = t;
        }
        break;
    case KH_CL_DWAIT:
        if (kh_cl_drain_finished(u, kh_cl_or1(u->in.n))) {
            kh_cycle at = u->port.last_sent + KH_CL_DRAIN_TAIL;
            if (u->port.last_sent == KH_NEVER || at <= now) at = now + 1;
            finish_at(u, at, next);
        }
        break; /* the write port kicks us when a burst ends */
    case KH_CL_DONE:
        if (now >= u->done_at) retire(u, now);
        else if (u->done_at < *next) *next = u->done_at;
        break;
    }
}

/* The unit's one send path: a burst in progress is never interrupted;
 * between bursts single flits go first (§6.4, flits.md §6). */
static void send_step(kh_cluster *u, kh_cycle now, kh_cycle *next)
{
    if (u->outq_n && !u->port.busy && u->last_send != now) {
        if (kh_cu_send(u->cu, &u->outq[u->outq_head], now)) {
            u->outq_head = (u->outq_head + 1) % KH_CL_OUTQ;
            u->outq_n--;
            u->last_send = now;
            if (u->outq_n && now + 1 < *next) *next = now + 1;
        }
    }
    kh_cycle pn;
    kh_cl_port_step(u, now, &pn);
    if (pn < *next) *next = pn;
}

static void unit_step(void *p, kh_cycle now)
{
    kh_cluster *u = p;
    kh_cycle next = KH_NEVER;
    seq_step(u, now, &next);
    send_step(u, now, &next);
    if (u->state == KH_CL_DONE && u->done_at > now && u->done_at < next) next = u->done_at;
    if (next != KH_NEVER) kh_cu_wake(u->cu, next);
}

/* CU_DBG (control.md §5.6, unit-defined): [15:0] retired, [18:16] sequencer
 * state, [19] fault latch, [20] CU_DATA burst open, [63:32] sweep commands. */
static uint64_t unit_dbg(void *p)
{
    const kh_cluster *u = p;
    uint64_t v = 0;
    kh_bits_set(&v, 0, 16, u->retired);
    kh_bits_set(&v, 16, 3, (uint64_t)u->state);
    kh_bits_set(&v, 19, 1, (uint64_t)u->fault_latch);
    kh_bits_set(&v, 20, 1, (uint64_t)u->rx.open);
    kh_bits_set(&v, 32, 32, u->n_cmds);
    return v;
}

static const char *op_name(unsigned op)
{
    return op == KH_CL_OP_FILL ? "FILL" : op == KH_CL_OP_GEMM ? "GEMM" : op == KH_CL_OP_DRAIN ? "DRAIN" : "op";
}

static int unit_stuck(void *p, char *buf, size_t len)
{
    const kh_cluster *u = p;
    const kh_cl_inst *in = &u->in;
    size_t k = 0;
    int busy = 0;
    if (len) buf[0] = '\0';
#define SAY(...) (kh_bufcat(buf, len, &k, __VA_ARGS__), busy = 1)
    switch (u->state) {
    case KH_CL_IDLE:
        break;
    case KH_CL_FILL:
        if (u->fill_need > KH_CL_FILL_MAX)
            SAY("FILL n=%u hangs: the read request asked for n[7:0]=%u entries but the unit waits for "
                "%u (cluster.md §4.1); %u committed",
                u->fill_need, u->fill_need & 255u, u->fill_need, u->fill_got);
        else if (!u->fill_leader)
            SAY("FILL (follower, npeer=%u): %u of %u entries committed; waits for the leader's responses "
                "(leader rule cluster.md §4.2: the member with the lowest {y,x} sends the request)",
                in->npeer, u->fill_got, u->fill_need);
        else
            SAY("FILL sel=%u addr=0x%010llx: %u of %u entries committed; waits for MEM_RD_RESP "
                "(cluster.md §4.3)",
                in->sel, (unsigned long long)in->d.base, u->fill_got, u->fill_need);
        break;
    case KH_CL_GEMM:
        SAY("GEMM waits to start: %s (cluster.md §5.3)",
            u->rx.open ? "a CU_DATA buffer-2 stream is open" : "the previous emission batch is still unwritten");
        break;
    case KH_CL_DRAIN:
        SAY("DRAIN waits to start: %s (cluster.md §6.1, §7)",
            u->rx.open ? "a CU_DATA buffer-2 stream is open" : "the previous emission batch is still unwritten");
        break;
    case KH_CL_DWAIT:
        if (in->fuse)
            SAY("fused DRAIN n=%u waits for %u granules; the emission batch produced %u and %u were taken "
                "(cluster.md §6.3: n greater than the emitted sub-tiles waits forever)",
                kh_cl_or1(in->n), kh_cl_or1(in->n), u->batch.active ? u->batch.total : 0, u->batch.taken);
        else
            SAY("DRAIN: %u of %u granules taken by the write port%s (cluster.md §6)", u->batch.taken,
                u->batch.total, u->port.busy ? ", a burst is being sent" : "");
        break;
    case KH_CL_DONE:
        SAY("%s retiring at cycle %llu", op_name(in->op), (unsigned long long)u->done_at);
        break;
    }
    if (u->rx.open)
        SAY("%sCU_DATA burst from (%u,%u) into buffer %u: %u of %u data flits received (cluster.md §7)",
            busy ? "; " : "", u->rx.src_x, u->rx.src_y, u->rx.buf, u->rx.d, u->rx.len + 1);
    if (u->outq_n || u->port.busy) SAY("%sflits waiting for the send path", busy ? "; " : "");
#undef SAY
    return busy;
}

static void unit_stats(void *p, char *buf, size_t len)
{
    const kh_cluster *u = p;
    snprintf(buf, len,
             "\"fill\":%llu,\"gemm\":%llu,\"drain\":%llu,\"other\":%llu,\"commands\":%llu,\"macs\":%llu,"
             "\"granules_written\":%llu,\"bursts\":%llu,\"rx_bursts\":%llu,\"rx_rejected\":%llu,"
             "\"warnings\":%llu,\"drained_values\":%llu,\"saturated\":%llu,\"nonfinite\":%llu,"
             "\"fp16_entries\":%llu,\"older_form_drains\":%llu",
             (unsigned long long)u->n_fill, (unsigned long long)u->n_gemm, (unsigned long long)u->n_drain,
             (unsigned long long)u->n_other, (unsigned long long)u->n_cmds, (unsigned long long)u->n_macs,
             (unsigned long long)u->n_granules, (unsigned long long)u->n_bursts,
             (unsigned long long)u->n_rx_bursts, (unsigned long long)u->n_rx_rejected,
             (unsigned long long)u->n_warnings, (unsigned long long)u->n_drained,
             (unsigned long long)u->n_saturated, (unsigned long long)u->n_nonfinite,
             (unsigned long long)u->n_fp16_entries, (unsigned long long)u->n_older_drains);
}

void kh_cluster_free(kh_cluster *u)
{
    if (!u) return;
    free(u->l1a);
    free(u->l1b);
    free(u->tile);
    free(u->loaded);
    free(u->sw.reads_a);
    free(u->sw.reads_b);
    free(u->fp16_a);
    free(u->fp16_b);
    free(u->tile_fp16);
    free(u->batch.val);
    free(u->batch.avail);
    free(u);
}

static void unit_destroy(void *p)
{
    kh_cluster_free(p);
}

static const kh_param_info rows[] = {
#define KH_PARAM KH_PARAM_INFO
#include "kohaku/params_cluster.def"
#undef KH_PARAM
};

/* Build parameters (§1): the rows' ranges (an L1 index has 9 bits,
 * {bank, off8}, so GA, GB <= 512; tile offsets are 16-bit; ACC_MW within
 * what numerics §6 and the FP16 drain handle), and TILES, GA, GB powers of
 * two (indices are truncated to log2 of them). */
static int check_params(const kh_params *p, char *err, size_t errlen)
{
    const char *why = "the cluster indexes it with log2 bits (cluster.md §1)";
    for (unsigned i = 0; i < 3; i++) /* cluster_tiles, cluster_ga, cluster_gb */
        if (kh_param_pow2(p, &rows[i], why, err, errlen)) return -1;
    return 0;
}

static int kh_cluster_check_params(const kh_params *p, char *err, size_t errlen)
{
    if (kh_param_rows_check(p, rows, sizeof rows / sizeof rows[0], err, errlen)) return -1;
    return check_params(p, err, errlen);
}

/* parameters.md §2.3: the cluster recording's unit bench. */
static void apply_profile(kh_params *p)
{
    kh_params_stand_in_fifos(p);
    p->inst_depth = 32;
    p->recv_depth = 64;
    p->cluster_tiles = 256;
    p->cluster_ga = 512;
    p->cluster_gb = 512;
    p->cluster_acc_mw = 14;
}

kh_cluster *kh_cluster_alloc(const kh_params *p, char *err, size_t errlen)
{
    if (kh_cluster_check_params(p, err, errlen)) return NULL;
    kh_cluster *u = calloc(1, sizeof *u);
    if (!u) goto nomem;
    u->tiles = (unsigned)p->cluster_tiles;
    u->ga = (unsigned)p->cluster_ga;
    u->gb = (unsigned)p->cluster_gb;
    u->mw = (unsigned)p->cluster_acc_mw;
    u->read_quant = p->read_quant != 0;
    kh_mx_kernels_get(kh_mx_path_best(), &u->mx);
    u->l1_lat = (unsigned)p->cluster_l1_lat;
    u->chain_lat = (unsigned)p->cluster_chain_lat;
    u->acc_lat = (unsigned)p->cluster_acc_lat;
    u->l1a = calloc(u->ga, sizeof *u->l1a);
    u->l1b = calloc(u->gb, sizeof *u->l1b);
    u->tile = calloc(u->tiles, sizeof *u->tile);
    u->loaded = calloc(u->tiles, 1);
    u->sw.reads_a = calloc(u->ga, 1);
    u->sw.reads_b = calloc(u->gb, 1);
    u->fp16_a = calloc(u->ga, 1);
    u->fp16_b = calloc(u->gb, 1);
    u->tile_fp16 = calloc(u->tiles, 1);
    if (!u->l1a || !u->l1b || !u->tile || !u->loaded || !u->sw.reads_a || !u->sw.reads_b || !u->fp16_a || !u->fp16_b ||
        !u->tile_fp16)
        goto nomem;
    u->last_send = KH_NEVER;
    u->port.last_sent = KH_NEVER;
    return u;
nomem:
    kh_cluster_free(u);
    snprintf(err, errlen, "mx_cluster_cu: out of memory");
    return NULL;
}

kh_mx_entry *kh_cluster_l1(kh_cluster *u, unsigned side, unsigned *entries)
{
    if (entries) *entries = side ? u->gb : u->ga;
    return side ? u->l1b : u->l1a;
}

void kh_cluster_sweep(kh_cluster *u, unsigned gm, unsigned gn, unsigned nk, unsigned acc)
{
    kh_cl_inst in = {.op = KH_CL_OP_GEMM, .gm = gm, .gn = gn, .nk = nk, .acc = acc, .anchor = KH_CL_ANCHOR};
    kh_cl_sweep_compute(u, &in, NULL);
}

static void *unit_create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    kh_cluster *u = kh_cluster_alloc(p, err, errlen);
    if (!u) return NULL;
    u->cu = shell;
    u->at = *kh_cu_where(shell);
    return u;
}

static const char *unit_inst_name(const kh_flit *f)
{
    switch (kh_cluster_op(f->w)) {
    case KH_CLUSTER_OP_FILL: return "FILL";
    case KH_CLUSTER_OP_GEMM: return "GEMM";
    case KH_CLUSTER_OP_DRAIN: return "DRAIN";
    default: return "no-op";
    }
}

const kh_unit_kind kh_unit_cluster = {
    .token = "mat",
    .name = "mx_cluster_cu",
    .cu_type = 0x4D47, /* "MG" (cluster.md §1) */
    .cu_version = 4,   /* S (cluster.md §1) */
    .n_buffers = 2,    /* CU_CAPS n_buffers as upstream publishes it (cluster.md §1) */
    .create = unit_create,
    .destroy = unit_destroy,
    .inst = unit_inst,
    .recv = unit_recv,
    .step = unit_step,
    .dbg = unit_dbg,
    .describe_stuck = unit_stuck,
    .stats_json = unit_stats,
    .inst_name = unit_inst_name,
    .params = rows,
    .nparams = sizeof rows / sizeof rows[0],
    .check_params = check_params,
    .profile = "rec-cluster",
    .apply_profile = apply_profile,
    .ckpt = kh_cl_ckpt,
};
