/* The kernel: wake scheduling, FIFO start-of-cycle semantics, links with
 * backpressure, order independence, idle jumps, hang reports, parameters. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/sim.h"
#include "support/test.h"

/* ---- a sender that pushes flits 0..n-1 as fast as the link allows ---- */
typedef struct sender {
    kh_comp base;
    kh_link *out;
    unsigned next, n;
    kh_cycle sent_at[64];
} sender;

static void sender_step(kh_comp *c, kh_cycle now)
{
    sender *s = (sender *)c;
    if (s->next >= s->n) return;
    kh_flit f;
    kh_flit_clear(&f);
    f.w[0] = s->next;
    if (kh_link_send(s->out, &f, now)) {
        s->sent_at[s->next++] = now;
        if (s->next < s->n) kh_comp_wake(c, now + 1);
    }
}


/* ---- a receiver with a FIFO that pops one flit every `period` cycles ---- */
typedef struct receiver {
    kh_comp base;
    kh_fifo q;
    kh_link *in;
    unsigned period, got;
    kh_cycle next_pop;
    kh_cycle got_at[64];
    uint64_t got_val[64];
} receiver;

static int receiver_accept(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now)
{
    receiver *r = (receiver *)dst;
    (void)port;
    if (kh_fifo_full(&r->q, now)) return 0;
    kh_fifo_push(&r->q, f, now);
    kh_comp_wake(dst, now + r->q.latency);
    return 1;
}

static void receiver_step(kh_comp *c, kh_cycle now)
{
    receiver *r = (receiver *)c;
    if (now < r->next_pop) {
        kh_comp_wake(c, r->next_pop);
        return;
    }
    const kh_flit *f = kh_fifo_head(&r->q, now);
    if (f) {
        r->got_at[r->got] = now;
        r->got_val[r->got++] = f->w[0];
        kh_fifo_pop(&r->q, now);
        kh_link_space(r->in, now);
        r->next_pop = now + r->period;
    }
    if (!kh_fifo_empty(&r->q)) {
        kh_cycle t = kh_fifo_head_ready(&r->q);
        if (t < r->next_pop) t = r->next_pop;
        kh_comp_wake(c, t > now ? t : now + 1);
    }
}

static int receiver_stuck(kh_comp *c, char *buf, size_t len)
{
    receiver *r = (receiver *)c;
    if (kh_fifo_empty(&r->q)) return 0;
    snprintf(buf, len, "%u flits queued", r->q.count);
    return 1;
}

static void receiver_destroy(kh_comp *c)
{
    receiver *r = (receiver *)c;
    kh_fifo_free(&r->q);
    free(r);
}

static void sender_destroy(kh_comp *c) { free(c); }

static const kh_comp_ops receiver_ops = {"receiver", receiver_step, receiver_stuck, NULL,
                                         receiver_destroy, NULL, NULL};
static const kh_comp_ops sender_ops_owned = {"sender", sender_step, NULL, NULL, sender_destroy, NULL, NULL};

/* Build sender -> receiver; `receiver_first` registers the receiver first,
 * so same-cycle steps run in the other order. */
static void build(kh_sim *sim, int receiver_first, unsigned depth, unsigned latency, unsigned period,
                  unsigned n, sender **ps, receiver **pr)
{
    sender *s = calloc(1, sizeof *s);
    receiver *r = calloc(1, sizeof *r);
    kh_fifo_init(&r->q, depth, latency);
    r->period = period;
    s->n = n;
    if (receiver_first) {
        kh_sim_add(sim, &r->base, &receiver_ops, "rx");
        kh_sim_add(sim, &s->base, &sender_ops_owned, "tx");
    } else {
        kh_sim_add(sim, &s->base, &sender_ops_owned, "tx");
        kh_sim_add(sim, &r->base, &receiver_ops, "rx");
    }
    s->out = kh_link_new(sim, &s->base, &r->base, 0, receiver_accept, "tx->rx");
    r->in = s->out;
    kh_comp_wake(&s->base, 0);
    *ps = s;
    *pr = r;
}

static void fifo_push_visible_after_latency(void)
{
    kh_fifo q;
    kh_flit f;
    kh_flit_clear(&f);
    CHECK_EQ(kh_fifo_init(&q, 4, 2), 0);
    kh_fifo_push(&q, &f, 10);
    CHECK(kh_fifo_head(&q, 10) == NULL);
    CHECK(kh_fifo_head(&q, 11) == NULL);
    CHECK(kh_fifo_head(&q, 12) != NULL);
    CHECK_EQ(kh_fifo_head_ready(&q), 12);
    kh_fifo_free(&q);
}

