# kohaku replay cluster (../shared/cli.md, vectors/README.md replay contract):
# the recorded cluster programs replay exactly; a changed value fails its
# case with the first difference; bad input and usage are refused.
. tests/cli/lib.inc
V=$KH_DATA/vectors/cluster.jsonl
expect_rc "every recorded cluster case passes" 0 $KOHAKU replay cluster "$V"
expect_out "closing line counts the cases" "12 passed, 0 failed" sh -c "$KOHAKU replay cluster '$V' | tail -n 1"
expect_out "cycle deviation line" "cycles: mean deviation" sh -c "$KOHAKU replay cluster '$V' | grep '^cycles:' | cut -c1-22"
tmp=$(mktemp)
# case 8 with one result byte changed, case 16 with a completion arg changed
sed -e '2s/"bytes": "2534afb3/"bytes": "2634afb3/' -e '3s/"arg": 2,/"arg": 9,/' "$V" > "$tmp"
expect_rc "a changed value fails" 1 $KOHAKU replay cluster "$tmp"
expect_out "two cases fail" "10 passed, 2 failed" sh -c "$KOHAKU replay cluster '$tmp' | tail -n 1"
expect_out "the memory difference is named" "1" sh -c "$KOHAKU replay cluster '$tmp' | grep -c '^case 8 .*memory at 0x0000100000 byte 0'"
expect_out "the completion difference is named" "1" sh -c "$KOHAKU replay cluster '$tmp' | grep -c '^case 16 .*completions\[1\]'"
printf '{"case": 1, "insts": "nope"}\n' > "$tmp"
expect_rc "a malformed case is refused" 1 $KOHAKU replay cluster "$tmp"
# a node drain (dnode=1 to (3,2)) of a zero sub-tile: a CU_DATA descriptor
# and one data flit; node_out is compared by data, buffer and granule
I='"insts": ["1000000000000400000128000000000000000000000000000000000000000000", "1000004000000600000128000000000000000000000000000000000000000000", "2000000000000001010128000000000000000000000000000000000000000000", "3000000000000400000128000000000000009900000000000000000000000000"], "inst_txn": 64, "inst_last": 0'
C='"completions": [{"code": 0, "arg": 1, "txn": 64, "last": 1}, {"code": 0, "arg": 2, "txn": 64, "last": 1}, {"code": 0, "arg": 3, "txn": 64, "last": 1}, {"code": 0, "arg": 4, "txn": 64, "last": 1}]'
Z=0000000000000000000000000000000000000000000000000000000000000000
printf '{"case": 1, "params": {"TILES": 256, "rd_lat": 10}, %s, "mem_in": [], "mem_out": [], "node_out": ["32218020%s", "32218028%s"], %s}\n' "$I" $Z $Z "$C" > "$tmp"
expect_out "a node drain replays" "1 passed, 0 failed" sh -c "$KOHAKU replay cluster '$tmp' | tail -n 1"
printf '{"case": 2, %s, "mem_in": [], "node_out": ["32218020%s", "32218028%s"], %s}\n' "$I" $Z 0000000000000000000000000000000000000000000000000000000000000001 "$C" > "$tmp"
expect_out "node_out data differs" "1" sh -c "$KOHAKU replay cluster '$tmp' | grep -c '^case 2 .*node_out to (3,2): buf 0 granule 0 data'"
printf '{"case": 3, %s, "mem_in": [], "node_out": ["32218020%s", "32218028%s", "32218020%s", "32218028%s"], %s}\n' "$I" $Z $Z $Z $Z "$C" > "$tmp"
expect_out "node_out has more flits than sent" "1" sh -c "$KOHAKU replay cluster '$tmp' | grep -c 'fewer CU_DATA data flits'"
head -n 1 "$V" | sed 's/"cu_xy": \[2, 1\]/"cu_xy": [1, 1]/' > "$tmp"
expect_out "the unit at the memory's place is refused" "1" sh -c "$KOHAKU replay cluster '$tmp' | grep -c 'params.cu_xy (1,1) is also params.mem_xy'"
head -n 1 "$V" | sed 's/"rd_lat": 10/"rd_lat": 4294967306/' > "$tmp"
expect_out "a memory latency past our bound is refused" "1" sh -c "$KOHAKU replay cluster '$tmp' | grep -c 'params.rd_lat: 4294967306'"
expect_rc "a missing file is refused" 1 $KOHAKU replay cluster /nonexistent/cluster.jsonl
expect_err_has "the missing file is named" "/nonexistent/cluster.jsonl" $KOHAKU replay cluster /nonexistent/cluster.jsonl
expect_rc "no file is a usage error" 2 $KOHAKU replay cluster
rm -f "$tmp"
finish
