/* XFORM moves and the transform slot (memory.md §11.6, §12, §13): occupant
 * 1 through the mover against the digest's vectors and the RTL recordings,
 * the bypass, unknown ids, a test-only occupant plugged in without touching
 * the mover, and the transform faults. */
#include "kohaku/hex.h"
#include "mover_rig.h"

/* FP16 of n/4 for 0 <= n < 2^11 (exact), written independently here. */
static uint16_t f16_quarter(unsigned n)
{
    if (!n) return 0;
    int e = -2; /* value = n * 2^-2 */
    unsigned m = n;
    while (m >= 2048) { m >>= 1; e++; }
    while (m < 1024) { m <<= 1; e--; }
    /* value = m * 2^(e) with m in [1024, 2048): exponent field = e + 10 + 15 */
    return (uint16_t)(((unsigned)(e + 25) << 10) | (m - 1024));
}

/* Place the 128-element entry x[L][k] at 8 beats: beat b, element i is
 * lane b >> 1, k = 16 (b & 1) + i (memory.md §13). */
static void put_entry(rig *r, uint64_t a, uint16_t x[4][32])
{
    for (unsigned b = 0; b < 8; b++) {
        uint64_t w[4] = {0};
        for (unsigned i = 0; i < 16; i++)
            w[i / 4] |= (uint64_t)x[b >> 1][16 * (b & 1) + i] << (16 * (i % 4));
        host_put_word(r, a + 32 * b, w);
    }
}

static void quant_move(rig *r, uint64_t src, uint64_t dst, unsigned entries, unsigned mode)
{
    mv_hdr(r, 0, src, 1, 1, mode);
    mv_dim(r, 0, 0, 8 * entries, 32, 0, 0);
    mv_hdr(r, 1, dst, 1, 0, 0);
    mv_dim(r, 1, 0, entries, 128, 0, 0);
    mv_go(r, 5, 1, 1, 0);
    rig_run(r);
}

static void check_word(rig *r, uint64_t a, const char *hex)
{
    uint64_t want[4], got[4];
    char err[128];
    CHECK_EQ(kh_hex_parse(hex, want, 256, 1, err, sizeof err), 0);
    host_get_word(r, a, got);
    CHECK(!memcmp(got, want, 32));
}

/* §13: all 1.0, A packing: every word 72e5...71717171. */
static void quant_all_ones(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint16_t x[4][32];
    for (int l = 0; l < 4; l++)
        for (int k = 0; k < 32; k++) x[l][k] = 0x3C00;
    put_entry(&r, 0x1000, x);
    quant_move(&r, 0x1000, 0x8000, 1, 0);
    CHECK_EQ(aux_fault(&r), 0);
    CHECK_EQ(aux_moves(&r), 1);
    for (int w = 0; w < 4; w++)
        check_word(&r, 0x8000 + 32 * w, "72e5cb972e5cb972e5cb972e5cb972e5cb972e5cb972e5cb972e5cb971717171");
    rig_free(&r);
}

/* §13: x[L][k] = (-1)^k k (L+1) / 4, both packings. */
static void quant_signed_ramp_both_packings(void)
{
    static const char *a[4] = {
        "01f827a11d867201f827a11d867201f827a11d867201f827a11d867288909498",
        "21b8a6a3198e6221b8a6a3198e6221b8a6a3198e6221b8a6a3198e6288909498",
        "417925a5159652417925a5159652417925a5159652417925a515965288909498",
        "6139a4a7119e426139a4a7119e426139a4a7119e426139a4a7119e4288909498"};
    static const char *b[4] = {
        "0000000fdfbf7e0810204f5ebd7a1020408eddbb76183060ce5cb97288909498",
        "2040810ddbb76e2850a14d5ab56a3060c18cd9b3663870e1cc58b16288909498",
        "4081020bd7af5e4891224b56ad5a50a1428ad5ab5658b162ca54a95288909498",
        "60c18309d3a74e68d1a34952a54a70e1c388d1a34678f1e3c850a14288909498"};
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint16_t x[4][32];
    for (unsigned l = 0; l < 4; l++)
        for (unsigned k = 0; k < 32; k++) x[l][k] = (uint16_t)(f16_quarter(k * (l + 1)) | (k & 1 ? 0x8000 : 0));
    x[0][0] = 0; /* -0 * ... is +0 here: k = 0 is even */
    put_entry(&r, 0x2000, x);
    quant_move(&r, 0x2000, 0x9000, 1, 0);
    for (int w = 0; w < 4; w++) check_word(&r, 0x9000 + 32 * w, a[w]);
    quant_move(&r, 0x2000, 0xA000, 1, 1);
    for (int w = 0; w < 4; w++) check_word(&r, 0xA000 + 32 * w, b[w]);
    CHECK_EQ(aux_moves(&r), 2);
    rig_free(&r);
}

