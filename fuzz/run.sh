#!/bin/sh
# `make fuzz`: build every fuzz/fuzz_NAME.c as a libFuzzer target (clang,
# ASan + UBSan) against a library built into build-fuzz/, then run each one
# for FUZZ_SECONDS (default 20). A target names its seed folders under
# data/ in a first-line comment `/* fuzz-seeds: DIR ... */`; findings
# and the grown corpus stay in build-fuzz/.
CC=${FUZZ_CC:-clang}
SECS=${FUZZ_SECONDS:-20}
B=build-fuzz
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "fuzz: $CC not found (libFuzzer needs clang)"
    exit 2
fi
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
make -s BUILD=$B CC="$CC" EXTRA_CFLAGS="-fsanitize=fuzzer-no-link $SAN" \
    EXTRA_LDFLAGS="$SAN" "$B/libkohaku.a" || exit 1
status=0
for src in fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    "$CC" -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer $SAN \
        -Iinclude -I$B/gen -Isrc "$src" $B/libkohaku.a -lm -o "$B/$name" || { status=1; continue; }
    mkdir -p "$B/corpus/$name" "$B/findings/$name"
    seeds=""
    for d in $(sed -n '1s|^/\* fuzz-seeds: \(.*\) \*/$|\1|p' "$src"); do
        [ -d "data/$d" ] && seeds="$seeds data/$d"
    done
    # Seeds kept with the target (fuzz/seeds/NAME/) and its dictionary.
    [ -d "fuzz/seeds/$name" ] && seeds="$seeds fuzz/seeds/$name"
    dict=""
    [ -f "fuzz/$name.dict" ] && dict="-dict=fuzz/$name.dict"
    echo "fuzz: $name for ${SECS}s"
    "$B/$name" -max_total_time="$SECS" -timeout=10 -artifact_prefix="$B/findings/$name/" $dict \
        "$B/corpus/$name" $seeds || status=1
done
exit $status
