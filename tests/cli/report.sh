# The end-of-run report, the heat map, the trace's timelines and window,
# and progress lines (docs/report.md). The figures are checked against the
# stats JSON, the map picture and the full trace by an independent reader
# (report_check.py, Debian's python3 with its standard library).
. tests/cli/lib.inc
unset KOHAKU_CHECK KOHAKU_PROGRESS
PY=/usr/bin/python3
CHECK=tests/cli/report_check.py
MAP=data/maps/saxpy_map.txt
SES=examples/saxpy.session
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# each "ok"/"FAIL" line of the checker is one test
pycheck() {
    "$PY" "$CHECK" "$@" > "$tmp/py.out" 2>&1
    kh_pass=$((kh_pass + $(grep -c '^ok ' "$tmp/py.out")))
    f=$(grep -c -v '^ok ' "$tmp/py.out")
    [ "$f" -eq 0 ] || { kh_fail=$((kh_fail + f)); sed "s/^/FAIL $kh_name: /" "$tmp/py.out" | grep -v ': ok '; }
}

# The demo: report, stats and heat map of one run.
"$KOHAKU" demo > "$tmp/plain.txt" 2>&1
"$KOHAKU" demo --report --stats "$tmp/demo.json" --heatmap "$tmp/demo.svg" --trace "$tmp/demo-trace.json" \
    > "$tmp/demo.txt" 2>&1
expect_out "demo --report --stats --heatmap --trace succeeds" 0 echo $?
# counters and outputs change no cycle and no result: the demo's own lines are the same
expect_out "the demo prints the same with every output on" "$(cat "$tmp/plain.txt")" sed '/^report:/,$d' "$tmp/demo.txt"
sed -n '/^report:/,$p' "$tmp/demo.txt" > "$tmp/demo-report.txt"
pycheck report "$tmp/demo.json" "$tmp/demo-report.txt"
pycheck svg "$tmp/demo.json" data/maps/mesh_2x2_6+2.txt "$tmp/demo.svg"
pycheck timeline "$tmp/demo-trace.json"
expect_out "the demo is bound by the staging store" "  bound by: staging store" \
    sed -n 's/\(bound by: staging store\).*/\1/p' "$tmp/demo-report.txt"
expect_out "kohaku report STATS.json prints what --report printed" "$(cat "$tmp/demo-report.txt")" \
    "$KOHAKU" report "$tmp/demo.json"
"$KOHAKU" report "$tmp/demo.json" --heatmap "$tmp/again.svg" > /dev/null
expect_out "and draws the same heat map" "" cmp "$tmp/demo.svg" "$tmp/again.svg"

# A session: report and heat map of another map; replay reports each case.
"$KOHAKU" run "$MAP" $SES --report --stats "$tmp/sx.json" --heatmap "$tmp/sx.svg" > "$tmp/sx.txt"
sed -n '/^report:/,/^ok:/p' "$tmp/sx.txt" | sed '$d' > "$tmp/sx-report.txt"
pycheck report "$tmp/sx.json" "$tmp/sx-report.txt"
pycheck svg "$tmp/sx.json" "$MAP" "$tmp/sx.svg"
"$KOHAKU" replay saxpy data/vectors/saxpy.jsonl --stats "$tmp/rp.json" --report --heatmap "$tmp/rp.svg" > "$tmp/rp.txt"
"$PY" -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["cases"][-1]["stats"], open(sys.argv[2], "w"))' \
    "$tmp/rp.json" "$tmp/rp-last.json"
pycheck svg "$tmp/rp-last.json" "$MAP" "$tmp/rp.svg"
# The control processor busy in a session (a flat program: addi a0, x0, 5; ecall):
# its box in the (0,0) corner carries a busy share above 0.
printf '\023\005\120\000\163\000\000\000' > "$tmp/ecall.bin"
printf 'cpu %s\npoll NODE_STATUS(0,0) 0x0000000005000101\n' "$tmp/ecall.bin" > "$tmp/cpu.session"
"$KOHAKU" run default "$tmp/cpu.session" --stats "$tmp/cpu.json" --heatmap "$tmp/cpu.svg" > /dev/null
pycheck svg "$tmp/cpu.json" data/maps/mesh_2x2_6+2.txt "$tmp/cpu.svg"
expect_out "the processor's box shows it busy" "1" sh -c "grep -c 'class=\"processor\".*data-busy=\"0\.0[0-9]*[1-9]' \"$tmp/cpu.svg\""
expect_err_has "a unit bench has no mesh to draw" "no run section with a mesh layout" \
    "$KOHAKU" replay cluster data/vectors/cluster.jsonl --heatmap "$tmp/no.svg"
