# Bad input found by trying the command line as an adversary would
# (issue 14): nothing hangs, nothing grows without bound, nothing wrong is
# taken silently, and every refusal says what and why, with the exit status
# of docs/exit-status.md. Each block fails without its fix.
. tests/cli/lib.inc
unset KOHAKU_CHECK
MAP="$KH_DATA/maps/saxpy_map.txt"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
TO="timeout 20"
run_s() { # run_s NAME 'session text' [options]: the session saved as $T/NAME.s, run on MAP
    n=$1; shift
    printf '%s\n' "$1" > "$T/$n.s"
    shift
    $TO "$KOHAKU" run "$MAP" "$T/$n.s" "$@"
}

# --- upload: a device, a pipe or a huge file is refused, not read without end
expect_rc "upload of /dev/zero is refused at once" 1 run_s zero 'upload DRAM(0) file /dev/zero'
expect_err_has "... as no regular file" "file '/dev/zero' is not a regular file" run_s zero 'upload DRAM(0) file /dev/zero'
mkfifo "$T/pipe"
expect_rc "upload of a named pipe is refused, not waited on" 1 run_s fifo "upload DRAM(0) file $T/pipe"
truncate -s 17M "$T/big.bin"
expect_err_has "a data operand holds at most 16 MiB, as a dump" "holds at most 16777216" \
    run_s big "upload DRAM(0) file $T/big.bin"

expect_err_has "a device as the machine is refused, not read without end" "'/dev/zero' is larger than 256 MiB" \
    $TO $KOHAKU mesh /dev/zero
expect_err_has "... and as the session" "'/dev/zero' is larger than 256 MiB" $TO $KOHAKU run "$MAP" /dev/zero

# --- the clock: a run that would wrap it is refused
expect_rc "run 2^64-1 is refused" 1 run_s wrap 'run 0xffffffffffffffff'
expect_err_has "... naming the clock's end" "past the session clock's end, cycle 2^62" run_s wrap 'run 0xffffffffffffffff'
expect_err_has "two runs that together pass the end are refused at the second" \
    "r2.s:2: run: the clock would pass the session clock's end" run_s r2 "$(printf 'run 0x3fffffffffffffff\nrun 2')"
expect_rc "a limit past the end is refused" 1 run_s lim 'idle limit 0xffffffffffffffff'

# --- session arithmetic does not wrap
expect_err_has "0-1 is refused" "the difference is below 0" run_s sub 'write 0-1 5'
expect_err_has "a product past 2^64 is refused" "the product does not fit 64 bits" \
    run_s mul 'write DRAM(0) 0x100000000*0x100000000'
expect_err_has "a sum past 2^64 is refused" "the sum does not fit 64 bits" run_s add 'write DRAM(0) 0xffffffffffffffff+1'
expect_out "arithmetic inside the range is kept" "0x10000000000 = 0x0000000000000006" \
    sh -c "printf 'write DRAM(0) 2*5-4\nread DRAM(0)\n' > $T/ok.s && $KOHAKU run $MAP $T/ok.s | head -n 1"

# --- the same option twice is refused, not "the last one wins"
expect_err_has "mask twice" "'mask' is given twice" run_s m2 'poll STATUS 0 mask 0 mask 1'
expect_err_has "limit twice" "'limit' is given twice" run_s l2 'idle limit 5 limit 6'
P=0000000000000000000000000000000000000000000000000000000000000000
expect_err_has "stage txn twice" "stage: txn is given twice" run_s t2 "stage 0 txn=1 txn=2 payload=$P"
expect_err_has "stage payload twice" "stage: payload is given twice" run_s p2 "stage 0 payload=$P payload=$P"

# --- what only the machine can tell is checked before anything runs
expect_err_has "stage 128 on 128 slots is refused" "stage 128: the staging RAM has slots 0..127" \
    run_s st 'stage 128 payload='$P
