/* TEMPORARY stand-in for the generated accessors (<kohaku/gen/vector.h>,
 * <kohaku/gen/vector_inner.h>, <kohaku/gen/flit.h>) until the isa stream's
 * engine lands on main. Same shape as docs/isa-format.md's generated API.
 * Only decode.c and flits.c include it; delete it when the tables land. */
#ifndef KOHAKU_VEC_GEN_SHIM_H
#define KOHAKU_VEC_GEN_SHIM_H

#include <stdint.h>

#include "kohaku/bits.h"

#define KH_SHIM_GET(layout, name, lo, w) \
    static inline uint64_t kh_##layout##_##name(const uint64_t *x) { return kh_bits_get(x, lo, w); }
#define KH_SHIM_SET(layout, name, lo, w) \
    static inline void kh_##layout##_set_##name(uint64_t *x, uint64_t v) { kh_bits_set(x, lo, w, v); }
#define KH_SHIM(layout, name, lo, w) KH_SHIM_GET(layout, name, lo, w) KH_SHIM_SET(layout, name, lo, w)

/* vector.md §4.1: the 32-bit inner word */
KH_SHIM(vinner, op, 27, 5)
KH_SHIM(vinner, sa, 25, 2)
KH_SHIM(vinner, sb, 23, 2)
KH_SHIM(vinner, sc, 21, 2)
KH_SHIM(vinner, vd, 17, 4)
KH_SHIM(vinner, va, 13, 4)
KH_SHIM(vinner, vb, 9, 4)
KH_SHIM(vinner, vc, 5, 4)
KH_SHIM(vinner, pr, 3, 2)
KH_SHIM(vinner, pm, 1, 2)
KH_SHIM(vinner, dt, 24, 3)
KH_SHIM(vinner, ad, 21, 3)
KH_SHIM(vinner, off, 0, 14)
static inline int64_t kh_vinner_off_s(const uint64_t *x)
{
    uint64_t v = kh_bits_get(x, 0, 14);
    return (int64_t)(v ^ 0x2000u) - 0x2000;
}
KH_SHIM(vinner, kind, 5, 3)
KH_SHIM(vinner, mode, 13, 2)
KH_SHIM(vinner, l1, 0, 9)
KH_SHIM(vinner, peer, 24, 1)
KH_SHIM(vinner, sig, 25, 1)
KH_SHIM(vinner, dx, 17, 4)
KH_SHIM(vinner, dy, 13, 4)
KH_SHIM(vinner, buf, 9, 4)
KH_SHIM(vimm, imm, 0, 24)
/* vector.md §4.2 */
#define KH_VINNER_OP_VMOV 0
#define KH_VINNER_OP_VNEG 1
#define KH_VINNER_OP_VABS 2
#define KH_VINNER_OP_VADD 3
#define KH_VINNER_OP_VSUB 4
#define KH_VINNER_OP_VMUL 5
#define KH_VINNER_OP_VFMA 6
#define KH_VINNER_OP_VFNMA 7
#define KH_VINNER_OP_VMAX 8
#define KH_VINNER_OP_VMIN 9
#define KH_VINNER_OP_VSEL 10
#define KH_VINNER_OP_VCMPLT 11
#define KH_VINNER_OP_VCMPGT 12
#define KH_VINNER_OP_VCMPEQ 13
#define KH_VINNER_OP_VEXP2 14
#define KH_VINNER_OP_VLOG2 15
#define KH_VINNER_OP_VINV 16
#define KH_VINNER_OP_VRSQRT 17
#define KH_VINNER_OP_VCVT 18
#define KH_VINNER_OP_VRED 19
#define KH_VINNER_OP_VLD 20
#define KH_VINNER_OP_VST 21
#define KH_VINNER_OP_VBCAST 22
#define KH_VINNER_OP_VSHUF 23
#define KH_VINNER_OP_VSETVL 24
#define KH_VINNER_OP_VSETMODE 25
#define KH_VINNER_OP_VSETI 26
#define KH_VINNER_OP_VLOOP 27
#define KH_VINNER_OP_VBAR 28
#define KH_VINNER_OP_VFILL 29
#define KH_VINNER_OP_VDRAIN 30
#define KH_VINNER_OP_VHALT 31
/* vector.md §1.1 */
#define KH_VEC_OP_IMEM 1
#define KH_VEC_OP_DESC 2
#define KH_VEC_OP_RUN 3
/* matmul_saxpy.md §1.2 */
#define KH_MATMUL_OP_BLOCK 1
#define KH_MATMUL_OP_EMIT 2

/* vector.md §1.1: a dimension value {stride s18, bound u16} */
KH_SHIM(vdim, bound, 0, 16)
KH_SHIM(vdim, stride, 16, 18)
static inline int64_t kh_vdim_stride_s(const uint64_t *x)
{
    uint64_t v = kh_bits_get(x, 16, 18);
    return (int64_t)(v ^ 0x20000u) - 0x20000;
}
/* vector.md §8.3: the peer-drain record in a descriptor base */
KH_SHIM(vpeer, offset, 0, 16)
KH_SHIM(vpeer, ack_x, 16, 4)
KH_SHIM(vpeer, ack_y, 20, 4)
KH_SHIM(vpeer, mesh, 24, 2)
KH_SHIM(vpeer, fin_x, 26, 4)
KH_SHIM(vpeer, fin_y, 30, 4)

/* vector.md §1.1: the CU_INST payload of vec_cu */
KH_SHIM(vec, op, 252, 4)
KH_SHIM(vec, addr, 243, 9)
KH_SHIM(vec, ad, 249, 3)
KH_SHIM(vec, fld, 246, 3)
KH_SHIM(vec, word, 0, 32)
static inline uint64_t kh_vec_value(const uint64_t *x)
{
    return kh_bits_get(x, 63, 6) << 34 | kh_bits_get(x, 212, 34);
}
static inline void kh_vec_set_value(uint64_t *x, uint64_t v)
{
    kh_bits_set(x, 212, 34, v);
    kh_bits_set(x, 63, 6, v >> 34);
}

/* matmul_saxpy.md §1.2 */
KH_SHIM(matmul, op, 252, 4)
KH_SHIM(matmul, addr_a, 218, 34)
KH_SHIM(matmul, addr_b, 184, 34)
KH_SHIM(matmul, tile, 180, 4)
KH_SHIM(matmul, first, 179, 1)
KH_SHIM(matmul, anchor, 171, 8)

/* flits.md §2 header */
KH_SHIM(hdr, dst_x, 284, 4)
KH_SHIM(hdr, dst_y, 280, 4)
KH_SHIM(hdr, src_x, 276, 4)
KH_SHIM(hdr, src_y, 272, 4)
KH_SHIM(hdr, type, 268, 4)
KH_SHIM(hdr, txn, 260, 8)
KH_SHIM(hdr, last, 259, 1)
KH_SHIM(hdr, rsvd, 256, 3)
/* flits.md §4.1 */
KH_SHIM(memreq, addr, 216, 40)
KH_SHIM(memreq, len, 208, 8)
KH_SHIM(memreq, flags, 200, 8)
/* flits.md §4.7 */
KH_SHIM(cudata, buf, 248, 8)
KH_SHIM(cudata, offset, 232, 16)
KH_SHIM(cudata, len, 224, 8)
KH_SHIM(cudata, flags, 216, 8)
KH_SHIM(cudata, ack_y, 212, 4)
KH_SHIM(cudata, ack_x, 208, 4)
/* flits.md §4.6 */
KH_SHIM(cusig, code, 248, 8)
KH_SHIM(cusig, arg, 216, 32)

#endif
