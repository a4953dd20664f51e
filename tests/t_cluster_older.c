/* The older form's signature (cluster.md §11, docs/diagnostics.md): FILLs
 * of FP16 tensors on a machine without the read-path quantiser raise the
 * diagnostic older_read_path at the DRAIN; MXFP7 entries (the quantiser's
 * output, numerics.md §2.2: the four lane scales in every word), one FP16
 * side only, and random bits do not. And what every drain counts: FP16
 * values written out, saturated at +-65504 or non-finite (numerics.md §7).
 * Expected values: the rules of the spec, and the unit's memory read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu/units/cluster/cluster_int.h"
#include "kohaku/trace.h"
#include "support/clbench.h"
#include "support/test.h"

static uint64_t rs = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

/* One element of a tensor as a compiler uploads it: an FP16 number of
 * magnitude 2^-5 .. 2^2 (a unit normal's range), either sign, one in ten
 * zero. */
static uint16_t tensor_f16(void)
{
    uint64_t r = rnd();
    if (r % 10 == 0) return 0;
    return (uint16_t)((r >> 4 & 1) << 15 | (10 + (r >> 5) % 8) << 10 | (r >> 9) % 1024);
}

/* n 256-bit words of FP16 elements (element e of a word at [16e+15:16e]). */
static void tensor_words(uint64_t *w, unsigned nwords)
{
    for (unsigned i = 0; i < 4 * nwords; i++)
        w[i] = (uint64_t)tensor_f16() | (uint64_t)tensor_f16() << 16 | (uint64_t)tensor_f16() << 32 |
               (uint64_t)tensor_f16() << 48;
}

/* An MXFP7 entry as the quantiser makes it from 8 FP16 beats (mode 0 the A
 * packing, 1 the B packing). */
static void quantised_entry(uint64_t out[16], unsigned mode)
{
    uint64_t in[32];
    tensor_words(in, 8);
    kh_quant_entry(in, mode, out);
}

/* ---- the entry judgement ---- */

/* FP16 words of a tensor are FP16 entries; what the quantiser makes of
 * such words is not (its scales are in every word) */
static void fp16_words_are_judged_fp16_and_quantised_entries_not(void)
{
    unsigned fp16 = 0, quant = 0;
    for (unsigned i = 0; i < 200; i++) {
        uint64_t w[16];
        tensor_words(w, 4);
        fp16 += (unsigned)kh_cl_entry_fp16(w);
        quantised_entry(w, i & 1);
        quant += (unsigned)kh_cl_entry_fp16(w);
    }
    CHECK_EQ(fp16, 200);
    CHECK_EQ(quant, 0);
}

/* random bits spread over every exponent: none of them (10 000 entries) */
static void random_bits_are_not_fp16_entries(void)
{
    unsigned n = 0;
    for (unsigned i = 0; i < 10000; i++) {
        uint64_t w[16];
        for (unsigned k = 0; k < 16; k++) w[k] = rnd();
        n += (unsigned)kh_cl_entry_fp16(w);
    }
    CHECK_EQ(n, 0);
}

/* the rules one at a time: equal scale bytes in all four words, a NaN or an
 * Inf (exponent 31), fewer than 16 nonzero halves */
static void each_rule_of_the_judgement(void)
{
    uint64_t w[16];
    tensor_words(w, 4);
    CHECK(kh_cl_entry_fp16(w));
    uint64_t same[16];
    memcpy(same, w, sizeof same);
    for (unsigned k = 1; k < 4; k++) same[4 * k] = (same[4 * k] & ~0xFFFFFFFFull) | (same[0] & 0xFFFFFFFFull);
    CHECK(!kh_cl_entry_fp16(same)); /* [31:0] of every word alike: the entry's scales */
    uint64_t nan[16];
    memcpy(nan, w, sizeof nan);
    nan[9] = (nan[9] & ~0xFFFF0000ull) | 0x7E000000ull; /* one half a NaN */
    CHECK(!kh_cl_entry_fp16(nan));
    nan[9] = (nan[9] & ~0xFFFF0000ull) | 0xFC000000ull; /* -Inf */
    CHECK(!kh_cl_entry_fp16(nan));
    uint64_t sparse[16] = {0};
    static const uint64_t low[4] = {0x3C00, 0x4000, 0x3800, 0x4200}; /* 1, 2, 0.5, 3: [31:0] differ */
    for (unsigned k = 0; k < 4; k++) sparse[4 * k] = low[k];
    for (unsigned k = 0; k < 11; k++) sparse[4 * (k % 4) + 1 + k / 4] |= 0x3C00ull << (16 * (k % 3)); /* 11 more */
    CHECK(!kh_cl_entry_fp16(sparse)); /* 15 nonzero halves: too few to judge */
    sparse[15] |= 0x3C00ull << 48;
    CHECK(kh_cl_entry_fp16(sparse)); /* 16: judged, and FP16 */
}

