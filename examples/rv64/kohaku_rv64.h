/* RV64 system core programs (docs/rv64.md): CSR access, the Sv39 entry
 * bits, the node's control region and dispatch mailbox, the consoles.
 * Freestanding: no library. */
#ifndef KOHAKU_RV64_H_PROG
#define KOHAKU_RV64_H_PROG

typedef unsigned long u64;
typedef unsigned int u32;
typedef unsigned char u8;

#define csr_read(name) ({ u64 v_; __asm__ volatile("csrr %0, " #name : "=r"(v_)); v_; })
#define csr_write(name, v) __asm__ volatile("csrw " #name ", %0" ::"r"((u64)(v)))
#define csr_set(name, v) __asm__ volatile("csrs " #name ", %0" ::"r"((u64)(v)))
#define csr_clear(name, v) __asm__ volatile("csrc " #name ", %0" ::"r"((u64)(v)))
#define MTIMECMP 0x7c0 /* the core's own machine CSR (docs/rv64.md §2) */
#define csr_read_mtimecmp() ({ u64 v_; __asm__ volatile("csrr %0, 0x7c0" : "=r"(v_)); v_; })
#define csr_write_mtimecmp(v) __asm__ volatile("csrw 0x7c0, %0" ::"r"((u64)(v)))

/* mstatus (docs/rv64.md §2) */
#define MSTATUS_SIE (1ul << 1)
#define MSTATUS_MIE (1ul << 3)
#define MSTATUS_SPIE (1ul << 5)
#define MSTATUS_MPIE (1ul << 7)
#define MSTATUS_SPP (1ul << 8)
#define MSTATUS_MPP (3ul << 11)
#define MSTATUS_SUM (1ul << 18)
#define MSTATUS_MXR (1ul << 19)
#define PRV_U 0ul
#define PRV_S 1ul
#define PRV_M 3ul

/* Sv39 (docs/rv64.md §6) */
#define PTE_V (1ul << 0)
#define PTE_R (1ul << 1)
#define PTE_W (1ul << 2)
#define PTE_X (1ul << 3)
#define PTE_U (1ul << 4)
#define PTE_A (1ul << 6)
#define PTE_D (1ul << 7)
#define PTE_PPN_SHIFT 10
#define SATP_SV39 (8ul << 60)
#define PAGE 4096ul
#define pte_of(pa, bits) ((((u64)(pa)) >> 12 << PTE_PPN_SHIFT) | (bits))
#define sfence_vma() __asm__ volatile("sfence.vma" ::: "memory")

/* the flat harness's console (docs/rv64.md §7) */
#define FLAT_CONSOLE ((volatile u64 *)0x10000000ul)

/* the node's control region (docs/rv64.md §8) */
#define CTRL_BASE 0x00020000ul
#define R_EXIT ((volatile u64 *)(CTRL_BASE + 0x00))
#define R_CONSOLE ((volatile u64 *)(CTRL_BASE + 0x08))
#define R_DBELL ((volatile u64 *)(CTRL_BASE + 0x10))
#define R_SATP ((volatile u64 *)(CTRL_BASE + 0x18))
#define R_MVSTAT ((volatile u64 *)(CTRL_BASE + 0x20))
#define R_DBCNT ((volatile u64 *)(CTRL_BASE + 0x28))
#define MV_CFG(off) ((volatile u64 *)(CTRL_BASE + 0x80 + (off)))   /* mover register off (0x00-0x3F) */
#define IL_CFG(i) ((volatile u64 *)(CTRL_BASE + 0xC0 + 8 * (i)))  /* interlink register 0x80 + 8i */
#define MVSTAT_BUSY (1ul << 32)

/* the dispatch mailbox (docs/rv64.md §9) */
#define MB(i) ((volatile u64 *)(CTRL_BASE + 0x40 + 8 * (i)))
#define MB_DST MB(0)
#define MB_ARG(k) MB(1 + (k))
#define MB_GO MB(5)
#define MB_STAT MB(6)
#define MB_HEAD MB(7)
#define MB_STAT_COUNT(s) ((s) & 0x1f)
#define MB_STAT_OFFERED (1ul << 15)
#define MB_STAT_OVERFLOW (1ul << 31)
#define CQ_ARG(w) (((w) >> 8) & 0xfffffffful)
#define CQ_CODE(w) (((w) >> 40) & 0xfful)
#define CQ_SRC_X(w) (((w) >> 48) & 0xful)
#define CQ_SRC_Y(w) (((w) >> 52) & 0xful)

/* node memory: DRAM offsets in the node range, cached; bit 38 the uncached alias */
#define NODE_DRAM(off) (0x10000000ul + (off))
#define UNCACHED(pa) ((pa) | (1ul << 38))

#endif