expect_rc "... and 150 is taken where there are 200" 0 run_s st 'stage 150 payload='$P --param stage_flits=200
expect_err_has "mesh 1 on a one-mesh machine is refused" "mesh 1: this machine has 1 mesh (0..0)" \
    run_s m1 "$(printf 'mesh 1\nwrite DRAM(0) 1')"
expect_out "... before the first command runs" "" \
    sh -c "printf 'read DRAM(0)\nmesh 1\n' > $T/m1b.s && $KOHAKU run $MAP $T/m1b.s 2>/dev/null"

# --- idle is not ok while a read waits for an answer that never comes: a
# plain read of another mesh's staging (memory.md §7) sent from staging slot 0
F=$("$KOHAKU" flit encode mem_rd_req addr=0x9000000000 txn=1 last=1)
LOST="flit STAGE(0) $F
write PROG_BASE 0
write PROG_LEN 1
write PROG_DST XY(0,1)
write PROG_CRED 4
write PROG_KICK 1
idle"
expect_rc "idle after an unanswerable read fails" 1 run_s lost "$LOST"
expect_err_has "... naming the read" "will never be answered" run_s lost "$LOST"

# --- address bit 38 (reserved, MUST be 0) does not alias into DRAM from the host
expect_err_has "a host write with bit 38 set is refused" "reserved bit 38 is set" \
    run_s b38 'write DRAM(0)+0x4000000000 7'

F38=$("$KOHAKU" flit encode mem_rd_req addr=0x4000000000 txn=1 last=1 2>/dev/null)
expect_err_has "a NoC read with bit 38 set is reported as it aliases" "has its reserved bit 38 set (MUST be 0" \
    run_s n38 "$(printf 'flit STAGE(0) %s\nwrite PROG_BASE 0\nwrite PROG_LEN 1\nwrite PROG_DST XY(0,1)\nwrite PROG_CRED 4\nwrite PROG_KICK 1\nidle' "$F38")"

# --- a CU_INST with rsvd != 0 runs, and says so without --check
FR=$("$KOHAKU" flit encode cu_inst rsvd=1 txn=0x40 last=1 payload=0100004040000000000000000000100000000000000080000000000000000000 2>/dev/null)
expect_err_has "a CU_INST with rsvd=1 is reported" "has rsvd=1: a CU_INST carries rsvd = 0" \
    run_s rsv "$(printf 'flit STAGE(0) %s\nwrite PROG_BASE 0\nwrite PROG_LEN 1\nwrite PROG_DST XY(1,0)\nwrite PROG_CRED 4\nwrite PROG_KICK 1\nidle' "$FR")"

# --- asm --unit cluster: words upstream's encoder refuses are written, with
# a warning naming its rule (asm(dis(w)) == w must hold for every word)
for w in 'FILL n=300' 'DRAIN n=1 dfin=0x11 dack_x=1' 'DRAIN n=1 dfin=0x11 dnode=1' 'FILL n=1 addr=0x4000000000'; do
    expect_rc "asm '$w' is still written" 0 sh -c "echo '$w' | $KOHAKU asm --unit cluster"
done
expect_err_has "FILL n=300 names the encoder's rule" "FILL n=300 is above 255: upstream's encoder (compiler/kohakutpu/isa/cluster.py)" \
    sh -c "echo 'FILL n=300' | $KOHAKU asm --unit cluster"
expect_err_has "a remote DRAIN without dnode" "DRAIN with dfin=0x11 and dnode = 0: upstream's encoder" \
    sh -c "echo 'DRAIN n=1 dfin=0x11 dack_x=1' | $KOHAKU asm --unit cluster"
expect_err_has "a remote DRAIN without an ack destination" "and dack_x, dack_y = 0: upstream's encoder" \
    sh -c "echo 'DRAIN n=1 dfin=0x11 dnode=1' | $KOHAKU asm --unit cluster"
expect_err_has "address bit 38" "addr_rsv38=1 is reserved and must be 0" \
    sh -c "echo 'FILL n=1 addr=0x4000000000' | $KOHAKU asm --unit cluster"
