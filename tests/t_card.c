/* The host window (control.md §9): the address map, alignment and unmapped
 * errors, blocks as runs of little-endian words, the host-link cost. The
 * memory window is a plain byte array standing in for the node. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/card.h"
#include "support/test.h"

typedef struct fake_mem {
    uint8_t b[1 << 16];
    uint64_t base; /* inside address of b[0] */
    unsigned calls;
} fake_mem;

static int fm_read(void *ctx, uint64_t inside, uint8_t *bytes, size_t n, char *err, size_t errlen)
{
    fake_mem *m = ctx;
    m->calls++;
    if (inside < m->base || inside - m->base + n > sizeof m->b) {
        snprintf(err, errlen, "fake memory: 0x%llx out of range", (unsigned long long)inside);
        return -1;
    }
    memcpy(bytes, m->b + (inside - m->base), n);
    return 0;
}

static int fm_write(void *ctx, uint64_t inside, const uint8_t *bytes, size_t n, char *err, size_t errlen)
{
    fake_mem *m = ctx;
    m->calls++;
    if (inside < m->base || inside - m->base + n > sizeof m->b) {
        snprintf(err, errlen, "fake memory: 0x%llx out of range", (unsigned long long)inside);
        return -1;
    }
    memcpy(m->b + (inside - m->base), bytes, n);
    return 0;
}

typedef struct bench {
    kh_sim *sim;
    kh_card *card;
    kh_orch *orch;
    fake_mem *mem;
} bench;

/* A card on a simulation with parameters p. */
static bench make_params(const kh_params *p)
{
    bench b;
    b.sim = kh_sim_new(p);
    char err[256];
    kh_orch_cfg cfg = {.x = 0, .y = 1, .grid_lo = 1, .grid_hi = 2};
    b.orch = kh_orch_new(b.sim, &cfg, NULL, err, sizeof err);
    b.card = kh_card_new(b.sim, err, sizeof err);
    b.mem = calloc(1, sizeof *b.mem);
    b.mem->base = 0x1000;
    kh_card_mem mem = {.ctx = b.mem, .read = fm_read, .write = fm_write};
    if (kh_card_attach_mesh(b.card, 0, b.orch, &mem, err, sizeof err)) printf("attach: %s\n", err);
    return b;
}

/* A card whose host link costs wr / rd cycles per transaction and beat
 * cycles per further burst beat (0, 0, 0: the zero-time host). */
static bench make_link(uint64_t wr, uint64_t rd, uint64_t beat)
{
    kh_params p;
    kh_params_default(&p);
    p.host_write_cycles = wr;
    p.host_read_cycles = rd;
    p.host_beat_cycles = beat;
    return make_params(&p);
}

static bench make(uint64_t host_cycles) { return make_link(host_cycles, host_cycles, 0); }

static void done(bench *b)
{
    kh_card_free(b->card);
    kh_sim_destroy(b->sim);
    free(b->mem);
}

static void unaligned_access_is_refused_naming_the_address(void)
{
    bench b = make(0);
    char err[512];
    uint64_t v;
    CHECK_EQ(kh_card_write64(b.card, 0x800044, 1, err, sizeof err), -1);
    CHECK(strstr(err, "0x800044") && strstr(err, "aligned"));
    CHECK_EQ(kh_card_read64(b.card, 0x10000001004, &v, err, sizeof err), -1);
    CHECK(strstr(err, "0x10000001004") != NULL);
    done(&b);
}

static void unmapped_access_is_refused_naming_the_address(void)
{
    bench b = make(0);
    char err[512];
    uint64_t v;
    uint64_t bad[] = {0x10000,           /* past the command window */
                      0x810000,          /* mesh 1's control window: no mesh 1 */
                      0x10010000,        /* past the alias */
                      0x40000000,        /* nothing */
                      0x20000000000,     /* mesh 1's memory window */
                      0x80000000000};    /* past 43 bits' windows */
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[32];
        snprintf(want, sizeof want, "0x%llx", (unsigned long long)bad[i]);
        CHECK_EQ(kh_card_read64(b.card, bad[i], &v, err, sizeof err), -1);
        CHECK(strstr(err, want) && strstr(err, "unmapped"));
        CHECK_EQ(kh_card_write64(b.card, bad[i], 0, err, sizeof err), -1);
    }
    done(&b);
}

