/* Checkpoints (docs/checkpoint.md): the checksum against its published
 * check value; a machine saved mid-GEMM and restored into a second machine
 * runs on exactly as the first (cycles, statistics, the result in DRAM, and
 * the state saved again); the reader's refusals. The CLI side (sessions,
 * the saxpy example, the refusals' wording) is tests/cli/ckpt.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "kohaku/gemm.h"
#include "kohaku/trace.h"
#include "support/test.h"

/* The CRC-32 "check" value of the nine ASCII digits (the catalogue of
 * parametrised CRC algorithms, CRC-32/ISO-HDLC). */
static void crc32_of_the_check_string(void)
{
    CHECK_EQ(kh_crc32(0, "123456789", 9), 0xCBF43926u);
    CHECK_EQ(kh_crc32(kh_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u); /* continued */
}

static uint64_t rs = 0x9E3779B97F4A7C15ull;
static uint16_t rnd_f16(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return (uint16_t)((rs >> 4 & 1) << 15 | (10 + (rs >> 5) % 7) << 10 | (rs >> 8) % 1024);
}

/* The statistics JSON of a machine (the --stats body), malloc'd. */
static char *stats(kh_machine *m)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f) return NULL;
    kh_stats_fprint_json(kh_machine_sim(m), f);
    fclose(f);
    return buf;
}

typedef struct pause_at {
    unsigned calls, at;
    int checked;
} pause_at;

/* Two machines must agree on everything a host can see. */
static void same(kh_machine *a, kh_machine *b, const char *when)
{
    CHECK_EQ(kh_sim_now(kh_machine_sim(a)), kh_sim_now(kh_machine_sim(b)));
    char *sa = stats(a), *sb = stats(b);
    if (!sa || !sb || strcmp(sa, sb)) kh_test_fail(__FILE__, __LINE__, "%s: the statistics differ", when);
    free(sa);
    free(sb);
    /* every byte of DRAM the GEMM touches (operands, images, result) */
    size_t n = 1u << 20;
    uint8_t *x = malloc(n), *y = malloc(n);
    char err[300];
    for (uint64_t off = 0; off < (UINT64_C(8) << 20); off += n) {
        if (kh_card_read_block(kh_machine_card(a), kh_host_dram(0, off), x, n, err, sizeof err) ||
            kh_card_read_block(kh_machine_card(b), kh_host_dram(0, off), y, n, err, sizeof err)) {
            kh_test_fail(__FILE__, __LINE__, "read: %s", err);
            break;
        }
        if (memcmp(x, y, n)) {
            kh_test_fail(__FILE__, __LINE__, "%s: DRAM differs in the MiB at 0x%llx", when, (unsigned long long)off);
            break;
        }
    }
    free(x);
    free(y);
}

