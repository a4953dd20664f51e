#!/bin/sh
# kohaku serve (docs/serve.md) against hostile input: every bad line is one
# `E message` naming what was wrong, nothing changes, nothing hangs, and a
# line is never stored past its bound.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
serve() { timeout 60 $KOHAKU serve default "$@" 2>/dev/null; }
line() { sed -n "$2p" "$1"; }

# T past the clock's end (2^62): refused, the clock stays where it was
printf 'T ffffffffffffffff\nS\nT 3fffffffffffffff\nT 2\nS\nQ\n' | serve > "$tmp/t"
expect_out "T 2^64-1 is refused, naming the count" \
    "E run 18446744073709551615 cycles: at cycle 0 the clock would pass its end, cycle 2^62 (kohaku/sim.h)" line "$tmp/t" 2
expect_out "and the clock has not moved" "V sys=0 ctrl=0 decerr=00000001 sys_rstn=1 locked=1 ps=0" line "$tmp/t" 3
expect_out "T to one cycle before the end runs" "OK" line "$tmp/t" 4
expect_out "one more than the end is refused" \
    "E run 2 cycles: at cycle 4611686018427387903 the clock would pass its end, cycle 2^62 (kohaku/sim.h)" line "$tmp/t" 5
expect_rc "--settle past the clock's end exits 1" 1 sh -c "echo Q | $KOHAKU serve default --settle 0xffffffffffffffff"
expect_out "and says why on the channel" "E --settle: run 18446744073709551615 cycles" \
    sh -c "echo Q | $KOHAKU serve default --settle 0xffffffffffffffff | cut -d: -f1-2"

expect_out "--settle 010 is ten cycles, not octal eight" "READY sys_cycles=a sys_rstn=1" \
    sh -c "echo Q | $KOHAKU serve default --settle 010"

# a NUL byte cannot cut a command short: the W is refused, memory unchanged
printf 'W 100000000 5\000junk\nR 100000000\nQ\n' | serve > "$tmp/nul"
expect_out "a line with a NUL byte is refused" "E a line with a NUL byte is refused" line "$tmp/nul" 2
expect_out "and the write did not happen" "V 0000000000000000" line "$tmp/nul" 3

# a line longer than the longest command (WB of 1 MiB) is refused, not stored
{ head -c 3000000 /dev/zero | tr '\0' 'a'; printf '\nR 800010\nQ\n'; } | serve > "$tmp/long"
expect_out "a 3 MB line is one refusal" "E a line of more than 2 MiB is refused" line "$tmp/long" 2
expect_out "and the next line is read" "V 0000000201040120" line "$tmp/long" 3

# huge numbers are quoted cut, and never allocated
{ printf 'RB 100000000 '; head -c 5000 /dev/zero | tr '\0' '0'; printf '10\nRB 100000000 ffffffffffffffff\nQ\n'; } | serve > "$tmp/rb"
expect_out "RB with 5000 leading zeros reads 16 bytes" "V 00000000000000000000000000000000" line "$tmp/rb" 2
expect_out "RB 2^64-1 bytes is refused, naming it" \
    "E a block of more than 1 MiB (nbytes ffffffffffffffff) is refused" line "$tmp/rb" 3
{ printf 'FOO'; head -c 5000 /dev/zero | tr '\0' 'x'; printf '\nQ\n'; } | serve > "$tmp/echo"
expect_out "an unknown 5003-byte command is echoed cut" "... (5003 bytes)'" sh -c "sed -n 2p '$tmp/echo' | grep -o '\.\.\. (.*'"

# the card map's errors name the address as typed, then kohaku's
printf 'RB 100000004 8\nQ\n' | serve > "$tmp/addr"
expect_out "an unaligned card address is named as typed" \
    "E card address 100000004: host address 0x10000000004 is not 8-byte aligned: the host API moves 64-bit words (control.md §9.3)" \
    line "$tmp/addr" 2

# the backdoor stops at the populated DRAM (4 GiB = word 4000000) instead
# of aliasing onto word 0 (memory.md §7)
printf 'BW 0 4000000 %0128x\nBR 0 3ffffff\nBR 0 0\nQ\n' 5 | serve > "$tmp/bw"
expect_out "BW past the populated DRAM is refused" \
    "E mesh 0 DRAM: 64 bytes at offset 0x100000000 run past its populated 0x100000000 bytes (dram_words_log2 27)" \
    line "$tmp/bw" 2
expect_out "the last word is reachable" "V $(printf '%0128x' 0)" line "$tmp/bw" 3
expect_out "and word 0 was not written through the alias" "V $(printf '%0128x' 0)" line "$tmp/bw" 4

# end of input without Q: the last line, even without its newline, is answered
printf 'R 800010' | serve > "$tmp/eof"
expect_out "EOF without Q answers the unterminated line" "V 0000000201040120" line "$tmp/eof" 2
expect_rc "and exits 0" 0 sh -c "printf 'R 800010' | $KOHAKU serve default"

# binary garbage (the binary itself): no crash, no hang, only protocol lines
head -c 262144 "$KOHAKU" | serve > "$tmp/bin"
expect_rc "garbage ends normally" 0 sh -c "head -c 262144 '$KOHAKU' | timeout 60 $KOHAKU serve default >/dev/null 2>&1"
expect_out "every reply is READY, OK, V or E" "" sh -c "grep -av '^\(READY\|OK\|V\|E\)' '$tmp/bin' | head -n 3"
finish
