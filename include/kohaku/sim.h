/* The simulation kernel: one clock, components, links and wake times.
 *
 * docs/design.md §2 explains the model. In short:
 * - A simulation (kh_sim) owns everything: components, links, parameters,
 *   statistics, the log and the trace sink. No global state: two
 *   simulations in one process never interact.
 * - Synchronous semantics: what a component sees in cycle t was committed
 *   at the end of t-1. Links (kh_link) and FIFOs (kh_fifo) implement this so
 *   the order in which components are stepped never changes a result.
 * - Work only where something happens: a component is stepped in cycle t
 *   only if it asked for t with kh_comp_wake(). When no component is due the
 *   clock jumps to the earliest wake time. Idle cycles cost nothing.
 */
#ifndef KOHAKU_SIM_H
#define KOHAKU_SIM_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kohaku/flit.h"
#include "kohaku/params.h"

typedef uint64_t kh_cycle;
#define KH_NEVER UINT64_MAX

typedef struct kh_sim kh_sim;
typedef struct kh_comp kh_comp;
typedef struct kh_link kh_link;
typedef struct kh_trace kh_trace;
struct kh_ck;

/* ---- components ------------------------------------------------------- */

typedef struct kh_comp_ops {
    const char *kind; /* "router", "mem_port", "cu", ... */
    /* Do the work of cycle `now`. Called only in cycles the component asked
     * for. To be stepped again, call kh_comp_wake(c, t) with t > now. */
    void (*step)(kh_comp *c, kh_cycle now);
    /* Hang diagnosis: if the component has outstanding work, write one or
     * more lines saying what it waits for and which spec rule put it there,
     * and return 1; return 0 when idle. May be NULL (never stuck). */
    int (*describe_stuck)(kh_comp *c, char *buf, size_t len);
    /* Append this component's counters as a JSON object body (without the
     * braces) for --stats. May be NULL. */
    void (*stats_json)(kh_comp *c, char *buf, size_t len);
    /* Free what the component owns, including the struct itself. */
    void (*destroy)(kh_comp *c);
    /* Only while tracing: a link into or out of the component carried a
     * flit in cycle now; a component reports its counter tracks here (a
     * router its input FIFOs) instead of on its hot path. May be NULL. */
    void (*traced)(kh_comp *c, kh_cycle now);
    /* Checkpoints (kohaku/ckpt.h, docs/checkpoint.md): visit the dynamic
     * state with the stream (saving or restoring, the same function),
     * between runs only. NULL: the component is not covered yet, and a
     * save refuses naming it. */
    void (*ckpt)(kh_comp *c, struct kh_ck *ck);
} kh_comp_ops;

/* Embed as the first member of a component's struct. */
struct kh_comp {
    const kh_comp_ops *ops;
    kh_sim *sim;
    unsigned id;    /* registration order; same-cycle steps run in id order */
    unsigned wword; /* (id / 64) * KH_WHEEL and 1 << (id % 64): where a wake */
    uint64_t wbit;  /* sets this component's bit in the wheel, precomputed */
    kh_link *in_links;  /* links whose receiver is this component (kh_comp_space) */
    kh_comp *next_unsettled; /* kernel use: the list kh_comp_unsettled builds */
    void (*settle)(kh_comp *c); /* kernel use: kh_comp_unsettled's, NULL when not on that list */
    char name[48];  /* e.g. "router(1,2)", "cu(2,1)" */
};

/* Register c with the simulation, which takes ownership (ops->destroy is
 * called by kh_sim_destroy). Fills c->sim, c->id. */
void kh_sim_add(kh_sim *sim, kh_comp *c, const kh_comp_ops *ops, const char *name);

/* Ask for a step in cycle `at`. Every request is kept (a component asking
 * for t+1 and t+9 is stepped in both); a component is stepped at most once
 * per cycle however often it asked. Inside a step of cycle t, `at` must be
 * > t (an earlier request is a bug: it is moved to t+1 and logged); between
 * cycles (host access) `at` may be the current cycle. */
void kh_comp_wake_far(kh_comp *c, kh_cycle at); /* the general case (kernel use) */

/* A timer: fn runs at the start of cycle `at`, before the steps of at
 * (which may be asked for from fn: kh_comp_wake(c, at) is allowed there).
 * The event engine's work advanced ahead of the clock ends in timers
 * rather than in steps, so that it can be taken back exactly: a disarmed
 * timer leaves no trace, and a cycle in which only timers run is executed
 * as one with steps. The owner embeds it (zeroed: not armed). */
