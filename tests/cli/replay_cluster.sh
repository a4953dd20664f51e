# kohaku replay cluster (../shared/cli.md, vectors/README.md replay contract):
# the recorded cluster programs replay exactly; a changed value fails its
# case with the first difference; bad input and usage are refused.
. tests/cli/lib.inc
V=$KH_SHARED/vectors/cluster.jsonl
expect_rc "every recorded cluster case passes" 0 $KOHAKU replay cluster "$V"
expect_out "closing line counts the cases" "12 passed, 0 failed" sh -c "$KOHAKU replay cluster '$V' | tail -n 1"
expect_out "cycle deviation line" "cycles: mean deviation" sh -c "$KOHAKU replay cluster '$V' | grep '^cycles:' | cut -c1-22"
tmp=$(mktemp)
# case 8 with one result byte changed, case 16 with a completion arg changed
sed -e '2s/"bytes": "2534afb3/"bytes": "2634afb3/' -e '3s/"arg": 2,/"arg": 9,/' "$V" > "$tmp"
expect_rc "a changed value fails" 1 $KOHAKU replay cluster "$tmp"
expect_out "two cases fail" "10 passed, 2 failed" sh -c "$KOHAKU replay cluster '$tmp' | tail -n 1"
expect_out "the memory difference is named" "1" sh -c "$KOHAKU replay cluster '$tmp' | grep -c '^case 8 .*memory at 0x0000100000 byte 0'"
expect_out "the completion difference is named" "1" sh -c "$KOHAKU replay cluster '$tmp' | grep -c '^case 16 .*completions\[1\]'"
printf '{"case": 1, "insts": "nope"}\n' > "$tmp"
expect_rc "a malformed case is refused" 1 $KOHAKU replay cluster "$tmp"
expect_rc "a missing file is refused" 1 $KOHAKU replay cluster /nonexistent/cluster.jsonl
expect_err_has "the missing file is named" "/nonexistent/cluster.jsonl" $KOHAKU replay cluster /nonexistent/cluster.jsonl
expect_rc "no file is a usage error" 2 $KOHAKU replay cluster
rm -f "$tmp"
finish