static void mesh_0_window_and_alias_are_the_same_registers(void)
{
    bench b = make(0);
    char err[256];
    uint64_t v = 0;
    CHECK_EQ(kh_card_write64(b.card, 0x800048, 0x21, err, sizeof err), 0); /* PROG_LEN */
    kh_sim_run(b.sim, 1);
    CHECK_EQ(kh_card_read64(b.card, 0x10000048, &v, err, sizeof err), 0);
    CHECK_EQ(v, 0x21);
    CHECK_EQ(kh_card_write64(b.card, 0x10000068, 0x5, err, sizeof err), 0); /* PROG_BASE via the alias */
    kh_sim_run(b.sim, 1);
    CHECK_EQ(kh_card_read64(b.card, kh_host_ctrl(0, KH_ORCH_PROG_BASE), &v, err, sizeof err), 0);
    CHECK_EQ(v, 5);
    CHECK_EQ(kh_card_read64(b.card, 0x800010, &v, err, sizeof err), 0);
    CHECK_EQ(v, 0x0000000201040120u); /* CAPS */
    done(&b);
}

static void canonical_memory_addresses(void)
{
    /* control.md §9.2 worked examples: mesh 2, L = 0x1000 -> 0x320_0000_1000;
     * mesh 2 staging -> 0x3A0_0000_0000 + S. */
    CHECK_EQ(kh_host_dram(2, 0x1000), 0x32000001000u);
    CHECK_EQ(kh_host_staging(2, 0), 0x3A000000000u);
    CHECK_EQ(kh_host_ctrl(3, 0x58), 0x830058);
}

static void memory_words_are_little_endian(void)
{
    bench b = make(0);
    char err[256];
    CHECK_EQ(kh_card_write64(b.card, kh_host_dram(0, 0x1008), 0x8877665544332211u, err, sizeof err), 0);
    CHECK_EQ(b.mem->b[8], 0x11);
    CHECK_EQ(b.mem->b[15], 0x88);
    CHECK_EQ(b.mem->b[7], 0); /* exactly 8 bytes changed (control.md §9.3) */
    CHECK_EQ(b.mem->b[16], 0);
    uint64_t v;
    CHECK_EQ(kh_card_read64(b.card, kh_host_dram(0, 0x1008), &v, err, sizeof err), 0);
    CHECK_EQ(v, 0x8877665544332211u);
    done(&b);
}

static void a_block_is_the_same_run_of_word_accesses(void)
{
    bench a = make(0), c = make(0);
    char err[256];
    uint8_t bytes[64];
    for (unsigned i = 0; i < 64; i++) bytes[i] = (uint8_t)(i * 7 + 1);
    CHECK_EQ(kh_card_write_block(a.card, kh_host_dram(0, 0x1020), bytes, 64, err, sizeof err), 0);
    for (unsigned k = 0; k < 8; k++) {
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--) v = (v << 8) | bytes[8 * k + (unsigned)i];
        CHECK_EQ(kh_card_write64(c.card, kh_host_dram(0, 0x1020 + 8 * k), v, err, sizeof err), 0);
    }
    CHECK(!memcmp(a.mem->b, c.mem->b, sizeof a.mem->b));
    uint8_t back[64];
    CHECK_EQ(kh_card_read_block(c.card, kh_host_dram(0, 0x1020), back, 64, err, sizeof err), 0);
    CHECK(!memcmp(back, bytes, 64));
    done(&a);
    done(&c);
}

static void a_block_must_be_whole_words(void)
{
    bench b = make(0);
    char err[256];
    uint8_t bytes[12] = {0};
    CHECK_EQ(kh_card_write_block(b.card, kh_host_dram(0, 0x1000), bytes, 12, err, sizeof err), -1);
    CHECK(strstr(err, "12 bytes") != NULL);
    done(&b);
}

static void a_refused_block_changes_nothing(void)
{
    bench b = make(0);
    char err[256];
    uint8_t bytes[32];
    memset(bytes, 0xAB, sizeof bytes);
    /* runs from the last words of the command window into unmapped space */
    CHECK_EQ(kh_card_write_block(b.card, 0xFFF0, bytes, 32, err, sizeof err), -1);
    CHECK(strstr(err, "0x10000") != NULL);
    done(&b);
}

