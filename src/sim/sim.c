/* The kernel: components, wake requests and the clock (docs/design.md §2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "sim/sim_int.h"

static int ent_less(kh_wake_ent a, kh_wake_ent b)
{
    return a.t < b.t || (a.t == b.t && a.id < b.id);
}

static int heap_push(kh_sim *sim, kh_wake_ent e)
{
    if (sim->nheap == sim->capheap) {
        size_t cap = sim->capheap ? 2 * sim->capheap : 64;
        kh_wake_ent *h = realloc(sim->heap, cap * sizeof *h);
        if (!h) return -1;
        sim->heap = h;
        sim->capheap = cap;
    }
    size_t i = sim->nheap++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!ent_less(e, sim->heap[parent])) break;
        sim->heap[i] = sim->heap[parent];
        i = parent;
    }
    sim->heap[i] = e;
    return 0;
}

static kh_wake_ent heap_pop(kh_sim *sim)
{
    kh_wake_ent top = sim->heap[0], last = sim->heap[--sim->nheap];
    size_t i = 0, n = sim->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && ent_less(sim->heap[c + 1], sim->heap[c])) c++;
        if (!ent_less(sim->heap[c], last)) break;
        sim->heap[i] = sim->heap[c];
        i = c;
    }
    if (n) sim->heap[i] = last;
    return top;
}

static void default_log(void *ctx, kh_log_level lvl, const char *msg)
{
    static const char *const names[] = {"debug", "info", "warning", "error"};
    (void)ctx;
    fprintf(stderr, "kohaku: %s: %s\n", names[lvl], msg);
}

kh_sim *kh_sim_new(const kh_params *p)
{
    kh_sim *sim = calloc(1, sizeof *sim);
    if (!sim) return NULL;
    if (p) {
        sim->params = *p;
    } else {
        kh_params_default(&sim->params);
    }
    sim->log_fn = default_log;
    sim->log_min = KH_LOG_WARN;
    sim->progress_at = KH_NEVER;
    kh_sim_set_engine(sim, kh_sim_engine_default());
    return sim;
}

kh_sim_engine_kind kh_sim_engine_default(void)
{
    kh_sim_engine_kind e = KH_ENGINE_FAST;
    const char *env = getenv("KOHAKU_ENGINE"); /* the test suites' switch (sim.h) */
    if (env && kh_sim_engine_parse(env, &e)) e = KH_ENGINE_FAST;
    return e;
}

int kh_sim_engine_parse(const char *s, kh_sim_engine_kind *e)
{
    if (!strcmp(s, "fast")) {
        *e = KH_ENGINE_FAST;
        return 0;
    }
    if (!strcmp(s, "cycle")) {
        *e = KH_ENGINE_CYCLE;
        return 0;
    }
    return -1;
}

const char *kh_sim_engine_name(kh_sim_engine_kind e) { return e == KH_ENGINE_CYCLE ? "cycle" : "fast"; }

/* What the fast paths may do follows the engine and the trace sink. */
static void fast_follow(kh_sim *sim)
{
    sim->sched.fast = sim->engine == KH_ENGINE_FAST && !sim->sched.trace;
}

void kh_sim_set_engine(kh_sim *sim, kh_sim_engine_kind e)
{
    kh_sim_settle(sim); /* the advanced work is the engine's own */
    sim->engine = e;
    fast_follow(sim);
}

kh_sim_engine_kind kh_sim_get_engine(const kh_sim *sim) { return sim->engine; }

void kh_comp_unsettled(kh_comp *c, void (*settle)(kh_comp *c))
{
    if (c->settle) return;
    kh_sim *sim = c->sim;
    c->settle = settle;
    c->next_unsettled = sim->unsettled;
    sim->unsettled = c;
}

void kh_comp_unsettled_until_read(kh_comp *c, void (*settle)(kh_comp *c))
{
    if (c->settle) return;
    kh_sim *sim = c->sim;
    c->settle = settle;
    c->next_unsettled = sim->unread;
    sim->unread = c;
}

/* Every component of the list makes its state the per-cycle engine's at
 * kh_sim_now. A settle may wake components, never ask for another settle. */
static void settle_list(kh_comp **list)
{
    while (*list) {
        kh_comp *c = *list;
        void (*settle)(kh_comp *) = c->settle;
        *list = c->next_unsettled;
        c->settle = NULL;
        settle(c);
    }
}

