#!/bin/sh
# The V2 fast engine's rest skips (docs/vector2.md §9): an unpack or pack
# engine resting 4 / 8 edges and more skips its edges, a core still since
# the last edge does not ask again whether it is idle, the DMA engines'
# quiet edges take VSYNC marks at their queue heads. Random programs
# (tests/data/vector2_rest/: every format, marks at the fill and drain
# heads, a fault while other engines rest, DUALQ) wake engines after rests
# of every length around those counts.
# 1. Replayed at memwait 0, 1, 3 and with DUALQ, both engines print the
#    counters, cycles, exit status and output words recorded from main
#    3795c51 (before the skips) and from the reference engine.
# 2. On a mesh, the V2 unit's checkpoint section saved every 3 cycles of a
#    run is the same bytes on the fast engine as on the reference: a
#    skipped edge leaves no register behind what the RTL's edge would
#    have made it, even where no output would show it.
. tests/cli/lib.inc
D=tests/data/vector2_rest
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# in.hex holds memory words 64..319 (the programs read no others); the rest 0
awk 'NR == FNR { w[FNR + 63] = $0; next }
     END { z = sprintf("%064d", 0); for (i = 0; i < 4096; i++) print (i in w ? w[i] : z) }' "$D/in.hex" /dev/null \
    > "$tmp/mem.hex"
# figures CASE ENGINE: every variant's printout, exit status and output words
figures() {
    for v in m0 m1 m3 dq; do
        case $v in dq) a="--memwait 1 --param v2_dualq=1" ;; *) a="--memwait ${v#m}" ;; esac
        case $1 in *q) a="$a --param v2_dualq=1" ;; esac
        echo "== $v"
        # shellcheck disable=SC2086 # $a is a list of options
        "$KOHAKU" replay vector2 "$D/$1/prog.hex" "$tmp/mem.hex" $a --engine "$2" --out "$tmp/out.hex" 2>&1
        echo "exit $?"
        awk 'NR > 2048 && $0 !~ /^0+$/ { print NR - 1, $0 }' "$tmp/out.hex"
    done
}
cases=$(cd "$D" && ls -d */ | tr -d /)
for c in $cases; do
    for e in fast cycle; do
        figures "$c" "$e" > "$tmp/$c.$e"
        expect_rc "$c on engine $e: main's and the reference's figures and words" 0 cmp "$tmp/$c.$e" "$D/$c/expect.txt"
    done
done
# sections FILE...: the MD5 of each checkpoint file's V2 unit section (COMP "vc2(1,0)")
sections() {
    python3 - "$@" <<'PY'
import hashlib, struct, sys
for f in sys.argv[1:]:
    b = open(f, "rb").read()
    i = 32
    while i < len(b):
        nl = struct.unpack_from("<H", b, i + 4)[0]
        name = b[i + 6:i + 6 + nl].decode()
        n = struct.unpack_from("<Q", b, i + 6 + nl)[0]
        p = i + 6 + nl + 12
        if b[i:i + 4] == b"COMP" and name == "vc2(1,0)":
            print(hashlib.md5(b[p:p + n]).hexdigest())
        i = p + n
PY
}
# saved CASE ENGINE FROM: the section at every third cycle of 300 from FROM
# cycles after the kick, one line each
saved() {
    awk -v from="$3" -v t="$tmp" '
        /^write PROG_KICK/ { print; if (from) print "run " from; for (k = 0; k < 100; k++) print "run 3\nsave " t "/ck" k; next }
        { print }' "$D/$1/mesh.session" > "$tmp/s.session"
    p=""
    case $1 in *q) p="--param v2_dualq=1" ;; esac
    # shellcheck disable=SC2086
    "$KOHAKU" run "$KH_DATA/maps/mesh_1x1_min.txt" "$tmp/s.session" --param vec_core_v2=1 $p --engine "$2" \
        > /dev/null 2>&1 || { echo "run failed"; return; }
    sections $(seq -f "$tmp/ck%g" 0 99)
    rm -f "$tmp"/ck*
}
if command -v python3 > /dev/null; then
    for c in $cases; do
        [ -f "$D/$c/mesh.session" ] || continue
        for from in 0 300 600 900; do
            saved "$c" cycle "$from" > "$tmp/c.txt"
            saved "$c" fast "$from" > "$tmp/f.txt"
            expect_rc "$c on a mesh, cycles $from-$((from + 300)) after the kick: the V2 section on fast is the reference's" \
                0 cmp "$tmp/c.txt" "$tmp/f.txt"
        done
    done
else
    skip_begin "the checkpoint sections are read with python3" python3
    expect_rc "checkpoints" 0 true
    skip_end
fi
finish
