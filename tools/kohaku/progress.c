/* Progress lines on a terminal (progress.h). The kernel calls back every
 * `every` simulated cycles; only then is the wall clock read, and `every`
 * adapts so that happens about twenty times a second. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"

#define REDRAW_S 0.25 /* at most four lines a second */
#define LOOK_S 0.05   /* how often the clock is read */

static double wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* now: cycles run so far over every simulation followed */
static void draw(kh_progress *p, kh_cycle now, double t, int final)
{
    double dt = t - p->t0;
    double rate = dt > 0 ? (double)now / dt : 0;
    fprintf(stderr, "\r%s: %s %llu, %.2f M cycles/s, %s%s%s", p->who, final ? "cycles" : "cycle",
            (unsigned long long)now, rate / 1e6,
            final ? "done in " : "", final ? "" : p->phase, final ? "" : "\033[K");
    if (final) fprintf(stderr, "%.2f s\033[K\n", dt);
    fflush(stderr);
    p->drawn = !final;
    p->last = t;
}

static kh_cycle tick(void *ctx, kh_cycle now)
{
    kh_progress *p = ctx;
    double t = wall(), since = t - p->look;
    /* aim the next look LOOK_S ahead at the rate since the last one */
    if (now > p->last_cycle && since > 0) {
        double e = (double)(now - p->last_cycle) / since * LOOK_S;
        p->every = e < 1024 ? 1024 : e > 1e9 ? 1000000000u : (kh_cycle)e;
    }
    p->last_cycle = now;
    p->look = t;
    if (t - p->last >= REDRAW_S) draw(p, p->done + now - p->c0, t, 0);
    return p->every;
}

void kh_progress_start(kh_progress *p, kh_sim *sim, const char *who, const char *phase)
{
    memset(p, 0, sizeof *p);
    const char *env = getenv("KOHAKU_PROGRESS");
    p->on = env && *env ? strcmp(env, "0") != 0 : isatty(2);
    p->who = who;
    p->phase = phase;
    if (!p->on) return;
    p->t0 = p->last = p->look = wall();
    p->every = 1024;
    kh_progress_follow(p, sim, phase);
}

void kh_progress_follow(kh_progress *p, kh_sim *sim, const char *phase)
{
    if (!p->on) return;
    if (p->sim) {
        p->done += kh_sim_now(p->sim) - p->c0;
        kh_sim_set_progress(p->sim, NULL, NULL);
    }
    p->sim = sim;
    if (!sim) return;
    if (phase && phase != p->phase) {
        snprintf(p->label, sizeof p->label, "%s", phase);
        p->phase = p->label;
    }
    p->c0 = p->last_cycle = kh_sim_now(sim);
    kh_sim_set_progress(sim, tick, p);
}

void kh_progress_phase(kh_progress *p, const char *phase) { p->phase = phase; }

void kh_progress_end(kh_progress *p)
{
    if (!p->on) return;
    kh_progress_follow(p, NULL, NULL);
    draw(p, p->done, wall(), 1);
    p->on = 0;
}