/* The end of a run: the work advanced ahead of the clock is settled, but
 * for work nothing sees before it is read, which the next run carries on
 * with (at the saxpy bench's host polls, a run every few cycles, settling
 * the routers' hops and stepping them as the routers' own cost about 6 %
 * of its instructions). Partitioned runs settle everything: their
 * agreements and the other processes see the state. */
static void settle_all(kh_sim *sim)
{
    settle_list(&sim->unsettled);
    if (sim->sync || sim->own) settle_list(&sim->unread);
}

void kh_sim_settle(kh_sim *sim)
{
    if (sim->in_step) return; /* a cycle half run: what a step reads is its cycle's, as before any settle */
    settle_list(&sim->unsettled);
    settle_list(&sim->unread);
}

void kh_sim_destroy(kh_sim *sim)
{
    if (!sim) return;
    for (unsigned i = sim->ncomps; i-- > 0;)
        if (sim->comps[i]->ops && sim->comps[i]->ops->destroy) sim->comps[i]->ops->destroy(sim->comps[i]);
    for (unsigned i = 0; i < sim->nlinks; i++) free(sim->links[i]);
    free(sim->comps);
    free(sim->links);
    free(sim->heap);
    free(sim->sched.wheel);
    free(sim->own);
    kh_sim_diag_free(sim);
    free(sim);
}

const kh_params *kh_sim_params(const kh_sim *sim) { return &sim->params; }
kh_cycle kh_sim_now(const kh_sim *sim) { return sim->sched.now; }

void kh_sim_add(kh_sim *sim, kh_comp *c, const kh_comp_ops *ops, const char *name)
{
    if (sim->ncomps == sim->capcomps) {
        unsigned cap = sim->capcomps ? 2 * sim->capcomps : 16;
        kh_comp **v = realloc(sim->comps, cap * sizeof *v);
        if (!v) abort(); /* out of memory while building a machine: nothing sane to do */
        sim->comps = v;
        sim->capcomps = cap;
    }
    if (sim->ncomps >= sim->sched.nwords * 64) { /* grow every slot's bitmap */
        unsigned nw = sim->sched.nwords ? sim->sched.nwords * 2 : 1;
        uint64_t *w = calloc((size_t)KH_WHEEL * nw, sizeof *w);
        if (!w) abort(); /* out of memory while building a machine */
        for (unsigned s = 0; s < KH_WHEEL; s++)
            for (unsigned k = 0; k < sim->sched.nwords; k++) w[k * KH_WHEEL + s] = sim->sched.wheel[k * KH_WHEEL + s];
        free(sim->sched.wheel);
        sim->sched.wheel = w;
        sim->sched.nwords = nw;
    }
    c->ops = ops;
    c->sim = sim;
    c->id = sim->ncomps;
    c->wword = (c->id >> 6) * KH_WHEEL;
    c->wbit = UINT64_C(1) << (c->id & 63);
    c->in_links = NULL;
    c->next_unsettled = NULL;
    c->settle = NULL;
    snprintf(c->name, sizeof c->name, "%s", name ? name : ops->kind);
    sim->comps[sim->ncomps++] = c;
}

static void wheel_set(kh_sim *sim, kh_cycle at, unsigned id)
{
    unsigned s = (unsigned)(at % KH_WHEEL);
    sim->sched.wheel[(id >> 6) * KH_WHEEL + s] |= UINT64_C(1) << (id & 63);
    sim->sched.occ |= UINT64_C(1) << s;
}

void kh_comp_wake_far(kh_comp *c, kh_cycle at)
{
    kh_sim *sim = c->sim;
    if (sim->in_step) {
        if (at == sim->sched.now && sim->in_timers) { /* a timer asks for a step of its cycle */
            wheel_set(sim, at, c->id);
            return;
        }
        if (at <= sim->sched.now) {
            kh_sim_log(sim, KH_LOG_ERROR, "%s asked to be stepped in cycle %llu during cycle %llu",
                       c->name, (unsigned long long)at, (unsigned long long)sim->sched.now);
            at = sim->sched.now + 1;
        }
    } else if (at < sim->sched.now) {
        at = sim->sched.now;
    }
    if (at - sim->sched.now < KH_WHEEL) {
        wheel_set(sim, at, c->id);
        return;
    }
    if (heap_push(sim, (kh_wake_ent){at, c->id})) abort();
}

