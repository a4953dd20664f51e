/* Philox4x32-10 and the mover's GENERATE word (memory.md §11.7). */
#include "sysnode/mover/philox.h"
#include "support/test.h"

/* Random123 known-answer vectors (kat_vectors, philox4x32 10). */
static void kat_zero(void)
{
    uint32_t c[4] = {0, 0, 0, 0}, k[2] = {0, 0}, r[4];
    kh_philox4x32_10(c, k, r);
    CHECK_EQ(r[0], 0x6627e8d5);
    CHECK_EQ(r[1], 0xe169c58d);
    CHECK_EQ(r[2], 0xbc57ac4c);
    CHECK_EQ(r[3], 0x9b00dbd8);
}

static void kat_ones(void)
{
    uint32_t c[4] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, k[2] = {0xffffffff, 0xffffffff}, r[4];
    kh_philox4x32_10(c, k, r);
    CHECK_EQ(r[0], 0x408f276d);
    CHECK_EQ(r[1], 0x41c83b0e);
    CHECK_EQ(r[2], 0xa20bc7c6);
    CHECK_EQ(r[3], 0x6d5451fd);
}

static void kat_pi(void)
{
    uint32_t c[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, k[2] = {0xa4093822, 0x299f31d0}, r[4];
    kh_philox4x32_10(c, k, r);
    CHECK_EQ(r[0], 0xd16cfe09);
    CHECK_EQ(r[1], 0x94fdcceb);
    CHECK_EQ(r[2], 0x5001e420);
    CHECK_EQ(r[3], 0x24126ea1);
}

/* memory.md §11.7: GENERATE word at address 0, seed 0 (MSB first). */
static void generate_word_addr0_seed0(void)
{
    uint64_t w[4];
    kh_mover_gen_word(0, 0, w);
    CHECK_EQ(w[3], 0x074944b373a459f5ull);
    CHECK_EQ(w[2], 0xea2362496ad0c5ecull);
    CHECK_EQ(w[1], 0x9b00dbd8bc57ac4cull);
    CHECK_EQ(w[0], 0xe169c58d6627e8d5ull);
}

/* memory.md §11.7: seed 0x0123456789abcdef at address 0x20. */
static void generate_word_addr20_seed(void)
{
    uint64_t w[4];
    kh_mover_gen_word(0x20, 0x0123456789abcdefull, w);
    CHECK_EQ(w[3], 0x5cb4c92a304577bfull);
    CHECK_EQ(w[2], 0x5fe720cb49a122d1ull);
    CHECK_EQ(w[1], 0xb299da3f65401425ull);
    CHECK_EQ(w[0], 0x523e0d85adca1466ull);
}

/* The counter puts W[31:0] in c0 and {W[34:32], h} in c1 (§11.7): the word
 * at 2^37 (W = 2^32) differs from the word at 0, and half 1 of W equals the
 * Philox output for c1 = (W[34:32] << 1) | 1. */
static void generate_counter_layout(void)
{
    uint64_t a = 1ull << 37, w[4];
    kh_mover_gen_word(a, 7, w);
    uint32_t c[4] = {0, (1u << 1) | 1, 0, 0}, k[2] = {7, 0}, r[4];
    kh_philox4x32_10(c, k, r);
    CHECK_EQ(w[2], (uint64_t)r[1] << 32 | r[0]);
    CHECK_EQ(w[3], (uint64_t)r[3] << 32 | r[2]);
}

int main(void)
{
    KH_RUN(kat_zero);
    KH_RUN(kat_ones);
    KH_RUN(kat_pi);
    KH_RUN(generate_word_addr0_seed0);
    KH_RUN(generate_word_addr20_seed);
    KH_RUN(generate_counter_layout);
    return kh_test_end("t_node_philox");
}
