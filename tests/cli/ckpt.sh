# Checkpoints (docs/checkpoint.md): a session saved at a point and resumed
# in a new process gives the run that never stopped (stdout, stderr, the
# cycle count, the statistics); save, restore, save gives the same file;
# every refusal names what differs or where the file breaks, exit 1.
. tests/cli/lib.inc
plan 65
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
map=$KH_DATA/maps/saxpy_map.txt
# variant SESSION LINE CYCLES NAME: SESSION with `save` after LINE (and
# `run CYCLES` before it), its data files named from its own folder
variant() {
    dir=$(cd "$(dirname "$1")" && pwd)
    awk -v at="$2" -v n="$3" -v f="$tmp/$4.ck" -v d="$dir" \
        '{ if ($1 == "upload" && $3 == "file") $4 = d "/" $4; print }
         NR == at { if (n > 0) print "run " n; print "save " f }' "$1" > "$tmp/$4.session"
}
# stats without the run's name (it names the machine or the file)
strip() { sed 's/"name":"run [^"]*"/"name":"run"/' "$1"; }
# resume NAME MACHINE [OPTIONS]: the whole run vs the run resumed from
# NAME's checkpoint: the resumed run prints what the whole one printed
# after the save, on standard output and standard error, and the same
# statistics
resume() {
    v=$1 m=$2
    shift 2
    "$KOHAKU" run "$m" "$tmp/$v.session" "$@" --stats "$tmp/$v.full.json" > "$tmp/$v.full.out" 2> "$tmp/$v.full.err" \
        || return 1
    "$KOHAKU" run --restore "$tmp/$v.ck" "$tmp/$v.session" --stats "$tmp/$v.rest.json" > "$tmp/$v.rest.out" \
        2> "$tmp/$v.rest.err" || return 1
    tail -n "$(wc -l < "$tmp/$v.rest.out")" "$tmp/$v.full.out" | cmp -s - "$tmp/$v.rest.out" || return 1
    # what the whole run wrote to standard error after the save (a warning
    # logged before it is not logged again)
    n=$(wc -l < "$tmp/$v.rest.err")
    if [ "$n" -gt 0 ]; then tail -n "$n" "$tmp/$v.full.err" | cmp -s - "$tmp/$v.rest.err" || return 1; fi
    strip "$tmp/$v.full.json" > "$tmp/a.json"
    strip "$tmp/$v.rest.json" > "$tmp/b.json"
    cmp -s "$tmp/a.json" "$tmp/b.json"
}
variant examples/saxpy.session 23 0 uploaded      # operands in DRAM, nothing kicked
variant examples/saxpy.session 35 0 kicked        # the kick written, not yet acted
variant examples/saxpy.session 35 40 burst        # the unit mid-burst: reads in flight
variant examples/saxpy.session 35 90 writing      # results being written back
variant examples/saxpy.session 39 0 done          # after the poll
for v in uploaded kicked burst writing done; do
    expect_rc "saxpy resumed from $v: the same outputs, cycles and stats" 0 resume $v "$map"
done
# the default machine: the vector example and upstream's recorded GEMM
# session (its FILLs, GEMMs and drains on the clusters)
variant examples/vector_scale.session 62 60 vec_mid
expect_rc "the vector example resumed mid-run" 0 resume vec_mid "$KH_DATA/maps/mesh_1x1_min.txt"
U=tests/data/upstream-7703ee8/matmul_32x64x32.session
for at in 9 120 300 404 470; do
    variant $U $at 0 up$at
    expect_rc "upstream's matmul session resumed after line $at" 0 resume up$at default --param read_quant=1
done
# two meshes joined by their interlinks: the mover's remote copy in flight,
# flits crossing (examples/two_mesh.session)
for at in 31 37 56; do
    variant examples/two_mesh.session $at 0 two$at
    expect_rc "the two-mesh example resumed after line $at" 0 resume two$at examples/two_mesh.machine
