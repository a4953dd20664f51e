/* Progress on long work (../shared/cli.md): a line on standard error with
 * the simulated cycle, simulated cycles per second and the phase, redrawn
 * at most four times a second, only when standard error is a terminal
 * (nothing at all on a pipe or a file); a last line when the work ends. */
#ifndef KOHAKU_PROGRESS_H
#define KOHAKU_PROGRESS_H

#include "kohaku/sim.h"

typedef struct kh_progress {
    const char *who;      /* "kohaku gemm" */
    const char *phase;    /* what runs now: "quantise", "gemm", ... */
    kh_sim *sim;
    int on;               /* standard error is a terminal */
    int drawn;            /* a line is on the screen */
    double t0, last, look; /* wall clock at start, at the last line, at the last callback, s */
    kh_cycle c0, last_cycle;
    kh_cycle done;        /* cycles of simulations already left (kh_progress_follow) */
    char label[64];
    kh_cycle every;       /* cycles between looks at the clock */
} kh_progress;

/* Start reporting on sim (KOHAKU_PROGRESS=0 in the environment turns it
 * off, =1 on whatever stderr is: for tests). */
void kh_progress_start(kh_progress *p, kh_sim *sim, const char *who, const char *phase);
void kh_progress_phase(kh_progress *p, const char *phase);
/* Work that runs on one simulation after another (a replay's cases): start
 * with sim NULL, then follow sim (phase its label) until it goes (sim NULL
 * again); the cycles of every simulation add up. */
void kh_progress_follow(kh_progress *p, kh_sim *sim, const char *phase);
/* The last line (when on), and the simulation's hook off. */
void kh_progress_end(kh_progress *p);

#endif
