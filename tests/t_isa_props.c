/* Property tests over every layout of every embedded table: random field
 * values round-trip through encode/decode and through asm/dis, every word
 * disassembles to text that assembles back to it, and every out-of-range
 * value is refused. Deterministic (fixed seed). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/cluster.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/vector_inner.h"
#include "kohaku/isa.h"
#include "support/test.h"

static kh_isa *isa;
static uint64_t rng = 0x6b6f68616b75ULL;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* A random value of `width` bits; biased towards 0, all ones and small. */
static void rnd_val(kh_isa_val *v, unsigned width)
{
    unsigned pick = (unsigned)(rnd() % 8);
    for (int i = 0; i < 4; i++) v->w[i] = pick == 0 ? 0 : pick == 1 ? ~UINT64_C(0) : rnd();
    if (pick == 2) v->w[0] &= 0xF, v->w[1] = v->w[2] = v->w[3] = 0;
    for (unsigned i = 0; i < 4; i++) {
        unsigned lo = 64 * i;
        if (width <= lo) v->w[i] = 0;
        else if (width < lo + 64) v->w[i] &= (UINT64_C(1) << (width - lo)) - 1;
    }
}

static void rnd_word(uint64_t *w, unsigned width)
{
    kh_isa_val v;
    rnd_val(&v, width > 256 ? 256 : width);
    memset(w, 0, KH_ISA_MAX_WORDS * sizeof *w);
    memcpy(w, v.w, sizeof v.w);
    if (width > 256) w[4] = rnd() & ((UINT64_C(1) << (width - 256)) - 1);
}

static int bit_of(const uint64_t *w, unsigned b) { return (int)((w[b / 64] >> (b % 64)) & 1); }

/* Setting a field changes its bits only, and reads back what was set. */
static void set_get_round_trip_every_field(void)
{
    for (unsigned li = 0; li < kh_isa_count(isa); li++) {
        const kh_isa_layout *l = kh_isa_at(isa, li);
        unsigned width = kh_isa_layout_width(l);
        for (unsigned f = 0; f < kh_isa_field_count(l); f++) {
            for (int t = 0; t < 50; t++) {
                uint64_t w[KH_ISA_MAX_WORDS], before[KH_ISA_MAX_WORDS], ones[KH_ISA_MAX_WORDS] = {0};
                kh_isa_val v, got, all;
                rnd_word(w, width);
                memcpy(before, w, sizeof w);
                rnd_val(&v, kh_isa_field_width(l, f));
                kh_isa_set(l, w, f, &v);
                kh_isa_get(l, w, f, &got);
                if (memcmp(&v, &got, sizeof v)) {
                    kh_test_fail(__FILE__, __LINE__, "%s.%s does not read back", kh_isa_layout_name(l),
                                 kh_isa_field_name(l, f));
                    break;
                }
                /* which bits does the field own? set all ones on a zero word */
                memset(&all, 0xFF, sizeof all);
                kh_isa_set(l, ones, f, &all);
                for (unsigned b = 0; b < width; b++)
                    if (!bit_of(ones, b) && bit_of(w, b) != bit_of(before, b)) {
                        kh_test_fail(__FILE__, __LINE__, "%s.%s changed bit %u outside it", kh_isa_layout_name(l),
                                     kh_isa_field_name(l, f), b);
                        t = 50;
                        break;
                    }
            }
        }
    }
}

/* asm(dis(w)) == w for random words, with every opcode value forced in too. */
static void dis_then_asm_gives_the_word_back(void)
{
    unsigned checked = 0;
    for (unsigned li = 0; li < kh_isa_count(isa); li++) {
        const kh_isa_layout *l = kh_isa_at(isa, li);
        unsigned width = kh_isa_layout_width(l), words = kh_isa_layout_words(l);
        unsigned nops = kh_isa_op_count(l);
        int opf = kh_isa_field_find(l, "op");
        for (unsigned t = 0; t < 400 + 20 * nops; t++) {
            uint64_t w[2 * KH_ISA_MAX_WORDS], back[2 * KH_ISA_MAX_WORDS];
            char line[8192], why[9000] = "";
            unsigned used, n;
            rnd_word(w, width);
            rnd_word(w + words, width);
            if (nops && opf >= 0 && t % 2) kh_isa_set64(l, w, (unsigned)opf, kh_isa_op_value(l, t % nops));
            kh_isa_dis_word(l, w, w + words, &used, line, sizeof line);
            int rc = kh_isa_asm_line(l, line, 1, back, &n, NULL, NULL);
            if (rc || n != used || memcmp(back, w, used * words * sizeof *w)) {
                snprintf(why, sizeof why, "%s: \"%s\" (rc %d, %u of %u words)", kh_isa_layout_name(l), line, rc, n,
                         used);
                kh_test_fail(__FILE__, __LINE__, "asm(dis(w)) != w: %s", why);
                break;
            }
            checked++;
        }
    }
    CHECK(checked > 10000);
}

