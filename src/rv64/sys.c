/* The node's RV64 complex, cycle by cycle (sys.h; docs/rv64.md §6-§10).
 * The core asks its bus for the cycle's stalls (sys_comb), reads finished
 * accesses (sys_read), then the wrapper's registers move (sys_edge): the
 * Sv39 MMU and fetch page register (mmu.c), the one-handshake memory access
 * (a first cycle decided from the request alone, then the region the
 * registered address selects), the scratchpad and the control region, the
 * write-back L1 (l1.c), the node port and the I-cache (nport.c), the
 * dispatch mailbox and the host window. Every choice follows upstream's
 * rv64_syscore; data moves functionally where the RTL moves it. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/gen/rv64.h"
#include "rv64/sys_int.h"

#define PA_MASK ((UINT64_C(1) << 40) - 1)

static int in_node(uint64_t pa) { return (pa & PA_MASK) >> 28 != 0; }
/* DRAM, not the special half (bit 39) nor the uncached alias (bit 38) */
static int cacheable(uint64_t pa) { return in_node(pa) && !((pa >> 39) & 1) && !((pa >> 38) & 1); }

rv6_sys *kh_rv6_sys_new(const rv6_sys_env *env, unsigned fetch_lat, unsigned my_x, unsigned my_y)
{
    rv6_sys *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->env = *env;
    s->fetch_lat = fetch_lat == 1 ? 1 : 2;
    s->my_x = my_x;
    s->my_y = my_y;
    kh_rv64_bus bus = {.ctx = s, .comb = kh_rv6_sys_comb, .fetch = kh_rv6_sys_fetch, .read = kh_rv6_sys_read,
                       .edge = kh_rv6_sys_edge};
    kh_rv64_config cfg = {.fetch_lat = s->fetch_lat, .reset_pc = 0};
    s->core = kh_rv64_new(&cfg, &bus);
    if (!s->core) {
        free(s);
        return NULL;
    }
    kh_rv6_np_reset(&s->np);
    return s;
}

void kh_rv6_sys_free(rv6_sys *s)
{
    if (!s) return;
    kh_rv64_free(s->core);
    free(s);
}

kh_rv64 *kh_rv6_sys_core(rv6_sys *s) { return s->core; }

/* Everything held in reset while the core is (core_rstn low). */
static void reset_core_side(rv6_sys *s)
{
    kh_rv64_reset(s->core, 0);
    kh_rv6_mmu_reset(&s->mmu);
    kh_rv6_ifetch_reset(&s->ifp);
    kh_rv6_l1_reset(&s->l1);
    kh_rv6_ic_reset(&s->ic);
    s->mem_started = 0;
    s->tx_valid = 0;
    s->txn = 0;
    s->cq_n = s->cq_head = 0;
    s->rq_n = s->rq_head = 0;
}

/* ---- the cycle's answers to the core ---- */

void kh_rv6_sys_comb(void *ctx, const kh_rv64_early *e, kh_rv64_in *in)
{
    rv6_sys *s = ctx;
    rv6_comb *c = &s->c;
    memset(in, 0, sizeof *in);
    c->e = *e;
    /* the slave behind the node port answers the master's registered outputs */
    kh_rv6_np_axi(&s->np, &s->env, &c->axi);
    /* fetch */
    c->fetch_pa = kh_rv6_ifetch_pa(&s->ifp, e->pc, &c->fetch_bad);
    int fetch_settle = e->settle || s->ifp.settle_q;
    int if_need = s->ifp.translating && !(s->ifp.ok && s->ifp.vpn == (uint32_t)((e->pc >> 12) & 0x7FFFFFF));
    int fetch_ready = !if_need && !s->ifp.settle && !s->ifp.sfence_q && !fetch_settle;
    c->fetch_cached = cacheable(c->fetch_pa);
    c->ic_en = c->fetch_cached && fetch_ready;
    /* the fetch registers load from the arrays as they stand before the edge
     * (a FENCE.I or a fill at this edge is seen by the next read only) */
    c->fetch_word = c->fetch_cached ? kh_rv6_ic_word(&s->ic, c->fetch_pa)
                                    : s->imem[(c->fetch_pa >> 2) & (R6_IMEM_WORDS - 1)];
    int ic_stall = kh_rv6_ic_stall(&s->ic, c->fetch_pa, c->ic_en);
    in->imem_stall = kh_rv6_ifetch_stall(&s->ifp, e->pc, e->settle) || ic_stall;
    /* the MMU: the data port wins it */
    c->mi = (rv6_mmu_in){
        .satp = e->satp, .priv = e->priv, .sum = e->sum, .mxr = e->mxr,
        .req = e->dmem_req || kh_rv6_ifetch_mmu_req(&s->ifp), .is_store = e->dmem_req && e->dmem_st,
        .is_fetch = !e->dmem_req, .w_ack = s->np.w_ack, .w_data = s->np.w_data,
    };
    kh_rv6_mmu_comb(&s->mmu, &c->mi, &c->mo);
    c->xlate = (e->satp >> 60) == 8 && e->priv != 3;
    /* one handshake for every access */
    c->mem_first = e->dmem_req && !s->mem_started && !c->mo.busy;
    c->l1_req = s->sel_cache && s->mem_started;
    c->l1_stall = kh_rv6_l1_stall(&s->l1, c->l1_req);
    c->l1_done = c->l1_req && !c->l1_stall;
    c->unc_act = s->sel_unc && s->mem_started;
    c->unc_done = c->unc_act && s->np.u_ack;
    c->mem_done = s->mem_started && ((s->sel_spad || s->sel_ctrl) ? 1
                                     : s->sel_cache                ? c->l1_done
                                     : s->sel_unc                  ? c->unc_done
                                                                   : 1);
    in->dmem_stall = c->mo.busy || c->mem_first || (s->mem_started && !c->mem_done);
    in->dmem_fault = c->mo.fault && !c->mo.fault_fetch;
    in->fault_cause = c->mo.cause;
    int summary = s->env.irq_summary ? s->env.irq_summary(s->env.ctx) : 0;
    in->irq_ext = summary || s->cq_n || s->rq_n;
    in->irq_soft = s->dbell;
    in->ext_halt = s->exited;
}

