/* The node processor drives the memory mover (docs/rv64.md §8): a source
 * block written to DRAM through the L1 and flushed (DCACHE), a COPY of it
 * to another DRAM address set up with one store per mover register and
 * started with GO, the mover status register polled until the move is
 * counted, then the destination read back past the L1 (the uncached alias)
 * and checked word by word. Exit 0 when every word arrived; otherwise the
 * index of the first wrong doubleword + 1. */
#include "kohaku_rv64.h"

#define WORDS 48                  /* 32-byte words moved */
#define SRC 0x10100000ul          /* node DRAM */
#define DST 0x10200000ul
#define DCACHE ((volatile u64 *)(CTRL_BASE + 0x1c8))

static u64 pattern(u64 i) { return 0x9e3779b97f4a7c15ul * (i + 1) ^ (i << 40); }

static void say(const char *s)
{
    while (*s) *R_CONSOLE = (u64)*s++;
}

/* one mover register: the control region's full window (0x100 + reg) */
static void mv(unsigned reg, u64 v) { *(volatile u64 *)(CTRL_BASE + 0x100 + reg) = v; }

int main(void)
{
    volatile u64 *src = (volatile u64 *)SRC;
    for (u64 i = 0; i < 4 * WORDS; i++) src[i] = pattern(i); /* cached: dirty lines in the L1 */
    *DCACHE = 1;                                              /* write them back */
    (void)src[0];                                             /* a cached access waits for the sweep */
    while (*DCACHE & 1) {
    }
    u64 before = *R_MVSTAT & 0x0ffffffful;
    /* walker headers: sel [0], base [43:4], ndim [46:44] */
    mv(0x10, 0ul | SRC << 4 | 1ul << 44);
    mv(0x10, 1ul | DST << 4 | 1ul << 44);
    /* dimension 0 of each walker: sel [0], dim [3:1], count [19:4], stride [51:20]; then its axis (none) */
    mv(0x18, 0ul | (u64)WORDS << 4 | 32ul << 20);
    mv(0x20, 0);
    mv(0x18, 1ul | (u64)WORDS << 4 | 32ul << 20);
    mv(0x20, 0);
    /* CTRL: mode COPY, ewidth 1, coalesce (flags bit 3), GO [16] */
    mv(0x00, 0ul | 1ul << 3 | 1ul << 11 | 1ul << 16);
    while ((*R_MVSTAT & 0x0ffffffful) == before) {
    }
    if (*R_MVSTAT >> 28 & 0xf) return 0x1000; /* the mover faulted */
    volatile u64 *dst = (volatile u64 *)UNCACHED(DST);
    for (u64 i = 0; i < 4 * WORDS; i++)
        if (dst[i] != pattern(i)) return (int)i + 1;
    say("mover copy ok\n");
    return 0;
}
