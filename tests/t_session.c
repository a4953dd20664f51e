/* Session files (docs/session.md): every malformed line is refused with its
 * line number; well-formed lines parse to the accesses they name. */
#include <stdlib.h>
#include <string.h>

#include "host/session_int.h"
#include "kohaku/card.h"
#include "support/test.h"

/* Parse text whose line 3 is `bad`; the error must name line 3. */
static void refused_at_line_3(const char *bad, const char *why)
{
    char text[512], err[512], want[32];
    snprintf(text, sizeof text, "# a session\nwrite PROG_LEN 1\n%s\nrun 5\n", bad);
    kh_session *s = kh_session_parse(text, "t.session", NULL, err, sizeof err);
    CHECK(s == NULL);
    snprintf(want, sizeof want, "t.session:3: ");
    if (strncmp(err, want, strlen(want)) != 0 || (why && !strstr(err, why)))
        kh_test_fail(__FILE__, __LINE__, "line '%s': got error '%s' (want '%s' ... '%s')", bad, err, want,
                     why ? why : "");
    kh_session_free(s);
}

static void every_malformed_line_names_its_line(void)
{
    refused_at_line_3("frobnicate 1 2", "unknown command");
    refused_at_line_3("write", "usage: write");
    refused_at_line_3("write PROG_LEN", "usage: write");
    refused_at_line_3("write PROG_LEN 1 2", "usage: write");
    refused_at_line_3("write NOPE 1", "unknown name 'NOPE'");
    refused_at_line_3("write 0x80004g 1", "bad digit");
    refused_at_line_3("write 99999999999999999999999 1", "64 bits");
    refused_at_line_3("write PROG_LEN+ 1", "expected a number");
    refused_at_line_3("write (PROG_LEN 1", "expected ')'");
    refused_at_line_3("write NODE_STATUS(1) 1", "takes 2 argument");
    refused_at_line_3("write NODE_STATUS(16,0) 0", "out of range");
    refused_at_line_3("write FOO(1) 1", "unknown function");
    refused_at_line_3("read", "usage: read");
    refused_at_line_3("read SIG_DONE 1 mask", "needs a value");
    refused_at_line_3("read SIG_DONE 1 limit 5", "unexpected 'limit'");
    refused_at_line_3("read SIG_DONE 1 bogus 5", "unexpected 'bogus'");
    refused_at_line_3("poll SIG_DONE", "usage: poll");
    refused_at_line_3("poll SIG_DONE 1 limit 0", "limit 0");
    refused_at_line_3("poll SIG_DONE 1 within 5", "unexpected 'within'");
    refused_at_line_3("upload DRAM(0)", "expected 'hex HEX...'");
    refused_at_line_3("upload", "usage: upload");
    refused_at_line_3("upload DRAM(0) hex", "expected 'hex HEX...'");
    refused_at_line_3("upload DRAM(0) hex 0011223344556677 8", "two digits per byte");
    refused_at_line_3("upload DRAM(0) hex 00112233", "whole 64-bit words");
    refused_at_line_3("upload DRAM(0) hex 00112233445566zz", "bad hex data");
    refused_at_line_3("upload DRAM(0) bytes 00", "expected 'hex' or 'file'");
    refused_at_line_3("upload DRAM(0) file", "expected 'hex HEX...'");
    refused_at_line_3("upload DRAM(0) file /nonexistent/x.bin", "cannot open");
    refused_at_line_3("upload DRAM(0) file a b", "exactly one path");
    refused_at_line_3("compare DRAM(0) hex 0011", "whole 64-bit words");
    refused_at_line_3("dump DRAM(0)", "usage: dump");
    refused_at_line_3("dump DRAM(0) 12", "whole number of 64-bit words");
    refused_at_line_3("run", "usage: run");
    refused_at_line_3("run 1 2", "usage: run");
    refused_at_line_3("run x", "unknown name");
    refused_at_line_3("idle 5", "unexpected '5'");
    refused_at_line_3("stage", "usage: stage");
    refused_at_line_3("stage 0 txn=1", "payload=HEX64 is required");
    refused_at_line_3("stage 0 payload=01", "64 hex digits");
    refused_at_line_3("stage 0 txn=256 payload=0", "does not fit 8 bits");
    refused_at_line_3("stage 0 last=2 payload=0", "not 0 or 1");
    refused_at_line_3("stage 0 dst=1 payload=0", "unknown field 'dst'");
    refused_at_line_3("stage 0 txn", "expected field=value");
    refused_at_line_3("stage 9999 payload=0", "out of range");
    refused_at_line_3("flit TX_FLIT(0) 00", "72 hex digits");
    refused_at_line_3("flit TX_FLIT(5) 0", "out of range");
    refused_at_line_3("mesh 4", "meshes are 0..3");
    refused_at_line_3("mesh", "usage: mesh");
}

/* text, which must parse (named "t"); NULL after a failed check that
 * prints the parser's message */
static kh_session *parse_ok(const char *text)
{
    char err[512];
    kh_session *s = kh_session_parse(text, "t", NULL, err, sizeof err);
    CHECK(s != NULL);
    if (!s) printf("%s\n", err);
    return s;
}

