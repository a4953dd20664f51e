/* The unit tables against the spec's field tables and worked examples
 * (cluster.md §2, §9.3, §9.5; vector.md §1.1, §4; matmul_saxpy.md §1.2,
 * §2.2) and against the RTL recordings in ../shared/vectors. Expected bit
 * positions are written here from the spec, not read from the tables. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/cluster.h"
#include "kohaku/gen/vector.h"
#include "kohaku/gen/vector_inner.h"
#include "kohaku/hex.h"
#include "kohaku/isa.h"
#include "kohaku/json.h"
#include "support/test.h"

static kh_isa *isa;

/* Set bits [hi:lo] of w to v (test-side, independent of the engine). */
static void put(uint64_t *w, unsigned hi, unsigned lo, uint64_t v)
{
    for (unsigned b = lo; b <= hi; b++)
        if ((v >> (b - lo)) & 1) w[b / 64] |= UINT64_C(1) << (b % 64);
}

/* Setting field `name` to all ones sets exactly bits [hi:lo]. */
static void expect_range(const char *layout, const char *name, unsigned hi, unsigned lo)
{
    const kh_isa_layout *l = kh_isa_find(isa, layout);
    int f = l ? kh_isa_field_find(l, name) : -1;
    if (f < 0) {
        kh_test_fail(__FILE__, __LINE__, "%s has no field %s", layout, name);
        return;
    }
    uint64_t w[5] = {0}, want[5] = {0};
    kh_isa_val ones;
    memset(&ones, 0xFF, sizeof ones);
    kh_isa_set(l, w, (unsigned)f, &ones);
    for (unsigned b = lo; b <= hi; b++) want[b / 64] |= UINT64_C(1) << (b % 64);
    for (int i = 0; i < 5; i++)
        if (w[i] != want[i])
            kh_test_fail(__FILE__, __LINE__, "%s.%s: word %d is 0x%016llx, want 0x%016llx ([%u:%u])", layout,
                         name, i, (unsigned long long)w[i], (unsigned long long)want[i], hi, lo);
    if (kh_isa_field_width(l, (unsigned)f) != hi - lo + 1)
        kh_test_fail(__FILE__, __LINE__, "%s.%s is %u bits, want %u", layout, name,
                     kh_isa_field_width(l, (unsigned)f), hi - lo + 1);
}

/* cluster.md §2 / seeds instruction-encoding.md §8.1, row by row. */
static void cluster_field_table(void)
{
    static const struct { const char *name; unsigned hi, lo; } rows[] = {
        {"op", 255, 252},    {"n", 217, 202},      {"sel", 201, 201},    {"acc", 200, 200},
        {"gm", 199, 192},    {"gn", 191, 184},     {"nk", 183, 176},     {"anchor", 175, 168},
        {"peers", 167, 144}, {"npeer", 143, 142},  {"preq", 141, 141},   {"eoff", 140, 133},
        {"aoff", 132, 125},  {"boff", 124, 117},   {"emit", 116, 116},   {"fuse", 115, 115},
        {"abank", 114, 114}, {"bbank", 113, 113},  {"fbank", 112, 112},  {"dnode", 111, 111},
        {"dst_x", 110, 107}, {"dst_y", 106, 103},  {"dbuf", 102, 95},    {"dflags", 94, 87},
        {"dack_y", 86, 83},  {"dack_x", 82, 79},   {"dmesh", 78, 77},    {"dfin", 76, 69},
        {"addr_hi", 68, 63}, {"unused", 62, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        expect_range("cluster", rows[i].name, rows[i].hi, rows[i].lo);
}

/* cluster.md §2: addr40 = addr_hi << 34 | inst[251:218], addr_hi at [68:63]. */
static void cluster_split_address(void)
{
    uint64_t addr = UINT64_C(0xAB23456789); /* 40 bits: aperture bit set, mesh 2 */
    uint64_t w[4] = {0}, want[4] = {0};
    kh_cluster_set_addr(w, addr);
    put(want, 251, 218, addr & ((UINT64_C(1) << 34) - 1));
    put(want, 68, 63, addr >> 34);
    for (int i = 0; i < 4; i++) CHECK_EQ(w[i], want[i]);
    CHECK_EQ(kh_cluster_addr(w), addr);
    CHECK_EQ(kh_cluster_addr_hi(w), addr >> 34);
    CHECK_EQ(KH_CLUSTER_ADDR_WIDTH, 40);
    /* the assembler takes the whole 40 bits and splits them */
    const kh_isa_layout *l = kh_isa_find_unit(isa, "cluster");
    uint64_t out[8];
    unsigned n;
    CHECK_EQ(kh_isa_asm_line(l, "FILL addr=0xAB23456789", 1, out, &n, NULL, NULL), 0);
    CHECK_EQ(n, 1);
    CHECK_EQ(kh_cluster_addr(out), addr);
    CHECK_EQ(kh_isa_asm_line(l, "FILL addr=0x10000000000", 1, out, &n, NULL, NULL), -1); /* 2^40 */
}

/* cli.md / cluster.py: an omitted nk is 1 and an omitted anchor 40 on every
 * cluster instruction; everything else 0. */
static void cluster_defaults_nk_1_anchor_40(void)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, "cluster");
    const char *lines[] = {"FILL", "GEMM", "DRAIN", "OP op=7"};
    for (size_t i = 0; i < 4; i++) {
        uint64_t out[8], want[4] = {0};
        unsigned n;
        CHECK_EQ(kh_isa_asm_line(l, lines[i], 1, out, &n, NULL, NULL), 0);
        put(want, 255, 252, i < 3 ? i + 1 : 7);
        put(want, 183, 176, 1);
        put(want, 175, 168, 40);
        for (int k = 0; k < 4; k++) CHECK_EQ(out[k], want[k]);
    }
    CHECK_EQ(KH_CLUSTER_NK_DEFAULT, 1);
    CHECK_EQ(KH_CLUSTER_ANCHOR_DEFAULT, 40);
}