static int save_restore_compare(void *ctx, kh_machine *a)
{
    pause_at *pa = ctx;
    if (++pa->calls != pa->at) return 0;
    char err[2000];
    uint8_t *b1 = NULL, *b2 = NULL, *c1 = NULL, *c2 = NULL;
    size_t n1, n2, m1, m2;
    if (kh_machine_save_bytes(a, NULL, &b1, &n1, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "save mid-GEMM: %s", err);
        return 1;
    }
    kh_machine *b = kh_machine_restore_bytes(b1, n1, a, NULL, err, sizeof err);
    if (!b) {
        kh_test_fail(__FILE__, __LINE__, "restore: %s", err);
        free(b1);
        return 1;
    }
    /* save, restore, save: the same bytes */
    if (kh_machine_save_bytes(b, NULL, &b2, &n2, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
    CHECK(b2 && n1 == n2 && !memcmp(b1, b2, n1));
    /* on from here with no host access: the same cycle by cycle */
    kh_sim_run(kh_machine_sim(a), 777);
    kh_sim_run(kh_machine_sim(b), 777);
    same(a, b, "777 cycles on");
    CHECK_EQ(kh_sim_run_until_idle(kh_machine_sim(a), 100000000), 1);
    CHECK_EQ(kh_sim_run_until_idle(kh_machine_sim(b), 100000000), 1);
    same(a, b, "idle");
    if (kh_machine_save_bytes(a, NULL, &c1, &m1, err, sizeof err) ||
        kh_machine_save_bytes(b, NULL, &c2, &m2, err, sizeof err))
        kh_test_fail(__FILE__, __LINE__, "%s", err);
    CHECK(c1 && c2 && m1 == m2 && !memcmp(c1, c2, m1));
    pa->checked = 1;
    free(b1);
    free(b2);
    free(c1);
    free(c2);
    kh_machine_free(b);
    return 1; /* the driver stops: both machines ran on without it */
}

static void mid_gemm(unsigned at)
{
    char err[400];
    kh_machine *mc = kh_machine_new(NULL, NULL, err, sizeof err);
    if (!mc) {
        kh_test_fail(__FILE__, __LINE__, "machine: %s", err);
        return;
    }
    kh_gemm_target t;
    kh_gemm_target_of(mc, &t);
    kh_gemm_plan p;
    unsigned m = 128, n = 128, k = 256;
    uint16_t *a = malloc((size_t)m * k * 2), *bt = malloc((size_t)n * k * 2);
    for (size_t i = 0; i < (size_t)m * k; i++) a[i] = rnd_f16();
    for (size_t i = 0; i < (size_t)n * k; i++) bt[i] = rnd_f16();
    pause_at pa = {0, at, 0};
    if (kh_gemm_plan_make(&p, m, n, k, &t, err, sizeof err) ||
        kh_gemm_upload(mc, &p, KH_GEMM_RECIPE_TILED, a, bt, err, sizeof err) ||
        kh_gemm_quantise(mc, &p, KH_GEMM_RECIPE_TILED, NULL, err, sizeof err))
        kh_test_fail(__FILE__, __LINE__, "%s", err);
    else
        kh_gemm_execute_paused(mc, &p, NULL, save_restore_compare, &pa, err, sizeof err);
    CHECK(pa.checked);
    free(a);
    free(bt);
    kh_machine_free(mc);
}

static void a_gemm_saved_mid_run_resumes_exactly(void)
{
    mid_gemm(1);  /* the first engine program just started */
    mid_gemm(60); /* sweeps and drains under way */
    mid_gemm(400);
}

static void refusals_name_what_breaks(void)
{
    char err[2000];
    kh_machine *mc = kh_machine_new(NULL, NULL, err, sizeof err);
    if (!mc) return;
    kh_sim_run(kh_machine_sim(mc), 100);
    uint8_t *b = NULL;
    size_t n = 0;
    CHECK_EQ(kh_machine_save_bytes(mc, NULL, &b, &n, err, sizeof err), 0);
    kh_machine *r;
    /* every proper prefix is refused, never half-restored */
    for (size_t cut = 0; cut < n; cut += n / 97 + 1) {
        r = kh_machine_restore_bytes(b, cut, NULL, NULL, err, sizeof err);
        CHECK(r == NULL);
        kh_machine_free(r);
    }
    /* one bit flipped in each of several places: refused (checksum or header) */
    for (size_t at = 9; at < n; at += n / 31 + 1) {
        b[at] ^= 0x10;
        r = kh_machine_restore_bytes(b, n, NULL, NULL, err, sizeof err);
        if (r) kh_test_fail(__FILE__, __LINE__, "a flipped bit at offset %zu was not refused", at);
        kh_machine_free(r);
        b[at] ^= 0x10;
    }
    /* another machine: the parameter named */
    kh_params q;
    kh_params_default(&q);
    q.recv_depth = 64;
    kh_machine *other = kh_machine_new(NULL, &q, err, sizeof err);
    r = kh_machine_restore_bytes(b, n, other, NULL, err, sizeof err);
    CHECK(r == NULL);
    CHECK(strstr(err, "parameter recv_depth is 512 in the file, 64 here") != NULL);
    kh_machine_free(r);
    kh_machine_free(other);
    /* a section name longer than a name can be (found by fuzz_ckpt) */
    uint8_t hdr[64];
    memcpy(hdr, b, 32);
    memcpy(hdr + 32, "DESC", 4);
    hdr[36] = 0x2c; /* 300 */
    hdr[37] = 0x01;
    memset(hdr + 38, 'x', sizeof hdr - 38);
    r = kh_machine_restore_bytes(hdr, sizeof hdr, NULL, NULL, err, sizeof err);
    CHECK(r == NULL);
    CHECK(strstr(err, "a name of 300 bytes") != NULL);
    kh_machine_free(r);
    /* the intact file still restores */
    r = kh_machine_restore_bytes(b, n, mc, NULL, err, sizeof err);
    CHECK(r != NULL);
    if (r) CHECK_EQ(kh_sim_now(kh_machine_sim(r)), 100);
    kh_machine_free(r);
    free(b);
    kh_machine_free(mc);
}

int main(void)
{
    KH_RUN(crc32_of_the_check_string);
    KH_RUN(a_gemm_saved_mid_run_resumes_exactly);
    KH_RUN(refusals_name_what_breaks);
    return kh_test_end("t_ckpt");
}