void kh_timer_arm_far(kh_sim *sim, kh_timer *t, kh_cycle at)
{
    if (t->pprev) kh_timer_disarm(sim, t);
    kh_cycle now = sim->sched.now;
    if (at < now + (kh_cycle)sim->in_step || at - now >= KH_WHEEL) abort(); /* the engine arms within the wheel */
    unsigned s = (unsigned)(at % KH_WHEEL);
    t->at = at;
    t->next = sim->sched.timers[s];
    if (t->next) t->next->pprev = &t->next;
    t->pprev = &sim->sched.timers[s];
    sim->sched.timers[s] = t;
    sim->sched.occ |= UINT64_C(1) << s;
}

void kh_timer_disarm(kh_sim *sim, kh_timer *t)
{
    if (!t->pprev) return;
    *t->pprev = t->next;
    if (t->next) t->next->pprev = t->pprev;
    t->pprev = NULL;
    t->next = NULL;
    unsigned s = (unsigned)(t->at % KH_WHEEL);
    if (sim->sched.timers[s]) return;
    for (unsigned k = 0; k < sim->sched.nwords; k++)
        if (sim->sched.wheel[k * KH_WHEEL + s]) return;
    /* the slot of the cycle being run keeps its bit: the loop clears it */
    if (!(sim->in_step && sim->sched.now % KH_WHEEL == s)) sim->sched.occ &= ~(UINT64_C(1) << s);
}

/* The timers of cycle t, at its start: each is disarmed, then run (a timer
 * may arm and disarm others, of this cycle too). */
static inline __attribute__((always_inline)) void run_timers(kh_sim *sim, kh_cycle t)
{
    kh_timer **head = &sim->sched.timers[t % KH_WHEEL];
    sim->in_timers = 1;
    while (*head) {
        kh_timer *x = *head;
        *head = x->next;
        if (x->next) x->next->pprev = head;
        x->pprev = NULL;
        x->next = NULL;
        x->fn(x, t);
    }
    sim->in_timers = 0;
}

/* Move heap wakes that now fall inside the wheel's window. */
static void migrate(kh_sim *sim)
{
    while (sim->nheap && sim->heap[0].t - sim->sched.now < KH_WHEEL) {
        kh_wake_ent e = heap_pop(sim);
        wheel_set(sim, e.t, e.id);
    }
}

void kh_sim_migrate(kh_sim *sim) { migrate(sim); }

/* The first cycle from now on whose wheel slot has a wake, occ (the
 * slots with one) not 0: the occupancy rotated so that now's slot is bit 0. */
static inline __attribute__((always_inline)) kh_cycle wheel_first(uint64_t occ, kh_cycle now)
{
    unsigned r = (unsigned)(now % KH_WHEEL);
    return now + (kh_cycle)__builtin_ctzll(r ? (occ >> r) | (occ << (KH_WHEEL - r)) : occ);
}

/* The earliest cycle with a wake, KH_NEVER if none (inlined: asked once per
 * executed cycle). */
static inline __attribute__((always_inline)) kh_cycle next_due(kh_sim *sim)
{
    if (sim->nheap) migrate(sim);
    if (sim->sched.occ) return wheel_first(sim->sched.occ, sim->sched.now);
    return sim->nheap ? sim->heap[0].t : KH_NEVER;
}

/* The hooks queued for the end of cycle t (kh_sim_at_end), after its
 * every step. */
static inline __attribute__((always_inline)) void end_hooks(kh_sim *sim, kh_cycle t)
{
    while (sim->at_end) {
        kh_end_hook *h = sim->at_end;
        sim->at_end = h->next;
        h->queued = 0;
        h->fn(h->ctx, t);
    }
}

/* Execute every step due in cycle t, in id (registration) order. Inlined
 * into the run loops: on a busy machine it runs every cycle. */
