/* A trap handler across three privilege levels (docs/rv64.md §3) on the
 * flat harness. Machine mode installs both vectors, delegates ECALL from U
 * and breakpoints to S, arms the timer, and drops to S; S drops to U. User
 * code then makes a system call (U -> S, which asks M: S -> M), runs an
 * illegal instruction (not delegated: U -> M, whose handler arms the timer
 * 2000 cycles ahead), a breakpoint (U -> S), spins until the timer
 * interrupt (taken in M from U, whatever MIE says), and finally asks to exit
 * (U -> S -> M). Every handler logs (level, cause); the machine handler
 * ends the run with the log packed into the exit value, one byte per event
 * {level[7:6], interrupt[5], code[4:0]}, and the system call's answer in
 * the top byte. */
#include "kohaku_rv64.h"

#define SYS_DOUBLE 1
#define SYS_EXIT 93

static volatile u64 nlog, packed;
static volatile int ticked;
static volatile u64 answer;

static void note(u64 level, u64 cause)
{
    u64 b = level << 6 | (cause >> 63) << 5 | (cause & 0x1f);
    packed |= b << (8 * nlog);
    nlog++;
}

/* The trap entries: save the caller-saved registers on the stack, call the
 * handler with them, restore, return. a0 and a7 travel in the frame. */
#define ENTRY(name, handler, ret)                                                   \
    __asm__(".section .text\n.balign 4\n" #name ":\n"                              \
            "addi sp, sp, -128\n"                                                   \
            "sd ra, 0(sp)\n sd t0, 8(sp)\n sd t1, 16(sp)\n sd t2, 24(sp)\n"        \
            "sd a0, 32(sp)\n sd a1, 40(sp)\n sd a2, 48(sp)\n sd a3, 56(sp)\n"      \
            "sd a4, 64(sp)\n sd a5, 72(sp)\n sd a6, 80(sp)\n sd a7, 88(sp)\n"      \
            "sd t3, 96(sp)\n sd t4, 104(sp)\n sd t5, 112(sp)\n sd t6, 120(sp)\n"   \
            "mv a0, sp\n call " #handler "\n"                                       \
            "ld ra, 0(sp)\n ld t0, 8(sp)\n ld t1, 16(sp)\n ld t2, 24(sp)\n"        \
            "ld a0, 32(sp)\n ld a1, 40(sp)\n ld a2, 48(sp)\n ld a3, 56(sp)\n"      \
            "ld a4, 64(sp)\n ld a5, 72(sp)\n ld a6, 80(sp)\n ld a7, 88(sp)\n"      \
            "ld t3, 96(sp)\n ld t4, 104(sp)\n ld t5, 112(sp)\n ld t6, 120(sp)\n"   \
            "addi sp, sp, 128\n " #ret "\n")

enum { F_A0 = 4, F_A7 = 11 }; /* frame slots */

void m_handler(u64 *f);
void s_handler(u64 *f);
ENTRY(m_entry, m_handler, mret);
ENTRY(s_entry, s_handler, sret);
extern char m_entry[], s_entry[];

static u64 ecall2(u64 a0, u64 a7)
{
    register u64 x10 __asm__("a0") = a0;
    register u64 x17 __asm__("a7") = a7;
    __asm__ volatile("ecall" : "+r"(x10) : "r"(x17) : "memory");
    return x10;
}

void m_handler(u64 *f)
{
    u64 cause = csr_read(mcause);
    note(PRV_M, cause);
    if (cause >> 63) { /* the timer: its only acknowledge is moving mtimecmp */
        csr_write_mtimecmp(~0ul);
        ticked = 1;
        return;
    }
    if (cause == 9 && f[F_A7] == SYS_EXIT) {
        *(volatile u64 *)0x10000008ul = packed | (answer & 0xff) << 56;
        for (;;) {}
    }
    if (cause == 9 && f[F_A7] == SYS_DOUBLE) f[F_A0] = 2 * f[F_A0] + 1;
    if (cause == 2) csr_write_mtimecmp(csr_read(time) + 2000); /* arm the timer: it fires while U spins */
    csr_write(mepc, csr_read(mepc) + 4); /* past the ECALL or the illegal word */
}

void s_handler(u64 *f)
{
    u64 cause = csr_read(scause);
    note(PRV_S, cause);
    if (cause == 8) f[F_A0] = ecall2(f[F_A0], f[F_A7]); /* ask machine mode */
    csr_write(sepc, csr_read(sepc) + 4);
}

static void u_main(void)
{
    answer = ecall2(5, SYS_DOUBLE);
    __asm__ volatile(".word 0xffffffff"); /* illegal: machine mode's */
    __asm__ volatile("ebreak");           /* delegated to S */
    while (!ticked) {}
    ecall2(0, SYS_EXIT);
}

static void s_main(void)
{
    csr_clear(sstatus, MSTATUS_SPP); /* to U */
    csr_write(sepc, (u64)u_main);
    __asm__ volatile("sret");
}

int main(void)
{
    csr_write(mtvec, (u64)m_entry);
    csr_write(stvec, (u64)s_entry);
    csr_write(medeleg, (1ul << 8) | (1ul << 3)); /* ECALL from U, breakpoint */
    csr_write(mideleg, 0);                       /* interrupts stay machine mode's */
    csr_write_mtimecmp(~0ul); /* armed by the illegal instruction's handler */
    csr_write(mie, 1ul << 7);
    csr_clear(mstatus, MSTATUS_MPP);
    csr_set(mstatus, PRV_S << 11);
    csr_write(mepc, (u64)s_main);
    __asm__ volatile("mret");
    return 1; /* not reached */
}
