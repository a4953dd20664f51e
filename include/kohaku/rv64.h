/* The RV64 system core (docs/rv64.md): an RV64IMA + Zicsr core with M/S/U
 * privilege, modelled cycle by cycle on upstream's rv64_core pipeline. The
 * core is an object with a narrow bus interface (kh_rv64_bus): what sits
 * around it (the flat harness, the node's rv64_syscore wrapper, the mesh
 * unit) answers its instruction and data ports each cycle, exactly where the
 * RTL's wrapper answers the core's ports.
 *
 * kh_rv64_flat_* is the flat harness of `kohaku cpu run --isa rv64`:
 * sparse memory answering every address in the next cycle, ELF64 loading,
 * the 0x1000_0000 console and 0x1000_0008 exit stores, and riscv-tests'
 * HTIF (tohost/fromhost with the `write` syscall proxy). */
#ifndef KOHAKU_RV64_H
#define KOHAKU_RV64_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kohaku/sim.h"

typedef struct kh_rv64 kh_rv64;

/* ---- the bus: what the core's wrapper answers (docs/rv64.md §12) ---- */

/* Outputs that come from registers only; the wrapper may look at them
 * before it answers the cycle's stalls. */
typedef struct kh_rv64_early {
    uint64_t pc;       /* the fetch address (F) */
    int dmem_req;      /* a load, store or AMO is in E (decoded, no address) */
    int dmem_st;       /* ... and it writes */
    unsigned priv;     /* 3 M, 1 S, 0 U */
    uint64_t satp;
    int sum, mxr;      /* mstatus.SUM, mstatus.MXR */
    int settle;        /* a trap or return's state lands at this cycle's end */
} kh_rv64_early;

/* The wrapper's answer for this cycle. */
typedef struct kh_rv64_in {
    int imem_stall;    /* fetch cannot name a physical word yet: F and D hold */
    int dmem_stall;    /* the data access in E is not finished: E holds */
    int dmem_fault;    /* a translation fault for the data access */
    unsigned fault_cause; /* 13 or 15 */
    int irq_ext, irq_soft; /* interrupt levels */
    int ext_halt;      /* the exit store or the host stop */
} kh_rv64_in;

/* Outputs the wrapper takes at the cycle's end. */
typedef struct kh_rv64_late {
    uint64_t daddr;    /* data address, bits [2:0] cleared */
    uint64_t wdata;    /* the store datum replicated into every lane */
    uint8_t wstrb;     /* byte enables; 0: no write */
    int dre;           /* a read is wanted */
    int fetch_adv;     /* fetch advances: the instruction pipe and tables move */
    int sfence;        /* SFENCE.VMA at an instruction boundary */
    int fence_i;       /* FENCE.I at an instruction boundary */
} kh_rv64_late;

typedef struct kh_rv64_bus {
    void *ctx;
    /* The cycle's stalls and levels, from the wrapper's registers and e. */
    void (*comb)(void *ctx, const kh_rv64_early *e, kh_rv64_in *in);
    /* The instruction word at fetch address pc, as the wrapper's array
     * reads it at this cycle's end; *fault marks a poisoned page. */
    uint32_t (*fetch)(void *ctx, uint64_t pc, int *fault);
    /* The doubleword a finished read returns (addr 8-aligned). */
    uint64_t (*read)(void *ctx, uint64_t addr);
    /* End of cycle: the wrapper's registers move, stores land. */
    void (*edge)(void *ctx, const kh_rv64_early *e, const kh_rv64_late *l);
} kh_rv64_bus;

typedef struct kh_rv64_config {
    unsigned fetch_lat;    /* fetch stages before D: 1 or 2 (upstream FETCH_LAT; 2 in the RTL followed) */
    uint64_t reset_pc;
} kh_rv64_config;

/* A core in reset state. NULL when out of memory. */
kh_rv64 *kh_rv64_new(const kh_rv64_config *cfg, const kh_rv64_bus *bus);
void kh_rv64_free(kh_rv64 *c);
/* Back to the reset state (the architectural registers keep their values, as
 * the RTL's register file does; CSRs reset as docs/rv64.md §2 says). */
void kh_rv64_reset(kh_rv64 *c, uint64_t reset_pc);
/* One clock. */
void kh_rv64_cycle(kh_rv64 *c);

typedef struct kh_rv64_status {
    int halted;
    unsigned halt_cause;   /* 0 exit store / host, 1 ECALL, 2 EBREAK, 3 other */
    uint64_t halt_pc;
    int retire_pulse;      /* the registered retire pulse visible this cycle */
    unsigned priv;
    uint64_t pc_e;         /* the instruction in E (the fetch PC when E is empty) */
} kh_rv64_status;
void kh_rv64_status_get(const kh_rv64 *c, kh_rv64_status *s);
uint64_t kh_rv64_reg(const kh_rv64 *c, unsigned r);
void kh_rv64_set_reg(kh_rv64 *c, unsigned r, uint64_t v);
/* A CSR's value as a CSR read in M mode would return it (0 for an unknown address). */
uint64_t kh_rv64_csr_value(const kh_rv64 *c, unsigned addr);