typedef struct kh_timer kh_timer;
struct kh_timer {
    void (*fn)(kh_timer *t, kh_cycle now);
    kh_timer *next, **pprev; /* kernel use: the slot's list; pprev NULL: not armed */
    kh_cycle at;             /* kernel use */
};
static inline int kh_timer_armed(const kh_timer *t) { return t->pprev != 0; }

/* The scheduler's hot fields, first member of kh_sim, public only so that
 * the common wake (a later cycle within the wheel) is inline. */
#define KH_WHEEL 64 /* cycles covered by the wake wheel: one bit per slot in occ */
typedef struct kh_sched {
    kh_cycle now;     /* next cycle to execute, or the cycle being executed */
    uint64_t occ;     /* bit s: wheel slot s has a wake */
    uint64_t *wheel;  /* nwords x KH_WHEEL: word w of slot s at [w * KH_WHEEL + s] */
    unsigned nwords;
    kh_trace *trace;  /* the trace sink, NULL when tracing is off */
    int fast;         /* the event engine's fast paths may run: engine fast, no trace sink */
    kh_timer *timers[KH_WHEEL]; /* armed timers by slot (kh_timer_arm) */
} kh_sched;

static inline void kh_comp_wake(kh_comp *c, kh_cycle at)
{
    kh_sched *s = (kh_sched *)(void *)c->sim;
    if (at > s->now && at - s->now < KH_WHEEL) {
        unsigned slot = (unsigned)(at % KH_WHEEL);
        s->wheel[c->wword + slot] |= c->wbit;
        s->occ |= UINT64_C(1) << slot;
    } else {
        kh_comp_wake_far(c, at);
    }
}

/* kh_timer_arm for a caller that knows t is not armed and now < at <
 * now + KH_WHEEL, now the scheduler's (say a hop's offer, checked at its
 * admission): without the move and the range check, which the sanitiser
 * build keeps as a trap, so the tests see a caller that breaks them. */
static inline void kh_timer_arm_within(kh_sim *sim, kh_timer *t, kh_cycle at)
{
    kh_sched *s = (kh_sched *)(void *)sim;
#ifdef __SANITIZE_ADDRESS__
    if (t->pprev || at - s->now - 1 >= KH_WHEEL - 1) __builtin_trap();
#endif
    unsigned slot = (unsigned)(at % KH_WHEEL);
    t->at = at;
    t->next = s->timers[slot];
    if (t->next) t->next->pprev = &t->next;
    t->pprev = &s->timers[slot];
    s->timers[slot] = t;
    s->occ |= UINT64_C(1) << slot;
}
/* Arm t for cycle at: now < at < now + KH_WHEEL inside a step or timer,
 * now <= at between cycles. An armed timer is moved. Inline for the
 * common case (one per flit-hop under the event engine). */
void kh_timer_arm_far(kh_sim *sim, kh_timer *t, kh_cycle at); /* kernel use: the checks, a re-arm */
static inline void kh_timer_arm(kh_sim *sim, kh_timer *t, kh_cycle at)
{
    kh_sched *s = (kh_sched *)(void *)sim;
    if (t->pprev || at - s->now - 1 >= KH_WHEEL - 1)
        kh_timer_arm_far(sim, t, at);
    else
        kh_timer_arm_within(sim, t, at);
}
void kh_timer_disarm(kh_sim *sim, kh_timer *t);

/* Ask for a step in cycle now + d from inside the step (or an accept) of
 * cycle now, for a caller that knows 0 < d < KH_WHEEL (say a FIFO latency
 * checked when it was built): kh_comp_wake without its range checks. */
static inline void kh_comp_wake_within(kh_comp *c, kh_cycle now, unsigned d)
{
    kh_sched *s = (kh_sched *)(void *)c->sim;
    unsigned slot = (unsigned)((now + d) % KH_WHEEL);
    s->wheel[c->wword + slot] |= c->wbit;
    s->occ |= UINT64_C(1) << slot;
}
/* Ask for a step in cycle now + 1 from inside the step of cycle now: the
 * most frequent wake (once per busy component per cycle), always inside the
 * wheel. */
static inline void kh_comp_wake_next(kh_comp *c, kh_cycle now) { kh_comp_wake_within(c, now, 1); }
/* kh_comp_wake_next when wake is nonzero, nothing otherwise, without a
 * branch: for a caller where whether it wakes c is a coin toss (a router's
 * sender under load), so a branch would be mispredicted. */