static void host_access_cost_advances_the_clock(void)
{
    bench b = make_link(5, 3, 2);
    char err[256];
    uint64_t v;
    kh_cycle t = kh_sim_now(b.sim);
    CHECK_EQ(kh_card_write64(b.card, 0x800048, 1, err, sizeof err), 0);
    CHECK_EQ(kh_sim_now(b.sim), t + 5);
    CHECK_EQ(kh_card_read64(b.card, 0x800048, &v, err, sizeof err), 0);
    CHECK_EQ(v, 1); /* the write landed during its 5 cycles */
    CHECK_EQ(kh_sim_now(b.sim), t + 8);
    /* A memory block is one burst: one transaction and 3 further beats. */
    uint8_t bytes[32] = {0};
    CHECK_EQ(kh_card_write_block(b.card, kh_host_dram(0, 0x1000), bytes, 32, err, sizeof err), 0);
    CHECK_EQ(kh_sim_now(b.sim), t + 8 + 5 + 3 * 2);
    CHECK_EQ(kh_card_read_block(b.card, kh_host_dram(0, 0x1000), bytes, 32, err, sizeof err), 0);
    CHECK_EQ(kh_sim_now(b.sim), t + 8 + 11 + 3 + 3 * 2);
    /* A control-window block is single-beat words: two writes. */
    CHECK_EQ(kh_card_write_block(b.card, 0x800040, bytes, 16, err, sizeof err), 0);
    CHECK_EQ(kh_sim_now(b.sim), t + 28 + 2 * 5);
    done(&b);
}

static void host_access_cycles_add_to_every_access(void)
{
    kh_params p;
    kh_params_default(&p);
    p.host_write_cycles = 5;
    p.host_read_cycles = 3;
    p.host_access_cycles = 10;
    bench b = make_params(&p);
    char err[256];
    uint64_t v;
    kh_cycle t = kh_sim_now(b.sim);
    CHECK_EQ(kh_card_write64(b.card, 0x800048, 1, err, sizeof err), 0);
    CHECK_EQ(kh_card_read64(b.card, 0x800048, &v, err, sizeof err), 0);
    CHECK_EQ(kh_sim_now(b.sim), t + 15 + 13);
    done(&b);
}

static void a_burst_never_crosses_4_kib(void)
{
    bench b = make_link(10, 10, 1);
    char err[256];
    static uint8_t bytes[8192];
    kh_cycle t = kh_sim_now(b.sim);
    /* 0x1f80 .. 0x2080: 16 beats up to the 4 KiB line, 16 after it: two bursts */
    CHECK_EQ(kh_card_write_block(b.card, kh_host_dram(0, 0x1f80), bytes, 256, err, sizeof err), 0);
    CHECK_EQ(kh_sim_now(b.sim), t + 2 * (10 + 15));
    /* 8 KiB aligned: 1024 beats in bursts of 256 */
    t = kh_sim_now(b.sim);
    CHECK_EQ(kh_card_write_block(b.card, kh_host_dram(0, 0x2000), bytes, 8192, err, sizeof err), 0);
    CHECK_EQ(kh_sim_now(b.sim), t + 4 * (10 + 255));
    done(&b);
}

static void a_read_of_an_idle_machine_is_settled(void)
{
    bench b = make(4);
    char err[256];
    uint64_t v;
    CHECK_EQ(kh_card_read64(b.card, 0x800010, &v, err, sizeof err), 0);
    CHECK(kh_card_read_settled(b.card));
    done(&b);
}

static void zero_cost_accesses_take_no_time(void)
{
    bench b = make(0);
    char err[256];
    uint64_t v;
    kh_cycle t = kh_sim_now(b.sim);
    for (int i = 0; i < 10; i++) kh_card_read64(b.card, 0x800008, &v, err, sizeof err);
    CHECK_EQ(kh_sim_now(b.sim), t);
    done(&b);
}

/* kh_card_poll64 is the loop "run step cycles, read, test" (card.h): a
 * match ends it after whole steps and reads, the limit after the first
 * read past it, a refused address at once. */
static void a_poll_is_steps_and_reads_until_a_match_or_the_limit(void)
{
    bench b = make_link(5, 3, 2);
    char err[256];
    uint64_t v = 0;
    CHECK_EQ(kh_card_write64(b.card, 0x800048, 1, err, sizeof err), 0);
    kh_cycle t = kh_sim_now(b.sim);
    CHECK_EQ(kh_card_poll64(b.card, 0x800048, 4, ~UINT64_C(0), 1, 100, &v, err, sizeof err), 0);
    CHECK_EQ(v, 1);
    CHECK_EQ(kh_sim_now(b.sim), t + 4 + 3); /* one step, one read */
    t = kh_sim_now(b.sim);
    /* never 2: reads at 7, 14, 21 cycles; 21 is the first past 20 */
    CHECK_EQ(kh_card_poll64(b.card, 0x800048, 4, ~UINT64_C(0), 2, 20, &v, err, sizeof err), 1);
    CHECK_EQ(v, 1);
    CHECK_EQ(kh_sim_now(b.sim), t + 21);
    /* under a mask: bit 0 set, want 1 */
    CHECK_EQ(kh_card_poll64(b.card, 0x800048, 1, 1, 1, 0, &v, err, sizeof err), 0);
    CHECK_EQ(kh_card_poll64(b.card, 0x800049, 4, 1, 1, 100, &v, err, sizeof err), -1); /* unaligned */
    CHECK(strstr(err, "0x800049") != NULL);
    done(&b);
}