/* ---- on the unit bench ---- */

enum { GM = 2, GN = 2, NK = 2, NA = GM * NK, NB = GN * NK };
#define A_AT 0x0
#define B_AT 0x10000
#define C_AT 0x20000

/* operand side s (0 A, 1 B) of n entries in memory at addr: FP16 words
 * (the older compiler's upload, read verbatim) or quantised entries */
static void put_side(kh_ubench *b, uint64_t addr, unsigned n, int fp16, unsigned mode)
{
    uint64_t w[16];
    for (unsigned e = 0; e < n; e++) {
        if (fp16)
            tensor_words(w, 4);
        else
            quantised_entry(w, mode);
        clb_put_words(b, addr + 128ull * e, w, 4);
    }
}

/* The unit's stats object as JSON text (its "components" entry is enough
 * for strstr). */
static char *stats_text(kh_ubench *b)
{
    char *t = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&t, &n);
    if (!f) return NULL;
    kh_stats_fprint_json(kh_ubench_sim(b), f);
    fclose(f);
    return t;
}

static unsigned diag_count(kh_ubench *b, const char **msg)
{
    kh_sim *sim = kh_ubench_sim(b);
    uint64_t count = 0;
    *msg = "";
    if (!kh_sim_ndiag(sim)) return 0;
    const char *name = kh_sim_diag_at(sim, 0, &count, msg);
    CHECK(!strcmp(name, "older_read_path"));
    return (unsigned)count;
}

/* FILL A, FILL B, GEMM, DRAIN of GM·GN sub-tiles at C_AT */
static kh_ubench *run_program(int fp16_a, int fp16_b)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return NULL;
    put_side(b, A_AT, NA, fp16_a, 0);
    put_side(b, B_AT, NB, fp16_b, 1);
    clb_send(b, clb_fill(0, A_AT, NA, 0, 0), 0);
    clb_send(b, clb_fill(1, B_AT, NB, 0, 0), 0);
    clb_send(b, clb_gemm(GM, GN, NK, 0, 0), 0);
    clb_send(b, clb_drain(C_AT, GM * GN), 1);
    if (clb_run_ok(b) != 1) {
        kh_ubench_free(b);
        return NULL;
    }
    return b;
}

/* both operands FP16 words, read verbatim: the drain raises it, once,
 * saying what to do; the unit counts the entries and the drain */
static void older_form_raises_older_read_path(void)
{
    kh_ubench *b = run_program(1, 1);
    if (!b) return;
    const char *msg;
    CHECK_EQ(diag_count(b, &msg), 1);
    CHECK(strstr(msg, "read_quant=1") != NULL);
    CHECK(strstr(msg, "upstream-7703ee8") != NULL);
    CHECK(strstr(msg, "0x0000020000") != NULL); /* the drain's destination */
    char *st = stats_text(b);
    CHECK(st && strstr(st, "\"fp16_entries\":8") != NULL); /* NA + NB entries */
    CHECK(st && strstr(st, "\"older_form_drains\":1") != NULL);
    CHECK(st && strstr(st, "\"diagnostics\":[\n{\"name\":\"older_read_path\",\"count\":1,") != NULL);
    free(st);
    kh_ubench_free(b);
}

/* quantised entries on both sides, or FP16 on one side only: nothing */
static void mxfp7_or_one_fp16_side_raise_nothing(void)
{
    for (int k = 0; k < 3; k++) {
        kh_ubench *b = run_program(k == 1, k == 2);
        if (!b) return;
        const char *msg;
        CHECK_EQ(diag_count(b, &msg), 0);
        char *st = stats_text(b);
        CHECK(st && strstr(st, k ? "\"fp16_entries\":4" : "\"fp16_entries\":0") != NULL);
        CHECK(st && strstr(st, "\"older_form_drains\":0") != NULL);
        CHECK(st && strstr(st, "\"diagnostics\":[]") != NULL);
        free(st);
        kh_ubench_free(b);
    }
}

