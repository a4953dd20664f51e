#!/bin/sh
# A checkpoint of the one-process run resumed under mpirun (docs/checkpoint.md,
# docs/mpi.md): every rank restores the whole machine from the one file and
# then steps its meshes; at 1, 2 and 4 ranks the resumed run prints what the
# one-process resumed run prints (stdout, stderr, the --stats file), which
# is what the run that never stopped prints after the save. With --check
# the count line counts the flits before the save once, not once a rank.
# A save under mpirun at 1, 2 and 4 ranks writes one file: the one-process
# run's file byte for byte but for the kernel's step counter (docs/
# checkpoint.md "Under MPI"), which resumes in one process and under
# mpirun with the one-process resume's outputs. Needs Open MPI and the MPI
# build, as tests/cli/mpi.sh.
. tests/cli/lib.inc
plan 53
. tests/cli/mpi.inc
# Under `make test-engines` the one-process runs go through the engines'
# differential wrapper, whose files are the event engine's (it runs last),
# while the ranks would inherit KOHAKU_ENGINE=cycle. A checkpoint's bytes
# differ between the engines in fields docs/checkpoint.md names (the step
# count, a settled router's empty ring, receive timers), so the ranks here
# run the engine that wrote the files they are compared with.
[ -n "${KOHAKU_REAL:-}" ] && export KOHAKU_ENGINE=fast

# four meshes, the tightest lookahead (as tests/cli/mpi.sh)
printf 'machine\nmesh default\nmesh default\nmesh default\nmesh default\nparam ilink_lat=1\n' > "$tmp/four.machine"
S=tests/cli/four_mesh.session
# saved AT: the session with `run 37` and `save` after line AT
saved() {
    awk -v at="$1" -v f="$tmp/f$1.ck" '{ print } NR == at { print "run 37"; print "save " f }' $S > "$tmp/f$1.session"
}
# resumed AT K: the one-process run from the save, then K ranks from the same file
resumed() {
    at=$1 k=$2
    shift 2
    "$KOHAKU" run --restore "$tmp/f$at.ck" "$tmp/f$at.session" --stats "$tmp/one.json" "$@" > "$tmp/one.out" \
        2> "$tmp/one.err" || return 1
    mpi "$k" run --restore "$tmp/f$at.ck" "$tmp/f$at.session" --stats "$tmp/k.json" "$@" > "$tmp/k.out" \
        2> "$tmp/k.err" || return 1
    cmp -s "$tmp/one.out" "$tmp/k.out" && cmp -s "$tmp/one.err" "$tmp/k.err" && cmp -s "$tmp/one.json" "$tmp/k.json" \
        && [ -s "$tmp/one.json" ]
}
for at in 10 50; do
    saved $at
    "$KOHAKU" run "$tmp/four.machine" "$tmp/f$at.session" > "$tmp/full$at.out" 2>&1
    expect_rc "the one-process run saves after line $at" 0 test -s "$tmp/f$at.ck"
    for k in 1 2 4; do
        expect_rc "resumed after line $at on $k rank(s): the one-process outputs" 0 resumed $at $k
    done
done
# the whole resumed output is the tail of the run that never stopped
"$KOHAKU" run "$tmp/four.machine" "$tmp/f50.session" > "$tmp/full.out" 2> /dev/null
mpi 4 run --restore "$tmp/f50.ck" "$tmp/f50.session" > "$tmp/k4.out" 2> /dev/null
expect_rc "4 ranks print the tail of the run that never stopped" 0 \
    sh -c "tail -n \$(wc -l < '$tmp/k4.out') '$tmp/full.out' | cmp -s - '$tmp/k4.out'"
# the checker: saved with --check, resumed on 2 ranks with it; the count
# line is the one-process one (the flits before the save counted once)
"$KOHAKU" run "$tmp/four.machine" "$tmp/f50.session" --check > /dev/null 2> "$tmp/ckfull.err"
expect_rc "--check: resumed on 2 ranks, the one-process outputs" 0 resumed 50 2 --check
expect_rc "... and the count line of the run that never stopped" 0 \
    sh -c "tail -n 1 '$tmp/ckfull.err' | cmp -s - '$tmp/k.err'"
