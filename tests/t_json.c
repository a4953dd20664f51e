/* The JSON reader (json.h): RFC 8259 values, exact 64-bit integers, errors
 * with line and column, no recursion, JSON Lines. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/json.h"
#include "support/test.h"

static kh_json *parse(const char *s, kh_json_error *e) { return kh_json_parse(s, strlen(s), e); }

static void literals_parse(void)
{
    kh_json_error e;
    const char *texts[] = {"true", " false ", "\n\tnull\r\n"};
    kh_json_type want[] = {KH_JSON_TRUE, KH_JSON_FALSE, KH_JSON_NULL};
    for (int i = 0; i < 3; i++) {
        kh_json *d = parse(texts[i], &e);
        CHECK(d != NULL);
        CHECK_EQ(kh_json_type_of(kh_json_root(d)), want[i]);
        kh_json_free(d);
    }
    kh_json *d = parse("true", &e);
    int b = -1;
    CHECK_EQ(kh_json_bool(kh_json_root(d), &b), 0);
    CHECK_EQ(b, 1);
    kh_json_free(d);
}

static void integers_are_exact_to_64_bits(void)
{
    kh_json_error e;
    uint64_t u = 0;
    int64_t s = 0;
    kh_json *d = parse("[0, -0, 18446744073709551615, 18446744073709551616, 9223372036854775807,"
                       " -9223372036854775808, -9223372036854775809, 12345678901234567, -1]",
                       &e);
    CHECK(d != NULL);
    const kh_json_val *a = kh_json_root(d);
    CHECK_EQ(kh_json_len(a), 9);
    CHECK_EQ(kh_json_u64(kh_json_at(a, 0), &u), 0);
    CHECK_EQ(u, 0);
    CHECK_EQ(kh_json_u64(kh_json_at(a, 1), &u), 0); /* -0 is zero */
    CHECK_EQ(u, 0);
    CHECK_EQ(kh_json_u64(kh_json_at(a, 2), &u), 0);
    CHECK_EQ(u, UINT64_MAX);
    CHECK_EQ(kh_json_i64(kh_json_at(a, 2), &s), -1); /* above 2^63-1 */
    CHECK_EQ(kh_json_u64(kh_json_at(a, 3), &u), -1); /* 2^64 */
    CHECK_EQ(kh_json_i64(kh_json_at(a, 4), &s), 0);
    CHECK_EQ(s, INT64_MAX);
    CHECK_EQ(kh_json_i64(kh_json_at(a, 5), &s), 0);
    CHECK(s == INT64_MIN);
    CHECK_EQ(kh_json_u64(kh_json_at(a, 5), &u), -1);
    CHECK_EQ(kh_json_i64(kh_json_at(a, 6), &s), -1);
    CHECK_EQ(kh_json_u64(kh_json_at(a, 7), &u), 0); /* not representable as a double */
    CHECK_EQ(u, 12345678901234567ull);
    CHECK_EQ(kh_json_i64(kh_json_at(a, 8), &s), 0);
    CHECK(s == -1);
    kh_json_free(d);
}

static void reals_are_numbers_not_integers(void)
{
    kh_json_error e;
    kh_json *d = parse("[1.5, 1e3, -2.5E-3, 0.0, 1e400]", &e);
    CHECK(d != NULL);
    const kh_json_val *a = kh_json_root(d);
    double x = 0;
    uint64_t u;
    CHECK_EQ(kh_json_double(kh_json_at(a, 0), &x), 0);
    CHECK(x == 1.5);
    CHECK_EQ(kh_json_u64(kh_json_at(a, 1), &u), -1); /* exponent: not integer syntax */
    CHECK_EQ(kh_json_double(kh_json_at(a, 1), &x), 0);
    CHECK(x == 1000.0);
    CHECK_EQ(kh_json_double(kh_json_at(a, 2), &x), 0);
    CHECK(x == -2.5e-3);
    CHECK_EQ(kh_json_double(kh_json_at(a, 4), &x), -1); /* out of double range */
    kh_json_free(d);
}