static void fifo_pop_frees_space_next_cycle(void)
{
    kh_fifo q;
    kh_flit f;
    kh_flit_clear(&f);
    kh_fifo_init(&q, 2, 1);
    kh_fifo_push(&q, &f, 0);
    kh_fifo_push(&q, &f, 1);
    CHECK(kh_fifo_full(&q, 5));
    kh_fifo_pop(&q, 5);
    CHECK(kh_fifo_full(&q, 5));  /* start-of-cycle view: still full in cycle 5 */
    CHECK(!kh_fifo_full(&q, 6)); /* the space shows from cycle 6 */
    CHECK_EQ(kh_fifo_used(&q, 6), 1);
    kh_fifo_free(&q);
}

/* kh_fifo_pop returns the popped flit, readable until the next pop even
 * when the FIFO is filled to its capacity in between (a router keeps its
 * holding slot there). */
static void fifo_popped_flit_intact_until_next_pop(void)
{
    for (unsigned cap = 1; cap <= 5; cap++) {
        kh_fifo q;
        CHECK_EQ(kh_fifo_init(&q, cap, 1), 0);
        kh_flit f;
        kh_flit_clear(&f);
        uint64_t pushed = 0, popped = 0;
        kh_cycle t = 0;
        /* walk the ring round several times at every fill level */
        for (unsigned round = 0; round < 4 * (cap + 1); round++, t++) {
            while (!kh_fifo_full(&q, t)) {
                for (unsigned w = 0; w < KH_FLIT_WORDS; w++) f.w[w] = pushed * 10 + w;
                pushed++;
                kh_fifo_push(&q, &f, t);
            }
            t++;
            const kh_flit *p = kh_fifo_pop(&q, t);
            CHECK(p != NULL);
            t++;
            while (!kh_fifo_full(&q, t)) { /* refill to cap behind the popped flit */
                for (unsigned w = 0; w < KH_FLIT_WORDS; w++) f.w[w] = pushed * 10 + w;
                pushed++;
                kh_fifo_push(&q, &f, t);
            }
            for (unsigned w = 0; w < KH_FLIT_WORDS; w++) CHECK_EQ(p->w[w], popped * 10 + w);
            popped++;
        }
        CHECK(kh_fifo_pop(&q, t + 1) != NULL);
        kh_fifo_free(&q);
        kh_fifo_init(&q, cap, 1);
        CHECK(kh_fifo_pop(&q, 0) == NULL); /* empty: nothing popped */
        kh_fifo_free(&q);
    }
}

/* A receiver that frees space in cycle t before its sender's first refused
 * offer of t (the receiver steps first) must see that sender again in t + 1,
 * as when the offer comes first: same transfers, same stalls, in both orders,
 * with a 1-deep FIFO where a lost wake would stall the sender for good. */
static void refusal_after_space_in_same_cycle_retries_next_cycle(void)
{
    for (unsigned depth = 1; depth <= 2; depth++) {
        kh_cycle sent[2][8], got[2][8];
        uint64_t stalls[2];
        for (int order = 0; order < 2; order++) {
            kh_sim *sim = kh_sim_new(NULL);
            sender *s;
            receiver *r;
            build(sim, order, depth, 1, 1, 8, &s, &r);
            CHECK(kh_sim_run_until_idle(sim, 1000));
            CHECK_EQ(r->got, 8);
            for (unsigned i = 0; i < 8; i++) {
                sent[order][i] = s->sent_at[i];
                got[order][i] = r->got_at[i];
            }
            stalls[order] = s->out->stall_cycles;
            kh_sim_destroy(sim);
        }
        for (unsigned i = 0; i < 8; i++) {
            CHECK_EQ(sent[0][i], sent[1][i]);
            CHECK_EQ(got[0][i], got[1][i]);
        }
        CHECK_EQ(stalls[0], stalls[1]);
    }
}

static void link_transfers_one_flit_per_cycle(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    sender *s;
    receiver *r;
    build(sim, 0, 8, 2, 1, 5, &s, &r);
    CHECK(kh_sim_run_until_idle(sim, 1000));
    CHECK_EQ(r->got, 5);
    for (unsigned i = 0; i < 5; i++) {
        CHECK_EQ(s->sent_at[i], i);         /* one per cycle, no stall */
        CHECK_EQ(r->got_at[i], i + 2);      /* visible after the fall-through */
        CHECK_EQ(r->got_val[i], i);         /* in order */
    }
    CHECK_EQ(s->out->flits, 5);
    CHECK_EQ(s->out->stall_cycles, 0);
    kh_sim_destroy(sim);
}

/* A slow receiver with a 2-deep FIFO: the sender stalls, is woken by the
 * freed space, and nothing is lost or duplicated. The transfer cycles must
 * not depend on which component is stepped first in a cycle. */
