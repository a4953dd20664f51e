/* Sv39 with user pages (docs/rv64.md §6) on the flat harness, whose MMU is
 * the node wrapper's. Machine mode delegates ECALL from U and the three page
 * faults to S and enters S. S builds a three-level table: itself identity
 * mapped by a 1 GB superpage without U, and in the user half a 4 KB page of
 * user code (U R X), a user data page (U R W, A and D set), a data page
 * whose D is clear, and one page left unmapped. It turns translation on,
 * writes the user data through the user address with SUM set, and runs the
 * user code, which loads and stores its data page, loads from the unmapped
 * page (a load page fault: S maps a fresh page and retries), stores to it,
 * stores to the page without D (a store page fault: S sets D, as software
 * must here, and retries), and ends with an ECALL. S reads every store back
 * through its own mapping and asks M to end the run with
 * {faults taken [23:0], one cause a byte; the three values read back, summed [47:32]}. */
#include "kohaku_rv64.h"

#define UVA 0x400000ul /* user pages start here */
#define SYS_EXIT 93

static u64 pt2[512] __attribute__((aligned(4096)));
static u64 pt1[512] __attribute__((aligned(4096)));
static u64 pt0[512] __attribute__((aligned(4096)));
static u64 pool[3][512] __attribute__((aligned(4096)));  /* pages S hands out */
static u64 udata[512] __attribute__((aligned(4096), section(".udata")));
static u64 unod[512] __attribute__((aligned(4096), section(".udata")));

static volatile u64 causes, nfaults, next_page;

/* User code: a0 = its data page, a1 = the unmapped page, a2 = the page
 * without D (all user virtual addresses). */
__asm__(".section .utext, \"ax\"\n.balign 4\n.globl u_entry\nu_entry:\n"
        "ld t0, 0(a0)\n addi t0, t0, 1\n sd t0, 8(a0)\n"
        "ld t1, 0(a1)\n add t0, t0, t1\n sd t0, 16(a1)\n"
        "sd t0, 0(a2)\n"
        "li a7, 93\n mv a0, t0\n ecall\n"
        "1: j 1b\n.text\n");
extern char u_entry[], __utext_start[];

/* the user pages sit at UVA + their offset from the start of .utext */
static u64 uva_of(const void *pa) { return UVA + ((u64)pa - (u64)__utext_start); }
static void map_user(const void *pa, u64 bits) { pt0[(uva_of(pa) >> 12) & 511] = pte_of(pa, PTE_V | PTE_U | bits); }

void s_trap(void);
__asm__(".text\n.balign 4\ns_trap_entry:\n"
        "addi sp, sp, -64\n sd ra, 0(sp)\n sd a0, 8(sp)\n sd a1, 16(sp)\n sd a2, 24(sp)\n sd a7, 32(sp)\n"
        "sd t0, 40(sp)\n sd t1, 48(sp)\n sd t2, 56(sp)\n"
        "call s_trap\n"
        "ld ra, 0(sp)\n ld a0, 8(sp)\n ld a1, 16(sp)\n ld a2, 24(sp)\n ld a7, 32(sp)\n"
        "ld t0, 40(sp)\n ld t1, 48(sp)\n ld t2, 56(sp)\n addi sp, sp, 64\n sret\n");
extern char s_trap_entry[];

static void m_exit(u64 v)
{
    register u64 a0 __asm__("a0") = v;
    register u64 a7 __asm__("a7") = SYS_EXIT;
    __asm__ volatile("ecall" ::"r"(a0), "r"(a7));
}

void s_trap(void)
{
    u64 cause = csr_read(scause), va = csr_read(stval);
    causes |= (cause & 0xff) << (8 * nfaults);
    nfaults++;
    if (cause == 13 || cause == 12) { /* unmapped: hand out a page */
        pt0[(va >> 12) & 511] = pte_of(pool[next_page++], PTE_V | PTE_U | PTE_R | PTE_W | PTE_A | PTE_D);
        sfence_vma();
        return; /* retry the access */
    }
    if (cause == 15) { /* no D: set it, as software does on this core */
        pt0[(va >> 12) & 511] |= PTE_D;
        sfence_vma();
        return;
    }
    /* the ECALL: read every store back through the kernel's identity map */
    u64 sum = udata[1] + pool[0][2] + unod[0];
    m_exit((sum & 0xffff) << 32 | causes);
}

static void s_main(void)
{
    pt2[0] = pte_of(pt1, PTE_V);
    pt1[(UVA >> 21) & 511] = pte_of(pt0, PTE_V);
    pt2[2] = pte_of(0x80000000ul, PTE_V | PTE_R | PTE_W | PTE_X | PTE_A | PTE_D); /* 1 GB, kernel only */
    map_user(u_entry, PTE_R | PTE_X | PTE_A);
    map_user(udata, PTE_R | PTE_W | PTE_A | PTE_D);
    map_user(unod, PTE_R | PTE_W | PTE_A);
    csr_write(stvec, (u64)s_trap_entry);
    csr_write(satp, SATP_SV39 | ((u64)pt2 >> 12));
    sfence_vma();
    csr_set(sstatus, MSTATUS_SUM);
    *(volatile u64 *)uva_of(udata) = 41; /* through the user mapping: needs SUM */
    csr_clear(sstatus, MSTATUS_SUM);
    u64 unmapped = uva_of(udata) + 2 * PAGE; /* past the two data pages: nothing there */
    register u64 a0 __asm__("a0") = uva_of(udata);
    register u64 a1 __asm__("a1") = unmapped;
    register u64 a2 __asm__("a2") = uva_of(unod);
    csr_clear(sstatus, MSTATUS_SPP);
    csr_write(sepc, uva_of(u_entry));
    __asm__ volatile("sret" ::"r"(a0), "r"(a1), "r"(a2));
}

/* machine mode: the exit service */
void m_trap(u64 v);
__asm__(".text\n.balign 4\nm_trap_entry:\n call m_trap\n1: j 1b\n");
extern char m_trap_entry[];
void m_trap(u64 v)
{
    *(volatile u64 *)0x10000008ul = csr_read(mcause) == 9 ? v : 0xdead0000ul | csr_read(mcause);
}

int main(void)
{
    csr_write(mtvec, (u64)m_trap_entry);
    csr_write(medeleg, (1ul << 8) | (1ul << 12) | (1ul << 13) | (1ul << 15));
    csr_clear(mstatus, MSTATUS_MPP);
    csr_set(mstatus, PRV_S << 11);
    csr_write(mepc, (u64)s_main);
    __asm__ volatile("mret");
    return 1;
}