/* The same polls with a stand-in for several processes (one process that
 * owns every mesh, a share that moves nothing): the merged loop of
 * kh_card_poll64 (a read's link time and the next step as one run) must
 * end each poll where the plain loop does, with its code and value. */
static int own_all(void *ctx, unsigned mesh)
{
    (void)ctx;
    (void)mesh;
    return 1;
}
static void share_nothing(void *ctx, unsigned mesh, void *bytes, size_t n)
{
    (void)ctx;
    (void)mesh;
    (void)bytes;
    (void)n;
}

static void merged_poll_ends_where_the_plain_loop_does(void)
{
    static const struct {
        kh_cycle step, limit;
        uint64_t mask, want;
    } polls[] = {
        {4, 100, ~UINT64_C(0), 1}, /* a match at the first read */
        {4, 20, ~UINT64_C(0), 2},  /* the limit: the first read past it */
        {1, 0, 1, 1},              /* limit 0, a match under a mask */
        {7, 3, ~UINT64_C(0), 5},   /* the limit inside the first read's link */
        {0, 9, ~UINT64_C(0), 5},   /* step 0: reads back to back */
        {3, 1000, 2, 2},           /* bit 1 never set: the limit after many reads */
    };
    kh_card_dist d = {.owns = own_all, .share = share_nothing};
    for (size_t i = 0; i < sizeof polls / sizeof polls[0]; i++) {
        for (uint64_t addr = 0x800048; addr <= 0x800049; addr++) { /* 0x800049: refused */
            bench one = make_link(5, 3, 2), many = make_link(5, 3, 2);
            kh_card_set_dist(many.card, &d);
            char e1[256] = "", e2[256] = "";
            uint64_t v1 = 0, v2 = 0;
            CHECK_EQ(kh_card_write64(one.card, 0x800048, 1, e1, sizeof e1), 0);
            CHECK_EQ(kh_card_write64(many.card, 0x800048, 1, e2, sizeof e2), 0);
            int r1 = kh_card_poll64(one.card, addr, polls[i].step, polls[i].mask, polls[i].want, polls[i].limit, &v1,
                                    e1, sizeof e1);
            int r2 = kh_card_poll64(many.card, addr, polls[i].step, polls[i].mask, polls[i].want, polls[i].limit,
                                    &v2, e2, sizeof e2);
            CHECK_EQ(r2, r1);
            CHECK_EQ(r1, addr == 0x800049 ? -1 : polls[i].want == 1 ? 0 : 1);
            CHECK_EQ(kh_sim_now(many.sim), kh_sim_now(one.sim));
            if (r1 >= 0) CHECK_EQ(v2, v1);
            else CHECK(strcmp(e1, e2) == 0);
            done(&one);
            done(&many);
        }
    }
}

int main(void)
{
    KH_RUN(unaligned_access_is_refused_naming_the_address);
    KH_RUN(unmapped_access_is_refused_naming_the_address);
    KH_RUN(mesh_0_window_and_alias_are_the_same_registers);
    KH_RUN(canonical_memory_addresses);
    KH_RUN(memory_words_are_little_endian);
    KH_RUN(a_block_is_the_same_run_of_word_accesses);
    KH_RUN(a_block_must_be_whole_words);
    KH_RUN(a_refused_block_changes_nothing);
    KH_RUN(host_access_cost_advances_the_clock);
    KH_RUN(a_burst_never_crosses_4_kib);
    KH_RUN(host_access_cycles_add_to_every_access);
    KH_RUN(a_read_of_an_idle_machine_is_settled);
    KH_RUN(zero_cost_accesses_take_no_time);
    KH_RUN(a_poll_is_steps_and_reads_until_a_match_or_the_limit);
    KH_RUN(merged_poll_ends_where_the_plain_loop_does);
    return kh_test_end("t_card");
}
