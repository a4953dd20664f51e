#!/bin/sh
# tools/deps.sh and make test's use of it (README): what is missing is
# installed with one apt-get line, printed, only as root and with apt-get;
# DEPS=0 never calls apt-get. apt-get, dpkg-query and the user id are fakes
# (KOHAKU_APT_GET, KOHAKU_DPKG_QUERY, KOHAKU_UID): nothing is installed.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# dpkg-query -W -f=... PKG: installed unless PKG is in $FAKE_MISSING
cat > "$tmp/dpkg-query" <<'EOF'
#!/bin/sh
for p in $FAKE_MISSING; do [ "$p" = "$3" ] && exit 1; done
printf 'install ok installed'
EOF
# apt-get: records its arguments, exits $FAKE_APT_RC
cat > "$tmp/apt-get" <<'EOF'
#!/bin/sh
echo "$*" >> "$FAKE_APT_LOG"
exit ${FAKE_APT_RC:-0}
EOF
chmod +x "$tmp/dpkg-query" "$tmp/apt-get"
export KOHAKU_DPKG_QUERY="$tmp/dpkg-query" KOHAKU_APT_GET="$tmp/apt-get" FAKE_APT_LOG="$tmp/apt.log"
export KOHAKU_UID=0 FAKE_MISSING="qemu-system-misc python3-numpy"
apt_calls() { cat "$tmp/apt.log" 2>/dev/null; rm -f "$tmp/apt.log"; }

all=$(sh tools/deps.sh list)
expect_out "the list is one line and has the RISC-V toolchain and Open MPI" 1 \
    sh -c "echo '$all' | grep -c 'gcc-riscv64-unknown-elf.*openmpi-bin\|openmpi-bin.*gcc-riscv64-unknown-elf'"
expect_out "missing names what dpkg-query does not show installed, in the list's order" \
    "python3-numpy qemu-system-misc" sh tools/deps.sh missing
expect_out "nothing missing: install is silent" "" env FAKE_MISSING= sh tools/deps.sh install
expect_out "and calls no apt-get" "" apt_calls
expect_out "missing, as root: the one apt-get install line is printed" \
    "deps: installing what the tests need:
apt-get install -y --no-install-recommends python3-numpy qemu-system-misc" sh tools/deps.sh install
expect_out "then run, after the package lists are updated" \
    "-qq update
install -y -qq --no-install-recommends python3-numpy qemu-system-misc" apt_calls
expect_out "install PKG: only the named package" "apt-get install -y --no-install-recommends qemu-system-misc" \
    sh -c "sh tools/deps.sh install qemu-system-misc build-essential | tail -n 1"
apt_calls > /dev/null
expect_out "not root: no apt-get" "" sh -c "KOHAKU_UID=1000 sh tools/deps.sh install > /dev/null; cat '$tmp/apt.log' 2>/dev/null"
expect_out "and it says what is missing and what make test runs as root" \
    "deps: not installed: python3-numpy qemu-system-misc
deps: the tests that need them are skipped; as root, \`make test\` runs: apt-get install -y --no-install-recommends python3-numpy qemu-system-misc" \
    env KOHAKU_UID=1000 sh tools/deps.sh install
expect_out "no apt-get: the same" "deps: not installed: python3-numpy qemu-system-misc" \
    sh -c "KOHAKU_APT_GET='$tmp/no-apt-get' sh tools/deps.sh install | head -n 1"
expect_out "not Debian (no dpkg-query): silent" "" env KOHAKU_DPKG_QUERY="$tmp/none" sh tools/deps.sh install
expect_out "apt-get failing fails install, pointing at DEPS=0" "1 1" \
    sh -c "FAKE_APT_RC=100 sh tools/deps.sh install > '$tmp/o' 2>&1; echo \$? \$(grep -c 'make test DEPS=0' '$tmp/o')"
apt_calls > /dev/null

# make test: the Makefile's use, read (make -n) in a scratch build folder.
# The outer make's jobs, level and DEPS= (make test DEPS=0 exports it) are
# not passed on: this make is the user's.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DEPS make -n BUILD="$tmp/b" "$@" 2>&1; }
mk test > "$tmp/o"
expect_out "make test installs what is missing, printing the line" 1 \
    grep -c '^apt-get install -y --no-install-recommends python3-numpy qemu-system-misc$' "$tmp/o"
expect_out "through apt-get" "install -y -qq --no-install-recommends python3-numpy qemu-system-misc" \
    grep install "$tmp/apt.log"
apt_calls > /dev/null
mk test DEPS=0 > "$tmp/o"
expect_out "make test DEPS=0 never calls apt-get" "" apt_calls
expect_out "nor says anything about packages" 0 grep -c '^deps:' "$tmp/o"
mk all > /dev/null
expect_out "make (no test goal) leaves the packages alone" "" apt_calls
FAKE_APT_RC=100 mk test > "$tmp/o"
expect_out "make test stops when apt-get fails" 1 grep -c 'could not install the packages the tests need (DEPS=0 skips this)' "$tmp/o"
apt_calls > /dev/null

# (A test that names a package missing from the list skips in CI, where
# KOHAKU_NO_SKIP=1 fails the run: .ci/run.)
expect_out "README names the packages in one line, as tools/deps.sh lists them" 1 grep -c -x "    $all" README.md
finish