/* Random values written as text (decimal, hex, negative, enum names via
 * the formatter) assemble into the fields they name. */
static void asm_of_random_values_decodes_to_them(void)
{
    for (unsigned li = 0; li < kh_isa_count(isa); li++) {
        const kh_isa_layout *l = kh_isa_at(isa, li);
        if (!kh_isa_layout_unit(l)) continue;
        for (unsigned k = 0; k < kh_isa_op_count(l); k++) {
            for (int t = 0; t < 30; t++) {
                char line[4096];
                size_t m = (size_t)snprintf(line, sizeof line, "%s", kh_isa_op_name(l, k));
                kh_isa_val vals[64];
                int fs[64], nf = 0;
                uint64_t used_bits[KH_ISA_MAX_WORDS] = {0};
                for (unsigned f = 0; f < kh_isa_field_count(l) && nf < 64; f++) {
                    if (kh_isa_field_is_view(l, f) || !strcmp(kh_isa_field_name(l, f), "op")) continue;
                    /* only fields that do not overlap one already chosen */
                    uint64_t mine[KH_ISA_MAX_WORDS] = {0};
                    kh_isa_val all;
                    memset(&all, 0xFF, sizeof all);
                    kh_isa_set(l, mine, f, &all);
                    int clash = 0;
                    for (int i = 0; i < KH_ISA_MAX_WORDS; i++) clash |= (mine[i] & used_bits[i]) != 0;
                    if (clash || rnd() % 3 == 0) continue;
                    for (int i = 0; i < KH_ISA_MAX_WORDS; i++) used_bits[i] |= mine[i];
                    char val[96];
                    rnd_val(&vals[nf], kh_isa_field_width(l, f));
                    if (rnd() % 2 && kh_isa_field_width(l, f) <= 64 && !kh_isa_field_is_signed(l, f))
                        snprintf(val, sizeof val, "%" PRIu64, vals[nf].w[0]); /* plain decimal too */
                    else
                        kh_isa_format_value(l, f, &vals[nf], val, sizeof val);
                    m += (size_t)snprintf(line + m, sizeof line - m, " %s=%s", kh_isa_field_name(l, f), val);
                    fs[nf++] = (int)f;
                }
                uint64_t w[2 * KH_ISA_MAX_WORDS];
                unsigned n;
                if (kh_isa_asm_line(l, line, 1, w, &n, NULL, NULL)) {
                    kh_test_fail(__FILE__, __LINE__, "refused: %s", line);
                    return;
                }
                for (int i = 0; i < nf; i++) {
                    kh_isa_val got;
                    kh_isa_get(l, w, (unsigned)fs[i], &got);
                    if (memcmp(&got, &vals[i], sizeof got)) {
                        kh_test_fail(__FILE__, __LINE__, "%s: field %s", line, kh_isa_field_name(l, (unsigned)fs[i]));
                        return;
                    }
                }
            }
        }
    }
}

