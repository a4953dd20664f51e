/* kh_bufcat: appends never write past the buffer, keep it terminated, and a
 * cut leaves *used at len - 1 so later appends are no-ops, not overflows. */
#include "kohaku/bufcat.h"
#include "support/test.h"

static void appends_in_order(void)
{
    char b[32];
    size_t u = 0;
    b[0] = '\0';
    CHECK_EQ(kh_bufcat(b, sizeof b, &u, "x=%d", 5), 1);
    CHECK_EQ(kh_bufcat(b, sizeof b, &u, ", %s", "y"), 1);
    CHECK_STR(b, "x=5, y");
    CHECK_EQ(u, 6);
}

static void cut_text_stays_terminated(void)
{
    char b[8] = "zzzzzzz";
    size_t u = 0;
    CHECK_EQ(kh_bufcat(b, sizeof b, &u, "%s", "0123456789"), 0);
    CHECK_STR(b, "0123456");
    CHECK_EQ(u, 7);
    /* once full, further appends change nothing and never overflow */
    CHECK_EQ(kh_bufcat(b, sizeof b, &u, "%s", "abc"), 0);
    CHECK_STR(b, "0123456");
    CHECK_EQ(u, 7);
}

static void used_past_the_end_is_clamped(void)
{
    char b[8] = "abcdefg";
    size_t u = 100; /* what a caller summing raw snprintf results could hold */
    CHECK_EQ(kh_bufcat(b, sizeof b, &u, "x"), 0);
    CHECK_EQ(u, 7);
    CHECK_EQ(b[7], '\0');
}

static void zero_length_buffer_is_left_alone(void)
{
    char b[1] = {'q'};
    size_t u = 0;
    CHECK_EQ(kh_bufcat(b, 0, &u, "text"), 0);
    CHECK_EQ(b[0], 'q');
    CHECK_EQ(u, 0);
}

int main(void)
{
    KH_RUN(appends_in_order);
    KH_RUN(cut_text_stays_terminated);
    KH_RUN(used_past_the_end_is_clamped);
    KH_RUN(zero_length_buffer_is_left_alone);
    return kh_test_end("t_bufcat");
}
