# --check on the simulating subcommands (docs/check.md): the live flit
# checker reports a bad flit with rule, field and value and exits 1, runs
# clean on the shipped examples, and works together with --trace.
. tests/cli/lib.inc
unset KOHAKU_CHECK # this script is about --check itself
MAP="$KH_DATA/maps/saxpy_map.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_rc "the saxpy example runs clean under --check" 0 $KOHAKU run "$MAP" examples/saxpy.session --check
expect_err_has "a count line follows" "kohaku run: check: 30 flits sent, 30 delivered: 0 violations, 0 warnings" \
    $KOHAKU run "$MAP" examples/saxpy.session --check

# A CU_SIGNAL with code 0x02 (never emitted, flits.md §9 V15) through the raw mailbox.
printf 'flit TX_FLIT(0) 010162180200000000000000000000000000000000000000000000000000000000000000\nwrite TX_KICK 1\nidle\n' \
    > "$tmp/bad.session"
expect_rc "without --check the bad flit passes" 0 $KOHAKU run "$MAP" "$tmp/bad.session"
expect_rc "with --check it exits 1" 1 $KOHAKU run "$MAP" "$tmp/bad.session" --check
expect_err_has "the finding names rule, field, value, link and path" \
    "mem_port0(0,1)>r(1,1).W, sent by the orchestrator's mailbox: V15 CU_SIGNAL code=0x02" \
    $KOHAKU run "$MAP" "$tmp/bad.session" --check

expect_rc "--check and --trace at once" 0 $KOHAKU run "$MAP" examples/saxpy.session --check --trace "$tmp/t.json"
expect_rc "the trace has the link transfers" 0 grep -q '"name":"CU_INST"' "$tmp/t.json"

expect_rc "a GEMM runs clean" 0 $KOHAKU gemm 64 64 64 --check
expect_err_has "with its count" "0 violations" $KOHAKU gemm 64 64 64 --check
expect_rc "the saxpy replay runs clean" 0 $KOHAKU replay saxpy "$KH_DATA/vectors/saxpy.jsonl" --check
expect_rc "the cluster replay runs clean" 0 $KOHAKU replay cluster "$KH_DATA/vectors/cluster.jsonl" --check
expect_err_has "bench noc checks the headers" "0 violations" \
    $KOHAKU bench noc --map "$KH_DATA/maps/mesh_2x2.txt" --rate 0.2 --cycles 2000 --check

for sub in run gemm demo replay; do
    expect_rc "$sub --help names --check" 0 sh -c "$KOHAKU $sub --help | grep -q -- --check"
done
expect_rc "bench noc --help names --check" 0 sh -c "$KOHAKU bench noc --help | grep -q -- --check"
finish
