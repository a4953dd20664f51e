# KOHAKU_SIMD (docs/num.md): the widest instruction set the dispatched
# paths may use. Every level prints the same results and cycles as the
# default; a value that names no level is refused before anything runs.
. tests/cli/lib.inc
tmpd=$(mktemp -d)
expect_rc "KOHAKU_SIMD=avx3 is a usage error" 2 env KOHAKU_SIMD=avx3 "$KOHAKU" demo
expect_err_has "the value and the levels are named" "KOHAKU_SIMD='avx3' is not one of portable, avx2, avx-vnni, avx512" \
    env KOHAKU_SIMD=avx3 "$KOHAKU" demo
expect_rc "kohaku --help names KOHAKU_SIMD" 0 sh -c "'$KOHAKU' --help | grep -q 'KOHAKU_SIMD=portable|avx2|avx-vnni|avx512'"
expect_out "portable: the block product runs the portable path" "1" \
    sh -c "KOHAKU_SIMD=portable '$KOHAKU' bench gemm --arith-only --seconds 0.01 | grep -c 'kh_mx_block path portable)'"
expect_out "avx2: no AVX-512 or AVX-VNNI path" "0" \
    sh -c "KOHAKU_SIMD=avx2 '$KOHAKU' bench gemm --arith-only --seconds 0.01 | grep -c 'path avx512\|path avx-vnni'"
"$KOHAKU" gemm 100 200 300 --stats "$tmpd/gemm.stats" > "$tmpd/gemm.out" 2>&1
"$KOHAKU" demo --stats "$tmpd/demo.stats" > "$tmpd/demo.out" 2>&1
"$KOHAKU" replay cluster -v bench/base/cluster.jsonl > "$tmpd/cluster.out" 2>&1
"$KOHAKU" run "$KH_DATA/maps/mesh_1x1_min.txt" examples/vector_scale.session --stats "$tmpd/vector.stats" > "$tmpd/vector.out" 2>&1
# the traffic sources' arrival gaps (AVX-512 or one draw at a time); the
# timing line left out
noc() {
    out=$1
    shift
    env "$@" "$KOHAKU" bench noc --rate 0.1 --cycles 20000 --stats "$out.stats" 2>&1 | grep -v ' speed ' > "$out.out"
}
noc "$tmpd/noc"
for level in portable avx2 avx-vnni avx512; do
    KOHAKU_SIMD=$level "$KOHAKU" gemm 100 200 300 --stats "$tmpd/gemm.$level.stats" > "$tmpd/gemm.$level.out" 2>&1
    KOHAKU_SIMD=$level "$KOHAKU" demo --stats "$tmpd/demo.$level.stats" > "$tmpd/demo.$level.out" 2>&1
    KOHAKU_SIMD=$level "$KOHAKU" replay cluster -v bench/base/cluster.jsonl > "$tmpd/cluster.$level.out" 2>&1
    KOHAKU_SIMD=$level "$KOHAKU" run "$KH_DATA/maps/mesh_1x1_min.txt" examples/vector_scale.session \
        --stats "$tmpd/vector.$level.stats" > "$tmpd/vector.$level.out" 2>&1
    noc "$tmpd/noc.$level" KOHAKU_SIMD=$level
    for w in gemm demo vector noc; do
        expect_rc "$level: $w prints what the default prints" 0 cmp -s "$tmpd/$w.out" "$tmpd/$w.$level.out"
        expect_rc "$level: $w's stats are the default's" 0 cmp -s "$tmpd/$w.stats" "$tmpd/$w.$level.stats"
    done
    expect_rc "$level: replay cluster -v, every cycle, is the default's" 0 cmp -s "$tmpd/cluster.out" "$tmpd/cluster.$level.out"
done
# the V2 core (EXP2D lanes, the unpack and pack converters: AVX2 or one
# lane at a time): every counter and every memory word at every level
v2="$KH_DATA/vectors/vector2"
v2own="$KH_DATA/vectors/vector2_own"
for c in "$v2/softmax_128x128" "$v2/attn_om_rs1_b8" "$v2own/gt4"; do
    n=$(basename "$c")
    "$KOHAKU" replay vector2 "$c/prog.hex" "$c/mem.hex" --memwait 1 --out "$tmpd/v2.$n.mem" > "$tmpd/v2.$n.out" 2>&1
    for level in portable avx2 avx512; do
        KOHAKU_SIMD=$level "$KOHAKU" replay vector2 "$c/prog.hex" "$c/mem.hex" --memwait 1 --out "$tmpd/v2.$n.$level.mem" \
            > "$tmpd/v2.$n.$level.out" 2>&1
        expect_rc "$level: replay vector2 $n prints what the default prints" 0 cmp -s "$tmpd/v2.$n.out" "$tmpd/v2.$n.$level.out"
        expect_rc "$level: replay vector2 $n's memory is the default's" 0 cmp -s "$tmpd/v2.$n.mem" "$tmpd/v2.$n.$level.mem"
    done
done
# the vector ALU's FMA and EXP2D lanes (AVX-512, AVX2, scalar) and the
# FP16 word converters against the single lane, on whichever of them each
# level leaves this CPU
t_alu="$(dirname "$KOHAKU")/tests/t_vnum_alu"
t_cvt="$(dirname "$KOHAKU")/tests/t_vnum_cvt"
if [ -x "$t_alu" ]; then
    for level in portable avx2 avx512; do
        expect_rc "$level: t_vnum_alu's batches equal its single lanes" 0 env KOHAKU_SIMD=$level "$t_alu"
    done
fi
if [ -x "$t_cvt" ]; then
    for level in portable avx2; do
        expect_rc "$level: t_vnum_cvt's word batches equal its single elements" 0 env KOHAKU_SIMD=$level "$t_cvt"
    done
fi
rm -rf "$tmpd"
finish
