# kohaku gemm M N K [--map MAP] (../shared/cli.md): a checked GEMM on every
# matmul cluster; exit 0 only when the result is bit-identical to the exact
# MX result; usage and refused input as the contract says.
. tests/cli/lib.inc
MAP=$KH_DATA/maps/mesh_2x2_6+0.txt
expect_rc "a small GEMM on the default machine is checked and right" 0 $KOHAKU gemm 48 40 96
expect_out "it reports the exact comparison" "1" sh -c "$KOHAKU gemm 48 40 96 | grep -c 'bit-identical'"
expect_out "it reports MAC/cycle against the peak of six clusters" "1" sh -c "$KOHAKU gemm 48 40 96 | grep -c 'MAC/cycle of 3072 peak'"
expect_rc "the same on a map file (six clusters, no vector cores)" 0 $KOHAKU gemm 40 72 64 --map "$MAP"
expect_rc "two dimensions is a usage error" 2 $KOHAKU gemm 4 4
expect_rc "a zero dimension is a refused value (docs/exit-status.md)" 1 $KOHAKU gemm 0 4 4
expect_rc "a missing map is refused" 1 $KOHAKU gemm 8 8 32 --map /nonexistent/map.txt
expect_err_has "the missing map is named" "/nonexistent/map.txt" $KOHAKU gemm 8 8 32 --map /nonexistent/map.txt
tmpd=$(mktemp -d)
expect_rc "bench gemm writes --trace and --stats (cli.md: every simulating subcommand)" 0 $KOHAKU bench gemm --seconds 0.05 --trace "$tmpd/t.json" --stats "$tmpd/s.json" 32 32 64
expect_out "bench gemm trace is a trace-event file" "ok" sh -c "grep -q traceEvents '$tmpd/t.json' && echo ok"
expect_out "bench gemm stats name the links" "ok" sh -c "grep -q flits '$tmpd/s.json' && echo ok"
rm -rf "$tmpd"
finish
