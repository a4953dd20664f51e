#!/bin/sh
# kohaku replay vector2 (cli.md): upstream's ew silu kernel on the core-alone
# harness prints the RTL's figures (data/vectors/vector2/ew_silu_8192/rtl.json)
# and writes its output words; bad input is refused.
. tests/cli/lib.inc
D="$KH_DATA/vectors/vector2/ew_silu_8192"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect_out "memwait 0: the harness's summary line" \
    "payloads 489 completions 489 faults 0 fault_arg 0 elapsed 4406 busy 2934 beats 2560 lanes 40960 insns 471" \
    sh -c "'$KOHAKU' replay vector2 '$D/prog.hex' '$D/mem.hex' | tail -n 1"
expect_out "memwait 1: busy 3062, elapsed 4534" "elapsed 4534 busy 3062" \
    sh -c "'$KOHAKU' replay vector2 '$D/prog.hex' '$D/mem.hex' --memwait 1 | tail -n 1 | grep -o 'elapsed [0-9]* busy [0-9]*'"
expect_out "the engine lines" "V2MATH act 2560 hazard 20 empty 354 sync 0" \
    sh -c "'$KOHAKU' replay vector2 '$D/prog.hex' '$D/mem.hex' | grep '^V2MATH'"
expect_rc "--out writes the memory" 0 "$KOHAKU" replay vector2 "$D/prog.hex" "$D/mem.hex" --out "$tmp/out.hex"
expect_out "4096 lines" "4096" sh -c "wc -l < '$tmp/out.hex' | tr -d ' '"
# the output region as the RTL left it: lines 0x228.. (the file's first line is @228)
expect_out "the output words are the RTL's" "" sh -c \
    "tail -n +2 '$D/rtl_out_m0.hex' > '$tmp/want'; sed -n '553,1064p' '$tmp/out.hex' | diff - '$tmp/want'"
expect_rc "upstream's parameter names: DUALQ=1" 0 "$KOHAKU" replay vector2 "$D/prog.hex" "$D/mem.hex" --param DUALQ=1
expect_rc "L1_PRIM takes block" 0 "$KOHAKU" replay vector2 "$D/prog.hex" "$D/mem.hex" --param L1_PRIM=block
expect_rc "QD=3 is refused (a power of two)" 1 "$KOHAKU" replay vector2 "$D/prog.hex" "$D/mem.hex" --param QD=3
expect_err_has "naming the rule" "v2_qd = 3 must be a power of two" \
    "$KOHAKU" replay vector2 "$D/prog.hex" "$D/mem.hex" --param QD=3
expect_rc "IMEM_DEPTH=768 is refused" 1 "$KOHAKU" replay vector2 "$D/prog.hex" "$D/mem.hex" --param IMEM_DEPTH=768
expect_rc "no operands: usage" 2 "$KOHAKU" replay vector2
expect_rc "--memwait without a value: usage" 2 "$KOHAKU" replay vector2 "$D/prog.hex" "$D/mem.hex" --memwait
expect_rc "an unknown option: usage" 2 "$KOHAKU" replay vector2 "$D/prog.hex" "$D/mem.hex" --bogus
expect_rc "--help" 0 "$KOHAKU" replay vector2 --help
head -n 100 "$D/mem.hex" > "$tmp/short.hex"
expect_rc "a short memory is refused" 1 "$KOHAKU" replay vector2 "$D/prog.hex" "$tmp/short.hex"
expect_err_has "saying how many lines" "100 lines" "$KOHAKU" replay vector2 "$D/prog.hex" "$tmp/short.hex"
sed '3s/^./g/' "$D/prog.hex" > "$tmp/bad.hex"
expect_rc "a bad hex digit is refused" 1 "$KOHAKU" replay vector2 "$tmp/bad.hex" "$D/mem.hex"
expect_err_has "naming the line" "line 3" "$KOHAKU" replay vector2 "$tmp/bad.hex" "$D/mem.hex"
expect_rc "a missing file is refused" 1 "$KOHAKU" replay vector2 /nonexistent "$D/mem.hex"
finish
