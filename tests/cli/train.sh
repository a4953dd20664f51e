#!/bin/sh
# The training inputs of the profile-guided CLI build (bench/train/, the
# Makefile's PGO): the vector session stages what `kohaku asm` makes of its
# kernel, and the whole training runs to the end with this CLI (every poll
# reaching its completion), so a PGO=0 tree notices when they break too.
. tests/cli/lib.inc
tmp=$(mktemp -d)
i=0
for w in $("$KOHAKU" asm --unit vector-inner bench/train/vloop.kasm); do
    echo "IMEM addr=$i word=0x$w"; i=$((i + 1))
done > "$tmp/outer.kasm"
cat bench/train/vloop_run.kasm >> "$tmp/outer.kasm"
"$KOHAKU" asm --unit vector "$tmp/outer.kasm" > "$tmp/want" 2>/dev/null
grep '^stage' bench/train/vector.session | head -n "$(wc -l < "$tmp/want")" | grep -o 'payload=[0-9a-f]*' | cut -d= -f2 > "$tmp/got"
expect_rc "the vector session stages the assembled kernel" 0 cmp -s "$tmp/want" "$tmp/got"
expect_rc "the training runs to the end" 0 sh bench/train/run.sh "$KOHAKU" "$tmp/train"
expect_rc "a missing work directory argument is refused" 2 sh bench/train/run.sh "$KOHAKU"
rm -rf "$tmp"
finish