static void backpressure_is_order_independent(void)
{
    kh_cycle sent[2][16], got[2][16];
    uint64_t stalls[2];
    for (int order = 0; order < 2; order++) {
        kh_sim *sim = kh_sim_new(NULL);
        sender *s;
        receiver *r;
        build(sim, order, 2, 1, 3, 10, &s, &r);
        CHECK(kh_sim_run_until_idle(sim, 1000));
        CHECK_EQ(r->got, 10);
        for (unsigned i = 0; i < 10; i++) {
            CHECK_EQ(r->got_val[i], i);
            sent[order][i] = s->sent_at[i];
            got[order][i] = r->got_at[i];
        }
        stalls[order] = s->out->stall_cycles;
        kh_sim_destroy(sim);
    }
    for (unsigned i = 0; i < 10; i++) {
        CHECK_EQ(sent[0][i], sent[1][i]);
        CHECK_EQ(got[0][i], got[1][i]);
    }
    CHECK_EQ(stalls[0], stalls[1]);
    CHECK(stalls[0] > 0);
    /* Receiver pops at 1, 4, 7, ...: a pop in cycle t frees space from t+1,
     * so after the FIFO fills the sender transfers one cycle after each pop. */
    CHECK_EQ(got[0][0], 1);
    CHECK_EQ(got[0][1], 4);
    CHECK_EQ(sent[0][2], 2);
    CHECK_EQ(sent[0][3], 5); /* first pop at 1 frees the slot that is refilled at 2; next at 4 -> 5 */
}

static void tied_off_link_drops(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    sender *s = calloc(1, sizeof *s);
    s->n = 3;
    kh_sim_add(sim, &s->base, &sender_ops_owned, "tx");
    s->out = kh_link_new(sim, &s->base, NULL, 0, NULL, "tie-off");
    kh_comp_wake(&s->base, 0);
    CHECK(kh_sim_run_until_idle(sim, 100));
    CHECK_EQ(s->out->flits, 3);
    CHECK_EQ(s->out->dropped, 3);
    kh_sim_destroy(sim);
}

/* ---- idle jumps: a component that wakes once after 10^9 cycles ---- */
typedef struct sleeper {
    kh_comp base;
    unsigned steps;
    kh_cycle last;
} sleeper;

static void sleeper_step(kh_comp *c, kh_cycle now)
{
    sleeper *s = (sleeper *)c;
    s->steps++;
    s->last = now;
}

static const kh_comp_ops sleeper_ops = {"sleeper", sleeper_step, NULL, NULL, sender_destroy, NULL, NULL};

static void idle_cycles_are_skipped(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    sleeper *s = calloc(1, sizeof *s);
    kh_sim_add(sim, &s->base, &sleeper_ops, "sleeper");
    kh_comp_wake(&s->base, 1000000000ull);
    uint64_t steps = kh_sim_run(sim, 2000000000ull);
    CHECK_EQ(steps, 1);
    CHECK_EQ(s->steps, 1);
    CHECK_EQ(s->last, 1000000000ull);
    CHECK_EQ(kh_sim_now(sim), 2000000000ull);
    CHECK(kh_sim_idle(sim));
    kh_sim_destroy(sim);
}

/* ---- what the kernel holds for whom, between runs (lane promises) ---- */
static void noop_timer(kh_timer *t, kh_cycle now) { (void)t, (void)now; }

static void pending_names_wakes_and_timers(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    sleeper *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    kh_sim_add(sim, &a->base, &sleeper_ops, "a");
    kh_sim_add(sim, &b->base, &sleeper_ops, "b");
    uint64_t ba = UINT64_C(1) << a->base.id, bb = UINT64_C(1) << b->base.id, mask = ~UINT64_C(0);
    CHECK_EQ(kh_sim_pending(sim, &mask, 1), 0);
    CHECK_EQ(mask, 0);
    /* the wheel's last slot ahead, and a timer in another */
    kh_comp_wake(&a->base, 63);
    kh_timer t = {.fn = noop_timer};
    kh_timer_arm(sim, &t, 5);
    CHECK_EQ(kh_sim_pending(sim, &mask, 1), 1);
    CHECK_EQ(mask, ba);
    /* the timer has run; a's wake is still ahead, b's wraps the wheel */
    kh_sim_run(sim, 10);
    CHECK_EQ(kh_sim_pending(sim, &mask, 1), 0);
    CHECK_EQ(mask, ba);
    kh_comp_wake(&b->base, kh_sim_now(sim) + 63);
    CHECK_EQ(kh_sim_pending(sim, &mask, 1), 0);
    CHECK_EQ(mask, ba | bb);
    /* a disarmed timer is nothing; a wake past the wheel (the heap) is */
    kh_timer_arm(sim, &t, kh_sim_now(sim) + 3);
    CHECK_EQ(kh_sim_pending(sim, &mask, 1), 1);
    kh_timer_disarm(sim, &t);
    CHECK_EQ(kh_sim_pending(sim, &mask, 1), 0);
    kh_sim_run(sim, 100);
    CHECK_EQ(kh_sim_pending(sim, &mask, 1), 0);
    CHECK_EQ(mask, 0);
    kh_comp_wake(&a->base, kh_sim_now(sim) + 100000);
    CHECK_EQ(kh_sim_pending(sim, &mask, 1), 0);
    CHECK_EQ(mask, ba);
    CHECK_EQ(a->steps, 1);
    CHECK_EQ(b->steps, 1);
    kh_sim_destroy(sim);
}