static inline __attribute__((always_inline)) void run_cycle(kh_sim *sim, kh_cycle t)
{
    sim->sched.now = t;
    if (sim->nheap) migrate(sim); /* the test inline: the heap is empty in most cycles */
    sim->in_step = 1;
    unsigned s = (unsigned)(t % KH_WHEEL);
    if (sim->sched.timers[s]) run_timers(sim, t);
    uint64_t *slot = &sim->sched.wheel[s];
    sim->sched.occ &= ~(UINT64_C(1) << s);
    uint64_t steps = 0; /* counted in a register, added once per cycle */
    if (sim->sched.nwords == 1 && !sim->own) { /* up to 64 components, all stepped here: one word */
        uint64_t bits = *slot;
        *slot = 0;
        for (; bits; bits &= bits - 1, steps++) {
            kh_comp *c = sim->comps[__builtin_ctzll(bits)];
            c->ops->step(c, t);
        }
    } else {
        for (unsigned w = 0; w < sim->sched.nwords; w++) {
            /* steps of cycle t only wake later cycles, so this word is final */
            uint64_t bits = slot[w * KH_WHEEL];
            slot[w * KH_WHEEL] = 0;
            if (sim->own) { /* another process steps the rest; the shared ones every process */
                bits &= w < sim->nown ? sim->own[w] : 0;
                uint64_t shared = bits ? bits & sim->own[sim->nown + w] : 0; /* most words have none: no popcount call */
                if (shared) sim->shared_steps += (uint64_t)__builtin_popcountll(shared);
            }
            for (; bits; bits &= bits - 1) {
                kh_comp *c = sim->comps[w * 64 + (unsigned)__builtin_ctzll(bits)];
                steps++;
                c->ops->step(c, t);
            }
        }
    }
    sim->steps += steps;
    end_hooks(sim, t);
    sim->in_step = 0;
    sim->sched.now = t + 1;
}

void kh_sim_at_end(kh_sim *sim, kh_end_hook *h)
{
    if (!sim->in_step) {
        h->fn(h->ctx, sim->sched.now);
        return;
    }
    if (h->queued) return;
    h->queued = 1;
    h->next = sim->at_end;
    sim->at_end = h;
}

void kh_sim_set_progress(kh_sim *sim, kh_cycle (*fn)(void *ctx, kh_cycle now), void *ctx)
{
    sim->progress = fn;
    sim->progress_ctx = ctx;
    sim->progress_at = fn ? sim->sched.now : KH_NEVER;
}

/* Between cycles, never inside one: the callback only reads. */
static void progress(kh_sim *sim, kh_cycle t)
{
    kh_cycle next = sim->progress(sim->progress_ctx, t);
    sim->progress_at = next > 0 && next < KH_NEVER - t ? t + next : t + 1;
}

/* now + n, clamped at KH_CLOCK_END: no count wraps the clock */
static kh_cycle run_end(const kh_sim *sim, kh_cycle n)
{
    kh_cycle room = sim->sched.now < KH_CLOCK_END ? KH_CLOCK_END - sim->sched.now : 0;
    return sim->sched.now + (n < room ? n : room);
}

/* Run the cycles before `end` in windows every process agrees on; returns
 * the agreed next wake (>= end, or KH_NEVER when nothing is pending
 * anywhere) and the latest cycle + 1 any process executed. The first window
 * starts at once: between two calls only host accesses happen, and they put
 * nothing on a lane, so the agreement that ended the previous call holds.
 * Each later one starts at the agreed next wake, skipping idle stretches. */
static kh_cycle run_windows(kh_sim *sim, kh_cycle end, kh_cycle *reached)
{
    kh_cycle mine = sim->sched.now, g = sim->sched.now;
    *reached = mine;
    if (sim->sync->run) sim->sync->run(sim->sync_ctx, end);
    if (g >= end) { /* no cycle to run: only the question whether anything is pending */
        g = next_due(sim);
        sim->sync->agree(sim->sync_ctx, &g, reached);
        return g;
    }
    for (;;) {
        if (g >= end) return g;
        if (g > sim->sched.now) sim->sched.now = g; /* an idle stretch, skipped by everyone at once */
        sim->sync->begin(sim->sync_ctx, g);
        kh_cycle w = sim->sync->window_end(sim->sync_ctx, g), t, r;
        if (w > end) w = end;
        while ((t = next_due(sim)) < w) {
            if (t >= sim->progress_at) progress(sim, t);
            run_cycle(sim, t);
            mine = t + 1;
        }
        sim->sched.now = w;
        if (w == end) settle_all(sim); /* the run's last agreement sees the state its caller will */
        g = next_due(sim);
        r = mine;
        sim->sync->agree(sim->sync_ctx, &g, &r);
        *reached = r;
    }
}

