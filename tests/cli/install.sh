#!/bin/sh
# make install's layout and the stable API (include/kohaku/api.h): install
# into a scratch prefix, build examples/host_api.c with pkg-config against
# it, run it; libkohaku.so exports only kh_ symbols.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build=$(dirname "$KOHAKU")
san=
case $(basename "$build") in build-san) san="-fsanitize=address,undefined" ;; esac

expect_rc "install into a prefix" 0 sh tools/install.sh "$tmp/p" "$build" libkohaku.so.1
for f in include/kohaku/api.h include/kohaku/gen/flit.h lib/libkohaku.a lib/libkohaku.so.1 lib/libkohaku.so \
         lib/pkgconfig/kohaku.pc bin/kohaku; do
    expect_rc "installed $f" 0 test -e "$tmp/p/$f"
done
export PKG_CONFIG_PATH="$tmp/p/lib/pkgconfig"
# without pkg-config (Debian's pkgconf) its own check is skipped and the
# example is built with the flags kohaku.pc holds, written out
command -v pkg-config >/dev/null 2>&1 ||
    skip_begin "pkg-config not found: the example is built with kohaku.pc's flags written out" pkgconf
expect_out "pkg-config knows the version" "1.3" pkg-config --modversion kohaku
skip_end
if command -v pkg-config >/dev/null 2>&1; then
    flags='$(pkg-config --cflags --libs kohaku)'
else
    flags="-I$tmp/p/include -L$tmp/p/lib -Wl,-rpath,$tmp/p/lib -lkohaku"
fi
expect_rc "the example builds against the installed kohaku" 0 sh -c \
    "cc $san -std=c11 -Wall -Wextra -Werror -o '$tmp/host_api' examples/host_api.c $flags"
out=$(ASAN_OPTIONS=detect_leaks=0 "$tmp/host_api" 2>&1)
# CAPS of the default map (control.md §2.2): FLIT_WIDTH 288 = 0x120, POS_WIDTH
# 4, grid 1..2; the word comes back; 246 cycles = 81 + 84 + 81 (docs/host-link.md)
expect_out "the example reads CAPS and DRAM" \
    "api 1.3, CAPS 0x0000000201040120, DRAM word 0x1234, 246 cycles" sh -c "echo '$out' | head -n 1"
expect_out "an unaligned read is refused naming the address" \
    "KH_E_ALIGN: host address 0x800011 is not 8-byte aligned: the host API moves 64-bit words (control.md §9.3)" \
    sh -c "echo '$out' | tail -n 1"
expect_out "only kh_ symbols are exported" "" sh -c \
    "nm -D --defined-only '$build/libkohaku.so.1' | awk '\$3 !~ /^kh_/ && \$3 != \"KOHAKU_1\"' | head -n 3"
expect_rc "every API function is exported" 0 sh -c \
    "for s in kh_api_version kh_dev_open kh_dev_write64 kh_dev_read_block kh_dev_stats kh_status_name; do nm -D --defined-only '$build/libkohaku.so.1' | grep -q \" \$s@@KOHAKU_1\" || exit 1; done"
finish
