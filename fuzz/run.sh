#!/bin/sh
# make fuzz: build the libFuzzer targets with clang (ASan + libFuzzer, from
# Debian's clang and libclang-rt) into build-fuzz/ and run each briefly.
# FUZZ_TIME sets the seconds per target (default 20).
set -eu
cd "$(dirname "$0")/.."
CLANG=${CLANG:-clang}
if ! command -v "$CLANG" >/dev/null 2>&1; then
    echo "fuzz: clang not found (apt-get install clang libclang-rt-dev)" >&2
    exit 2
fi
B=build-fuzz
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
# The targets need only the table engine, the flit checks and the embedded
# tables: generate the headers with the Makefile's own rules, then compile
# just those sources (the rest of the library need not build with clang).
HDRS=$(for f in isa/*.isa; do printf '%s ' "$B/gen/kohaku/gen/$(basename "$f" .isa).h"; done)
make -s -j2 CC="$CLANG" BUILD=$B $B/isagen $B/gen/isa_embed.c $HDRS
mkdir -p $B/fuzz
SRCS="$(ls src/util/*.c src/isa/*.c src/flit/*.c) $B/gen/isa_embed.c"
for t in fuzz/fuzz_*.c; do
    name=$(basename "$t" .c)
    "$CLANG" -std=c11 -D_POSIX_C_SOURCE=200809L -O1 -g -fsanitize=fuzzer $SAN -Iinclude -I$B/gen -Isrc \
        -o $B/fuzz/$name "$t" $SRCS -lm
done
# Seeds: real flits and programs.
C=$B/fuzz/corpus
mkdir -p $C/flit $C/asm
printf '320152A80000000000000000000000000000000000000000000000000000000000000000' > $C/flit/cu_inst
printf '0000100000000010000800000000000000000000000000000000000000000000000000000' > $C/flit/wr_req
printf '013262a80100002a00000000000000000000000000000000000000000000000000000000' > $C/flit/signal
printf '\000FILL sel=a n=1 addr=0x40000\nGEMM gm=1 gn=1\nDRAIN n=1 addr=0x100000\n' > $C/asm/cluster
printf '\002VSETI vd=14 imm=8\nVLD dt=fp16 ad=3 off=-8\nVHALT\n' > $C/asm/inner
printf '\001DESC ad=1 fld=base value=0x4000000008\nRUN addr=3\n' > $C/asm/vector
printf '\004SAXPY n=8 a=0x40000000 x_addr=0x1000 y_addr=0x8000\nOP op=2\n' > $C/asm/saxpy
T=${FUZZ_TIME:-20}
$B/fuzz/fuzz_flit_decode -max_total_time="$T" -max_len=600 $C/flit
$B/fuzz/fuzz_asm -max_total_time="$T" -max_len=4096 -dict=fuzz/asm.dict $C/asm
echo "fuzz: both targets ran ${T}s without a finding"