static inline void kh_comp_wake_next_if(kh_comp *c, kh_cycle now, int wake)
{
    kh_sched *s = (kh_sched *)(void *)c->sim;
    uint64_t mask = (uint64_t)0 - (uint64_t)(wake != 0);
    unsigned slot = (unsigned)((now + 1) % KH_WHEEL);
    s->wheel[c->wword + slot] |= c->wbit & mask;
    s->occ |= (UINT64_C(1) << slot) & mask;
}


/* Whether c already has a step in cycle now + 1 (asked inside the step of
 * cycle now): a component that may skip work only while another is stepped
 * anyway reads the wheel here, not in the scheduler's layout itself. */
static inline int kh_comp_steps_next(const kh_comp *c, kh_cycle now)
{
    const kh_sched *s = (const kh_sched *)(const void *)c->sim;
    return (s->wheel[c->wword + (unsigned)((now + 1) % KH_WHEEL)] & c->wbit) != 0;
}

/* ---- engines ------------------------------------------------------------ */

/* Two engines run the same model with the same results (../shared/cli.md
 * "--engine cycle|fast"). KH_ENGINE_CYCLE steps every component in every
 * cycle it asked for: the reference. KH_ENGINE_FAST (the default) lets a
 * component that opts in advance work nothing else can touch in one step
 * (docs/design.md §2, "The event engine") and settle it exactly at the end
 * of every run, or where it is read (kh_comp_unsettled_until_read); a component that knows nothing of it is stepped as under
 * the reference. While a trace sink is attached every fast path is off:
 * the sink sees every transfer in its cycle. */
typedef enum kh_sim_engine_kind {
    KH_ENGINE_FAST = 0,  /* the event engine */
    KH_ENGINE_CYCLE = 1, /* the per-cycle reference */
} kh_sim_engine_kind;
/* "cycle" or "fast": 0 and *e set, else -1. */
int kh_sim_engine_parse(const char *s, kh_sim_engine_kind *e);
const char *kh_sim_engine_name(kh_sim_engine_kind e);
/* Between runs only. kh_sim_new takes the environment's KOHAKU_ENGINE
 * (cycle or fast) when set, else KH_ENGINE_FAST: the test suites run both
 * engines on the same binaries that way. */
void kh_sim_set_engine(kh_sim *sim, kh_sim_engine_kind e);
kh_sim_engine_kind kh_sim_get_engine(const kh_sim *sim);
/* What kh_sim_new takes: KOHAKU_ENGINE when it names an engine, else fast
 * (for models run without a kh_sim, such as the V2 core-alone replay). */
kh_sim_engine_kind kh_sim_engine_default(void);
/* The event engine's fast paths may run now (engine fast, no trace sink):
 * one load, for a component's hot path. */
static inline int kh_comp_fast(const kh_comp *c) { return ((const kh_sched *)(const void *)c->sim)->fast; }
/* c holds work advanced ahead of the clock: the kernel calls settle(c) at
 * the end of this run, once however often it is asked, between cycles;
 * settle makes c's state what the per-cycle engine has after the cycles
 * before kh_sim_now and asks for the wakes it would have. */
void kh_comp_unsettled(kh_comp *c, void (*settle)(kh_comp *c));
/* The same for work that nothing outside c sees before something reads c's
 * state (its statistics, a hang report, a checkpoint, an accessor of c's
 * module): the run's end leaves it in place, and the next run carries on
 * with it as if no run had ended; kh_sim_settle runs settle(c) when it is
 * read. A partitioned run (MPI) settles it at its end, as kh_comp_unsettled. */
void kh_comp_unsettled_until_read(kh_comp *c, void (*settle)(kh_comp *c));
/* Settle every component's advanced work now, between runs (kh_sim_now):
 * before anything reads component state that kh_comp_unsettled_until_read
 * work could hold. Statistics, hang reports, checkpoints, a trace sink or
 * engine set, and the mesh's accessors call it themselves. */
void kh_sim_settle(kh_sim *sim);

/* ---- FIFOs with start-of-cycle semantics ------------------------------- */

/* A bounded FIFO of flits. A push in cycle t becomes visible at the head
 * from t + latency (first-word-fall-through latency, >= 1). A pop in cycle t
 * frees its space only from t + 1, so "full" as seen in cycle t is the
 * start-of-cycle state whatever order components run in. */
typedef struct kh_fifo_ent {
    kh_flit f;
    kh_cycle ready; /* first cycle the entry is visible at the head */
} kh_fifo_ent;      /* flit and time together: one cache line fetch per access */