/* ---- engines: the names, the fast flag, the settle at every run's end ---- */
typedef struct settler {
    kh_comp base;
    unsigned settles, steps;
    kh_cycle settled_at;
} settler;

static void settler_settle(kh_comp *c)
{
    settler *s = (settler *)c;
    s->settles++;
    s->settled_at = kh_sim_now(c->sim);
}

/* Asks for its settle twice in a step: it is settled once, at the run's end. */
static void settler_step(kh_comp *c, kh_cycle now)
{
    settler *s = (settler *)c;
    (void)now;
    s->steps++;
    kh_comp_unsettled(c, settler_settle);
    kh_comp_unsettled(c, settler_settle);
}

static const kh_comp_ops settler_ops = {.kind = "settler", .step = settler_step, .destroy = sender_destroy};

static void engines_are_named_and_runs_end_settled(void)
{
    kh_sim_engine_kind e = KH_ENGINE_CYCLE;
    CHECK_EQ(kh_sim_engine_parse("fast", &e), 0);
    CHECK_EQ(e, KH_ENGINE_FAST);
    CHECK_EQ(kh_sim_engine_parse("cycle", &e), 0);
    CHECK_EQ(e, KH_ENGINE_CYCLE);
    CHECK_EQ(kh_sim_engine_parse("Cycle", &e), -1);
    CHECK_EQ(kh_sim_engine_parse("", &e), -1);
    CHECK(!strcmp(kh_sim_engine_name(KH_ENGINE_CYCLE), "cycle"));
    CHECK(!strcmp(kh_sim_engine_name(KH_ENGINE_FAST), "fast"));
    kh_sim *sim = kh_sim_new(NULL);
    settler *s = calloc(1, sizeof *s);
    kh_sim_add(sim, &s->base, &settler_ops, "settler");
    kh_sim_set_engine(sim, KH_ENGINE_FAST);
    CHECK_EQ(kh_sim_get_engine(sim), KH_ENGINE_FAST);
    CHECK(kh_comp_fast(&s->base));
    kh_trace t = {0};
    kh_sim_set_trace(sim, &t); /* a sink sees every cycle: no fast path */
    CHECK(!kh_comp_fast(&s->base));
    kh_sim_set_trace(sim, NULL);
    CHECK(kh_comp_fast(&s->base));
    kh_sim_set_engine(sim, KH_ENGINE_CYCLE);
    CHECK(!kh_comp_fast(&s->base));
    kh_comp_wake(&s->base, 3);
    kh_sim_run(sim, 10);
    CHECK_EQ(s->steps, 1);
    CHECK_EQ(s->settles, 1);
    CHECK_EQ(s->settled_at, 10); /* between cycles, at the run's end */
    kh_comp_wake(&s->base, 12);
    CHECK(kh_sim_run_until_idle(sim, 100));
    CHECK_EQ(s->settles, 2);
    CHECK_EQ(s->settled_at, 13);
    kh_sim_run(sim, 5); /* nothing asked: nothing settled */
    CHECK_EQ(s->settles, 2);
    kh_sim_destroy(sim);
}

static void wakes_coalesce_and_all_requests_are_kept(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    sleeper *s = calloc(1, sizeof *s);
    kh_sim_add(sim, &s->base, &sleeper_ops, "sleeper");
    kh_comp_wake(&s->base, 9);
    kh_comp_wake(&s->base, 5);
    kh_comp_wake(&s->base, 5);
    kh_sim_run(sim, 100);
    CHECK_EQ(s->steps, 2); /* stepped at 5 and 9, once each */
    CHECK_EQ(s->last, 9);
    kh_sim_destroy(sim);
}

/* ---- end-of-cycle hooks: after every step of the cycle, once ---- */
typedef struct tally {
    kh_comp base;
    kh_end_hook *hook;
    unsigned *steps_so_far; /* shared by both components */
} tally;

typedef struct hook_log {
    unsigned steps_so_far, runs, steps_seen[4];
    kh_cycle at[4];
} hook_log;

