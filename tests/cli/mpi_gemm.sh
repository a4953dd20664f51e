#!/bin/sh
# The GEMM driver's host loop under MPI (issue 29, docs/mpi.md "The GEMM
# driver"). A status poll (kh_card_poll64: a 16-cycle step, then a read
# with its link time) costs one run, so one run-end agreement: the
# four-mesh GEMM at 2 ranks, whose movers poll once per 16 + 81 cycles of
# its printed quantise phase, has at most 5/4 run-end agreements per such
# poll over its whole run (561 for 536 polls), where a run per step and
# one per read gave 7/4 (937). `--quantise-wait
# quiet` (the host waits for quiet instead of polling the movers) gives
# the one-process stdout, report, stderr, heat map and trace (per mesh) at
# 1, 2 and 4 ranks, and drops the quantise phase's polls: its run-end
# agreements are at most the gemm phase's polls. A block read of the
# memory window asks whether the machine is idle once, not once a burst,
# and so does a block write of more than one burst.
# Needs Open MPI and the MPI build, as tests/cli/mpi.sh.
. tests/cli/lib.inc
plan 12
. tests/cli/mpi.inc

printf 'machine\nmesh default\nmesh default\nmesh default\nmesh default\nparam ilink_lat=8\n' > "$tmp/four8.machine"
POLL=$((16 + 81)) # POLL_STEP + host_read_cycles (parameters.md row 118)

# run_ends K ARGS...: the run-end agreements in $ends, the phases' cycles in $quant, $gemm; stdout in $tmp/c.txt
run_ends() {
    n=$1; shift
    KOHAKU_MPI_COUNTS=1 mpi "$n" gemm "$@" > "$tmp/c.txt" 2> "$tmp/c.err"
    ends=$(sed -n 's/.* run end \([0-9]*\), query.*/\1/p' "$tmp/c.err")
    quant=$(sed -n 's/^  quantise: \([0-9]*\) cycles.*/\1/p' "$tmp/c.txt")
    gemm=$(sed -n 's/^  gemm: \([0-9]*\) cycles.*/\1/p' "$tmp/c.txt")
}
run_ends 2 256 128 64 --map "$tmp/four8.machine"
polls=$((${quant:-0} * 5 / 4 / POLL))
if [ -n "$ends" ] && [ -n "$quant" ] && [ "$ends" -gt 0 ] && [ "$ends" -le "$polls" ]; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: polls: $ends run-end agreements, more than $polls (5/4 a quantise poll)"; fi
# The read back: each mesh's whole C image in one block read, 256 x 128 x 2
# bytes = 32 bursts of 256 beats, 128 on four meshes; once one agreement
# found the machine idle, a block's later bursts ask nothing
# (kh_sim_run_idle), so the idleness queries of the whole run are fewer
# than those bursts (one a burst before: 177).
queries=$(sed -n 's/.* query \([0-9]*\);.*/\1/p' "$tmp/c.err")
if [ -n "$queries" ] && [ "$queries" -lt 128 ]; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: read back: $queries idleness queries, not fewer than its 128 bursts"; fi
$KOHAKU gemm 256 128 64 --map "$tmp/four8.machine" > "$tmp/one.txt" 2>/dev/null
expect_rc "... with the one-process stdout" 0 cmp -s "$tmp/one.txt" "$tmp/c.txt"

# same_quiet K: --quantise-wait quiet at K ranks against one process
same_quiet() {
    n=$1
    set -- 256 128 64 --map "$tmp/four8.machine" --quantise-wait quiet --report
    rm -f "$tmp/q1.svg" "$tmp/qk.svg"
    $KOHAKU gemm "$@" --trace "$tmp/q1.trace" --heatmap "$tmp/q1.svg" > "$tmp/q1.txt" 2> "$tmp/q1.err"
    mpi "$n" gemm "$@" --trace "$tmp/qk.trace" --heatmap "$tmp/qk.svg" > "$tmp/qk.txt" 2> "$tmp/qk.err"
    if grep -q 'the host waits for quiet' "$tmp/q1.txt" && grep -q 'all .* outputs bit-identical' "$tmp/q1.txt" \
        && cmp -s "$tmp/q1.txt" "$tmp/qk.txt" && cmp -s "$tmp/q1.err" "$tmp/qk.err" \
        && grep -q '<rect class="endpoint"' "$tmp/q1.svg" && cmp -s "$tmp/q1.svg" "$tmp/qk.svg" \
        && same_trace "$tmp/q1.trace" "$tmp/qk.trace"
    then kh_pass=$((kh_pass + 1))
    else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: --quantise-wait quiet at $n rank(s)"; diff "$tmp/q1.txt" "$tmp/qk.txt" | head -n 5; fi
}
for n in 1 2 4; do same_quiet $n; done
KOHAKU_MPI_ORDER=reverse same_quiet 2

