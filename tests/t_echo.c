/* kh_echo / kh_utf8_cut / kh_utf8_trim: user text quoted in messages stays
 * bounded and never ends in half a UTF-8 character (expected lengths are
 * counted from the encodings: é = C3 A9, € = E2 82 AC, 😀 = F0 9F 98 80). */
#include <string.h>

#include "kohaku/echo.h"
#include "support/test.h"

static void cut_keeps_whole_characters(void)
{
    CHECK_EQ(kh_utf8_cut("abc", 2), 2);
    CHECK_EQ(kh_utf8_cut("ab", 5), 2);               /* shorter than n */
    CHECK_EQ(kh_utf8_cut("a\xc3\xa9", 2), 1);        /* é cut after its lead byte: dropped */
    CHECK_EQ(kh_utf8_cut("a\xc3\xa9", 3), 3);        /* é whole */
    CHECK_EQ(kh_utf8_cut("\xe2\x82\xac", 2), 0);     /* € cut inside */
    CHECK_EQ(kh_utf8_cut("\xf0\x9f\x98\x80x", 3), 0);
    CHECK_EQ(kh_utf8_cut("\xf0\x9f\x98\x80x", 4), 4);
    CHECK_EQ(kh_utf8_cut("a\x80\x80", 2), 2); /* stray continuation bytes: not UTF-8, cut anywhere */
}

static void long_text_is_quoted_cut(void)
{
    kh_echo_buf b;
    char s[200];
    memset(s, '7', sizeof s - 1);
    s[sizeof s - 1] = '\0';
    const char *e = kh_echo(s, &b);
    CHECK(strlen(e) < 100);
    CHECK(!strncmp(e, s, KH_ECHO_MAX));
    CHECK(strstr(e, "... (199 bytes)") != NULL);
    CHECK(kh_echo("short", &b)[0] == 's'); /* short text is itself */
    /* 40 two-byte characters: the cut falls between two of them */
    char u[81];
    for (int i = 0; i < 40; i++) memcpy(u + 2 * i, "\xc3\xa9", 2);
    u[80] = '\0';
    e = kh_echo(u, &b);
    CHECK(!strncmp(e, u, KH_ECHO_MAX));
    CHECK(!strncmp(e + KH_ECHO_MAX, "...", 3)); /* 64 is even: 32 whole characters */
    u[0] = 'x'; /* now every character starts at an odd byte: 63 bytes kept */
    memmove(u + 1, u + 2, 79);
    e = kh_echo(u, &b);
    CHECK(!strncmp(e + KH_ECHO_MAX - 1, "...", 3));
}

static void trim_drops_a_split_character(void)
{
    char m[] = "value caf\xc3";
    kh_utf8_trim(m);
    CHECK_STR(m, "value caf");
    char n[] = "value caf\xc3\xa9";
    kh_utf8_trim(n);
    CHECK_STR(n, "value caf\xc3\xa9");
}

int main(void)
{
    KH_RUN(cut_keeps_whole_characters);
    KH_RUN(long_text_is_quoted_cut);
    KH_RUN(trim_drops_a_split_character);
    return kh_test_end("t_echo");
}
