/* Map pictures (mesh.md §2): shape, tokens, memory-port numbering, the
 * unit-to-port binding, and one test per rule violation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/machine.h"
#include "kohaku/mesh.h"
#include "support/test.h"

static char err[512];

static kh_map *parse(const char *text)
{
    err[0] = 0;
    kh_map_units units;
    kh_machine_map_units(&units);
    return kh_map_parse(text, &units, err, sizeof err);
}

/* The parse fails and the message names every piece given (NULL: skip). */
static void expect_refused(const char *text, const char *where, const char *token, const char *rule,
                           int line)
{
    kh_map *m = parse(text);
    if (m) {
        kh_test_fail(__FILE__, line, "map accepted, want refused");
        kh_map_free(m);
        return;
    }
    if (where && !strstr(err, where)) kh_test_fail(__FILE__, line, "'%s' not in: %s", where, err);
    if (token && !strstr(err, token)) kh_test_fail(__FILE__, line, "'%s' not in: %s", token, err);
    if (rule && !strstr(err, rule)) kh_test_fail(__FILE__, line, "'%s' not in: %s", rule, err);
}
#define REFUSED(text, where, token, rule) expect_refused(text, where, token, rule, __LINE__)

static void every_reference_map_parses(void)
{
    static const struct {
        const char *file;
        unsigned nx, ny, ports;
    } maps[] = {
        {"mesh_1x1_2+2.txt", 1, 1, 1},  {"mesh_1x1_min.txt", 1, 1, 1},
        {"mesh_1x2_4+0.txt", 1, 2, 2},  {"mesh_2x1_6+0.txt", 2, 1, 2},
        {"mesh_2x2.txt", 2, 2, 2},      {"mesh_2x2_1port.txt", 2, 2, 1},
        {"mesh_2x2_4+4.txt", 2, 2, 2},  {"mesh_2x2_4cu4vec.txt", 2, 2, 2},
        {"mesh_2x2_6+0.txt", 2, 2, 2},  {"mesh_2x2_6+2.txt", 2, 2, 2},
        {"mesh_2x2_6+4.txt", 2, 2, 2},  {"mesh_2x2_7+2.txt", 2, 2, 2},
        {"mesh_2x2_8+2.txt", 2, 2, 2},  {"mesh_2x3_6cu3vec.txt", 2, 3, 3},
        {"mesh_2x4.txt", 2, 4, 4},      {"mesh_3x2_6+3.txt", 2, 3, 3},
        {"mesh_3x2_6+4.txt", 2, 3, 3},  {"mesh_4x2.txt", 4, 2, 2},
        {"mesh_4x2_4+4.txt", 2, 4, 4},  {"mesh_4x4.txt", 4, 4, 4},
        {"mesh_4x5.txt", 5, 4, 4},      {"saxpy_map.txt", 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/maps/%s", kh_test_data_dir(), maps[i].file);
        kh_map_units units;
        kh_machine_map_units(&units);
        kh_map *m = kh_map_load(path, &units, err, sizeof err);
        if (!m) {
            kh_test_fail(__FILE__, __LINE__, "%s", err);
            continue;
        }
        CHECK_EQ(kh_map_nx(m), maps[i].nx);
        CHECK_EQ(kh_map_ny(m), maps[i].ny);
        CHECK_EQ(kh_map_nports(m), maps[i].ports);
        /* NX*NY locals + 2(NX+NY) edge slots (mesh.md §1) */
        CHECK_EQ(kh_map_nendpoints(m), maps[i].nx * maps[i].ny + 2 * (maps[i].nx + maps[i].ny));
        kh_map_free(m);
    }
}

static void rows_are_y_columns_are_x(void)
{
    /* mesh_4x2.txt's shape: 4 wide, 2 tall (non-square, mesh.md §1) */
    kh_map *m = parse("xxx vec vec vec vec xxx\n"
                      "mag mat nul mat nul vec\n"
                      "mag mat nul mat nul vec\n"
                      "xxx vec vec vec vec xxx\n");
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ(kh_map_nx(m), 4);
    CHECK_EQ(kh_map_ny(m), 2);
    const kh_map_ep *e = kh_map_at(m, 5, 1); /* east edge of row 1 */
    CHECK(e && !strcmp(e->token, "vec") && e->edge && e->kind == KH_EP_UNIT);
    e = kh_map_at(m, 2, 1); /* a router local */
    CHECK(e && !strcmp(e->token, "nul") && !e->edge && e->kind == KH_EP_NONE);
    e = kh_map_at(m, 3, 2);
    CHECK(e && !strcmp(e->token, "mat") && !e->edge);
    CHECK(kh_map_at(m, 0, 0) == NULL); /* corners hold no endpoint */
    CHECK(kh_map_at(m, 5, 3) == NULL);
    CHECK(kh_map_at(m, 6, 1) == NULL); /* off the map */
    /* endpoints are listed row-major */
    e = kh_map_endpoint(m, 0);
    CHECK(e && e->x == 1 && e->y == 0);
    e = kh_map_endpoint(m, 4);
    CHECK(e && e->x == 0 && e->y == 1);
    kh_map_free(m);
}

static void comments_blank_lines_and_dashes(void)
{
    kh_map *m = parse("# a comment line\n"
                      "\n"
                      "   \t\n"
                      "xxx-vec-xxx   # trailing comment\r\n"
                      "mag---mat  nul\r\n"
                      "\n"
                      "... sax ...\n");
    CHECK(m != NULL);
    if (!m) {
        printf("  %s\n", err);
        return;
    }
    CHECK_EQ(kh_map_nx(m), 1);
    CHECK_EQ(kh_map_ny(m), 1);
    const kh_map_ep *e = kh_map_at(m, 1, 2);
    CHECK(e && !strcmp(e->token, "sax") && e->kind == KH_EP_UNIT && e->line == 7);
    kh_map_free(m);
}

static void tokens_from_the_unit_registry(void)
{
    unsigned n;
    const kh_unit_kind *const *k = kh_unit_kinds(&n);
    for (unsigned i = 0; i < n; i++) {
        if (!k[i]->token) continue;
        char text[128];
        snprintf(text, sizeof text, "xxx %s xxx\nmag nul nul\nxxx nul xxx\n", k[i]->token);
        kh_map *m = parse(text);
        CHECK(m != NULL);
        if (!m) continue;
        const kh_map_ep *e = kh_map_at(m, 1, 0);
        CHECK(e && e->kind == KH_EP_UNIT && kh_unit_by_token(e->token) == k[i]);
        kh_map_free(m);
    }
}

static void empty_tokens_mean_nothing_attached(void)
{
    kh_map *m = parse("... xxx ...\nmag nul ...\nxxx ... xxx\n");
    CHECK(m != NULL);
    if (!m) return;
    for (unsigned i = 0; i < kh_map_nendpoints(m); i++) {
        const kh_map_ep *e = kh_map_endpoint(m, i);
        if (strcmp(e->token, "mag")) CHECK(e->kind == KH_EP_NONE && e->port == -1 && e->bound_port == -1);
    }
    kh_map_free(m);
}

static void memory_ports_numbered_row_major(void)
{
    /* mags on three edges: reading order y outer, x inner (mesh.md §2) */
    kh_map *m = parse("xxx nul mag xxx\n"
                      "mag mat mat nul\n"
                      "nul mat mat mag\n"
                      "xxx mag nul xxx\n");
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ(kh_map_nports(m), 4);
    static const unsigned want[4][2] = {{2, 0}, {0, 1}, {3, 2}, {1, 3}};
    for (unsigned i = 0; i < 4; i++) {
        const kh_map_ep *p = kh_map_port(m, i);
        CHECK(p && p->x == want[i][0] && p->y == want[i][1] && p->port == (int)i && p->kind == KH_EP_MEM);
    }
    kh_map_free(m);
}

static void unit_bound_to_nearest_port_by_clamped_distance(void)
{
    kh_map *m = parse("xxx vec nul xxx\n"
                      "nul mat mat vec\n"
                      "mag mat mat mag\n"
                      "xxx nul vec xxx\n");
    CHECK(m != NULL);
    if (!m) return;
    /* port 0 is the first mag in reading order, (0,2); port 1 is (3,2) */
    CHECK_EQ(kh_map_port(m, 0)->x, 0);
    CHECK_EQ(kh_map_port(m, 0)->y, 2);
    /* clamped: port 0 -> (1,2), port 1 -> (2,2)
     *   (1,0)->(1,1): d0 = 1, d1 = 2 -> 0     (2,3)->(2,2): d0 = 1, d1 = 0 -> 1
     *   (1,1): d0 = 1, d1 = 2 -> 0            (2,1): d0 = 2, d1 = 1 -> 1
     *   (1,2): d0 = 0 -> 0                    (2,2): d1 = 0 -> 1
     *   (3,1)->(2,1): d0 = 2, d1 = 1 -> 1 */
    static const struct {
        unsigned x, y;
        int port;
    } want[] = {{1, 0, 0}, {2, 3, 1}, {1, 1, 0}, {2, 1, 1}, {1, 2, 0}, {2, 2, 1}, {3, 1, 1}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const kh_map_ep *e = kh_map_at(m, want[i].x, want[i].y);
        CHECK(e && e->kind == KH_EP_UNIT);
        if (e && e->bound_port != want[i].port)
            kh_test_fail(__FILE__, __LINE__, "(%u,%u) bound to %d, want %d", want[i].x, want[i].y,
                         e->bound_port, want[i].port);
    }
    kh_map_free(m);
}

static void binding_ties_go_to_the_lowest_port(void)
{
    /* mags at (0,1) port 0 and (0,2) port 1 of a 2x2; clamped (1,1), (1,2).
     * (2,0)->(2,1): d0 = 1, d1 = 2 -> 0; (2,3)->(2,2): d0 = 2, d1 = 1 -> 1.
     * Then a 2x3: unit at (3,2)->(2,2) between mags (0,1) and (0,3), clamped
     * (1,1) and (1,3): d0 = 1 + 1 = 2, d1 = 1 + 1 = 2, a tie -> port 0. */
    kh_map *m = parse("xxx nul vec xxx\n"
                      "mag nul nul nul\n"
                      "mag nul nul nul\n"
                      "xxx nul vec xxx\n");
    CHECK(m != NULL);
    if (m) {
        CHECK_EQ(kh_map_at(m, 2, 0)->bound_port, 0);
        CHECK_EQ(kh_map_at(m, 2, 3)->bound_port, 1);
        kh_map_free(m);
    }
    m = parse("xxx nul nul xxx\n"
              "mag nul nul nul\n"
              "nul nul nul vec\n"
              "mag nul nul nul\n"
              "xxx nul nul xxx\n");
    CHECK(m != NULL);
    if (m) {
        CHECK_EQ(kh_map_at(m, 3, 2)->bound_port, 0);
        kh_map_free(m);
    }
}

static void largest_grid_14x14_accepted(void)
{
    char text[16 * 16 * 4 + 64];
    size_t o = 0;
    for (unsigned y = 0; y < 16; y++) {
        for (unsigned x = 0; x < 16; x++) {
            int corner = (x == 0 || x == 15) && (y == 0 || y == 15);
            const char *t = corner ? "xxx" : (x == 0 && y == 1) ? "mag" : "vec";
            o += (size_t)snprintf(text + o, sizeof text - o, "%s%s", t, x == 15 ? "\n" : " ");
        }
    }
    kh_map *m = parse(text);
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ(kh_map_nx(m), 14);
    CHECK_EQ(kh_map_ny(m), 14);
    CHECK_EQ(kh_map_nendpoints(m), 14 * 14 + 4 * 14);
    kh_map_free(m);
}

/* ---- one test per rule violation (mesh.md §2) ---- */

static void token_must_be_three_characters(void)
{
    REFUSED("xxx vec xxx\nmag matt nul\nxxx nul xxx\n", "row y=1, column x=1", "'matt'",
            "exactly 3");
    REFUSED("xxx ve xxx\nmag mat nul\nxxx nul xxx\n", "row y=0, column x=1", "'ve'", "exactly 3");
}

static void retired_tokens_refused(void)
{
    REFUSED("xxx vec xxx\nmag mgr nul\nxxx nul xxx\n", "row y=1, column x=1", "'mgr'", "retired");
    REFUSED("xxx vec xxx\nmag acu nul\nxxx nul xxx\n", "row y=1, column x=1", "'acu'", "retired");
    REFUSED("xxx cpu xxx\nmag mat nul\nxxx nul xxx\n", "row y=0, column x=1", "'cpu'", "retired");
}

static void unknown_token_refused(void)
{
    REFUSED("xxx vec xxx\nmag mat foo\nxxx nul xxx\n", "row y=1, column x=2", "'foo'",
            "unknown token");
    /* bytes that are not text are shown escaped */
    REFUSED("xxx vec xxx\nmag m\001t nul\nxxx nul xxx\n", "row y=1, column x=1", "\\x01",
            "unknown token");
}

static void at_least_three_rows(void)
{
    REFUSED("xxx vec xxx\nmag mat nul\n", "row y=2", NULL, "at least 3 rows");
    REFUSED("# nothing\n\n", "row y=0", NULL, "at least 3 rows");
}

static void rows_equally_long(void)
{
    REFUSED("xxx vec xxx\nmag mat nul nul\nxxx nul xxx\n", "row y=1, column x=3", "'nul'",
            "equally long");
    REFUSED("xxx vec xxx\nmag mat nul\nxxx nul\n", "row y=2, column x=2", "none", "equally long");
}

static void at_least_three_columns(void)
{
    REFUSED("xxx xxx\nmag mat\nxxx xxx\n", "row y=0, column x=2", NULL, "at least 3 columns");
}

static void at_most_14_routers_per_axis(void)
{
    char text[1024];
    size_t o = 0;
    /* 17 columns: NX = 15 */
    for (unsigned y = 0; y < 3; y++)
        for (unsigned x = 0; x < 17; x++)
            o += (size_t)snprintf(text + o, sizeof text - o, "%s%s",
                                  y == 1 && x == 0 ? "mag" : (y != 1 && (x == 0 || x == 16)) ? "xxx" : "nul",
                                  x == 16 ? "\n" : " ");
    REFUSED(text, "row y=0, column x=16", "'xxx'", "at most 14");
    /* 17 rows: NY = 15 */
    o = 0;
    for (unsigned y = 0; y < 17; y++)
        o += (size_t)snprintf(text + o, sizeof text - o, "%s\n",
                              y == 0 || y == 16 ? "xxx nul xxx" : y == 1 ? "mag nul nul" : "nul nul nul");
    REFUSED(text, "row y=16, column x=0", "'xxx'", "at most 14");
}

static void corners_must_be_empty(void)
{
    REFUSED("nul vec xxx\nmag mat nul\nxxx nul xxx\n", "row y=0, column x=0", "'nul'", "corner");
    REFUSED("xxx vec xxx\nmag mat nul\nxxx nul vec\n", "row y=2, column x=2", "'vec'", "corner");
    REFUSED("xxx vec mag\nmag mat nul\nxxx nul xxx\n", "row y=0, column x=2", "'mag'", "corner");
}

static void mag_only_on_edges(void)
{
    REFUSED("xxx vec vec xxx\nmag mat mag nul\nmag mat mat nul\nxxx nul nul xxx\n",
            "row y=1, column x=2", "'mag'", "edge positions");
}

static void at_most_four_mags(void)
{
    REFUSED("xxx mag mag xxx\nmag mat mat nul\nmag mat mat mag\nxxx nul nul xxx\n",
            "row y=2, column x=3", "'mag'", "at most 4");
}

static void at_least_one_mag(void)
{
    REFUSED("xxx vec xxx\nnul mat nul\nxxx nul xxx\n", NULL, "'mag'", "1 to 4 memory ports");
}

static void load_names_the_file(void)
{
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *m = kh_map_load("/nonexistent/map.txt", &units, err, sizeof err);
    CHECK(m == NULL);
    CHECK(strstr(err, "/nonexistent/map.txt") != NULL);
}

/* The map knows no unit: a unit token is one its caller names. */
static void unit_tokens_come_from_the_caller(void)
{
    kh_map_units mine = {.n = 1, .token = {"foo"}};
    kh_map *m = kh_map_parse("xxx foo xxx\nmag nul nul\nxxx nul xxx\n", &mine, err, sizeof err);
    CHECK(m != NULL);
    const kh_map_ep *e = m ? kh_map_at(m, 1, 0) : NULL;
    CHECK(e && e->kind == KH_EP_UNIT && !strcmp(e->token, "foo"));
    kh_map_free(m);
    CHECK(kh_map_parse("xxx mat xxx\nmag nul nul\nxxx nul xxx\n", &mine, err, sizeof err) == NULL);
    CHECK(strstr(err, "known tokens are xxx ... nul mag foo") != NULL);
    CHECK(kh_map_parse("xxx mat xxx\nmag nul nul\nxxx nul xxx\n", NULL, err, sizeof err) == NULL);
}

int main(void)
{
    KH_RUN(unit_tokens_come_from_the_caller);
    KH_RUN(every_reference_map_parses);
    KH_RUN(rows_are_y_columns_are_x);
    KH_RUN(comments_blank_lines_and_dashes);
    KH_RUN(tokens_from_the_unit_registry);
    KH_RUN(empty_tokens_mean_nothing_attached);
    KH_RUN(memory_ports_numbered_row_major);
    KH_RUN(unit_bound_to_nearest_port_by_clamped_distance);
    KH_RUN(binding_ties_go_to_the_lowest_port);
    KH_RUN(largest_grid_14x14_accepted);
    KH_RUN(token_must_be_three_characters);
    KH_RUN(retired_tokens_refused);
    KH_RUN(unknown_token_refused);
    KH_RUN(at_least_three_rows);
    KH_RUN(rows_equally_long);
    KH_RUN(at_least_three_columns);
    KH_RUN(at_most_14_routers_per_axis);
    KH_RUN(corners_must_be_empty);
    KH_RUN(mag_only_on_edges);
    KH_RUN(at_most_four_mags);
    KH_RUN(at_least_one_mag);
    KH_RUN(load_names_the_file);
    return kh_test_end("t_map");
}
