/* A trace sink that feeds two others (trace.h): the live checker and the
 * JSON writer attached to one simulation at once. */
#include <stdlib.h>

#include "kohaku/trace.h"

typedef struct fanout {
    kh_trace t; /* first member: the sink itself */
    kh_trace *a, *b;
} fanout;

static void fo_link(void *ctx, const kh_link *l, const kh_flit *f, kh_cycle now)
{
    fanout *o = ctx;
    if (o->a->link) o->a->link(o->a->ctx, l, f, now);
    if (o->b->link) o->b->link(o->b->ctx, l, f, now);
}

static void fo_span(void *ctx, const kh_comp *c, const char *name, kh_cycle begin, kh_cycle end, const char *args)
{
    fanout *o = ctx;
    if (o->a->span) o->a->span(o->a->ctx, c, name, begin, end, args);
    if (o->b->span) o->b->span(o->b->ctx, c, name, begin, end, args);
}

static void fo_instant(void *ctx, const kh_comp *c, const char *name, kh_cycle at, const char *args)
{
    fanout *o = ctx;
    if (o->a->instant) o->a->instant(o->a->ctx, c, name, at, args);
    if (o->b->instant) o->b->instant(o->b->ctx, c, name, at, args);
}

static void fo_sub_span(void *ctx, const kh_comp *c, const char *track, const char *name, kh_cycle begin,
                        kh_cycle end, const char *args)
{
    fanout *o = ctx;
    if (o->a->sub_span) o->a->sub_span(o->a->ctx, c, track, name, begin, end, args);
    if (o->b->sub_span) o->b->sub_span(o->b->ctx, c, track, name, begin, end, args);
}

static void fo_counter(void *ctx, const kh_comp *c, const char *name, kh_cycle at, int64_t value)
{
    fanout *o = ctx;
    if (o->a->counter) o->a->counter(o->a->ctx, c, name, at, value);
    if (o->b->counter) o->b->counter(o->b->ctx, c, name, at, value);
}

kh_trace *kh_trace_fanout_new(kh_trace *a, kh_trace *b)
{
    fanout *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    o->a = a;
    o->b = b;
    o->t.ctx = o;
    o->t.link = fo_link;
    o->t.span = fo_span;
    o->t.instant = fo_instant;
    o->t.counter = fo_counter;
    o->t.sub_span = fo_sub_span;
    return &o->t;
}

void kh_trace_fanout_free(kh_trace *t) { free(t); }