/* cluster.md §9.5: the end-to-end program, words written from §2. */
static void cluster_worked_program_9_5(void)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, "cluster");
    const char *prog = "# cluster.md 9.5: C = A x B, one block\n"
                       "FILL sel=a n=1 eoff=0 addr=0x0\n"
                       "FILL sel=b n=1 eoff=0 addr=0x40000\n"
                       "GEMM gm=1 gn=1 nk=1 acc=0 anchor=40\n"
                       "DRAIN n=1 addr=0x100000\n";
    uint64_t *w;
    size_t n;
    CHECK_EQ(kh_isa_asm_text(l, prog, &w, &n, NULL, NULL), 0);
    CHECK_EQ(n, 4);
    uint64_t want[4][4];
    memset(want, 0, sizeof want);
    for (int i = 0; i < 4; i++) {
        put(want[i], 183, 176, 1);  /* nk default */
        put(want[i], 175, 168, 40); /* anchor default */
    }
    put(want[0], 255, 252, 1), put(want[0], 217, 202, 1);
    put(want[1], 255, 252, 1), put(want[1], 217, 202, 1), put(want[1], 201, 201, 1);
    put(want[1], 251, 218, 0x40000);
    put(want[2], 255, 252, 2), put(want[2], 199, 192, 1), put(want[2], 191, 184, 1);
    put(want[3], 255, 252, 3), put(want[3], 217, 202, 1), put(want[3], 251, 218, 0x100000);
    for (size_t i = 0; i < 4 && i < n; i++)
        for (int k = 0; k < 4; k++) CHECK_EQ(w[4 * i + k], want[i][k]);
    char *text = kh_isa_dis_text(l, w, n);
    CHECK_STR(text, "FILL n=1\nFILL addr=0x40000 n=1 sel=b\nGEMM gm=1 gn=1\nDRAIN addr=0x100000 n=1\n");
    free(text);
    free(w);
}

/* cluster.md §2: a field FILL does not use draws a warning, still assembles. */
static int nwarn, nerr;
static char lastmsg[600];
static void count(void *ctx, kh_isa_sev sev, const char *msg)
{
    (void)ctx;
    if (sev == KH_ISA_WARN) nwarn++;
    else nerr++;
    snprintf(lastmsg, sizeof lastmsg, "%s", msg);
}

