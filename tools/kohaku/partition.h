/* The MPI build's partitioning of a machine for `run` and `gemm`
 * (docs/mpi.md); in the default build these do nothing. */
#ifndef KOHAKU_CLI_PARTITION_H
#define KOHAKU_CLI_PARTITION_H

#include <stddef.h>

#include "kohaku/machine.h"
#include "simout.h"

/* MPI_Init (MPI build), and stdout to /dev/null on every rank but 0, which
 * prints for all of them. */
void kh_cli_mpi_init(int *argc, char ***argv);
void kh_cli_mpi_finish(void);

typedef struct kh_cli_part kh_cli_part;
/* Partition m across the ranks (NULL in the default build, and a NULL
 * with *err set when refused: more ranks than meshes). --trace is merged
 * per mesh (docs/mpi.md); --check runs on each rank's meshes and
 * kh_cli_checkout_end merges its counts. */
kh_cli_part *kh_cli_partition(kh_machine *m, char *err, size_t errlen);
void kh_cli_unpartition(kh_cli_part *p);

/* kh_checkout_end over every rank (collective): the counts summed, the
 * summary printed by rank 0 only; 1 if any rank saw a violation. */
int kh_cli_checkout_end(kh_cli_part *p, kh_checkout *o);

#endif
