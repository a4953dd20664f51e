# Checkpoints (docs/checkpoint.md): a session saved at a point and resumed
# in a new process gives the run that never stopped (stdout, stderr, the
# cycle count, the statistics); save, restore, save gives the same file;
# every refusal names what differs or where the file breaks, exit 1.
. tests/cli/lib.inc
plan 19
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
map=$KH_DATA/maps/saxpy_map.txt
# The saxpy example with `save` after line $1 (and `run $2` before it).
variant() {
    awk -v at="$1" -v n="$2" -v f="$tmp/$3.ck" '{print} NR == at {if (n > 0) print "run " n; print "save " f}' \
        examples/saxpy.session > "$tmp/$3.session"
}
# stats without the run's name (it names the machine or the file)
strip() { sed 's/"name":"run [^"]*"/"name":"run"/' "$1"; }
# resume NAME: the whole run vs the run resumed from NAME's checkpoint
resume() {
    "$KOHAKU" run "$map" "$tmp/$1.session" --stats "$tmp/$1.full.json" > "$tmp/$1.full.out" 2> "$tmp/$1.full.err"
    "$KOHAKU" run --restore "$tmp/$1.ck" "$tmp/$1.session" --stats "$tmp/$1.rest.json" > "$tmp/$1.rest.out" \
        2> "$tmp/$1.rest.err" || return 1
    # the resumed run prints what the whole one printed after the save
    tail -n "$(wc -l < "$tmp/$1.rest.out")" "$tmp/$1.full.out" | cmp -s - "$tmp/$1.rest.out" || return 1
    cmp -s "$tmp/$1.full.err" "$tmp/$1.rest.err" || return 1
    strip "$tmp/$1.full.json" > "$tmp/a.json"
    strip "$tmp/$1.rest.json" > "$tmp/b.json"
    cmp -s "$tmp/a.json" "$tmp/b.json"
}
variant 23 0 uploaded      # operands in DRAM, nothing kicked
variant 35 0 kicked        # the kick written, not yet acted
variant 35 40 burst        # the unit mid-burst: reads in flight
variant 35 90 writing      # results being written back
variant 39 0 done          # after the poll
for v in uploaded kicked burst writing done; do
    expect_rc "saxpy resumed from $v: the same outputs, cycles and stats" 0 resume $v
done
# save, restore, save: the second save of a resumed run is the bytes of
# the run that never stopped
printf 'run 40\nsave %s\nsave %s\n' "$tmp/s1.ck" "$tmp/s2.ck" > "$tmp/again.session"
"$KOHAKU" run "$map" "$tmp/again.session" > /dev/null 2>&1
mv "$tmp/s2.ck" "$tmp/s2.first"
expect_rc "restore then save" 0 "$KOHAKU" run --restore "$tmp/s1.ck" "$tmp/again.session"
expect_rc "save, restore, save gives the same file" 0 cmp "$tmp/s2.first" "$tmp/s2.ck"
# the RV32 control processor running: saved mid-program
cat > "$tmp/cpu.session" <<EOS
run 50
save $tmp/cpu.ck
run 300
read NODE_STATUS(1,0)
EOS
expect_rc "a session saves on the saxpy map" 0 "$KOHAKU" run "$map" "$tmp/cpu.session"
"$KOHAKU" run "$map" "$tmp/cpu.session" > "$tmp/cpu.full" 2>&1
"$KOHAKU" run --restore "$tmp/cpu.ck" "$tmp/cpu.session" > "$tmp/cpu.rest" 2>&1
expect_rc "resumed: the same read and cycle" 0 cmp "$tmp/cpu.full" "$tmp/cpu.rest"
# refusals, exit 1, naming what differs or where
expect_err_has "a component not covered yet is named" "has no checkpoint state yet" \
    "$KOHAKU" run default "$tmp/again.session"
expect_rc "... exit 1" 1 "$KOHAKU" run default "$tmp/again.session"
expect_err_has "another machine: the parameter named" "parameter router_fifo_depth is 512 in the file, 64 here" \
    "$KOHAKU" run --restore "$tmp/burst.ck" "$map" "$tmp/burst.session" --param router_fifo_depth=64
cp "$tmp/burst.ck" "$tmp/ver.ck"
printf '\002' | dd of="$tmp/ver.ck" bs=1 seek=8 conv=notrunc 2>/dev/null
expect_err_has "another format version" "checkpoint format version 2: this build reads version 1" \
    "$KOHAKU" run --restore "$tmp/ver.ck" "$tmp/burst.session"
head -c 30000 "$tmp/burst.ck" > "$tmp/short.ck"
expect_err_has "a truncated file: where" "the file is truncated" \
    "$KOHAKU" run --restore "$tmp/short.ck" "$tmp/burst.session"
expect_rc "... exit 1" 1 "$KOHAKU" run --restore "$tmp/short.ck" "$tmp/burst.session"
cp "$tmp/burst.ck" "$tmp/bad.ck"
printf 'X' | dd of="$tmp/bad.ck" bs=1 seek=20000 conv=notrunc 2>/dev/null
expect_err_has "a corrupted byte: its section named" "the checksum does not match" \
    "$KOHAKU" run --restore "$tmp/bad.ck" "$tmp/burst.session"
printf 'not a checkpoint at all\n' > "$tmp/junk.ck"
expect_err_has "not a checkpoint" "not a kohaku checkpoint" "$KOHAKU" run --restore "$tmp/junk.ck" "$tmp/burst.session"
expect_err_has "another session: the save line named" "which this session does not have there" \
    "$KOHAKU" run --restore "$tmp/burst.ck" "$tmp/cpu.session"
expect_rc "no file: exit 1" 1 "$KOHAKU" run --restore "$tmp/none.ck" "$tmp/burst.session"
finish
