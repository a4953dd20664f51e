# The options the simulating subcommands share (tools/kohaku/simopts.h,
# ../shared/cli.md): one parser, and the rules on which the subcommands
# have always differed, kept as they were; exit statuses by the rule of
# docs/exit-status.md.
. tests/cli/lib.inc
unset KOHAKU_CHECK
MAP="$KH_DATA/maps/saxpy_map.txt"
SES=examples/saxpy.session
NOC="$KOHAKU bench noc --map $KH_DATA/maps/mesh_2x2.txt --rate 0.2 --cycles 200"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A missing value (the option is the last word) is a usage error that says
# so, not an unknown option.
expect_err_has "run: a missing value is named as missing" "kohaku run: --trace needs a value" \
    $KOHAKU run "$MAP" $SES --trace
expect_err_has "replay: the same" "kohaku replay: --stats needs a value" \
    $KOHAKU replay saxpy "$KH_DATA/vectors/saxpy.jsonl" --stats
expect_err_has "bench noc: the same" "kohaku bench noc: --map needs a value" $KOHAKU bench noc --map
expect_err_has "gemm: the same" "kohaku gemm: --map needs a value" $KOHAKU gemm 8 8 8 --map
expect_err_has "demo: the same" "kohaku demo: --trace needs a value" $KOHAKU demo --trace
expect_err_has "bench gemm: the same" "kohaku bench gemm: --stats needs a value" $KOHAKU bench gemm --arith-only --stats
expect_err_has "run: --param too" "kohaku run: --param needs a value (NAME=VALUE)" $KOHAKU run "$MAP" $SES --param
expect_err_has "run: --profile too" "kohaku run: --profile needs a value" $KOHAKU run "$MAP" $SES --profile
expect_rc "run: a file option given twice is a usage error" 2 \
    $KOHAKU run "$MAP" $SES --stats "$tmp/s1.json" --stats "$tmp/s2.json"
expect_err_has "run: and says so" "kohaku run: --stats is given twice" \
    $KOHAKU run "$MAP" $SES --stats "$tmp/s1.json" --stats "$tmp/s2.json"
for sub in "run $MAP $SES" "replay saxpy $KH_DATA/vectors/saxpy.jsonl" demo "gemm 8 8 8" \
    "bench gemm --arith-only --seconds 0.01" "bench noc --rate 0.2 --cycles 200"; do
    expect_rc "$sub: a missing value exits 2" 2 $KOHAKU $sub --check --trace
done

# --param and --profile: run and bench noc only.
for sub in demo "gemm 8 8 8" "replay saxpy $KH_DATA/vectors/saxpy.jsonl"; do
    expect_rc "$sub refuses --param" 2 $KOHAKU $sub --param fifo_latency=2
    expect_rc "$sub refuses --profile" 2 $KOHAKU $sub --profile rec
done
expect_rc "bench gemm refuses --param" 2 $KOHAKU bench gemm --param fifo_latency=2
expect_rc "run takes no --map (MACHINE is positional)" 2 $KOHAKU run "$MAP" $SES --map "$MAP"
expect_rc "replay takes no --map" 2 $KOHAKU replay saxpy "$KH_DATA/vectors/saxpy.jsonl" --map "$MAP"

# A refused value is refused input (exit 1), named with its subcommand,
# as the same value on a machine file's param line is.
expect_rc "run: bad --param exits 1" 1 $KOHAKU run "$MAP" $SES --param bad
expect_err_has "run: and names it" "kohaku run: parameter 'bad': expected NAME=VALUE" $KOHAKU run "$MAP" $SES --param bad
expect_rc "bench noc: bad --param exits 1" 1 $NOC --param bad
expect_err_has "bench noc: and names it" "kohaku bench noc: parameter 'bad': expected NAME=VALUE" $NOC --param bad

# run: every --profile and --param in command-line order; a profile sets
# fifo_latency (parameters.md §2.1), so an earlier --param of it is lost.
cyc() { "$@" 2>/dev/null | sed -n 's/^ok: .*cycle \([0-9]*\)$/\1/p'; }
rec=$(cyc $KOHAKU run "$MAP" $SES --profile rec)
expect_rc "run: prints its cycle count" 0 test -n "$rec"
expect_out "run: --param then --profile is the profile alone" "$rec" \
    cyc $KOHAKU run "$MAP" $SES --param fifo_latency=3 --profile rec
after=$(cyc $KOHAKU run "$MAP" $SES --profile rec --param fifo_latency=3)
expect_rc "run: --profile then --param keeps the param" 1 test "$after" = "$rec"
expect_rc "run: each --profile is applied, a bad one refused" 1 $KOHAKU run "$MAP" $SES --profile bogus --profile rec

# bench noc: the last --profile first, then every --param.
$NOC --param fifo_latency=3 --profile rec --stats "$tmp/a.json" >/dev/null 2>&1
$NOC --profile rec --param fifo_latency=3 --stats "$tmp/b.json" >/dev/null 2>&1
$NOC --profile rec --stats "$tmp/c.json" >/dev/null 2>&1
expect_rc "bench noc: --param then --profile keeps the param" 0 cmp -s "$tmp/a.json" "$tmp/b.json"
expect_rc "bench noc: and the param counts" 1 cmp -s "$tmp/a.json" "$tmp/c.json"
expect_rc "bench noc: only the last --profile counts" 0 $NOC --profile bogus --profile rec

# How many: run 64 --profile/--param together; bench noc 16 --param, any --profile.
p64=$(for i in $(seq 64); do printf -- '--param fifo_latency=1 '; done)
expect_rc "run: 64 are taken" 0 $KOHAKU run "$MAP" $SES $p64
expect_err_has "run: the 65th is refused" "kohaku run: more than 64 --profile/--param options" \
    $KOHAKU run "$MAP" $SES $p64 --profile rec
expect_rc "run: with exit 2" 2 $KOHAKU run "$MAP" $SES --profile rec $p64
p16=$(for i in $(seq 16); do printf -- '--param fifo_latency=1 '; done)
pr=$(for i in $(seq 70); do printf -- '--profile rec '; done)
expect_rc "bench noc: 16 --param and 70 --profile are taken" 0 $NOC $p16 $pr
expect_err_has "bench noc: the 17th --param is refused" "kohaku bench noc: too many --param" \
    $NOC $p16 --param fifo_latency=1
expect_rc "bench noc: with exit 2" 2 $NOC $p16 --param fifo_latency=1
finish