static void cluster_unused_field_warns(void)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, "cluster");
    uint64_t out[8];
    unsigned n;
    nwarn = nerr = 0;
    CHECK_EQ(kh_isa_asm_line(l, "FILL n=2 gm=3", 5, out, &n, count, NULL), 0);
    CHECK_EQ(nwarn, 1);
    CHECK(strstr(lastmsg, "line 5") && strstr(lastmsg, "FILL does not use field gm"));
    CHECK_EQ(kh_cluster_gm(out), 3);
}

/* Errors name the line, the field and the value (style.md). */
static void cluster_errors_name_line_field_value(void)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, "cluster");
    uint64_t out[8];
    unsigned n;
    nwarn = nerr = 0;
    CHECK_EQ(kh_isa_asm_line(l, "DRAIN n=70000", 3, out, &n, count, NULL), -1);
    CHECK(strstr(lastmsg, "line 3") && strstr(lastmsg, "n=70000 does not fit 16 bits") &&
          strstr(lastmsg, "cluster.isa: n [217:202]"));
    CHECK_EQ(kh_isa_asm_line(l, "FROB n=1", 4, out, &n, count, NULL), -1);
    CHECK(strstr(lastmsg, "line 4") && strstr(lastmsg, "unknown mnemonic 'FROB'"));
    CHECK_EQ(kh_isa_asm_line(l, "FILL q=1", 6, out, &n, count, NULL), -1);
    CHECK(strstr(lastmsg, "no field 'q'"));
    CHECK_EQ(kh_isa_asm_line(l, "FILL n=1 n=2", 6, out, &n, count, NULL), -1);
    CHECK(strstr(lastmsg, "given twice"));
    CHECK_EQ(kh_isa_asm_line(l, "FILL sel=c", 6, out, &n, count, NULL), -1);
    CHECK(strstr(lastmsg, "sel=c"));
    CHECK_EQ(kh_isa_asm_line(l, "FILL op=2", 6, out, &n, count, NULL), -1);
    CHECK_EQ(kh_isa_asm_line(l, "OP n=1", 6, out, &n, count, NULL), -1);
    CHECK_EQ(kh_isa_asm_line(l, "FILL addr_hi=1", 6, out, &n, count, NULL), -1);
    CHECK(strstr(lastmsg, "view"));
    CHECK_EQ(kh_isa_asm_line(l, "FILL n=-1", 6, out, &n, count, NULL), -1);
    CHECK(strstr(lastmsg, "unsigned"));
}

/* shared/vectors/cluster.jsonl: every recorded instruction word decodes to
 * the opcode sequence the README describes and round-trips. */
static void cluster_recorded_words_round_trip(void)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, "cluster");
    char path[512], msg[200];
    snprintf(path, sizeof path, "%s/vectors/cluster.jsonl", kh_test_data_dir());
    kh_jsonl r;
    kh_json_error e;
    kh_json *doc;
    if (kh_jsonl_open(&r, path, msg, sizeof msg)) {
        kh_test_fail(__FILE__, __LINE__, "%s", msg);
        return;
    }
    unsigned words = 0, fills = 0;
    while (kh_jsonl_next(&r, &doc, &e) > 0 && doc) {
        const kh_json_val *insts = kh_json_get(kh_json_root(doc), "insts");
        for (size_t i = 0; i < kh_json_len(insts); i++) {
            const char *hex = kh_json_str(kh_json_at(insts, i), NULL);
            uint64_t w[4], back[8];
            char line[2048], err[100];
            unsigned used, n;
            CHECK_EQ(kh_hex_parse(hex, w, 256, 1, err, sizeof err), 0);
            kh_isa_dis_word(l, w, NULL, &used, line, sizeof line);
            CHECK_EQ(kh_isa_asm_line(l, line, 1, back, &n, NULL, NULL), 0);
            CHECK(n == 1 && !memcmp(back, w, sizeof w));
            /* README: every FILL of this snapshot sets the reserved bit 141 */
            if (kh_cluster_op(w) == KH_CLUSTER_OP_FILL) {
                fills++;
                CHECK_EQ(kh_cluster_preq(w), 1);
            }
            words++;
        }
        kh_json_free(doc);
    }
    kh_jsonl_close(&r);
    CHECK(words > 20);
    CHECK(fills > 5);
}

