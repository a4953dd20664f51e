#!/bin/sh
# The Python package (python/kohaku, docs/python.md) under tests/python/,
# run with Debian's own python3 and its pytest and numpy (.ci/run installs
# them; another python3 may come first on PATH). Without them the tests are
# counted as skipped, naming the packages, and the C tests do not depend on
# Python. A full run checks the count of pytest's tests against the plan.
. tests/cli/lib.inc
plan 71
PY=/usr/bin/python3
if ! [ -x "$PY" ]; then
    skip_all "$PY not found" python3 python3-pytest python3-numpy
    exit $?
fi
lack=""
"$PY" -c 'import pytest' 2>/dev/null || lack=python3-pytest
"$PY" -c 'import numpy' 2>/dev/null || lack="$lack python3-numpy"
if [ -n "$lack" ]; then
    skip_all "$PY cannot import pytest and numpy" $lack
    exit $?
fi
build=$(dirname "${KOHAKU:-build/kohaku}")
export BUILD="$(basename "$build")"
export KOHAKU_LIB="$(pwd)/$build/libkohaku.so"
case $BUILD in
build-san)
    # the sanitizer build's library needs its runtimes loaded first
    LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)"
    export LD_PRELOAD ASAN_OPTIONS=detect_leaks=0
    ;;
esac
log=$(mktemp)
trap 'rm -f "$log"' EXIT
PYTHONDONTWRITEBYTECODE=1 "$PY" -m pytest -q -p no:cacheprovider tests/python > "$log" 2>&1
rc=$?
sed -n 's/^FAILED /FAIL python: /p' "$log"
summary=$(tail -n 1 "$log")
p=$(echo " $summary" | sed -n 's/.*[ ,]\([0-9][0-9]*\) passed.*/\1/p')
f=$(echo " $summary" | sed -n 's/.*[ ,]\([0-9][0-9]*\) failed.*/\1/p')
e=$(echo " $summary" | sed -n 's/.*[ ,]\([0-9][0-9]*\) error.*/\1/p')
s=$(echo " $summary" | sed -n 's/.*[ ,]\([0-9][0-9]*\) skipped.*/\1/p')
kh_pass=${p:-0} kh_fail=$((${f:-0} + ${e:-0})) kh_skip=${s:-0}
# a test pytest skips says why under pytest -rs
[ "$kh_skip" -eq 0 ] || add_need "what pytest -rs tests/python names"
if [ "$rc" -ne 0 ] && [ "$kh_fail" -eq 0 ]; then kh_fail=1; tail -n 20 "$log"; fi
finish
