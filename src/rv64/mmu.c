/* Sv39 translation as the node wrapper does it (docs/rv64.md §6): the TLB
 * array answers a cycle after the address, so even a hit holds a translated
 * access one cycle; a miss walks three levels through the walker's own
 * read port; A and D are checked, never set; a superpage fills the 4 KB
 * slice asked for. The fetch page register keeps one translation for fetch
 * and refills it through the same MMU, behind any data access. */
#include <string.h>

#include "kohaku/gen/rv64.h"
#include "rv64/mmu.h"

enum { W_IDLE, W_REQ, W_WAIT, W_DONE, W_FAULT, W_DONE2 };
enum { P_R = 1, P_W = 2, P_X = 4, P_U = 8, P_A = 16, P_D = 32 };

#define PA_MASK ((UINT64_C(1) << 40) - 1) /* the card is 40-bit physical */
#define PPN_MASK ((UINT32_C(1) << 28) - 1)

static int enabled(uint64_t satp, unsigned priv) { return kh_rv64_satp_mode(&satp) == KH_RV64_SATP_MODE_SV39 && priv != 3; }
static uint32_t vpn_of(uint64_t va) { return (uint32_t)kh_rv64_va_vpn(&va); }
static unsigned idx_of(uint32_t vpn) { return vpn & (R6_TLB - 1); }
static uint32_t tag_of(uint32_t vpn) { return vpn >> 5; }

void kh_rv6_mmu_reset(rv6_mmu *m)
{
    /* the array has no reset: the sweep clears it */
    m->wst = W_IDLE;
    m->w_req = 0;
    m->t_we = 0;
    m->fault_p = m->fault_lat = 0;
    m->sweep = 0;
    m->sweeping = 1;
    m->q_active = 0;
    m->resolved_q = 0;
}

static int hit_now(const rv6_mmu *m) { return m->t_q.v && m->t_q.tag == tag_of(m->q_vpn); }

static int perm_ok(const rv6_mmu *m, unsigned priv, int sum, int mxr)
{
    unsigned p = m->t_q.perm;
    int readable = (p & P_R) || (mxr && (p & P_X));
    int priv_ok = priv == 0 ? (p & P_U) != 0 : (!(p & P_U) || sum);
    int need = m->q_fetch ? (p & P_X) != 0 : m->q_store ? ((p & P_W) && (p & P_D)) : readable;
    return priv_ok && (p & P_A) && need;
}

void kh_rv6_mmu_comb(const rv6_mmu *m, const rv6_mmu_in *in, rv6_mmu_out *out)
{
    int en = enabled(in->satp, in->priv);
    int fault = m->fault_p || m->fault_lat;
    int mine = fault && (in->is_fetch == m->fault_fetch);
    out->busy = mine ? 0 : (en && in->req && !m->resolved_q);
    out->pa = en ? ((uint64_t)m->t_q.ppn << 12 | m->q_off) : (in->va & PA_MASK);
    out->fault = fault;
    out->fault_fetch = m->fault_fetch;
    out->cause = m->cause;
}

static unsigned fault_cause(int fetch, int store) { return fetch ? 12 : store ? 15 : 13; }

