#!/bin/sh
# kohaku replay --trace / --stats (include/kohaku/replay.h): one rule for
# every kind that simulates: one trace file and one stats file, each holding
# every case of the vector file; quant, which simulates nothing, refuses both.
. tests/cli/lib.inc
unset KOHAKU_CHECK
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for kind in cluster saxpy vector; do
    V="data/vectors/$kind.jsonl"
    cases=$(grep -c . "$V")
    expect_rc "$kind: --trace and --stats run" 0 $KOHAKU replay $kind "$V" --rtl-compat \
        --trace "$tmp/$kind.json" --stats "$tmp/$kind-stats.json"
    expect_out "$kind: exactly the two named files are written" "$kind-stats.json $kind.json" \
        sh -c "cd '$tmp' && ls $kind*.json | tr '\n' ' ' | sed 's/ \$//'"
    expect_out "$kind: the trace has one range per case" "$cases" grep -c '"cat":"range"' "$tmp/$kind.json"
    expect_out "$kind: the first case's range" "1" grep -c '"name":"case 0","cat":"range"' "$tmp/$kind.json"
    expect_out "$kind: the stats have one entry per case" "$cases" grep -c '{"case":"' "$tmp/$kind-stats.json"
done
# a fresh bench per case: each case its own processes
V="data/vectors/cluster.jsonl"
expect_out "cluster: two processes per case" "$(($(grep -c . "$V") * 2))" \
    grep -c '"name":"process_name","args":{"name":"case ' "$tmp/cluster.json"
expect_out "saxpy: one machine, one pair of processes" "2" grep -c '"name":"process_name"' "$tmp/saxpy.json"
Q="data/vectors/quant.jsonl"
expect_rc "quant refuses --trace" 2 $KOHAKU replay quant "$Q" --trace "$tmp/q.json"
expect_rc "quant refuses --stats" 2 $KOHAKU replay quant "$Q" --stats "$tmp/q.json"
expect_err_has "and says why" "quant computes each case without a simulation" $KOHAKU replay quant "$Q" --trace "$tmp/q.json"
expect_rc "a trace that cannot be made refuses the file" 1 $KOHAKU replay cluster "$V" --trace /nonexistent/t.json
expect_err_has "naming it" "trace /nonexistent/t.json: cannot create" $KOHAKU replay cluster "$V" --trace /nonexistent/t.json
finish
