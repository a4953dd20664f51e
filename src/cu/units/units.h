/* The unit kinds the registry knows (one definition per unit file). */
#ifndef KOHAKU_CU_UNITS_H
#define KOHAKU_CU_UNITS_H

#include "kohaku/cu.h"

extern const kh_unit_kind kh_unit_cluster; /* mx_cluster_cu, token mat (cluster.md) */
extern const kh_unit_kind kh_unit_vector;  /* vec_cu, token vec (vector.md) */
extern const kh_unit_kind kh_unit_matmul;  /* mx_matmul_cu, token mxm (matmul_saxpy.md §1) */
extern const kh_unit_kind kh_unit_saxpy;   /* saxpy_cu, token sax (matmul_saxpy.md §2) */

#endif
