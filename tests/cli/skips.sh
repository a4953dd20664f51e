#!/bin/sh
# A test that cannot run here is counted and named (tests/run.sh,
# tests/cli/lib.inc, tests/support/test.h): run.sh over made-up suites that
# skip, the closing line and the line per skipped suite; the C harness's
# kh_test_skip on real test binaries without what they need.
. tests/cli/lib.inc
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
T=$(dirname "$KOHAKU")/tests
mkdir -p "$tmp/cli" "$tmp/none" "$tmp/bin"
# suites: three checks that pass; one that passes and two skipped in a
# block; a planned script of five that cannot run at all
cat > "$tmp/cli/a_ok.sh" <<'EOF'
. tests/cli/lib.inc
for i in 1 2 3; do expect_rc "true $i" 0 true; done
finish
EOF
cat > "$tmp/cli/b_part.sh" <<'EOF'
. tests/cli/lib.inc
expect_rc "runs" 0 true
skip_begin "no emulator here" qemu-system-misc
expect_rc "would fail if it ran" 0 false
expect_out "and this" "x" echo y
skip_end
finish
EOF
cat > "$tmp/cli/c_whole.sh" <<'EOF'
. tests/cli/lib.inc
plan 5
skip_all "no mpirun here" openmpi-bin libopenmpi-dev
exit $?
EOF
# a test binary: 4 passed, 1 skipped for what no package gives
printf '#!/bin/sh\necho "# fake_bin: 4 passed, 0 failed, 1 skipped (needs: an x86-64 CPU with AVX2)"\n' > "$tmp/fake_bin"
chmod +x "$tmp/fake_bin"
runs() { KOHAKU_NO_SKIP=${NOSKIP:-0} TESTS_CLI="$tmp/cli" BUILD=$(dirname "$KOHAKU") sh tests/run.sh "$@"; }

runs "$tmp/fake_bin" > "$tmp/out" 2>&1
rc=$?
expect_out "the closing line counts the skipped tests" "8 passed, 0 failed, 8 skipped" tail -n 1 "$tmp/out"
expect_out "skipping fails nothing" 0 echo $rc
expect_out "a line per skipped suite, before the total, naming what it needs" \
"skipped fake_bin: 1 test, needs an x86-64 CPU with AVX2
skipped b_part: 2 tests, needs qemu-system-misc
skipped c_whole: 5 tests, needs openmpi-bin, libopenmpi-dev" grep '^skipped ' "$tmp/out"
expect_out "the skipped lines come right before the hint and the total" "skipped c_whole" \
    sh -c "tail -n 3 '$tmp/out' | head -n 1 | cut -d: -f1"
expect_out "the hint names make test when a package is missing" 1 grep -c 'make test. installs the packages' "$tmp/out"
expect_out "a suite's summary says what it skipped" "# b_part: 1 passed, 0 failed, 2 skipped (needs: qemu-system-misc)" \
    grep '^# b_part' "$tmp/out"
expect_out "checks in a skipped block do not run (no FAIL)" 0 grep -c '^FAIL' "$tmp/out"
expect_out "the reason is in the suite's output, not the summary" 0 grep -c 'no emulator here' "$tmp/out"

rm "$tmp/cli/b_part.sh" "$tmp/cli/c_whole.sh"
runs "$tmp/fake_bin" > "$tmp/out" 2>&1
expect_out "only a need no package meets: no make-test hint" 0 grep -c 'make test' "$tmp/out"
runs > "$tmp/out" 2>&1
expect_out "nothing skipped: 0 skipped" "3 passed, 0 failed, 0 skipped" tail -n 1 "$tmp/out"
expect_out "and no skipped lines" 0 grep -c '^skipped ' "$tmp/out"
NOSKIP=1 runs > /dev/null 2>&1
expect_out "KOHAKU_NO_SKIP=1 with nothing skipped passes" 0 echo $?
NOSKIP=1 runs "$tmp/fake_bin" > "$tmp/out" 2>&1
rc=$?
expect_out "KOHAKU_NO_SKIP=1 (CI) fails a run that skipped" "1 7 passed, 1 failed, 1 skipped" echo "$rc $(tail -n 1 "$tmp/out")"

# a plan that no longer matches what the script checks fails it
cat > "$tmp/cli/d_plan.sh" <<'EOF'
. tests/cli/lib.inc
plan 3
expect_rc "one" 0 true
expect_rc "two" 0 true
finish
EOF
sh "$tmp/cli/d_plan.sh" > "$tmp/out" 2>&1
rc=$?
expect_out "a plan of 3 with 2 checks fails, saying so" \
    "1 FAIL d_plan: 2 checks counted, the plan says 3 (update plan in $tmp/cli/d_plan.sh)" \
    echo "$rc $(head -n 1 "$tmp/out")"

# The C harness: the RV32 GEMM without its program, the QEMU differential
# without QEMU and the toolchain (only timeout on PATH)
expect_out "t_rv32_gemm without build/rv32/replay.elf: skipped, naming the package" \
    "# t_rv32_gemm: 0 passed, 0 failed, 1 skipped (needs: gcc-riscv64-unknown-elf)" \
    sh -c "BUILD='$tmp/none' '$T/t_rv32_gemm' | tail -n 1"
expect_out "the skip says why" "1" sh -c "BUILD='$tmp/none' '$T/t_rv32_gemm' | grep -c '^skip one_job_two_drivers: .*replay.elf'"
ln -s "$(command -v timeout)" "$tmp/bin/timeout"
expect_out "t_rv32_qemu without QEMU and the toolchain: one test skipped, both packages named" \
    "# t_rv32_qemu: 0 passed, 0 failed, 1 skipped (needs: qemu-system-misc, gcc-riscv64-unknown-elf)" \
    sh -c "PATH='$tmp/bin' '$T/t_rv32_qemu' | tail -n 1"
expect_out "a skipped test KH_TEST leaves out is not counted" "# t_rv32_gemm: 0 passed, 0 failed" \
    sh -c "KH_TEST=nope BUILD='$tmp/none' '$T/t_rv32_gemm' | tail -n 1"
finish
