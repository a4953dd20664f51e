/* Test kit for the interlink: machines of several small meshes driven
 * through the host card, as a driver would (control.md §9), with register
 * words built and read by the generated accessors. Header-only. */
#ifndef KH_TEST_ILINK_KIT_H
#define KH_TEST_ILINK_KIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/card.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/mover.h"
#include "kohaku/gen/regs.h"
#include "kohaku/ilink.h"
#include "kohaku/machine.h"
#include "kohaku/node.h"
#include "support/test.h"

/* One router; the memory port at (0,1) (the orchestrator answers there),
 * a vector core on the router's local port. */
static const char kit_map[] = "xxx xxx xxx\nmag vec xxx\nxxx xxx xxx\n";

typedef struct kit {
    kh_machine *m;
    kh_card *card;
    kh_sim *sim;
    unsigned warnings;
    char lastwarn[1024];
} kit;

static inline void kit_log(void *ctx, kh_log_level lvl, const char *msg)
{
    kit *k = ctx;
    if (lvl < KH_LOG_WARN) return;
    k->warnings++;
    snprintf(k->lastwarn, sizeof k->lastwarn, "%s", msg);
}

/* n meshes of kit_map in a line, with parameters p (NULL: defaults). The
 * host link costs no time here (profile host-zero): these tests time the
 * interlink, and their probes read through the card between cycles. */
static inline int kit_init(kit *k, unsigned n, const kh_params *p)
{
    const char *maps[4] = {kit_map, kit_map, kit_map, kit_map};
    char err[512];
    kh_params q;
    if (p)
        q = *p;
    else
        kh_params_default(&q);
    kh_params_profile(&q, "host-zero", err, sizeof err);
    memset(k, 0, sizeof *k);
    k->m = kh_machine_new_meshes(maps, n, &q, err, sizeof err);
    if (!k->m) {
        printf("  kit: %s\n", err);
        return -1;
    }
    k->card = kh_machine_card(k->m);
    k->sim = kh_machine_sim(k->m);
    kh_sim_set_log(k->sim, kit_log, k, KH_LOG_WARN);
    return 0;
}

static inline void kit_free(kit *k) { kh_machine_free(k->m); }

