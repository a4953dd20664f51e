#!/bin/sh
# Symbol hygiene: every global symbol libkohaku defines starts with kh_, so
# the library can sit beside any other code (nm lists them).
. tests/cli/lib.inc
LIB="$(dirname "$KOHAKU")/libkohaku.a"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# unprefixed FILE...: the global defined symbols without the kh_ prefix
# (under ASan a global variable NAME also defines __odr_asan.NAME)
unprefixed() {
    nm -g --defined-only "$@" 2>/dev/null |
        awk 'NF == 3 { n = $3; sub(/^__odr_asan\./, "", n); if (n !~ /^kh_/) print $3 }' | sort -u | tr '\n' ' ' |
        sed 's/ $//'
}
expect_rc "the library is there" 0 test -f "$LIB"
expect_out "every exported symbol of libkohaku starts with kh_" "" unprefixed "$LIB"
# the check itself finds an unprefixed function and a global variable
printf 'int vec_decode(void) { return 1; }\nint kh_fine(void) { return 2; }\nint counter = 3;\n' > "$tmp/p.c"
${CC:-cc} -c -o "$tmp/p.o" "$tmp/p.c"
expect_out "a planted symbol is found" "counter vec_decode" unprefixed "$tmp/p.o"
# Layering: the command line reaches the library through its headers
# (include/kohaku/), never a module's private *_int.h (design.md §8)
expect_out "the command line includes no module's private header" "" \
    sh -c "grep -l '#include.*_int\.h' tools/kohaku/*.c tools/kohaku/*.h"
finish
