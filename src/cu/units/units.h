/* The unit kinds the registry knows (one definition per unit file). */
#ifndef KOHAKU_CU_UNITS_H
#define KOHAKU_CU_UNITS_H

#include "kohaku/cu.h"

extern const kh_unit_kind kh_unit_cluster; /* mx_cluster_cu, token mat (cluster.md) */
extern const kh_unit_kind kh_unit_vector;  /* vec_cu, token vec (vector.md) */
extern const kh_unit_kind kh_unit_vector2; /* vec_cu with the V2 core (docs/vector2.md) */
extern const kh_unit_kind kh_unit_matmul;  /* mx_matmul_cu, token mxm (matmul_saxpy.md §1) */
extern const kh_unit_kind kh_unit_saxpy;   /* saxpy_cu, token sax (matmul_saxpy.md §2) */
extern const kh_unit_kind kh_unit_rv64_sys_pe; /* rv64_sys_pe, token r64 (docs/rv64.md §11; src/rv64/pe.c) */

/* saxpy_x86.c: y = a*x + y through saxpy_cu's integer datapath (ia = f2i of
 * a) over nlines whole 8-element lines with AVX2; 0 where the CPU has no
 * AVX2 (then nothing is done and the caller computes the elements). */
int kh_sx_lines_x86(int32_t ia, const kh_flit *x, kh_flit *y, unsigned nlines);

#endif
