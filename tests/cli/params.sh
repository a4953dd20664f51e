. tests/cli/lib.inc
expect_rc "params lists the table" 0 $KOHAKU params
expect_out "router FIFO depth default (parameters.md row 15)" "512" sh -c "$KOHAKU params | awk '\$1==\"router_fifo_depth\"{print \$2}'"
expect_out "recording profile fall-through 1 (parameters.md §2.1)" "1" sh -c "$KOHAKU params --profile rec | awk '\$1==\"fifo_latency\"{print \$2}'"
expect_rc "unknown profile refused" 1 $KOHAKU params --profile nope
expect_err_has "unknown profile named" "nope" $KOHAKU params --profile nope
expect_rc "bad argument is a usage error" 2 $KOHAKU params --bogus
finish