typedef struct kh_fifo {
    kh_fifo_ent *ent;       /* ring of size = cap + 1 entries */
    unsigned cap, size, head, count; /* the spare entry keeps a popped flit intact (kh_fifo_pop) */
    unsigned latency;
    kh_cycle pop_cycle;     /* cycle of the pops counted in pops */
    unsigned pops;          /* pops made in pop_cycle */
    unsigned high_water;    /* most entries held at once, a pop counting from the next cycle (stats) */
} kh_fifo;

int kh_fifo_init(kh_fifo *q, unsigned cap, unsigned latency); /* 0 ok, -1 no memory */
void kh_fifo_free(kh_fifo *q);
/* The accessors are inline: routers call them several times per flit. */
static inline unsigned kh_fifo_used(const kh_fifo *q, kh_cycle now) /* occupancy at the start of now */
{
    return q->count + (q->pop_cycle == now ? q->pops : 0);
}
static inline int kh_fifo_full(const kh_fifo *q, kh_cycle now) { return kh_fifo_used(q, now) >= q->cap; }
static inline int kh_fifo_empty(const kh_fifo *q) { return q->count == 0; } /* nothing stored, visible or not */
_Noreturn void kh_fifo_overflow(const kh_fifo *q); /* a push into a full FIFO: a simulator bug; aborts */
/* The entry behind the last: f, visible from now + latency (room checked). */
static inline void kh_fifo_store(kh_fifo *q, const kh_flit *f, kh_cycle now)
{
    unsigned tail = q->head + q->count; /* no division: size need not be a power of two */
    if (tail >= q->size) tail -= q->size;
    q->ent[tail].f = *f;
    q->ent[tail].ready = now + q->latency;
    q->count++;
}
static inline void kh_fifo_push(kh_fifo *q, const kh_flit *f, kh_cycle now) /* caller checked full */
{
    if (q->count >= q->cap) kh_fifo_overflow(q);
    kh_fifo_store(q, f, now);
    /* held = stored + popped in this cycle: the same whether a pop of this
     * cycle came before or after the push */
    unsigned held = q->count + (q->pop_cycle == now ? q->pops : 0);
    if (held > q->high_water) q->high_water = held;
}
/* kh_fifo_push for a caller that has just read used = kh_fifo_used(q, now)
 * and found it below cap: no overflow test, and the high-water mark from
 * used (stored + popped in this cycle) without looking at the pops again. */
static inline void kh_fifo_push_below(kh_fifo *q, const kh_flit *f, kh_cycle now, unsigned used)
{
    kh_fifo_store(q, f, now);
    unsigned held = used + 1;
    q->high_water = held > q->high_water ? held : q->high_water;
}
/* The head if it is visible in cycle now, else NULL. */
static inline const kh_flit *kh_fifo_head(const kh_fifo *q, kh_cycle now)
{
    return q->count && q->ent[q->head].ready <= now ? &q->ent[q->head].f : (const kh_flit *)0;
}
/* Cycle the head becomes visible; KH_NEVER when empty. */
static inline kh_cycle kh_fifo_head_ready(const kh_fifo *q) { return q->count ? q->ent[q->head].ready : KH_NEVER; }
/* The head whether visible or not (diagnosis), NULL when empty. */
static inline const kh_flit *kh_fifo_peek(const kh_fifo *q) { return q->count ? &q->ent[q->head].f : (const kh_flit *)0; }
/* Remove the head; returns it (NULL when empty). The popped flit stays
 * readable until the next pop: pushes never reach the entry behind the head,
 * because the ring has one entry more than cap (a router keeps its holding
 * slot there instead of copying the flit out). */
static inline const kh_flit *kh_fifo_pop(kh_fifo *q, kh_cycle now)
{
    if (!q->count) return (const kh_flit *)0;
    const kh_flit *f = &q->ent[q->head].f;
    if (++q->head == q->size) q->head = 0;
    q->count--;
    if (q->pop_cycle != now) {
        q->pop_cycle = now;
        q->pops = 0;
    }
    q->pops++;
    return f;
}

/* Start the ring over at entry 0: only for an empty FIFO whose flit popped
 * last is no longer in use. A lightly loaded FIFO then keeps to its first
 * few entries, which stay in cache, instead of walking the whole ring. */
static inline void kh_fifo_rewind(kh_fifo *q) { q->head = 0; }
/* kh_fifo_pop for a caller done with the popped flit (copied out or
 * consumed): the ring starts over when that leaves it empty. */
static inline void kh_fifo_pop_done(kh_fifo *q, kh_cycle now)
{
    kh_fifo_pop(q, now);
    if (!q->count) kh_fifo_rewind(q);
}

