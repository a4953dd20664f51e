#include "sysnode/mover/philox.h"

#include "kohaku/addr.h"

/* Round constants (memory.md §11.7). */
#define PHILOX_M0 UINT32_C(0xD2511F53) /* multiplier of c0 */
#define PHILOX_M1 UINT32_C(0xCD9E8D57) /* multiplier of c2 */
#define PHILOX_W0 UINT32_C(0x9E3779B9) /* key bump of k0 (golden ratio) */
#define PHILOX_W1 UINT32_C(0xBB67AE85) /* key bump of k1 (sqrt 3 - 1) */

void kh_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0, p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

void kh_mover_gen_word(uint64_t addr, uint64_t seed, uint64_t out[4])
{
    uint64_t w = kh_addr_wrap(addr) >> 5; /* 35-bit word address */
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    for (unsigned h = 0; h < 2; h++) {
        /* counter: c0 = W[31:0], c1 = {W[34:32], h}, c2 = c3 = 0 */
        uint32_t ctr[4] = {(uint32_t)w, (uint32_t)(((w >> 32) << 1) | h), 0, 0}, r[4];
        kh_philox4x32_10(ctr, key, r);
        out[2 * h] = (uint64_t)r[1] << 32 | r[0];
        out[2 * h + 1] = (uint64_t)r[3] << 32 | r[2];
    }
}
