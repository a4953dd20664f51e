/* The matmul cluster's arithmetic alone (cluster.md §5, numerics.md): its
 * L1 entries and the sweep that multiplies them into the resident tile,
 * with no shell, no flits and no time. For benchmarks of the arithmetic
 * (kohaku bench gemm) and tests of it; a simulated cluster is a unit of
 * the machine (kh_unit_kind "mat", cu.h), built by the machine builder. */
#ifndef KOHAKU_CLUSTER_H
#define KOHAKU_CLUSTER_H

#include <stddef.h>

#include "kohaku/num.h"
#include "kohaku/params.h"

typedef struct kh_cluster kh_cluster;

/* A cluster's state with the build parameters of p (cluster_tiles,
 * cluster_ga, cluster_gb, cluster_acc_mw); L1 and the tile start zero.
 * NULL with the reason in err (a refused parameter, no memory). */
kh_cluster *kh_cluster_alloc(const kh_params *p, char *err, size_t errlen);
void kh_cluster_free(kh_cluster *u); /* NULL: nothing */

/* L1 A (side 0) or L1 B (side 1): the entries, *entries of them (GA, GB),
 * for the caller to fill as FILL would (cluster.md §4.3). */
kh_mx_entry *kh_cluster_l1(kh_cluster *u, unsigned side, unsigned *entries);

/* One GEMM sweep (cluster.md §5.1) over gm x gn sub-tiles and nk K blocks
 * from L1 offset 0 of bank 0 on both sides, anchor 40: acc = 0 LOADs the
 * first K block, 1 ADDs onto the tile. The arithmetic only. */
void kh_cluster_sweep(kh_cluster *u, unsigned gm, unsigned gn, unsigned nk, unsigned acc);

#endif
