/* The interlink's mesh id as every later cycle will see it (docs/mpi.md
 * "Lane promises"): settled when no register write is queued (they apply
 * lazily, without a wake) and no fault waits to be raised. Only reads.
 * Whether a flit from another mesh ever entered this one, how many
 * landing writes still wait for their response, and the
 * checking mode's first entry towards a lane. */
#include "sysnode/ilink/ilink_int.h"

int kh_ilink_settled_mesh(const kh_ilink *il, unsigned *mesh)
{
    if (kh_ring_count(&il->regw) || il->fault_ext || il->st.mesh != il->old.mesh) return 0;
    *mesh = il->st.mesh;
    return 1;
}

int kh_ilink_landed(const kh_ilink *il) { return il->landed; }

unsigned kh_ilink_landing(const kh_ilink *il) { return il->land_out; }

kh_cycle kh_ilink_entry_take(kh_ilink *il)
{
    kh_cycle t = il->entry_min;
    il->entry_min = KH_NEVER;
    return t;
}
