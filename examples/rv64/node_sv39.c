/* Sv39 with user pages on the node's processor (docs/rv64.md §6, §7): the
 * same user program as flat_sv39.c, with the node map's constraints. The
 * walker reads node DRAM through the node port, not the L1, so machine
 * mode writes the three-level table into DRAM through the uncached alias
 * (bit 38). The user code is a 4 KB page of the instruction window (fetch
 * reads the window below the node range); the user data pages are cached
 * DRAM. Machine mode takes every trap (nothing is delegated): a load page
 * fault on the unmapped page maps a fresh one and retries, a store page
 * fault on the page without D sets D and retries, the ECALL reads every
 * store back through the physical addresses and ends the run with
 * {faults taken [23:0], one cause a byte; the three values read back, summed [47:32]}. */
#include "kohaku_rv64.h"

#define UVA 0x400000ul                  /* the user pages start here */
#define PT2 NODE_DRAM(0x300000ul)       /* the table's three levels, one page each */
#define PT1 (PT2 + PAGE)
#define PT0 (PT2 + 2 * PAGE)
#define UDATA NODE_DRAM(0x400000ul)     /* user data (U R W A D) */
#define UNOD (UDATA + PAGE)             /* user data without D */
#define POOL (UDATA + 2 * PAGE)         /* handed out for the unmapped page */

static void pte_set(u64 table, u64 i, u64 v) { *(volatile u64 *)UNCACHED(table + 8 * i) = v; }
static u64 peek(u64 pa) { return *(volatile u64 *)pa; }

/* User code: a0 = its data page, a1 = the unmapped page, a2 = the page
 * without D (all user virtual addresses). */
__asm__(".section .text.user, \"ax\"\n.balign 4096\n.globl u_entry\nu_entry:\n"
        "ld t0, 0(a0)\n addi t0, t0, 1\n sd t0, 8(a0)\n"
        "ld t1, 0(a1)\n add t0, t0, t1\n sd t0, 16(a1)\n"
        "sd t0, 0(a2)\n"
        "li a7, 93\n mv a0, t0\n ecall\n"
        "1: j 1b\n.text\n");
extern char u_entry[];

static volatile u64 causes, nfaults;

/* machine mode: the user's registers kept across the handler */
void m_trap(void);
__asm__(".text\n.balign 4\nm_trap_entry:\n"
        "addi sp, sp, -64\n sd ra, 0(sp)\n sd a0, 8(sp)\n sd a1, 16(sp)\n sd a2, 24(sp)\n sd a7, 32(sp)\n"
        "sd t0, 40(sp)\n sd t1, 48(sp)\n sd t2, 56(sp)\n"
        "call m_trap\n"
        "ld ra, 0(sp)\n ld a0, 8(sp)\n ld a1, 16(sp)\n ld a2, 24(sp)\n ld a7, 32(sp)\n"
        "ld t0, 40(sp)\n ld t1, 48(sp)\n ld t2, 56(sp)\n addi sp, sp, 64\n mret\n");
extern char m_trap_entry[];

void m_trap(void)
{
    u64 cause = csr_read(mcause), va = csr_read(mtval);
    causes |= (cause & 0xff) << (8 * nfaults);
    nfaults++;
    if (cause == 13) { /* unmapped: hand out a page */
        pte_set(PT0, (va >> 12) & 511, pte_of(POOL, PTE_V | PTE_U | PTE_R | PTE_W | PTE_A | PTE_D));
        sfence_vma();
        return; /* retry the access */
    }
    if (cause == 15) { /* no D: set it, as software does on this core */
        pte_set(PT0, (va >> 12) & 511, pte_of(UNOD, PTE_V | PTE_U | PTE_R | PTE_W | PTE_A | PTE_D));
        sfence_vma();
        return;
    }
    u64 v = 0xdead0000ul | cause;
    if (cause == 8) { /* the ECALL: every store read back */
        u64 sum = peek(UDATA + 8) + peek(POOL + 16) + peek(UNOD);
        v = (sum & 0xffff) << 32 | causes;
    }
    *R_EXIT = v;
    for (;;) {
    }
}

int main(void)
{
    pte_set(PT2, 0, pte_of(PT1, PTE_V));
    pte_set(PT1, (UVA >> 21) & 511, pte_of(PT0, PTE_V));
    pte_set(PT0, 0, pte_of(u_entry, PTE_V | PTE_U | PTE_R | PTE_X | PTE_A));
    pte_set(PT0, 1, pte_of(UDATA, PTE_V | PTE_U | PTE_R | PTE_W | PTE_A | PTE_D));
    pte_set(PT0, 2, pte_of(UNOD, PTE_V | PTE_U | PTE_R | PTE_W | PTE_A));
    *(volatile u64 *)UDATA = 41;
    csr_write(mtvec, (u64)m_trap_entry);
    csr_write(satp, SATP_SV39 | (PT2 >> 12));
    sfence_vma();
    register u64 a0 __asm__("a0") = UVA + PAGE;     /* the data page */
    register u64 a1 __asm__("a1") = UVA + 3 * PAGE; /* past the two data pages: nothing there */
    register u64 a2 __asm__("a2") = UVA + 2 * PAGE; /* the page without D */
    csr_clear(mstatus, MSTATUS_MPP);                /* to U */
    csr_write(mepc, UVA);
    __asm__ volatile("mret" ::"r"(a0), "r"(a1), "r"(a2));
    return 1;
}
