#!/bin/sh
# kohaku's own V2 programs (data/vectors/vector2_own/): every busy and elapsed
# cycle, engine counter and output word equals upstream's RTL's (recorded
# under Verilator), and the outputs match float64 computed from the inputs
# (tests/cli/vector2_own.py).
. tests/cli/lib.inc
D="$KH_DATA/vectors/vector2_own"
for c in ew ctrl rowred softmax gt4 stream dualq f_opcode f_restart f_len f_loop f_vl f_vl129 f_gt4 f_src f_mode \
    f_mode_mx7 f_sync f_sync_on; do
    expect_rc "$c: the RTL's figures and words, and float64's values" 0 \
        env KOHAKU="$KOHAKU" python3 tests/cli/vector2_own.py check "$D" "$c"
done
finish
