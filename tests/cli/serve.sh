#!/bin/sh
# kohaku serve (docs/serve.md): upstream's simulated-card line protocol.
# Replies are checked against control.md §2.2 (CAPS), the card's host map
# ((N+1) << 32 memory windows) and the protocol's formats.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'R 800010\nW 100000000 1234\nR 100000000\nRB 100000000 10\nWB 100000010 0102030405060708\nBR 0 0\nT 10\nSC x\nPK a b 0 00\nPE a b 0 1\nR 800011\nWB 100000000 123\nR 700000000\nFOO\nQ\nR 800010\n' > "$tmp/in"
$KOHAKU serve default --settle 100 < "$tmp/in" > "$tmp/out" 2>"$tmp/err"
line() { sed -n "$1p" "$tmp/out"; }
expect_out "READY after the settle cycles" "READY sys_cycles=64 sys_rstn=1" line 1
expect_out "R: CAPS of the default map" "V 0000000201040120" line 2
expect_out "W: OK" "OK" line 3
expect_out "R reads back through the card's memory window" "V 0000000000001234" line 4
expect_out "RB: bytes in address order" "V 34120000000000000000000000000000" line 5
expect_out "WB: OK" "OK" line 6
expect_out "BR: DRAM word 0 as one number, byte 0 last" \
    "V 00000000000000000000000000000000000000000000000000000000000000000000000000000000080706050403020100000000000000000000000000001234" line 7
expect_out "T: OK" "OK" line 8
expect_out "SC has no counterpart" "E unsupported" line 9
expect_out "PK has no counterpart" "E unsupported" line 10
expect_out "PE has no counterpart" "E unsupported" line 11
expect_out "an unaligned read names the address" \
    "E host address 0x800011 is not 8-byte aligned: the host API moves 64-bit words (control.md §9.3)" line 12
expect_out "WB of half a byte is refused" "E the data is not whole hex bytes" line 13
expect_out "an address past the card's four windows" "E address 700000000 is outside the card's windows" line 14
expect_out "an unknown command" "E unknown command 'FOO'" line 15
expect_out "Q ends: nothing after it is answered" "15" sh -c "wc -l < '$tmp/out' | tr -d ' '"
# S: the cycle counters move with T and with the host link's time
printf 'S\nT 100\nS\nQ\n' | $KOHAKU serve default > "$tmp/s"
expect_out "S before" "V sys=0 ctrl=0 decerr=00000000 sys_rstn=1 locked=1 ps=0" sed -n 2p "$tmp/s"
# T 100 is 0x100 = 256 cycles; ctrl a third (85 = 0x55); ps 256 * 3334
expect_out "S after T 100" "V sys=100 ctrl=55 decerr=00000000 sys_rstn=1 locked=1 ps=d0600" sed -n 4p "$tmp/s"
# --host-map kohaku: the simulator's own map
printf 'W 10000000000 5\nR 10000000000\nQ\n' | $KOHAKU serve default --host-map kohaku > "$tmp/k"
expect_out "the kohaku map reaches mesh 0's DRAM at 1 << 40" "V 0000000000000005" sed -n 3p "$tmp/k"
# a refused machine answers E on the channel and exits 1
expect_rc "a bad machine exits 1" 1 sh -c "echo Q | $KOHAKU serve no_such_map.txt"
expect_out "and says why in the protocol" "E" sh -c "echo Q | $KOHAKU serve no_such_map.txt 2>/dev/null | cut -c1"
expect_rc "usage without a machine" 2 $KOHAKU serve
expect_rc "a bad --settle value is refused" 1 $KOHAKU serve default --settle x
expect_rc "a bad --host-map value is refused" 1 $KOHAKU serve default --host-map pcie
expect_rc "--settle twice is a usage error" 2 $KOHAKU serve default --settle 1 --settle 2
expect_rc "an option without its value is a usage error" 2 $KOHAKU serve default --param
expect_rc "an unknown profile is refused" 1 sh -c "echo Q | $KOHAKU serve default --profile bogus"
expect_rc "--help" 0 $KOHAKU serve --help

