/* The stable host API (kohaku/api.h) against a careless caller: NULL
 * handles and buffers are refused, a run that would pass the clock's end
 * (2^62, kohaku/sim.h) is refused with nothing run, and the DRAM backdoor
 * stops at the populated DRAM instead of aliasing (memory.md §7). */
#include <string.h>

#include "kohaku/api.h"
#include "kohaku/sim.h"
#include "support/test.h"

static kh_dev *open_default(void)
{
    kh_dev *d = NULL;
    char err[256];
    CHECK_EQ(kh_dev_open(&d, "default", NULL, NULL, 0, err, sizeof err), KH_OK);
    return d;
}

static void null_handles_are_refused(void)
{
    uint64_t v = 0;
    uint8_t b[8] = {0};
    char buf[16];
    CHECK_EQ(kh_dev_write64(NULL, 0x800010, 1), KH_E_ARG);
    CHECK_EQ(kh_dev_read64(NULL, 0x800010, &v), KH_E_ARG);
    CHECK_EQ(kh_dev_write_block(NULL, 0, b, 8), KH_E_ARG);
    CHECK_EQ(kh_dev_read_block(NULL, 0, b, 8), KH_E_ARG);
    CHECK_EQ(kh_dev_set_stuck_reads(NULL, 1), KH_E_ARG);
    CHECK_EQ(kh_dev_set_engine(NULL, "cycle"), KH_E_ARG);
    CHECK_EQ(kh_dev_run(NULL, 1), KH_E_ARG);
    CHECK_EQ(kh_dev_idle(NULL, 1), KH_E_ARG);
    CHECK_EQ(kh_dev_trace(NULL, NULL), KH_E_ARG);
    CHECK_EQ(kh_dev_stats(NULL, buf, sizeof buf, NULL), KH_E_ARG);
    CHECK_EQ(kh_dev_diagnose(NULL, buf, sizeof buf), KH_E_ARG);
    CHECK_EQ(kh_dev_dram_read(NULL, 0, 0, b, 8), KH_E_ARG);
    CHECK_EQ(kh_dev_dram_write(NULL, 0, 0, b, 8), KH_E_ARG);
    CHECK_EQ(kh_dev_cycles(NULL), 0);
    CHECK_EQ(kh_dev_accesses(NULL), 0);
    CHECK_EQ(kh_dev_meshes(NULL), 0);
    kh_dev_close(NULL);
    char err[64];
    CHECK_EQ(kh_dev_open(NULL, "default", NULL, NULL, 0, err, sizeof err), KH_E_ARG);
    CHECK(strstr(err, "out is NULL") != NULL);
    kh_dev *d = (kh_dev *)&err; /* not a handle: must be set to NULL */
    CHECK_EQ(kh_dev_open(&d, "default", NULL, NULL, 2, err, sizeof err), KH_E_ARG);
    CHECK(d == NULL);
    CHECK(strstr(err, "parameter 0 of 2 is NULL") != NULL);
    const char *params[] = {"host_read_cycles=1", NULL};
    CHECK_EQ(kh_dev_open(&d, "default", NULL, params, 2, err, sizeof err), KH_E_ARG);
    CHECK(strstr(err, "parameter 1 of 2 is NULL") != NULL);
}

static void null_buffers_are_refused(void)
{
    kh_dev *d = open_default();
    if (!d) return;
    CHECK_EQ(kh_dev_read64(d, 0x800010, NULL), KH_E_ARG);
    CHECK_EQ(kh_dev_write_block(d, 0x800010, NULL, 8), KH_E_ARG);
    CHECK(strstr(kh_dev_message(d), "8 bytes asked with no buffer") != NULL);
    CHECK_EQ(kh_dev_read_block(d, 0x800010, NULL, 8), KH_E_ARG);
    CHECK_EQ(kh_dev_stats(d, NULL, 10, NULL), KH_E_ARG);
    CHECK_EQ(kh_dev_diagnose(d, NULL, 10), KH_E_ARG);
    CHECK_EQ(kh_dev_dram_read(d, 0, 0, NULL, 64), KH_E_ARG);
    CHECK_EQ(kh_dev_dram_write(d, 0, 0, NULL, 64), KH_E_ARG);
    /* none of them was an access */
    CHECK_EQ(kh_dev_accesses(d), 0);
    CHECK_EQ(kh_dev_cycles(d), 0);
    kh_dev_close(d);
}

static void the_engine_is_named(void)
{
    kh_dev *d = open_default();
    if (!d) return;
    CHECK_EQ(kh_dev_set_engine(d, "cycle"), KH_OK);
    CHECK_EQ(kh_dev_set_engine(d, "fast"), KH_OK);
    CHECK_EQ(kh_dev_set_engine(d, "events"), KH_E_ARG);
    CHECK(strstr(kh_dev_message(d), "'events': want cycle or fast") != NULL);
    CHECK_EQ(kh_dev_set_engine(d, NULL), KH_E_ARG);
    kh_dev_close(d);
}

