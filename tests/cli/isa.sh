# kohaku isa: listing and generators (../shared/cli.md).
. tests/cli/lib.inc
expect_out "c-header says where it came from" "/* generated from isa/cluster.isa by isagen; do not edit */" \
    sh -c "\"$KOHAKU\" isa --emit c-header cluster | head -n 1"
expect_out "c-header of a unit is the build's header" "" \
    sh -c "\"$KOHAKU\" isa --emit c-header cluster | diff - \"$(dirname "$KOHAKU")/gen/kohaku/gen/cluster.h\""
expect_out "verilog: opcode wire as the RTL writes it" "wire [3:0]         i_op = inst_flit[255 -: 4];" \
    sh -c "\"$KOHAKU\" isa --emit verilog cluster | grep -o 'wire \[3:0\] *i_op = inst_flit\[255 -: 4\];'"
expect_out "verilog: split address as a concatenation" "i_addr = {inst_flit[68 -: 6], inst_flit[251 -: 34]};" \
    sh -c "\"$KOHAKU\" isa --emit verilog cluster | grep -o 'i_addr = {.*};'"
expect_out "verilog: vector DESC value split" "i_value = {inst_flit[68 -: 6], inst_flit[245 -: 34]};" \
    sh -c "\"$KOHAKU\" isa --emit verilog vector | grep -o 'i_value = {.*};'"
expect_out "verilog: generated-by line" "// generated from isa/vector_inner.isa by kohaku isa --emit verilog; do not edit" \
    sh -c "\"$KOHAKU\" isa --emit verilog vector-inner | head -n 1"
expect_out "markdown: cluster's addr row" "| {[68:63],[251:218]} | addr | 40 | 0 | FILL, GEMM, DRAIN |" \
    sh -c "\"$KOHAKU\" isa --emit markdown cluster | grep -o '^| {\[68:63\],\[251:218\]} | addr | 40 | 0 | FILL, GEMM, DRAIN |'"
expect_out "markdown: nk default 1" "| [183:176] | nk | 8 | 1 |" \
    sh -c "\"$KOHAKU\" isa --emit markdown cluster | grep -o '^| \[183:176\] | nk | 8 | 1 |'"
expect_rc "emit of a layout's table (flit)" 0 "$KOHAKU" isa --emit c-header hdr
expect_rc "emit of the mover table" 0 "$KOHAKU" isa --emit markdown mover
expect_rc "unknown name" 1 "$KOHAKU" isa --emit verilog nope
expect_rc "bad kind is usage" 2 "$KOHAKU" isa --emit pdf cluster
# as many units as the tables define (a new unit's table adds one: the guide's walk-through)
expect_out "listing names every unit" "$(cat isa/*.isa | grep -c '^ *unit ')" sh -c "\"$KOHAKU\" isa | grep -c ' unit '"
expect_out "help names every unit of the tables" "$(grep -h '^ *unit ' isa/*.isa | awk '{print $2}' | sort | tr '\n' ' ')" \
    sh -c "\"$KOHAKU\" asm --help | sed -n 's/.*UNIT (\(.*\)) from.*/\1/p' | tr -d ',' | tr ' ' '\n' | sort | tr '\n' ' '"
expect_out "listing of one unit" "1" sh -c "\"$KOHAKU\" isa saxpy | grep -c 'opcode SAXPY'"
expect_rc "isa --help" 0 "$KOHAKU" isa --help
finish
