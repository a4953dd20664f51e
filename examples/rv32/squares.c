/* sum of i*i for i < n (n = the kick's argument): multiplies through
 * libgcc's __mulsi3 on RV32I, a table in .rodata and a counter in .data,
 * both in the scratchpad. */
#include "kohaku_rv32.h"

static const uint32_t bias[4] = {0, 1, 2, 3};
static uint32_t calls = 7;
static uint32_t zeroed;

__attribute__((noinline)) static uint32_t sq(uint32_t i) { return i * i; }

uint32_t main(uint32_t n);
uint32_t main(uint32_t n)
{
    uint32_t s = zeroed;
    for (uint32_t i = 0; i < n; i++) s += sq(i);
    calls++;
    return s + bias[calls & 3] - 0; /* calls = 8: bias[0] */
}
