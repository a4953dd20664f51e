#!/bin/sh
# The session-driven four-mesh workload of `make bench-mpi` (issue 29) on
# standard output: R rounds (argument 1) on four copies of the saxpy mesh
# (bench/base: two vector units on one memory port). Each round kicks both
# units' programs on every mesh, so the four meshes compute at once, and
# mesh 1's mover copies two words into mesh 2's DRAM and rings mesh 2's
# doorbell: cross-mesh traffic every round (between the ranks at 2 and 4
# ranks), which mesh 2 waits for. Made from bench/base's saxpy sessions
# (each mesh's programs name its own DRAM: mesh id in address bits
# [37:36]); a round is two halves of saxpy_round.session, each split into
# its kicks and its completion polls.
R=${1:-20}
D=$(dirname "$0")/../base
for m in 0 1 2 3; do
    echo "mesh $m"
    grep -v '^#' "$D/saxpy_head.session" | awk -v m=$m -v OFS=_ '
        /^stage/ { split($0, w, "_"); for (i = 3; i <= 4; i++) w[i] = substr(w[i], 1, 6) m substr(w[i], 8)
                   $0 = w[1]; for (i = 2; i <= 5; i++) $0 = $0 OFS w[i] } { print }'
done
echo "mesh 1"
echo "upload DRAM(0x1000) hex 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
echo "upload DRAM(0x1020) hex 202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
# The round's two halves, split once into kicks and completion polls.
split_half() { # HALF, then 1 for the polls
    grep -v '^#' "$D/saxpy_round.session" |
        awk -v h="$1" -v p="$2" '/^idle/ {n++; next} n == h - 1 && (/NODE_STATUS/ ? p : !p)'
}
kicks1=$(split_half 1 0) polls1=$(split_half 1 1)
kicks2=$(split_half 2 0) polls2=$(split_half 2 1)
half_lines() { # HALF kicks|polls
    case $1$2 in
    1kicks) printf '%s\n' "$kicks1" ;;
    1polls) printf '%s\n' "$polls1" ;;
    2kicks) printf '%s\n' "$kicks2" ;;
    2polls) printf '%s\n' "$polls2" ;;
    esac
}
r=1
while [ "$r" -le "$R" ]; do
    for half in 1 2; do
        # the half's kicks on every mesh, then mesh 0's copy into mesh 1
        for m in 0 1 2 3; do
            echo "mesh $m"
            half_lines "$half" kicks
        done
        if [ $half = 1 ]; then
            echo "mesh 1"
            echo "write AUX_CFG(0x10) 0x110000010000"
            echo "write AUX_CFG(0x18) 0x2000020"
            echo "write AUX_CFG(0x20) 0"
            echo "write AUX_CFG(0x10) 0x120000020001"
            echo "write AUX_CFG(0x18) 0x2000021"
            echo "write AUX_CFG(0x20) 0"
            echo "write AUX_CFG(0x00) 0x10008"
        fi
        # every unit's completion, mesh by mesh
        for m in 0 1 2 3; do
            echo "mesh $m"
            half_lines "$half" polls
        done
        if [ $half = 1 ]; then
            echo "mesh 1"
            echo "poll AUX_STAT 0 mask 1 limit 100000"
            echo "write AUX_CFG(0x90) 0x4202"
            echo "mesh 2"
            printf 'poll AUX_STATW(3) 0x%x mask 0xffff limit 100000\n' "$r"
        fi
        echo "idle"
    done
    r=$((r + 1))
done
for m in 0 1 2 3; do
    echo "mesh $m"
    echo "dump DRAM(0x20000) 64"
    echo "dump DRAM(0x40000) 64"
done
echo "mesh 2"
echo "compare DRAM(0x2000) hex 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
