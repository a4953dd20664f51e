#!/bin/sh
# A machine on MPI ranks (docs/mpi.md): `mpirun -n K build-mpi/kohaku run`
# gives byte for byte the stdout (the --report included), the stderr
# (component warnings, --check findings, errors), the --stats file and the
# --heatmap SVG of the one-process run (build/kohaku), and the --trace file's events mesh by mesh in the same
# order (tests/cli/trace_by_mesh.py), for K = 1, 2, 4, the tightest
# lookahead (ilink_lat 1), another rank order and a timing perturbation. Needs Open MPI and the MPI
# build (make test builds it when mpicc is there); counted as skipped otherwise.
. tests/cli/lib.inc
plan 37
. tests/cli/mpi.inc

for lat in 1 8; do
    printf 'machine\nmesh default\nmesh default\nmesh default\nmesh default\nparam ilink_lat=%s\n' $lat \
        > "$tmp/four$lat.machine"
done
S=tests/cli/four_mesh.session
expect_rc "the four-mesh session's own checks pass in one process" 0 $KOHAKU run "$tmp/four8.machine" $S
for n in 1 2 4; do
    same_run "four meshes, ilink_lat 1, $n rank(s)" $n "$tmp/four1.machine" $S
done
same_run "four meshes, ilink_lat 8, 2 ranks" 2 "$tmp/four8.machine" $S
same_run "three ranks for four meshes (blocks of 1, 1 and 2)" 3 "$tmp/four8.machine" $S
KOHAKU_MPI_ORDER=reverse same_run "rank 0 owning the last mesh (reverse order), 4 ranks" 4 "$tmp/four1.machine" $S
KOHAKU_MPI_JITTER=300 same_run "random delays before every agreement, 4 ranks" 4 "$tmp/four1.machine" $S
# The examples' machines: the report and the heat map of the whole machine
# come from the merged stats, written once (rank 0).
same_run "the two-mesh example, 2 ranks" 2 examples/two_mesh.machine examples/two_mesh.session
for n in 2 4; do
    same_run "the four-mesh example, $n ranks" $n examples/four_mesh.machine $S
done

# The RV64 complex as every node's processor (cpu_rv64 = 1) and an RV64 unit
# (r64) on each of two meshes: the session loads and boots programs with
# cpu64 (docs/rv64.md §14), mesh 0's complex copying with its mover while
# mesh 1's loads and boots its unit through the mailbox; then the exit words,
# instruction and cycle counts are read from each complex's host window.
r64=$(cd "$(dirname "$KOHAKU")/rv64" 2>/dev/null && pwd)
if [ -f "$r64/node_mover.elf" ] && [ -f "$r64/node_kick_pe.elf" ]; then
    printf 'xxx r64 vec xxx\nmag mat mat xxx\nmag mat mat xxx\nxxx mat vec xxx\n' > "$tmp/r64map.txt"
    printf 'machine\nmesh r64map.txt\nmesh r64map.txt\nparam cpu_rv64=1\n' > "$tmp/r64.machine"
    wait_r64() { printf 'poll CTRL+0x8018 0x8 mask 0x8 limit 1000000\nread CTRL+0x8020 0\nread CTRL+0x8038\nread CTRL+0x8030\n'; }
    { echo "cpu64 $r64/node_mover.elf"; echo "mesh 1"; echo "cpu64 $r64/node_kick_pe.elf"; wait_r64; echo "mesh 0"
      wait_r64; } > "$tmp/r64.session"
    same_run "RV64 complexes and units on two meshes, 2 ranks" 2 "$tmp/r64.machine" "$tmp/r64.session"
    KOHAKU_MPI_ORDER=reverse same_run "the same, rank 0 owning mesh 1" 2 "$tmp/r64.machine" "$tmp/r64.session"
else
    skip_begin "$(dirname "$KOHAKU")/rv64 not built (make rv64 builds it with riscv64-unknown-elf-gcc)" \
        gcc-riscv64-unknown-elf
    skipped; skipped
    skip_end
fi