# Upstream's Card() without a board (docs/python.md): control windows at
# 0x4_0080_0000 + N * 0x1_0000, mesh 0's DRAM at 0, its scratch 0xfff00000
printf 'R 400800010\nW fff00000 5a5b\nR fff00000\nR 800010\nR 10000000000\nQ\n' > "$tmp/nb"
$KOHAKU serve default --host-map noboard < "$tmp/nb" > "$tmp/nb.out"
expect_out "--host-map noboard: CAPS at 0x4_0080_0010" "V 0000000201040120" sed -n 2p "$tmp/nb.out"
expect_out "and the scratch at 0xfff00000 reads back" "V 0000000000005a5b" sed -n 4p "$tmp/nb.out"
expect_out "0x80_0000 is DRAM there, not a control window" "V 0000000000000000" sed -n 5p "$tmp/nb.out"
expect_out "kohaku's memory window is not in that map" "E" sh -c "sed -n 6p '$tmp/nb.out' | cut -c1"
$KOHAKU serve default --profile upstream-7703ee8 < "$tmp/nb" > "$tmp/pr.out"
expect_out "--profile upstream-7703ee8 serves that map by itself" "$(cat "$tmp/nb.out")" cat "$tmp/pr.out"
$KOHAKU serve default --profile upstream-7703ee8 --host-map card < "$tmp/nb" > "$tmp/pc.out"
expect_out "an explicit --host-map wins over the profile's" "E" sh -c "sed -n 2p '$tmp/pc.out' | cut -c1"
printf 'W fff00000 1\nQ\n' | $KOHAKU serve default > "$tmp/ref.out"
expect_out "the card map refuses 0xfff00000 naming the board argument and the profile" 1 \
    sh -c "sed -n 2p '$tmp/ref.out' | grep -c 'upstream-7703ee8.*Card.from_board(\"multimesh_v67\"'"

# A diagnostic (docs/diagnostics.md): the recorded older-form matmul of
# tests/data/upstream-7703ee8 as protocol lines (kohaku's map): its writes
# and uploads, time instead of its polls, then Q
D=tests/data/upstream-7703ee8
/usr/bin/python3 - "$D/matmul_32x64x32.session" > "$tmp/older.in" <<'PYEOF'
import os, sys
path = sys.argv[1]
for line in open(path):
    t = line.split()
    if not t or t[0].startswith("#"):
        continue
    if t[0] == "write":
        print("W %x %x" % (int(t[1], 16), int(t[2], 16)))
    elif t[0] == "upload":
        data = open(os.path.join(os.path.dirname(path), t[3]), "rb").read()
        print("WB %x %s" % (int(t[1], 16), data.hex()))
    elif t[0] in ("poll", "idle"):
        print("T 4000")
print("Q")
PYEOF
$KOHAKU serve default --host-map kohaku < "$tmp/older.in" > /dev/null 2> "$tmp/older.err"
expect_out "the older form: served to the end, exit 0" 0 echo $?
expect_out "one warning on the log naming read_quant" 1 \
    sh -c "grep -c '^kohaku serve: warning (older_read_path): .*read_quant=1' '$tmp/older.err'"
expect_rc "--strict: exit 1" 1 sh -c "$KOHAKU serve default --host-map kohaku --strict < '$tmp/older.in' > /dev/null 2>&1"
expect_rc "--param strict=1: exit 1" 1 \
    sh -c "$KOHAKU serve default --host-map kohaku --param strict=1 < '$tmp/older.in' > /dev/null 2>&1"
$KOHAKU serve default --host-map kohaku --param read_quant=1 --strict < "$tmp/older.in" > /dev/null 2> "$tmp/rq.err"
expect_out "with read_quant=1: exit 0 under --strict" 0 echo $?
expect_out "and no warning" 0 grep -c older_read_path "$tmp/rq.err"
finish
