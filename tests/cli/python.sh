#!/bin/sh
# The Python package (python/kohaku, docs/python.md) under tests/python/,
# run with Debian's own python3 and its pytest and numpy (.ci/run installs
# them; another python3 may come first on PATH). Without them the tests are
# skipped with a message, and the C tests do not depend on Python.
PY=/usr/bin/python3
name=python
if ! [ -x "$PY" ] || ! "$PY" -c 'import pytest, numpy' 2>/dev/null; then
    echo "python: skipped: $PY with pytest and numpy is needed (apt-get install python3-pytest python3-numpy)"
    echo "# $name: 0 passed, 0 failed"
    exit 0
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
p=${p:-0} f=$((${f:-0} + ${e:-0}))
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; tail -n 20 "$log"; fi
echo "# $name: $p passed, $f failed"
[ "$f" -eq 0 ]
