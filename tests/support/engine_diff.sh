#!/bin/sh
# The engines' differential test, one command at a time: stands in for the
# kohaku binary ($KOHAKU_REAL) under `make test-engines` (tests/run.sh with
# ENGINE_DIFF=1), so that every command of the CLI test suite runs on both
# engines. The per-cycle reference runs first (KOHAKU_ENGINE=cycle), with
# every file it would write (--trace, --stats, --heatmap, --out) sent to a
# scratch name; then the event engine runs the command as given, and the
# two must agree on the exit status, standard output and standard error
# (less the lines that report CPU or wall time) and every such file, byte
# for byte. A difference is said on standard error and the command exits
# 99, which fails the test that ran it. Standard input is read once and
# given to both runs. An argument must not hold a newline.
real=${KOHAKU_REAL:?engine_diff.sh: set KOHAKU_REAL to the kohaku binary}
# on a terminal (the progress line's test) there is nothing to capture
if [ -t 1 ] || [ -t 2 ]; then KOHAKU_ENGINE=fast exec "$real" "$@"; fi
tmp=$(mktemp -d) || exit 98
trap 'rm -rf "$tmp"' EXIT
if [ -t 0 ]; then : >"$tmp/in"; else cat >"$tmp/in"; fi

# The reference's arguments, one a line: each output file a scratch name.
n=0
take=0
: >"$tmp/refargs"
for a in "$@"; do
    if [ "$take" = 1 ]; then
        n=$((n + 1))
        printf '%s\n' "$a" >"$tmp/name$n"
        # a file that cannot be written stays as given, refused by both
        [ -d "$(dirname -- "$a")" ] && a="$tmp/ref$n"
        take=0
    else
        case $a in
        --trace | --stats | --heatmap | --out) take=1 ;;
        esac
    fi
    printf '%s\n' "$a" >>"$tmp/refargs"
done

(
    set --
    while IFS= read -r a; do set -- "$@" "$a"; done <"$tmp/refargs"
    KOHAKU_ENGINE=cycle "$real" "$@" <"$tmp/in" >"$tmp/ref.out" 2>"$tmp/ref.err"
    echo $? >"$tmp/ref.rc"
)
# a file left by an earlier command is set aside, so that only what this
# run writes is compared, and put back if it writes none
k=0
while [ "$k" -lt "$n" ]; do
    k=$((k + 1))
    name=$(cat "$tmp/name$k")
    if [ -f "$name" ]; then mv -- "$name" "$tmp/old$k"; fi
done
KOHAKU_ENGINE=fast "$real" "$@" <"$tmp/in" >"$tmp/fast.out" 2>"$tmp/fast.err"
rc=$?
cat "$tmp/fast.out"
cat "$tmp/fast.err" >&2

# Lines whose figures are CPU or wall time (or drawn from them), not results.
timeless() { grep -v -e ' speed ' -e 'CPU' -e 'wall' -e 'MAC/s' -e 'cycles/s' -e 'share of the sweep' "$1"; }
bad=0
if [ "$rc" != "$(cat "$tmp/ref.rc")" ]; then
    echo "engine_diff: exit $(cat "$tmp/ref.rc") (cycle) but $rc (fast)" >&2
    bad=1
fi
timeless "$tmp/ref.out" >"$tmp/ref.out.t"
timeless "$tmp/fast.out" >"$tmp/fast.out.t"
if ! cmp -s "$tmp/ref.out.t" "$tmp/fast.out.t"; then
    echo "engine_diff: standard output differs (< cycle, > fast):" >&2
    diff "$tmp/ref.out.t" "$tmp/fast.out.t" | head -20 >&2
    bad=1
fi
# file names in messages: the scratch name and the given one both FILE
timeless "$tmp/ref.err" | sed "s|$tmp/ref[0-9]*|FILE|g" >"$tmp/ref.err.t"
timeless "$tmp/fast.err" >"$tmp/fast.err.t"
k=0
while [ "$k" -lt "$n" ]; do
    k=$((k + 1))
    name=$(cat "$tmp/name$k")
    # an empty name, or one with sed's separator, is left as it is
    case $name in
    *'|'* | '') ;;
    *)
        sed "s|$name|FILE|g" "$tmp/fast.err.t" >"$tmp/e" && mv "$tmp/e" "$tmp/fast.err.t"
        sed "s|$name|FILE|g" "$tmp/ref.err.t" >"$tmp/e" && mv "$tmp/e" "$tmp/ref.err.t"
        ;;
    esac
    if [ -e "$tmp/ref$k" ] || [ -e "$name" ]; then
        if ! cmp -s "$tmp/ref$k" "$name"; then
            echo "engine_diff: $name differs between the engines" >&2
            bad=1
        fi
    fi
    if [ ! -e "$name" ] && [ -e "$tmp/old$k" ]; then mv -- "$tmp/old$k" "$name"; fi
done
if ! cmp -s "$tmp/ref.err.t" "$tmp/fast.err.t"; then
    echo "engine_diff: standard error differs (< cycle, > fast):" >&2
    diff "$tmp/ref.err.t" "$tmp/fast.err.t" | head -20 >&2
    bad=1
fi
if [ "$bad" = 1 ]; then
    echo "engine_diff: the command: $real $*" >&2
    exit 99
fi
exit "$rc"
