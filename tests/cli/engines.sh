#!/bin/sh
# The two engines (--engine cycle|fast, docs/design.md §2) give the same
# everything: on the bench's six workloads (shortened) and the project's
# other workloads, standard output (less CPU-time lines), standard error,
# exit status and every file written (--stats, --trace, --heatmap) agree
# byte for byte, with --report and --check too; so do a stalled run's
# diagnosis and (with the MPI build) a machine on ranks. tests/t_engines.c
# stops runs anywhere and compares what can be read between them; `make
# test-engines` runs the whole CLI suite both ways.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
D=bench/base
timeless() { grep -v -e ' speed ' -e 'CPU' -e 'wall' -e 'MAC/s' -e 'cycles/s' -e 'share of the sweep' "$1"; }

# both "description" ARGS...: ARGS with --engine cycle, then fast; an @ in
# an argument is that run's own folder, where its files go (an argument
# holds no newline)
both() {
    desc=$1
    shift
    : >"$tmp/args"
    for a in "$@"; do printf '%s\n' "$a" >>"$tmp/args"; done
    for e in cycle fast; do
        rm -rf "${tmp:?}/$e" && mkdir "$tmp/$e"
        (
            set --
            while IFS= read -r a; do set -- "$@" "$(printf '%s' "$a" | sed "s|@|$tmp/$e|")"; done <"$tmp/args"
            "$KOHAKU" "$@" --engine "$e" >"$tmp/$e.out" 2>"$tmp/$e.err"
            echo $? >"$tmp/$e.rc"
        )
    done
    timeless "$tmp/cycle.out" >"$tmp/c.t"
    timeless "$tmp/fast.out" >"$tmp/f.t"
    sed "s|$tmp/cycle|@|g" "$tmp/cycle.err" >"$tmp/c.e"
    sed "s|$tmp/fast|@|g" "$tmp/fast.err" >"$tmp/f.e"
    ok=1
    cmp -s "$tmp/cycle.rc" "$tmp/fast.rc" || ok=0
    cmp -s "$tmp/c.t" "$tmp/f.t" || ok=0
    cmp -s "$tmp/c.e" "$tmp/f.e" || ok=0
    for f in "$tmp"/cycle/*; do
        [ -e "$f" ] || continue
        cmp -s "$f" "$tmp/fast/$(basename "$f")" || { ok=0; echo "  $(basename "$f") differs"; }
    done
    [ "$(ls "$tmp/cycle" | wc -l)" = "$(ls "$tmp/fast" | wc -l)" ] || ok=0
    if [ "$ok" = 1 ] && [ -s "$tmp/c.t" ]; then
        kh_pass=$((kh_pass + 1))
    else
        kh_fail=$((kh_fail + 1))
        echo "FAIL $kh_name: $desc (exit $(cat "$tmp/cycle.rc") cycle, $(cat "$tmp/fast.rc") fast)"
        diff "$tmp/c.t" "$tmp/f.t" | head -n 6
        diff "$tmp/c.e" "$tmp/f.e" | head -n 6
    fi
}

# rounds N: the saxpy bench's session with N rounds of two (bench/base.sh)
rounds() {
    cat "$D/saxpy_head.session"
    i=0
    while [ "$i" -lt "$1" ]; do
        cat "$D/saxpy_round.session"
        i=$((i + 1))
    done
    cat "$D/saxpy_tail.session"
}
rounds 20 >"$tmp/saxpy.session"
awk '{l[NR] = $0} END {for (i = 0; i < 20; i++) for (j = 1; j <= NR; j++) print l[j]}' "$D/cluster.jsonl" \
    >"$tmp/cluster.jsonl"
OUT="--stats @/stats.json --report --heatmap @/map.svg"

# the bench's six workloads, shortened
both "bench (1): the cluster's unit bench, every request and completion" replay cluster -v "$tmp/cluster.jsonl" --stats @/stats.json --report
both "bench (2): the saxpy mesh" run "$KH_DATA/maps/saxpy_map.txt" "$tmp/saxpy.session" $OUT
both "bench (3): the demo" demo $OUT
both "bench (4): a GEMM" gemm 256 256 256 $OUT
both "bench (5): bench noc at 0.1" bench noc --map "$KH_DATA/maps/mesh_4x4.txt" --rate 0.1 --cycles 20000 $OUT
both "bench (5): bench noc saturating" bench noc --map "$KH_DATA/maps/mesh_4x4.txt" --rate 1 --cycles 20000 $OUT
both "bench (6): the vector loop" run "$KH_DATA/maps/mesh_1x1_min.txt" "$D/vector_loop.session" $OUT
# traffic of every kind, slow sinks, small FIFOs
for pat in uniform hotspot transpose; do
    for rate in 0.02 0.3; do
        both "bench noc $pat at $rate" bench noc --pattern $pat --rate $rate --cycles 5000 --seed 7 $OUT
    done
done
both "bench noc, FIFOs of one and latency 1" bench noc --map "$KH_DATA/maps/mesh_4x5.txt" --rate 0.2 --cycles 5000 \
    --param router_fifo_depth=1 --param fifo_extra_cap=0 --param fifo_latency=1 $OUT
both "bench noc, latency 5" bench noc --rate 0.15 --cycles 5000 --param fifo_latency=5 $OUT
# traces, whole and in a window, and the live checker
both "the saxpy mesh traced" run "$KH_DATA/maps/saxpy_map.txt" "$tmp/saxpy.session" --trace @/t.json --check $OUT
both "bench noc traced in a window" bench noc --rate 0.1 --cycles 3000 --trace @/t.json --trace-window 1000:1200
both "a GEMM checked" gemm 128 128 128 --check --stats @/stats.json
# the recorded vectors and the examples
for k in cluster saxpy vector; do
    both "replay $k" replay $k "$KH_DATA/vectors/$k.jsonl" --stats @/stats.json
done
both "replay saxpy in the recording's RTL mode" replay saxpy "$KH_DATA/vectors/saxpy.jsonl" --rtl-compat
both "the saxpy example" run "$KH_DATA/maps/saxpy_map.txt" examples/saxpy.session $OUT
both "the vector example" run default examples/vector_scale.session $OUT
both "the two-mesh example" run examples/two_mesh.machine examples/two_mesh.session $OUT
both "bench (2) on the recording's profile" run "$KH_DATA/maps/saxpy_map.txt" "$tmp/saxpy.session" \
    --profile rec-saxpy --param host_access_cycles=3 $OUT
# a stalled run and its diagnosis
printf 'write PROG_LEN 1\nwrite PROG_CRED 0\nwrite PROG_KICK 1\npoll SIG_DONE 1\n' >"$tmp/stall.session"
both "a stall's diagnosis" run "$KH_DATA/maps/mesh_2x2_6+2.txt" "$tmp/stall.session" $OUT

# A machine on MPI ranks, on the event engine, against one process on the
# reference (tests/cli/mpi.sh compares the ranks with one process).
MPIK=${KOHAKU_MPI:-}
if [ -n "$MPIK" ] && [ -x "$MPIK" ] && command -v mpirun >/dev/null 2>&1; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
    export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1} # as tests/cli/mpi.inc
    RANK_ASAN="ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    $KOHAKU run examples/four_mesh.machine tests/cli/four_mesh.session --engine cycle --stats "$tmp/one.json" \
        --report >"$tmp/one.txt" 2>"$tmp/one.err"
    env "$RANK_ASAN" mpirun --oversubscribe -n 2 "$MPIK" run examples/four_mesh.machine tests/cli/four_mesh.session \
        --engine fast --stats "$tmp/k.json" --report >"$tmp/k.txt" 2>"$tmp/k.err"
    if cmp -s "$tmp/one.txt" "$tmp/k.txt" && cmp -s "$tmp/one.json" "$tmp/k.json" && cmp -s "$tmp/one.err" "$tmp/k.err" \
        && [ -s "$tmp/one.json" ]; then
        kh_pass=$((kh_pass + 1))
    else
        kh_fail=$((kh_fail + 1))
        echo "FAIL $kh_name: four meshes on 2 ranks (fast) against one process (cycle)"
    fi
fi
finish
