/* The mover's reading for the MPI lane promises (docs/mpi.md "Lane
 * promises", src/sysnode/mover/mover_reach.c): it says "stays in mesh M"
 * only when every address its destination walk can still name is in M.
 * Expected values from the address map (isa/addr.isa: the mesh field)
 * and the walker's odometer (walker.c), not from the reading itself. */
#include <stdlib.h>

#include "kohaku/addr.h"
#include "support/test.h"
#include "sysnode/mover/mover_int.h"
#include "sysnode/node_int.h"

/* the mesh field's unit (isa/addr.isa: mesh [37:36]) */
static uint64_t mesh_step(void)
{
    uint64_t step = 0;
    kh_addr_set_mesh(&step, 1);
    return step;
}

/* A running COPY in mesh 1, 2 MiB below its end: 16 elements 64 KiB apart
 * (element 32 would be the first byte of mesh 2). */
static kh_mover *running_in_mesh_1(void)
{
    kh_mover *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->walk[1].base = mesh_step() + (mesh_step() - 0x200000);
    m->walk[1].ndim = 1;
    m->walk[1].dim[0].count = 16;
    m->walk[1].dim[0].stride = 0x10000;
    m->dw.d = &m->walk[1];
    m->running = 1;
    return m;
}

static void a_walk_inside_its_mesh_stays(void)
{
    kh_mover *m = running_in_mesh_1();
    CHECK(m != NULL);
    if (!m) return;
    CHECK(kh_mover_stays_local(m, 1));
    CHECK(!kh_mover_stays_local(m, 0)); /* its mesh is 1, not 0 */
    m->walk[1].dim[0].count = 64; /* elements 32 to 63 are mesh 2's */
    CHECK(!kh_mover_stays_local(m, 1));
    free(m);
}

/* A register write during the move shrinks the count under the walker's
 * position (memory.md Open point 12: it acts at once): the walk still names
 * the element at that position before it wraps. */
static void a_count_shrunk_under_the_walker_counts_its_position(void)
{
    kh_mover *m = running_in_mesh_1();
    CHECK(m != NULL);
    if (!m) return;
    m->dw.idx[0] = 32; /* mesh 2's first byte */
    CHECK(!kh_mover_stays_local(m, 1));
    m->dw.idx[0] = 3; /* inside the count again */
    CHECK(kh_mover_stays_local(m, 1));
    /* a stale index of a dimension a larger ndim brings back */
    m->walk[1].ndim = 2;
    m->walk[1].dim[1].count = 1;
    m->walk[1].dim[1].stride = 0x10000;
    m->dw.idx[1] = 32;
    CHECK(!kh_mover_stays_local(m, 1));
    free(m);
}

/* An XFORM entry under way writes its remaining beats to the D_k taken at
 * its first beat, whatever the registers say since. */
static void an_xform_entry_under_way_counts_its_destination(void)
{
    kh_mover *m = running_in_mesh_1();
    CHECK(m != NULL);
    if (!m) return;
    m->in_beats = 4;
    m->e = 5;        /* the second entry, one beat in */
    m->pdst = 0;     /* taken before a write moved the walk: mesh 0 */
    CHECK(!kh_mover_stays_local(m, 1));
    m->e = 8;        /* an entry boundary: the next D_k comes from the walk */
    CHECK(kh_mover_stays_local(m, 1));
    free(m);
}

/* Elements produced before a register write moved the walk go on to their
 * own addresses: each must lie in the mesh whole, with an XFORM entry's
 * widest output (xout: 4 words of 32 bytes) from its address on. Once
 * tracked (the first reading under MPI), the reading keeps a count at each
 * push, as the producer does, and never walks the ring; untracked (one
 * process) it walks it; pops take the oldest. Both must answer alike. */
static void push(kh_mover *m, uint64_t daddr)
{
    mv_elem e = {.kind = EK_FILL, .daddr = daddr};
    CHECK(kh_ring_push(&m->elems, &e) == 0);
    if (m->elems_tracked) kh_mover_elem_pushed(m, daddr);
}

static void produced_elements(int tracked)
{
    kh_mover *m = running_in_mesh_1();
    CHECK(m != NULL);
    if (!m) return;
    kh_ring_init(&m->elems, sizeof(mv_elem));
    uint64_t in1 = mesh_step() + 0x1000, in2 = 2 * mesh_step() + 0x1000;
    push(m, in1);
    if (tracked) kh_mover_elems_recount(m); /* tracking starts with one element queued */
    push(m, in2);        /* from before a write moved the walk into mesh 1 */
    push(m, in1);
    push(m, in1 + 32);
    CHECK(!kh_mover_stays_local(m, 1));
    kh_ring_pop(&m->elems);
    CHECK(!kh_mover_stays_local(m, 1)); /* mesh 2's element is still queued */
    kh_ring_pop(&m->elems);
    CHECK(kh_mover_stays_local(m, 1));  /* the two left are mesh 1's */
    CHECK(!kh_mover_stays_local(m, 2));
    push(m, 2 * mesh_step() - 32); /* an entry's second output word would be mesh 2's first */
    CHECK(!kh_mover_stays_local(m, 1));
    kh_ring_pop(&m->elems);
    kh_ring_pop(&m->elems);
    kh_ring_pop(&m->elems);
    push(m, 2 * mesh_step() - 1024); /* every output word in mesh 1 */
    CHECK(kh_mover_stays_local(m, 1));
    CHECK(m->elems_tracked == tracked); /* the reading itself starts nothing */
    if (tracked) { /* a restored checkpoint counts its ring again */
        m->elems_mesh = 0;
        m->elems_run = 0;
        kh_mover_elems_recount(m);
        CHECK(kh_mover_stays_local(m, 1));
        push(m, in2);
        m->elems_run = 0;
        kh_mover_elems_recount(m);
        CHECK(!kh_mover_stays_local(m, 1));
    }
    kh_ring_free(&m->elems);
    free(m);
}

static void produced_elements_count_their_own_addresses(void)
{
    produced_elements(1);
    produced_elements(0);
}

int main(void)
{
    KH_RUN(a_walk_inside_its_mesh_stays);
    KH_RUN(a_count_shrunk_under_the_walker_counts_its_position);
    KH_RUN(an_xform_entry_under_way_counts_its_destination);
    KH_RUN(produced_elements_count_their_own_addresses);
    return kh_test_end("t_mover_reach");
}
