#!/bin/sh
# `make fuzz`: build every fuzz/fuzz_NAME.c as a libFuzzer target (clang,
# ASan + UBSan) against a library built into build-fuzz/, then run each one
# for FUZZ_SECONDS (default 10: `make fuzz FUZZ_SECONDS=600` for a long run)
# and print one summary line per target (runs, coverage, corpus size).
# A target's opening comments say what it needs:
#   /* fuzz-seeds: DIR ... */       seed folders under data/
#   /* fuzz-line-seeds: DIR */      every line of DIR's *.jsonl as a seed of
#                                   its own (fuzz_replay: the kind's name,
#                                   the file's name, as a first line)
#   /* fuzz-max-len: N */           libFuzzer's -max_len
# Seeds kept with a target are fuzz/seeds/NAME/, its dictionary
# fuzz/NAME.dict; findings, logs and the grown corpus stay in build-fuzz/.
CC=${FUZZ_CC:-clang}
SECS=${FUZZ_SECONDS:-10}
B=build-fuzz
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "fuzz: $CC not found (libFuzzer needs clang)"
    exit 2
fi
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
make -s BUILD=$B CC="$CC" LTO=0 EXTRA_CFLAGS="-fsanitize=fuzzer-no-link $SAN" \
    EXTRA_LDFLAGS="$SAN" "$B/libkohaku.a" || exit 1
# The value of a marker in the first lines of a target.
marker() { sed -n "1,8s|^/\* $2: \(.*\) \*/\$|\1|p" "$1"; }
status=0
summary=""
for src in fuzz/fuzz_*.c; do
    [ -f "$src" ] || continue
    name=$(basename "$src" .c)
    "$CC" -g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer $SAN \
        -Iinclude -I$B/gen -Isrc "$src" $B/libkohaku.a -lm -o "$B/$name" || { status=1; continue; }
    mkdir -p "$B/corpus/$name" "$B/findings/$name" "$B/logs"
    seeds=""
    for d in $(marker "$src" fuzz-seeds); do
        [ -d "data/$d" ] && seeds="$seeds data/$d"
    done
    lines=$(marker "$src" fuzz-line-seeds)
    if [ -n "$lines" ]; then
        ls="$B/lines/$name"
        rm -rf "$ls" && mkdir -p "$ls"
        for f in data/$lines/*.jsonl; do
            kind=$(basename "$f" .jsonl)
            awk -v dir="$ls" -v kind="$kind" -v pre="$([ "$name" = fuzz_replay ] && echo 1)" '
                { out = sprintf("%s/%s-%03d", dir, kind, NR)
                  if (pre) print kind > out
                  print > out; close(out) }' "$f"
        done
        seeds="$seeds $ls"
    fi
    [ -d "fuzz/seeds/$name" ] && seeds="$seeds fuzz/seeds/$name"
    dict=""
    [ -f "fuzz/$name.dict" ] && dict="-dict=fuzz/$name.dict"
    maxlen=$(marker "$src" fuzz-max-len)
    [ -n "$maxlen" ] && maxlen="-max_len=$maxlen"
    echo "fuzz: $name for ${SECS}s"
    log="$B/logs/$name.log"
    "$B/$name" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$B/findings/$name/" \
        $dict $maxlen "$B/corpus/$name" $seeds > "$log" 2>&1 || { status=1; tail -n 30 "$log"; }
    # libFuzzer's last status line: "#RUNS ... cov: C ft: F corp: N/..."
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    runs=$(echo "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
    cov=$(echo "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
    ft=$(echo "$last" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
    corp=$(echo "$last" | sed -n 's/.*corp: \([0-9]*\).*/\1/p')
    rate=$(grep -o 'exec/s: [0-9]*' "$log" | tail -n 1 | sed 's/exec\/s: //')
    summary="$summary
fuzz: $name: ${runs:-?} runs in ${SECS}s (${rate:-?} exec/s), cov ${cov:-?} edges, ft ${ft:-?}, corpus ${corp:-?}"
done
echo "$summary" | sed '/^$/d'
exit $status
