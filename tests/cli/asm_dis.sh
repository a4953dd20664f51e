# kohaku asm / dis (../shared/cli.md; cluster.md §2, vector.md §1, §4).
. tests/cli/lib.inc
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# cluster.md §9.5's program; words written from the field table of §2:
# op [255:252], addr [251:218] + [68:63], n [217:202], sel [201], gm/gn/nk at
# [199:176], anchor [175:168] (nk defaults to 1, anchor to 40).
cat > "$T/c.s" <<'S'
FILL sel=a n=1 eoff=0 addr=0x0   # A image
FILL sel=b n=1 eoff=0 addr=0x40000
GEMM gm=1 gn=1 nk=1 acc=0 anchor=40

DRAIN n=1 addr=0x100000
S
cat > "$T/c.want" <<'S'
1000000000000400000128000000000000000000000000000000000000000000
1000100000000600000128000000000000000000000000000000000000000000
2000000000000001010128000000000000000000000000000000000000000000
3000400000000400000128000000000000000000000000000000000000000000
S
expect_out "asm cluster 9.5" "$(cat "$T/c.want")" "$KOHAKU" asm --unit cluster "$T/c.s"
expect_out "asm from standard input" "$(cat "$T/c.want")" sh -c "\"$KOHAKU\" asm --unit cluster < \"$T/c.s\""
expect_out "dis cluster" "FILL n=1
FILL addr=0x40000 n=1 sel=b
GEMM gm=1 gn=1
DRAIN addr=0x100000 n=1" "$KOHAKU" dis --unit cluster "$T/c.want"
# the split address: addr[39:34] lands at [68:63]
expect_out "asm FILL: nk 1 and anchor 40 by default" "1000000000000000000128000000000000000000000000000000000000000000" \
    sh -c "echo 'FILL addr=0x0' | \"$KOHAKU\" asm --unit cluster"
expect_out "asm 40-bit address: addr[39:34] at [68:63]" "10000000000000000001280000000000000000000000001f8000000000000000" \
    sh -c "echo 'FILL addr=0xfc00000000 n=0' | \"$KOHAKU\" asm --unit cluster"
# errors name the line, the field and the value; exit 1
printf 'FILL n=1\nGEMM nk=300\n' > "$T/bad.s"
expect_rc "asm: bad value exits 1" 1 "$KOHAKU" asm --unit cluster "$T/bad.s"
expect_err_has "asm: error names line, field, value" "line 2: GEMM nk=300 does not fit 8 bits" \
    "$KOHAKU" asm --unit cluster "$T/bad.s"
expect_out "asm: nothing printed on error" "" "$KOHAKU" asm --unit cluster "$T/bad.s"
expect_err_has "asm: unused field warns" "FILL does not use field gm" \
    sh -c "echo 'FILL gm=2' | \"$KOHAKU\" asm --unit cluster"
expect_rc "asm: unused field still assembles" 0 sh -c "echo 'FILL gm=2' | \"$KOHAKU\" asm --unit cluster"
expect_rc "asm: an unknown unit is a refused value (docs/exit-status.md)" 1 "$KOHAKU" asm --unit nope "$T/c.s"
expect_rc "asm: missing --unit is usage" 2 "$KOHAKU" asm "$T/c.s"
expect_rc "asm: missing file" 1 "$KOHAKU" asm --unit cluster "$T/none.s"
expect_rc "asm --help" 0 "$KOHAKU" asm --help
expect_rc "dis --help" 0 "$KOHAKU" dis --help

# unnamed opcodes round-trip as OP op=N
expect_out "dis: OP form" "OP op=9 n=5" sh -c "echo 9000000000001400000128000000000000000000000000000000000000000000 | \"$KOHAKU\" dis --unit cluster"
expect_out "asm: OP form" "9000000000001400000128000000000000000000000000000000000000000000" \
    sh -c "echo 'OP op=9 n=5' | \"$KOHAKU\" asm --unit cluster"
