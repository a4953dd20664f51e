/* The inner opcode table (vector.md §4.2): one row per opcode, its name and
 * its semantic body. ORDER OP: the codes come from isa/vector_inner.isa. */
#include "kohaku/gen/vector_inner.h"

#include "cu/units/vector/vec.h"

static const vec_opdef ops[32] = {
    /* ALU form: the ALU sees 0x00-0x0D unchanged and 0x0E-0x11 as 16-19 (§4.2) */
    [KH_VINNER_OP_VMOV] = {"VMOV", kh_vec_exec_alu, KH_VALU_MOV},
    [KH_VINNER_OP_VNEG] = {"VNEG", kh_vec_exec_alu, KH_VALU_NEG},
    [KH_VINNER_OP_VABS] = {"VABS", kh_vec_exec_alu, KH_VALU_ABS},
    [KH_VINNER_OP_VADD] = {"VADD", kh_vec_exec_alu, KH_VALU_ADD},
    [KH_VINNER_OP_VSUB] = {"VSUB", kh_vec_exec_alu, KH_VALU_SUB},
    [KH_VINNER_OP_VMUL] = {"VMUL", kh_vec_exec_alu, KH_VALU_MUL},
    [KH_VINNER_OP_VFMA] = {"VFMA", kh_vec_exec_alu, KH_VALU_FMA},
    [KH_VINNER_OP_VFNMA] = {"VFNMA", kh_vec_exec_alu, KH_VALU_FNMA},
    [KH_VINNER_OP_VMAX] = {"VMAX", kh_vec_exec_alu, KH_VALU_MAX},
    [KH_VINNER_OP_VMIN] = {"VMIN", kh_vec_exec_alu, KH_VALU_MIN},
    [KH_VINNER_OP_VSEL] = {"VSEL", kh_vec_exec_alu, KH_VALU_SEL},
    [KH_VINNER_OP_VCMPLT] = {"VCMPLT", kh_vec_exec_alu, KH_VALU_CMPLT},
    [KH_VINNER_OP_VCMPGT] = {"VCMPGT", kh_vec_exec_alu, KH_VALU_CMPGT},
    [KH_VINNER_OP_VCMPEQ] = {"VCMPEQ", kh_vec_exec_alu, KH_VALU_CMPEQ},
    [KH_VINNER_OP_VEXP2] = {"VEXP2", kh_vec_exec_alu, KH_VALU_EXP2},
    [KH_VINNER_OP_VLOG2] = {"VLOG2", kh_vec_exec_alu, KH_VALU_LOG2},
    [KH_VINNER_OP_VINV] = {"VINV", kh_vec_exec_alu, KH_VALU_INV},
    [KH_VINNER_OP_VRSQRT] = {"VRSQRT", kh_vec_exec_alu, KH_VALU_RSQRT},
    /* the rest (§5) */
    [KH_VINNER_OP_VCVT] = {"VCVT", kh_vec_exec_vcvt, -1},
    [KH_VINNER_OP_VRED] = {"VRED", kh_vec_exec_vred, -1},
    [KH_VINNER_OP_VLD] = {"VLD", kh_vec_exec_vld, -1},
    [KH_VINNER_OP_VST] = {"VST", kh_vec_exec_vst, -1},
    [KH_VINNER_OP_VBCAST] = {"VBCAST", kh_vec_exec_vbcast, -1},
    [KH_VINNER_OP_VSHUF] = {"VSHUF", kh_vec_exec_vshuf, -1},
    [KH_VINNER_OP_VSETVL] = {"VSETVL", kh_vec_exec_vsetvl, -1},
    [KH_VINNER_OP_VSETMODE] = {"VSETMODE", kh_vec_exec_vsetmode, -1},
    [KH_VINNER_OP_VSETI] = {"VSETI", kh_vec_exec_vseti, -1},
    [KH_VINNER_OP_VLOOP] = {"VLOOP", kh_vec_exec_vloop, -1},
    [KH_VINNER_OP_VBAR] = {"VBAR", kh_vec_exec_vbar, -1},
    [KH_VINNER_OP_VFILL] = {"VFILL", kh_vec_exec_vfill, -1},
    [KH_VINNER_OP_VDRAIN] = {"VDRAIN", kh_vec_exec_vdrain, -1},
    [KH_VINNER_OP_VHALT] = {"VHALT", kh_vec_exec_vhalt, -1},
};

const vec_opdef *kh_vec_opdef_of(unsigned op) { return &ops[op & 31]; }

int kh_vec_is_compare(unsigned alu_op)
{
    return alu_op == KH_VALU_CMPLT || alu_op == KH_VALU_CMPGT || alu_op == KH_VALU_CMPEQ;
}