# A save under mpirun. The step counter (8 bytes of the SIM section and
# its CRC) counts the steps the processes ran: more than one process runs
# when lanes cross processes (an interlink is stepped where flits arrive at
# a window's end). Blank both before comparing; everything else is equal.
blank_steps() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
p = 32  # the header: magic, version, flags, two hashes
while p < len(b):
    nl = struct.unpack_from('<H', b, p + 4)[0]
    tag, q = bytes(b[p:p + 4]), p + 6 + nl
    n = struct.unpack_from('<Q', b, q)[0]
    if tag == b'SIM ':
        b[q + 8:q + 12] = bytes(4)  # the CRC
        # now, occ, ncomps, nlinks, nwords; the wheel; the heap; then steps
        nw = struct.unpack_from('<Q', b, q + 12 + 32)[0]
        h = q + 12 + 40 + nw * 64 * 8
        nh = struct.unpack_from('<Q', b, h)[0]
        s = h + 8 + nh * 12
        b[s:s + 8] = bytes(8)
    p = q + 12 + n
open(sys.argv[2], 'wb').write(b)
PY
}
same_file() {
    cmp -s "$1" "$2" && return 0
    blank_steps "$1" "$tmp/a.blank" && blank_steps "$2" "$tmp/b.blank" && cmp -s "$tmp/a.blank" "$tmp/b.blank"
}
# resumed from FILE in one process and on K ranks: the one-process resume's outputs of the one-process file
resumed_from() {
    file=$1 at=$2 k=$3
    cp "$tmp/one$at.ck" "$tmp/f$at.ck"
    "$KOHAKU" run --restore "$tmp/f$at.ck" "$tmp/f$at.session" --stats "$tmp/one.json" > "$tmp/one.out" 2> "$tmp/one.err" \
        || return 1
    cp "$file" "$tmp/f$at.ck"
    "$KOHAKU" run --restore "$tmp/f$at.ck" "$tmp/f$at.session" --stats "$tmp/p.json" > "$tmp/p.out" 2> "$tmp/p.err" \
        || return 1
    mpi "$k" run --restore "$tmp/f$at.ck" "$tmp/f$at.session" --stats "$tmp/k.json" > "$tmp/k.out" 2> "$tmp/k.err" \
        || return 1
    for o in out err json; do
        cmp -s "$tmp/one.$o" "$tmp/p.$o" && cmp -s "$tmp/one.$o" "$tmp/k.$o" || return 1
    done
    [ -s "$tmp/one.json" ]
}
saved 60 # after the engine's poll at line 58: each rank's card holds a sample shared for it
for at in 10 50 60; do
    "$KOHAKU" run "$tmp/four.machine" "$tmp/f$at.session" > /dev/null 2>&1
    mv "$tmp/f$at.ck" "$tmp/one$at.ck"
    "$KOHAKU" run "$tmp/four.machine" "$tmp/f$at.session" --stats "$tmp/full$at.json" > "$tmp/full$at.out" \
        2> "$tmp/full$at.err"
    for k in 1 2 4; do
        rm -f "$tmp/f$at.ck"
        mpi "$k" run "$tmp/four.machine" "$tmp/f$at.session" --stats "$tmp/k.json" > "$tmp/k.out" 2> "$tmp/k.err"
        expect_rc "saved after line $at on $k rank(s): exit 0" 0 test $? -eq 0
        expect_rc "... the run's outputs are the one-process run's" 0 sh -c "cmp -s '$tmp/full$at.out' '$tmp/k.out' \
            && cmp -s '$tmp/full$at.err' '$tmp/k.err' && cmp -s '$tmp/full$at.json' '$tmp/k.json'"
        expect_rc "... one file, the one-process run's (the step counter aside)" 0 same_file "$tmp/one$at.ck" "$tmp/f$at.ck"
        cp "$tmp/f$at.ck" "$tmp/k$k.$at.ck"
        expect_rc "... it resumes in one process and on $k rank(s) as the one-process file does" 0 \
            resumed_from "$tmp/k$k.$at.ck" $at $k
    done
done
# on one rank nothing crosses a process: byte for byte
expect_rc "saved on 1 rank: byte for byte the one-process file" 0 cmp -s "$tmp/one10.ck" "$tmp/k1.10.ck"
expect_rc "... after line 50 too" 0 cmp -s "$tmp/one50.ck" "$tmp/k1.50.ck"
# the blanking finds the counter (not a comparison of nothing)
blank_steps "$tmp/one50.ck" "$tmp/one50.blank"
expect_rc "the blanking changes the step counter of the one-process file" 1 cmp -s "$tmp/one50.ck" "$tmp/one50.blank"
# with the checker on: refused on every rank, naming why, nothing written
rm -f "$tmp/f10.ck"
mpi 2 run "$tmp/four.machine" "$tmp/f10.session" --check > /dev/null 2> "$tmp/save.err"
expect_rc "a save on 2 ranks with --check exits 1" 0 test $? -eq 1
expect_rc "... naming why" 0 grep -q "live flit checker on is not built" "$tmp/save.err"
expect_rc "... and writes nothing" 0 test ! -e "$tmp/f10.ck" -a ! -e "$tmp/f10.ck.part"
finish
