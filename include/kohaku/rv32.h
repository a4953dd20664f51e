/* The system node's RV32 control processor (../shared/spec/cpu.md,
 * docs/cpu.md): a compute unit at (0,0) on the same shell as every unit
 * (CU_TYPE "RC"), a client of the node's hub with no fabric port of its own.
 * Loaded by CU_DATA (code to instruction memory, buf_id 1; data to the
 * scratchpad, buf_id 0), kicked by a CU_INST {op 1, pc, arg}, it completes
 * with a0 as exec_result. The machine builds one per mesh when cpu_mode is
 * cpu or cpu-exact (params.h).
 *
 * Programs: RV32I (-march=rv32i -mabi=ilp32), the optional multiply half
 * with the parameter l_rv32_mul. kh_rv32_image_* read an ELF32 or flat
 * image into the pieces a host loads; kh_rv32_host_* load and kick it
 * through a card's orchestrator mailbox as a host driver does. */
#ifndef KOHAKU_RV32_H
#define KOHAKU_RV32_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/card.h"
#include "kohaku/cu.h"
#include "kohaku/sim.h"

typedef struct kh_node kh_node;
typedef struct kh_rv32 kh_rv32;

#define KH_RV32_CU_TYPE 0x5243      /* "RC" (cpu.md §7.1) */
#define KH_RV32_IMEM_BYTES 0x2000   /* 8 KiB instruction memory at 0 */
#define KH_RV32_SPAD_BASE 0x10000000u
#define KH_RV32_SPAD_BYTES 0x2000   /* 8 KiB scratchpad */

/* Build the processor on node n (its shell at (0,0), its CP requester on
 * the converged path) and plug it into the node's hub. NULL with a message. */
kh_rv32 *kh_rv32_attach(kh_node *n, char *err, size_t errlen);
kh_cu *kh_rv32_shell(kh_rv32 *r);
/* The link from its shell into the node's hub (a simulation link that is
 * no link of the mesh: the machine's layout adds it for the heat map). */
const kh_link *kh_rv32_out_link(const kh_rv32 *r);

/* Debug view (not architectural: no host register shows these, cpu.md §7.5). */
typedef struct kh_rv32_state {
    uint32_t x[32];
    uint32_t pc;            /* of the next instruction to reach EX; after a halt, of the halting one */
    int running, halted;
    unsigned cause;         /* 0 none, 1 ECALL, 2 EBREAK, 3 fault */
    uint32_t halt_word;     /* a0 for causes 1 and 2, the PC for 3 */
    uint32_t cycles;        /* counted since the kick (frozen at the halt) */
    uint32_t instret;
    uint64_t pe_status;     /* the wrapper's status word (cpu.md §7.5) */
    unsigned sig_count;     /* completion queue entries */
    int sig_overflow;
    unsigned dirty_lines;   /* L1 lines not yet written back */
    unsigned mvgo_lost;     /* MVGOs dropped while the executor was busy (cpu.md Open point 5) */
    int unreachable;        /* the mesh has no memory port at (0,1) (control.md Open point 11) */
} kh_rv32_state;
void kh_rv32_get_state(kh_rv32 *r, kh_rv32_state *out);
/* Backdoors for tests: words of the scratchpad / instruction memory. */
uint32_t kh_rv32_spad_word(const kh_rv32 *r, unsigned index);
uint32_t kh_rv32_imem_word(const kh_rv32 *r, unsigned index);

/* ---- program images ---- */

typedef struct kh_rv32_image {
    uint32_t imem[KH_RV32_IMEM_BYTES / 4];
    uint32_t spad[KH_RV32_SPAD_BYTES / 4];
    unsigned imem_granules; /* 32-byte granules of code to load (from 0) */
    unsigned spad_lo, spad_hi; /* granule range [lo, hi) of initialised data */
    uint32_t entry;
} kh_rv32_image;

/* An ELF32 little-endian RISC-V executable (PT_LOAD segments: addresses
 * below 0x1000_0000 to the instruction memory, 0x1xxx_xxxx to the
 * scratchpad; anything else is refused naming the segment), or, when the
 * bytes are not ELF, a flat binary of code at 0 with entry 0. 0, or -1
 * with a message. */
int kh_rv32_image_read(const uint8_t *bytes, size_t n, kh_rv32_image *img, char *err, size_t errlen);
int kh_rv32_image_load(const char *path, kh_rv32_image *img, char *err, size_t errlen);

/* Load img onto mesh `mesh`'s processor through the orchestrator's mailbox
 * (CU_DATA bursts to (0,0), src the orchestrator), then kick it: CU_INST
 * {op 1, pc = entry, arg} with txn and last. Waits for TX room between
 * flits; does not wait for the completion. 0, or -1 with a message. */
int kh_rv32_host_load(kh_card *card, unsigned mesh, const kh_rv32_image *img, uint32_t arg, unsigned txn,
                      unsigned last, char *err, size_t errlen);

/* Load, kick (txn 1, last 0) and wait up to `limit` cycles for the
 * completion in NODE_STATUS[0x00]. 0 when it came (whatever the cause:
 * res says); -1 when loading was refused or no completion came, with the
 * machine's diagnosis in err. */
typedef struct kh_machine kh_machine;
typedef struct kh_rv32_result {
    uint32_t a0;               /* x10 after the halt */
    unsigned cause;            /* 1 ECALL, 2 EBREAK, 3 fault */
    uint32_t cycles, instret;  /* as the core counts them (CTL_CYCLE, CTL_INSTRET) */
    unsigned code;             /* the completion's signal code (0 INST_COMPLETE, 4 FAULT) */
    uint32_t arg;              /* its argument */
    kh_cycle load_cycle, kick_cycle, done_cycle; /* machine cycles: load started, kick dispatched, completion seen */
} kh_rv32_result;
int kh_rv32_run(kh_machine *m, unsigned mesh, const kh_rv32_image *img, uint32_t arg, kh_cycle limit,
                kh_rv32_result *res, char *err, size_t errlen);

#endif