/* ---- links ------------------------------------------------------------- */

/* The receiver's side of a link: called in the cycle a sender offers f.
 * Decide from start-of-cycle state only (use kh_fifo_full); return 1 to take
 * the flit (the transfer happens this cycle; store it and wake yourself for
 * when it becomes visible), 0 if busy. */
typedef int (*kh_accept_fn)(kh_comp *dst, unsigned port, const kh_flit *f, kh_cycle now);

/* One direction of a mesh link: valid/data forward, busy back (mesh.md §4). */
struct kh_link {
    /* hot fields first: kh_link_send touches only this cache line */
    kh_comp *src;
    kh_comp *dst;          /* NULL: tied off (accepts and discards, mesh.md §2) */
    kh_accept_fn accept;
    const kh_sched *sched; /* the simulation's scheduler (trace sink check) */
    unsigned dst_port;
    int trace_track;       /* trace track id, -1 if not assigned */
    kh_cycle last_xfer;    /* the latest transfer (a router's hop offered and refused by a timer, too) */
    kh_cycle blocked_since; /* KH_NEVER unless the sender waits for space */
    kh_cycle space_from;   /* the receiver's latest kh_link_space: space from this cycle */
    /* statistics */
    uint64_t flits;        /* transfers */
    uint64_t dropped;      /* flits taken by a tie-off */
    uint64_t stall_cycles; /* cycles a flit was offered and refused */
    kh_link *next_in;      /* next link into the same receiver */
    char name[64];
};

/* Create a link owned by the simulation. dst == NULL makes a tie-off. */
kh_link *kh_link_new(kh_sim *sim, kh_comp *src, kh_comp *dst, unsigned dst_port,
                     kh_accept_fn accept, const char *name);
/* Give a tie-off (or any link) a receiver: the link joins dst's inbound
 * list so kh_comp_space() reaches its sender. */
void kh_link_set_dst(kh_link *l, kh_comp *dst, unsigned dst_port, kh_accept_fn accept);
/* kh_link_send: see the end of this header (inline). */
/* Receiver: space was freed in cycle now; wakes a waiting sender at now+1
 * (inline, see the end of this header: a router calls it once per flit). */
/* Same, for every link into component c's input `port` (KH_ALL_PORTS: any
 * port): for receivers that do not keep their inbound link pointers. */
#define KH_ALL_PORTS (~0u)
void kh_comp_space(kh_comp *c, unsigned port, kh_cycle now);

/* ---- end-of-cycle hooks -------------------------------------------------- */

/* For a decision that needs every offer of a cycle, such as one arbiter over
 * several receivers (memory.md §2: one flit per cycle into the control agent
 * across the memory ports): each receiver takes its offer into a register of
 * its own in accept() and queues the hook; the hook decides once every step
 * of the cycle has run, before the next cycle begins, so the outcome does
 * not depend on the order of the steps. The owner embeds the hook (zeroed:
 * not queued) and sets fn and ctx. Hooks of one cycle must not depend on
 * each other's order. */
typedef struct kh_end_hook {
    void (*fn)(void *ctx, kh_cycle now);
    void *ctx;
    struct kh_end_hook *next; /* kernel use */
    int queued;               /* kernel use */
} kh_end_hook;
/* Run h at the end of the cycle being executed, once however often it is
 * asked; from inside a step (between cycles it runs at once). */
void kh_sim_at_end(kh_sim *sim, kh_end_hook *h);

/* ---- the simulation ---------------------------------------------------- */

typedef enum kh_log_level { KH_LOG_DEBUG, KH_LOG_INFO, KH_LOG_WARN, KH_LOG_ERROR } kh_log_level;
typedef void (*kh_log_fn)(void *ctx, kh_log_level lvl, const char *msg);

kh_sim *kh_sim_new(const kh_params *p); /* copies p; NULL on no memory */
void kh_sim_destroy(kh_sim *sim);
const kh_params *kh_sim_params(const kh_sim *sim);
kh_cycle kh_sim_now(const kh_sim *sim); /* the next cycle to execute */

/* The clock's end: kh_sim_run and kh_sim_run_until_idle stop there (a
 * larger count is clamped rather than wrapping the clock; units add
 * latencies to now, so it sits well below 2^64). 146 years at 1 GHz. */
#define KH_CLOCK_END (UINT64_C(1) << 62)

/* Run the cycles [now, now + n), n clamped at KH_CLOCK_END. Returns the
 * number of component steps. */
