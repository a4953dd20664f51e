#!/bin/sh
# Machine files and the interlink through the CLI (docs/machine.md,
# docs/ilink.md): kohaku run MACHINE SESSION with a machine file, kohaku mesh
# on one, parameter order, refusals and the hang report.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_rc "the two-mesh example passes" 0 $KOHAKU run examples/two_mesh.machine examples/two_mesh.session
# 41 accesses at the host link's default cost (docs/host-link.md); with the
# zero-time host only the machine's own work is counted.
expect_out "it ends with ok" "ok: 41 commands, cycle 3429" \
    sh -c "$KOHAKU run examples/two_mesh.machine examples/two_mesh.session | tail -n 1"
expect_out "zero-time host: the machine's own cycles" "ok: 41 commands, cycle 161" \
    sh -c "$KOHAKU run examples/two_mesh.machine examples/two_mesh.session --profile host-zero | tail -n 1"
expect_out "mesh prints a machine file's meshes" \
    "machine examples/two_mesh.machine: 2 meshes in a line, ids 0..1, each node with its interlink (control.md §7.1); ilink_lat 8" \
    sh -c "$KOHAKU mesh examples/two_mesh.machine | head -n 1"
expect_out "each mesh is named with its map" "mesh 1: default" \
    sh -c "$KOHAKU mesh examples/two_mesh.machine | grep '^mesh 1'"

# A ring from mesh 0 counted at mesh 1 one hop later: 5 + ilink_lat cycles,
# timed with the zero-time host (the ring write itself takes no time).
printf 'mesh 0\nwrite AUX_CFG(0x90) 1\nrun 14\nmesh 1\nread AUX_STATW(2) 1 mask 0xffff\n' > "$tmp/ring.session"
printf 'machine\nmesh default\nmesh default\nparam ilink_lat=8\n' > "$tmp/lat8.machine"
expect_rc "the file's ilink_lat applies" 0 $KOHAKU run "$tmp/lat8.machine" "$tmp/ring.session" --profile host-zero
expect_rc "--param overrides the file" 1 $KOHAKU run "$tmp/lat8.machine" "$tmp/ring.session" --profile host-zero --param ilink_lat=30
expect_err_has "ilink_lat 0 is refused" "parameter ilink_lat = 0 is outside 1.." \
    $KOHAKU run "$tmp/lat8.machine" "$tmp/ring.session" --param ilink_lat=0

# Map paths are relative to the machine file.
cp examples/two_mesh.machine "$tmp/x.machine"
printf 'xxx xxx xxx\nmag vec xxx\nxxx xxx xxx\n' > "$tmp/one.txt"
printf 'machine\nmesh one.txt\nmesh one.txt\nmesh one.txt\n' > "$tmp/three.machine"
expect_out "three meshes from a relative map" "machine $tmp/three.machine: 3 meshes in a line, ids 0..2, each node with its interlink (control.md §7.1); ilink_lat 8" \
    sh -c "$KOHAKU mesh '$tmp/three.machine' | head -n 1"
expect_rc "a machine file runs a session on mesh 2" 0 $KOHAKU run "$tmp/three.machine" "$tmp/ring.session"

printf 'machine\nmesh default\nmesh default\nmesh default\nmesh default\nmesh default\n' > "$tmp/five.machine"
expect_err_has "a fifth mesh is refused with its line" "five.machine:6: a fifth mesh" \
    $KOHAKU run "$tmp/five.machine" "$tmp/ring.session"
printf 'machine\nmesh default\nmeshes 2\n' > "$tmp/bad.machine"
expect_err_has "an unknown line names itself" "bad.machine:3: unknown line 'meshes'" $KOHAKU mesh "$tmp/bad.machine"
printf 'machine\nmesh nowhere.txt\n' > "$tmp/nomap.machine"
expect_rc "a missing map exits 1" 1 $KOHAKU mesh "$tmp/nomap.machine"
printf 'machine\nparam frob=1\nmesh default\n' > "$tmp/param.machine"
expect_err_has "a bad param line names its line" "param.machine:2:" $KOHAKU run "$tmp/param.machine" "$tmp/ring.session"

# A remote descriptor without its data leaves a packet open: the poll stops
# with the interlink's account of it.
cat > "$tmp/open.session" <<'SESS'
mesh 0
flit TX_FLIT(0) 01218105_0000000000100000_0000000000000000_0000000000000000_0000000000000000
write TX_KICK 1
mesh 1
poll RX_STATUS 0 mask 0x10000 limit 100000
SESS
expect_rc "an open packet stalls the session" 1 $KOHAKU run examples/two_mesh.machine "$tmp/open.session"
expect_err_has "the stall names the open packet" "waits for a flit with last = 1" \
    $KOHAKU run examples/two_mesh.machine "$tmp/open.session"

finish