done
variant examples/two_mesh.session 31 25 twomid
expect_rc "the two-mesh example resumed mid-copy" 0 resume twomid examples/two_mesh.machine
# V2 vector cores (vec_core_v2=1): the matmul's drain feeding the V2 silu
# (examples/vector2_silu.session), saved with the matmul mid-run and with
# the V2 core at three points of its program: fills, math, drains
V2M=$KH_DATA/maps/mesh_1x1_2+2.txt
for p in 13:400 49:960 49:1150 49:1310; do
    variant examples/vector2_silu.session "${p%:*}" "${p#*:}" v2_${p%:*}_${p#*:}
    expect_rc "the V2 silu example resumed ${p#*:} cycles after line ${p%:*}" 0 \
        resume v2_${p%:*}_${p#*:} "$V2M" --param vec_core_v2=1
done
# the legacy mx_matmul_cu (examples/mxm.session): saved before the first
# kick, 20, 45, 120 and 260 cycles after it (unit (1,0)'s five instructions
# take about 520), and 60 cycles into unit (1,2)'s program
for p in 72:0 73:20 73:45 73:120 73:260 87:60; do
    variant examples/mxm.session "${p%:*}" "${p#*:}" mxm_${p%:*}_${p#*:}
    expect_rc "the mxm example resumed ${p#*:} cycles after line ${p%:*}" 0 \
        resume mxm_${p%:*}_${p#*:} examples/mxm_map.txt
done
variant $U 404 300 upmid
expect_rc "upstream's matmul session resumed 300 cycles into its run" 0 resume upmid default --param read_quant=1
# save, restore, save: the second save of a resumed run is the bytes of
# the run that never stopped
printf 'run 40\nsave %s\nsave %s\n' "$tmp/s1.ck" "$tmp/s2.ck" > "$tmp/again.session"
"$KOHAKU" run "$map" "$tmp/again.session" > /dev/null 2>&1
mv "$tmp/s2.ck" "$tmp/s2.first"
expect_rc "restore then save" 0 "$KOHAKU" run --restore "$tmp/s1.ck" "$tmp/again.session"
expect_rc "save, restore, save gives the same file" 0 cmp "$tmp/s2.first" "$tmp/s2.ck"
# the same with a V2 core mid-program
variant examples/vector2_silu.session 49 1150 v2again
sed "/^save /a save $tmp/v2s2.ck" "$tmp/v2again.session" > "$tmp/v2twice.session"
"$KOHAKU" run "$V2M" "$tmp/v2twice.session" --param vec_core_v2=1 > /dev/null 2>&1
mv "$tmp/v2s2.ck" "$tmp/v2s2.first"
expect_rc "restore then save, V2" 0 "$KOHAKU" run --restore "$tmp/v2again.ck" "$tmp/v2twice.session"
expect_rc "save, restore, save gives the same file, V2" 0 cmp "$tmp/v2s2.first" "$tmp/v2s2.ck"
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
# the RV64 core as the node's processor (cpu_rv64 = 1): examples/rv64/node_mover.c
# saved at host polls before, during and after its mover copy (its core runs
# from machine cycle 12.4 K to 33.8 K); the resumed run prints what the run
# that never stopped printed after the save: the console line, the exit,
# instret and cycle counts
prog=$(dirname "$KOHAKU")/rv64/node_mover.elf
[ -f "$prog" ] || skip_begin "$prog not built (make rv64 builds it with riscv64-unknown-elf-gcc)" gcc-riscv64-unknown-elf
"$KOHAKU" cpu run --isa rv64 --node "$prog" > "$tmp/r64.full" 2>&1
for at in 15000 22000 30000; do
    expect_rc "RV64 node program: saving at cycle $at changes nothing" 0 sh -c \
        "\"$KOHAKU\" cpu run --isa rv64 --node --save-at $at \"$tmp/r64.ck\" \"$prog\" 2>&1 | cmp -s - \"$tmp/r64.full\""
    "$KOHAKU" cpu run --isa rv64 --node --restore "$tmp/r64.ck" > "$tmp/r64.rest" 2>&1
    expect_rc "RV64 node program resumed from cycle $at: the same lines, exit and counts" 0 sh -c \
        "tail -n \$(wc -l < \"$tmp/r64.rest\") \"$tmp/r64.full\" | cmp -s - \"$tmp/r64.rest\""
done
expect_out "the resumed run's last line" "$(tail -n 1 "$tmp/r64.full")" tail -n 1 "$tmp/r64.rest"
expect_err_has "--save-at past the end: nothing saved" "before --save-at 90000000: nothing saved" \
    "$KOHAKU" cpu run --isa rv64 --node --save-at 90000000 "$tmp/late.ck" "$prog"
# a session (cpu64) on two meshes with RV64 units (r64): mesh 0's complex
# copies with the mover while mesh 1's loads and boots its unit through the
# mailbox; saved with both running, the unit's program mid-run, and later
r64=$(cd "$(dirname "$prog")" 2>/dev/null && pwd)
printf 'xxx r64 vec xxx\nmag mat mat xxx\nmag mat mat xxx\nxxx mat vec xxx\n' > "$tmp/r64map.txt"
printf 'machine\nmesh r64map.txt\nmesh r64map.txt\nparam cpu_rv64=1\n' > "$tmp/r64two.machine"
wait_r64() { printf 'poll CTRL+0x8018 0x8 mask 0x8 limit 1000000\nread CTRL+0x8020 0\nread CTRL+0x8038\nread CTRL+0x8030\n'; }
{ echo "cpu64 $r64/node_mover.elf"; echo "mesh 1"; echo "cpu64 $r64/node_kick_pe.elf"; wait_r64; echo "mesh 0"; wait_r64; } \
    > "$tmp/r64two.session"
for n in 150 300 6000; do
    variant "$tmp/r64two.session" 3 $n r64two$n
    expect_rc "two meshes' RV64 programs resumed $n cycles after the second boot" 0 resume r64two$n "$tmp/r64two.machine"
done
skip_end
expect_err_has "--restore of a session's checkpoint is refused" "was not saved by --save-at" \
    "$KOHAKU" cpu run --isa rv64 --node --restore "$tmp/burst.ck"
# the live flit checker on (--check): saved with it, resumed with it, the
# restored checker goes on from the stream state it had (bursts and writes
# half delivered, instructions outstanding): the same findings (none) and
# the same count line as the run that never stopped
resume_check() {
    v=$1 m=$2
    shift 2
    "$KOHAKU" run "$m" "$tmp/$v.session" --check "$@" > "$tmp/$v.full.out" 2> "$tmp/$v.full.err"
    a=$?
    "$KOHAKU" run --restore "$tmp/$v.ck" "$tmp/$v.session" --check > "$tmp/$v.rest.out" 2> "$tmp/$v.rest.err"
    [ $? = $a ] || return 1
    tail -n "$(wc -l < "$tmp/$v.rest.out")" "$tmp/$v.full.out" | cmp -s - "$tmp/$v.rest.out" || return 1
    tail -n "$(wc -l < "$tmp/$v.rest.err")" "$tmp/$v.full.err" | cmp -s - "$tmp/$v.rest.err"
}
variant examples/saxpy.session 35 40 ckburst
variant examples/saxpy.session 35 90 ckwriting
variant $U 404 300 ckup
variant examples/two_mesh.session 31 25 cktwo
expect_rc "--check: saxpy resumed mid-burst, checked as the whole run" 0 resume_check ckburst "$map"
expect_rc "--check: saxpy resumed during the write-back" 0 resume_check ckwriting "$map"
expect_rc "--check: upstream's matmul resumed mid-run" 0 resume_check ckup default --param read_quant=1
expect_rc "--check: the two-mesh example resumed mid-copy" 0 resume_check cktwo examples/two_mesh.machine
expect_rc "... its count line goes on from the save" 0 \
    grep -q "check: 30 flits sent, 30 delivered: 0 violations" "$tmp/ckburst.rest.err"
# upstream's session has three V38 findings before the save point: the
# resumed run's count line counts them (the same line, exit 1 both)
expect_rc "... findings before the save are counted" 0 \
    grep -q "check: 280 flits sent, 272 delivered: 3 violations, 4 warnings" "$tmp/ckup.rest.err"
# KOHAKU_CHECK (the test sweep's switch): saved and resumed with it
KOHAKU_CHECK=1 "$KOHAKU" run "$map" "$tmp/ckwriting.session" > "$tmp/env.full.out" 2> "$tmp/env.full.err"
KOHAKU_CHECK=1 "$KOHAKU" run --restore "$tmp/ckwriting.ck" "$tmp/ckwriting.session" > "$tmp/env.rest.out" \
    2> "$tmp/env.rest.err"
expect_rc "KOHAKU_CHECK: resumed, the same output" 0 sh -c \
    "tail -n \$(wc -l < '$tmp/env.rest.out') '$tmp/env.full.out' | cmp -s - '$tmp/env.rest.out'"
expect_rc "KOHAKU_CHECK: no finding" 0 test ! -s "$tmp/env.rest.err"
# a bad flit after the restore is still caught (a CU_SIGNAL code 0x02 through
# the raw mailbox, flits.md §9 V15; as tests/cli/check.sh)
{ cat "$tmp/ckburst.session"; printf 'flit TX_FLIT(0) 010162180200000000000000000000000000000000000000000000000000000000000000\nwrite TX_KICK 1\nidle\n'; } \
    > "$tmp/ckbad.session"
"$KOHAKU" run "$map" "$tmp/ckbad.session" --check > /dev/null 2>&1
expect_rc "--check: a bad flit after the restore exits 1" 1 \
    "$KOHAKU" run --restore "$tmp/ckburst.ck" "$tmp/ckbad.session" --check
expect_err_has "... named as the whole run names it" "sent by the orchestrator's mailbox: V15 CU_SIGNAL code=0x02" \
    "$KOHAKU" run --restore "$tmp/ckburst.ck" "$tmp/ckbad.session" --check
# a checkpoint saved without the checker cannot resume with it: its stream
# state (what is due, what is outstanding) is not in the file (saved
# without KOHAKU_CHECK too, whatever the sweep sets)
variant examples/saxpy.session 35 40 nock
env -u KOHAKU_CHECK "$KOHAKU" run "$map" "$tmp/nock.session" > /dev/null 2>&1
expect_err_has "--check on a file saved without it: refused" "was saved without the flit checker" \
    env -u KOHAKU_CHECK "$KOHAKU" run --restore "$tmp/nock.ck" "$tmp/nock.session" --check
expect_rc "... exit 1" 1 env -u KOHAKU_CHECK "$KOHAKU" run --restore "$tmp/nock.ck" "$tmp/nock.session" --check
expect_err_has "KOHAKU_CHECK on a file saved without it: refused" "saved without it" \
    env KOHAKU_CHECK=1 "$KOHAKU" run --restore "$tmp/nock.ck" "$tmp/nock.session"
# refusals, exit 1, naming what differs or where
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
