# kohaku flit encode / decode (../shared/cli.md; flits.md §9, §10).
. tests/cli/lib.inc

# flits.md §10: CU_INST to (3,2) from (0,1), txn 0x2A, last -> header 320152A8
expect_out "encode: worked header of flits.md 10" \
    "320152a80000000000000000000000000000000000000000000000000000000000000000" \
    "$KOHAKU" flit encode cu_inst dst_x=3 dst_y=2 src_x=0 src_y=1 txn=0x2A last=1
# streaming MEM_RD_RESP, word 3 -> 2201210B
expect_out "encode: read response with word index" \
    "2201210b0000000000000000000000000000000000000000000000000000000000000000" \
    "$KOHAKU" flit encode mem_rd_resp dst_x=2 dst_y=2 src_x=0 src_y=1 txn=0x10 last=1 rsvd=3
# addr is the whole 40 bits at [255:216]
expect_out "encode: 40-bit address at [255:216]" \
    "00000000123456789a034005000000000000000000000000000000000000000000000000" \
    "$KOHAKU" flit encode mem_rd_req addr=0x123456789A len=3 flags=0x40 count=5
expect_out "encode: enum names" \
    "000070000101000000000000000000000000000000000000000000000000000000000000" \
    "$KOHAKU" flit encode cu_ctrl op=write index=cu_status
expect_rc "encode: unknown TYPE is a refused value (docs/exit-status.md)" 1 "$KOHAKU" flit encode nope
expect_err_has "encode: unknown field named" "no field 'bogus'" "$KOHAKU" flit encode cu_signal bogus=1
expect_err_has "encode: value too wide named" "dst_x=16 does not fit 4 bits" "$KOHAKU" flit encode cu_signal dst_x=16
expect_rc "encode: value too wide refused" 1 "$KOHAKU" flit encode cu_signal dst_x=16
expect_rc "encode: type is implied" 1 "$KOHAKU" flit encode cu_signal type=1

H=$("$KOHAKU" flit encode cu_signal dst_x=0 dst_y=1 src_x=3 src_y=2 txn=0x2A last=1 code=batch_complete arg=0x2a)
expect_out "encode: completion header 013262A8" "013262a8" printf %.8s "$H"
expect_out "decode: type first" "type=cu_signal" sh -c "\"$KOHAKU\" flit decode $H | head -n 1"
expect_out "decode: code by name" "code=batch_complete" sh -c "\"$KOHAKU\" flit decode $H | grep '^code='"
expect_rc "decode: clean flit passes" 0 "$KOHAKU" flit decode "$H"
expect_out "decode: says which checks need context" "1" \
    sh -c "\"$KOHAKU\" flit decode $H | grep -c 'not checked without context: V8'"

# V13: a write of more than 8 beats
W=$("$KOHAKU" flit encode mem_wr_req addr=0x1000 len=8 2>/dev/null)
expect_rc "decode: V13 len > 7 exits 1" 1 "$KOHAKU" flit decode "$W"
expect_err_has "decode: V13 names field and value" "V13 MEM_WR_REQ len=8" "$KOHAKU" flit decode "$W"
# V1: an unallocated type
expect_rc "decode: V1 type 0x9" 1 "$KOHAKU" flit decode 000090080000000000000000000000000000000000000000000000000000000000000000
# 0x7 decodes as a request unless --as says reply
R=$("$KOHAKU" flit encode cu_ctrl_reply op=read_resp index=0 value=0x5643 last=1)
expect_out "decode --as cu_ctrl_reply" "type=cu_ctrl_reply" sh -c "\"$KOHAKU\" flit decode $R --as cu_ctrl_reply | head -n 1"
expect_out "decode of 0x7 is a request by default" "type=cu_ctrl" sh -c "\"$KOHAKU\" flit decode $R | head -n 1"
expect_rc "decode --as with another type code" 1 "$KOHAKU" flit decode "$R" --as cu_data
D=$("$KOHAKU" flit encode cu_data_data data=0x0000000000000000000000000000000000000000000000000000000000001234)
expect_out "decode --as cu_data_data prints data" \
    "data=0x0000000000000000000000000000000000000000000000000000000000001234" \
    sh -c "\"$KOHAKU\" flit decode $D --as cu_data_data | grep '^data='"
expect_out "encode/decode round trip" "$D" sh -c \
    "\"$KOHAKU\" flit encode cu_data_data \$(\"$KOHAKU\" flit decode $D --as cu_data_data | grep -v '^type=' | grep -v '^#' | tr '\n' ' ')"
expect_rc "decode: short hex refused" 1 "$KOHAKU" flit decode 1234
expect_err_has "decode: bad digit named" "bad hex digit 'g'" "$KOHAKU" flit decode g00000000000000000000000000000000000000000000000000000000000000000000000
expect_rc "flit --help" 0 "$KOHAKU" flit --help
expect_rc "flit without args is usage" 2 "$KOHAKU" flit
finish