/* §13: lane 0 all 0x0001, lanes 1-3 zero: scales 01 a0 a0 a0, elements 0. */
static void quant_subnormal_and_zero_lanes(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint16_t x[4][32] = {{0}};
    for (int k = 0; k < 32; k++) x[0][k] = 1;
    put_entry(&r, 0x3000, x);
    quant_move(&r, 0x3000, 0xB000, 1, 0);
    for (int w = 0; w < 4; w++)
        check_word(&r, 0xB000 + 32 * w, "0000000000000000000000000000000000000000000000000000000001a0a0a0");
    rig_free(&r);
}

/* The recorded RTL blocks (../shared/vectors/quant.jsonl) through the mover:
 * a sample of cases, each as one XFORM entry, bit-exact. */
static void quant_recorded_vectors_through_the_mover(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/vectors/quant.jsonl", kh_test_data_dir());
    FILE *fp = fopen(path, "r");
    CHECK(fp != NULL);
    if (!fp) return;
    static char line[8192];
    unsigned n = 0;
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    while (fgets(line, sizeof line, fp) && n < 200) {
        char *in = strstr(line, "\"in\": \""), *out = strstr(line, "\"out\": \""), *mode = strstr(line, "\"mode\": ");
        if (!in || !out || !mode) continue;
        in += 7;
        out += 8;
        in[512] = out[256] = '\0';
        uint64_t iw[32], ow[16];
        char err[128];
        if (kh_hex_parse(in, iw, 2048, 1, err, sizeof err) || kh_hex_parse(out, ow, 1024, 1, err, sizeof err)) {
            CHECK(0);
            break;
        }
        uint64_t src = 0x100000 + 0x1000 * (n % 16), dst = 0x200000 + 0x1000 * (n % 16);
        for (int b = 0; b < 8; b++) host_put_word(&r, src + 32 * b, &iw[4 * b]);
        quant_move(&r, src, dst, 1, (unsigned)atoi(mode + 8));
        for (int w = 0; w < 4; w++) {
            uint64_t g[4];
            host_get_word(&r, dst + 32 * w, g);
            if (memcmp(g, &ow[4 * w], 32)) {
                printf("quant.jsonl case %u word %d differs\n", n, w);
                CHECK(0);
            }
        }
        n += 7; /* a spread sample, both packings */
    }
    fclose(fp);
    CHECK(n > 0);
    rig_free(&r);
}

/* XFORM_ID 0: bypass, 4 beats in, output word i = input beat i; several
 * entries with a destination stride of 128 (§11.6, §12). */
static void bypass_copies_four_beats_per_entry(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    for (int i = 0; i < 12; i++) {
        pattern(0x4000 + 32 * i, w);
        host_put_word(&r, 0x4000 + 32 * i, w);
    }
    mv_hdr(&r, 0, 0x4000, 1, 0, 0);
    mv_dim(&r, 0, 0, 12, 32, 0, 0);
    mv_hdr(&r, 1, 0xC000, 1, 0, 0);
    mv_dim(&r, 1, 0, 3, 0x100, 0, 0); /* entries spaced 0x100 apart */
    mv_go(&r, 5, 1, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_moves(&r), 1);
    for (int e = 0; e < 3; e++)
        for (int i = 0; i < 4; i++) {
            pattern(0x4000 + 32 * (4 * e + i), w);
            host_get_word(&r, 0xC000 + 0x100 * e + 32 * i, g);
            CHECK(!memcmp(g, w, 32));
        }
    CHECK_EQ(kh_node_xform_bank_read(r.n, 0, 0), 0);
    CHECK_EQ(mover_stat(&r, "write_bursts"), 3); /* one burst per entry */
    rig_free(&r);
}

/* An id with no occupant is answered by the bypass and sets bank fault[0];
 * the move itself reports success (§12, Open point 13); writes to 0x00
 * clear it. Geometry register: id 1 0x00040800, id 0 0x00040400, else 0. */