static void tally_step(kh_comp *c, kh_cycle now)
{
    tally *t = (tally *)c;
    (*t->steps_so_far)++;
    kh_sim_at_end(c->sim, t->hook); /* both ask: the hook runs once */
    if (now < 3) kh_comp_wake(c, now + 1);
}

static void log_hook(void *ctx, kh_cycle now)
{
    hook_log *l = ctx;
    if (l->runs < 4) {
        l->steps_seen[l->runs] = l->steps_so_far;
        l->at[l->runs] = now;
    }
    l->runs++;
}

static const kh_comp_ops tally_ops = {"tally", tally_step, NULL, NULL, sender_destroy, NULL, NULL};

static void end_hook_runs_once_after_every_step_of_the_cycle(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    hook_log log = {0};
    kh_end_hook h = {.fn = log_hook, .ctx = &log};
    for (int i = 0; i < 2; i++) {
        tally *t = calloc(1, sizeof *t);
        t->hook = &h;
        t->steps_so_far = &log.steps_so_far;
        kh_sim_add(sim, &t->base, &tally_ops, "tally");
        kh_comp_wake(&t->base, 1);
    }
    kh_sim_run(sim, 10);
    CHECK_EQ(log.runs, 3); /* cycles 1, 2, 3: only cycles that asked */
    for (unsigned i = 0; i < 3; i++) {
        CHECK_EQ(log.at[i], i + 1);
        CHECK_EQ(log.steps_seen[i], 2 * (i + 1)); /* both steps of the cycle done */
    }
    kh_sim_destroy(sim);
}

/* ---- the same after a wake past the wheel: the cycles after it still
 * run their hooks at their end (the single-process loop takes such a
 * cycle the general way, which leaves the in-step flag clear) ---- */
typedef struct far_waker {
    kh_comp base;
    tally *wake[2];
} far_waker;

static void far_waker_step(kh_comp *c, kh_cycle now)
{
    far_waker *f = (far_waker *)c;
    if (now < 100) {
        kh_comp_wake(c, now + 3 * KH_WHEEL); /* past the wheel: the heap */
        return;
    }
    for (int i = 0; i < 2; i++) kh_comp_wake(&f->wake[i]->base, now + 1);
}

static const kh_comp_ops far_waker_ops = {"far", far_waker_step, NULL, NULL, sender_destroy, NULL, NULL};

static void end_hook_after_every_step_also_after_a_far_wake(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    hook_log log = {0};
    kh_end_hook h = {.fn = log_hook, .ctx = &log};
    far_waker *f = calloc(1, sizeof *f);
    kh_sim_add(sim, &f->base, &far_waker_ops, "far");
    for (int i = 0; i < 2; i++) {
        tally *t = calloc(1, sizeof *t);
        t->hook = &h;
        t->steps_so_far = &log.steps_so_far;
        kh_sim_add(sim, &t->base, &tally_ops, "tally");
        f->wake[i] = t;
    }
    kh_comp_wake(&f->base, 1);
    kh_sim_run(sim, 1000);
    /* the tallies step in cycle 1 + 3 * KH_WHEEL + 1 and the cycle after
     * it (tally_step wakes itself only before cycle 3) */
    CHECK_EQ(log.steps_so_far, 2);
    CHECK_EQ(log.runs, 1);
    CHECK_EQ(log.at[0], 2 + 3 * KH_WHEEL);
    CHECK_EQ(log.steps_seen[0], 2); /* both steps of the cycle done */
    kh_sim_destroy(sim);
}

static void run_until_idle_stops_at_limit(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    sleeper *s = calloc(1, sizeof *s);
    kh_sim_add(sim, &s->base, &sleeper_ops, "sleeper");
    kh_comp_wake(&s->base, 500);
    CHECK_EQ(kh_sim_run_until_idle(sim, 100), 0);
    CHECK_EQ(kh_sim_now(sim), 100);
    CHECK_EQ(s->steps, 0);
    CHECK_EQ(kh_sim_next_wake(sim), 500);
    CHECK_EQ(kh_sim_run_until_idle(sim, 1000), 1);
    CHECK_EQ(s->steps, 1);
    kh_sim_destroy(sim);
}

/* A receiver that never pops: the simulation goes idle with work left, and
 * the hang report names the component. */
static void stuck_components_describe_themselves(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    sender *s;
    receiver *r;
    build(sim, 0, 4, 1, 1000000, 10, &s, &r);
    r->next_pop = KH_NEVER; /* never pops: it wakes, sees it may not pop, sleeps */
    kh_sim_run_until_idle(sim, 100000);
    char buf[512];
    CHECK(kh_sim_describe_stuck(sim, buf, sizeof buf) == 1);
    CHECK(strstr(buf, "rx: 4 flits queued") != NULL);
    kh_sim_destroy(sim);
}

