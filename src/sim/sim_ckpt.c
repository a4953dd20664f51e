/* The kernel's part of a checkpoint (docs/checkpoint.md): the clock, the
 * wake wheel and heap, the counters and diagnostics (section SIM), every
 * link's registers and counters (LINK), then one COMP section per
 * component from its own state function. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "sim/sim_int.h"

void kh_ck_timer(kh_ck *ck, kh_sim *sim, kh_timer *t)
{
    uint8_t armed = kh_timer_armed(t) ? 1 : 0;
    kh_cycle at = armed ? t->at : 0;
    KH_CK(ck, armed);
    KH_CK(ck, at);
    if (!kh_ck_loading(ck) || kh_ck_failed(ck)) return;
    if (kh_timer_armed(t)) kh_timer_disarm(sim, t);
    if (!armed) return;
    if (at < sim->sched.now || at - sim->sched.now >= KH_WHEEL) {
        kh_ck_fail(ck, "%s: a timer at cycle %llu is outside the wheel at cycle %llu", kh_ck_where(ck),
                   (unsigned long long)at, (unsigned long long)sim->sched.now);
        return;
    }
    kh_timer_arm_far(sim, t, at);
}

void kh_ck_fifo(kh_ck *ck, kh_fifo *q)
{
    kh_ck_same(ck, q->cap, "a FIFO's capacity");
    kh_ck_same(ck, q->latency, "a FIFO's latency");
    unsigned head = q->head, count = q->count;
    KH_CK(ck, head);
    KH_CK(ck, count);
    kh_ck_below(ck, head, q->size, "a FIFO's head");
    kh_ck_below(ck, count, (uint64_t)q->cap + 1, "a FIFO's count");
    if (kh_ck_failed(ck)) return;
    q->head = head;
    q->count = count;
    /* the entries held, and the spare before the head (the flit popped
     * last, which a reader may still hold: kh_fifo_pop) */
    for (unsigned k = 0; k <= count; k++) {
        unsigned i = (head + q->size - 1 + k) % q->size;
        kh_ck_flit(ck, &q->ent[i].f);
        KH_CK(ck, q->ent[i].ready);
    }
    KH_CK(ck, q->pop_cycle);
    KH_CK(ck, q->pops);
    KH_CK(ck, q->high_water);
}

/* Saved in one form whatever the history (the same machine state gives
 * the same bytes, under MPI too, sim_part.c): the heap's wakes due within
 * the wheel moved into it, as the next cycle would, the slots with work
 * as the wheel and timers say, the heap in (cycle, id) order, which is a
 * heap too. */
static void kernel(kh_sim *sim, kh_ck *ck)
{
    int load = kh_ck_loading(ck);
    if (!load) kh_sim_migrate(sim);
    KH_CK(ck, sim->sched.now);
    uint64_t occ = load ? 0 : kh_sim_occ(sim);
    KH_CK(ck, occ);
    if (load) sim->sched.occ = occ;
    kh_ck_same(ck, sim->sched.nwords, "the wake wheel's words (components / 64)");
    if (kh_ck_failed(ck)) return;
    KH_CK_ARR(ck, sim->sched.wheel, (size_t)sim->sched.nwords * KH_WHEEL);
    /* a wake for an id past the last component would step a slot that holds none */
    for (unsigned w = sim->ncomps / 64; load && w < sim->sched.nwords; w++) {
        uint64_t beyond = w == sim->ncomps / 64 ? ~((UINT64_C(1) << (sim->ncomps % 64)) - 1) : ~UINT64_C(0);
        for (unsigned k = 0; k < KH_WHEEL; k++)
            if (sim->sched.wheel[(size_t)w * KH_WHEEL + k] & beyond) {
                kh_ck_fail(ck, "%s: the wake wheel's slot %u wakes a component past the last (%u)", kh_ck_where(ck), k,
                           sim->ncomps);
                return;
            }
    }
    size_t n = (size_t)kh_ck_count(ck, sim->nheap, (uint64_t)1 << 32, "wakes in the heap");
    if (load && n > sim->capheap) {
        kh_wake_ent *h = realloc(sim->heap, n * sizeof *h);
        if (!h) {
            kh_ck_fail(ck, "out of memory restoring %zu wakes", n);
            return;
        }
        sim->heap = h;
        sim->capheap = n;
    }
    if (!load) kh_sim_heap_sort(sim);
    for (size_t i = 0; i < n; i++) {
        KH_CK(ck, sim->heap[i].t);
        KH_CK(ck, sim->heap[i].id);
        if (load && sim->heap[i].id >= sim->ncomps) {
            kh_ck_fail(ck, "%s: a wake for component %u of %u", kh_ck_where(ck), sim->heap[i].id, sim->ncomps);
            return;
        }
        /* a wake already past would never leave the heap for the wheel */
        if (load && sim->heap[i].t < sim->sched.now) {
            kh_ck_fail(ck, "%s: a wake at cycle %llu, before the clock's %llu", kh_ck_where(ck),
                       (unsigned long long)sim->heap[i].t, (unsigned long long)sim->sched.now);
            return;
        }
    }
    if (load) {
        sim->nheap = n;
        kh_sim_heap_sort(sim); /* a heap whatever order the file has them in (saves write them sorted) */
    }
    KH_CK(ck, sim->steps);
    KH_CK_ARR(ck, sim->log_counts, 4);
    kh_sim_diag_ckpt(sim, ck);
}