static void unknown_id_bypasses_and_sets_bank_fault(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    CHECK_EQ(kh_node_xform_bank_read(r.n, 1, 4), 0x00040800);
    CHECK_EQ(kh_node_xform_bank_read(r.n, 0, 4), 0x00040400);
    CHECK_EQ(kh_node_xform_bank_read(r.n, 9, 4), 0);
    uint64_t w[4], g[4];
    for (int i = 0; i < 4; i++) {
        pattern(0x500 + 32 * i, w);
        host_put_word(&r, 0x500 + 32 * i, w);
    }
    mv_hdr(&r, 0, 0x500, 1, 9, 3);
    mv_dim(&r, 0, 0, 4, 32, 0, 0);
    mv_hdr(&r, 1, 0xD000, 1, 0, 0);
    mv_go(&r, 5, 1, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_fault(&r), 0);
    CHECK_EQ(aux_moves(&r), 1);
    CHECK_EQ(kh_node_xform_bank_read(r.n, 9, 0), 1);
    for (int i = 0; i < 4; i++) {
        pattern(0x500 + 32 * i, w);
        host_get_word(&r, 0xD000 + 32 * i, g);
        CHECK(!memcmp(g, w, 32));
    }
    kh_node_xform_bank_clear(r.n);
    CHECK_EQ(kh_node_xform_bank_read(r.n, 9, 0), 0);
    rig_free(&r);
}

/* ---- a test-only occupant: 2 beats in, 1 word out, XOR of the beats
 * with the mode in every byte of word lane 0 ---- */
static unsigned seen_mode;
static void xor2(const uint64_t *in, unsigned mode, uint64_t *out)
{
    seen_mode = mode;
    for (int j = 0; j < 4; j++) out[j] = in[j] ^ in[4 + j];
    out[0] ^= 0x0101010101010101ull * mode;
}
static unsigned xor2_latency(const kh_params *p)
{
    (void)p;
    return 3;
}
static const kh_xform_occupant test_xor2 = {
    .id = 6, .name = "test-xor2", .in_bits = 512, .out_words = 1, .latency = xor2_latency, .convert = xor2};

/* The mover sizes both walks from the occupant's geometry: 2 source words
 * per entry, the destination steps once per entry, one word written; the
 * mode is passed through unread. */
static void plugged_in_occupant_with_its_own_geometry(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    char err[256];
    CHECK_EQ(kh_node_xform_register(r.n, &test_xor2, err, sizeof err), 0);
    CHECK_EQ(kh_node_xform_bank_read(r.n, 6, 4), 0x00010200);
    uint64_t w[4], v[4], g[4];
    for (int i = 0; i < 10; i++) {
        pattern(0x6000 + 32 * i, w);
        host_put_word(&r, 0x6000 + 32 * i, w);
    }
    mv_hdr(&r, 0, 0x6000, 1, 6, 0xB);
    mv_dim(&r, 0, 0, 10, 32, 0, 0);
    mv_hdr(&r, 1, 0xE000, 1, 0, 0);
    mv_dim(&r, 1, 0, 5, 32, 0, 0);
    mv_go(&r, 5, 1, 1, 0);
    rig_run(&r);
    CHECK_EQ(aux_moves(&r), 1);
    CHECK_EQ(seen_mode, 0xB);
    for (int e = 0; e < 5; e++) {
        pattern(0x6000 + 64 * e, w);
        pattern(0x6000 + 64 * e + 32, v);
        host_get_word(&r, 0xE000 + 32 * e, g);
        CHECK_EQ(g[0], w[0] ^ v[0] ^ 0x0B0B0B0B0B0B0B0Bull);
        CHECK_EQ(g[3], w[3] ^ v[3]);
    }
    rig_free(&r);
}

/* Registration refuses a bad occupant and names the rule. */
static void occupant_registration_checked(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    char err[256];
    kh_xform_occupant bad = test_xor2;
    bad.id = 0;
    CHECK_EQ(kh_node_xform_register(r.n, &bad, err, sizeof err), -1);
    CHECK(strstr(err, "ids 1..15") != NULL);
    bad = test_xor2;
    bad.out_words = 5;
    CHECK_EQ(kh_node_xform_register(r.n, &bad, err, sizeof err), -1);
    CHECK(strstr(err, "OUT_WORDS 5") != NULL);
    bad = test_xor2;
    bad.in_bits = 300;
    CHECK_EQ(kh_node_xform_register(r.n, &bad, err, sizeof err), -1);
    CHECK(kh_xform_builtin(1) != NULL && kh_xform_builtin(1)->in_bits == 2048);
    CHECK(kh_xform_builtin(6) == NULL);
    rig_free(&r);
}

