/* The table format and its load-time checks (docs/isa-format.md). Each
 * refused table must name the rule, and must leave the set unchanged. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/isa.h"
#include "support/test.h"

static char err[512];

/* Load text as table "t"; returns 0 or -1 (err set). */
static int load(kh_isa *isa, const char *text)
{
    err[0] = '\0';
    return kh_isa_load(isa, "t", "isa/t.isa", text, err, sizeof err);
}

/* A table that must be refused with a message containing `want`. */
static void refused(const char *text, const char *want)
{
    kh_isa *isa = kh_isa_new();
    CHECK(load(isa, text) == -1);
    if (!strstr(err, want)) kh_test_fail(__FILE__, __LINE__, "message \"%s\" lacks \"%s\"", err, want);
    CHECK_EQ(kh_isa_count(isa), 0);
    CHECK_EQ(kh_isa_table_count(isa), 0);
    kh_isa_free(isa);
}

static void every_embedded_table_loads(void)
{
    kh_isa *isa = kh_isa_open_builtin(err, sizeof err);
    CHECK(isa != NULL);
    if (!isa) {
        printf("  %s\n", err);
        return;
    }
    const char *units[] = {"cluster", "vector", "vector-inner", "matmul", "saxpy", "rv32"};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) CHECK(kh_isa_find_unit(isa, units[i]) != NULL);
    const char *layouts[] = {"hdr", "mem_rd_req", "mem_wr_req", "mem_rd_resp", "mem_wr_data", "cu_data_data",
                             "mem_wr_ack", "cu_inst", "cu_signal", "cu_ctrl", "cu_ctrl_reply", "cu_data",
                             "mover_ctrl", "mover_hdr", "mover_dim", "mover_axis", "mover_bound", "mover_idx",
                             "mover_seed", "mover_imm", "mover_gather", "orch_status", "orch_caps",
                             "orch_prog_stat", "orch_node_status", "orch_aux_stat", "orch_tx_status",
                             "orch_rx_status", "cu_caps", "cu_status", "cu_counters", "eng_ctrl", "ilink_cap"};
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        if (!kh_isa_find(isa, layouts[i])) kh_test_fail(__FILE__, __LINE__, "no layout %s", layouts[i]);
    }
    /* type 0x7 finds the request first, 0x8 the descriptor (cli.md) */
    CHECK_STR(kh_isa_layout_name(kh_isa_find_type(isa, 7)), "cu_ctrl");
    CHECK_STR(kh_isa_layout_name(kh_isa_find_type(isa, 8)), "cu_data");
    CHECK(kh_isa_find_type(isa, 9) == NULL);
    kh_isa_free(isa);
}

static void a_good_table_loads_with_split_fields_and_comments(void)
{
    kh_isa *isa = kh_isa_new();
    int rc = load(isa,
                  "# comment\n"
                  "layout demo 16   # trailing comment\n"
                  "  doc \"a # inside quotes is text\"\n"
                  "  unit demo\n"
                  "  opfield op\n"
                  "  field op [15:12]\n"
                  "  field a {[3:0],[11:8]} default=7 doc=\"split, 8 bits\"\n"
                  "  field b [7:4] signed\n"
                  "  opcode X = 1 uses a b\n"
                  "end\n");
    CHECK_EQ(rc, 0);
    if (rc) printf("  %s\n", err);
    const kh_isa_layout *l = kh_isa_find_unit(isa, "demo");
    CHECK(l != NULL);
    if (l) {
        CHECK_STR(kh_isa_layout_doc(l), "a # inside quotes is text");
        CHECK_EQ(kh_isa_field_width(l, 1), 8);
        uint64_t w = 0;
        kh_isa_set64(l, &w, 1, 0xAB); /* a[7:4] at [3:0], a[3:0] at [11:8] */
        CHECK_EQ(w, 0x0B0A);
        CHECK_EQ(kh_isa_get64(l, &w, 1), 0xAB);
    }
    kh_isa_free(isa);
}

static void field_outside_the_width_is_refused(void)
{
    refused("layout x 8\n field a [8:0]\nend\n", "outside the layout's 8 bits");
}

static void field_wider_than_256_is_refused(void)
{
    refused("layout x 320\n field a [300:0]\nend\n", "at most 256");
}

static void overlapping_parts_are_refused(void)
{
    refused("layout x 8\n field a {[7:4],[5:0]}\nend\n", "parts overlap");
}

static void duplicate_field_is_refused(void)
{
    refused("layout x 8\n field a [7:0]\n field a [3:0] view\nend\n", "declared twice");
}

static void default_that_does_not_fit_is_refused(void)
{
    refused("layout x 8\n field a [3:0] default=16\n field b [7:4]\nend\n", "does not fit 4 bits");
    refused("layout x 8\n field a [3:0] default=-1\n field b [7:4]\nend\n", "negative default");
}

static void enum_value_that_does_not_fit_is_refused(void)
{
    refused("layout x 8\n field a [1:0] enum=p:1,q:4\n field b [7:2]\nend\n", "enum q = 4 does not fit");
    refused("layout x 8\n field a [1:0] enum=p:1,p:2\n field b [7:2]\nend\n", "appears twice");
}

static void unknown_attribute_and_directive_are_refused(void)
{
    refused("layout x 8\n field a [7:0] bogus\nend\n", "unknown attribute 'bogus'");
    refused("layout x 8\n wibble 3\n field a [7:0]\nend\n", "unknown directive 'wibble'");
}

static void unterminated_quote_is_refused(void)
{
    refused("layout x 8\n doc \"open\n field a [7:0]\nend\n", "isa/t.isa:2: unterminated");
}

