/* The node control processor's address map for C programs (docs/cpu.md,
 * ../shared/spec/cpu.md §4). Build with crt0.S and kohaku_rv32.ld:
 *   riscv64-unknown-elf-gcc -march=rv32i -mabi=ilp32 -Os -ffreestanding -nostdlib \
 *       -T kohaku_rv32.ld crt0.S prog.c -lgcc -o prog.elf
 * The instruction memory is fetch-only; .rodata, .data, .bss and the stack
 * live in the 8 KiB scratchpad. */
#ifndef KOHAKU_RV32_PROG_H
#define KOHAKU_RV32_PROG_H

#include <stdint.h>

#define KR_SPAD 0x10000000u
#define KR_CTL 0x20000000u
#define KR_NODE 0xF0000000u
#define KR_DRAM 0x80000000u /* + a DRAM offset below 0x7000_0000, through the L1 */

#define KR_REG(a) (*(volatile uint32_t *)(uintptr_t)(a))

/* local control (§4.3) */
#define CTL_STATUS KR_REG(KR_CTL + 0x00)
#define CTL_FLUSH KR_REG(KR_CTL + 0x04)   /* store: write dirty L1 lines back; blocks until acknowledged */
#define CTL_INVAL KR_REG(KR_CTL + 0x08)   /* store: drop every L1 line */
#define CTL_CAUSE KR_REG(KR_CTL + 0x0C)
#define CTL_COREID KR_REG(KR_CTL + 0x10)
#define CTL_ARG KR_REG(KR_CTL + 0x14)
#define CTL_CYCLE KR_REG(KR_CTL + 0x18)
#define CTL_INSTRET KR_REG(KR_CTL + 0x1C)
#define CTL_WROUT KR_REG(KR_CTL + 0x20)
#define CTL_SIGST KR_REG(KR_CTL + 0x24)   /* [7:0] completions held, [8] overflow */
#define CTL_SIGHD KR_REG(KR_CTL + 0x28)   /* [7:0] txn, [15:8] code */
#define CTL_SIGARG KR_REG(KR_CTL + 0x2C)
#define CTL_SIGPOP KR_REG(KR_CTL + 0x30)

/* node range (§4.6) */
#define NODE_STATUS KR_REG(KR_NODE)       /* load: [0] executor/mover busy, [7:4] mover fault, [11:8] occupant fault */

/* MVGO: hand the descriptor at scratchpad word index (byte offset / 4) to
 * the executor (§6). The executor drops an MVGO while busy: wait first. */
static inline void kr_mover_wait(void)
{
    while (NODE_STATUS & 1) {}
}
static inline unsigned kr_mvgo(const void *desc)
{
    kr_mover_wait();
    KR_REG(KR_NODE) = ((uint32_t)(uintptr_t)desc - KR_SPAD) / 4;
    kr_mover_wait();
    return (NODE_STATUS >> 4) & 0xF; /* the move's fault code, 0 = done */
}

/* dispatch region (§4.5): ARG, PC, then the OP store fires the CU_INST
 * {op, pc, arg} in payload [255:184] to (x, y). */
static inline uint32_t kr_disp(unsigned x, unsigned y, unsigned txn, unsigned last, unsigned field)
{
    return 0x60000000u | x << 24 | y << 20 | (txn & 0xFF) << 12 | (last & 1) << 11 | field << 2;
}
static inline void kr_dispatch(unsigned x, unsigned y, unsigned txn, unsigned last, uint8_t op, uint32_t pc,
                               uint32_t arg)
{
    KR_REG(kr_disp(x, y, txn, last, 0)) = arg;
    KR_REG(kr_disp(x, y, txn, last, 1)) = pc;
    KR_REG(kr_disp(x, y, txn, last, 2)) = op;
}

/* peer push (§4.4): one word to (x, y)'s scratchpad (imem = 0) or
 * instruction memory (imem = 1) at byte offset off. */
static inline void kr_push(unsigned x, unsigned y, int imem, uint32_t off, uint32_t v)
{
    KR_REG(0x30000000u | x << 24 | y << 20 | (unsigned)(imem != 0) << 19 | (off & 0x7FFFC)) = v;
}

/* completion queue: wait for n completions, pop them; 0, or the first
 * non-INST_COMPLETE code seen (| 0x100 on overflow). */
static inline unsigned kr_wait_completions(unsigned n)
{
    unsigned bad = 0;
    while (n) {
        uint32_t st = CTL_SIGST;
        if (st & 0x100) bad |= 0x100;
        if ((st & 0xFF) == 0) continue;
        unsigned code = (CTL_SIGHD >> 8) & 0xFF;
        if (code != 0x00 && code != 0x01 && !(bad & 0xFF)) bad |= code ? code : 0xFF;
        CTL_SIGPOP = 1;
        n--;
    }
    return bad;
}

#endif
