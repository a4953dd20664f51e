#!/bin/sh
# Cycle fidelity on the two loaded workloads of issue 17 (docs/timing.md
# "Loaded workloads"): kohaku's cycles per round against the RTL's figure
# (upstream 7703ee8 under Verilator with the stand-ins of parameters.md
# §2.1), the deviation printed. Fails when a deviation exceeds 2 %.
#   usage: bench/fidelity.sh KOHAKU DATA (the folder holding maps/)
K=$1
DATA=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

# saxpy: two units on one memory port, each round one program of 32
# instructions of 64 elements per unit, PROG_STAT.run polled between the
# two dispatches, then SIG_DONE polled.
saxpy_session() {
    rounds=$1
    u=0
    for dst in "1,0" "1,2"; do
        i=0
        while [ $i -lt 32 ]; do
            x=$((u * 131072 + i * 1024))
            last=0
            [ $i -eq 31 ] && last=1
            printf 'stage %d txn=%d last=%d payload=01000040_40000000_%016x_%016x_0000000000000000\n' \
                $((u * 32 + i)) $((i + 1)) $last $x $((x + 512))
            i=$((i + 1))
        done
        u=$((u + 1))
    done
    r=0
    while [ $r -lt "$rounds" ]; do
        echo "write SIG_DONE 0"
        u=0
        for dst in "1,0" "1,2"; do
            echo "write PROG_BASE $((u * 32))"
            echo "write PROG_LEN 32"
            echo "write PROG_DST XY($dst)"
            echo "write PROG_CRED 32"
            echo "write PROG_KICK 1"
            echo "poll PROG_STAT 0 mask 1 limit 1000000"
            u=$((u + 1))
        done
        echo "poll SIG_DONE 64 mask 0xffff limit 1000000"
        r=$((r + 1))
    done
}

# 2x2 mesh (mesh_2x2_6+2): the public cluster case 24 program (FILL, FILL,
# GEMM gm 2 gn 7 nk 6, DRAIN; vectors/cluster.jsonl) on all six clusters
# each round, PROG_STAT.run polled between dispatches, then SIG_DONE.
mesh_session() {
    rounds=$1
    echo "stage 0 txn=88 last=0 payload=1000000000003000000028000000200000000000000000000000000000000000"
    echo "stage 1 txn=88 last=0 payload=100010000000aa00000028000000200000000000000000000000000000000000"
    echo "stage 2 txn=88 last=0 payload=2000000000000002070628000000200000000000000000000000000000000000"
    echo "stage 3 txn=88 last=1 payload=3000400000003800000028000000200000000000000000000000000000000000"
    echo "write PROG_BASE 0"
    echo "write PROG_LEN 4"
    r=0
    while [ $r -lt "$rounds" ]; do
        echo "write SIG_DONE 0"
        for dst in "1,0" "1,1" "2,1" "1,2" "2,2" "1,3"; do
            echo "write PROG_DST XY($dst)"
            echo "write PROG_CRED 4"
            echo "write PROG_KICK 1"
            echo "poll PROG_STAT 0 mask 1 limit 1000000"
        done
        echo "poll SIG_DONE 24 mask 0xffff limit 1000000"
        r=$((r + 1))
    done
}

# Cycles per round: the difference between 5 rounds and 1 round, over 4,
# so the set-up (staging) does not count.
per_round() {
    name=$1 map=$2 words=$3 rtl=$4
    for n in 1 5; do
        ${name}_session $n > "$tmp/$name$n.session"
        out=$("$K" run "$map" "$tmp/$name$n.session" --profile rec-saxpy \
            --param host_access_cycles=3 --param dram_words_log2=$words) || {
            echo "fidelity $name: the session failed: $out"
            return 1
        }
        eval "c$n=\${out##*cycle }"
    done
    got=$(((c5 - c1) / 4))
    # deviation in tenths of a percent, rounded half away from zero
    dev=$(((got - rtl) * 2000 / rtl))
    if [ $dev -lt 0 ]; then dev=$(((dev - 1) / 2)); else dev=$(((dev + 1) / 2)); fi
    sign=+
    [ $dev -lt 0 ] && sign=- && dev=$((-dev))
    printf 'fidelity %s: %d cycles per round, RTL %d (%s%d.%d %%)\n' "$name" $got $rtl $sign $((dev / 10)) $((dev % 10))
    [ $dev -le 20 ]
}

per_round saxpy "$DATA/maps/saxpy_map.txt" 14 4818 || status=1
per_round mesh "$DATA/maps/mesh_2x2_6+2.txt" 16 2649 || status=1
exit $status