/* vector.md §1.1: outer fields, DESC value split like the cluster's addr. */
static void vector_outer_field_table(void)
{
    expect_range("vec", "op", 255, 252);
    expect_range("vec", "addr", 251, 243);
    expect_range("vec", "ad", 251, 249);
    expect_range("vec", "fld", 248, 246);
    expect_range("vec", "word", 31, 0);
    uint64_t w[4] = {0}, want[4] = {0};
    kh_vec_set_value(w, UINT64_C(0x8000001000)); /* staging base: bit 39 at [68] */
    put(want, 245, 212, 0x1000);
    put(want, 68, 63, 0x20);
    for (int i = 0; i < 4; i++) CHECK_EQ(w[i], want[i]);
    /* fld 1..4: stride = value[33:16] (signed 18 bits), bound = value[15:0] */
    memset(w, 0, sizeof w);
    kh_vec_set_value(w, (UINT64_C(0x3FFE0) << 16) | 8); /* stride -32, bound 8 */
    CHECK(kh_vec_stride_s(w) == -32);
    CHECK_EQ(kh_vec_bound(w), 8);
}

/* vector.jsonl: each CU_INST is the kind the recording says; DESC words
 * carry the recorded (ad, fld, value); kernels disassemble to the mnemonics
 * of the recorded listings and every word round-trips. */
static void vector_recorded_programs(void)
{
    const kh_isa_layout *vi = kh_isa_find_unit(isa, "vector-inner");
    char path[512], msg[200];
    snprintf(path, sizeof path, "%s/vectors/vector.jsonl", kh_test_data_dir());
    kh_jsonl r;
    kh_json_error e;
    kh_json *doc;
    if (kh_jsonl_open(&r, path, msg, sizeof msg)) {
        kh_test_fail(__FILE__, __LINE__, "%s", msg);
        return;
    }
    unsigned ninner = 0, ndesc = 0;
    while (kh_jsonl_next(&r, &doc, &e) > 0 && doc) {
        const kh_json_val *root = kh_json_root(doc);
        const kh_json_val *insts = kh_json_get(root, "insts"), *kinds = kh_json_get(root, "inst_kinds");
        const kh_json_val *descs = kh_json_get(root, "descs");
        size_t di = 0;
        for (size_t i = 0; i < kh_json_len(insts); i++) {
            uint64_t w[4];
            char err[100];
            const char *kind = kh_json_str(kh_json_at(kinds, i), NULL);
            CHECK_EQ(kh_hex_parse(kh_json_str(kh_json_at(insts, i), NULL), w, 256, 1, err, sizeof err), 0);
            unsigned op = (unsigned)kh_vec_op(w);
            if (!strcmp(kind, "imem")) CHECK_EQ(op, KH_VEC_OP_IMEM);
            if (!strcmp(kind, "run")) CHECK_EQ(op, KH_VEC_OP_RUN);
            if (!strcmp(kind, "desc")) {
                const kh_json_val *d = kh_json_at(descs, di++);
                uint64_t ad, fld, value = 0;
                const char *vs = kh_json_str(kh_json_get(d, "value"), NULL);
                CHECK_EQ(op, KH_VEC_OP_DESC);
                CHECK_EQ(kh_json_get_u64(d, "ad", &ad, err, sizeof err), 0);
                CHECK_EQ(kh_json_get_u64(d, "fld", &fld, err, sizeof err), 0);
                CHECK(vs && kh_hex_parse(vs, &value, 40, 1, err, sizeof err) == 0);
                CHECK_EQ(kh_vec_ad(w), ad);
                CHECK_EQ(kh_vec_fld(w), fld);
                CHECK_EQ(kh_vec_value(w), value);
                ndesc++;
            }
        }
        const kh_json_val *ks = kh_json_get(root, "kernels");
        for (size_t k = 0; k < kh_json_len(ks); k++) {
            const kh_json_val *words = kh_json_get(kh_json_at(ks, k), "words");
            const kh_json_val *lst = kh_json_get(kh_json_at(ks, k), "asm");
            size_t n = kh_json_len(words);
            uint64_t *w = calloc(n + 1, sizeof *w);
            char err[100];
            for (size_t i = 0; i < n; i++)
                CHECK_EQ(kh_hex_parse(kh_json_str(kh_json_at(words, i), NULL), &w[i], 32, 1, err, sizeof err), 0);
            for (size_t i = 0; i < n;) {
                char line[1024];
                unsigned used;
                const char *want = kh_json_str(kh_json_at(lst, i), NULL);
                kh_isa_dis_word(vi, &w[i], i + 1 < n ? &w[i + 1] : NULL, &used, line, sizeof line);
                size_t ml = strcspn(line, " ");
                if (!want || strncmp(want, line, ml) || (want[ml] != ' ' && want[ml] != '\0'))
                    kh_test_fail(__FILE__, __LINE__, "word %zu: dis \"%s\", listing \"%s\"", i, line,
                                 want ? want : "(none)");
                if (used == 2) CHECK(strstr(kh_json_str(kh_json_at(lst, i + 1), NULL), ".imm") != NULL);
                i += used;
                ninner++;
            }
            char *text = kh_isa_dis_text(vi, w, n);
            uint64_t *back;
            size_t nb;
            CHECK_EQ(kh_isa_asm_text(vi, text, &back, &nb, NULL, NULL), 0);
            CHECK(nb == n && !memcmp(back, w, n * sizeof *w));
            free(back);
            free(text);
            free(w);
        }
        kh_json_free(doc);
    }
    kh_jsonl_close(&r);
    CHECK(ninner > 100);
    CHECK(ndesc > 10);
}

