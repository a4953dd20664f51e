/* A program for the RV64 mesh compute unit (docs/rv64.md §11): its table
 * arrives in the scratchpad with the image (CU_DATA), the weighted sum
 * sum(i * p[i]) over the first 16 primes is the exit word the completion
 * carries, and one console line goes out through control +0x08. */
#include "kohaku_rv64.h"

static const u64 primes[16] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};

int main(void)
{
    u64 s = 0;
    for (u64 i = 0; i < 16; i++) s += (i + 1) * primes[i];
    const char *msg = "pe ok\n";
    while (*msg) *R_CONSOLE = (u64)*msg++;
    return (int)s;
}