uint32_t kh_rv6_sys_fetch(void *ctx, uint64_t pc, int *fault)
{
    rv6_sys *s = ctx;
    const rv6_comb *c = &s->c;
    (void)pc;
    *fault = c->fetch_bad;
    return c->fetch_word;
}

/* the data port's physical address this cycle */
static uint64_t pa_now(const rv6_sys *s, uint64_t va) { return s->c.xlate ? s->c.mo.pa : (va & PA_MASK); }

uint64_t kh_rv6_sys_read(void *ctx, uint64_t addr)
{
    rv6_sys *s = ctx;
    if (s->sel_cache) return kh_rv6_l1_word(&s->l1, s->m_pa_q);
    if (s->sel_unc) return s->np.u_rdata;
    uint64_t pa = pa_now(s, addr);
    if (s->sel_ctrl) return kh_rv6_sys_ctrl_read(s, (unsigned)pa & 0x3FF);
    return s->spad[(pa >> 3) & (R6_SPAD_WORDS - 1)]; /* anything below the node reads the scratchpad */
}

static void region_select(rv6_sys *s, uint64_t pa)
{
    int node = in_node(pa);
    s->sel_spad = (pa >> 15) == 2 && !node;      /* 32 KB at 0x1_0000 */
    s->sel_ctrl = (pa >> 10) == 0x80 && !node;   /* 1 KB at 0x2_0000 */
    s->sel_cache = cacheable(pa);
    s->sel_unc = node && !s->sel_cache;
}

void kh_rv6_sys_edge(void *ctx, const kh_rv64_early *e, const kh_rv64_late *l)
{
    rv6_sys *s = ctx;
    rv6_comb *c = &s->c;

    /* the registered access: a store lands in the cycle after its first */
    const int started = s->mem_started, st = s->m_st_q;
    const uint64_t m_pa = s->m_pa_q, m_wd = s->m_wd_q;
    const uint8_t m_be = s->m_be_q;
    const int sel_spad = s->sel_spad, sel_ctrl = s->sel_ctrl;
    c->commit = started && c->mem_done && st;
    if (c->commit) {
        c->commit_pa = m_pa;
        c->commit_wd = m_wd;
        c->commit_be = m_be;
    }
    if (started && sel_spad && st) {
        uint64_t *w = &s->spad[(m_pa >> 3) & (R6_SPAD_WORDS - 1)];
        for (unsigned i = 0; i < 8; i++)
            if (m_be >> i & 1) *w = (*w & ~(UINT64_C(0xFF) << (8 * i))) | (m_wd & (UINT64_C(0xFF) << (8 * i)));
    }
    /* the L1, the node port and the I-cache see this cycle's registers */
    rv6_l1_in li = {.req = c->l1_req, .we = st, .be = m_be, .addr = m_pa, .wdata = m_wd,
                    .probe = pa_now(s, l->daddr), .flush = s->l1_flush_p, .inval = s->l1_inval_p,
                    .fill_ready = kh_rv6_np_fill_ready(&s->np, s->mmu.w_req),
                    .wb_ready = kh_rv6_np_wb_ready(&s->np, s->mmu.w_req, s->l1.fill_valid),
                    .wr_idle = kh_rv6_np_wr_idle(&s->np)};
    rv6_np_req nr = {.w_req = s->mmu.w_req, .w_addr = s->mmu.w_addr,
                     .fill_valid = s->l1.fill_valid, .fill_addr = s->l1.fill_addr,
                     .wb_valid = s->l1.wb_valid, .wb_addr = s->l1.wb_addr,
                     .u_req = c->unc_act && !c->unc_done, .u_we = st, .u_addr = m_pa, .u_be = m_be, .u_wdata = m_wd,
                     .if_req = s->ic.if_req, .if_addr = s->ic.if_addr};
    memcpy(nr.wb_data, s->l1.linebuf, sizeof nr.wb_data);
    const int if_ready = kh_rv6_np_if_ready(&s->np, &nr);
    kh_rv6_sys_ctrl_edge(s, started && sel_ctrl && st, (unsigned)m_pa & 0x3FF, m_wd);
    rv6_np_resp resp;
    kh_rv6_np_edge(&s->np, &nr, &c->axi, &resp);
    kh_rv6_l1_edge(&s->l1, &li, resp.resp_valid, resp.resp_data);
    kh_rv6_ic_edge(&s->ic, c->fetch_pa, c->ic_en, l->fetch_adv, l->fence_i, if_ready, resp.if_resp_valid,
                   resp.if_resp_data);

    /* the Sv39 side (the walker's port was read above, before it moves) */
    c->mi.va = e->dmem_req ? l->daddr : e->pc;
    c->mi.sfence = l->sfence;
    kh_rv6_mmu_edge(&s->mmu, &c->mi);
    kh_rv6_ifetch_edge(&s->ifp, e->pc, e->satp, e->priv, e->settle, e->dmem_req, l->sfence, &c->mo);

    /* the handshake's own registers */
    if (c->mem_first) {
        uint64_t pa = pa_now(s, l->daddr);
        s->m_pa_q = pa;
        s->m_be_q = l->wstrb;
        s->m_wd_q = l->wdata;
        s->m_st_q = l->wstrb != 0;
        s->mem_started = 1;
        region_select(s, pa);
    } else if (started && c->mem_done) {
        s->mem_started = 0;
    }
}