/* vector.md §4.1: the ALU form and the load/store form. */
static void vector_inner_field_table(void)
{
    static const struct { const char *name; unsigned hi, lo; } rows[] = {
        {"op", 31, 27}, {"sa", 26, 25}, {"sb", 24, 23}, {"sc", 22, 21}, {"vd", 20, 17},
        {"va", 16, 13}, {"vb", 12, 9},  {"vc", 8, 5},   {"pr", 4, 3},   {"pm", 2, 1},
        {"dt", 26, 24}, {"ad", 23, 21}, {"off", 13, 0}, {"kind", 7, 5}, {"mode", 14, 13},
        {"start", 8, 0}, {"peer", 24, 24}, {"sig", 25, 25}, {"dst_x", 20, 17}, {"dst_y", 16, 13},
        {"buf", 12, 9},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        expect_range("vinner", rows[i].name, rows[i].hi, rows[i].lo);
    /* opcode map: 32 names, 0x00 VMOV .. 0x1F VHALT */
    const kh_isa_layout *l = kh_isa_find_unit(isa, "vector-inner");
    CHECK_EQ(kh_isa_op_count(l), 32);
    CHECK_EQ(KH_VINNER_OP_VMOV, 0x00);
    CHECK_EQ(KH_VINNER_OP_VRSQRT, 0x11);
    CHECK_EQ(KH_VINNER_OP_VSETI, 0x1A);
    CHECK_EQ(KH_VINNER_OP_VHALT, 0x1F);
}

/* vector.md §5.6: VSETI is two words; the immediate is the next word's [23:0]. */
static void vector_inner_vseti_two_words(void)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, "vector-inner");
    uint64_t out[4];
    unsigned n;
    CHECK_EQ(kh_isa_asm_line(l, "VSETI vd=14 imm=0x000008", 1, out, &n, NULL, NULL), 0);
    CHECK_EQ(n, 2);
    CHECK_EQ(out[0], 0xd01c0000); /* the recorded "VSETI S14" of vector.jsonl case 0 */
    CHECK_EQ(out[1], 0x00000008);
    char line[256];
    unsigned used;
    kh_isa_dis_word(l, &out[0], &out[1], &used, line, sizeof line);
    CHECK_EQ(used, 2);
    CHECK_STR(line, "VSETI vd=14 imm=8");
    /* without its second word it is written raw and stays one word */
    kh_isa_dis_word(l, &out[0], NULL, &used, line, sizeof line);
    CHECK_EQ(used, 1);
    CHECK_STR(line, "OP op=26 vd=14");
    CHECK_EQ(kh_isa_asm_line(l, line, 1, out + 2, &n, NULL, NULL), 0);
    CHECK(n == 1 && out[2] == 0xd01c0000);
}