/* The loop of a process that steps everything itself, with at most 64
 * components and no progress callback (every single-process run): the
 * general loop below with what cannot change during a run tested once.
 * Components are added and partitions and the progress callback set between
 * runs, never inside a step. The clock is kept in a register between cycles
 * (nothing but steps runs there) and stored at each cycle's start and at
 * the end. Few values live across the step calls, so that none is spilled
 * (the component array is read again for each step, as in run_cycle).
 * in_step is set for the whole loop, not per cycle: between two cycles
 * only the loop itself runs (no step, timer, hook or host call reads it). */
static kh_cycle run_one_word(kh_sim *sim, kh_cycle end)
{
    kh_cycle t = sim->sched.now - 1; /* the cycle before the next one to look at */
    uint64_t steps = 0;
    sim->in_step = 1;
    for (;;) {
        kh_cycle now = t + 1;
        if (sim->nheap) { /* a far wake may come due: the general step, rarely */
            sim->sched.now = now;
            if ((t = next_due(sim)) >= end) break;
            run_cycle(sim, t);
            sim->in_step = 1; /* run_cycle leaves it clear */
            continue;
        }
        uint64_t occ = sim->sched.occ;
        if (!occ) {
            sim->sched.now = now;
            t = KH_NEVER;
            break;
        }
        t = wheel_first(occ, now);
        if (t >= end) {
            sim->sched.now = now;
            break;
        }
        sim->sched.now = t;
        unsigned s = (unsigned)(t % KH_WHEEL);
        if (sim->sched.timers[s]) {
            run_timers(sim, t); /* inline: a call costs about what a timer does */
            occ = sim->sched.occ; /* the timers may have armed and asked for more */
            /* the slot again from the clock in memory, not kept across the
             * timers' calls (where it would cost every cycle a spill) */
            s = (unsigned)(sim->sched.now % KH_WHEEL);
        }
        sim->sched.occ = occ & ~(UINT64_C(1) << s);
        uint64_t bits = sim->sched.wheel[s];
        sim->sched.wheel[s] = 0;
        for (; bits; bits &= bits - 1, steps++) {
            kh_comp *c = sim->comps[(unsigned)__builtin_ctzll(bits)];
            c->ops->step(c, t);
        }
        end_hooks(sim, t);
    }
    sim->in_step = 0;
    sim->steps += steps;
    return t;
}

/* Execute the due cycles before `end` (no sync): the clock is left after
 * the last cycle executed; returns the first due cycle not executed (>=
 * end), KH_NEVER when nothing is pending. */
static kh_cycle run_local(kh_sim *sim, kh_cycle end)
{
    if (sim->sched.nwords == 1 && !sim->own && !sim->progress) return run_one_word(sim, end);
    kh_cycle t;
    while ((t = next_due(sim)) < end) {
        if (t >= sim->progress_at) progress(sim, t);
        run_cycle(sim, t);
    }
    return t;
}

uint64_t kh_sim_run(kh_sim *sim, kh_cycle n)
{
    uint64_t before = sim->steps;
    kh_cycle end = run_end(sim, n), reached;
    if (sim->sync) {
        run_windows(sim, end, &reached);
    } else {
        run_local(sim, end);
    }
    sim->sched.now = end;
    settle_all(sim);
    return sim->steps - before;
}

static kh_cycle local_next_wake(const kh_sim *sim);

void kh_sim_run_idle(kh_sim *sim, kh_cycle n)
{
    if (!sim->sync) {
        kh_sim_run(sim, n);
        return;
    }
    kh_cycle end = run_end(sim, n);
    /* The caller's word that nothing is due, checked where no collective
     * is needed: work of this process's own would be skipped here while
     * one process runs it, and the two would part without a sign. */
    if (local_next_wake(sim) < end) abort();
    /* nothing is due anywhere: the windows would execute no cycle, and
     * their agreements would find it so */
    sim->sched.now = end;
    settle_all(sim);
}

int kh_sim_run_until_idle(kh_sim *sim, kh_cycle limit)
{
    kh_cycle end = run_end(sim, limit);
    if (sim->sync) {
        kh_cycle reached;
        if (run_windows(sim, end, &reached) != KH_NEVER) {
            sim->sched.now = end;
            settle_all(sim);
            return 0;
        }
        sim->sched.now = reached; /* where the last step anywhere left the clock */
        settle_all(sim);
        return 1;
    }
    if (run_local(sim, end) != KH_NEVER) {
        sim->sched.now = end;
        settle_all(sim);
        return 0;
    }
    settle_all(sim);
    return 1;
}

