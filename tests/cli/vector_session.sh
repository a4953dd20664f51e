#!/bin/sh
# A vector-inner kernel assembled by the CLI runs from a session: the IMEM /
# DESC / RUN payloads of examples/vector_scale.session are what `kohaku asm`
# makes of examples/vector_scale.kasm, and the session passes on a map with
# a vector core.
. tests/cli/lib.inc
tmp=$(mktemp -d)
words=$("$KOHAKU" asm --unit vector-inner examples/vector_scale.kasm)
expect_rc "the kernel assembles" 0 "$KOHAKU" asm --unit vector-inner examples/vector_scale.kasm
i=0
for w in $words; do echo "IMEM addr=$i word=0x$w"; i=$((i + 1)); done > "$tmp/outer.kasm"
cat >> "$tmp/outer.kasm" <<'EOT'
DESC ad=0 fld=base value=0x1000
DESC ad=0 fld=dim0 value=0x200008
DESC ad=1 fld=base value=0x2000
DESC ad=1 fld=dim0 value=0x200008
DESC ad=5 fld=base value=0
DESC ad=5 fld=dim0 value=0x10200
RUN addr=0
EOT
"$KOHAKU" asm --unit vector "$tmp/outer.kasm" > "$tmp/want" 2>/dev/null
grep -o 'payload=[0-9a-f]*' examples/vector_scale.session | cut -d= -f2 > "$tmp/got"
expect_rc "the session's payloads are the assembled program" 0 cmp -s "$tmp/want" "$tmp/got"
expect_rc "the session runs and checks y" 0 "$KOHAKU" run "$KH_DATA/maps/mesh_1x1_min.txt" examples/vector_scale.session
rm -rf "$tmp"
finish
