. tests/cli/lib.inc
expect_rc "params lists the table" 0 $KOHAKU params
expect_out "router FIFO depth default (parameters.md row 15)" "512" sh -c "$KOHAKU params | awk '\$1==\"router_fifo_depth\"{print \$2}'"
expect_out "recording profile fall-through 1 (parameters.md §2.1)" "1" sh -c "$KOHAKU params --profile rec | awk '\$1==\"fifo_latency\"{print \$2}'"
expect_out "the range shown is the one enforced (the node needs 2^7 words)" "7..31" sh -c "$KOHAKU params | awk '\$1==\"dram_words_log2\"{print \$3}'"
expect_out "stage_bytes_log2 likewise" "7..32" sh -c "$KOHAKU params | awk '\$1==\"stage_bytes_log2\"{print \$3}'"
expect_out "the cluster's accumulator width: what the unit builds" "11..16" sh -c "$KOHAKU params | awk '\$1==\"cluster_acc_mw\"{print \$3}'"
expect_rc "a width the cluster cannot build is refused at once" 1 $KOHAKU run "$KH_DATA/maps/saxpy_map.txt" examples/saxpy.session --param cluster_acc_mw=20
expect_out "a unit's profile" "256" sh -c "$KOHAKU params --profile rec-cluster | awk '\$1==\"cluster_tiles\"{print \$2}'"
expect_rc "unknown profile refused" 1 $KOHAKU params --profile nope
expect_err_has "unknown profile named" "nope" $KOHAKU params --profile nope
expect_rc "bad argument is a usage error" 2 $KOHAKU params --bogus
finish
