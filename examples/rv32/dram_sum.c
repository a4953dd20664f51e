/* Writes n words (n = the argument) to DRAM offset 0x1000 through the L1,
 * flushes, invalidates, reads them back and returns their sum: the
 * "flush before you finish" idiom of cpu.md §11 (dotsum). */
#include "kohaku_rv32.h"

uint32_t main(uint32_t n);
uint32_t main(uint32_t n)
{
    volatile uint32_t *d = (volatile uint32_t *)(uintptr_t)(KR_DRAM + 0x1000);
    for (uint32_t i = 0; i < n; i++) d[i] = 3 * i + 1;
    CTL_FLUSH = 1;
    CTL_INVAL = 1;
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; i++) s += d[i];
    return s;
}