static void strings_decode_every_escape(void)
{
    kh_json_error e;
    kh_json *d = parse("[\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\", \"\\u00e9\\u20AC\", \"\\ud83d\\ude00\","
                       " \"x\\u0000y\", \"\xc3\xa9\"]",
                       &e);
    CHECK(d != NULL);
    const kh_json_val *a = kh_json_root(d);
    size_t n = 0;
    CHECK_STR(kh_json_str(kh_json_at(a, 0), NULL), "a\"b\\c/d\be\ff\ng\rh\ti");
    CHECK_STR(kh_json_str(kh_json_at(a, 1), NULL), "\xc3\xa9\xe2\x82\xac");
    CHECK_STR(kh_json_str(kh_json_at(a, 2), NULL), "\xf0\x9f\x98\x80");
    const char *s = kh_json_str(kh_json_at(a, 3), &n);
    CHECK_EQ(n, 3);
    CHECK(s && !memcmp(s, "x\0y", 3));
    CHECK_STR(kh_json_str(kh_json_at(a, 4), NULL), "\xc3\xa9");
    CHECK(kh_json_str(kh_json_at(a, 9), NULL) == NULL);
    kh_json_free(d);
}

/* Every byte value at every place of strings of 1 to 24 bytes (the reader
 * skips plain runs several bytes at a time, so a bad byte falls in a whole
 * group or in the tail): what RFC 8259 and UTF-8 say of it, the column of
 * the error where there is one. Each text is allocated to its length, so
 * that a read past it is seen under ASan. */
static void every_byte_at_every_place_of_a_long_string(void)
{
    for (unsigned len = 1; len <= 24; len++)
        for (unsigned k = 0; k < len; k++)
            for (unsigned c = 0; c < 256; c++) {
                char *text = malloc(len + 2);
                if (!text) {
                    kh_test_fail(__FILE__, __LINE__, "out of memory");
                    return;
                }
                memset(text, 'a', len + 2);
                text[0] = text[len + 1] = '"';
                text[1 + k] = (char)c;
                kh_json_error e;
                kh_json *d = kh_json_parse(text, len + 2, &e);
                /* unescaped: 0x20-0x21, 0x23-0x5B, 0x5D-0x7F here (a lone byte >= 0x80 before 'a' is no UTF-8) */
                int plain = c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
                /* a '\\' last escapes the closing quote: the string runs on past the text */
                const char *want = c < 0x20    ? "control character"
                                 : c == '"'    ? "after the value"
                                 : c == '\\'   ? (k == len - 1 ? "string not closed" : "unknown escape")
                                               : "invalid UTF-8";
                unsigned col = c == '"' ? k + 3 : c == '\\' && k == len - 1 ? 1 : k + 2;
                if (plain) {
                    size_t n = 0;
                    const char *v = d ? kh_json_str(kh_json_root(d), &n) : NULL;
                    if (!v || n != len || memcmp(v, text + 1, len))
                        kh_test_fail(__FILE__, __LINE__, "byte 0x%02x at %u of %u: not read back", c, k, len);
                } else if (d || e.line != 1 || e.col != col || !strstr(e.msg, want)) {
                    kh_test_fail(__FILE__, __LINE__, "byte 0x%02x at %u of %u: got %s col %u '%s', want col %u '%s'",
                                 c, k, len, d ? "accepted" : "refused", d ? 0 : e.col, d ? "" : e.msg, col, want);
                }
                kh_json_free(d);
                free(text);
            }
}

static void objects_keep_order_and_find_keys(void)
{
    kh_json_error e;
    kh_json *d = parse("{\"in\": \"3c00\", \"mode\": 1, \"words\": [\"a\", \"b\"], \"o\": {\"x\": {}}, \"e\": []}", &e);
    CHECK(d != NULL);
    const kh_json_val *r = kh_json_root(d);
    CHECK_EQ(kh_json_len(r), 5);
    CHECK_STR(kh_json_key_at(r, 0), "in");
    CHECK_STR(kh_json_key_at(r, 4), "e");
    CHECK(kh_json_key_at(r, 5) == NULL);
    CHECK_STR(kh_json_str(kh_json_at(r, 0), NULL), "3c00");
    const kh_json_val *w = kh_json_get(r, "words");
    CHECK_EQ(kh_json_len(w), 2);
    CHECK_STR(kh_json_str(kh_json_at(w, 1), NULL), "b");
    CHECK_EQ(kh_json_type_of(kh_json_get(kh_json_get(r, "o"), "x")), KH_JSON_OBJECT);
    CHECK_EQ(kh_json_len(kh_json_get(kh_json_get(r, "o"), "x")), 0);
    CHECK_EQ(kh_json_len(kh_json_get(r, "e")), 0);
    CHECK(kh_json_get(r, "absent") == NULL);
    CHECK(kh_json_get(w, "in") == NULL); /* not an object */
    CHECK(kh_json_get(NULL, "in") == NULL);
    CHECK_EQ(kh_json_line(kh_json_get(r, "mode")), 1);
    CHECK_EQ(kh_json_col(kh_json_get(r, "mode")), 24);
    kh_json_free(d);
}