static inline void kit_w(kit *k, unsigned mesh, uint32_t off, uint64_t v)
{
    char err[256];
    if (kh_card_write64(k->card, kh_host_ctrl(mesh, off), v, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
}

static inline uint64_t kit_r(kit *k, unsigned mesh, uint32_t off)
{
    char err[256];
    uint64_t v = 0;
    if (kh_card_read64(k->card, kh_host_ctrl(mesh, off), &v, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
    return v;
}

/* Interlink register reg (0x80, 0x88, 0x90) through AUX_CFG (control.md §7.5). */
static inline void kit_ilink_w(kit *k, unsigned mesh, unsigned reg, uint64_t v)
{
    kit_w(k, mesh, KH_ORCH_AUX_CFG + reg, v);
}
static inline uint64_t kit_statw(kit *k, unsigned mesh, unsigned idx)
{
    return kit_r(k, mesh, KH_ORCH_AUX_STATW + 8 * idx);
}

static inline void kit_ring(kit *k, unsigned from, unsigned to, unsigned tag)
{
    uint64_t v = 0;
    kh_ilink_ring_set_dst(&v, to);
    kh_ilink_ring_set_tag(&v, tag);
    kit_ilink_w(k, from, KH_ILINK_REG_RING, v);
}

static inline unsigned kit_received(kit *k, unsigned at, unsigned from)
{
    uint64_t w = kit_statw(k, at, KH_ILINK_STAT_DBELL + from);
    return (unsigned)kh_ilink_dbell_received(&w);
}

/* A 32-byte word at a mesh's 40-bit inside address (memory window). */
static inline void kit_put(kit *k, unsigned mesh, uint64_t inside, const uint64_t w[4])
{
    char err[256];
    uint64_t a = ((uint64_t)(mesh + 1) << KH_HOST_MEM_SHIFT) + inside;
    if (kh_card_write_block(k->card, a, w, 32, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
}
static inline void kit_get(kit *k, unsigned mesh, uint64_t inside, uint64_t w[4])
{
    char err[256];
    uint64_t a = ((uint64_t)(mesh + 1) << KH_HOST_MEM_SHIFT) + inside;
    if (kh_card_read_block(k->card, a, w, 32, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
}

static inline void kit_pattern(uint64_t seed, uint64_t w[4])
{
    for (int i = 0; i < 4; i++) w[i] = seed * 0x9E3779B97F4A7C15ull + (uint64_t)i * 0x1234567ull + 1;
}

/* ---- the mover through AUX_CFG (memory.md §11.1) ---- */

static inline void kit_mv(kit *k, unsigned mesh, unsigned reg, uint64_t v) { kit_w(k, mesh, KH_ORCH_AUX_CFG + reg, v); }

/* A COPY of n consecutive words from src to dst (one dimension each). */
static inline void kit_copy(kit *k, unsigned mesh, uint64_t src, uint64_t dst, unsigned n)
{
    for (unsigned sel = 0; sel < 2; sel++) {
        uint64_t h = 0, d = 0, a = 0;
        kh_mover_hdr_set_sel(&h, sel);
        kh_mover_hdr_set_base(&h, sel ? dst : src);
        kh_mover_hdr_set_ndim(&h, 1);
        kit_mv(k, mesh, 0x10, h);
        kh_mover_dim_set_sel(&d, sel);
        kh_mover_dim_set_dim(&d, 0);
        kh_mover_dim_set_count(&d, n);
        kh_mover_dim_set_stride(&d, 32);
        kit_mv(k, mesh, 0x18, d);
        kit_mv(k, mesh, 0x20, a);
    }
    uint64_t c = 0;
    kh_mover_ctrl_set_mode(&c, 0); /* COPY */
    kh_mover_ctrl_set_ewidth(&c, 1);
    kh_mover_ctrl_set_go(&c, 1);
    kit_mv(k, mesh, 0x00, c);
}

static inline unsigned kit_mover_busy(kit *k, unsigned mesh)
{
    uint64_t s = kit_r(k, mesh, KH_ORCH_AUX_STAT);
    return (unsigned)kh_orch_aux_stat_mover_busy(&s);
}

/* Step one cycle at a time until cond(k, arg) holds; returns the cycle it
 * was first seen (between cycles), or KH_NEVER after `limit` cycles. */
static inline kh_cycle kit_until(kit *k, int (*cond)(kit *, unsigned, unsigned), unsigned a, unsigned b,
                                 kh_cycle limit)
{
    for (kh_cycle i = 0; i < limit; i++) {
        if (cond(k, a, b)) return kh_sim_now(k->sim);
        kh_sim_run(k->sim, 1);
    }
    return KH_NEVER;
}

static inline int kit_idle_mover(kit *k, unsigned mesh, unsigned unused)
{
    (void)unused;
    return !kit_mover_busy(k, mesh);
}

/* ---- flits through the orchestrator's raw TX mailbox (control.md §2.7) ---- */

static inline kh_flit kit_hdr(unsigned type, unsigned dx, unsigned dy, unsigned sx, unsigned sy, unsigned txn,
                              unsigned last, unsigned rsvd)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, dx);
    kh_hdr_set_dst_y(f.w, dy);
    kh_hdr_set_src_x(f.w, sx);
    kh_hdr_set_src_y(f.w, sy);
    kh_hdr_set_type(f.w, type);
    kh_hdr_set_txn(f.w, txn);
    kh_hdr_set_last(f.w, last);
    kh_hdr_set_rsvd(f.w, rsvd);
    return f;
}

/* One flit through TX_FLIT and TX_KICK, waiting for TX room first (a kick
 * into a full TX FIFO is ignored, control.md §2.7). */
static inline void kit_tx(kit *k, unsigned mesh, const kh_flit *f)
{
    for (unsigned i = 0; i < 100000; i++) {
        uint64_t s = kit_r(k, mesh, KH_ORCH_TX_STATUS);
        if (!kh_orch_tx_status_full(&s)) break;
        kh_sim_run(k->sim, 1);
    }
    for (unsigned i = 0; i < 5; i++) kit_w(k, mesh, KH_ORCH_TX_FLIT + 8 * i, f->w[i]);
    kit_w(k, mesh, KH_ORCH_TX_KICK, 1);
}

static inline int kit_rx_has(kit *k, unsigned mesh, unsigned unused)
{
    (void)unused;
    uint64_t s = kit_r(k, mesh, KH_ORCH_RX_STATUS);
    return !kh_orch_rx_status_empty(&s);
}

static inline kh_flit kit_rx_pop(kit *k, unsigned mesh)
{
    kh_flit f;
    for (unsigned i = 0; i < 5; i++) f.w[i] = kit_r(k, mesh, KH_ORCH_RX_FLIT + 8 * i);
    kit_w(k, mesh, KH_ORCH_RX_POP, 1);
    return f;
}

/* A remote CU_DATA burst (flits.md §7): descriptor + n data flits, every
 * flit addressed to the local port (0,1), txn = {fin_y, fin_x}, rsvd =
 * {1, mesh}, sent from (sx, sy). */
static inline unsigned kit_remote_burst(kh_flit *out, unsigned to_mesh, unsigned fin, unsigned sx, unsigned sy,
                                        unsigned n, unsigned ack_x, unsigned ack_y)
{
    unsigned rsvd = 4 | to_mesh;
    out[0] = kit_hdr(KH_T_CU_DATA, 0, 1, sx, sy, fin, 0, rsvd);
    kh_cu_data_set_buf_id(out[0].w, 0);
    kh_cu_data_set_len(out[0].w, n - 1);
    kh_cu_data_set_ack_x(out[0].w, ack_x);
    kh_cu_data_set_ack_y(out[0].w, ack_y);
    for (unsigned i = 0; i < n; i++) {
        out[1 + i] = kit_hdr(KH_T_CU_DATA, 0, 1, sx, sy, fin, i + 1 == n, rsvd);
        uint64_t d[4];
        kit_pattern(100 + i, d);
        kh_cu_data_data_set_data(out[1 + i].w, d);
    }
    return n + 1;
}

static inline unsigned kit_fault(kit *k, unsigned mesh)
{
    uint64_t w = kit_statw(k, mesh, KH_ILINK_STAT_FAULT);
    return (unsigned)(kh_ilink_fault_rd_remote(&w) * KH_ILINK_F_RD_REMOTE + kh_ilink_fault_ack0(&w) * KH_ILINK_F_ACK0 +
                      kh_ilink_fault_switch(&w) * KH_ILINK_F_SWITCH + kh_ilink_fault_axi(&w) * KH_ILINK_F_AXI +
                      kh_ilink_fault_inj(&w) * KH_ILINK_F_INJ);
}

#endif