static void a_run_past_the_clock_end_is_refused(void)
{
    kh_dev *d = open_default();
    if (!d) return;
    CHECK_EQ(kh_dev_run(d, 100), KH_OK);
    CHECK_EQ(kh_dev_run(d, UINT64_MAX), KH_E_ARG);
    CHECK(strstr(kh_dev_message(d), "run 18446744073709551615 cycles: at cycle 100") != NULL);
    CHECK_EQ(kh_dev_cycles(d), 100); /* nothing ran, nothing wrapped */
    CHECK_EQ(kh_dev_run(d, KH_CLOCK_END - 100), KH_OK); /* exactly to the end */
    CHECK_EQ(kh_dev_cycles(d), KH_CLOCK_END);
    CHECK_EQ(kh_dev_run(d, 1), KH_E_ARG);
    CHECK_EQ(kh_dev_cycles(d), KH_CLOCK_END);
    kh_dev_close(d);
}

static void an_idle_limit_never_moves_the_clock_back(void)
{
    kh_dev *d = NULL;
    char err[256];
    /* zero-time host accesses: the kick returns with the dispatch pending */
    CHECK_EQ(kh_dev_open(&d, "default", "host-zero", NULL, 0, err, sizeof err), KH_OK);
    if (!d) return;
    /* a kicked dispatch (control.md §4: staged slot 0 to (1,0)) leaves the
     * machine with work outstanding; UINT64_MAX cycles from now wrapped to
     * the cycle before it */
    const uint64_t ctrl = 0x800000, prog_dst = 0x40, prog_len = 0x48, prog_kick = 0x50, prog_cred = 0x60;
    CHECK_EQ(kh_dev_run(d, 1000), KH_OK);
    CHECK_EQ(kh_dev_write64(d, ctrl + prog_len, 1), KH_OK);
    CHECK_EQ(kh_dev_write64(d, ctrl + prog_dst, 1), KH_OK);
    CHECK_EQ(kh_dev_write64(d, ctrl + prog_cred, 4), KH_OK);
    CHECK_EQ(kh_dev_write64(d, ctrl + prog_kick, 1), KH_OK);
    uint64_t before = kh_dev_cycles(d);
    CHECK_EQ(kh_dev_idle(d, UINT64_MAX), KH_OK);
    CHECK(kh_dev_cycles(d) >= before);
    kh_dev_close(d);
}

static void the_dram_backdoor_stops_at_the_populated_dram(void)
{
    kh_dev *d = NULL;
    char err[256];
    const char *four_kib = "dram_words_log2=7"; /* 2^7 words of 32 bytes */
    CHECK_EQ(kh_dev_open(&d, "default", NULL, &four_kib, 1, err, sizeof err), KH_OK);
    if (!d) return;
    uint8_t w[64], r[64], zero[64] = {0};
    memset(w, 0xA5, sizeof w);
    CHECK_EQ(kh_dev_dram_write(d, 0, 4096 - 64, w, 64), KH_OK); /* the last word */
    CHECK_EQ(kh_dev_dram_read(d, 0, 4096 - 64, r, 64), KH_OK);
    CHECK(!memcmp(r, w, 64));
    /* offset 4096 would alias to offset 0 through the NoC's address */
    CHECK_EQ(kh_dev_dram_write(d, 0, 4096, w, 64), KH_E_UNMAPPED);
    CHECK(strstr(kh_dev_message(d), "64 bytes at offset 0x1000 run past its populated 0x1000 bytes") != NULL);
    CHECK_EQ(kh_dev_dram_write(d, 0, 4096 - 32, w, 64), KH_E_UNMAPPED); /* straddles the end */
    CHECK_EQ(kh_dev_dram_read(d, 0, UINT64_MAX - 7, r, 64), KH_E_UNMAPPED);   /* offset + n wraps */
    CHECK_EQ(kh_dev_dram_read(d, 0, 0, r, 64), KH_OK);
    CHECK(!memcmp(r, zero, 64)); /* offset 0 untouched */
    kh_dev_close(d);
}

/* kh_dev_param: the machine as built, profile and parameters applied */
static void parameters_read_back(void)
{
    kh_dev *d = NULL;
    char err[256];
    const char *params[] = {"read_quant=1"};
    CHECK_EQ(kh_dev_open(&d, "default", "host-zero", params, 1, err, sizeof err), KH_OK);
    if (!d) return;
    uint64_t v = 99;
    CHECK_EQ(kh_dev_param(d, "read_quant", &v), KH_OK);
    CHECK_EQ(v, 1);
    CHECK_EQ(kh_dev_param(d, "host_read_cycles", &v), KH_OK);
    CHECK_EQ(v, 0); /* host-zero */
    CHECK_EQ(kh_dev_param(d, "dram_lat", &v), KH_OK);
    CHECK_EQ(v, 51); /* the default (memory.md §7) */
    CHECK_EQ(kh_dev_param(d, "no_such_row", &v), KH_E_ARG);
    CHECK_EQ(kh_dev_param(NULL, "read_quant", &v), KH_E_ARG);
    kh_dev_close(d);
}