uint64_t kh_sim_run(kh_sim *sim, kh_cycle n);
/* Run until no component has a pending wake, or `limit` cycles elapsed
 * (clamped at KH_CLOCK_END). Returns 1 if idle (nothing pending), 0 if the
 * limit was reached. */
int kh_sim_run_until_idle(kh_sim *sim, kh_cycle limit);
/* kh_sim_run(sim, n) over a machine the caller knows to be idle on every
 * process: an agreement found nothing pending anywhere (kh_sim_idle) and
 * nothing has been woken since. The clock moves and settles as that run's
 * would, without its agreement; one process runs kh_sim_run itself. */
void kh_sim_run_idle(kh_sim *sim, kh_cycle n);
/* Progress on long runs (a CLI's progress line): fn is called between
 * cycles, first at the next cycle run, then again once the clock has
 * advanced by the number of cycles fn returned (0: the next cycle). fn
 * must not touch the simulation. NULL turns it off. */
void kh_sim_set_progress(kh_sim *sim, kh_cycle (*fn)(void *ctx, kh_cycle now), void *ctx);
/* Nothing pending: no component will ever step again without outside help. */
int kh_sim_idle(const kh_sim *sim);
/* Earliest pending wake, KH_NEVER if none: the per-cycle engine's, so
 * the event engine's work is settled first (kh_sim_settle). */
kh_cycle kh_sim_next_wake(kh_sim *sim);
/* Ask every component with outstanding work to describe it. Returns the
 * number of components that reported work (0 = the machine is quiescent). */
int kh_sim_describe_stuck(kh_sim *sim, char *buf, size_t len);