/* the cycle with the core in reset: only the host side moves */
static void idle_edge(rv6_sys *s)
{
    kh_rv64_early e = {0};
    kh_rv64_in in;
    kh_rv64_late l = {0};
    (void)in;
    s->c.e = e;
    kh_rv6_np_axi(&s->np, &s->env, &s->c.axi);
    rv6_np_req nr = {0};
    rv6_np_resp resp;
    kh_rv6_np_edge(&s->np, &nr, &s->c.axi, &resp);
    kh_rv6_sys_ctrl_edge(s, 0, 0, 0);
    (void)l;
}

void kh_rv6_sys_cycle(rv6_sys *s)
{
    int running = s->core_rstn;
    kh_rv64_status st;
    s->c.commit = 0;
    if (running) {
        kh_rv64_status_get(s->core, &st);
        s->retire_now = st.retire_pulse;
        kh_rv64_cycle(s->core);
        kh_rv64_status_get(s->core, &st);
    } else {
        s->retire_now = 0;
        idle_edge(s);
        memset(&st, 0, sizeof st);
    }
    kh_rv6_sys_host_edge(s, running, &st);
}

void kh_rv6_sys_view(const rv6_sys *s, rv6_sys_view *v)
{
    kh_rv64_status st;
    kh_rv64_status_get(s->core, &st);
    v->core_rstn = s->core_rstn;
    v->halted = s->core_rstn && st.halted;
    v->exited = s->exited;
    v->cause = s->cause_l;
    v->exit_word = s->exit_word;
    v->halt_pc = s->haltpc_l;
    v->retire = s->retire_now;
    v->commit = s->c.commit;
    v->commit_pa = s->c.commit_pa;
    v->commit_wd = s->c.commit_wd;
    v->commit_be = s->c.commit_be;
    v->cycles = s->cyc_ctr;
    v->retired = s->ret_ctr;
}

int kh_rv6_sys_l1_poke(rv6_sys *s, uint64_t pa, uint64_t v) { return kh_rv6_l1_poke(&s->l1, pa, v); }
void kh_rv6_sys_imem_put(rv6_sys *s, unsigned word, uint32_t v) { s->imem[word & (R6_IMEM_WORDS - 1)] = v; }
uint64_t kh_rv6_sys_spad_get(const rv6_sys *s, unsigned word) { return s->spad[word & (R6_SPAD_WORDS - 1)]; }

int kh_rv6_sys_active(const rv6_sys *s)
{
    return s->core_rstn || s->h_wr || s->boot_req || s->boot_ack || s->np.st != 0 || s->mv_en || s->db_en ||
           s->nm_en || s->xf_en || s->rx_pop;
}

const kh_flit *kh_rv6_sys_tx_peek(const rv6_sys *s) { return s->tx_valid ? &s->tx : NULL; }
void kh_rv6_sys_tx_take(rv6_sys *s) { s->tx_valid = 0; }

/* the host-facing registers (sysctrl.c needs the core reset) */
void kh_rv6_sys_reset_core_side(rv6_sys *s) { reset_core_side(s); }
