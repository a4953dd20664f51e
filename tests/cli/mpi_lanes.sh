#!/bin/sh
# Lane promises (docs/mpi.md "Lane promises"): a window may run past
# ilink_lat only while nothing of any rank's meshes can reach a lane. Two
# four-mesh sessions where every mesh's mover copies 2,000 words at once:
# into its own mesh (the promise is long: the windows run to the run's
# end, and the agreements must drop to a quarter of those without
# promises, KOHAKU_MPI_PROMISES=0), and into the next mesh (a remote walk:
# the promise stays at the agreement's cycle, no window runs past
# ilink_lat), then both at once. Each gives the one-process stdout,
# stderr, stats, heat map and trace (per mesh) at 2, 3 and 4 ranks, in
# both rank orders, at ilink_lat 1 and 8. Needs Open MPI and the MPI
# build, as tests/cli/mpi.sh.
. tests/cli/lib.inc
plan 12
. tests/cli/mpi.inc

# copies TARGETS: mesh m's mover copies 2,000 words (its 64 uploaded bytes
# 1,000 times over) to DRAM 0x100000 of mesh TARGETS[m]; all four start
# before any is waited for. Register words by isa/mover.isa: the header
# {ndim, base, sel}, a dimension {stride, count, dim, sel} committed by
# 0x20, then GO (COPY).
copies() {
    m=0
    for t in "$@"; do
        echo "mesh $m"
        printf 'upload DRAM(0x1000) hex %s\n' "$(printf '%02x' $(seq $((m * 64)) $((m * 64 + 63))) | tr -d ' ')"
        printf 'write AUX_CFG(0x10) 0x%x\n' $(((2 << 44) | (m << 40) | (0x1000 << 4)))
        printf 'write AUX_CFG(0x18) 0x%x\nwrite AUX_CFG(0x20) 0\n' $(((32 << 20) | (2 << 4)))
        printf 'write AUX_CFG(0x18) 0x%x\nwrite AUX_CFG(0x20) 0\n' $(((1000 << 4) | (1 << 1)))
        printf 'write AUX_CFG(0x10) 0x%x\n' $(((1 << 44) | (t << 40) | (0x100000 << 4) | 1))
        printf 'write AUX_CFG(0x18) 0x%x\nwrite AUX_CFG(0x20) 0\n' $(((32 << 20) | (2000 << 4) | 1))
        echo "write AUX_CFG(0x00) 0x10008"
        m=$((m + 1))
    done
    for m in 0 1 2 3; do printf 'mesh %s\npoll AUX_STAT 0 mask 1 limit 1000000\n' $m; done
    echo "idle"
    # the copies' last words, where they landed (checked against the one process)
    for m in 0 1 2 3; do printf 'mesh %s\ndump DRAM(0x10f9c0) 64\n' $m; done
}
copies 0 1 2 3 > "$tmp/local.session"
copies 1 2 3 0 > "$tmp/remote.session"
copies 0 2 2 3 > "$tmp/mixed.session"
for lat in 1 8; do
    printf 'machine\nmesh default\nmesh default\nmesh default\nmesh default\nparam ilink_lat=%s\n' $lat \
        > "$tmp/four$lat.machine"
done
# The copies landed where they were sent (an independent expectation: the
# walk's last dimension is innermost, so the range ends with the source's
# second word 1,000 times over; mesh 3's is its bytes 224..255).
$KOHAKU run "$tmp/four8.machine" "$tmp/remote.session" > "$tmp/remote.txt" 2>&1
want=$(printf '%02x' $(seq 224 255))
if [ "$(grep -c "^0x1[0-9a-f]*: $want$" "$tmp/remote.txt")" = 2 ]; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: mesh 3's copy is not in mesh 0's DRAM"; head -n 20 "$tmp/remote.txt"; fi

for s in local remote mixed; do
    same_run "$s copies, ilink_lat 8, 2 ranks" 2 "$tmp/four8.machine" "$tmp/$s.session"
    KOHAKU_MPI_ORDER=reverse same_run "$s copies, ilink_lat 1, 4 ranks, reverse order" 4 "$tmp/four1.machine" \
        "$tmp/$s.session"
done
KOHAKU_MPI_JITTER=200 same_run "mixed copies, ilink_lat 1, 3 ranks, random delays" 3 "$tmp/four1.machine" \
    "$tmp/mixed.session"

# agreements RANKS SESSION [PROMISES]: the run's agreement count in $count,
# the windows run past the lookahead in $past (a deterministic figure)
agreements() {
    KOHAKU_MPI_PROMISES=${3:-1} KOHAKU_MPI_COUNTS=1 mpi "$1" run "$tmp/four8.machine" "$2" > /dev/null 2> "$tmp/c.err"
    past=$(sed -n 's/.*windows run past the lookahead on lane promises: \([0-9]*\)$/\1/p' "$tmp/c.err")
    count=$(sed -n 's/.*lookahead 8, \([0-9]*\) agreements,.*/\1/p' "$tmp/c.err")
}
agreements 2 "$tmp/local.session"
on=$count on_past=$past local2=$count
grep 'lane promises of now' "$tmp/c.err" > "$tmp/held.local"
agreements 2 "$tmp/local.session" 0
off=$count
if [ -n "$on" ] && [ -n "$off" ] && [ "$off" -gt 0 ] && [ $((on * 4)) -lt "$off" ] && [ "$on_past" -gt 0 ] \
    && [ "$past" = 0 ]
then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: local copies: $on agreements with promises ($on_past past the lookahead), $off without ($past)"; fi
# a remote walk is a lane's business from its first element: no window
# runs past ilink_lat while one moves (at most a few at the very end)
agreements 2 "$tmp/remote.session"
on=$count on_past=$past
grep 'lane promises of now' "$tmp/c.err" > "$tmp/held.remote"
agreements 2 "$tmp/remote.session" 0
off=$count
if [ -n "$on" ] && [ -n "$off" ] && [ $((on * 10)) -ge $((off * 9)) ] && [ "$on_past" -lt 10 ]; then
    kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: remote copies: $on agreements ($on_past past the lookahead), $off without"; fi
# what held the promises at now, per rank: a mover walking into its own
# mesh never does, one walking into the next mesh does on both ranks
# (each has two such movers), with a promise of now at some agreements
movers_held=$(sed -n 's/^kohaku: mpi: rank [01] lane promises of now: [1-9][0-9]*, held by.* mover \([1-9][0-9]*\) .*/\1/p' \
    "$tmp/held.remote" | wc -l)
if [ "$(wc -l < "$tmp/held.local")" = 2 ] && ! grep -q ' mover ' "$tmp/held.local" && [ "$movers_held" = 2 ]; then
    kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: promises held by:"; cat "$tmp/held.local" "$tmp/held.remote"; fi
# one remote walk among local ones holds every rank to ilink_lat while it
# runs (the local ones' tail may run past it once it is over): at 4 ranks, the mixed copies take more than twice the agreements of
# the local ones (2 ranks, above: every window is agreed by all ranks, so
# the count does not depend on their number)
agreements 4 "$tmp/mixed.session"
if [ -n "$count" ] && [ "$count" -gt $((local2 * 2)) ]; then kh_pass=$((kh_pass + 1))
else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: 4 ranks: mixed copies $count agreements ($past past), local $local2"; fi
finish
