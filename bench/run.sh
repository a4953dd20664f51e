#!/bin/sh
# make bench: runs every benchmark binary in $BUILD/bench/ (built from
# bench/*.c), then the CLI's own `kohaku bench` targets where they exist.
# Each prints its figures with units; timing is wall clock on this machine.
BUILD=${BUILD:-build}
status=0
for b in "$BUILD"/bench/*; do
    [ -x "$b" ] || continue
    echo "== $(basename "$b")"
    "$b" || status=1
done
exit $status
