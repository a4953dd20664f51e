/* A trace sink that feeds a list of others (trace.h): the live checker, the
 * JSON writer and whatever else watches one simulation at once. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/trace.h"

typedef struct fanout {
    kh_trace t; /* first member: the sink itself */
    unsigned n;
    kh_trace *sink[]; /* in the order given */
} fanout;

static void fo_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    fanout *o = ctx;
    for (unsigned i = 0; i < o->n; i++)
        if (o->sink[i]->link) o->sink[i]->link(o->sink[i]->ctx, l, f, now);
}

static void fo_span(void *ctx, const kh_comp *c, const char *name, kh_cycle begin, kh_cycle end, const char *args)
{
    fanout *o = ctx;
    for (unsigned i = 0; i < o->n; i++)
        if (o->sink[i]->span) o->sink[i]->span(o->sink[i]->ctx, c, name, begin, end, args);
}

static void fo_instant(void *ctx, const kh_comp *c, const char *name, kh_cycle at, const char *args)
{
    fanout *o = ctx;
    for (unsigned i = 0; i < o->n; i++)
        if (o->sink[i]->instant) o->sink[i]->instant(o->sink[i]->ctx, c, name, at, args);
}

static void fo_sub_span(void *ctx, const kh_comp *c, const char *track, const char *name, kh_cycle begin,
                        kh_cycle end, const char *args)
{
    fanout *o = ctx;
    for (unsigned i = 0; i < o->n; i++)
        if (o->sink[i]->sub_span) o->sink[i]->sub_span(o->sink[i]->ctx, c, track, name, begin, end, args);
}

static void fo_counter(void *ctx, const kh_comp *c, const char *name, kh_cycle at, int64_t value)
{
    fanout *o = ctx;
    for (unsigned i = 0; i < o->n; i++)
        if (o->sink[i]->counter) o->sink[i]->counter(o->sink[i]->ctx, c, name, at, value);
}

kh_trace *kh_trace_fanout_list(kh_trace *const *sinks, unsigned n)
{
    fanout *o = calloc(1, sizeof *o + n * sizeof o->sink[0]);
    if (!o) return NULL;
    o->n = n;
    if (n) memcpy(o->sink, sinks, n * sizeof o->sink[0]);
    o->t.ctx = o;
    o->t.link = fo_link;
    o->t.span = fo_span;
    o->t.instant = fo_instant;
    o->t.counter = fo_counter;
    o->t.sub_span = fo_sub_span;
    return &o->t;
}

kh_trace *kh_trace_fanout_new(kh_trace *a, kh_trace *b)
{
    kh_trace *two[2] = {a, b};
    return kh_trace_fanout_list(two, 2);
}

void kh_trace_fanout_free(kh_trace *t) { free(t); }