void kh_rv6_mmu_edge(rv6_mmu *m, const rv6_mmu_in *in)
{
    int en = enabled(in->satp, in->priv);
    int fault = m->fault_p || m->fault_lat;
    int hit = hit_now(m);
    int miss = m->q_active && en && !hit && !fault;
    int resolved = m->q_active && hit && !m->sweeping && m->wst == W_IDLE;
    uint32_t vpn = vpn_of(in->va);
    int same = vpn == m->q_vpn && in->is_fetch == m->q_fetch && in->is_store == m->q_store;
    int pok = perm_ok(m, in->priv, in->sum, in->mxr);
    /* the walker's view of the PTE arriving this cycle */
    uint64_t pte = in->w_data;
    uint32_t pte_ppn = (uint32_t)kh_rv64_pte_ppn(&pte) & PPN_MASK;

    /* the array: read-first against the write registered last cycle */
    rv6_tlbe rd = m->tlb[idx_of(vpn)];
    if (m->t_we) m->tlb[m->t_wa] = m->t_wd;
    m->t_q = rd;
    m->t_we = 0;

    /* the FSM below acts on the request as it was registered before this edge */
    const uint32_t q_vpn = m->q_vpn;
    const int q_fetch = m->q_fetch, q_store = m->q_store, q_active = m->q_active;
    m->resolved_q = resolved && same;
    if (in->req) {
        m->q_vpn = vpn;
        m->q_off = (unsigned)kh_rv64_va_off(&in->va);
        m->q_store = in->is_store;
        m->q_fetch = in->is_fetch;
    }
    m->q_active = in->req;

    int fault_p = m->fault_p;
    m->fault_p = 0;
    if (fault_p) m->fault_lat = 1;
    if (!in->req || in->is_fetch != m->fault_fetch) m->fault_lat = 0; /* withdrawn, or the other requester */

    const int sweeping = m->sweeping;
    if (sweeping) {
        m->t_we = 1;
        m->t_wa = m->sweep & (R6_TLB - 1);
        memset(&m->t_wd, 0, sizeof m->t_wd);
        if ((m->sweep & (R6_TLB - 1)) == R6_TLB - 1) m->sweeping = 0;
        m->sweep++;
    } else if (in->sfence) {
        m->sweep = 0;
        m->sweeping = 1;
    }

    switch (m->wst) {
    case W_IDLE:
        if (miss && !sweeping) {
            m->level = 2;
            m->w_base = (uint64_t)(kh_rv64_satp_ppn(&in->satp) & PPN_MASK) << 12;
            m->w_vpn = q_vpn;
            m->w_fetch = q_fetch;
            m->w_store = q_store;
            m->wst = W_REQ;
            m->walks++;
        } else if (q_active && en && hit && !pok && !fault) {
            m->fault_p = 1;
            m->fault_fetch = q_fetch;
            m->cause = fault_cause(q_fetch, q_store);
            m->faults++;
        }
        break;
    case W_REQ: {
        uint64_t sel = (m->w_vpn >> (9 * m->level)) & 0x1FF;
        m->w_addr = (m->w_base + sel * 8) & PA_MASK;
        m->w_req = 1;
        m->wst = W_WAIT;
        break;
    }
    case W_WAIT:
        if (!in->w_ack) break;
        m->w_req = 0;
        {
            int v = (int)kh_rv64_pte_v(&pte), r = (int)kh_rv64_pte_r(&pte), w = (int)kh_rv64_pte_w(&pte);
            int x = (int)kh_rv64_pte_x(&pte), leaf = r || x;
            /* a superpage must be aligned to its own size */
            uint32_t low = m->level == 2 ? (pte_ppn & 0x3FFFF) : m->level == 1 ? (pte_ppn & 0x1FF) : 0;
            if (!v || (!r && w)) {
                m->wst = W_FAULT;
            } else if (leaf && low) {
                m->wst = W_FAULT;
            } else if (leaf) {
                uint32_t keep = m->level == 2 ? 0x3FFFF : m->level == 1 ? 0x1FF : 0;
                m->t_we = 1;
                m->t_wa = idx_of(m->w_vpn);
                m->t_wd = (rv6_tlbe){
                    .v = 1,
                    .tag = tag_of(m->w_vpn),
                    .ppn = (pte_ppn & ~keep) | (m->w_vpn & keep), /* the 4 KB slice asked for */
                    .perm = (uint8_t)(r * P_R | w * P_W | x * P_X | (int)kh_rv64_pte_u(&pte) * P_U |
                                      (int)kh_rv64_pte_a(&pte) * P_A | (int)kh_rv64_pte_d(&pte) * P_D),
                };
                m->wst = W_DONE;
            } else if (m->level == 0) {
                m->wst = W_FAULT; /* no leaf at the last level */
            } else {
                m->level--;
                m->w_base = (uint64_t)pte_ppn << 12;
                m->wst = W_REQ;
            }
        }
        break;
    case W_DONE: m->wst = W_DONE2; break; /* two cycles, so the re-probe reads the new entry */
    case W_DONE2: m->wst = W_IDLE; break;
    default:
        m->fault_p = 1;
        m->fault_fetch = m->w_fetch;
        m->cause = fault_cause(m->w_fetch, m->w_store);
        m->faults++;
        m->wst = W_IDLE;
        break;
    }
}

/* ---- the fetch page register ---- */

void kh_rv6_ifetch_reset(rv6_ifetch *f)
{
    f->ok = 0;
    f->req = 0;
    f->settle = 0;
}

static int if_hit(const rv6_ifetch *f, uint64_t pc) { return f->ok && f->vpn == vpn_of(pc); }

int kh_rv6_ifetch_stall(const rv6_ifetch *f, uint64_t pc, int core_settle)
{
    int need = f->translating && !if_hit(f, pc);
    return need || f->settle || f->sfence_q || core_settle || f->settle_q;
}

uint64_t kh_rv6_ifetch_pa(const rv6_ifetch *f, uint64_t pc, int *bad)
{
    *bad = f->translating && if_hit(f, pc) && f->bad;
    if (!f->translating) return pc;
    return (uint64_t)f->ppn << 12 | (pc & 0xFFF);
}

int kh_rv6_ifetch_mmu_req(const rv6_ifetch *f) { return f->req; }

void kh_rv6_ifetch_edge(rv6_ifetch *f, uint64_t pc, uint64_t satp, unsigned priv, int core_settle, int dmem_req,
                        int sfence, const rv6_mmu_out *out)
{
    int fetch_settle = core_settle || f->settle_q;
    int need = f->translating && !if_hit(f, pc);
    int sfence_q = f->sfence_q, translating = f->translating;
    f->translating = enabled(satp, priv);
    f->settle_q = core_settle;
    f->sfence_q = sfence;
    f->settle = 0;
    if (sfence_q || !translating) {
        f->ok = 0;
        f->req = 0;
    } else if (!f->req) {
        if (need && !dmem_req && !fetch_settle) {
            f->req = 1;
            f->wait = 2; /* the MMU registers the request, then its answer */
        }
    } else if (dmem_req) {
        f->req = 0; /* the data access took the MMU; try again later */
    } else if (f->wait) {
        f->wait--;
    } else if (out->fault && out->fault_fetch) {
        f->vpn = vpn_of(pc);
        f->ok = 1;
        f->bad = 1; /* a poisoned page: its words trap in E */
        f->req = 0;
        f->settle = 1;
    } else if (!out->busy) {
        f->vpn = vpn_of(pc);
        f->ppn = (uint32_t)(out->pa >> 12) & PPN_MASK;
        f->ok = 1;
        f->bad = 0;
        f->req = 0;
        f->settle = 1;
    }
}