/* Every process's earliest wake (collective); nothing crosses here, since
 * every window ends with an agreement that delivered what crossed. */
static kh_cycle agreed_next(const kh_sim *sim, kh_cycle mine)
{
    kh_cycle r = sim->sched.now;
    sim->sync->agree(sim->sync_ctx, &mine, &r);
    return mine;
}

int kh_sim_idle(const kh_sim *sim)
{
    if (sim->sync) return agreed_next(sim, local_next_wake(sim)) == KH_NEVER;
    return sim->nheap == 0 && !sim->sched.occ;
}

kh_cycle kh_sim_next_wake(kh_sim *sim)
{
    kh_sim_settle(sim);
    kh_cycle t = local_next_wake(sim);
    return sim->sync ? agreed_next(sim, t) : t;
}

static kh_cycle local_next_wake(const kh_sim *sim)
{
    kh_cycle t = sim->nheap ? sim->heap[0].t : KH_NEVER;
    if (sim->sched.occ) {
        kh_cycle w = wheel_first(sim->sched.occ, sim->sched.now);
        if (w < t) t = w;
    }
    return t;
}

/* One report line set per component; with partitions, this process
 * reports the components it steps (shared ones on the leader only) and the
 * sync merges every process's in component order. */
int kh_sim_describe_stuck(kh_sim *sim, char *buf, size_t len)
{
    kh_sim_settle(sim);
    int n = 0;
    size_t used = 0;
    if (len) buf[0] = '\0';
    kh_sync_rec *mine = sim->sync ? calloc(sim->ncomps ? sim->ncomps : 1, sizeof *mine) : NULL;
    unsigned nmine = 0;
    for (unsigned i = 0; i < sim->ncomps; i++) {
        kh_comp *c = sim->comps[i];
        char line[1024];
        if (sim->sync && !kh_sim_reports(sim, c)) continue;
        if (!c->ops->describe_stuck || !c->ops->describe_stuck(c, line, sizeof line)) continue;
        if (mine) {
            size_t k = strlen(c->name) + strlen(line) + 4;
            if ((mine[nmine].text = malloc(k))) {
                snprintf(mine[nmine].text, k, "%s: %s\n", c->name, line);
                mine[nmine++].key = i;
            }
            continue;
        }
        n++;
        kh_bufcat(buf, len, &used, "%s: %s\n", c->name, line);
    }
    if (!sim->sync) return n;
    kh_sync_rec *all = NULL;
    int nall = sim->sync->gather(sim->sync_ctx, mine, nmine, &all);
    for (unsigned i = 0; i < nmine; i++) free(mine[i].text);
    free(mine);
    for (int i = 0; i < nall; i++) {
        kh_bufcat(buf, len, &used, "%s", all[i].text);
        free(all[i].text);
    }
    free(all);
    return nall > 0 ? nall : 0;
}

void kh_sim_set_sync(kh_sim *sim, const kh_sync_ops *ops, void *ctx)
{
    kh_sim_settle(sim);
    sim->sync = ops;
    sim->sync_ctx = ctx;
}

const kh_sync_ops *kh_sim_sync(const kh_sim *sim) { return sim->sync; }
int kh_sim_unsettled(const kh_sim *sim) { return sim->unsettled || sim->unread; }
void *kh_sim_sync_ctx(const kh_sim *sim) { return sim->sync_ctx; }

static int mark(kh_sim *sim, unsigned lo, unsigned hi, int shared)
{
    kh_sim_settle(sim);
    if (!sim->own) {
        sim->part_steps0 = sim->steps; /* a save under MPI counts from here (sim_part.c) */
        sim->shared_steps = 0;
        memcpy(sim->part_log0, sim->log_counts, sizeof sim->part_log0);
        kh_sim_diag_mark(sim);
        sim->nown = sim->sched.nwords;
        /* own, then shared: one allocation */
        if (!(sim->own = calloc(2 * (size_t)(sim->nown ? sim->nown : 1), sizeof *sim->own))) return -1;
    }
    uint64_t *v = sim->own + (shared ? sim->nown : 0);
    for (unsigned i = lo; i < hi && i / 64 < sim->nown; i++) v[i / 64] |= UINT64_C(1) << (i % 64);
    return 0;
}

int kh_sim_own(kh_sim *sim, unsigned lo, unsigned hi) { return mark(sim, lo, hi, 0); }

