# kohaku demo: assemble, disassemble and validate the cluster program of
# cluster.md §9.3 (the interim default demo).
. tests/cli/lib.inc
expect_rc "demo succeeds" 0 "$KOHAKU" demo
expect_out "demo summary" "demo: 7 instructions (4 FILL, 2 GEMM, 1 DRAIN); round trip ok; table checks ok; flit checks ok" \
    sh -c "\"$KOHAKU\" demo --quiet | tail -n 1"
expect_out "the DRAIN is the last instruction (last=1)" "210150183000400000000400000128000000000000000000000000000000000000000000" \
    sh -c "\"$KOHAKU\" demo | grep '^2101501' | tail -n 1"
expect_rc "demo --help" 0 "$KOHAKU" demo --help
finish
