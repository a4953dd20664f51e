/* Sv39 for the RV64 core's wrappers (docs/rv64.md §6): the MMU (a 32-entry
 * direct-mapped TLB and a hardware walker with its own read port) and the
 * fetch page register in front of it, cycle by cycle as upstream's
 * rv64_mmu and rv64_syscore build them. The data port wins the MMU; a fetch
 * waits. A wrapper calls _comb for the cycle's answers and _edge at the
 * cycle's end with the same inputs plus the late ones. */
#ifndef KH_RV64_MMU_H
#define KH_RV64_MMU_H

#include <stdint.h>

#define R6_TLB 32

typedef struct rv6_tlbe {
    uint8_t v;
    uint8_t perm;   /* {D, A, U, X, W, R} as rv64_pte bits 7..6, 4..1 packed low-first */
    uint32_t tag;   /* VPN[26:5] */
    uint32_t ppn;   /* 28 bits */
} rv6_tlbe;

typedef struct rv6_mmu {
    rv6_tlbe tlb[R6_TLB];
    rv6_tlbe t_q;          /* the array's registered read */
    int t_we;              /* a write registered for the next edge */
    unsigned t_wa;
    rv6_tlbe t_wd;
    uint32_t q_vpn;
    unsigned q_off;
    int q_store, q_fetch, q_active, resolved_q;
    int wst;               /* the walk's state */
    unsigned sweep;
    int sweeping;
    unsigned level;
    uint64_t w_base;
    uint32_t w_vpn;
    int w_fetch, w_store;
    int fault_p, fault_lat, fault_fetch;
    unsigned cause;
    int w_req;
    uint64_t w_addr;
    uint64_t walks, faults; /* statistics */
} rv6_mmu;

typedef struct rv6_mmu_in {
    uint64_t satp;
    unsigned priv;
    int sum, mxr, sfence;
    int req, is_store, is_fetch;
    uint64_t va;          /* only read at the edge */
    int w_ack;
    uint64_t w_data;
} rv6_mmu_in;

typedef struct rv6_mmu_out {
    int busy;             /* hold the requester */
    uint64_t pa;
    int fault, fault_fetch;
    unsigned cause;       /* 12, 13 or 15 */
} rv6_mmu_out;

void kh_rv6_mmu_reset(rv6_mmu *m);
void kh_rv6_mmu_comb(const rv6_mmu *m, const rv6_mmu_in *in, rv6_mmu_out *out);
void kh_rv6_mmu_edge(rv6_mmu *m, const rv6_mmu_in *in);

/* The fetch page register in front of the MMU (rv64_syscore). */
typedef struct rv6_ifetch {
    int translating, settle_q, sfence_q;
    int ok, bad, req, settle;
    unsigned wait;
    uint32_t vpn;
    uint32_t ppn;
} rv6_ifetch;

void kh_rv6_ifetch_reset(rv6_ifetch *f);
/* Fetch is held this cycle (besides an I-cache miss); core_settle is the
 * core's early `settle`. */
int kh_rv6_ifetch_stall(const rv6_ifetch *f, uint64_t pc, int core_settle);
/* The physical fetch address, and whether the page is poisoned. */
uint64_t kh_rv6_ifetch_pa(const rv6_ifetch *f, uint64_t pc, int *bad);
/* The MMU request the fetch side adds this cycle. */
int kh_rv6_ifetch_mmu_req(const rv6_ifetch *f);
/* End of cycle: dmem_req is the core's early data request, sfence its late
 * SFENCE.VMA, out the MMU's answers of the cycle. */
void kh_rv6_ifetch_edge(rv6_ifetch *f, uint64_t pc, uint64_t satp, unsigned priv, int core_settle, int dmem_req,
                        int sfence, const rv6_mmu_out *out);

#endif
