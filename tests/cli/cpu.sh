# kohaku cpu run (../shared/cli.md): load, kick, wait, one line; exit codes.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# flat binaries written from the ISA manual's encodings: addi a0, x0, 5; ecall
printf '\023\005\120\000\163\000\000\000' > "$tmp/ecall.bin"
# addi a0, x0, 7; ebreak
printf '\023\005\160\000\163\000\020\000' > "$tmp/ebreak.bin"
# nop; an all-zero (illegal) word
printf '\023\000\000\000\000\000\000\000' > "$tmp/fault.bin"
expect_out "ECALL: a0 and cause" "a0 = 0x00000005 cause 1" \
    sh -c "\"$KOHAKU\" cpu run default \"$tmp/ecall.bin\" | cut -d' ' -f1-5"
expect_rc "ECALL exits 0" 0 "$KOHAKU" cpu run default "$tmp/ecall.bin"
expect_rc "EBREAK exits 1" 1 "$KOHAKU" cpu run default "$tmp/ebreak.bin"
expect_out "EBREAK still prints its line" "a0 = 0x00000007 cause 2" \
    sh -c "\"$KOHAKU\" cpu run default \"$tmp/ebreak.bin\" | cut -d' ' -f1-5"
expect_err_has "a fault names the PC" "pc 0x00000004" "$KOHAKU" cpu run default "$tmp/fault.bin"
expect_rc "usage" 2 "$KOHAKU" cpu run default
expect_rc "a bad --arg value is refused (exit 1, docs/exit-status.md)" 1 "$KOHAKU" cpu run default "$tmp/ecall.bin" --arg x
expect_rc "--arg without its value is usage" 2 "$KOHAKU" cpu run default "$tmp/ecall.bin" --arg
expect_err_has "and says so" "--arg needs a value" "$KOHAKU" cpu run default "$tmp/ecall.bin" --arg
expect_rc "a refused --param value" 1 "$KOHAKU" cpu run default "$tmp/ecall.bin" --param dram_lat=99999999999
expect_err_has "no processor with cpu_mode agent" "no control processor" \
    "$KOHAKU" cpu run default "$tmp/ecall.bin" --param cpu_mode=agent
expect_err_has "a missing program is named" "nope.elf" "$KOHAKU" cpu run default "$tmp/nope.elf"
expect_rc "--help" 0 "$KOHAKU" cpu run --help
prog=$(dirname "$KOHAKU")/rv32/squares.elf
# The toolchain's program: without riscv64-unknown-elf-gcc (make rv32) these
# checks are counted as skipped.
[ -f "$prog" ] || skip_begin "$prog not built (make rv32 builds it with riscv64-unknown-elf-gcc)" gcc-riscv64-unknown-elf
# sum of i*i for i < 10 = 285
expect_out "ELF from the RISC-V toolchain, with --arg" "a0 = 0x0000011d cause 1" \
    sh -c "\"$KOHAKU\" cpu run default \"$prog\" --arg 10 | cut -d' ' -f1-5"
expect_rc "--trace" 0 "$KOHAKU" cpu run default "$prog" --arg 3 --trace "$tmp/t.json"
expect_out "the trace has the run's span" "1" sh -c "grep -c -m1 '\"name\":\"rv32\"' \"$tmp/t.json\""
# the session line: load and kick as a host does, then poll the status mirror of (0,0):
# code 0 (INST_COMPLETE), arg = a0 = 0x11d, count 1, valid
# (a relative PROGRAM is read from the session file's directory)
abs=$(cd "$(dirname "$prog")" 2>/dev/null && pwd)/squares.elf
printf 'cpu %s arg=10\npoll NODE_STATUS(0,0) 0x000000011d000101\n' "$abs" > "$tmp/sq.session"
expect_rc "session line cpu" 0 "$KOHAKU" run default "$tmp/sq.session"
printf 'cpu %s arg=10 last=2\n' "$abs" > "$tmp/bad.session"
expect_err_has "session line cpu refuses last=2" "last=2" "$KOHAKU" run default "$tmp/bad.session"
skip_end
finish
