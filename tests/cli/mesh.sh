#!/bin/sh
# kohaku mesh MAP and kohaku bench noc (../shared/cli.md).
. tests/cli/lib.inc
MAPS=$KH_DATA/maps
tmp=$(mktemp -d)

expect_rc "mesh prints a reference map" 0 "$KOHAKU" mesh "$MAPS/mesh_2x2_6+2.txt"
expect_out "mesh grid line" \
    "grid 2x2: routers at x=1..2, y=1..2; 12 endpoint positions (4 local, 8 edge)" \
    sh -c "\"$KOHAKU\" mesh \"$MAPS/mesh_2x2_6+2.txt\" | head -n 1"
expect_out "mesh memory ports line" "memory ports 2: 0 (0,1) 1 (0,2)" \
    sh -c "\"$KOHAKU\" mesh \"$MAPS/mesh_2x2_6+2.txt\" | sed -n 2p"
# mesh_2x3_6cu3vec: ports (0,1) (0,2) (0,3), clamped (1,1) (1,2) (1,3).
# (2,2) is 2 from port 0 and 1 from port 1; (1,3) sits on port 2's row
# (clamped Manhattan distance, mesh.md §2)
expect_out "mesh unit bound to port 1" \
    "(2,2)     mat   unit         -     router(2,2).L    mx_cluster_cu, bound to memory port 1 (0,2)" \
    sh -c "\"$KOHAKU\" mesh \"$MAPS/mesh_2x3_6cu3vec.txt\" | grep '^(2,2)'"
expect_out "mesh unit bound to port 2" \
    "(1,3)     mat   unit         -     router(1,3).L    mx_cluster_cu, bound to memory port 2 (0,3)" \
    sh -c "\"$KOHAKU\" mesh \"$MAPS/mesh_2x3_6cu3vec.txt\" | grep '^(1,3)'"
expect_out "mesh tied-off edge" \
    "(3,2)     nul   none         -     router(2,2).E    tied off" \
    sh -c "\"$KOHAKU\" mesh \"$MAPS/mesh_2x3_6cu3vec.txt\" | grep '^(3,2)'"
expect_out "mesh memory port row" \
    "(0,3)     mag   memory port  2     router(1,3).W    memory port 2 of the system node" \
    sh -c "\"$KOHAKU\" mesh \"$MAPS/mesh_2x3_6cu3vec.txt\" | grep '^(0,3)'"
expect_out "mesh vec bound to nearest port" \
    "(3,1)     vec   unit         -     router(2,1).E    vec_cu, bound to memory port 0 (0,1)" \
    sh -c "\"$KOHAKU\" mesh \"$MAPS/mesh_2x3_6cu3vec.txt\" | grep '^(3,1)'"

printf 'xxx vec xxx\nmag mgr nul\nxxx nul xxx\n' > "$tmp/retired.txt"
expect_rc "mesh refuses a retired token" 1 "$KOHAKU" mesh "$tmp/retired.txt"
expect_err_has "refusal names row, column, token, rule" \
    "row y=1, column x=1: token 'mgr' is retired" "$KOHAKU" mesh "$tmp/retired.txt"
printf 'xxx vec vec xxx\nmag mat mag nul\nmag mat mat nul\nxxx nul nul xxx\n' > "$tmp/inner.txt"
expect_err_has "interior mag refused" "row y=1, column x=2: token 'mag' on a router's local port" \
    "$KOHAKU" mesh "$tmp/inner.txt"
expect_rc "mesh on a missing file" 1 "$KOHAKU" mesh "$tmp/none.txt"
expect_rc "mesh without a map is a usage error" 2 "$KOHAKU" mesh
expect_rc "mesh --help" 0 "$KOHAKU" mesh --help

expect_rc "bench noc short run" 0 "$KOHAKU" bench noc --map "$MAPS/mesh_2x2.txt" --rate 0.2 --cycles 2000
expect_rc "bench noc default loads" 0 "$KOHAKU" bench noc --map "$MAPS/mesh_1x1_min.txt" --cycles 500
expect_rc "bench noc transpose with trace and stats" 0 "$KOHAKU" bench noc --pattern transpose \
    --rate 0.3 --cycles 300 --trace "$tmp/t.json" --stats "$tmp/s.json"
expect_out "trace file written" "yes" sh -c "grep -q '\"traceEvents\"' \"$tmp/t.json\" && echo yes"
expect_out "stats file written" "yes" sh -c "grep -q '\"fifo_high_water\"' \"$tmp/s.json\" && echo yes"
expect_rc "bench noc bad pattern (a refused value)" 1 "$KOHAKU" bench noc --pattern zigzag
expect_rc "bench noc bad rate (a refused value)" 1 "$KOHAKU" bench noc --rate 0
expect_rc "bench noc bad map" 1 "$KOHAKU" bench noc --map "$tmp/retired.txt"

rm -rf "$tmp"
finish
