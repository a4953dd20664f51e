#!/bin/sh
# docs/guide.md cannot rot: every command and file it shows is run here, the
# way a reader runs them. The guide's fenced blocks, in order:
#   ```sh               commands, run from the clone's root with `sh -e`;
#                       they must exit 0
#   ```text             right after an sh block (nothing but blank lines
#                       between): that block's standard output. A "..." in
#                       a line matches any text; a line "..." any lines.
#   ```LANG file=NAME   a file the reader saves as NAME before going on
# Other blocks (the build commands, which run inside `make test` already)
# are prose. The scratch directory has the reader's layout: a clone
# (build/, data/, examples/, include/ linked in) with nothing beside it, so
# the guide's paths (`build/kohaku`, `data/maps/...`) are used as written
# and a block that reaches outside the project fails.
. tests/cli/lib.inc
GUIDE=docs/guide.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo=$(pwd)
build_dir=$(cd "$(dirname "$KOHAKU")" && pwd)
mkdir -p "$tmp/kohaku" "$tmp/blocks" "$tmp/bin"
ln -s "$build_dir" "$tmp/kohaku/build"
ln -s "$repo/data" "$tmp/kohaku/data"
ln -s "$repo/examples" "$tmp/kohaku/examples"
ln -s "$repo/include" "$tmp/kohaku/include"
ln -s "$repo/python" "$tmp/kohaku/python"
# A C example links build/libkohaku.a; the sanitizer build's needs the
# sanitizer runtime, so `cc` gets the same flags there, and `python3` (which
# loads the sanitizer build's libkohaku.so) gets the runtimes preloaded.
case $(basename "$build_dir") in
build-san)
    real_cc=$(command -v cc)
    printf '#!/bin/sh\nexec "%s" -fsanitize=address,undefined -fno-sanitize-recover=all "$@"\n' "$real_cc" \
        > "$tmp/bin/cc"
    real_py=$(command -v python3)
    printf '#!/bin/sh\nLD_PRELOAD="%s %s" ASAN_OPTIONS=detect_leaks=0 exec "%s" "$@"\n' \
        "$(cc -print-file-name=libasan.so)" "$(cc -print-file-name=libubsan.so)" "$real_py" > "$tmp/bin/python3"
    chmod +x "$tmp/bin/cc" "$tmp/bin/python3"
    PATH="$tmp/bin:$PATH"
    # the package finds build/ from its own real path, the repository's
    # build/ and not this tree's link to build-san/: name the library
    export KOHAKU_LIB="$build_dir/libkohaku.so"
    ;;
esac

# Split the guide: blocks/NNN.body, and an index line "NNN KIND LINE [NAME]"
# per block (KIND sh, out, file; prose blocks are left out).
awk -v dir="$tmp/blocks" '
/^```/ {
    if (!inb) {
        inb = 1; n++; info = substr($0, 4); kind = ""; name = ""
        split(info, w, /[ \t]+/)
        for (i in w) if (w[i] ~ /^file=/) name = substr(w[i], 6)
        if (name != "") kind = "file"
        else if (w[1] == "sh") kind = "sh"
        else if (w[1] == "text" && last_sh && !prose) kind = "out"
        body = sprintf("%s/%03d.body", dir, n)
        printf "" > body
        if (kind != "") printf "%03d %s %d %s\n", n, kind, NR, name > (dir "/index")
        next
    }
    inb = 0; prose = 0; last_sh = kind == "sh"; close(body)
    next
}
inb { print > body; next }
/[^ \t]/ { prose = 1 }
' "$GUIDE"

# Expected output with "..." wildcards against what a block printed.
match_out() {
    awk '
    function line_ok(p, s,   n, parts, i, at, k) {
        n = split(p, parts, /\.\.\./)
        if (n == 1) return p == s
        if (substr(s, 1, length(parts[1])) != parts[1]) return 0
        at = length(parts[1]) + 1
        for (i = 2; i < n; i++) {
            k = index(substr(s, at), parts[i])
            if (!k) return 0
            at += k - 1 + length(parts[i])
        }
        return length(s) - at + 1 >= length(parts[n]) && substr(s, length(s) - length(parts[n]) + 1) == parts[n]
    }
    function seq(i, j,   k) {
        if (i > ne) return j > na
        if (E[i] == "...") {
            for (k = j; k <= na + 1; k++) if (seq(i + 1, k)) return 1
            return 0
        }
        return j <= na && line_ok(E[i], A[j]) && seq(i + 1, j + 1)
    }
    FNR == NR { E[++ne] = $0; next }
    { A[++na] = $0 }
    END { exit !seq(1, 1) }
    ' "$1" "$2"
}

nsh=0
last=
while read -r num kind line name; do
    body="$tmp/blocks/$num.body"
    case $kind in
    file)
        mkdir -p "$(dirname "$tmp/kohaku/$name")"
        cp "$body" "$tmp/kohaku/$name"
        ;;
    sh)
        nsh=$((nsh + 1))
        last=$num
        first=$(grep -v '^[ \t]*#' "$body" | grep -m1 .)
        if (cd "$tmp/kohaku" && sh -e "$body") < /dev/null > "$tmp/blocks/$num.got" 2> "$tmp/blocks/$num.err"; then
            kh_pass=$((kh_pass + 1))
        else
            kh_fail=$((kh_fail + 1))
            echo "FAIL $kh_name: $GUIDE:$line: the block starting '$first' exits nonzero"
            sed 's/^/  stderr: /' "$tmp/blocks/$num.err" | head -n 20
        fi
        ;;
    out)
        if match_out "$body" "$tmp/blocks/$last.got"; then
            kh_pass=$((kh_pass + 1))
        else
            kh_fail=$((kh_fail + 1))
            echo "FAIL $kh_name: $GUIDE:$line: the output shown differs from what the block above prints"
            diff "$body" "$tmp/blocks/$last.got" | head -n 20 | sed 's/^/  /'
        fi
        ;;
    esac
done < "$tmp/blocks/index"
# The split itself works: the guide has its tour of commands.
expect_out "the guide has at least 20 command blocks" "yes" sh -c "[ $nsh -ge 20 ] && echo yes"
finish
