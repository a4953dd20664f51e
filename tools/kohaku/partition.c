/* The MPI build's partitioning of a machine (tools/kohaku/partition.h). */
#include <stdio.h>
#include <stdlib.h>

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

kh_cli_part *kh_cli_partition(kh_machine *m, char *err, size_t errlen)
{
    err[0] = 0;
    return (kh_cli_part *)kh_mpi_attach(m, err, errlen);
}

/* KOHAKU_MPI_COUNTS=1: rank 0 reports the synchronisation's cost (docs/mpi.md). */
void kh_cli_unpartition(kh_cli_part *p)
{
    kh_mpi *d = (kh_mpi *)p;
    if (d && kh_mpi_rank(d) == 0 && getenv("KOHAKU_MPI_COUNTS")) {
        kh_mpi_counts n;
        kh_mpi_get_counts(d, &n);
        fprintf(stderr, "kohaku: mpi: %d rank(s), lookahead %lld, %llu agreements, %llu lane messages (%llu bytes), "
                "%llu shared values\n", kh_mpi_size(d), n.lookahead == KH_NEVER ? -1LL : (long long)n.lookahead,
                (unsigned long long)n.windows, (unsigned long long)n.messages, (unsigned long long)n.bytes,
                (unsigned long long)n.shares);
    }
    kh_mpi_detach(d);
}

int kh_cli_checkout_end(kh_cli_part *p, kh_checkout *o)
{
    kh_mpi *d = (kh_mpi *)p;
    if (!d) return kh_checkout_end(o);
    uint64_t v[4] = {o->violations, o->warnings, o->sent, o->delivered};
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    o->violations = v[0];
    o->warnings = v[1];
    o->sent = v[2];
    o->delivered = v[3];
    if (kh_mpi_rank(d) == 0) return kh_checkout_end(o);
    return o->violations ? 1 : 0;
}

#else

void kh_cli_mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

void kh_cli_mpi_finish(void) {}

kh_cli_part *kh_cli_partition(kh_machine *m, char *err, size_t errlen)
{
    (void)m;
    if (errlen) err[0] = 0;
    return NULL;
}

void kh_cli_unpartition(kh_cli_part *p) { (void)p; }

int kh_cli_checkout_end(kh_cli_part *p, kh_checkout *o)
{
    (void)p;
    return kh_checkout_end(o);
}

#endif
