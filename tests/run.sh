#!/bin/sh
# Runs every test binary given as an argument and every CLI script in
# tests/cli/, then prints the total as "N passed, N failed".
# Each program prints "# NAME: P passed, F failed" as its last summary line.
BUILD=${BUILD:-build}
# The data (maps, recorded vectors) is the project's own: data/README.md.
export KH_DATA=data
export KOHAKU="$BUILD/kohaku"
# ENGINE_DIFF=1 (make test-engines): the test binaries on the per-cycle
# reference engine, and every CLI command of the scripts through
# tests/support/engine_diff.sh, which runs it on both engines and fails it
# when any output differs. The stand-in sits beside the binary, so that
# scripts that look for the library next to $KOHAKU still find it.
if [ "${ENGINE_DIFF:-0}" = 1 ]; then
    export KOHAKU_ENGINE=cycle KOHAKU_REAL="$BUILD/kohaku"
    cp tests/support/engine_diff.sh "$BUILD/kohaku-engine-diff" && chmod +x "$BUILD/kohaku-engine-diff" || exit 1
    export KOHAKU="$BUILD/kohaku-engine-diff"
fi
passed=0
failed=0
log=$(mktemp)
run_one() {
    name=$1; shift
    "$@" > "$log" 2>&1
    rc=$?
    summary=$(grep '^# .*: [0-9]* passed, [0-9]* failed' "$log" | tail -n 1)
    if [ -z "$summary" ]; then
        echo "FAIL $name: no summary line (exit $rc)"
        tail -n 20 "$log"
        failed=$((failed + 1))
        return
    fi
    p=$(echo "$summary" | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1/')
    f=$(echo "$summary" | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\2/')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    grep '^FAIL' "$log"
    echo "$summary"
    passed=$((passed + p))
    failed=$((failed + f))
}
for t in "$@"; do
    run_one "$(basename "$t")" "$t"
done
for s in tests/cli/*.sh; do
    [ -f "$s" ] || continue
    run_one "$(basename "$s")" sh "$s"
done
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
