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

# The reader's field checks: each bad value fails its case with the field
# named, never taken silently (case 0 passes as recorded).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -n 1 "$F" > "$tmp/good.jsonl"
expect_out "case 0 as recorded" "1 passed, 0 failed" sh -c "'$KOHAKU' replay vector '$tmp/good.jsonl' 2>/dev/null | tail -n 1"
bad() { # bad "description" "sed expression" "substring of the case line"
    sed -e "$2" "$tmp/good.jsonl" > "$tmp/bad.jsonl"
    expect_rc "$1: the case fails" 1 "$KOHAKU" replay vector "$tmp/bad.jsonl"
    expect_out "$1: named" "1" sh -c "'$KOHAKU' replay vector '$tmp/bad.jsonl' 2>/dev/null | grep -c -F '$3'"
}
bad "rd_lat past 32 bits" 's/"rd_lat":10/"rd_lat":4294967306/' "params.rd_lat: 4294967306"
bad "rd_lat not a number" 's/"rd_lat":10/"rd_lat":"ten"/' "rd_lat"
bad "INST_DEPTH 0" 's/"INST_DEPTH":32/"INST_DEPTH":0/' "params.INST_DEPTH: 0"
bad "INST_DEPTH 10^9" 's/"INST_DEPTH":32/"INST_DEPTH":1000000000/' "params.INST_DEPTH: 1000000000"
bad "RECV_DEPTH 0" 's/"RECV_DEPTH":64/"RECV_DEPTH":0/' "params.RECV_DEPTH: 0"
bad "FLIT_WIDTH other than 288" 's/"FLIT_WIDTH":288/"FLIT_WIDTH":256/' "params.FLIT_WIDTH: 256"
bad "cu_xy equal to mem_xy" 's/"cu_xy":\[2,1\]/"cu_xy":[1,1]/' "params.cu_xy (1,1) is also params.mem_xy"
bad "a flits_in kind not in the format" '0,/"kind":"imem"/s//"kind":"bogus"/' "flits_in[0].kind: "
: > "$tmp/empty.jsonl"
expect_rc "an empty file is refused" 1 "$KOHAKU" replay vector "$tmp/empty.jsonl"
expect_err_has "saying it holds no case" "holds no case" "$KOHAKU" replay vector "$tmp/empty.jsonl"
printf '\n\n' > "$tmp/blank.jsonl"
expect_rc "blank lines alone are refused" 1 "$KOHAKU" replay cluster "$tmp/blank.jsonl"
expect_rc "usage" 2 "$KOHAKU" replay vector
finish