void kh_sim_link_ckpt(kh_link *l, kh_ck *ck)
{
    KH_CK(ck, l->last_xfer);
    KH_CK(ck, l->blocked_since);
    KH_CK(ck, l->space_from);
    KH_CK(ck, l->flits);
    KH_CK(ck, l->dropped);
    KH_CK(ck, l->stall_cycles);
}

void kh_sim_comps_ckpt(kh_sim *sim, unsigned lo, unsigned hi, kh_ck *ck)
{
    for (unsigned i = lo; i < hi && i < sim->ncomps && !kh_ck_failed(ck); i++) {
        kh_comp *c = sim->comps[i];
        if (!c->ops->ckpt) {
            kh_ck_fail(ck, "component '%s' (kind %s) has no checkpoint state yet: refused rather than a partial "
                           "checkpoint (docs/checkpoint.md lists what is covered)", c->name, c->ops->kind);
            return;
        }
        kh_ck_section_begin(ck, "COMP", c->name);
        c->ops->ckpt(c, ck);
        kh_ck_section_end(ck);
    }
}

static int ckpt(kh_sim *sim, kh_ck *ck, const kh_ck_splice *sp, unsigned nsp);

int kh_sim_ckpt(kh_sim *sim, kh_ck *ck)
{
    if (sim->own || sim->sync)
        return kh_ck_fail(ck, "this simulation is partitioned across processes (MPI): checkpoints cover a whole "
                              "machine in one process (docs/checkpoint.md)");
    return ckpt(sim, ck, NULL, 0);
}

int kh_sim_ckpt_replica(kh_sim *sim, kh_ck *ck, const kh_ck_splice *sp, unsigned nsp)
{
    if (kh_ck_loading(ck)) return kh_ck_fail(ck, "a process's replica is only saved");
    return ckpt(sim, ck, sp, nsp);
}

static int ckpt(kh_sim *sim, kh_ck *ck, const kh_ck_splice *sp, unsigned nsp)
{
    int load = kh_ck_loading(ck);
    if (sim->in_step) return kh_ck_fail(ck, "a checkpoint is taken between runs, not inside a cycle");
    if (!load) kh_sim_settle(sim);
    if (sim->unsettled || sim->unread || sim->at_end)
        return kh_ck_fail(ck, "work advanced ahead of the clock is not settled (a checkpoint is taken between "
                              "runs)");
    if (!load) /* refuse before writing anything: no partial checkpoint */
        for (unsigned i = 0; i < sim->ncomps; i++)
            if (!sim->comps[i]->ops->ckpt)
                return kh_ck_fail(ck, "component '%s' (kind %s) has no checkpoint state yet: refused rather "
                                      "than a partial checkpoint (docs/checkpoint.md lists what is covered)",
                                  sim->comps[i]->name, sim->comps[i]->ops->kind);
    if (load) {
        for (unsigned s = 0; s < KH_WHEEL; s++)
            if (sim->sched.timers[s]) return kh_ck_fail(ck, "restore: the fresh machine has a timer armed");
    }
    if (load) kh_ck_section_open(ck, "SIM ", "kernel", NULL, 0);
    else kh_ck_section_begin(ck, "SIM ", "kernel");
    kh_ck_same(ck, sim->ncomps, "the number of components");
    kh_ck_same(ck, sim->nlinks, "the number of links");
    kernel(sim, ck);
    if (load) kh_ck_section_close(ck);
    else kh_ck_section_end(ck);
    if (load) kh_ck_section_open(ck, "LINK", "links", NULL, 0);
    else kh_ck_section_begin(ck, "LINK", "links");
    for (unsigned i = 0; i < sim->nlinks && !kh_ck_failed(ck); i++) kh_sim_link_ckpt(sim->links[i], ck);
    if (load) kh_ck_section_close(ck);
    else kh_ck_section_end(ck);
    for (unsigned i = 0; i < sim->ncomps && !kh_ck_failed(ck); i++) {
        kh_comp *c = sim->comps[i];
        const kh_ck_splice *x = NULL;
        for (unsigned k = 0; k < nsp; k++)
            if (i >= sp[k].lo && i < sp[k].hi) x = &sp[k];
        if (x) { /* the sections of [lo, hi), written by the process that steps them */
            kh_ck_bytes(ck, (void *)(uintptr_t)x->bytes, x->n);
            i = x->hi - 1;
            continue;
        }
        if (load) {
            if (kh_ck_section_open(ck, "COMP", c->name, NULL, 0)) break;
            if (!c->ops->ckpt) {
                kh_ck_fail(ck, "component '%s' (kind %s): this build has no checkpoint state for it", c->name,
                           c->ops->kind);
                break;
            }
        } else {
            kh_ck_section_begin(ck, "COMP", c->name);
        }
        c->ops->ckpt(c, ck);
        if (load) kh_ck_section_close(ck);
        else kh_ck_section_end(ck);
    }
    return kh_ck_failed(ck) ? -1 : 0;
}
