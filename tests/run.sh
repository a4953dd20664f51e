#!/bin/sh
# Runs every test binary given as an argument and every CLI script in
# tests/cli/, then prints the total as "N passed, N failed, N skipped".
# Each program prints "# NAME: P passed, F failed" as its last summary line,
# ending ", S skipped (needs: WHAT, ...)" when S of its tests cannot run here
# (a package missing: tools/deps.sh); each such suite gets a line saying what
# it needs before the total. KOHAKU_NO_SKIP=1 (CI, where everything is
# installed) fails the run when a test is skipped. TESTS_CLI names the
# folder of CLI scripts (tests/cli; tests/cli/skips.sh points it elsewhere).
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
skipped=0
log=$(mktemp)
skips=$(mktemp)
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
    p=$(echo "$summary" | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\1/')
    f=$(echo "$summary" | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed.*/\2/')
    k=$(echo "$summary" | sed -n 's/.* failed, \([0-9]*\) skipped.*/\1/p')
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
    grep '^FAIL' "$log"
    echo "$summary"
    passed=$((passed + p))
    failed=$((failed + f))
    if [ -n "$k" ] && [ "$k" -gt 0 ]; then
        skipped=$((skipped + k))
        suite=$(echo "$summary" | sed 's/^# \(.*\): [0-9]* passed.*/\1/')
        needs=$(echo "$summary" | sed -n 's/.* skipped (needs: \(.*\))$/\1/p')
        [ "$k" -eq 1 ] && what="1 test" || what="$k tests"
        echo "skipped $suite: $what, needs ${needs:-(not said)}" >> "$skips"
    fi
}
for t in "$@"; do
    run_one "$(basename "$t")" "$t"
done
for s in "${TESTS_CLI:-tests/cli}"/*.sh; do
    [ -f "$s" ] || continue
    run_one "$(basename "$s")" sh "$s"
done
if [ "$skipped" -gt 0 ]; then
    cat "$skips"
    for pkg in $(sh tools/deps.sh list); do
        if grep -q -e "needs \(.*, \)*$pkg\(,\|$\)" "$skips"; then
            echo "(as root on Debian, \`make test\` installs the packages named: tools/deps.sh)"
            break
        fi
    done
    if [ "${KOHAKU_NO_SKIP:-0}" = 1 ]; then
        echo "FAIL: KOHAKU_NO_SKIP=1 and $skipped tests were skipped"
        failed=$((failed + 1))
    fi
fi
rm -f "$log" "$skips"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