int kh_sim_share(kh_sim *sim, unsigned lo, unsigned hi)
{
    return mark(sim, lo, hi, 0) || mark(sim, lo, hi, 1) ? -1 : 0;
}

static int bit(const uint64_t *v, unsigned id) { return (int)(v[id / 64] >> (id % 64) & 1); }

/* Whether this process speaks for c in merged reports and stats. */
int kh_sim_reports(const kh_sim *sim, const kh_comp *c)
{
    if (!sim->own) return 1;
    if (c->id / 64 >= sim->nown || !bit(sim->own, c->id)) return 0;
    return !bit(sim->own + sim->nown, c->id) || (sim->sync && sim->sync->leader);
}

int kh_sim_owns(const kh_sim *sim, const kh_comp *c)
{
    return !sim->own || (c->id / 64 < sim->nown && bit(sim->own, c->id));
}

void kh_sim_set_log(kh_sim *sim, kh_log_fn fn, void *ctx, kh_log_level min)
{
    sim->log_fn = fn ? fn : default_log;
    sim->log_ctx = ctx;
    sim->log_min = min;
}

static void vlog(kh_sim *sim, kh_log_level lvl, const char *prefix, const char *fmt, va_list ap)
{
    sim->log_counts[lvl]++;
    if (lvl < sim->log_min) return;
    char msg[1024];
    int off = snprintf(msg, sizeof msg, "%s", prefix);
    if (off >= 0 && (size_t)off < sizeof msg) vsnprintf(msg + off, sizeof msg - (size_t)off, fmt, ap);
    sim->log_fn(sim->log_ctx, lvl, msg);
}

void kh_sim_log(kh_sim *sim, kh_log_level lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(sim, lvl, "", fmt, ap);
    va_end(ap);
}

void kh_comp_log(kh_comp *c, kh_log_level lvl, const char *fmt, ...)
{
    /* a component every process steps (the engine) is heard from one */
    if (c->sim->own && !kh_sim_reports(c->sim, c)) return;
    char prefix[96];
    va_list ap;
    snprintf(prefix, sizeof prefix, "[%llu] %s: ", (unsigned long long)c->sim->sched.now, c->name);
    va_start(ap, fmt);
    vlog(c->sim, lvl, prefix, fmt, ap);
    va_end(ap);
}

unsigned kh_sim_log_count(const kh_sim *sim, kh_log_level lvl) { return sim->log_counts[lvl]; }

unsigned kh_sim_ncomps(const kh_sim *sim) { return sim->ncomps; }
kh_comp *kh_sim_comp(const kh_sim *sim, unsigned i) { return i < sim->ncomps ? sim->comps[i] : NULL; }
unsigned kh_sim_nlinks(const kh_sim *sim) { return sim->nlinks; }
kh_link *kh_sim_link(const kh_sim *sim, unsigned i) { return i < sim->nlinks ? sim->links[i] : NULL; }

void kh_sim_set_trace(kh_sim *sim, kh_trace *t)
{
    kh_sim_settle(sim); /* a sink sees every transfer from here on, none advanced ahead */
    sim->sched.trace = t;
    fast_follow(sim);
}
kh_trace *kh_sim_trace(const kh_sim *sim) { return sim->sched.trace; }

void kh_trace_span(kh_comp *c, const char *name, kh_cycle begin, kh_cycle end, const char *args)
{
    kh_trace *t = c->sim->sched.trace;
    if (t && t->span) t->span(t->ctx, c, name, begin, end, args);
}

void kh_trace_instant(kh_comp *c, const char *name, kh_cycle at, const char *args)
{
    kh_trace *t = c->sim->sched.trace;
    if (t && t->instant) t->instant(t->ctx, c, name, at, args);
}

void kh_trace_sub_span(kh_comp *c, const char *track, const char *name, kh_cycle begin, kh_cycle end,
                       const char *args)
{
    kh_trace *t = c->sim->sched.trace;
    if (t && t->sub_span) t->sub_span(t->ctx, c, track, name, begin, end, args);
}

void kh_trace_counter(kh_comp *c, const char *name, kh_cycle at, int64_t value)
{
    kh_trace *t = c->sim->sched.trace;
    if (t && t->counter) t->counter(t->ctx, c, name, at, value);
}

void kh_sim_set_user(kh_sim *sim, void *user) { sim->user = user; }
void *kh_sim_user(const kh_sim *sim) { return sim->user; }