expect_out "a word the encoder takes draws no warning" "" \
    sh -c "echo 'DRAIN n=1 dfin=0x11 dnode=1 dack_x=2' | $KOHAKU asm --unit cluster 2>&1 >/dev/null"

# --- run-time errors carry the subcommand's prefix
expect_err_has "a run-time refusal says kohaku run:" "kohaku run: $T/una.s:1: host address 0xffff" \
    run_s una 'write 0xffff 1'

# --- map and machine readers: a NUL byte is refused, not an end of file
printf 'xxx sax xxx\nmag nul nul\nxxx sax xxx\n\0junk\n' > "$T/nul_end.txt"
printf 'xxx sax xxx\nmag nul nul\0\nxxx sax xxx\n' > "$T/nul_mid.txt"
printf 'machine\nmesh %s\0\n' "$MAP" > "$T/nul.machine"
for f in nul_end.txt nul_mid.txt nul.machine; do
    expect_err_has "run: $f is refused for its NUL" "is not a text file (it holds a NUL byte)" \
        $KOHAKU run "$T/$f" "$T/ok.s"
    expect_err_has "mesh: $f is refused for its NUL" "is not a text file (it holds a NUL byte)" $KOHAKU mesh "$T/$f"
done

# --- a machine file where a map picture is wanted, and one without its header
printf 'machine\nmesh %s\n' "$MAP" > "$T/x.machine"
expect_err_has "bench noc --map x.machine names the machine file" "'machine' starts a machine file" \
    $KOHAKU bench noc --map "$T/x.machine" --cycles 10
printf 'mesh %s\n' "$MAP" > "$T/nohdr.machine"
expect_err_has "a machine file starting with mesh names the missing header" "a machine file begins with the line 'machine'" \
    $KOHAKU run "$T/nohdr.machine" "$T/ok.s"

# --- bench noc: tiny rates, overflowing numbers, missing and repeated values
expect_out "--rate 1e-300 offers nothing" "  delivered 0.0000 flits/cycle/endpoint (0.000 flits/cycle), mean latency 0.00 cycles (max 0)" \
    sh -c "$TO $KOHAKU bench noc --map $MAP --rate 1e-300 --cycles 100000 | sed -n 2p"
expect_rc "--rate 1e-10 over 2^40 cycles ends at once" 0 $TO "$KOHAKU" bench noc --map "$MAP" --rate 1e-10 --cycles 0x10000000000
expect_err_has "--cycles overflow is named as such" "--cycles 99999999999999999999 is above" \
    $KOHAKU bench noc --map "$MAP" --cycles 99999999999999999999
expect_rc "... exit 1 (a refused value)" 1 $KOHAKU bench noc --map "$MAP" --cycles 99999999999999999999
expect_err_has "--seed overflow is named as such" "--seed 99999999999999999999 is above" \
    $KOHAKU bench noc --map "$MAP" --seed 99999999999999999999
expect_err_has "--seed not a number" "--seed x is not a number" $KOHAKU bench noc --map "$MAP" --seed x
expect_err_has "a missing value is named as missing" "--rate needs a value" $KOHAKU bench noc --map "$MAP" --rate
expect_err_has "--rate twice" "--rate is given twice" $KOHAKU bench noc --map "$MAP" --rate 0.1 --rate 0.2

# --- gemm: a GEMM too large is refused at once, the limits are in the help
expect_rc "gemm 65536 65536 1 is refused at once" 1 $TO $KOHAKU gemm 65536 65536 1
expect_err_has "... naming the host buffers" "needs 48.0 GiB of host buffers" $TO $KOHAKU gemm 65536 65536 1
expect_rc "gemm 65536^3 too" 1 $TO $KOHAKU gemm 65536 65536 65536
expect_err_has "gemm --seed overflow" "--seed 99999999999999999999 does not fit 64 bits" \
    $KOHAKU gemm 8 8 8 --seed 99999999999999999999
expect_err_has "bench gemm: a dimension past 64 bits is refused, not wrapped" "dimension 99999999999999999999 must be 1..65536" \
    $KOHAKU bench gemm 99999999999999999999 8 8