# The whole-machine GEMM (engine programs writing and POLLing every mesh's
# window from every rank): the same report, cycles included, on four meshes
# at 2 and 4 ranks (ilink_lat 1), and on the 196 clusters of one 14x14 mesh.
# The end-of-run report (its GEMM phase's bound included) and the heat map too.
same_gemm() { # same_gemm "description" K TRACE(1/0) GEMM-ARGS...: stdout, report, heat map (and trace) identical
    desc=$1; n=$2; tr=$3; shift 3
    t1=; t2=
    [ "$tr" = 1 ] && t1="--trace $tmp/g1.trace" && t2="--trace $tmp/g2.trace"
    rm -f "$tmp/g1.svg" "$tmp/g2.svg"
    $KOHAKU gemm "$@" $t1 --report --heatmap "$tmp/g1.svg" > "$tmp/g1.txt" 2>/dev/null
    mpi "$n" gemm "$@" $t2 --report --heatmap "$tmp/g2.svg" > "$tmp/g2.txt" 2>/dev/null
    if [ -s "$tmp/g1.txt" ] && grep -q 'all .* outputs bit-identical' "$tmp/g1.txt" && cmp -s "$tmp/g1.txt" "$tmp/g2.txt" \
        && grep -q '^  bound by: ' "$tmp/g1.txt" && grep -q '<rect class="endpoint"' "$tmp/g1.svg" \
        && cmp -s "$tmp/g1.svg" "$tmp/g2.svg" && { [ "$tr" = 0 ] || same_trace "$tmp/g1.trace" "$tmp/g2.trace"; }
    then kh_pass=$((kh_pass + 1));
    else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: $desc"; diff "$tmp/g1.txt" "$tmp/g2.txt" | head -n 5; fi
}
same_gemm "a four-mesh GEMM (8 tiles, two on each mesh) on 2 ranks" 2 1 256 128 64 --map "$tmp/four1.machine"
same_gemm "the same on 4 ranks" 4 1 256 128 64 --map "$tmp/four1.machine"
same_gemm "a 196-cluster GEMM under mpirun" 1 0 1792 1024 32 --map examples/mesh_14x14_196.txt
for n in 2 4; do
    same_gemm "a GEMM on the four-mesh example (8 tiles), $n ranks" $n 0 128 64 32 --map examples/four_mesh.machine
done

# make bench-mpi's workloads (issue 29): the session of saxpy rounds on four
# meshes, with a cross-rank mover copy and doorbell every round, at 1, 2 and
# 4 ranks; the four-mesh GEMM 1536 512 512 (ilink_lat 8) at 2 ranks.
MAPS=$(cd data/maps && pwd)
printf 'machine\nmesh %s\nmesh %s\nmesh %s\nmesh %s\nparam ilink_lat=8\n' "$MAPS/saxpy_map.txt" \
    "$MAPS/saxpy_map.txt" "$MAPS/saxpy_map.txt" "$MAPS/saxpy_map.txt" > "$tmp/rounds.machine"
sh bench/mpi/rounds.sh 3 > "$tmp/rounds.session"
expect_rc "the rounds session's own checks pass in one process" 0 $KOHAKU run "$tmp/rounds.machine" "$tmp/rounds.session"
for n in 1 2 4; do
    same_run "the bench's rounds session, $n rank(s)" $n "$tmp/rounds.machine" "$tmp/rounds.session"
done
printf 'machine\nmesh default\nmesh default\nmesh default\nmesh default\nparam ilink_lat=8\n' > "$tmp/gemm8.machine"
same_gemm "the bench's four-mesh GEMM 1536 512 512, 2 ranks" 2 0 1536 512 512 --map "$tmp/gemm8.machine"
# KOHAKU_MPI_COUNTS=1: stdout unchanged, the agreements by cause add up to
# the total, and every rank reports its time.
KOHAKU_MPI_COUNTS=1 mpi 2 run "$tmp/rounds.machine" "$tmp/rounds.session" > "$tmp/c.txt" 2> "$tmp/c.err"
$KOHAKU run "$tmp/rounds.machine" "$tmp/rounds.session" > "$tmp/c1.txt" 2>/dev/null
total=$(sed -n 's/.*lookahead 8, \([0-9]*\) agreements, \([1-9][0-9]*\) lane messages.*/\1/p' "$tmp/c.err")
sum=$(sed -n 's/.*by cause: lookahead \([0-9]*\), engine \([0-9]*\), run end \([0-9]*\), query \([0-9]*\);.*/\1 \2 \3 \4/p' \
    "$tmp/c.err" | awk '{print $1 + $2 + $3 + $4}')
if cmp -s "$tmp/c.txt" "$tmp/c1.txt" && [ -n "$total" ] && [ "$total" -gt 0 ] && [ "$total" = "$sum" ] \
    && [ "$(grep -c '^kohaku: mpi: rank [01] (meshes [0-9]-[0-9]): simulation .* s wall' "$tmp/c.err")" -eq 2 ]
then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: KOHAKU_MPI_COUNTS (total $total, causes $sum)"; head -n 4 "$tmp/c.err"; fi
# A host read of a control window (each of the session's polls) rides on
# an agreement (the idleness question's, or the last of the run before it)
# instead of a broadcast of its own.
reads=$(sed -n "s/.*host reads on the idleness agreement \([0-9]*\), on the run's last \([0-9]*\);.*/\1 \2/p" \
    "$tmp/c.err" | awk '{print $1 + $2}')
if [ -n "$reads" ] && [ "$reads" -gt 0 ]; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: no host read rode on an agreement"; head -n 2 "$tmp/c.err"; fi

