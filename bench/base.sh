#!/bin/sh
# `make bench BASE=COMMIT`: this build's speed against COMMIT's on six
# workloads, measured in the same run. COMMIT is exported with `git archive`
# into a scratch tree outside the project (reused while its build is there)
# and built with its own Makefile; both builds then run the same workloads
# through their own `kohaku`, which is why the workloads are data (bench/base/,
# the maps of data/, CLI arguments) that any build of the CLI since
# 736479f accepts. The two binaries alternate (A B A B ...), each timed as a
# whole process; the table gives the medians and the median of the pairwise
# ratios (CPU time = user + system; wall time beside it), and the quartiles
# of the pairwise CPU ratios ("spread": half the pairs fall inside it; on a
# shared machine a median alone can sit a few per cent off).
#   BENCH_RUNS      timed runs of each binary per workload (default 5)
#   BENCH_SCRATCH   where the base tree and the workload files go
#                   (default ${TMPDIR:-/tmp}/kohaku-bench)
#   BENCH_ONLY      a list of workload numbers to run (default: 1 2 3 4 5 6)
#   BENCH_IR=1      three more columns: the instructions each binary executes
#                   on the workload, counted once under valgrind's callgrind
#                   (millions, every thread), and their ratio. A count does
#                   not depend on the machine's load, so it tells fewer
#                   instructions from more of them per cycle; under valgrind
#                   a CPU without AVX-512 is seen, so those code paths run.
#                   Slow: about 50 times a workload's time, for each binary.
# Output: a line per workload. "values": "same" when both printed the same
# results (lines naming cycles, and the timing lines of `bench noc`, left
# out), else "DIFFERS" and the files to diff.
# "cycles": each build runs the workload once more with --stats (every link's
# flits and stall cycles, every unit's busy cycles, the final cycle; for (1)
# `replay -v` on one case: every request and completion with its cycle) and
# the two records are compared the same way. A speed change must show "same"
# in both columns against its parent commit: BASE=HEAD~1 is the check.
BUILD=${BUILD:-build}
BASE=${1:?usage: bench/base.sh COMMIT}
RUNS=${BENCH_RUNS:-5}
ONLY=${BENCH_ONLY:-1 2 3 4 5 6}
HERE=$(pwd)
K="$HERE/$BUILD/kohaku"
PAIR="$HERE/$BUILD/bench/pairtime"
D="$HERE/bench/base"
rev=$(git rev-parse --verify --quiet "$BASE^{commit}") || { echo "bench: BASE=$BASE is not a commit" >&2; exit 2; }
SCRATCH=${BENCH_SCRATCH:-${TMPDIR:-/tmp}/kohaku-bench}
tree="$SCRATCH/base-$rev"
W="$SCRATCH/work"
mkdir -p "$SCRATCH" "$W" || exit 1

if [ ! -x "$tree/build/kohaku" ]; then
    echo "bench: building $BASE ($rev) in $tree"
    rm -rf "$tree" && mkdir -p "$tree" || exit 1
    git archive "$rev" | tar -x -C "$tree" || exit 1
    # the base's own Makefile and default flags; nothing of this tree's
    # command line (BASE=, SAN=) leaks into it
    (cd "$tree" && env -u MAKEFLAGS -u MFLAGS make -j2 cli >"$tree/build.log" 2>&1) ||
        { echo "bench: building $BASE failed, see $tree/build.log" >&2; exit 1; }
fi
B="$tree/build/kohaku"
IR=${BENCH_IR:-0}
if [ "$IR" = 1 ] && ! command -v valgrind >/dev/null; then
    echo "bench: BENCH_IR=1 needs valgrind (Debian package valgrind); counting nothing" >&2
    IR=0
fi
# millions of instructions binary $1 executes on the arguments after it
# (callgrind's total; nothing written but its summary)
instructions_of() {
    bin=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 >/dev/null |
        sed -n 's/^==[0-9]*== Collected : \([0-9]*\).*/\1/p' | awk '{printf "%.1f", $1 / 1e6}'
}

# Workloads made from the data in bench/base/ (repeated to a measurable length).
awk -v n=500 '{l[NR] = $0} END {for (i = 0; i < n; i++) for (j = 1; j <= NR; j++) print l[j]}' \
    "$D/cluster.jsonl" >"$W/cluster.jsonl"
{ cat "$D/saxpy_head.session"
  awk -v n=2500 '{l[NR] = $0} END {for (i = 0; i < n; i++) for (j = 1; j <= NR; j++) print l[j]}' \
      "$D/saxpy_round.session"
  cat "$D/saxpy_tail.session"; } >"$W/saxpy.session"

