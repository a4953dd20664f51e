/* Which busy parts of a node cannot lead to its interlink (docs/mpi.md
 * "Lane promises"): the mover writing inside its own mesh, and the memory
 * path when the mover is all it serves (it wakes only the requesters it
 * answers). Everything else that could (ports taking remote flits, the
 * interlink, the host channel, remote landings) answers 0. */
#include "kohaku/ilink.h"
#include "sysnode/ilink/ilink_int.h"
#include "sysnode/mover/mover_int.h"
#include "sysnode/port/conv.h"

int kh_node_busy_stays_local(kh_node *n, const kh_comp *c)
{
    unsigned mesh;
    if (!n->ilink || !n->mover || !kh_ilink_settled_mesh(n->ilink, &mesh)) return 0;
    if (!n->mover->elems_tracked) kh_mover_elems_recount(n->mover); /* from now on at each push */
    if (!kh_mover_stays_local(n->mover, mesh)) return 0;
    if (c == &n->mover->c) return 1;
    return c == (const kh_comp *)n->conv && kh_conv_serves_only(n->conv, &n->mover->c);
}

int kh_node_mover_stays_local(kh_node *n)
{
    unsigned mesh;
    if (!n->mover) return 1;
    if (!n->ilink || !kh_ilink_settled_mesh(n->ilink, &mesh)) return 0;
    if (!n->mover->elems_tracked) kh_mover_elems_recount(n->mover);
    return kh_mover_stays_local(n->mover, mesh);
}

int kh_node_landed(const kh_node *n) { return n->ilink && kh_ilink_landed(n->ilink); }

int kh_node_landing(const kh_node *n) { return n->ilink && kh_ilink_landing(n->ilink); }

kh_cycle kh_node_entry_take(kh_node *n) { return n->ilink ? kh_ilink_entry_take(n->ilink) : KH_NEVER; }