expect_rc "dis: a short word is refused" 1 sh -c "echo 1234 | \"$KOHAKU\" dis --unit cluster"
expect_err_has "dis: the line is named" "line 2" sh -c "printf '%s\n%s\n' 1000000000000400000128000000000000000000000000000000000000000000 zz | \"$KOHAKU\" dis --unit cluster"

# vector outer: IMEM / DESC / RUN words of vector.jsonl case 0
cat > "$T/v.hex" <<'S'
10080000000000000000000000000000000000000000000000000000e8200020
2000000000000000000000000000000000000000000000000000000000000000
3000000000000000000000000000000000000000000000000000000000000000
S
expect_out "dis vector" "IMEM addr=1 word=0xe8200020
DESC
RUN" "$KOHAKU" dis --unit vector "$T/v.hex"
expect_out "asm DESC split value" "2200000000800000000000000000000000000000000000080000000000000000" \
    sh -c "echo 'DESC ad=1 fld=base value=0x4000000008' | \"$KOHAKU\" asm --unit vector"

# vector inner: VSETI is two words
expect_out "asm VSETI two lines" "d01c0000
00000008" sh -c "echo 'VSETI vd=14 imm=8' | \"$KOHAKU\" asm --unit vector-inner"
expect_out "dis VSETI one line" "VSETI vd=14 imm=8" sh -c "printf 'd01c0000\n00000008\n' | \"$KOHAKU\" dis --unit vector-inner"
expect_out "dis VLD negative offset" "VLD dt=fp16 ad=3 off=-8" \
    sh -c "echo a1603ff8 | \"$KOHAKU\" dis --unit vector-inner"
expect_out "asm VLD negative offset" "a1603ff8" sh -c "echo 'VLD dt=fp16 ad=3 off=-8' | \"$KOHAKU\" asm --unit vector-inner"

# every recorded word of the vectors round-trips through dis and asm
SH=$KH_DATA
if [ -f "$SH/vectors/cluster.jsonl" ]; then
    sed -n 's/.*"insts": \[\([^]]*\)\].*/\1/p' "$SH/vectors/cluster.jsonl" | tr ',' '\n' | tr -d ' "' | grep . > "$T/rec.hex"
    "$KOHAKU" dis --unit cluster "$T/rec.hex" > "$T/rec.s"
    expect_out "recorded cluster words: asm(dis(w)) == w" "$(cat "$T/rec.hex")" sh -c "\"$KOHAKU\" asm --unit cluster \"$T/rec.s\" 2>/dev/null"
fi
if [ -f "$SH/vectors/saxpy.jsonl" ]; then
    sed -n 's/.*"payload": "\([0-9a-f]*\)".*/\1/p' "$SH/vectors/saxpy.jsonl" > "$T/sx.hex"
    "$KOHAKU" dis --unit saxpy "$T/sx.hex" > "$T/sx.s"
    expect_out "recorded saxpy words: asm(dis(w)) == w" "$(cat "$T/sx.hex")" sh -c "\"$KOHAKU\" asm --unit saxpy \"$T/sx.s\" 2>/dev/null"
fi
expect_err_has "asm: table rule broken is a warning" "saxpy n=65 exceeds the largest legal value 64" \
    sh -c "echo 'SAXPY n=65' | \"$KOHAKU\" asm --unit saxpy"
expect_rc "asm: ... and the word is still written" 0 sh -c "echo 'SAXPY n=65' | \"$KOHAKU\" asm --unit saxpy"
# matmul: any word
expect_out "matmul BLOCK" "BLOCK addr_a=0x100 addr_b=0x200 tile=3 first=1 anchor=40" sh -c \
    "echo 'BLOCK addr_a=0x100 addr_b=0x200 tile=3 first=1 anchor=40' | \"$KOHAKU\" asm --unit matmul | \"$KOHAKU\" dis --unit matmul"
finish