/* Statistics since the last reset. */
typedef struct kh_rv64_stats {
    uint64_t retired;          /* instructions that left E without trapping */
    uint64_t traps, interrupts;
    uint64_t load_use, jalr_bubbles, fetch_stalls; /* cycles F and D held */
    uint64_t mispredicts, d_redirects;
    uint64_t md_cycles, csr_cycles, amo_cycles, mem_cycles; /* cycles E held */
} kh_rv64_stats;
void kh_rv64_stats_get(const kh_rv64 *c, kh_rv64_stats *s);

/* A per-instruction trace: called when an instruction leaves E (retired or
 * trapping), with the cycle, its PC and word. */
typedef void (*kh_rv64_trace_fn)(void *ctx, uint64_t cycle, uint64_t pc, uint32_t word, int trapped);
void kh_rv64_set_trace(kh_rv64 *c, kh_rv64_trace_fn fn, void *ctx);

/* ---- ELF64 images ---- */

typedef struct kh_rv64_seg {
    uint64_t vaddr, filesz, memsz;
    const uint8_t *bytes;      /* filesz bytes, inside the image buffer */
} kh_rv64_seg;

typedef struct kh_rv64_elf {
    uint8_t *buf;              /* the file */
    size_t len;
    uint64_t entry;
    kh_rv64_seg *seg;
    unsigned nseg;
    int have_tohost, have_fromhost;
    uint64_t tohost, fromhost; /* symbol addresses */
} kh_rv64_elf;

/* Read an ELF64 little-endian RISC-V executable (PT_LOAD segments, and the
 * tohost/fromhost symbols when there is a symbol table). 0, or -1 with a
 * message naming what is wrong. */
int kh_rv64_elf_read(const char *path, kh_rv64_elf *elf, char *err, size_t errlen);
void kh_rv64_elf_free(kh_rv64_elf *elf);

/* ---- the flat harness ---- */

#define KH_RV64_FLAT_CONSOLE 0x10000000u /* a store's low byte is a console character */
#define KH_RV64_FLAT_EXIT 0x10000008u    /* a store ends the run */

typedef enum kh_rv64_end {
    KH_RV64_END_EXIT,      /* a store to KH_RV64_FLAT_EXIT: code = the stored value */
    KH_RV64_END_TOHOST,    /* tohost written with an odd value: code = value >> 1 (0 pass) */
    KH_RV64_END_HALT,      /* the core halted: code = a0 */
    KH_RV64_END_LIMIT,     /* the cycle limit */
} kh_rv64_end;

typedef struct kh_rv64_result {
    kh_rv64_end end;
    uint64_t code;
    uint64_t cycles;       /* as upstream's harness counts: through the ending cycle */
    uint64_t instret;      /* retire pulses seen during those cycles */
    unsigned halt_cause;
    uint64_t halt_pc;
} kh_rv64_result;

typedef struct kh_rv64_flat kh_rv64_flat;

/* A flat machine with elf loaded, the core reset at the entry. out receives
 * console bytes and the syscall proxy's writes (NULL: discarded). The harness
 * carries the node wrapper's Sv39 MMU, in the path only while satp.MODE is
 * Sv39 (riscv-tests' v environment); KH_RV64_FLAT_BARE leaves it out, as
 * upstream's bare-core harness does (satp is then stored and ignored). */
#define KH_RV64_FLAT_BARE 1u
kh_rv64_flat *kh_rv64_flat_new(const kh_rv64_elf *elf, unsigned fetch_lat, unsigned flags, FILE *out, char *err,
                               size_t errlen);
void kh_rv64_flat_free(kh_rv64_flat *f);
kh_rv64 *kh_rv64_flat_core(kh_rv64_flat *f);
/* Run until the program ends or max_cycles pass. */
void kh_rv64_flat_run(kh_rv64_flat *f, uint64_t max_cycles, kh_rv64_result *res);
/* The flat memory, for tests. */
uint64_t kh_rv64_flat_read64(const kh_rv64_flat *f, uint64_t addr);
void kh_rv64_flat_write64(kh_rv64_flat *f, uint64_t addr, uint64_t v);

/* ---- the node complex on a bench (docs/rv64.md §7) ---- */

