# kohaku run MACHINE SESSION (../shared/cli.md, docs/session.md) and
# kohaku replay saxpy (../shared/vectors/README.md).
. tests/cli/lib.inc
MAP="$KH_DATA/maps/saxpy_map.txt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expect_rc "the shipped saxpy example passes" 0 $KOHAKU run "$MAP" examples/saxpy.session
expect_rc "usage without a session" 2 $KOHAKU run "$MAP"
expect_rc "unknown option" 2 $KOHAKU run --frob "$MAP" examples/saxpy.session
expect_out "help" "usage: kohaku run MACHINE SESSION [--profile P] [--param name=value]... [--trace F.json] [--stats F.json] [--check]" \
    sh -c "$KOHAKU run --help | head -n 1"

printf 'write SIG_DONE 0\nread SIG_DONE 5\n' > "$tmp/fail.session"
expect_rc "a failed expectation exits 1" 1 $KOHAKU run "$MAP" "$tmp/fail.session"
expect_err_has "it names the line, the address, expected and actual" \
    "fail.session:2: read 0x800070: expected 0x0000000000000005, got 0x0000000000000000" \
    $KOHAKU run "$MAP" "$tmp/fail.session"

# line 4 is line 2 again (one stored command): its failure names line 4
printf 'write PROG_LEN 5\nread PROG_LEN 5\nwrite PROG_LEN 0\nread PROG_LEN 5\n' > "$tmp/again.session"
expect_err_has "a line read again fails with its own line" \
    "again.session:4: read 0x800048: expected 0x0000000000000005, got 0x0000000000000000" \
    $KOHAKU run "$MAP" "$tmp/again.session"

printf '# ok\nrun 3\nwrite PROG_LEN\n' > "$tmp/bad.session"
expect_rc "a malformed line exits 1" 1 $KOHAKU run "$MAP" "$tmp/bad.session"
expect_err_has "it names its line" "bad.session:3: usage: write ADDR VALUE" $KOHAKU run "$MAP" "$tmp/bad.session"

printf 'read 0x40000000\n' > "$tmp/unmapped.session"
expect_err_has "an unmapped access names the address" "unmapped.session:1: host address 0x40000000 is unmapped" \
    $KOHAKU run "$MAP" "$tmp/unmapped.session"

printf 'write PROG_LEN 1\nwrite PROG_CRED 0\nwrite PROG_KICK 1\npoll SIG_DONE 1\n' > "$tmp/stall.session"
expect_rc "a stall exits 1" 1 $KOHAKU run "$MAP" "$tmp/stall.session"
expect_err_has "a stall says which node, which counter and what to do" "PROG_CRED is 0" \
    $KOHAKU run "$MAP" "$tmp/stall.session"

# the zero-time host lands 17 TX_KICK beats in one cycle: each saw TX (16
# deep) not full, so the 17th finds no room; it is dropped and said, and
# the run goes on (it once aborted in the FIFO)
for i in $(seq 17); do echo 'write TX_KICK 1'; done > "$tmp/kicks.session"
echo 'read RX_STATUS' >> "$tmp/kicks.session"
expect_rc "17 kicks in one cycle: no abort" 0 $KOHAKU run default "$tmp/kicks.session" --profile host-zero --stats "$tmp/k.json"
expect_err_has "the dropped kick is said, with the depth" "TX_KICK mailbox flit dropped: TX FIFO full (tx_depth 16)" \
    $KOHAKU run default "$tmp/kicks.session" --profile host-zero
expect_out "16 sent, 1 lost" "yes" sh -c "grep -q '\"mailbox_sent\": 16, \"mailbox_lost\": 1' '$tmp/k.json' && echo yes"

expect_rc "a refused map exits 1" 1 $KOHAKU run /nonexistent.txt examples/saxpy.session
expect_rc "--stats writes a file" 0 $KOHAKU run "$MAP" examples/saxpy.session --stats "$tmp/s.json" --trace "$tmp/t.json"
expect_out "the stats name the orchestrator" "yes" sh -c "grep -q '\"orch(0,1)\"' '$tmp/s.json' && echo yes"

expect_rc "replay saxpy passes the recorded vectors" 0 $KOHAKU replay saxpy "$KH_DATA/vectors/saxpy.jsonl"
expect_out "replay saxpy closing line" "4 passed, 0 failed" sh -c "$KOHAKU replay saxpy '$KH_DATA/vectors/saxpy.jsonl' | tail -n 1"
head -n 1 "$KH_DATA/vectors/saxpy.jsonl" | sed 's/"sig_done": 1/"sig_done": 7/' > "$tmp/bad.jsonl"
expect_rc "a differing case fails the replay" 1 $KOHAKU replay saxpy "$tmp/bad.jsonl"
expect_out "and names what differs" "case 0: SIG_DONE: expected 7, got 1" sh -c "$KOHAKU replay saxpy '$tmp/bad.jsonl' | head -n 1"
finish