run_ends 2 256 128 64 --map "$tmp/four8.machine" --quantise-wait quiet
gpolls=$((${gemm:-0} / POLL + 4))
if [ -n "$ends" ] && [ -n "$gemm" ] && [ "$ends" -le "$gpolls" ]; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: quiet: $ends run-end agreements, the gemm phase has $gpolls polls"; fi
$KOHAKU gemm 256 128 64 --map "$tmp/four8.machine" --quantise-wait quiet > "$tmp/one.txt" 2>/dev/null
expect_rc "... its stdout is the one-process one" 0 cmp -s "$tmp/one.txt" "$tmp/c.txt"
# the 1536 x 512 x 512 of the bench, quiet, 2 ranks
$KOHAKU gemm 1536 512 512 --map "$tmp/four8.machine" --quantise-wait quiet > "$tmp/b1.txt" 2>/dev/null
mpi 2 gemm 1536 512 512 --map "$tmp/four8.machine" --quantise-wait quiet > "$tmp/b2.txt" 2>/dev/null
expect_rc "the bench's 1536 512 512, quiet, 2 ranks: the one-process stdout" 0 \
    sh -c "grep -q 'bit-identical' '$tmp/b1.txt' && cmp -s '$tmp/b1.txt' '$tmp/b2.txt'"

# Block writes and reads of many bursts (a session's upload and compare of
# 64 KiB on each of mesh 1 and mesh 2: 32 bursts of 256 beats each way):
# the one-process stdout, stats and stderr at 2 ranks, and, once
# an agreement found the machine idle, no agreement a burst: the whole
# session takes fewer agreements than its 128 bursts.
head -c 65536 /dev/urandom > "$tmp/blob.bin"
printf 'machine\nmesh default\nmesh default\nmesh default\nparam ilink_lat=8\n' > "$tmp/three.machine"
printf 'mesh 1\nupload DRAM(0x20000) file blob.bin\nmesh 2\nupload DRAM(0x40000) file blob.bin\nmesh 1\ncompare DRAM(0x20000) file blob.bin\nmesh 2\ncompare DRAM(0x40000) file blob.bin\n' > "$tmp/blocks.session"
# (same_run's trace check needs events; an idle machine has none)
$KOHAKU run "$tmp/three.machine" "$tmp/blocks.session" --report --stats "$tmp/b1.json" > "$tmp/b1.txt" 2> "$tmp/b1e.txt"
mpi 2 run "$tmp/three.machine" "$tmp/blocks.session" --report --stats "$tmp/b2.json" > "$tmp/b2.txt" 2> "$tmp/b2e.txt"
expect_rc "64 KiB block writes and reads on two meshes, 2 ranks: the one-process stdout, stats, stderr" 0 \
    sh -c "grep -q '^report: run ' '$tmp/b1.txt' && cmp -s '$tmp/b1.txt' '$tmp/b2.txt' && cmp -s '$tmp/b1.json' '$tmp/b2.json' && cmp -s '$tmp/b1e.txt' '$tmp/b2e.txt'"
KOHAKU_MPI_COUNTS=1 mpi 2 run "$tmp/three.machine" "$tmp/blocks.session" > /dev/null 2> "$tmp/b.err"
total=$(sed -n 's/.*lookahead 8, \([0-9]*\) agreements,.*/\1/p' "$tmp/b.err")
if [ -n "$total" ] && [ "$total" -gt 0 ] && [ "$total" -lt 128 ]; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: blocks: $total agreements, not fewer than the 128 bursts"; fi
finish