expect_rc "bench gemm --seconds x is a refused value" 1 $KOHAKU bench gemm --seconds x
for sub in gemm mesh quant demo; do
    expect_out "$sub --help has the exit-status line" "yes" \
        sh -c "$KOHAKU $sub --help | grep -q 'Exit status: 0' && echo yes"
done
expect_out "gemm --help has its limits" "yes" sh -c "$KOHAKU gemm --help | grep -q 'at most 2 GiB' && echo yes"

# --- numbers: overflow is not "not a number"
expect_err_has "a field value past 64 bits" "txn=99999999999999999999 does not fit 8 bits" \
    $KOHAKU flit encode mem_wr_data txn=99999999999999999999
expect_err_has "a --param value past 64 bits" "dram_lat: 99999999999999999999 does not fit 64 bits" \
    $KOHAKU run "$MAP" "$T/ok.s" --param dram_lat=99999999999999999999

# --- flit: a short wide value is refused, 0 and all digits are taken
expect_err_has "data=1234 is refused" "data=1234 has 4 hex digits: the field is 256 bits" \
    $KOHAKU flit encode mem_wr_data data=1234
expect_rc "data=0 is taken" 0 $KOHAKU flit encode mem_wr_data data=0

# --- missing option values are named as missing
expect_err_has "asm --unit alone" "kohaku asm: --unit needs a value" $KOHAKU asm --unit
expect_err_has "dis --unit alone" "kohaku dis: --unit needs a value" $KOHAKU dis --unit
expect_err_has "params --profile alone" "kohaku params: --profile needs a value" $KOHAKU params --profile
expect_rc "... a usage error" 2 $KOHAKU params --profile
expect_err_has "asm --unit twice" "kohaku asm: --unit is given twice" $KOHAKU asm --unit saxpy --unit cluster

# --- exit statuses: the same refused value gives the same status everywhere
printf 'machine\nmesh %s\nparam dram_lat=2000000\n' "$MAP" > "$T/lat.machine"
expect_rc "a machine file's out-of-range param exits 1" 1 $KOHAKU run "$T/lat.machine" "$T/ok.s"
expect_rc "the same value as --param exits 1" 1 $KOHAKU run "$MAP" "$T/ok.s" --param dram_lat=2000000
expect_rc "params --profile bogus exits 1" 1 $KOHAKU params --profile bogus
expect_rc "run --profile bogus exits 1" 1 $KOHAKU run "$MAP" "$T/ok.s" --profile bogus
expect_rc "an unknown option exits 2" 2 $KOHAKU run "$MAP" "$T/ok.s" --bogus

# --- long and non-ASCII arguments: echoed bounded, never half a character
long=$(head -c 100000 /dev/zero | tr '\0' 7)
len=$($KOHAKU flit encode mem_wr_data "txn=$long" 2>&1 | wc -c)
expect_out "a 100,000-digit value is echoed cut" "yes" sh -c "[ $len -lt 400 ] && echo yes"
expect_err_has "... saying how long it was" "... (100000 bytes)" $KOHAKU flit encode mem_wr_data "txn=$long"
len=$(printf 'write %s 1\n' "$long" > "$T/long.s"; $KOHAKU run "$MAP" "$T/long.s" 2>&1 | wc -c)
expect_out "a 100,000-digit session number is echoed cut" "yes" sh -c "[ $len -lt 600 ] && echo yes"
e=$(printf '\303\251%.0s' $(seq 1 40))
expect_out "a cut never splits a UTF-8 character" "yes" \
    sh -c "$KOHAKU flit encode mem_wr_data 'txn=$e' 2>&1 | iconv -f UTF-8 -t UTF-8 >/dev/null && echo yes"
expect_out "a bad hex byte is named, not printed in half" "yes" \
    sh -c "$KOHAKU quant 'é' 2>&1 | grep -q 'non-ASCII byte 0xc3' && echo yes"
finish
