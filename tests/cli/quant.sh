#!/bin/sh
# kohaku quant and kohaku replay quant (../shared/cli.md; numerics.md §3,
# cluster.md §9.5; ../shared/vectors/README.md replay contract).
. tests/cli/lib.inc

rep() { # rep TEXT N: TEXT repeated N times
    r=""; i=0
    while [ "$i" -lt "$2" ]; do r="$r$1"; i=$((i + 1)); done
    printf '%s' "$r"
}
ONES=$(rep 3c00 128)
W1=72e5cb972e5cb972e5cb972e5cb972e5cb972e5cb972e5cb972e5cb971717171
Z52=$(rep 0 52)

# numerics §3.2: all 1.0, either packing
expect_out "all 1.0, A packing" "$(rep $W1 4)" $KOHAKU quant "$ONES"
expect_out "all 1.0, B packing" "$(rep $W1 4)" $KOHAKU quant --mode 1 "$ONES"

# cluster.md §9.5: A[0][0] = 3.0, A[0][1] = 0.1 (elements 0 and 1 are the last digits)
A_IN="$(rep 0 504)2e664200"
A_W0=7608${Z52}7da0a0a0
A_WN=0000${Z52}7da0a0a0
expect_out "cluster 9.5 A image" "$A_WN$A_WN$A_WN$A_W0" $KOHAKU quant "$A_IN"
# Bt[0][0] = 1.0, Bt[0][1] = 2.5, Bt[1][0] = -0.5 (element 32)
B_IN="$(rep 0 380)b800$(rep 0 120)41003c00"
B_W0=2f1c00074000$(rep 0 44)7b69a0a0
B_WN=0000${Z52}7b69a0a0
expect_out "cluster 9.5 Bt image (--mode=1)" "$B_WN$B_WN$B_WN$B_W0" $KOHAKU quant --mode=1 "$B_IN"
expect_out "short HEX is zero-extended, '_' allowed" "$A_WN$A_WN$A_WN$A_W0" $KOHAKU quant 2e66_4200
expect_out "mode bits above 0 are ignored" "$B_WN$B_WN$B_WN$B_W0" $KOHAKU quant --mode 0xF "$B_IN"

# refusals name the problem
expect_rc "bad digit refused" 1 $KOHAKU quant 12g4
expect_err_has "bad digit named" "bad hex digit 'g' at position 3" $KOHAKU quant 12g4
expect_rc "too long refused" 1 $KOHAKU quant "0$ONES"
expect_err_has "length named" "513 hex digits given" $KOHAKU quant "0$ONES"
expect_rc "mode 16 refused" 1 $KOHAKU quant --mode 16 1
expect_err_has "mode rule named" "XFORM_MODE is a 4-bit value" $KOHAKU quant --mode 16 1
expect_rc "no HEX is a usage error" 2 $KOHAKU quant
expect_rc "unknown option is a usage error" 2 $KOHAKU quant --bogus 1
expect_rc "two HEX is a usage error" 2 $KOHAKU quant 1 2
expect_rc "help" 0 $KOHAKU quant --help

# replay: the recorded RTL vectors
expect_out "replay the recorded vectors" "200 passed, 0 failed" $KOHAKU replay quant "$KH_DATA/vectors/quant.jsonl"
expect_rc "recorded vectors exit 0" 0 $KOHAKU replay quant "$KH_DATA/vectors/quant.jsonl"

# replay: any file in the format; failures are lines, not crashes
tmp=$(mktemp)
GOOD_OUT=$(rep $W1 4)
BAD_OUT=$(rep $W1 3)${W1%1}0
{
    echo "{\"in\": \"$ONES\", \"mode\": 0, \"out\": \"$GOOD_OUT\", \"note\": \"ok\"}"
    echo
    echo "{\"in\": \"$ONES\", \"mode\": 1, \"out\": \"$BAD_OUT\"}"
    echo "{\"in\": \"$ONES\", \"mode\": 0, \"out\": \"$GOOD_OUT\""
    echo "{\"in\": \"$ONES\", \"out\": \"$GOOD_OUT\"}"
    echo "{\"in\": \"12\", \"mode\": 0, \"out\": \"$GOOD_OUT\"}"
    echo "{\"in\": \"$ONES\", \"mode\": 0, \"out\": \"$GOOD_OUT\", \"words\": [\"$W1\", \"$W1\", \"$W1\", \"${W1%1}0\"]}"
    echo "[1, 2]"
} > "$tmp"
expect_rc "a failing file exits 1" 1 $KOHAKU replay quant "$tmp"
out=$($KOHAKU replay quant "$tmp" 2>&1)
has_line() { # has_line "description" "exact line"
    if printf '%s\n' "$out" | grep -qxF "$2"; then kh_pass=$((kh_pass + 1));
    else kh_fail=$((kh_fail + 1)); echo "FAIL $kh_name: $1"; echo "  want line: $2"; echo "  got: $out"; fi
}
has_line "value difference names case, word, lane and values" \
    "case 2 (line 3, mode 1): out differs: word 0 scale of lane 3 (bits [7:0]): got 0x71, want 0x70"
COL=$(($(sed -n 4p "$tmp" | wc -c)))
has_line "syntax error names line and column" \
    "case 3 (line 4): malformed: column $COL: text ends inside the object opened at line 1 column 1"
has_line "missing field named" "case 4 (line 5): malformed: field 'mode': missing (an unsigned 64-bit integer expected)"
has_line "bad hex named" "case 5 (line 6): malformed: field 'in': 2 hex digits given, 512 expected (2048 bits)"
has_line "words checked against out" "case 6 (line 7): malformed: field 'words'[3] disagrees with word 3 of 'out'"
has_line "non-object line" "case 7 (line 8): malformed: the line is a JSON array, not an object"
has_line "closing count" "1 passed, 6 failed"
rm -f "$tmp"
expect_rc "missing file refused" 1 $KOHAKU replay quant /nonexistent/q.jsonl
expect_err_has "missing file named" "cannot open '/nonexistent/q.jsonl'" $KOHAKU replay quant /nonexistent/q.jsonl
finish