static void two_simulations_do_not_interact(void)
{
    kh_sim *a = kh_sim_new(NULL), *b = kh_sim_new(NULL);
    sender *sa, *sb;
    receiver *ra, *rb;
    build(a, 0, 8, 2, 1, 5, &sa, &ra);
    build(b, 1, 8, 1, 1, 3, &sb, &rb);
    kh_sim_run(a, 3);
    kh_sim_run_until_idle(b, 100);
    CHECK_EQ(rb->got, 3);
    CHECK(ra->got < 5);
    kh_sim_run_until_idle(a, 100);
    CHECK_EQ(ra->got, 5);
    kh_sim_destroy(a);
    kh_sim_destroy(b);
}

/* ---- partitions (docs/mpi.md): the windowed kernel with a one-process
 * stand-in for the agreement, which an MPI rank replaces ---- */
typedef struct solo_sync {
    kh_sync_ops ops;
    kh_cycle window;     /* lookahead */
    unsigned agreements, begins;
} solo_sync;

static void solo_agree(void *ctx, kh_cycle *next, kh_cycle *reached)
{
    (void)next;
    (void)reached; /* one process: its own values are everyone's */
    ((solo_sync *)ctx)->agreements++;
}
static void solo_begin(void *ctx, kh_cycle from)
{
    (void)from;
    ((solo_sync *)ctx)->begins++;
}
static kh_cycle solo_window_end(void *ctx, kh_cycle from) { return from + ((solo_sync *)ctx)->window; }
static int solo_gather(void *ctx, const kh_sync_rec *mine, unsigned n, kh_sync_rec **all)
{
    (void)ctx;
    *all = calloc(n ? n : 1, sizeof **all);
    for (unsigned i = 0; i < n; i++) (*all)[i] = (kh_sync_rec){mine[i].key, strdup(mine[i].text)};
    return (int)n;
}

static void solo_init(solo_sync *y, kh_cycle window)
{
    *y = (solo_sync){{solo_agree, solo_begin, solo_window_end, solo_gather, 1, NULL}, window, 0, 0};
}

/* Windows of any length give the cycles of the plain kernel: a backpressured
 * link, its sender's and receiver's every step. */
static void windows_give_the_same_cycles(void)
{
    static const kh_cycle windows[] = {1, 2, 3, 64, 1000};
    kh_sim *ref = kh_sim_new(NULL);
    sender *s0;
    receiver *r0;
    build(ref, 0, 2, 2, 3, 20, &s0, &r0);
    CHECK_EQ(kh_sim_run_until_idle(ref, 100000), 1);
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        kh_sim *sim = kh_sim_new(NULL);
        solo_sync y;
        sender *s;
        receiver *r;
        solo_init(&y, windows[w]);
        build(sim, 0, 2, 2, 3, 20, &s, &r);
        kh_sim_set_sync(sim, &y.ops, &y);
        CHECK_EQ(kh_sim_run_until_idle(sim, 100000), 1);
        CHECK_EQ(r->got, 20);
        CHECK_EQ(kh_sim_now(sim), kh_sim_now(ref));
        CHECK(memcmp(r->got_at, r0->got_at, sizeof r->got_at) == 0);
        CHECK(memcmp(s->sent_at, s0->sent_at, sizeof s->sent_at) == 0);
        CHECK(y.agreements > 0);
        kh_sim_destroy(sim);
    }
    kh_sim_destroy(ref);
}

/* An idle stretch is one agreement, whatever its length; after going idle
 * the clock is where the plain kernel leaves it (the last step + 1). */
static void windows_skip_idle_stretches(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    solo_sync y;
    solo_init(&y, 4);
    sleeper *s = calloc(1, sizeof *s);
    kh_sim_add(sim, &s->base, &sleeper_ops, "sleeper");
    kh_sim_set_sync(sim, &y.ops, &y);
    kh_comp_wake(&s->base, 100000);
    CHECK_EQ(kh_sim_run_until_idle(sim, 1000000), 1);
    CHECK_EQ(s->steps, 1);
    CHECK_EQ(s->last, 100000);
    CHECK_EQ(kh_sim_now(sim), 100001);
    CHECK(y.agreements <= 3); /* the first window, the one with the step, done */
    kh_sim_destroy(sim);
}

/* Only the components a process owns are stepped; their wakes of others
 * are dropped when the cycle runs. A shared component is owned everywhere
 * and reported by the leader only. */
