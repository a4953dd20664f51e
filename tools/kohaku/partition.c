/* The MPI build's partitioning of a machine (tools/kohaku/partition.h). */
#include <stdio.h>

#include "partition.h"

#ifdef KH_MPI
#include <mpi.h>

#include "kohaku/mpi.h"

void kh_cli_mpi_init(int *argc, char ***argv)
{
    int rank = 0;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank && !freopen("/dev/null", "w", stdout)) fprintf(stderr, "kohaku: rank %d: cannot silence stdout\n", rank);
}

void kh_cli_mpi_finish(void) { MPI_Finalize(); }

kh_cli_part *kh_cli_partition(kh_machine *m, int trace_or_check, char *err, size_t errlen)
{
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1 && trace_or_check) {
        snprintf(err, errlen, "--trace and --check see one rank's meshes only: run them in one process "
                 "(docs/mpi.md)");
        return NULL;
    }
    err[0] = 0;
    return (kh_cli_part *)kh_mpi_attach(m, err, errlen);
}

void kh_cli_unpartition(kh_cli_part *p) { kh_mpi_detach((kh_mpi *)p); }

#else

void kh_cli_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

void kh_cli_mpi_finish(void) {}

kh_cli_part *kh_cli_partition(kh_machine *m, int trace_or_check, char *err, size_t errlen)
{
    (void)m;
    (void)trace_or_check;
    if (errlen) err[0] = 0;
    return NULL;
}

void kh_cli_unpartition(kh_cli_part *p) { (void)p; }

#endif