/* kh_dev_diag: none on a fresh machine, KH_E_ARG past the end, 0 for NULL */
static void diagnostics_of_a_quiet_machine(void)
{
    kh_dev *d = open_default();
    if (!d) return;
    const char *name = "x", *msg = "y";
    uint64_t n = 7;
    CHECK_EQ(kh_dev_diag_count(d), 0);
    CHECK_EQ(kh_dev_diag(d, 0, &name, &n, &msg), KH_E_ARG);
    CHECK(strstr(kh_dev_message(d), "diagnostic 0") != NULL);
    CHECK_EQ(kh_dev_diag_count(NULL), 0);
    CHECK_EQ(kh_dev_diag(NULL, 0, &name, &n, &msg), KH_E_ARG);
    kh_dev_close(d);
}

/* host_map noboard (docs/python.md): what upstream's Card() assumes with
 * no board file. Its control window at 0x4_0080_0000 is mesh 0's (CAPS of
 * the default map, control.md §2.2); mesh 0's DRAM at 0: its scratch at
 * 0xfff00000 is the same memory kohaku's map reaches at
 * ((0+1) << 40) + 0xfff00000 (control.md §9.2) */
static void the_noboard_host_map(void)
{
    kh_dev *d = NULL;
    char err[256];
    const char *params[] = {"host_map=noboard"};
    CHECK_EQ(kh_dev_open(&d, "default", NULL, params, 1, err, sizeof err), KH_OK);
    if (!d) return;
    uint64_t v = 0;
    uint8_t w[64], r[64];
    CHECK_EQ(kh_dev_read64(d, UINT64_C(0x400800010), &v), KH_OK);
    CHECK_EQ(v, UINT64_C(0x0000000201040120));
    for (unsigned i = 0; i < 64; i++) w[i] = (uint8_t)(0x5A ^ i);
    CHECK_EQ(kh_dev_write_block(d, UINT64_C(0xfff00000), w, 64), KH_OK);
    CHECK_EQ(kh_dev_read_block(d, UINT64_C(0xfff00000), r, 64), KH_OK);
    CHECK(!memcmp(w, r, 64));
    CHECK_EQ(kh_dev_dram_read(d, 0, UINT64_C(0xfff00000), r, 64), KH_OK);
    CHECK(!memcmp(w, r, 64));
    /* kohaku's own windows are not this map's */
    CHECK_EQ(kh_dev_read64(d, 0x800010, &v), KH_OK); /* 0x80_0000 is mesh 0's DRAM here */
    CHECK_EQ(kh_dev_read64(d, UINT64_C(1) << 40, &v), KH_E_UNMAPPED);
    CHECK(strstr(kh_dev_message(d), "host map noboard") != NULL);
    CHECK_EQ(kh_dev_read64(d, UINT64_C(0x400810010), &v), KH_E_UNMAPPED); /* mesh 1: one mesh here */
    /* a block running off the 4 GiB window is refused, nothing written */
    CHECK_EQ(kh_dev_write_block(d, UINT64_C(0xfffffff8), w, 16), KH_E_UNMAPPED);
    kh_dev_close(d);
}

/* kohaku's map refuses 0xfff00000, saying what upstream's board-less
 * Card() wants and what to do */
static void the_kohaku_map_names_the_way_out(void)
{
    kh_dev *d = open_default();
    if (!d) return;
    uint8_t w[64] = {0};
    CHECK_EQ(kh_dev_write_block(d, UINT64_C(0xfff00000), w, 64), KH_E_UNMAPPED);
    CHECK(strstr(kh_dev_message(d), "host_map=noboard") != NULL);
    CHECK(strstr(kh_dev_message(d), "Card.from_board(\"multimesh_v67\"") != NULL);
    uint64_t v;
    CHECK_EQ(kh_dev_read64(d, UINT64_C(0x400800010), &v), KH_E_UNMAPPED);
    CHECK(strstr(kh_dev_message(d), "node control window") != NULL);
    CHECK_EQ(kh_dev_read64(d, UINT64_C(1) << 41 | 8, &v), KH_E_UNMAPPED); /* no hint where it would mislead */
    CHECK(strstr(kh_dev_message(d), "Card()") == NULL);
    kh_dev_close(d);
}

int main(void)
{
    KH_RUN(null_handles_are_refused);
    KH_RUN(null_buffers_are_refused);
    KH_RUN(the_engine_is_named);
    KH_RUN(a_run_past_the_clock_end_is_refused);
    KH_RUN(an_idle_limit_never_moves_the_clock_back);
    KH_RUN(the_dram_backdoor_stops_at_the_populated_dram);
    KH_RUN(parameters_read_back);
    KH_RUN(diagnostics_of_a_quiet_machine);
    KH_RUN(the_noboard_host_map);
    KH_RUN(the_kohaku_map_names_the_way_out);
    return kh_test_end("t_api");
}