static void typed_getters_name_the_field(void)
{
    kh_json_error e;
    kh_json *d = parse("{\"mode\": \"a\", \"n\": -3, \"f\": 1.5, \"b\": null, \"ok\": 7, \"t\": true, \"s\": \"x\"}", &e);
    const kh_json_val *r = kh_json_root(d);
    char msg[200];
    uint64_t u;
    int64_t i;
    int b;
    const char *s;
    const kh_json_val *v;
    CHECK_EQ(kh_json_get_u64(r, "mode", &u, msg, sizeof msg), -1);
    CHECK_STR(msg, "field 'mode': string \"a\" is not an unsigned 64-bit integer");
    CHECK_EQ(kh_json_get_u64(r, "n", &u, msg, sizeof msg), -1);
    CHECK_STR(msg, "field 'n': number -3 is not an unsigned 64-bit integer");
    CHECK_EQ(kh_json_get_i64(r, "f", &i, msg, sizeof msg), -1);
    CHECK_STR(msg, "field 'f': number 1.5 is not a signed 64-bit integer");
    CHECK_EQ(kh_json_get_str(r, "b", &s, msg, sizeof msg), -1);
    CHECK_STR(msg, "field 'b': null is not a string");
    CHECK_EQ(kh_json_get_str(r, "zz", &s, msg, sizeof msg), -1);
    CHECK_STR(msg, "field 'zz': missing (a string expected)");
    CHECK_EQ(kh_json_get_array(r, "ok", &v, msg, sizeof msg), -1);
    CHECK_STR(msg, "field 'ok': number 7 is not an array");
    CHECK_EQ(kh_json_get_u64(r, "ok", &u, msg, sizeof msg), 0);
    CHECK_EQ(u, 7);
    CHECK_EQ(kh_json_get_i64(r, "n", &i, msg, sizeof msg), 0);
    CHECK(i == -3);
    CHECK_EQ(kh_json_get_bool(r, "t", &b, msg, sizeof msg), 0);
    CHECK_EQ(b, 1);
    CHECK_EQ(kh_json_get_str(r, "s", &s, msg, sizeof msg), 0);
    CHECK_STR(s, "x");
    CHECK_EQ(kh_json_get_object(r, "s", &v, msg, sizeof msg), -1);
    kh_json_free(d);
}

