#!/bin/sh
# `make bench-mpi` (issue 29, docs/mpi.md "Measuring"): a machine on MPI
# ranks against one process, on two four-mesh workloads (ilink_lat 8):
#   gemm    kohaku gemm 1536 512 512 on four default meshes
#   gemmq   the same with --quantise-wait quiet (the host waits for the
#           quantising movers to finish instead of polling them: its own
#           cycle counts, docs/mpi.md "The GEMM driver")
#   rounds  a session of R rounds (bench/mpi/rounds.sh): every mesh runs its
#           own saxpy programs each round, and mesh 1 copies into mesh 2 and
#           rings its doorbell every round (cross-rank traffic)
# Runs alternate (one process, 1 rank, 2 ranks; N times; stdout must be
# identical) and the table gives medians: the whole command's wall time,
# the simulation phase alone (first window to last agreement, measured in
# the run by KOHAKU_MPI_COUNTS) and the ratios one/two (> 1: 2 ranks
# faster), then the 2-rank run's agreements by cause, per-rank CPU and
# blocked time, and a projection for 4 ranks on 4 cores from those costs.
# Env: BUILD (build), MPI_BUILD (build-mpi), N (3), R (400), TMPDIR;
# GEMM ("1536 512 512"), the GEMM's M N K: a longer run (e.g. "1536 2048
# 512", four times the simulated GEMM phase) makes mpirun's start small
# beside it; W ("gemm gemmq rounds"), the workloads to run.
BUILD=${BUILD:-build}
MPI_BUILD=${MPI_BUILD:-build-mpi}
N=${N:-3}
R=${R:-400}
GEMM=${GEMM:-1536 512 512}
W=${W:-gemm gemmq rounds}
ONE="$BUILD/kohaku"
MPIK="$MPI_BUILD/kohaku"
HERE=$(cd "$(dirname "$0")" && pwd)
for b in "$ONE" "$MPIK"; do
    [ -x "$b" ] || { echo "bench-mpi: $b not built (make bench-mpi builds both)"; exit 1; }
done
command -v mpirun >/dev/null 2>&1 || { echo "bench-mpi: needs mpirun (openmpi-bin)"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
# the ob1 layer directly: UCX's probe costs 0.2 s a process here (docs/mpi.md "Starting ranks")
export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MAPS=$(cd "$(dirname "$HERE")/../data/maps" && pwd) # bench/../data/maps
printf 'machine\nmesh default\nmesh default\nmesh default\nmesh default\nparam ilink_lat=8\n' > "$tmp/gemm.machine"
printf 'machine\nmesh %s\nmesh %s\nmesh %s\nmesh %s\nparam ilink_lat=8\n' "$MAPS/saxpy_map.txt" \
    "$MAPS/saxpy_map.txt" "$MAPS/saxpy_map.txt" "$MAPS/saxpy_map.txt" > "$tmp/rounds.machine"
sh "$HERE/rounds.sh" "$R" > "$tmp/rounds.session"

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
status=0
# bench NAME ARGS...: the runs, alternating; files NAME.{one,k1,k2}.{wall,sim} and the last counts
bench() {
    name=$1; shift
    i=0
    while [ $i -lt "$N" ]; do
        t0=$(now); "$ONE" "$@" > "$tmp/$name.one.out" 2>/dev/null; t1=$(now)
        echo "$t1 - $t0" | bc -l >> "$tmp/$name.one.wall"
        for k in 1 2; do
            t0=$(now)
            KOHAKU_MPI_COUNTS=1 mpirun --oversubscribe -n $k "$MPIK" "$@" > "$tmp/$name.k$k.out" 2> "$tmp/$name.k$k.err"
            t1=$(now)
            echo "$t1 - $t0" | bc -l >> "$tmp/$name.k$k.wall"
            sed -n 's/.*rank 0 (meshes [0-9-]*): simulation \([0-9.]*\) s wall.*/\1/p' "$tmp/$name.k$k.err" \
                >> "$tmp/$name.k$k.sim"
            if ! cmp -s "$tmp/$name.one.out" "$tmp/$name.k$k.out"; then
                echo "bench-mpi: $name: stdout at $k rank(s) differs from one process"; status=1
            fi
        done
        i=$((i + 1))
    done
}
for w in $W; do
    case $w in
    gemm) bench gemm gemm $GEMM --map "$tmp/gemm.machine" ;;
    gemmq) bench gemmq gemm $GEMM --map "$tmp/gemm.machine" --quantise-wait quiet ;;
    rounds) bench rounds run "$tmp/rounds.machine" "$tmp/rounds.session" ;;
    *) echo "bench-mpi: no workload $w (gemm, gemmq, rounds)"; exit 1 ;;
    esac
done

echo "bench-mpi: medians of $N, alternating; load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) core(s); gemm $GEMM, rounds R=$R"
printf '%-8s %10s %10s %10s %9s | %10s %10s %9s\n' workload "one (s)" "1 rank" "2 ranks" one/two \
    "sim 1 rk" "sim 2 rk" "1rk/2rk"
for w in $W; do
    o=$(median < "$tmp/$w.one.wall"); a=$(median < "$tmp/$w.k1.wall"); b=$(median < "$tmp/$w.k2.wall")
    sa=$(median < "$tmp/$w.k1.sim"); sb=$(median < "$tmp/$w.k2.sim")
    printf '%-8s %10.3f %10.3f %10.3f %8.2fx | %10.3f %10.3f %8.2fx\n' $w "$o" "$a" "$b" \
        "$(echo "$o / $b" | bc -l)" "$sa" "$sb" "$(echo "$sa / $sb" | bc -l)"
done
for w in $W; do
    echo "$w at 2 ranks (last run):"
    grep '^kohaku: mpi:' "$tmp/$w.k2.err" | sed 's/^kohaku: mpi: /  /'
    # 4 ranks on 4 cores: the one-rank simulation split four ways, plus
    # every agreement at the cheapest rank's measured cost (its blocked
    # time over the agreements: the least waiting for the other rank)
    awk -v sim1="$(median < "$tmp/$w.k1.sim")" '
        /rank\(s\)/ { for (i = 1; i <= NF; i++) if ($i == "agreements,") n = $(i - 1) }
        /in agreements/ { for (i = 1; i <= NF; i++) if ($i == "agreements," && $(i - 1) == "in") b = $(i - 3)
                          if (min == "" || b < min) min = b }
        END { c = n ? min / n : 0
              printf "  projection, 4 ranks on 4 cores: %.3f s = %.3f s / 4 + %d agreements x %.1f us; " \
                     "against 1 rank %.2fx\n", sim1 / 4 + n * c, sim1 / 4, n, 1e6 * c, sim1 / (sim1 / 4 + n * c) }' \
        "$tmp/$w.k2.err"
done
exit $status
