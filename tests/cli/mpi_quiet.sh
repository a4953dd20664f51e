#!/bin/sh
# Lane promises of quiet meshes (docs/mpi.md "Lane promises"): a matmul
# cluster's remote drain (dfin != 0) dispatched by an orchestrator program
# behind a local drain to the same cluster (credit 1), beside a mesh whose
# program drains locally only, so that windows run past ilink_lat before
# and after the remote one. Kicked by an engine program that then only
# POLLs (kh_engine_writes_ahead), and by the host. Each run gives the
# one-process stdout, stderr, stats, heat map and trace at 2 and 4 ranks
# with every window run past ilink_lat checked (KOHAKU_MPI_PROMISE_CHECK,
# tests/cli/mpi.inc): with the dfin reading of src/mpi/promise.c removed
# (a cluster sent a far-mesh drain still called quiet) every run here
# aborts. Needs Open MPI and the MPI build, as tests/cli/mpi.sh.
. tests/cli/lib.inc
plan 5
. tests/cli/mpi.inc

for lat in 1 8; do
    printf 'machine\nmesh default\nmesh default\nmesh default\nmesh default\nparam ilink_lat=%s\n' $lat \
        > "$tmp/four$lat.machine"
done
# Words by isa/cluster.isa: 16 sub-tiles to mesh 0's own DRAM; 2 to mesh
# 2's DRAM through the interlink, injected there at {fin_y, fin_x} = (0,1),
# its memory port; 16 to mesh 3's own DRAM. Sub-tiles never loaded drain
# as zeros (a warning, the same in every run).
words=$(printf '%s\n' 'DRAIN addr=0x4000 n=16 dack_x=1' \
    'DRAIN addr=0x2000008000 n=2 dnode=0 dack_x=1 dmesh=2 dfin=0x10' \
    'DRAIN addr=0x3000004000 n=16 dack_x=1' | $KOHAKU asm --unit cluster 2>/dev/null)
w() { echo "$words" | sed -n "${1}p"; }
programs() {
    printf 'mesh 0\nstage 0 txn=0x40 last=0 payload=%s\nstage 1 txn=0x41 last=1 payload=%s\n' "$(w 1)" "$(w 2)"
    printf 'write PROG_BASE 0\nwrite PROG_LEN 2\nwrite PROG_DST XY(1,0)\nwrite PROG_CRED 1\n'
    printf 'mesh 3\nstage 0 txn=0x50 last=1 payload=%s\n' "$(w 3)"
    printf 'write PROG_BASE 0\nwrite PROG_LEN 1\nwrite PROG_DST XY(1,1)\nwrite PROG_CRED 4\n'
}
results() {
    printf 'mesh 0\nread NODE_STATUS(1,0)\nmesh 3\nread NODE_STATUS(1,1)\nmesh 2\ndump DRAM(0x8000) 64\n'
}
# the engine kicks both programs, then POLLs mesh 0's mirror of (1,0) for
# two signals (isa/regs.isa orch_node_status: count [23:8], valid [0])
{
    programs
    printf 'mesh 3\nwrite CMD(0,0) 1\nwrite CMD(0,1) PROG_KICK\nwrite CMD(0,2) 1\n'
    printf 'mesh 0\nwrite CMD(1,0) 1\nwrite CMD(1,1) PROG_KICK\nwrite CMD(1,2) 1\n'
    printf 'write CMD(2,0) 2\nwrite CMD(2,1) NODE_STATUS(1,0)\nwrite CMD(2,2) 0x201\nwrite CMD(2,3) 0xffff01\n'
    printf 'write CMD(3,0) 3\nwrite CMD(3,2) 7\nwrite ENG_CTRL 1\npoll ENG_CTRL 2 mask 2 limit 100000\n'
    printf 'read ENG_CODE 7\nidle limit 100000\n'
    results
} > "$tmp/engine.session"
{
    programs
    printf 'mesh 3\nwrite PROG_KICK 1\nmesh 0\nwrite PROG_KICK 1\nidle limit 100000\n'
    results
} > "$tmp/host.session"

same_run "drains kicked by the engine, ilink_lat 8, 2 ranks" 2 "$tmp/four8.machine" "$tmp/engine.session"
same_run "drains kicked by the engine, ilink_lat 1, 4 ranks" 4 "$tmp/four1.machine" "$tmp/engine.session"
same_run "drains kicked by the host, ilink_lat 1, 2 ranks" 2 "$tmp/four1.machine" "$tmp/host.session"
KOHAKU_MPI_ORDER=reverse same_run "drains kicked by the host, ilink_lat 8, 4 ranks, reverse order" 4 \
    "$tmp/four8.machine" "$tmp/host.session"
# The scenario is what it claims: the remote drain crossed from rank 0 to
# rank 1 (mesh 2 injected its flits), and windows ran past the lookahead
# on promises, each of them checked.
KOHAKU_MPI_COUNTS=1 mpi 2 run "$tmp/four8.machine" "$tmp/engine.session" --stats "$tmp/c.json" > /dev/null \
    2> "$tmp/c.err"
checked=$(sed -n 's/.*promise check: \([0-9]*\) of them checked.*/\1/p' "$tmp/c.err")
injected=$(grep -o '"flits_injected": [1-9][0-9]*' "$tmp/c.json" | wc -l)
if [ "${checked:-0}" -gt 0 ] && [ "$injected" = 1 ] && grep -q 'lane messages' "$tmp/c.err" \
    && ! grep -q ' 0 lane messages' "$tmp/c.err"; then
    kh_pass=$((kh_pass + 1))
else
    kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: checked windows '$checked', meshes with injected flits $injected"
    grep 'kohaku: mpi:' "$tmp/c.err" | head -n 5
fi
finish