/* Each malformed text is refused at the given line and column. */
static void errors_name_line_and_column(void)
{
    static const struct {
        const char *text;
        unsigned line, col;
        const char *msg_has;
    } cases[] = {
        {"", 1, 1, "text ends"},
        {"   ", 1, 4, "text ends"},
        {"{\n  \"a\": 1,\n  \"b\": tru\n}", 3, 8, "unexpected character 't'"},
        {"[1, 2,]", 1, 7, "trailing comma"},
        {"{\"a\": 1,}", 1, 9, "trailing comma"},
        {"{\"a\" 1}", 1, 6, "':' expected"},
        {"{1: 2}", 1, 2, "member name expected"},
        {"[1 2]", 1, 4, "',' or ']' expected"},
        {"\"abc", 1, 1, "string not closed"},
        {"\"a\\qb\"", 1, 3, "unknown escape"},
        {"\"\\u12G4\"", 1, 2, "4 hex digits"},
        {"\"\\udc00\"", 1, 2, "low surrogate"},
        {"\"\\ud800x\"", 1, 2, "high surrogate"},
        {"\"a\tb\"", 1, 3, "control character 0x09"},
        {"\"\xff\"", 1, 2, "invalid UTF-8 byte 0xff"},
        {"\"\xc0\xaf\"", 1, 2, "invalid UTF-8"},   /* overlong '/' */
        {"\"\xed\xa0\x80\"", 1, 2, "invalid UTF-8"}, /* encoded surrogate */
        {"012", 1, 1, "leading zero"},
        {"-", 1, 1, "'-' not followed"},
        {"1.", 1, 3, "decimal point"},
        {"1e+", 1, 4, "exponent"},
        {"[1] x", 1, 5, "after the value"},
        {"[[1]\n", 2, 1, "inside the array opened at line 1 column 1"},
        {"{\"k\": [1,\n {\"z\": 1}", 2, 10, "inside the array opened at line 1 column 7"},
        {"nul", 1, 1, "unexpected character 'n'"},
        {"\x01", 1, 1, "unexpected byte 0x01"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kh_json_error e;
        kh_json *d = parse(cases[i].text, &e);
        if (d) {
            kh_test_fail(__FILE__, __LINE__, "case %zu accepted", i);
            kh_json_free(d);
            continue;
        }
        if (e.line != cases[i].line || e.col != cases[i].col || !strstr(e.msg, cases[i].msg_has))
            kh_test_fail(__FILE__, __LINE__, "case %zu: got line %u col %u '%s', want %u %u '%s'", i, e.line, e.col,
                         e.msg, cases[i].line, cases[i].col, cases[i].msg_has);
    }
    /* a NUL inside the given length is a byte like any other */
    kh_json_error e;
    CHECK(kh_json_parse("[1]\0", 4, &e) == NULL);
    kh_json *d = kh_json_parse("[1]", 3, NULL);
    CHECK(d != NULL);
    kh_json_free(d);
}

static void deep_nesting_uses_no_recursion(void)
{
    size_t n = 60000;
    char *s = malloc(2 * n + 1);
    memset(s, '[', n);
    memset(s + n, ']', n);
    s[2 * n] = 0;
    kh_json_error e;
    kh_json *d = kh_json_parse(s, 2 * n, &e);
    CHECK(d != NULL);
    const kh_json_val *v = kh_json_root(d);
    size_t depth = 1;
    while (kh_json_len(v) == 1) {
        v = kh_json_at(v, 0);
        depth++;
    }
    CHECK_EQ(depth, n);
    kh_json_free(d);
    free(s);
    n = 200000;
    s = malloc(n);
    memset(s, '[', n);
    d = kh_json_parse(s, n, &e);
    CHECK(d == NULL);
    CHECK(strstr(e.msg, "nesting deeper than") != NULL);
    free(s);
}

/* Random corruptions of a valid document never crash and either parse or
 * give a position inside the text (run under ASan in make test SAN=1). */
static void mutated_input_never_crashes(void)
{
    const char *base = "{\"in\": \"3c00\\u00e9\", \"mode\": [1, -2.5e3, true, null, {\"x\": [\"\\ud83d\\ude00\"]}]}";
    size_t len = strlen(base);
    char *buf = malloc(len);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 20000; round++) {
        memcpy(buf, base, len);
        int edits = 1 + round % 4;
        for (int k = 0; k < edits; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            buf[x % len] = (char)(x >> 32);
        }
        size_t use = round % 7 == 0 ? (size_t)(x >> 40) % len : len;
        kh_json_error e;
        kh_json *d = kh_json_parse(buf, use, &e);
        if (!d && (e.line < 1 || e.line > 5 || e.col < 1 || e.col > use + 1)) {
            kh_test_fail(__FILE__, __LINE__, "round %d: position %u:%u outside the text", round, e.line, e.col);
            break;
        }
        kh_json_free(d);
    }
    free(buf);
}

static void jsonl_skips_blank_lines_and_numbers_lines(void)
{
    const char *text = "{\"a\": 1}\n\n  \r\n[2]\n{bad}\n\"s\"";
    kh_jsonl r;
    CHECK_EQ(kh_jsonl_open_mem(&r, text, strlen(text)), 0);
    kh_json *d;
    kh_json_error e;
    unsigned lines[4];
    int ok[4], n = 0;
    while (kh_jsonl_next(&r, &d, &e) > 0 && n < 4) {
        lines[n] = r.line;
        ok[n] = d != NULL;
        if (!d) CHECK_EQ(e.line, 5);
        if (!d) CHECK_EQ(e.col, 2);
        kh_json_free(d);
        n++;
    }
    kh_jsonl_close(&r);
    CHECK_EQ(n, 4);
    CHECK_EQ(lines[0], 1);
    CHECK_EQ(lines[1], 4);
    CHECK_EQ(lines[2], 5);
    CHECK_EQ(lines[3], 6);
    CHECK(ok[0] && ok[1] && !ok[2] && ok[3]);
}

