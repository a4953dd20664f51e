/* The RV64 core as the system node's processor (upstream's rv64_syscore,
 * docs/rv64.md §6-§10): the core with the 32 KB instruction window, the
 * 32 KB scratchpad, the control region, the Sv39 MMU and fetch page
 * register, the 2-line I-cache over DRAM code, the 64-line write-back L1,
 * the node port (one AXI master, one access at a time) and the dispatch
 * mailbox, clocked together one cycle at a time. What sits outside (the
 * AXI slave behind the node port, the mover, the interlink, the node's hub)
 * is reached through rv6_sys_env, so the same object runs in the bench
 * harness (sysbench.c) and in a machine (node.c). */
#ifndef KH_RV64_SYS_H
#define KH_RV64_SYS_H

#include <stdint.h>

#include "kohaku/flit.h"
#include "kohaku/rv64.h"

#define R6_IMEM_WORDS 8192 /* 32-bit words: 32 KB */
#define R6_SPAD_WORDS 4096 /* 64-bit words: 32 KB */
#define R6_L1_LINES 64
#define R6_IC_LINES 2
#define R6_CQ 16          /* completion queue */
#define R6_RQ 8           /* other inbound flits */
#define R6_STDIN 64

/* the node port's AXI master outputs (registered) and the slave's answers */
typedef struct rv6_axi_out {
    int arvalid;
    uint64_t araddr;
    int awvalid, wvalid;
    uint64_t awaddr;
    uint64_t wdata[4];
    uint32_t wstrb;
} rv6_axi_out;

typedef struct rv6_axi_in {
    int arready, rvalid;
    uint64_t rdata[4];
    int awready, wready, bvalid;
} rv6_axi_in;

typedef struct rv6_sys_env {
    void *ctx;
    /* the AXI slave behind the node port, once per cycle from the master's
     * registered outputs */
    void (*axi)(void *ctx, const rv6_axi_out *o, rv6_axi_in *in);
    /* the mover's configuration port and status (NULL: none) */
    void (*mv_write)(void *ctx, unsigned reg, uint64_t value);
    void (*mv_status)(void *ctx, int *busy, unsigned *fault, uint32_t *done);
    /* the interlink's configuration port (reg 0x80-0xBF) and inbound counts */
    void (*db_write)(void *ctx, unsigned reg, uint64_t value);
    uint64_t (*db_status)(void *ctx);
    int (*irq_summary)(void *ctx);
    /* the mailbox's flit offered to the hub: 1 taken */
    int (*tx)(void *ctx, const kh_flit *f);
    void (*console)(void *ctx, uint8_t byte);
    /* a transform-bank configuration write (XF_SEL / XF_DATA) */
    void (*xf_write)(void *ctx, unsigned id, unsigned reg, uint64_t value);
} rv6_sys_env;

typedef struct rv6_sys rv6_sys;

/* fetch_lat as the core's (2 in the revision followed); my_x, my_y the
 * complex's coordinate (the mailbox's source). NULL when out of memory. */
rv6_sys *kh_rv6_sys_new(const rv6_sys_env *env, unsigned fetch_lat, unsigned my_x, unsigned my_y);
void kh_rv6_sys_free(rv6_sys *s);
/* One clock of the whole complex. */
void kh_rv6_sys_cycle(rv6_sys *s);

/* The host window (docs/rv64.md §10): one access, taken at the next
 * cycle's edge as the RTL's slave takes it; a read returns the register the
 * window answers (its value one cycle after the address). */
void kh_rv6_sys_host_write(rv6_sys *s, uint32_t addr, uint64_t data, uint8_t strb);
uint64_t kh_rv6_sys_host_read(const rv6_sys *s, uint32_t addr);

/* An inbound flit from the hub: 1 taken, 0 the queues are full (hold it). */
int kh_rv6_sys_rx(rv6_sys *s, const kh_flit *f);
/* The mailbox's offered flit when env.tx is NULL (the hub takes it when
 * it can): the flit or NULL, and its taking. */
const kh_flit *kh_rv6_sys_tx_peek(const rv6_sys *s);
void kh_rv6_sys_tx_take(rv6_sys *s);
/* Anything moves at the next clock (the core runs, or a host access, a
 * boot, a node-port transaction or a registered pulse is pending). */
int kh_rv6_sys_active(const rv6_sys *s);

/* State the harnesses look at. */
typedef struct rv6_sys_view {
    int core_rstn, halted, exited;
    unsigned cause;
    uint64_t exit_word, halt_pc;
    int retire;             /* the core's retire pulse this cycle */
    int commit;             /* a store commits at this cycle's end: pa, data, strobes */
    uint64_t commit_pa, commit_wd;
    uint8_t commit_be;
    uint64_t cycles, retired; /* HR_CYCLES, HR_RETIRED */
} rv6_sys_view;
void kh_rv6_sys_view(const rv6_sys *s, rv6_sys_view *v);
kh_rv64 *kh_rv6_sys_core(rv6_sys *s);
/* Backdoor: a doubleword of the L1, if its line is resident (1). */
int kh_rv6_sys_l1_poke(rv6_sys *s, uint64_t pa, uint64_t v);
/* Backdoor for loaders and tests. */
void kh_rv6_sys_imem_put(rv6_sys *s, unsigned word, uint32_t v);
uint64_t kh_rv6_sys_spad_get(const rv6_sys *s, unsigned word);

#endif
