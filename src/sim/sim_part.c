/* The kernel's share of a save under MPI (docs/checkpoint.md "Under MPI"):
 * each process holds a whole replica but steps only its meshes, so the
 * wakes and links of a mesh's components are read where they are stepped
 * and loaded over another replica; the counts are each process's additions
 * since the partition, summed. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "sim/sim_int.h"

uint64_t kh_sim_occ(const kh_sim *sim)
{
    uint64_t occ = 0;
    for (unsigned s = 0; s < KH_WHEEL; s++) {
        int any = sim->sched.timers[s] != NULL;
        for (unsigned w = 0; w < sim->sched.nwords && !any; w++) any = sim->sched.wheel[w * KH_WHEEL + s] != 0;
        if (any) occ |= UINT64_C(1) << s;
    }
    return occ;
}

static int in(unsigned id, unsigned lo, unsigned hi) { return id >= lo && id < hi; }

/* The component a link's state is read from: its sender, or its receiver
 * when the sender is none or a shared component (every process has it). */
static int link_here(const kh_link *l, unsigned lo, unsigned hi, unsigned mesh_end)
{
    if (l->src && l->src->id < mesh_end) return in(l->src->id, lo, hi);
    return l->dst && in(l->dst->id, lo, hi);
}

static void wheel_part(kh_sim *sim, unsigned lo, unsigned hi, kh_ck *ck)
{
    int load = kh_ck_loading(ck);
    for (unsigned id = lo; id < hi && id < sim->ncomps && !kh_ck_failed(ck); id++) {
        uint64_t *word = &sim->sched.wheel[(id >> 6) * KH_WHEEL], bit = UINT64_C(1) << (id & 63), slots = 0;
        for (unsigned s = 0; s < KH_WHEEL; s++)
            if (word[s] & bit) slots |= UINT64_C(1) << s;
        KH_CK(ck, slots);
        if (!load) continue;
        for (unsigned s = 0; s < KH_WHEEL; s++) word[s] = (word[s] & ~bit) | (slots >> s & 1 ? bit : 0);
    }
}

static void heap_part(kh_sim *sim, unsigned lo, unsigned hi, kh_ck *ck)
{
    uint64_t mine = 0;
    for (size_t i = 0; i < sim->nheap; i++) mine += in(sim->heap[i].id, lo, hi);
    if (!kh_ck_loading(ck)) {
        KH_CK(ck, mine);
        for (size_t i = 0; i < sim->nheap; i++)
            if (in(sim->heap[i].id, lo, hi)) {
                KH_CK(ck, sim->heap[i].t);
                KH_CK(ck, sim->heap[i].id);
            }
        return;
    }
    size_t n = (size_t)kh_ck_count(ck, 0, (uint64_t)1 << 32, "wakes in the heap");
    if (kh_ck_failed(ck)) return;
    size_t keep = 0; /* the replica's own wakes of [lo, hi) go; sorted afterwards (kh_sim_part_finish) */
    for (size_t i = 0; i < sim->nheap; i++)
        if (!in(sim->heap[i].id, lo, hi)) sim->heap[keep++] = sim->heap[i];
    if (keep + n > sim->capheap) {
        kh_wake_ent *h = realloc(sim->heap, (keep + n) * sizeof *h);
        if (!h) {
            kh_ck_fail(ck, "out of memory merging %zu wakes", n);
            return;
        }
        sim->heap = h;
        sim->capheap = keep + n;
    }
    for (size_t i = 0; i < n; i++) {
        kh_wake_ent e = {0, 0};
        KH_CK(ck, e.t);
        KH_CK(ck, e.id);
        if (!in(e.id, lo, hi)) {
            kh_ck_fail(ck, "a wake for component %u, not one of %u..%u", e.id, lo, hi);
            return;
        }
        sim->heap[keep + i] = e;
    }
    sim->nheap = keep + n;
}

void kh_sim_part_ckpt(kh_sim *sim, unsigned lo, unsigned hi, unsigned mesh_end, kh_ck *ck)
{
    wheel_part(sim, lo, hi, ck);
    heap_part(sim, lo, hi, ck);
    for (unsigned i = 0; i < sim->nlinks && !kh_ck_failed(ck); i++)
        if (link_here(sim->links[i], lo, hi, mesh_end)) kh_sim_link_ckpt(sim->links[i], ck);
}

void kh_sim_part_counts(kh_sim *sim, kh_ck *ck)
{
    int whole = sim->sync && sim->sync->leader;
    if (!kh_ck_loading(ck)) {
        uint64_t steps = whole ? sim->steps : sim->steps - sim->part_steps0 - sim->shared_steps;
        KH_CK(ck, steps);
        for (unsigned l = 0; l < 4; l++) {
            uint32_t n = whole ? sim->log_counts[l] : sim->log_counts[l] - sim->part_log0[l];
            KH_CK(ck, n);
        }
        kh_sim_diag_part(sim, ck, whole);
        return;
    }
    uint64_t steps = 0;
    KH_CK(ck, steps);
    sim->steps += steps;
    for (unsigned l = 0; l < 4; l++) {
        uint32_t n = 0;
        KH_CK(ck, n);
        sim->log_counts[l] += n;
    }
    kh_sim_diag_part(sim, ck, 0);
}

void kh_sim_part_begin(kh_sim *sim)
{
    sim->steps = 0;
    memset(sim->log_counts, 0, sizeof sim->log_counts);
    sim->ndiag = 0;
}

static int wake_cmp(const void *a, const void *b)
{
    const kh_wake_ent *x = a, *y = b;
    if (x->t != y->t) return x->t < y->t ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void kh_sim_heap_sort(kh_sim *sim)
{
    if (sim->nheap > 1) qsort(sim->heap, sim->nheap, sizeof *sim->heap, wake_cmp); /* sorted: a min-heap too */
}

void kh_sim_part_finish(kh_sim *sim)
{
    kh_sim_heap_sort(sim); /* a heap again */
    sim->sched.occ = kh_sim_occ(sim);
    kh_sim_migrate(sim);
}