/* elf on the node complex with a node-port slave answering `latency` cycles
 * after it sees a request: instruction window and scratchpad loaded through
 * the host window, node memory (0x1000_0000 and up) preloaded, booted at 0
 * (a stub jumps to the entry); ends as kh_rv64_flat_run does. 0, or -1 with
 * a message. trace (or NULL): one line per retired instruction, "cycle pc word". */
int kh_rv64_sysbench_run(const kh_rv64_elf *elf, unsigned latency, uint64_t max_cycles, FILE *out, FILE *trace,
                         kh_rv64_result *res, char *err, size_t errlen);

/* ---- the complex in a machine (machine parameter cpu_rv64) ---- */

typedef struct kh_node kh_node;
typedef struct kh_rv64_node kh_rv64_node;

/* Build the RV64 complex as node n's control processor: a component of the
 * node's simulation (freed with it), the converged path's processor
 * channel, the node's processor client at (0,0) for the mailbox. NULL with
 * a message when it cannot be built. */
kh_rv64_node *kh_rv64_node_attach(kh_node *n, char *err, size_t errlen);
/* The host-load window (docs/rv64.md §10): offset 0x000-0xFFF of the slot
 * at control offset 0x8000; a write beat accepted in cycle beat, a read at
 * the start of cycle now. */
void kh_rv64_node_win_write(kh_rv64_node *r, unsigned off, uint64_t data, uint8_t strb, kh_cycle beat);
uint64_t kh_rv64_node_win_read(kh_rv64_node *r, unsigned off, kh_cycle now);
/* Console bytes (control +0x08) are also written to out as they are stored
 * (NULL: only the window's FIFO has them). */
void kh_rv64_node_set_console(kh_rv64_node *r, FILE *out);
kh_rv64 *kh_rv64_node_core(kh_rv64_node *r);

/* Run elf on mesh's RV64 complex as a host does: the window and scratchpad
 * through the host-load window, node memory through the card's memory
 * window, HR_BOOT, then HR_STATUS polled every 1024 cycles until the
 * program exits or the core halts, or `limit` cycles pass (end LIMIT).
 * instret and cycles are HR_RETIRED and HR_CYCLES. 0, or -1 with a message. */
typedef struct kh_machine kh_machine;
int kh_rv64_node_run(kh_machine *m, unsigned mesh, const kh_rv64_elf *elf, uint64_t limit, kh_rv64_result *res,
                     char *err, size_t errlen);
/* kh_rv64_node_run in two halves, so that a checkpoint can be taken
 * between its polls (docs/checkpoint.md): _start loads and boots; _wait
 * polls until the end or `limit` cycles from its call, calling pause (if
 * not NULL) after each 1024 cycles run (a nonzero return stops it: -1). A
 * machine restored from a checkpoint taken in pause resumes with _wait. */
typedef int (*kh_rv64_pause_fn)(void *ctx, kh_machine *m);
int kh_rv64_node_start(kh_machine *m, unsigned mesh, const kh_rv64_elf *elf, char *err, size_t errlen);
int kh_rv64_node_wait(kh_machine *m, unsigned mesh, uint64_t limit, kh_rv64_pause_fn pause, void *ctx,
                      kh_rv64_result *res, char *err, size_t errlen);

/* ---- the mesh compute unit rv64_sys_pe (map token r64, docs/rv64.md §11) ---- */

typedef struct kh_rv64_pe_result {
    unsigned code;     /* the completion's code: 0 INST_COMPLETE, 4 FAULT (EBREAK or a trap with no handler) */
    uint32_t word;     /* its argument: the low 32 bits of the last exit store */
    uint32_t instret, cycles; /* the unit's CU_DBG counters of the run */
} kh_rv64_pe_result;

/* Load elf (linked at 0, examples/rv64/pe.ld) onto the unit at (x, y) of
 * mesh as a host does (CU_DATA bursts and the kick, dispatched by the
 * orchestrator) and wait up to `limit` cycles for its completion. 0, or -1
 * with a message. */
int kh_rv64_pe_run(kh_machine *m, unsigned mesh, unsigned x, unsigned y, const kh_rv64_elf *elf, uint64_t limit,
                   kh_rv64_pe_result *res, char *err, size_t errlen);
/* The same in two halves, as the node's: _start loads and kicks, setting
 * *mark (the unit's status entry before the kick), _wait polls for the
 * completion after it with the pause hook between polls. */
int kh_rv64_pe_start(kh_machine *m, unsigned mesh, unsigned x, unsigned y, const kh_rv64_elf *elf, uint64_t *mark,
                     char *err, size_t errlen);
int kh_rv64_pe_wait(kh_machine *m, unsigned mesh, unsigned x, unsigned y, uint64_t mark, uint64_t limit,
                    kh_rv64_pause_fn pause, void *ctx, kh_rv64_pe_result *res, char *err, size_t errlen);

#endif