static void unowned_components_are_not_stepped(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    sleeper *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b), *c = calloc(1, sizeof *c);
    kh_sim_add(sim, &a->base, &sleeper_ops, "a");
    kh_sim_add(sim, &b->base, &sleeper_ops, "b");
    kh_sim_add(sim, &c->base, &sleeper_ops, "c");
    CHECK(kh_sim_owns(sim, &b->base));
    CHECK_EQ(kh_sim_own(sim, 0, 1), 0);
    CHECK_EQ(kh_sim_share(sim, 2, 3), 0);
    kh_comp_wake(&a->base, 5);
    kh_comp_wake(&b->base, 5);
    kh_comp_wake(&c->base, 7);
    kh_sim_run(sim, 10);
    CHECK_EQ(a->steps, 1);
    CHECK_EQ(b->steps, 0);
    CHECK_EQ(c->steps, 1);
    CHECK(kh_sim_owns(sim, &a->base) && !kh_sim_owns(sim, &b->base) && kh_sim_owns(sim, &c->base));
    CHECK(kh_sim_reports(sim, &a->base) && !kh_sim_reports(sim, &b->base));
    solo_sync y;
    solo_init(&y, 8);
    y.ops.leader = 0;
    kh_sim_set_sync(sim, &y.ops, &y);
    CHECK(!kh_sim_reports(sim, &c->base)); /* shared: the leader speaks for it */
    y.ops.leader = 1;
    CHECK(kh_sim_reports(sim, &c->base));
    kh_sim_set_sync(sim, NULL, NULL);
    kh_sim_destroy(sim);
}

static void params_default_set_and_profiles(void)
{
    kh_params p;
    char err[200];
    kh_params_default(&p);
    CHECK_EQ(p.router_fifo_depth, 512); /* parameters.md row 15 */
    CHECK_EQ(p.fifo_latency, 2);        /* row 21 */
    CHECK_EQ(p.dram_lat, 51);           /* row 45 */
    CHECK_EQ(kh_params_set(&p, "dram_lat", "0x10", err, sizeof err), 0);
    CHECK_EQ(p.dram_lat, 16);
    CHECK_EQ(kh_params_set(&p, "nope", "1", err, sizeof err), -1);
    CHECK(strstr(err, "nope") != NULL);
    CHECK_EQ(kh_params_set_assign(&p, "dram_lat=abc", err, sizeof err), -1);
    CHECK(strstr(err, "abc") != NULL);
    CHECK_EQ(p.dram_lat, 16); /* a refused set changes nothing */
    CHECK_EQ(kh_params_profile(&p, "rec-saxpy", err, sizeof err), 0);
    CHECK_EQ(p.fifo_latency, 1); /* parameters.md §2.1 stand-ins */
    CHECK_EQ(p.recv_depth, 16);  /* §2.5 */
    CHECK_EQ(kh_params_profile(&p, "bogus", err, sizeof err), -1);
}

/* Values that would hang or overflow a field are refused with the row, the
 * value and the range; a refused set changes nothing. */
static void params_out_of_range_are_refused(void)
{
    kh_params p;
    char err[300];
    static const char *const profiles[] = {"machine", "rec", "rec-saxpy", "rec-cluster", "rec-vector",
                                           "upstream-7703ee8"};
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++) {
        kh_params_default(&p);
        CHECK_EQ(kh_params_profile(&p, profiles[i], err, sizeof err), 0);
        CHECK_EQ(kh_params_check(&p, err, sizeof err), 0);
    }
    kh_params_default(&p);
    CHECK_EQ(kh_params_set(&p, "sig_depth", "0", err, sizeof err), -1);
    CHECK(strstr(err, "sig_depth = 0") != NULL);
    CHECK_EQ(p.sig_depth, 16);
    /* CU_CAPS carries INST_DEPTH in 16 bits (control.md §5.6) */
    CHECK_EQ(kh_params_set(&p, "inst_depth", "70000", err, sizeof err), -1);
    CHECK_EQ(p.inst_depth, 512);
    /* memory.md §4: at least two write slots */
    CHECK_EQ(kh_params_set(&p, "wr_slots", "1", err, sizeof err), -1);
    CHECK_EQ(kh_params_set(&p, "q_margin", "64", err, sizeof err), -1);
    CHECK(strstr(err, "q_depth") != NULL);
    CHECK_EQ(kh_params_set(&p, "cluster_tiles", "300", err, sizeof err), -1);
    CHECK(strstr(err, "power of two") != NULL);
    CHECK_EQ(kh_params_set(&p, "cluster_tiles", "256", err, sizeof err), 0);
    CHECK_EQ(kh_params_set(&p, "ilink_lat", "0", err, sizeof err), -1);
}

