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
 * per mesh (docs/mpi.md); --check (ck, NULL without it) runs on each
 * rank's meshes and kh_cli_checkout_end merges its counts. Standard error
 * is merged: each rank keeps its component warnings and ck's findings, and
 * rank 0 prints them in the one-process order at kh_cli_stderr. */
kh_cli_part *kh_cli_partition(kh_machine *m, kh_checkout *ck, char *err, size_t errlen);
/* Prints what is still kept (collective); frees p. */
void kh_cli_unpartition(kh_cli_part *p);
/* Collective: the kept lines of every rank printed by rank 0 in order, then
 * line (NULL: none), an error message, once however many ranks reached it.
 * The default build prints line. */
void kh_cli_stderr(kh_cli_part *p, const char *line);

/* kh_checkout_end over every rank (collective): the counts summed, the
 * summary printed by rank 0 only; 1 if any rank saw a violation. */
int kh_cli_checkout_end(kh_cli_part *p, kh_checkout *o);

#endif