/* Fault 7 (§11.6, Open point 7): a padded source word ends the move; the
 * entries before the faulting one are written, the partial entry is not. */
static void source_bound_axis_faults_7(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    uint64_t w[4], g[4];
    for (int i = 0; i < 12; i++) {
        pattern(0x4000 + 32 * i, w);
        host_put_word(&r, 0x4000 + 32 * i, w);
    }
    mv_hdr(&r, 0, 0x4000, 1, 0, 0);
    mv_dim(&r, 0, 0, 12, 32, 1, 1);
    mv_bound(&r, 0, 0, 0, 6); /* word 6 (entry 1, beat 2) is padding */
    mv_hdr(&r, 1, 0xC000, 1, 0, 0);
    mv_dim(&r, 1, 0, 3, 128, 0, 0);
    mv_go(&r, 5, 1, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_busy(&r), 0);
    CHECK_EQ(aux_fault(&r), 7);
    CHECK_EQ(aux_moves(&r), 0);
    pattern(0x4000, w);
    host_get_word(&r, 0xC000, g);
    CHECK(!memcmp(g, w, 32));
    host_get_word(&r, 0xC080, g);
    CHECK_EQ(g[0], 0);
    CHECK_EQ(rig_stuck(&r, r.lastlog, sizeof r.lastlog), 0);
    rig_free(&r);
}

/* Fault 6 on a misaligned destination entry; a destination bound axis
 * excluding an entry is fault 7 (Open point 8). */
static void destination_entry_faults(void)
{
    for (int which = 0; which < 2; which++) {
        rig r;
        rig_init(&r, NULL, 1, 0, 0);
        mv_hdr(&r, 0, 0x4000, 1, 0, 0);
        mv_dim(&r, 0, 0, 8, 32, 0, 0);
        if (which == 0) {
            mv_hdr(&r, 1, 0xC000, 1, 0, 0);
            mv_dim(&r, 1, 0, 2, 0x88, 0, 0); /* entry 1 at 0xC088 */
        } else {
            mv_hdr(&r, 1, 0xC000, 1, 0, 0);
            mv_dim(&r, 1, 0, 2, 0x80, 1, 1);
            mv_bound(&r, 1, 0, 0, 1); /* entry 1 outside */
        }
        mv_go(&r, 5, 1, 0, 0);
        rig_run(&r);
        CHECK_EQ(aux_busy(&r), 0);
        CHECK_EQ(aux_fault(&r), which == 0 ? 6 : 7);
        rig_free(&r);
    }
}

/* N_src not a multiple of IN_BEATS: the partial entry never completes, the
 * mover stays busy, and the hang report names the rule (§11.6). */
static void partial_entry_hangs_with_report(void)
{
    rig r;
    rig_init(&r, NULL, 1, 0, 0);
    mv_hdr(&r, 0, 0x4000, 1, 1, 0);
    mv_dim(&r, 0, 0, 12, 32, 0, 0); /* 1.5 entries of occupant 1 */
    mv_hdr(&r, 1, 0xC000, 1, 0, 0);
    mv_dim(&r, 1, 0, 2, 128, 0, 0);
    mv_go(&r, 5, 1, 0, 0);
    rig_run(&r);
    CHECK_EQ(aux_busy(&r), 1);
    char buf[2048];
    CHECK_EQ(rig_stuck(&r, buf, sizeof buf), 1);
    CHECK(strstr(buf, "not a multiple of IN_BEATS = 8") != NULL);
    rig_free(&r);
}

int main(void)
{
    KH_RUN(quant_all_ones);
    KH_RUN(quant_signed_ramp_both_packings);
    KH_RUN(quant_subnormal_and_zero_lanes);
    KH_RUN(quant_recorded_vectors_through_the_mover);
    KH_RUN(bypass_copies_four_beats_per_entry);
    KH_RUN(unknown_id_bypasses_and_sets_bank_fault);
    KH_RUN(plugged_in_occupant_with_its_own_geometry);
    KH_RUN(occupant_registration_checked);
    KH_RUN(source_bound_axis_faults_7);
    KH_RUN(destination_entry_faults);
    KH_RUN(partial_entry_hangs_with_report);
    return kh_test_end("t_node_xform");
}