/* vector.md §4.1: VLD's offset is signed; assembler takes negative decimals. */
static void vector_inner_signed_offset(void)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, "vector-inner");
    uint64_t out[2];
    unsigned n;
    CHECK_EQ(kh_isa_asm_line(l, "VLD vd=2 dt=fp16 ad=3 off=-8", 1, out, &n, NULL, NULL), 0);
    CHECK_EQ(out[0], (0x14u << 27) | (1u << 24) | (3u << 21) | (2u << 17) | 0x3FF8u);
    CHECK(kh_vinner_off_s(out) == -8);
    CHECK_EQ(kh_isa_asm_line(l, "VLD off=-8193", 1, out, &n, NULL, NULL), -1);
    CHECK_EQ(kh_isa_asm_line(l, "VLD off=16384", 1, out, &n, NULL, NULL), -1);
    CHECK_EQ(kh_isa_asm_line(l, "VLD off=-8192", 1, out, &n, NULL, NULL), 0);
}

/* matmul_saxpy.md §1.2 and §2.2. */
static void matmul_and_saxpy_field_tables(void)
{
    expect_range("matmul", "op", 255, 252);
    expect_range("matmul", "addr_a", 251, 218);
    expect_range("matmul", "addr_b", 217, 184);
    expect_range("matmul", "tile", 183, 180);
    expect_range("matmul", "first", 179, 179);
    expect_range("matmul", "anchor", 178, 171);
    expect_range("matmul", "unused", 170, 0);
    expect_range("saxpy", "op", 255, 248);
    expect_range("saxpy", "n", 247, 224);
    expect_range("saxpy", "a", 223, 192);
    expect_range("saxpy", "x_addr", 167, 128);
    expect_range("saxpy", "y_addr", 103, 64);
    const kh_isa_layout *l = kh_isa_find_unit(isa, "matmul");
    CHECK_EQ(kh_isa_op_value(l, (unsigned)kh_isa_op_find(l, "BLOCK")), 1);
    CHECK_EQ(kh_isa_op_value(l, (unsigned)kh_isa_op_find(l, "EMIT")), 2);
}

/* saxpy.jsonl case 0's payload: op 1, n 1, a = 2.0f, x at 0x1000, y at 0x8000. */
static void saxpy_recorded_payload(void)
{
    const kh_isa_layout *l = kh_isa_find_unit(isa, "saxpy");
    uint64_t w[4];
    char err[100], line[512];
    unsigned used;
    CHECK_EQ(kh_hex_parse("0100000140000000000000000000100000000000000080000000000000000000", w, 256, 1, err,
                          sizeof err),
             0);
    kh_isa_dis_word(l, w, NULL, &used, line, sizeof line);
    CHECK_STR(line, "SAXPY n=1 a=0x40000000 x_addr=0x1000 y_addr=0x8000");
    CHECK_EQ(kh_isa_validate(l, w, NULL, NULL), 0);
    /* n > 64 faults (0xBAD00002): the validator says so */
    uint64_t big[8];
    unsigned n;
    nwarn = nerr = 0;
    CHECK_EQ(kh_isa_asm_line(l, "SAXPY n=65", 7, big, &n, count, NULL), 0); /* written, with a warning */
    CHECK(nwarn == 1 && nerr == 0 && strstr(lastmsg, "line 7: warning: saxpy n=65 exceeds the largest legal value 64"));
    CHECK_EQ(kh_isa_validate(l, big, NULL, NULL), 1);
}

int main(void)
{
    char err[512];
    isa = kh_isa_open_builtin(err, sizeof err);
    if (!isa) {
        printf("FAIL t_isa_units: %s\n", err);
        return 1;
    }
    KH_RUN(cluster_field_table);
    KH_RUN(cluster_split_address);
    KH_RUN(cluster_defaults_nk_1_anchor_40);
    KH_RUN(cluster_worked_program_9_5);
    KH_RUN(cluster_unused_field_warns);
    KH_RUN(cluster_errors_name_line_field_value);
    KH_RUN(cluster_recorded_words_round_trip);
    KH_RUN(vector_outer_field_table);
    KH_RUN(vector_recorded_programs);
    KH_RUN(vector_inner_field_table);
    KH_RUN(vector_inner_vseti_two_words);
    KH_RUN(vector_inner_signed_offset);
    KH_RUN(matmul_and_saxpy_field_tables);
    KH_RUN(saxpy_recorded_payload);
    kh_isa_free(isa);
    return kh_test_end("t_isa_units");
}