/* the mark follows the sub-tiles: an accumulating GEMM of clean entries
 * keeps it (the tile still holds FP16 products), a LOADing one clears it */
static void the_mark_follows_the_tile(void)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    put_side(b, A_AT, NA, 1, 0);
    put_side(b, B_AT, NB, 1, 1);
    put_side(b, A_AT + 0x8000, NA, 0, 0);
    put_side(b, B_AT + 0x8000, NB, 0, 1);
    clb_send(b, clb_fill(0, A_AT, NA, 0, 0), 0);
    clb_send(b, clb_fill(1, B_AT, NB, 0, 0), 0);
    clb_send(b, clb_gemm(GM, GN, NK, 0, 0), 0);                /* FP16 products */
    clb_send(b, clb_fill(0, A_AT + 0x8000, NA, 0, 1), 0);
    clb_send(b, clb_fill(1, B_AT + 0x8000, NB, 0, 1), 0);
    clb_send(b, clb_gemm(GM, GN, NK, 1, 1), 0);                /* clean, accumulated onto them */
    clb_send(b, clb_drain(C_AT, GM * GN), 0);                  /* raised */
    clb_send(b, clb_gemm(GM, GN, NK, 0, 1), 0);                /* clean, LOADed */
    clb_send(b, clb_drain(C_AT + 0x1000, GM * GN), 1);         /* not */
    if (clb_run_ok(b) == 1) {
        const char *msg;
        CHECK_EQ(diag_count(b, &msg), 1);
    }
    kh_ubench_free(b);
}

/* an emitting GEMM's batch of FP16 products raises it too */
static void emitting_gemm_raises_it(void)
{
    kh_ubench *b = clb_bench_at(2, 1, NULL);
    if (!b) return;
    put_side(b, A_AT, NA, 1, 0);
    put_side(b, B_AT, NB, 1, 1);
    clb_send(b, clb_fill(0, A_AT, NA, 0, 0), 0);
    clb_send(b, clb_fill(1, B_AT, NB, 0, 0), 0);
    ins g = clb_gemm(GM, GN, NK, 0, 0);
    g.emit = 1;
    g.addr = C_AT;
    clb_send(b, g, 0);
    ins d = clb_drain(C_AT, GM * GN);
    d.fuse = 1;
    clb_send(b, d, 1);
    if (clb_run_ok(b) == 1) {
        const char *msg;
        CHECK_EQ(diag_count(b, &msg), 1);
        CHECK(strstr(msg, "an emitting GEMM") != NULL);
    }
    kh_ubench_free(b);
}

/* every FP16 value the drain wrote is counted; saturated = the lanes of
 * the written memory at 0x7BFF or 0xFBFF (+-65504), non-finite = exponent
 * 31, which the drain never makes (numerics.md §7) */
static void drained_values_are_counted(void)
{
    for (int fp16 = 0; fp16 < 2; fp16++) {
        kh_ubench *b = run_program(fp16, fp16);
        if (!b) return;
        unsigned sat = 0, inf = 0;
        for (unsigned g = 0; g < GM * GN; g++)
            for (unsigned e = 0; e < 16; e++) {
                uint16_t h = clb_get_f16(b, C_AT + 32ull * g, e);
                sat += (h & 0x7FFF) == 0x7BFF;
                inf += (h & 0x7C00) == 0x7C00;
            }
        if (fp16) CHECK(sat > 0); /* FP16 bits as MXFP7 scales: the garbage saturates */
        char *st = stats_text(b), want[96];
        snprintf(want, sizeof want, "\"drained_values\":%u,\"saturated\":%u,\"nonfinite\":%u", 16 * GM * GN, sat, inf);
        CHECK(st && strstr(st, want) != NULL);
        CHECK_EQ(inf, 0);
        free(st);
        kh_ubench_free(b);
    }
}

int main(void)
{
    KH_RUN(fp16_words_are_judged_fp16_and_quantised_entries_not);
    KH_RUN(random_bits_are_not_fp16_entries);
    KH_RUN(each_rule_of_the_judgement);
    KH_RUN(older_form_raises_older_read_path);
    KH_RUN(mxfp7_or_one_fp16_side_raise_nothing);
    KH_RUN(the_mark_follows_the_tile);
    KH_RUN(emitting_gemm_raises_it);
    KH_RUN(drained_values_are_counted);
    return kh_test_end("t_cluster_older");
}
