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
# The whole machine: every cluster of every mesh takes tiles, rounds split
# over several control programs when the clusters' commands exceed NCMD.
expect_rc "a GEMM on four meshes (24 clusters, 24 tiles) is checked and right" 0 \
    sh -c "$KOHAKU gemm 768 256 128 --map examples/four_mesh.machine > '$tmpd/four.txt'"
expect_out "it names the 24 clusters of the four meshes" "1" grep -c 'on 24 matmul clusters' "$tmpd/four.txt"
expect_out "and splits the round over two control programs (15 clusters fit NCMD = 128)" "1" \
    grep -c '(2 control programs)' "$tmpd/four.txt"
expect_rc "a GEMM on the 196 clusters of a 14x14 mesh (224 tiles) is checked and right" 0 \
    sh -c "$KOHAKU gemm 1792 1024 32 --map examples/mesh_14x14_196.txt > '$tmpd/big.txt'"
expect_out "it uses all 196 clusters in 14 control programs" "1" \
    grep -c 'on 196 matmul clusters.*' "$tmpd/big.txt"
expect_out "... 14 programs a round" "1" grep -c '(14 control programs)' "$tmpd/big.txt"
printf 'machine\nmesh default\nparam ncmd=9\n' > "$tmpd/ncmd9.machine"
expect_rc "NCMD = 9 still runs: one cluster per control program" 0 $KOHAKU gemm 48 40 96 --map "$tmpd/ncmd9.machine"
printf 'machine\nmesh default\nparam ncmd=8\n' > "$tmpd/ncmd8.machine"
expect_err_has "NCMD = 8 is refused, naming the need" "ncmd=8: an engine program needs 9 commands" \
    $KOHAKU gemm 48 40 96 --map "$tmpd/ncmd8.machine"
expect_rc "bench gemm writes --trace and --stats (cli.md: every simulating subcommand)" 0 $KOHAKU bench gemm --seconds 0.05 --trace "$tmpd/t.json" --stats "$tmpd/s.json" 32 32 64
expect_out "bench gemm trace is a trace-event file" "ok" sh -c "grep -q traceEvents '$tmpd/t.json' && echo ok"
expect_out "bench gemm stats name the links" "ok" sh -c "grep -q flits '$tmpd/s.json' && echo ok"
# --quantise-wait quiet (docs/mpi.md "The GEMM driver"): the host starts the
# moves and waits for the machine to be quiet instead of polling; the
# result is still checked bit for bit, the line says how it waited.
expect_rc "--quantise-wait quiet on four meshes is checked and right" 0 \
    sh -c "$KOHAKU gemm 256 128 64 --map examples/four_mesh.machine --quantise-wait quiet > '$tmpd/quiet.txt'"
expect_out "its quantise line says the host waited for quiet" "1" grep -c '; the host waits for quiet, no polls)' "$tmpd/quiet.txt"
expect_out "the default polls and says nothing of it" "0" sh -c "$KOHAKU gemm 256 128 64 --map examples/four_mesh.machine | grep -c 'quiet'"
expect_rc "--quantise-wait takes poll or quiet only (a refused value: exit 1)" 1 $KOHAKU gemm 8 8 8 --quantise-wait soon
expect_err_has "... and the message names the value" "--quantise-wait soon: want poll or quiet" $KOHAKU gemm 8 8 8 --quantise-wait soon
expect_rc "--quantise-wait without its value: usage, exit 2" 2 $KOHAKU gemm 8 8 8 --quantise-wait
expect_rc "--quantise-wait given twice: usage, exit 2" 2 $KOHAKU gemm 8 8 8 --quantise-wait poll --quantise-wait quiet
rm -rf "$tmpd"
finish
