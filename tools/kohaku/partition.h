/* The MPI build's partitioning of a machine for `run` and `gemm`
 * (docs/mpi.md); in the default build these do nothing. */
#ifndef KOHAKU_CLI_PARTITION_H
#define KOHAKU_CLI_PARTITION_H

#include <stddef.h>

#include "kohaku/machine.h"

/* MPI_Init (MPI build), and stdout to /dev/null on every rank but 0, which
 * prints for all of them. */
void kh_cli_mpi_init(int *argc, char ***argv);
void kh_cli_mpi_finish(void);

typedef struct kh_cli_part kh_cli_part;
/* Partition m across the ranks (NULL in the default build, and a NULL
 * with *err set when refused: --check, the live checker, is per process).
 * --trace works: the file is merged per mesh (docs/mpi.md). */
kh_cli_part *kh_cli_partition(kh_machine *m, int check, char *err, size_t errlen);
void kh_cli_unpartition(kh_cli_part *p);

#endif