/* Every value one past a field's range is refused, the largest accepted. */
static void out_of_range_values_are_refused(void)
{
    static const char *const pow2[] = {
        "1", "2", "4", "8", "16", "32", "64", "128", "256", "512", "1024", "2048", "4096", "8192", "16384",
        "32768", "65536", "131072", "262144", "524288", "1048576", "2097152", "4194304", "8388608",
        "16777216", "33554432", "67108864", "134217728", "268435456", "536870912", "1073741824",
        "2147483648", "4294967296", "8589934592", "17179869184", "34359738368", "68719476736",
        "137438953472", "274877906944", "549755813888", "1099511627776", "2199023255552",
        "4398046511104", "8796093022208", "17592186044416", "35184372088832", "70368744177664",
        "140737488355328", "281474976710656", "562949953421312", "1125899906842624",
        "2251799813685248", "4503599627370496", "9007199254740992", "18014398509481984",
        "36028797018963968", "72057594037927936", "144115188075855872", "288230376151711744",
        "576460752303423488", "1152921504606846976", "2305843009213693952", "4611686018427387904",
        "9223372036854775808", "18446744073709551616"};
    unsigned refused = 0;
    for (unsigned li = 0; li < kh_isa_count(isa); li++) {
        const kh_isa_layout *l = kh_isa_at(isa, li);
        for (unsigned f = 0; f < kh_isa_field_count(l); f++) {
            unsigned w = kh_isa_field_width(l, f);
            kh_isa_val v;
            char err[400], txt[200];
            if (w <= 64) {
                if (kh_isa_parse_value(l, f, pow2[w], &v, err, sizeof err) == 0)
                    kh_test_fail(__FILE__, __LINE__, "%s.%s accepted %s", kh_isa_layout_name(l), kh_isa_field_name(l, f),
                                 pow2[w]);
                else if (!strstr(err, kh_isa_field_name(l, f)))
                    kh_test_fail(__FILE__, __LINE__, "message does not name the field: %s", err);
                refused++;
                /* the largest value in hex is accepted */
                snprintf(txt, sizeof txt, "0x%" PRIx64, w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1);
                CHECK_EQ(kh_isa_parse_value(l, f, txt, &v, err, sizeof err), 0);
                if (kh_isa_field_is_signed(l, f)) {
                    /* -2^(w-1) fits, -2^(w-1)-1 does not */
                    snprintf(txt, sizeof txt, "-%s", pow2[w - 1]);
                    CHECK_EQ(kh_isa_parse_value(l, f, txt, &v, err, sizeof err), 0);
                    snprintf(txt, sizeof txt, "-%" PRIu64, (UINT64_C(1) << (w - 1)) + 1);
                    CHECK_EQ(kh_isa_parse_value(l, f, txt, &v, err, sizeof err), -1);
                    refused++;
                } else {
                    CHECK_EQ(kh_isa_parse_value(l, f, "-1", &v, err, sizeof err), -1);
                    refused++;
                }
            } else {
                /* one bit too many in hex */
                size_t k = (size_t)snprintf(txt, sizeof txt, "0x");
                unsigned digits = (w + 4) / 4;
                txt[k++] = (char)("1248"[w % 4]);
                for (unsigned d = 1; d < digits; d++) txt[k++] = '0';
                txt[k] = '\0';
                CHECK_EQ(kh_isa_parse_value(l, f, txt, &v, err, sizeof err), -1);
                refused++;
            }
            CHECK_EQ(kh_isa_parse_value(l, f, "bogus_name", &v, err, sizeof err), -1);
            CHECK_EQ(kh_isa_parse_value(l, f, "", &v, err, sizeof err), -1);
        }
    }
    CHECK(refused > 300);
}

/* The generated accessors and the engine read the same bits. */
static void generated_accessors_agree_with_the_engine(void)
{
    const kh_isa_layout *cl = kh_isa_find(isa, "cluster"), *vi = kh_isa_find(isa, "vinner");
    const kh_isa_layout *hd = kh_isa_find(isa, "hdr"), *rq = kh_isa_find(isa, "mem_rd_req");
    for (int t = 0; t < 500; t++) {
        uint64_t w[KH_ISA_MAX_WORDS];
        rnd_word(w, 288);
        CHECK_EQ(kh_cluster_addr(w), kh_isa_get64(cl, w, (unsigned)kh_isa_field_find(cl, "addr")));
        CHECK_EQ(kh_cluster_n(w), kh_isa_get64(cl, w, (unsigned)kh_isa_field_find(cl, "n")));
        CHECK_EQ(kh_cluster_dfin(w), kh_isa_get64(cl, w, (unsigned)kh_isa_field_find(cl, "dfin")));
        CHECK_EQ(kh_hdr_txn(w), kh_isa_get64(hd, w, (unsigned)kh_isa_field_find(hd, "txn")));
        CHECK_EQ(kh_hdr_dst_x(w), kh_isa_get64(hd, w, (unsigned)kh_isa_field_find(hd, "dst_x")));
        CHECK_EQ(kh_mem_rd_req_addr(w), kh_isa_get64(rq, w, (unsigned)kh_isa_field_find(rq, "addr")));
        uint64_t v32 = w[0] & 0xFFFFFFFF;
        int64_t off = (int64_t)kh_isa_get64(vi, &v32, (unsigned)kh_isa_field_find(vi, "off"));
        CHECK(kh_vinner_off_s(&v32) == (off >= 8192 ? off - 16384 : off));
    }
}

int main(void)
{
    char err[512];
    isa = kh_isa_open_builtin(err, sizeof err);
    if (!isa) {
        printf("FAIL t_isa_props: %s\n", err);
        return 1;
    }
    KH_RUN(set_get_round_trip_every_field);
    KH_RUN(dis_then_asm_gives_the_word_back);
    KH_RUN(asm_of_random_values_decodes_to_them);
    KH_RUN(out_of_range_values_are_refused);
    KH_RUN(generated_accessors_agree_with_the_engine);
    kh_isa_free(isa);
    return kh_test_end("t_isa_props");
}
