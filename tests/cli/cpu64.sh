# kohaku cpu run --isa rv64 (../shared/cli.md, docs/rv64.md): the flat
# harness's one line and exit codes, and refused input.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# ELF64 images written from the ELF and RISC-V specifications: one PT_LOAD
# at 0x8000_0000, the entry there: addi a0, x0, 5 (or 0); ecall
hdr='\177\105\114\106\002\001\001\000\000\000\000\000\000\000\000\000\002\000\363\000\001\000\000\000\000\000\000\200\000\000\000\000\100\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\100\000\070\000\001\000\000\000\000\000\000\000\001\000\000\000\005\000\000\000\170\000\000\000\000\000\000\000\000\000\000\200\000\000\000\000\000\000\000\200\000\000\000\000\010\000\000\000\000\000\000\000\010\000\000\000\000\000\000\000\004\000\000\000\000\000\000\000'
printf "$hdr"'\023\005\120\000\163\000\000\000' > "$tmp/a5.elf"
printf "$hdr"'\023\005\000\000\163\000\000\000' > "$tmp/a0.elf"
# the ECALL halts (no handler): a0 is the exit value; fetch, F2, D, then E
# in cycles 3 and 4: 5 cycles, one retire pulse seen (the RTL's own count)
expect_out "an ECALL halt ends with a0" "exit 0x5 instret 1 cycles 5" "$KOHAKU" cpu run --isa rv64 "$tmp/a5.elf"
expect_rc "a0 = 5 is a failure" 1 "$KOHAKU" cpu run --isa rv64 "$tmp/a5.elf"
expect_err_has "and says where" "pc 0x80000004" "$KOHAKU" cpu run --isa rv64 "$tmp/a5.elf"
expect_rc "a0 = 0 is success" 0 "$KOHAKU" cpu run --isa rv64 "$tmp/a0.elf"
expect_out "one fetch stage (older revisions) is a cycle shorter" "exit 0x0 instret 1 cycles 4" \
    "$KOHAKU" cpu run --isa rv64 --fetch-lat 1 "$tmp/a0.elf"
expect_rc "--bare" 0 "$KOHAKU" cpu run --isa rv64 --bare "$tmp/a0.elf"
expect_rc "--trace-insn" 0 "$KOHAKU" cpu run --isa rv64 --trace-insn "$tmp/t.txt" "$tmp/a0.elf"
expect_out "the trace names both instructions" "2" sh -c "wc -l < \"$tmp/t.txt\""
expect_out "the cycle limit" "exit 0x0 instret 0 cycles 2" "$KOHAKU" cpu run --isa rv64 --max-cycles 2 "$tmp/a0.elf"
expect_rc "and it fails" 1 "$KOHAKU" cpu run --isa rv64 --max-cycles 2 "$tmp/a0.elf"
# refused input
printf 'not an elf' > "$tmp/text.elf"
expect_err_has "not an ELF" "not an ELF" "$KOHAKU" cpu run --isa rv64 "$tmp/text.elf"
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\002\000\363\000' > "$tmp/e32.elf"
head -c 64 /dev/zero >> "$tmp/e32.elf"
expect_err_has "an ELF32 is refused" "not a 64-bit ELF" "$KOHAKU" cpu run --isa rv64 "$tmp/e32.elf"
expect_rc "and exits 1" 1 "$KOHAKU" cpu run --isa rv64 "$tmp/e32.elf"
expect_err_has "a missing file is named" "nope.elf" "$KOHAKU" cpu run --isa rv64 "$tmp/nope.elf"
expect_rc "no program is usage" 2 "$KOHAKU" cpu run --isa rv64
expect_rc "an unknown option is usage" 2 "$KOHAKU" cpu run --isa rv64 --frob "$tmp/a0.elf"
expect_rc "a bad --fetch-lat is refused" 1 "$KOHAKU" cpu run --isa rv64 --fetch-lat 3 "$tmp/a0.elf"
expect_rc "an unknown --isa is usage" 2 "$KOHAKU" cpu run --isa rv128 "$tmp/a0.elf"
expect_rc "--help" 0 "$KOHAKU" cpu run --isa rv64 --help
# --node: the default machine with cpu_rv64 = 1, the image loaded through the
# host window (node memory through the card), a stub at 0 jumping to the entry
expect_rc "--node: an ECALL halt with a0 = 0 is success" 0 "$KOHAKU" cpu run --isa rv64 --node "$tmp/a0.elf"
expect_err_has "--node: a0 = 5 names the halt" "halted by ECALL" "$KOHAKU" cpu run --isa rv64 --node "$tmp/a5.elf"
expect_out "--node: the run's instructions are the stub's three and the program's two" "exit 0x5 instret 5" \
    sh -c "\"$KOHAKU\" cpu run --isa rv64 --node \"$tmp/a5.elf\" | cut -d' ' -f1-4"
hdr9=$(printf '%s' "$hdr" | sed 's/\\000\\000\\000\\200\\000\\000\\000\\000/\\000\\220\\000\\000\\000\\000\\000\\000/g')
printf "$hdr9"'\023\005\000\000\163\000\000\000' > "$tmp/at9000.elf"
expect_err_has "--node: a byte in no region is refused" "no region the host loads" \
    "$KOHAKU" cpu run --isa rv64 --node "$tmp/at9000.elf"
expect_rc "--node: a bad --param is refused" 1 "$KOHAKU" cpu run --isa rv64 --node --param frob=1 "$tmp/a0.elf"
printf "$hdr"'\157\000\000\000\023\000\000\000' > "$tmp/spin.elf"
expect_err_has "--node: the cycle limit" "no end after 3000 cycles" "$KOHAKU" cpu run --isa rv64 --node --max-cycles 3000 "$tmp/spin.elf"
expect_rc "--node: and it fails" 1 "$KOHAKU" cpu run --isa rv64 --node --max-cycles 3000 "$tmp/spin.elf"
# The toolchain's programs: without riscv64-unknown-elf-gcc (make rv64) these
# checks are counted as skipped.
prog=$(dirname "$KOHAKU")/rv64/node_dispatch.elf
[ -f "$prog" ] || skip_begin "$prog not built (make rv64 builds it with riscv64-unknown-elf-gcc)" gcc-riscv64-unknown-elf
expect_out "--node: a mailbox program's console and end" "dispatch ok" \
    sh -c "\"$KOHAKU\" cpu run --isa rv64 --node \"$prog\" | head -1"
expect_rc "--node: and it succeeds" 0 "$KOHAKU" cpu run --isa rv64 --node "$prog"
skip_end
prog=$(dirname "$KOHAKU")/rv64/flat_traps.elf
[ -f "$prog" ] || skip_begin "$prog not built (make rv64 builds it with riscv64-unknown-elf-gcc)" gcc-riscv64-unknown-elf
# examples/rv64/flat_traps.c: the trap log, one byte per trap (t_rv64_programs.c works it out)
expect_out "a toolchain-built program" "exit 0xbc948e743c2c948" \
    sh -c "\"$KOHAKU\" cpu run --isa rv64 \"$prog\" | cut -d' ' -f1-2"
skip_end
finish
