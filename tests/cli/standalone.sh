# A clone stands alone (data/README.md): nothing the tests, the benches, the
# fuzz targets, the examples, the Makefile or the guide's blocks run may
# name a path outside the project. CI always has the contract beside its
# clone, so a test reaching for it would pass there and fail on a fresh
# machine; this finds such a reference where it is written. (guide.sh runs
# the guide's blocks in a scratch clone with nothing beside it.)
. tests/cli/lib.inc
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Outside the project: the contract folder, the variable that named it, the
# machine's own layout, or any climb above the root.
OUTSIDE='\.\./shared|\.\./\.\./|KH_SHARED|/work/'

# Prints FILE:LINE: TEXT for every reference outside the project in the
# code of the files given; comments (sh `#`, C `/* */` text) may cite the
# contract, code may not: in C only string literals are code that names
# paths, in shell and make every line that is not a comment.
reaches_outside() {
    for f in "$@"; do
        case $f in
        *.c | *.h)
            grep -nE "\"[^\"]*($OUTSIDE)" "$f" | sed "s|^|$f:|" ;;
        *.md)
            # the guide: only what its fenced blocks run or save
            awk -v f="$f" -v re="$OUTSIDE" '/^```/ { inb = !inb; next }
                inb && $0 ~ re { print f ":" NR ": " $0 }' "$f" ;;
        *)
            grep -nE "$OUTSIDE" "$f" | grep -vE '^[0-9]+:[[:space:]]*#' | sed "s|^|$f:|" ;;
        esac
    done
}

# The checker finds what it must (planted references) and passes comments.
mkdir -p "$T/plant"
printf '/* ../shared/spec/mesh.md §4 */\nsnprintf(p, n, "%%s/maps/x", "../shared");\n' > "$T/plant/t_x.c"
printf '# ../shared/cli.md\nMAP=$KH_SHARED/maps/x.txt\n' > "$T/plant/x.sh"
printf 'text ../shared/cli.md\n```sh\ncat ../../shared/maps/x.txt\n```\n' > "$T/plant/guide.md"
printf 'all:\n\tcat /work/shared/maps/x.txt\n' > "$T/plant/Makefile"
got=$(reaches_outside "$T/plant/t_x.c" "$T/plant/x.sh" "$T/plant/guide.md" "$T/plant/Makefile" |
    sed 's/^\([^:]*:[0-9]*\):.*/\1/' | tr '\n' ' ')
want="$T/plant/t_x.c:2 $T/plant/x.sh:2 $T/plant/guide.md:3 $T/plant/Makefile:2 "
expect_out "the checker flags code and only code" "$want" echo "$got"

# The project's own files (this one names the patterns it looks for).
files=$(find tests bench fuzz examples -type f ! -path tests/cli/standalone.sh | sort)
files="$files Makefile .ci/run docs/guide.md"
found=$(reaches_outside $files)
expect_out "no test, script, example or guide block names a path outside the project" "" echo "$found"

# What the tests read is there: every map and recording the contract has.
for f in maps/saxpy_map.txt maps/mesh_2x2_6+2.txt vectors/quant.jsonl vectors/cluster.jsonl \
    vectors/saxpy.jsonl vectors/vector.jsonl; do
    expect_rc "data/$f is in the project" 0 test -s "data/$f"
done
expect_out "data/maps holds all of upstream's 22 maps" 22 sh -c 'ls data/maps/*.txt | wc -l | tr -d " "'
finish