static void missing_end_is_refused(void)
{
    refused("layout x 8\n field a [7:0]\n", "not closed");
}

static void uncovered_bits_are_refused(void)
{
    /* asm(dis(w)) == w needs a field over every bit */
    refused("layout x 8\n field a [7:4]\n field b [2:0]\nend\n", "leaves bits [3:3] without a field");
}

static void opcode_fields_that_overlap_are_refused(void)
{
    refused("layout x 8\n opfield op\n field op [7:6]\n field a [5:2]\n field b [3:0]\n"
            " opcode A = 1 uses a b\nend\n",
            "overlaps another field it uses");
}

static void an_opcode_gap_is_refused(void)
{
    /* opcode A uses wide; B uses narrow, whose neighbour bit 0 no field covers alone */
    refused("layout x 8\n opfield op\n field op [7:6]\n field wide [5:0]\n field narrow [5:1]\n"
            " opcode A = 1 uses wide\n opcode B = 2 uses narrow\nend\n",
            "opcode B of layout x leaves bits [0:0]");
}

static void opcode_value_must_fit_the_opfield(void)
{
    refused("layout x 8\n opfield op\n field op [7:6]\n field a [5:0]\n opcode A = 4 uses a\nend\n",
            "does not fit opfield op");
}

static void opcodes_need_an_opfield(void)
{
    refused("layout x 8\n field a [7:0]\n opcode A = 1 uses a\nend\n", "no opfield");
}

static void opcode_uses_must_name_fields(void)
{
    refused("layout x 8\n opfield op\n field op [7:6]\n field a [5:0]\n opcode A = 1 uses nope\nend\n",
            "uses nope, which is not a field");
}

static void duplicate_opcode_values_are_refused(void)
{
    refused("layout x 8\n opfield op\n field op [7:6]\n field a [5:0]\n opcode A = 1\n opcode B = 1\nend\n",
            "both have value 1");
}

static void ext_layout_must_exist_and_match(void)
{
    refused("layout x 8\n opfield op\n field op [7:6]\n field a [5:0]\n opcode A = 1 ext y\nend\n",
            "ext layout y is not in this table");
    refused("layout x 8\n opfield op\n field op [7:6]\n field a [5:0]\n opcode A = 1 ext y\nend\n"
            "layout y 16\n field b [15:0]\nend\n",
            "must be 8 bits wide");
    refused("layout x 8\n opfield op\n field op [7:6]\n field a [5:0]\n opcode A = 1 ext y\nend\n"
            "layout y 8\n field a [7:0]\nend\n",
            "field a is in both x and its ext layout y");
}

static void a_refused_table_leaves_the_set_unchanged(void)
{
    kh_isa *isa = kh_isa_new();
    CHECK_EQ(kh_isa_load(isa, "good", "isa/good.isa", "layout g 8\n field a [7:0]\nend\n", err, sizeof err), 0);
    CHECK_EQ(kh_isa_load(isa, "bad", "isa/bad.isa", "layout b 8\n field a [7:0]\nend\nlayout c 8\n", err,
                         sizeof err),
             -1);
    CHECK_EQ(kh_isa_count(isa), 1);
    CHECK(kh_isa_find(isa, "b") == NULL);
    /* the same table twice, or a layout name another table has */
    CHECK_EQ(kh_isa_load(isa, "good", "isa/good.isa", "layout h 8\n field a [7:0]\nend\n", err, sizeof err), -1);
    CHECK(strstr(err, "already loaded") != NULL);
    CHECK_EQ(kh_isa_load(isa, "other", "isa/other.isa", "layout g 8\n field a [7:0]\nend\n", err, sizeof err),
             -1);
    CHECK(strstr(err, "already defined") != NULL);
    CHECK_EQ(kh_isa_count(isa), 1);
    kh_isa_free(isa);
}

static void generated_name_clash_is_refused_by_the_c_emitter(void)
{
    /* field "a-b" and "a_b" both become kh_x_a_b */
    kh_isa *isa = kh_isa_new();
    CHECK_EQ(load(isa, "layout x 8\n field a-b [3:0]\n field a_b [7:4]\nend\n"), 0);
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK_EQ(kh_isa_emit_c_header(isa, "t", f, err, sizeof err), -1);
        CHECK(strstr(err, "defined twice") != NULL);
        fclose(f);
    }
    kh_isa_free(isa);
}

int main(void)
{
    KH_RUN(every_embedded_table_loads);
    KH_RUN(a_good_table_loads_with_split_fields_and_comments);
    KH_RUN(field_outside_the_width_is_refused);
    KH_RUN(field_wider_than_256_is_refused);
    KH_RUN(overlapping_parts_are_refused);
    KH_RUN(duplicate_field_is_refused);
    KH_RUN(default_that_does_not_fit_is_refused);
    KH_RUN(enum_value_that_does_not_fit_is_refused);
    KH_RUN(unknown_attribute_and_directive_are_refused);
    KH_RUN(unterminated_quote_is_refused);
    KH_RUN(missing_end_is_refused);
    KH_RUN(uncovered_bits_are_refused);
    KH_RUN(opcode_fields_that_overlap_are_refused);
    KH_RUN(an_opcode_gap_is_refused);
    KH_RUN(opcode_value_must_fit_the_opfield);
    KH_RUN(opcodes_need_an_opfield);
    KH_RUN(opcode_uses_must_name_fields);
    KH_RUN(duplicate_opcode_values_are_refused);
    KH_RUN(ext_layout_must_exist_and_match);
    KH_RUN(a_refused_table_leaves_the_set_unchanged);
    KH_RUN(generated_name_clash_is_refused_by_the_c_emitter);
    return kh_test_end("t_isa_load");
}
