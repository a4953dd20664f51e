#!/bin/sh
# KH_TEST=NAME runs one test function of a test binary alone
# (tests/support/test.h); a list runs those; unset, every test runs.
. tests/cli/lib.inc
T="$(dirname "$KOHAKU")/tests/t_bufcat"
expect_out "one test alone" "# t_bufcat: 1 passed, 0 failed" sh -c "KH_TEST=cut_text_stays_terminated '$T' | tail -n 1"
expect_out "two by a list" "# t_bufcat: 2 passed, 0 failed" \
    sh -c "KH_TEST=appends_in_order,used_past_the_end_is_clamped '$T' | tail -n 1"
expect_out "a name that is no test runs nothing" "# t_bufcat: 0 passed, 0 failed" sh -c "KH_TEST=nope '$T' | tail -n 1"
expect_out "a prefix is not a name" "# t_bufcat: 0 passed, 0 failed" sh -c "KH_TEST=appends '$T' | tail -n 1"
all=$(grep -c '^    KH_RUN(' tests/t_bufcat.c)
expect_out "unset: every test" "# t_bufcat: $all passed, 0 failed" sh -c "unset KH_TEST; '$T' | tail -n 1"
finish