expect_out "replay --report: one report per case" "$(grep -o '{"case":' "$tmp/rp.json" | wc -l)" grep -c '^report: replay saxpy case ' "$tmp/rp.txt"
expect_out "replay's report is kohaku report's" "$(sed -n '/^report:/,$p' "$tmp/rp.txt")" "$KOHAKU" report "$tmp/rp.json"
expect_rc "quant simulates nothing: --report does not apply" 2 "$KOHAKU" replay quant data/vectors/quant.jsonl --report

# The trace window and the flit filter.
"$KOHAKU" run "$MAP" $SES --trace "$tmp/full.json" > /dev/null
# a window of 100 cycles from the first flit on
a=$("$PY" -c 'import json, sys; print(min(e["ts"] for e in json.load(open(sys.argv[1]))["traceEvents"] if e.get("cat") == "flit"))' "$tmp/full.json")
b=$((a + 100))
"$KOHAKU" run "$MAP" $SES --trace "$tmp/win.json" --trace-window "$a:$b" > /dev/null
pycheck window "$tmp/full.json" "$tmp/win.json" "$a" "$b"
"$KOHAKU" run "$MAP" $SES --trace "$tmp/fl.json" --trace-flits cu_inst,mem_rd_req > /dev/null
pycheck flits "$tmp/fl.json" CU_INST MEM_RD_REQ
expect_rc "--trace-window needs A < B" 2 "$KOHAKU" run "$MAP" $SES --trace "$tmp/x.json" --trace-window 5:3
expect_err_has "and says so" "--trace-window '5:3': expected A:B" "$KOHAKU" run "$MAP" $SES --trace-window 5:3
expect_err_has "an unknown flit type is named" "unknown flit type 'bogus'" "$KOHAKU" demo --trace-flits cu_inst,bogus
expect_err_has "kohaku report refuses a file that is not JSON" "line 1 column 1" "$KOHAKU" report "$MAP"
echo '{"cycle": 1}' > "$tmp/nostats.json"
expect_err_has "kohaku report names what is missing" "no 'cycle' number and 'components' list" "$KOHAKU" report "$tmp/nostats.json"
expect_rc "kohaku report with no file is a usage error" 2 "$KOHAKU" report

# Progress: on a terminal, a line on stderr; on a pipe, nothing.
cat > "$tmp/pty.py" <<'PYEOF'
import os, subprocess, sys, time
t0 = time.monotonic()
m, s = os.openpty()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=s)
os.close(s)
out = b""
while True:
    try:
        d = os.read(m, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
p.wait()
text = out.decode("utf-8", "replace")
# at most four lines a second, and the last one
lines = text.count("\r")
sys.stdout.write(text)
sys.stdout.write("\nrate %s\n" % ("ok" if lines <= 4 * (time.monotonic() - t0) + 2 else "%d lines" % lines))
PYEOF
"$PY" "$tmp/pty.py" "$KOHAKU" demo > "$tmp/tty.txt"
cycles=$(sed -n 's/^{"cycle":\([0-9]*\),$/\1/p' "$tmp/demo.json")
expect_out "progress on a terminal: a line with the run's cycles and cycles/s" 1 \
    grep -c "kohaku demo gemm: cycles $cycles, [0-9.]* M cycles/s, done in" "$tmp/tty.txt"
expect_out "progress: at most a few lines a second" "rate ok" grep '^rate ' "$tmp/tty.txt"
"$PY" "$tmp/pty.py" "$KOHAKU" gemm 768 768 1024 > "$tmp/tty2.txt"
expect_out "progress: a longer gemm stays within the rate" "rate ok" grep '^rate ' "$tmp/tty2.txt"
"$PY" "$tmp/pty.py" "$KOHAKU" replay cluster data/vectors/cluster.jsonl > "$tmp/tty3.txt"
expect_out "progress: replay adds up its cases' cycles" 1 grep -c 'kohaku replay: cycles [1-9][0-9]*, .* done in' "$tmp/tty3.txt"
expect_out "progress on a pipe: nothing on stderr" "" sh -c "'$KOHAKU' demo 2>&1 >/dev/null | cat"
expect_out "nor from replay" "" sh -c "'$KOHAKU' replay cluster data/vectors/cluster.jsonl 2>&1 >/dev/null | cat"
# the guide shows the demo's heat map: it is what the demo draws today
"$KOHAKU" demo --heatmap "$tmp/now.svg" > /dev/null
expect_out "docs/img/demo-heatmap.svg is the demo's heat map" "" cmp docs/img/demo-heatmap.svg "$tmp/now.svg"
rm -rf "$tmp"
finish