/* Log sink (default: warnings and errors to stderr). */
void kh_sim_set_log(kh_sim *sim, kh_log_fn fn, void *ctx, kh_log_level min);
void kh_sim_log(kh_sim *sim, kh_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, prefixed with "[cycle] name: ". */
void kh_comp_log(kh_comp *c, kh_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Components and links, for stats and tracing walkers. */
/* Checkpoints (src/sim/sim_ckpt.c): the kernel's clock, wake queue,
 * counters and diagnostics, every link's registers and counters, then each
 * component's section (its ops->ckpt). Between runs only; a save refuses a
 * component without a state function, naming it. Restore loads into a
 * machine freshly built from the same description. 0, or -1 with the
 * message in the stream. */
int kh_sim_ckpt(kh_sim *sim, struct kh_ck *ck);
/* A save under MPI (docs/checkpoint.md "Under MPI", src/machine/
 * machine_ckpt_part.c). The COMP sections of components [lo, hi) (save). */
void kh_sim_comps_ckpt(kh_sim *sim, unsigned lo, unsigned hi, struct kh_ck *ck);
/* The bytes written for components [lo, hi) instead of their sections. */
typedef struct kh_ck_splice {
    unsigned lo, hi;
    const uint8_t *bytes;
    size_t n;
} kh_ck_splice;
/* Save this process's replica of a partitioned simulation as if it were
 * whole, the splices' bytes in place of their components' sections. */
int kh_sim_ckpt_replica(kh_sim *sim, struct kh_ck *ck, const kh_ck_splice *sp, unsigned nsp);
/* The kernel's part of components [lo, hi), whose process steps them: the
 * wake wheel's and heap's wakes, and the links whose sender is one of
 * them (or, the sender a component past mesh_end or none, whose receiver
 * is). Saved by that process, loaded over a replica in their place. */
void kh_sim_part_ckpt(kh_sim *sim, unsigned lo, unsigned hi, unsigned mesh_end, struct kh_ck *ck);
/* What this process added to the counts and diagnostics since the
 * partition (the leader: all of them, the shared components' steps
 * included). Loading adds them, over kh_sim_part_begin's zeros. */
void kh_sim_part_counts(kh_sim *sim, struct kh_ck *ck);
void kh_sim_part_begin(kh_sim *sim);
/* After every part is loaded: the wheel's occupancy from its wakes and
 * timers, the heap's wakes due within the wheel moved into it. */
void kh_sim_part_finish(kh_sim *sim);
/* A timer's arming (armed, its cycle), for a component's state function. */
void kh_ck_timer(struct kh_ck *ck, kh_sim *sim, kh_timer *t);
/* A FIFO's entries and counters; its capacity and latency must be the built ones. */
void kh_ck_fifo(struct kh_ck *ck, kh_fifo *q);
unsigned kh_sim_ncomps(const kh_sim *sim);
kh_comp *kh_sim_comp(const kh_sim *sim, unsigned i);
unsigned kh_sim_nlinks(const kh_sim *sim);
kh_link *kh_sim_link(const kh_sim *sim, unsigned i);

/* Trace sink: NULL disables tracing (one predictable branch per event).
 * The Chrome/Perfetto JSON writer (trace.h) is one implementation. */
struct kh_trace {
    void *ctx;
    /* a flit crossed link l in cycle now */
    void (*link)(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now);
    /* component c spent [begin, end) on `name`; args is a JSON object body or NULL */
    void (*span)(void *ctx, const kh_comp *c, const char *name, kh_cycle begin, kh_cycle end,
                 const char *args);
    /* a point event of component c */
    void (*instant)(void *ctx, const kh_comp *c, const char *name, kh_cycle at, const char *args);
    /* like span, on component c's second track `track` (its datapath beside
     * its instructions: slices on one track must not overlap); may be NULL */
    void (*sub_span)(void *ctx, const kh_comp *c, const char *track, const char *name, kh_cycle begin,
                     kh_cycle end, const char *args);
    /* counter `name` of component c (a FIFO's occupancy, a credit) holds
     * value from cycle at on; may be NULL */
    void (*counter)(void *ctx, const kh_comp *c, const char *name, kh_cycle at, int64_t value);
};
void kh_sim_set_trace(kh_sim *sim, kh_trace *t); /* not owned */
kh_trace *kh_sim_trace(const kh_sim *sim);
/* Convenience wrappers: no-ops when tracing is off. */
void kh_trace_span(kh_comp *c, const char *name, kh_cycle begin, kh_cycle end, const char *args);
void kh_trace_instant(kh_comp *c, const char *name, kh_cycle at, const char *args);
void kh_trace_counter(kh_comp *c, const char *name, kh_cycle at, int64_t value);
void kh_trace_sub_span(kh_comp *c, const char *track, const char *name, kh_cycle begin, kh_cycle end,
                       const char *args);
/* A sink is attached: a component builds a span's name or args only then. */
static inline int kh_comp_tracing(const kh_comp *c) { return ((const kh_sched *)(const void *)c->sim)->trace != 0; }
/* Messages logged at each level so far (tests use it to see a warning). */
unsigned kh_sim_log_count(const kh_sim *sim, kh_log_level lvl);

/* Diagnostics (docs/diagnostics.md): the results of a run carry the
 * signature of a known mistake (the first: an older compiler's FP16
 * operands on a machine without the read-path quantiser). Unlike a log
 * warning, a diagnostic is kept: counted per name, with the first
 * occurrence's message, for whoever drives the simulation to show where
 * its user looks (the CLI's warning, --strict, the stats and the report,
 * kh_dev_diag, Python's warnings, kohaku serve's log). Raising one logs
 * nothing and changes no result or cycle. name: a static identifier such
 * as "older_read_path"; at most KH_DIAG_NAMES distinct names are kept (a
 * further one is counted under the last slot's name "other"). */
#define KH_DIAG_NAMES 8
#define KH_DIAG_MSG 1024 /* the first message is kept up to this many bytes */
void kh_sim_diag(kh_sim *sim, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Distinct diagnostics raised so far, and diagnostic i of them in the
 * order first raised: its name, count and first message (NULL past the
 * end). The strings live as long as the simulation. */
unsigned kh_sim_ndiag(const kh_sim *sim);
const char *kh_sim_diag_at(const kh_sim *sim, unsigned i, uint64_t *count, const char **message);
/* Every diagnostic's occurrences together. */
uint64_t kh_sim_diag_total(const kh_sim *sim);
void kh_sim_diag_free(kh_sim *sim); /* kernel use: kh_sim_destroy */

/* ---- partitions (docs/mpi.md) ----------------------------------------- */

/* One process may step only part of a simulation (its partitions, e.g. the
 * meshes an MPI rank owns) while other processes step the rest of a
 * replica built the same way. The kernel then runs in windows agreed by
 * every process: a window never crosses a cycle in which one process needs
 * what another produced, and at its end the processes exchange what
 * crossed. The sync object implements the agreement; the kernel calls it
 * from kh_sim_run, kh_sim_run_until_idle, kh_sim_next_wake, kh_sim_idle and
 * kh_sim_describe_stuck, which are then collective: every process must
 * make the same calls in the same order. */
typedef struct kh_sync_rec {
    unsigned key;     /* merge order */
    char *text;       /* malloc'ed, owned by whoever holds the record */
} kh_sync_rec;
typedef struct kh_sync_ops {
    /* Deliver what crossed, then combine: *next becomes every process's
     * earliest wake (what was delivered included), *reached the latest
     * cycle + 1 any process executed. */
    void (*agree)(void *ctx, kh_cycle *next, kh_cycle *reached);
    /* Between cycles at `from`, the start of a window: anything that must
     * be shared before cycle `from` runs (a remote read due in it). */
    void (*begin)(void *ctx, kh_cycle from);
    /* The window starting at `from` ends before this cycle (> from). */
    kh_cycle (*window_end)(void *ctx, kh_cycle from);
    /* Every process's records, merged by key (stable); the caller frees
     * each text and the array. Returns the count, -1 on no memory. */
    int (*gather)(void *ctx, const kh_sync_rec *mine, unsigned n, kh_sync_rec **all);
    int leader;       /* this process writes shared outputs (stats) */
    /* May be NULL: a run's windows begin; they end at `end` at the latest. */
    void (*run)(void *ctx, kh_cycle end);
} kh_sync_ops;
/* Attach (ops NULL: detach). Not owned. */
void kh_sim_set_sync(kh_sim *sim, const kh_sync_ops *ops, void *ctx);
/* Some component has advanced work the end of the run will settle (a
 * value read now may not be what a read after the run sees). */
int kh_sim_unsettled(const kh_sim *sim);
/* Set bit id of mask (nwords words) for each component with a wake pending
 * or work to settle; returns 1 if a timer is armed (timers name no
 * component). For a sync's lane promises (docs/mpi.md). */
int kh_sim_pending(const kh_sim *sim, uint64_t *mask, unsigned nwords);
const kh_sync_ops *kh_sim_sync(const kh_sim *sim);
void *kh_sim_sync_ctx(const kh_sim *sim);
/* Step only components [lo, hi) and those marked again later; a wake of any
 * other component is dropped when its cycle runs. Call once per range after
 * building; the first call makes every component unowned. 0 ok, -1 no memory. */
int kh_sim_own(kh_sim *sim, unsigned lo, unsigned hi);
/* Components [lo, hi) that every process steps on its own replica (the
 * host card's engine): owned, and reported by the leader only. */
int kh_sim_share(kh_sim *sim, unsigned lo, unsigned hi);
int kh_sim_owns(const kh_sim *sim, const kh_comp *c);
/* This process speaks for c in merged reports and statistics. */
int kh_sim_reports(const kh_sim *sim, const kh_comp *c);

/* Opaque per-simulation slot for a machine built on top (mesh, node, ...). */
void kh_sim_set_user(kh_sim *sim, void *user);
void *kh_sim_user(const kh_sim *sim);

/* Offer f in cycle now. Returns 1 if transferred. Returns 0 if the receiver
 * is busy: the sender keeps the flit and is woken (at a later cycle) once the
 * receiver calls kh_link_space(). At most one transfer per link per cycle.
 * Inline (it runs once per flit-hop); defined here because it needs kh_sched. */
void kh_link_trace(const kh_link *l, const kh_flit *f, kh_cycle now); /* kernel use */
/* The two outcomes of an offer, split out for a sender that calls a receiver
 * it knows directly instead of through l->accept (a router into a router):
 * it must check l->last_xfer != now first and then call exactly one. */
static inline void kh_link_refused(kh_link *l, kh_cycle now)
{
    if (l->blocked_since == KH_NEVER) l->blocked_since = now;
    /* the receiver freed space earlier in this cycle (its kh_link_space came
     * before this offer): retry next cycle, as when the offer comes first */
    if (l->space_from == now + 1 && l->src) kh_comp_wake(l->src, now + 1);
}
static inline void kh_link_taken(kh_link *l, const kh_flit *f, kh_cycle now)
{
    if (l->blocked_since != KH_NEVER) {
        l->stall_cycles += now - l->blocked_since;
        l->blocked_since = KH_NEVER;
    }
    l->flits++;
    l->last_xfer = now;
    if (!l->dst) l->dropped++;
    if (l->sched->trace) kh_link_trace(l, f, now);
}
static inline void kh_link_space(kh_link *l, kh_cycle now)
{
    l->space_from = now + 1; /* for an offer refused later in this cycle (kh_link_refused) */
    if (l->blocked_since != KH_NEVER && l->src) kh_comp_wake(l->src, now + 1);
}
static inline int kh_link_send(kh_link *l, const kh_flit *f, kh_cycle now)
{
    if (l->last_xfer == now) return 0; /* one transfer per cycle: the sender must hold */
    if (l->dst && !l->accept(l->dst, l->dst_port, f, now)) {
        kh_link_refused(l, now);
        return 0;
    }
    kh_link_taken(l, f, now);
    return 1;
}

#endif
