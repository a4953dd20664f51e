/* The inner opcode table (vector.md §4.2): one row per opcode, its name and
 * its semantic body. ORDER OP: the codes come from isa/vector_inner.isa. */
#include "kohaku/gen/vector_inner.h"

#include "cu/units/vector/vec.h"

static const vec_opdef ops[32] = {
    /* ALU form: the ALU sees 0x00-0x0D unchanged and 0x0E-0x11 as 16-19 (§4.2) */
    [KH_VINNER_OP_VMOV] = {"VMOV", vec_exec_alu, KH_VALU_MOV},
    [KH_VINNER_OP_VNEG] = {"VNEG", vec_exec_alu, KH_VALU_NEG},
    [KH_VINNER_OP_VABS] = {"VABS", vec_exec_alu, KH_VALU_ABS},
    [KH_VINNER_OP_VADD] = {"VADD", vec_exec_alu, KH_VALU_ADD},
    [KH_VINNER_OP_VSUB] = {"VSUB", vec_exec_alu, KH_VALU_SUB},
    [KH_VINNER_OP_VMUL] = {"VMUL", vec_exec_alu, KH_VALU_MUL},
    [KH_VINNER_OP_VFMA] = {"VFMA", vec_exec_alu, KH_VALU_FMA},
    [KH_VINNER_OP_VFNMA] = {"VFNMA", vec_exec_alu, KH_VALU_FNMA},
    [KH_VINNER_OP_VMAX] = {"VMAX", vec_exec_alu, KH_VALU_MAX},
    [KH_VINNER_OP_VMIN] = {"VMIN", vec_exec_alu, KH_VALU_MIN},
    [KH_VINNER_OP_VSEL] = {"VSEL", vec_exec_alu, KH_VALU_SEL},
    [KH_VINNER_OP_VCMPLT] = {"VCMPLT", vec_exec_alu, KH_VALU_CMPLT},
    [KH_VINNER_OP_VCMPGT] = {"VCMPGT", vec_exec_alu, KH_VALU_CMPGT},
    [KH_VINNER_OP_VCMPEQ] = {"VCMPEQ", vec_exec_alu, KH_VALU_CMPEQ},
    [KH_VINNER_OP_VEXP2] = {"VEXP2", vec_exec_alu, KH_VALU_EXP2},
    [KH_VINNER_OP_VLOG2] = {"VLOG2", vec_exec_alu, KH_VALU_LOG2},
    [KH_VINNER_OP_VINV] = {"VINV", vec_exec_alu, KH_VALU_INV},
    [KH_VINNER_OP_VRSQRT] = {"VRSQRT", vec_exec_alu, KH_VALU_RSQRT},
    /* the rest (§5) */
    [KH_VINNER_OP_VCVT] = {"VCVT", vec_exec_vcvt, -1},
    [KH_VINNER_OP_VRED] = {"VRED", vec_exec_vred, -1},
    [KH_VINNER_OP_VLD] = {"VLD", vec_exec_vld, -1},
    [KH_VINNER_OP_VST] = {"VST", vec_exec_vst, -1},
    [KH_VINNER_OP_VBCAST] = {"VBCAST", vec_exec_vbcast, -1},
    [KH_VINNER_OP_VSHUF] = {"VSHUF", vec_exec_vshuf, -1},
    [KH_VINNER_OP_VSETVL] = {"VSETVL", vec_exec_vsetvl, -1},
    [KH_VINNER_OP_VSETMODE] = {"VSETMODE", vec_exec_vsetmode, -1},
    [KH_VINNER_OP_VSETI] = {"VSETI", vec_exec_vseti, -1},
    [KH_VINNER_OP_VLOOP] = {"VLOOP", vec_exec_vloop, -1},
    [KH_VINNER_OP_VBAR] = {"VBAR", vec_exec_vbar, -1},
    [KH_VINNER_OP_VFILL] = {"VFILL", vec_exec_vfill, -1},
    [KH_VINNER_OP_VDRAIN] = {"VDRAIN", vec_exec_vdrain, -1},
    [KH_VINNER_OP_VHALT] = {"VHALT", vec_exec_vhalt, -1},
};

const vec_opdef *vec_opdef_of(unsigned op) { return &ops[op & 31]; }

int vec_is_alu_op(unsigned op) { return ops[op & 31].body == vec_exec_alu; }

int vec_is_compare(unsigned alu_op)
{
    return alu_op == KH_VALU_CMPLT || alu_op == KH_VALU_CMPGT || alu_op == KH_VALU_CMPEQ;
}