# A failing check fails on every rank with the same message, printed once.
printf 'mesh 3\nread AUX_STATW(0) 0x1\n' > "$tmp/bad.session"
$KOHAKU run "$tmp/four8.machine" "$tmp/bad.session" > /dev/null 2> "$tmp/bad1.err"
mpi 4 run "$tmp/four8.machine" "$tmp/bad.session" > /dev/null 2> "$tmp/bad4.err"
rc=$?
grep '^kohaku' "$tmp/bad4.err" > "$tmp/bad4k.err" # without mpirun's own lines
if [ "$rc" -ne 0 ] && grep -q 'expected 0x0000000000000001' "$tmp/bad1.err" && cmp -s "$tmp/bad1.err" "$tmp/bad4k.err"
then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: a failed read under MPI: exit $rc, stderr:"; head -n 5 "$tmp/bad4.err"; fi
# Component warnings (each mover written while it moves, host uploads that
# alias) come from the rank stepping the component and are printed by rank
# 0 in the one-process order.
for m in 0 1 2 3; do
    printf 'mesh %s\nupload DRAM(0x1000) hex 000102030405060708090a0b0c0d0e0f\n' $m
    printf 'write AUX_CFG(0x10) 0x100000010000\nwrite AUX_CFG(0x18) 0x2000020\nwrite AUX_CFG(0x20) 0\n'
    printf 'write AUX_CFG(0x10) 0x1%s0000020001\nwrite AUX_CFG(0x18) 0x2000021\nwrite AUX_CFG(0x20) 0\n' $m
    printf 'write AUX_CFG(0x00) 0x10008\nwrite AUX_CFG(0x18) 0x2000021\n'
done > "$tmp/warn.session"
for m in 0 1 2 3; do printf 'mesh %s\npoll AUX_STAT 0 mask 1 limit 100000\n' $m; done >> "$tmp/warn.session"
$KOHAKU run "$tmp/four1.machine" "$tmp/warn.session" > /dev/null 2> "$tmp/w1.err"
same_err() { # same_err "description" K ARGS...: stderr equal to the one-process $tmp/w1.err
    desc=$1; n=$2; shift 2
    mpi "$n" "$@" > /dev/null 2> "$tmp/wk.err"
    if cmp -s "$tmp/w1.err" "$tmp/wk.err"; then kh_pass=$((kh_pass + 1))
    else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: $desc: stderr differs"; diff "$tmp/w1.err" "$tmp/wk.err" | head -n 5; fi
}
if [ "$(grep -c 'mover(mesh .): register 0x18 written while a move runs' "$tmp/w1.err")" -eq 4 ]; then
    kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: the warnings session warns once per mover in one process"; fi
same_err "warnings of four meshes, 2 ranks" 2 run "$tmp/four1.machine" "$tmp/warn.session"
same_err "warnings of four meshes, 4 ranks" 4 run "$tmp/four1.machine" "$tmp/warn.session"
KOHAKU_MPI_ORDER=reverse same_err "warnings of four meshes, 4 ranks in reverse order" 4 run "$tmp/four1.machine" \
    "$tmp/warn.session"
expect_err_has "more ranks than meshes are refused" "3 MPI ranks for 2 mesh(es)" \
    mpi 3 run examples/two_mesh.machine examples/two_mesh.session
expect_rc "a trace file rank 0 cannot create stops every rank (none waits alone)" 1 \
    timeout 60 env "$RANK_ASAN" mpirun --oversubscribe -n 2 "$MPIK" run examples/two_mesh.machine examples/two_mesh.session \
    --trace "$tmp/no/such/dir/t.json"
# A stats file rank 0 cannot create (the leader writes it) fails the run
# once the stats are merged; the other ranks go on to the report's merge
# with it, so none waits alone.
timeout 60 env "$RANK_ASAN" mpirun --oversubscribe -n 2 "$MPIK" run examples/two_mesh.machine examples/two_mesh.session \
    --stats "$tmp/no/such/dir/s.json" --report > /dev/null 2> "$tmp/nostats.err"
rc=$?
if [ "$rc" -eq 1 ] && [ "$(grep -c 'stats .*: cannot create' "$tmp/nostats.err")" -eq 1 ]; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: an uncreatable stats file with --report: exit $rc (1 wanted)"; head -n 3 "$tmp/nostats.err"; fi
# --check: each rank checks its meshes; the summary (flits, violations,
# warnings) is summed over the ranks, the findings are printed by rank 0 in
# the one-process order with the one-process limit of 10 a rule.
want=$($KOHAKU gemm 256 128 64 --map "$tmp/four1.machine" --check 2>&1 >/dev/null | tail -n 1)
got=$(mpi 2 gemm 256 128 64 --map "$tmp/four1.machine" --check 2>&1 >/dev/null | grep 'check: .* flits sent')
case "$want" in
*"0 violations, "[1-9]*) [ "$got" = "$want" ] && kh_pass=$((kh_pass + 1)) ||
    { kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: --check summary on 2 ranks"; echo "  want: $want"; echo "  got:  $got"; } ;;
*) kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: the one-process --check summary has no warnings to sum: $want" ;;
esac
$KOHAKU gemm 128 64 32 --map examples/four_mesh.machine --check > /dev/null 2> "$tmp/w1.err"
if grep -q 'further V12 findings are counted' "$tmp/w1.err"; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: the four-mesh GEMM's --check has more than 10 V12 findings"; fi
for n in 2 4; do
    same_err "the --check findings of a four-mesh GEMM, $n ranks" $n gemm 128 64 32 --map examples/four_mesh.machine --check
done
finish
