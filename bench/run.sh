#!/bin/sh
# `make bench`: simulator speed. Each line says what it measures and its unit.
BUILD=${BUILD:-build}
K="$BUILD/kohaku"
status=0
# the mesh (issue 3): uniform traffic at 0.1 flits/cycle/endpoint and saturating
"$K" bench noc --map "data/maps/mesh_4x4.txt" || status=1
"$K" bench noc --map "data/maps/mesh_2x2_6+2.txt" || status=1
# 10^9 idle cycles must cost < 10 ms
"$BUILD/bench/idle" || status=1
# the matmul arithmetic (issue 6): MX MACs per second, portable and fast paths
"$BUILD/bench/b_mx" || status=1
# the cluster's arithmetic and the whole machine on the demo GEMM (issue 6)
"$K" bench gemm || status=1
# the V2 vector core alone on upstream's kernels (issue 34): cycles per CPU second
"$BUILD/bench/b_vector2" data || status=1
# checkpoints (issue 30): save and restore of the default machine mid 1024^3
# GEMM, wall and CPU seconds, file size against the memory touched
"$BUILD/bench/ckpt" || status=1
# cycle fidelity on two loaded machines against the RTL (issue 17)
sh bench/fidelity.sh "$K" data || status=1
exit $status