static void names_resolve_to_the_host_map(void)
{
    const char *text = "write PROG_LEN 3\n"
                       "read NODE_STATUS(1,2) 0x0100000040000201 mask 0xff00000000000001\n"
                       "write CMD(2,1) SIG_DONE\n"
                       "mesh 1\n"
                       "write PROG_DST XY(3,2)\n"
                       "poll DRAM(0x40) 7 limit 99\n"
                       "read STAGING(8)+8*2\n"
                       "write ENG_CTRL 1\n";
    kh_session *s = parse_ok(text);
    if (!s) return;
    CHECK_EQ(kh_session_ncommands(s), 7);
    CHECK_EQ(sess_at(s, 0)->addr, 0x800048);
    CHECK_EQ(sess_at(s, 0)->value, 3);
    CHECK_EQ(sess_at(s, 1)->addr, 0x800000 + 0x1000 + 8 * 0x21);
    CHECK_EQ(sess_at(s, 1)->mask, 0xff00000000000001u);
    CHECK_EQ(sess_at(s, 1)->has_value, 1);
    CHECK_EQ(sess_at(s, 2)->addr, 0x1000 + 32 * 2 + 8);
    CHECK_EQ(sess_at(s, 2)->value, 0x800070);
    CHECK_EQ(sess_at(s, 3)->addr, 0x810040); /* mesh 1 */
    CHECK_EQ(sess_at(s, 3)->value, 0x23);
    CHECK_EQ(sess_at(s, 4)->addr, kh_host_dram(1, 0x40));
    CHECK_EQ(sess_at(s, 4)->limit, 99);
    CHECK_EQ(sess_at(s, 5)->addr, kh_host_staging(1, 8) + 16);
    CHECK_EQ(s->ref[5].line, 7);
    CHECK_EQ(sess_at(s, 6)->addr, 0);
    kh_session_free(s);
}

/* The same name again after `mesh N` is the other mesh's register, and back
 * again the first's (the parser keeps values of names it has evaluated). */
static void a_repeated_name_follows_the_mesh_in_force(void)
{
    const char *text = "write PROG_LEN 1\nmesh 1\nwrite PROG_LEN 2\nmesh 0\nwrite PROG_LEN 3\nwrite PROG_LEN 4\n";
    kh_session *s = parse_ok(text);
    if (!s) return;
    CHECK_EQ(kh_session_ncommands(s), 4);
    CHECK_EQ(sess_at(s, 0)->addr, 0x800048);
    CHECK_EQ(sess_at(s, 1)->addr, 0x810048);
    CHECK_EQ(sess_at(s, 2)->addr, 0x800048);
    CHECK_EQ(sess_at(s, 3)->addr, 0x800048);
    CHECK_EQ(sess_at(s, 3)->value, 4);
    kh_session_free(s);
}

/* A line read again runs the same access from its own line; after `mesh N`
 * the same text is the other mesh's register. */
static void a_repeated_line_keeps_its_line_and_its_mesh(void)
{
    const char *text = "write PROG_LEN 1\nwrite PROG_LEN 1\nmesh 1\nwrite PROG_LEN 1\nmesh 0\n"
                       "write PROG_LEN 1\n"
                       "stage 2 payload=0000000000000000000000000000000000000000000000000000000000000000\n"
                       "stage 2 payload=0000000000000000000000000000000000000000000000000000000000000000\n";
    kh_session *s = parse_ok(text);
    if (!s) return;
    CHECK_EQ(kh_session_ncommands(s), 14);
    static const unsigned line[4] = {1, 2, 4, 6};
    static const uint64_t addr[4] = {0x800048, 0x800048, 0x810048, 0x800048};
    for (unsigned k = 0; k < 4; k++) {
        CHECK_EQ(s->ref[k].line, line[k]);
        CHECK_EQ(sess_at(s, k)->addr, addr[k]);
        CHECK_EQ(sess_at(s, k)->value, 1);
    }
    /* each stage line has its own five writes, the first with its slot */
    CHECK_EQ(s->ref[4].line, 7);
    CHECK_EQ(s->ref[9].line, 8);
    CHECK_EQ(sess_at(s, 4)->stage_slot, 2);
    CHECK_EQ(sess_at(s, 9)->stage_slot, 2);
    CHECK(sess_at(s, 4) != sess_at(s, 9));
    kh_session_free(s);
}

static void stage_writes_the_five_words_of_a_cu_inst(void)
{
    const char *text = "stage 2 txn=0x40 last=1 "
                       "payload=0100000140000000000000000000100000000000000080000000000000000000\n";
    kh_session *s = parse_ok(text);
    if (!s) return;
    CHECK_EQ(kh_session_ncommands(s), 5);
    for (unsigned k = 0; k < 5; k++) CHECK_EQ(sess_at(s, k)->addr, 0x800000 + 0x2000 + 80 + 8 * k);
    CHECK_EQ(sess_at(s, 3)->value, 0x0100000140000000u);
    CHECK_EQ(sess_at(s, 2)->value, 0x0000000000001000u);
    CHECK_EQ(sess_at(s, 1)->value, 0x0000000000008000u);
    /* header word: type 5 [15:12], txn 0x40 [11:4], last [3] (flits.md §10) */
    CHECK_EQ(sess_at(s, 4)->value, 0x5408);
    kh_session_free(s);
}

static void upload_hex_is_bytes_in_address_order(void)
{
    const char *text = "upload DRAM(0) hex 00112233_44556677 8899aabbccddeeff  # two words\n";
    kh_session *s = parse_ok(text);
    if (!s) return;
    CHECK_EQ(sess_at(s, 0)->n, 16);
    CHECK_EQ(sess_at(s, 0)->bytes[0], 0x00);
    CHECK_EQ(sess_at(s, 0)->bytes[7], 0x77);
    CHECK_EQ(sess_at(s, 0)->bytes[15], 0xff);
    kh_session_free(s);
}

int main(void)
{
    KH_RUN(every_malformed_line_names_its_line);
    KH_RUN(names_resolve_to_the_host_map);
    KH_RUN(a_repeated_name_follows_the_mesh_in_force);
    KH_RUN(a_repeated_line_keeps_its_line_and_its_mesh);
    KH_RUN(stage_writes_the_five_words_of_a_cu_inst);
    KH_RUN(upload_hex_is_bytes_in_address_order);
    return kh_test_end("t_session");
}
