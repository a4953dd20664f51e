#!/bin/sh
# kohaku report (docs/report.md) against hostile stats files: every stats
# object read (the file's, or each case's) needs a 'cycle' count and a
# 'components' list, checked before a line is printed; --heatmap once.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
doc() { printf '%s' "$2" > "$tmp/$1.json"; }
doc neg '{"cycle":-1,"links":[],"components":[]}'
doc big '{"cycle":1e300,"links":[],"components":[]}'
doc half '{"cycle":1.5,"links":[],"components":[]}'
doc end '{"cycle":4611686018427387905,"links":[],"components":[]}'
doc obj '{"cycle":1,"links":[],"components":{}}'
doc early '{"cases":[{"case":1,"stats":{"cycle":"x","components":7,"run":{"gemm":5}}},{"case":2,"stats":{"cycle":1,"components":[]}}]}'
doc none '{"cases":[]}'
doc ok '{"cycle":7,"links":[],"components":[]}'
expect_rc "a negative cycle is refused" 1 $KOHAKU report "$tmp/neg.json"
expect_err_has "naming the field and the value" "field 'cycle': number -1 is not an unsigned 64-bit integer: not a cycle count" \
    $KOHAKU report "$tmp/neg.json"
expect_err_has "1e300 cycles is refused" "number 1.0000000000000001e+300 is not" $KOHAKU report "$tmp/big.json"
expect_err_has "1.5 cycles is refused" "number 1.5 is not" $KOHAKU report "$tmp/half.json"
expect_err_has "a cycle past the clock's end" "'cycle' 4611686018427387905 is past the clock's end, cycle 2^62" \
    $KOHAKU report "$tmp/end.json"
expect_rc "components must be a list" 1 $KOHAKU report "$tmp/obj.json"
expect_err_has "an early case is checked too, and named" "list in its cases (case 1 of 2))" $KOHAKU report "$tmp/early.json"
expect_out "and nothing is printed for it" "" $KOHAKU report "$tmp/early.json"
expect_err_has "no cases at all" "list in its cases)" $KOHAKU report "$tmp/none.json"
expect_out "a minimal stats file reports" "report: (no run section), 7 cycles" sh -c "$KOHAKU report '$tmp/ok.json' | head -n 1"
expect_rc "--heatmap twice is a usage error" 2 $KOHAKU report "$tmp/ok.json" --heatmap "$tmp/a.svg" --heatmap "$tmp/b.svg"
$KOHAKU run examples/two_mesh.machine examples/two_mesh.session --stats "$tmp/run.json" > /dev/null 2>&1
expect_err_has "an unwritable heat map is named" "heat map /nonexistent/h.svg: cannot create" \
    $KOHAKU report "$tmp/run.json" --heatmap /nonexistent/h.svg
# --trace-window: decimal or 0x cycles, a leading 0 is not octal
run2() { $KOHAKU run examples/two_mesh.machine examples/two_mesh.session --trace "$tmp/w.json" "$@"; }
expect_rc "--trace-window 010:9 is 10:9, refused" 2 run2 --trace-window 010:9
expect_rc "--trace-window 09:10 is 9:10, taken" 0 run2 --trace-window 09:10
expect_rc "0x10:0x20 is taken" 0 run2 --trace-window 0x10:0x20
expect_rc "2^64 is refused" 2 run2 --trace-window 0:18446744073709551616
expect_err_has "a long value is quoted cut" "... (5002 bytes)'" run2 --trace-window "$(head -c 5000 /dev/zero | tr '\0' '1'):2"
# the trace-only options without --trace would be ignored: refused, exit 2,
# on every subcommand that takes them, before anything runs
for cmd in "run data/maps/saxpy_map.txt examples/saxpy.session" "demo" "gemm 8 8 32" \
    "replay saxpy data/vectors/saxpy.jsonl" "bench noc --cycles 10" "bench gemm --arith-only" "cpu run default none.elf"; do
    expect_rc "$cmd --trace-window without --trace: usage error" 2 $KOHAKU $cmd --trace-window 1:5
    expect_rc "$cmd --trace-flits without --trace: usage error" 2 $KOHAKU $cmd --trace-flits cu_inst
done
expect_err_has "the message names the option and what is missing" \
    "kohaku run: --trace-window shapes the trace, and there is no --trace FILE.json to write it to" \
    $KOHAKU run data/maps/saxpy_map.txt examples/saxpy.session --trace-window 1:5
expect_err_has "and --trace-flits" "kohaku demo: --trace-flits shapes the trace" $KOHAKU demo --trace-flits none
expect_out "nothing ran: no output on stdout" "" $KOHAKU run data/maps/saxpy_map.txt examples/saxpy.session --trace-flits all
expect_rc "with --trace after it, the same options are taken" 0 \
    $KOHAKU run data/maps/saxpy_map.txt examples/saxpy.session --trace-window 1:5 --trace "$tmp/late.json"
finish
