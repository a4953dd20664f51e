# kohaku demo (`make run`): a checked GEMM on the default machine, every
# output bit-identical to the exact MX result (cluster.md §9).
. tests/cli/lib.inc
out=$(mktemp)
"$KOHAKU" demo > "$out" 2>&1
rc=$?
expect_out "demo succeeds" "0" echo "$rc"
expect_out "it runs on six clusters of the default machine" "1" grep -c "on 6 matmul clusters of the default machine" "$out"
expect_out "every output is bit-identical to the exact MX result" "1" grep -c "all 147456 outputs bit-identical" "$out"
expect_out "it reports MAC/cycle against the peak" "1" grep -c "MAC/cycle of 3072 peak" "$out"
expect_out "it reports the float error" "1" grep -c "float reference: max |error|" "$out"
expect_rc "demo --help" 0 "$KOHAKU" demo --help
expect_rc "an unknown option is a usage error" 2 "$KOHAKU" demo --bogus
rm -f "$out"
finish
