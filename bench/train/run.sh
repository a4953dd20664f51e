#!/bin/sh
# The training run of the profile-guided CLI build (the Makefile, PGO=1):
# bench/train/run.sh KOHAKU WORKDIR runs an instrumented kohaku on inputs of
# the same kinds as the six workloads of bench/base.sh but never those
# workloads themselves (a profile of the measured runs would flatter the
# measurement): the recorded cluster cases other than bench (1)'s, the other
# recorded vectors, GEMMs of other shapes and maps, the router on other maps,
# rates and patterns, a saxpy session and a vector kernel of their own (the
# MX arithmetic also once under KOHAKU_SIMD=avx2). About
# half a second of ordinary CPU time, each kind a comparable share, so that
# no kind's code looks cold beside another's. Run from the project's root.
set -eu
[ $# -eq 2 ] || { echo "usage: bench/train/run.sh KOHAKU WORKDIR" >&2; exit 2; }
K=$1
W=$2
T=bench/train
mkdir -p "$W"
# repeat: the lines of FILE N times
repeat() { awk -v n="$1" '{l[NR] = $0} END {for (i = 0; i < n; i++) for (j = 1; j <= NR; j++) print l[j]}' "$2"; }
grep -v '"case": 56,' data/vectors/cluster.jsonl >"$W/cluster1.jsonl"
repeat 300 "$W/cluster1.jsonl" >"$W/cluster.jsonl"
{ cat "$T/saxpy_head.session"; repeat 4000 "$T/saxpy_round.session"; cat "$T/saxpy_tail.session"; } >"$W/saxpy.session"
"$K" replay cluster "$W/cluster.jsonl" >/dev/null
"$K" replay quant data/vectors/quant.jsonl >/dev/null
"$K" replay saxpy data/vectors/saxpy.jsonl >/dev/null
"$K" replay vector --rtl-compat data/vectors/vector.jsonl >/dev/null 2>&1
"$K" gemm 640 512 768 >/dev/null
"$K" gemm 512 384 640 --map data/maps/mesh_2x2.txt >/dev/null
# the arithmetic a CPU without AVX-512 runs (KOHAKU_SIMD, docs/num.md), so
# that its paths are not cold in a profile trained on a CPU with it
repeat 100 "$W/cluster1.jsonl" >"$W/cluster_avx2.jsonl"
KOHAKU_SIMD=avx2 "$K" replay cluster "$W/cluster_avx2.jsonl" >/dev/null
KOHAKU_SIMD=avx2 "$K" gemm 512 384 640 >/dev/null
"$K" bench noc --map data/maps/mesh_2x4.txt --rate 0.3 >/dev/null
"$K" bench noc --map data/maps/mesh_4x5.txt --pattern hotspot --rate 0.05 --cycles 100000 >/dev/null
"$K" run data/maps/saxpy_map.txt "$W/saxpy.session" >/dev/null
"$K" run data/maps/mesh_1x1_min.txt "$T/vector.session" >/dev/null
"$K" run data/maps/saxpy_map.txt examples/saxpy.session >/dev/null
"$K" run examples/two_mesh.machine examples/two_mesh.session >/dev/null