args() {
    case $1 in
    1) echo "replay cluster $W/cluster.jsonl" ;;
    2) echo "run $HERE/data/maps/saxpy_map.txt $W/saxpy.session" ;;
    3) echo "demo" ;;
    4) echo "gemm 1024 1024 1024" ;;
    5) echo "bench noc --map $HERE/data/maps/mesh_4x4.txt" ;;
    6) echo "run $HERE/data/maps/mesh_1x1_min.txt $D/vector_loop.session" ;;
    esac
}
title() {
    case $1 in
    1) echo "(1) cluster unit bench, FILL/FILL/GEMM/DRAIN x8 x500" ;;
    2) echo "(2) saxpy mesh, 2 units on 1 port, 5000 rounds" ;;
    3) echo "(3) kohaku demo" ;;
    4) echo "(4) kohaku gemm 1024 1024 1024" ;;
    5) echo "(5) bench noc 4x4 uniform 0.1 + saturating" ;;
    6) echo "(6) vector VLOOP kernel, 8 RUNs x 10000" ;;
    esac
}

echo "base $BASE ($(git rev-parse --short "$rev")) against this build ($(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src include tools 2>/dev/null || echo ', modified')); $RUNS runs each, medians"
# the cycle record of workload n by binary $2 into $3
cycles_of() {
    case $1 in
    1) "$2" replay cluster -v "$D/cluster.jsonl" >"$3" 2>&1 ;;
    *) # shellcheck disable=SC2046,SC2086 # the arguments are words by design
       "$2" $(args "$1") --stats "$3" >/dev/null 2>&1 ;;
    esac
}
irhead=
[ "$IR" = 1 ] && irhead=$(printf ' %9s %9s %8s' "base Mi" "this Mi" "Mi ratio")
printf '%-52s %9s %9s %8s %11s %9s %9s %8s%s  %-8s %s\n' workload "base cpu" "this cpu" speed-up spread "base wall" "this wall" speed-up "$irhead" values cycles
status=0
for n in $ONLY; do
    a=$(args "$n")
    [ -n "$a" ] || { echo "bench: no workload $n" >&2; status=2; continue; }
    # shellcheck disable=SC2086 # the arguments are words by design
    line=$("$PAIR" "$RUNS" "$W/out$n.base" "$W/out$n.this" -- "$B" $a -- "$K" $a) || { status=1; continue; }
    set -- $line
    # values: what the run printed less its timing (speed) and its cycle
    # counts, which the cycles column compares
    grep -v -e ' speed ' -e 'cycle' "$W/out$n.base" >"$W/out$n.base.values"
    grep -v -e ' speed ' -e 'cycle' "$W/out$n.this" >"$W/out$n.this.values"
    if [ "$7" != 0 ] || [ "$8" != 0 ]; then
        same="exit $7/$8"
        status=1
    elif cmp -s "$W/out$n.base.values" "$W/out$n.this.values"; then
        same=same
    else
        same="DIFFERS ($W/out$n.*.values)"
    fi
    cycles_of "$n" "$B" "$W/cycles$n.base"
    cycles_of "$n" "$K" "$W/cycles$n.this"
    if cmp -s "$W/cycles$n.base" "$W/cycles$n.this"; then cyc=same; else cyc="DIFFERS ($W/cycles$n.*)"; fi
    ircols=
    if [ "$IR" = 1 ]; then
        # shellcheck disable=SC2086 # the arguments are words by design
        ib=$(instructions_of "$B" $a)
        # shellcheck disable=SC2086
        it=$(instructions_of "$K" $a)
        ircols=$(awk -v b="$ib" -v t="$it" 'BEGIN {printf " %9s %9s %7sx", b, t, (t > 0 ? sprintf("%.2f", b / t) : "?")}')
    fi
    printf '%-52s %9s %9s %7sx %11s %9s %9s %7sx%s  %-8s %s\n' "$(title "$n")" "$1" "$2" "$3" "${9}-${10}" "$4" "$5" "$6" "$ircols" "$same" "$cyc"
done
exit $status
