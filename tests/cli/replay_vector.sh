#!/bin/sh
# kohaku replay vector (cli.md): the recorded vec_cu cases pass with the RTL
# behaviours on (the recorded core has the FP32 VST defect) and the three
# FP32-store cases fail without them.
. tests/cli/lib.inc
F="$KH_DATA/vectors/vector.jsonl"
expect_rc "replay vector --rtl-compat passes" 0 "$KOHAKU" replay vector "$F" --rtl-compat
out=$("$KOHAKU" replay vector "$F" --rtl-compat 2>/dev/null | tail -n 1)
expect_out "closing line" "9 passed, 0 failed" echo "$out"
out=$("$KOHAKU" replay vector "$F" --rtl-compat 2>/dev/null | grep '^cycles:' | cut -d, -f1)
expect_out "cycle deviation line" "cycles: mean deviation 0.0 %" echo "$out"
expect_rc "without --rtl-compat the FP32 VST cases fail" 1 "$KOHAKU" replay vector "$F"
out=$("$KOHAKU" replay vector "$F" 2>/dev/null | tail -n 1)
expect_out "three cases use the FP32 VST defect" "6 passed, 3 failed" echo "$out"
expect_rc "a missing file is refused" 1 "$KOHAKU" replay vector /nonexistent/vector.jsonl
expect_rc "usage" 2 "$KOHAKU" replay vector
finish
