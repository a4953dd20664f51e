#!/bin/sh
# The system node through the host card: mover programs written to AUX_CFG,
# AUX_STAT polled, memory checked through the memory window (memory.md §11,
# control.md §2.8, §9); a hang diagnosed (memory.md §1.1, §7).
. tests/cli/lib.inc
MAP=$KH_DATA/maps/saxpy_map.txt
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Register words (memory.md §11.1), fields spelled out:
#   0x10 hdr: sel[0] base[43:4] ndim[46:44] xform_id[50:47]
#   0x18 dim: sel[0] dim[3:1] count[19:4] stride[51:20]
#   0x00 ctrl: mode[2:0] ewidth[4:3] flags[15:8] (coalesce = bit 11) go[16]
cat > "$T/copy.session" <<'S'
upload DRAM(0x1000) hex 0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20 2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40
# source: base 0x1000, ndim 1, dim 0 count 2 stride 32
write AUX_CFG(0x10) 0x0000100000010000
write AUX_CFG(0x18) 0x0000000002000020
write AUX_CFG(0x20) 0
# destination: base 0x2000, ndim 1, dim 0 count 2 stride 32
write AUX_CFG(0x10) 0x0000100000020001
write AUX_CFG(0x18) 0x0000000002000021
write AUX_CFG(0x20) 0
# COPY, ewidth 1, coalescing, GO
write AUX_CFG(0x00) 0x10808
poll AUX_STAT 0 mask 1 limit 10000
compare DRAM(0x2000) hex 0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20 2122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f40
# FILL 0xAB bytes (ewidth 0) at 0x3000, two words (the dim-0 count stays 2)
write AUX_CFG(0x40) 0xAB
write AUX_CFG(0x10) 0x0000100000030001
write AUX_CFG(0x00) 0x10004
poll AUX_STAT 0 mask 1 limit 10000
compare DRAM(0x3000) hex abababababababababababababababababababababababababababababababab abababababababababababababababababababababababababababababababab
# two moves done, no fault, not busy (AUX_STAT [63:40], [7:4], [0])
read AUX_STAT 0x0000020000000000 mask 0xFFFFFF00000000FF
S
expect_rc "COPY and FILL through AUX_CFG" 0 $KOHAKU run "$MAP" "$T/copy.session"

# XFORM with occupant 1: 128 x 1.0 quantise to the memory.md §13 word
ONE=003c003c003c003c003c003c003c003c003c003c003c003c003c003c003c003c
W1=71717171b95c2e97cbe572b95c2e97cbe572b95c2e97cbe572b95c2e97cbe572
cat > "$T/quant.session" <<S
upload DRAM(0x1000) hex $ONE $ONE $ONE $ONE $ONE $ONE $ONE $ONE
# source: base 0x1000, ndim 1, XFORM_ID 1; 8 words of stride 32
write AUX_CFG(0x10) 0x0000900000010000
write AUX_CFG(0x18) 0x0000000002000080
write AUX_CFG(0x20) 0
# destination: base 0x2000, one entry
write AUX_CFG(0x10) 0x0000100000020001
write AUX_CFG(0x00) 0x1000d
poll AUX_STAT 0 mask 1 limit 10000
compare DRAM(0x2000) hex $W1 $W1 $W1 $W1
S
expect_rc "XFORM through occupant 1" 0 $KOHAKU run "$MAP" "$T/quant.session"

# A FILL into mesh 1's staging from mesh 0: never answered, diagnosed.
cat > "$T/hang.session" <<'S'
write AUX_CFG(0x10) 0x0000190000000001
write AUX_CFG(0x00) 0x10004
poll AUX_STAT 0 mask 1 limit 10000
S
expect_rc "a move to another mesh's staging hangs" 1 $KOHAKU run "$MAP" "$T/hang.session"
expect_err_has "the hang names the requester, the address and the rule" \
    "mover(mesh 0) write of 0x9000000000 (aperture 0 of mesh 1: another mesh's staging) (cycle" \
    $KOHAKU run "$MAP" "$T/hang.session"

# Host access to another mesh's staging through this window is refused.
cat > "$T/host.session" <<'S'
write MEM_WIN(0)+0xA000000000 1
S
expect_err_has "host access to an unserved aperture" "mesh 0 memory window" $KOHAKU run "$MAP" "$T/host.session"
finish
