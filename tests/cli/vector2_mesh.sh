#!/bin/sh
# A matmul whose drain feeds a V2 epilogue, from a session on a machine with
# V2 cores (vec_core_v2=1): silu and a row softmax, checked against float64
# (tests/cli/vector2_mesh.py); and the machine parameter and the vc2 token
# place the V2 unit kind.
. tests/cli/lib.inc
expect_rc "matmul then V2 silu" 0 python3 tests/cli/vector2_mesh.py silu
expect_rc "matmul then V2 row softmax" 0 python3 tests/cli/vector2_mesh.py softmax
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed 's/^xxx vec xxx$/xxx vc2 xxx/' "$KH_DATA/maps/mesh_1x1_2+2.txt" > "$tmp/v2.txt"
expect_out "the token vc2 places a V2 unit" "2" sh -c "'$KOHAKU' mesh '$tmp/v2.txt' | grep -c 'vec_cu_v2, bound'"
finish