static void jsonl_reads_the_recorded_quant_file(void)
{
    char path[512], msg[256];
    snprintf(path, sizeof path, "%s/vectors/quant.jsonl", kh_test_data_dir());
    kh_jsonl r;
    if (kh_jsonl_open(&r, path, msg, sizeof msg)) {
        kh_test_fail(__FILE__, __LINE__, "%s", msg);
        return;
    }
    kh_json *d;
    kh_json_error e;
    int n = 0;
    while (kh_jsonl_next(&r, &d, &e) > 0) {
        const char *in, *out;
        uint64_t mode;
        const kh_json_val *w;
        const kh_json_val *o = kh_json_root(d);
        CHECK(d != NULL);
        CHECK_EQ(kh_json_get_str(o, "in", &in, msg, sizeof msg), 0);
        CHECK_EQ(strlen(in), 512);
        CHECK_EQ(kh_json_get_str(o, "out", &out, msg, sizeof msg), 0);
        CHECK_EQ(strlen(out), 256);
        CHECK_EQ(kh_json_get_u64(o, "mode", &mode, msg, sizeof msg), 0);
        CHECK(mode <= 1);
        CHECK_EQ(kh_json_get_array(o, "words", &w, msg, sizeof msg), 0);
        CHECK_EQ(kh_json_len(w), 4);
        /* words[0] is the low 64 digits of out */
        CHECK(!strcmp(kh_json_str(kh_json_at(w, 0), NULL), out + 192));
        kh_json_free(d);
        n++;
    }
    kh_jsonl_close(&r);
    CHECK_EQ(n, 200);
    CHECK(kh_jsonl_open(&r, "/nonexistent/x.jsonl", msg, sizeof msg) == -1);
    CHECK(strstr(msg, "cannot open '/nonexistent/x.jsonl'") != NULL);
}

/* kh_file_read returns every byte of a file larger than its first buffer,
 * NUL-terminated, embedded NULs counted; a missing file names the path. */
static void file_read_returns_the_whole_file(void)
{
    char path[] = "/tmp/kh_t_json_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    size_t n = 200000;
    char *want = malloc(n);
    for (size_t i = 0; i < n; i++) want[i] = (char)(i * 7 % 251);
    FILE *f = fdopen(fd, "wb");
    CHECK(f && fwrite(want, 1, n, f) == n);
    if (f) fclose(f);
    char err[256];
    size_t len = 0;
    char *got = kh_file_read(path, &len, err, sizeof err);
    CHECK(got != NULL);
    if (got) {
        CHECK_EQ(len, n);
        CHECK(!memcmp(got, want, n));
        CHECK_EQ(got[n], 0);
    }
    free(got);
    free(want);
    unlink(path);
    CHECK(kh_file_read(path, &len, err, sizeof err) == NULL);
    CHECK(strstr(err, path) != NULL);
}

/* kh_file_read_text takes text and refuses a file holding a NUL byte,
 * naming the path (design.md §6: bad input is named, never aborts). */
static void file_read_text_refuses_a_nul_byte(void)
{
    char path[] = "/tmp/kh_t_json_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "wb");
    CHECK(f && fwrite("ab\0cd\n", 1, 6, f) == 6);
    if (f) fclose(f);
    char err[256] = "";
    CHECK(kh_file_read_text(path, err, sizeof err) == NULL);
    CHECK(strstr(err, path) != NULL);
    CHECK(strstr(err, "NUL byte") != NULL);
    f = fopen(path, "wb");
    CHECK(f && fwrite("ab cd\n", 1, 6, f) == 6);
    if (f) fclose(f);
    char *got = kh_file_read_text(path, err, sizeof err);
    CHECK(got && !strcmp(got, "ab cd\n"));
    free(got);
    unlink(path);
}

int main(void)
{
    KH_RUN(literals_parse);
    KH_RUN(integers_are_exact_to_64_bits);
    KH_RUN(reals_are_numbers_not_integers);
    KH_RUN(strings_decode_every_escape);
    KH_RUN(every_byte_at_every_place_of_a_long_string);
    KH_RUN(objects_keep_order_and_find_keys);
    KH_RUN(typed_getters_name_the_field);
    KH_RUN(errors_name_line_and_column);
    KH_RUN(deep_nesting_uses_no_recursion);
    KH_RUN(mutated_input_never_crashes);
    KH_RUN(jsonl_skips_blank_lines_and_numbers_lines);
    KH_RUN(jsonl_reads_the_recorded_quant_file);
    KH_RUN(file_read_returns_the_whole_file);
    KH_RUN(file_read_text_refuses_a_nul_byte);
    return kh_test_end("t_json");
}
