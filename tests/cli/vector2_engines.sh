#!/bin/sh
# The V2 core's two engines (docs/vector2.md §9): every recording of
# data/vectors/vector2/ and every program of data/vectors/vector2_own/ (and
# its DUALQ=1 run) at memwait 0, 1 and 3 prints the same counters, elapsed
# cycles, exit status and final memory with --engine fast (engines at rest
# skipped) as with --engine cycle (every engine stepped at every edge).
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# same DIR MEMWAIT [--param P]: "same", or what differs
same() {
    d=$1; mw=$2; shift 2
    "$KOHAKU" replay vector2 "$d/prog.hex" "$d/mem.hex" --memwait "$mw" --out "$tmp/c.hex" --engine cycle "$@" \
        > "$tmp/c.txt" 2>&1
    echo "exit $?" >> "$tmp/c.txt"
    "$KOHAKU" replay vector2 "$d/prog.hex" "$d/mem.hex" --memwait "$mw" --out "$tmp/f.hex" --engine fast "$@" \
        > "$tmp/f.txt" 2>&1
    echo "exit $?" >> "$tmp/f.txt"
    if ! grep -q '^payloads' "$tmp/c.txt"; then echo "no summary line"; return; fi
    if ! cmp -s "$tmp/c.txt" "$tmp/f.txt"; then diff "$tmp/c.txt" "$tmp/f.txt" | head -n 6; return; fi
    if ! cmp -s "$tmp/c.hex" "$tmp/f.hex"; then echo "final memory differs"; return; fi
    echo same
}
for d in "$KH_DATA"/vectors/vector2/*/ "$KH_DATA"/vectors/vector2_own/*/; do
    d=${d%/}
    for mw in 0 1 3; do
        expect_out "$(basename "$d") memwait $mw: fast equals cycle" same same "$d" "$mw"
    done
done
for mw in 0 1 3; do
    expect_out "dualq DUALQ=1 memwait $mw: fast equals cycle" same \
        same "$KH_DATA/vectors/vector2_own/dualq" "$mw" --param DUALQ=1
done
expect_rc "--engine takes cycle or fast only" 2 "$KOHAKU" replay vector2 \
    "$KH_DATA/vectors/vector2/ew_silu_8192/prog.hex" "$KH_DATA/vectors/vector2/ew_silu_8192/mem.hex" --engine slow
finish
