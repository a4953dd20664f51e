#!/bin/sh
# The Debian packages the full test set uses, in one place: `make test`
# installs the missing ones through this script (DEPS=0: it is not called),
# .ci/run bootstraps the build with it, README names them. A test that
# cannot run without one is counted as skipped and names it (tests/run.sh).
#   sh tools/deps.sh list            every package, on one line
#   sh tools/deps.sh missing         those dpkg-query does not show installed
#   sh tools/deps.sh install [PKG..] install what is missing (of PKGs, else of
#                                    all) when it can: root, apt-get present
# install prints the one apt-get install line before it runs it; without
# root or apt-get it says what is missing and changes nothing; where
# dpkg-query is absent (not Debian) it says nothing. KOHAKU_APT_GET,
# KOHAKU_DPKG_QUERY and KOHAKU_UID stand in for apt-get, dpkg-query and
# `id -u` (tests/cli/deps.sh substitutes fakes).
APT_GET=${KOHAKU_APT_GET:-apt-get}
DPKG_QUERY=${KOHAKU_DPKG_QUERY:-dpkg-query}

# One package a line: the package, then what needs it. build-essential is
# what make itself needs; the others only the tests that name them.
packages() {
    sed -e 's/#.*//' -e '/^ *$/d' -e 's/ .*//' <<'EOF'
build-essential                 # the C build: cc, make (.ci/run installs it before make)
python3                         # tests/cli/python.sh, report.sh, guide.sh: Debian's /usr/bin/python3
python3-pytest                  # tests/cli/python.sh: the Python package's tests
python3-numpy                   # tests/cli/python.sh
openmpi-bin                     # tests/cli/mpi.sh: mpirun
libopenmpi-dev                  # tests/cli/mpi.sh: mpicc, for build-mpi/kohaku
gcc-riscv64-unknown-elf         # make rv32: t_rv32_gemm, tests/cli/cpu.sh, t_rv32_qemu
picolibc-riscv64-unknown-elf    # the RISC-V toolchain's C library
qemu-system-misc                # t_rv32_qemu: qemu-system-riscv32, the RV32 differential
qemu-user                       # t_rv64_qemu: qemu-riscv64, the RV64 differential
pkgconf                         # tests/cli/install.sh: pkg-config (it falls back without)
EOF
}

# The packages named (all when none) that are not installed, on one line.
missing() {
    list=${*:-$(packages)}
    out=""
    for p in $list; do
        "$DPKG_QUERY" -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || out="$out $p"
    done
    echo $out
}

install() {
    command -v "$DPKG_QUERY" >/dev/null 2>&1 || return 0
    need=$(missing "$@")
    [ -n "$need" ] || return 0
    line="apt-get install -y --no-install-recommends $need"
    if [ "${KOHAKU_UID:-$(id -u)}" != 0 ] || ! command -v "$APT_GET" >/dev/null 2>&1; then
        echo "deps: not installed: $need"
        echo "deps: the tests that need them are skipped; as root, \`make test\` runs: $line"
        return 0
    fi
    echo "deps: installing what the tests need:"
    echo "$line"
    log=$(mktemp)
    export DEBIAN_FRONTEND=noninteractive
    if "$APT_GET" -qq update > "$log" 2>&1 &&
        "$APT_GET" install -y -qq --no-install-recommends $need >> "$log" 2>&1; then
        rm -f "$log"
        return 0
    fi
    tail -n 20 "$log"
    rm -f "$log"
    echo "deps: apt-get failed; \`make test DEPS=0\` runs the tests without installing (skipping what needs these)"
    return 1
}

case ${1:-} in
list) packages | tr '\n' ' ' | sed 's/ $//'; echo ;;
missing) shift; missing "$@" ;;
install) shift; install "$@" ;;
*) echo "usage: sh tools/deps.sh list|missing|install [PACKAGE...]" >&2; exit 2 ;;
esac