/* docs/diagnostics.md: what upstream's published stack expects */
static void upstream_profile_sets_the_stack(void)
{
    kh_params p;
    char err[300];
    kh_params_default(&p);
    CHECK_EQ(kh_params_profile(&p, "upstream-7703ee8", err, sizeof err), 0);
    CHECK_EQ(p.read_quant, 1);            /* cluster.md §11 */
    CHECK_EQ(p.dispatch_older_rtl, 1);    /* the 7703ee8 RTL's dispatcher */
    CHECK_EQ(p.host_map, 1);              /* Card() without a board */
    CHECK_EQ(p.host_access_cycles, 3900000); /* ~13 ms per JTAG access at 300 MHz */
    CHECK_EQ(p.host_read_cycles, 81);     /* the rest as the machine's */
    CHECK_EQ(p.strict, 0);
    CHECK_EQ(kh_params_set(&p, "host_map", "kohaku", err, sizeof err), 0);
    CHECK_EQ(p.host_map, 0);
    CHECK_EQ(kh_params_set(&p, "host_map", "noboard", err, sizeof err), 0);
    CHECK_EQ(p.host_map, 1);
    CHECK_EQ(kh_params_set(&p, "host_map", "2", err, sizeof err), -1);
    CHECK_EQ(kh_params_profile(&p, "upstream", err, sizeof err), -1);
    CHECK(strstr(err, "upstream-7703ee8") != NULL); /* the refusal lists it */
}

/* sim.h diagnostics: counted per name in first-raised order, the first
 * message kept; raising one logs nothing; past KH_DIAG_NAMES names the
 * last slot counts the rest as "other" */
static unsigned logged;
static void count_log(void *ctx, kh_log_level lvl, const char *msg)
{
    (void)ctx;
    (void)lvl;
    (void)msg;
    logged++;
}

static void diagnostics_are_kept_per_name(void)
{
    kh_sim *sim = kh_sim_new(NULL);
    if (!sim) return;
    kh_sim_set_log(sim, count_log, NULL, KH_LOG_DEBUG);
    logged = 0;
    CHECK_EQ(kh_sim_ndiag(sim), 0);
    CHECK(kh_sim_diag_at(sim, 0, NULL, NULL) == NULL);
    kh_sim_diag(sim, "a", "first %d", 1);
    kh_sim_diag(sim, "b", "other %s", "thing");
    kh_sim_diag(sim, "a", "second %d", 2);
    CHECK_EQ(kh_sim_ndiag(sim), 2);
    CHECK_EQ(kh_sim_diag_total(sim), 3);
    uint64_t n = 0;
    const char *msg = NULL, *name = kh_sim_diag_at(sim, 0, &n, &msg);
    CHECK(name && !strcmp(name, "a") && n == 2 && !strcmp(msg, "first 1"));
    name = kh_sim_diag_at(sim, 1, &n, &msg);
    CHECK(name && !strcmp(name, "b") && n == 1 && !strcmp(msg, "other thing"));
    CHECK_EQ(logged, 0);
    static const char *const names[] = {"c", "d", "e", "f", "g", "h", "i", "j"};
    for (unsigned i = 0; i < 8; i++) kh_sim_diag(sim, names[i], "%s", names[i]);
    CHECK_EQ(kh_sim_ndiag(sim), KH_DIAG_NAMES);
    name = kh_sim_diag_at(sim, KH_DIAG_NAMES - 1, &n, NULL);
    CHECK(name && !strcmp(name, "other") && n == 3); /* h, i, j */
    CHECK_EQ(kh_sim_diag_total(sim), 11);
    kh_sim_destroy(sim);
}

int main(void)
{
    KH_RUN(fifo_push_visible_after_latency);
    KH_RUN(fifo_pop_frees_space_next_cycle);
    KH_RUN(fifo_popped_flit_intact_until_next_pop);
    KH_RUN(link_transfers_one_flit_per_cycle);
    KH_RUN(backpressure_is_order_independent);
    KH_RUN(refusal_after_space_in_same_cycle_retries_next_cycle);
    KH_RUN(tied_off_link_drops);
    KH_RUN(idle_cycles_are_skipped);
    KH_RUN(pending_names_wakes_and_timers);
    KH_RUN(wakes_coalesce_and_all_requests_are_kept);
    KH_RUN(engines_are_named_and_runs_end_settled);
    KH_RUN(end_hook_runs_once_after_every_step_of_the_cycle);
    KH_RUN(end_hook_after_every_step_also_after_a_far_wake);
    KH_RUN(run_until_idle_stops_at_limit);
    KH_RUN(stuck_components_describe_themselves);
    KH_RUN(two_simulations_do_not_interact);
    KH_RUN(windows_give_the_same_cycles);
    KH_RUN(windows_skip_idle_stretches);
    KH_RUN(unowned_components_are_not_stepped);
    KH_RUN(params_default_set_and_profiles);
    KH_RUN(params_out_of_range_are_refused);
    KH_RUN(upstream_profile_sets_the_stack);
    KH_RUN(diagnostics_are_kept_per_name);
    return kh_test_end("t_sim");
}
