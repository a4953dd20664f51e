/* Idle benchmark: a 4x4 mesh whose only activity is one component waking
 * once after 10^9 cycles. The kernel must jump over the idle cycles: the
 * target is < 10 ms for 10^9 idle cycles (issue 3). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "kohaku/machine.h"
#include "kohaku/mesh.h"

#define IDLE_CYCLES 1000000000ull

static const char map_4x4[] = "xxx vec vec vec vec xxx\n"
                              "mag mat nul mat nul vec\n"
                              "mag mat nul mat nul vec\n"
                              "mag mat nul mat nul vec\n"
                              "mag mat nul mat nul vec\n"
                              "xxx vec vec vec vec xxx\n";

typedef struct sleeper {
    kh_comp c;
    unsigned steps;
    kh_cycle at;
} sleeper;

static void sleeper_step(kh_comp *c, kh_cycle now)
{
    sleeper *s = (sleeper *)c;
    s->steps++;
    s->at = now;
}

static void sleeper_destroy(kh_comp *c) { free(c); }

static const kh_comp_ops sleeper_ops = {.kind = "sleeper", .step = sleeper_step, .destroy = sleeper_destroy};

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    char err[256];
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *map = kh_map_parse(map_4x4, &units, err, sizeof err);
    kh_sim *sim = kh_sim_new(NULL);
    kh_mesh *mesh = map && sim ? kh_mesh_new(sim, map, err, sizeof err) : NULL;
    sleeper *s = calloc(1, sizeof *s);
    if (!mesh || !s) {
        fprintf(stderr, "idle: %s\n", mesh ? "out of memory" : err);
        return 1;
    }
    kh_sim_add(sim, &s->c, &sleeper_ops, "sleeper");
    kh_comp_wake(&s->c, IDLE_CYCLES);
    double t0 = seconds();
    uint64_t steps = kh_sim_run(sim, IDLE_CYCLES + 1);
    double ms = (seconds() - t0) * 1e3;
    int ok = s->steps == 1 && s->at == IDLE_CYCLES && steps == 1;
    printf("idle: %llu cycles (4x4 mesh, one wake at the end) in %.3f ms, %llu step(s): %s\n",
           IDLE_CYCLES + 1, ms, (unsigned long long)steps,
           !ok ? "WRONG (expected exactly one step at 10^9)" : ms < 10 ? "under the 10 ms target"
                                                              : "OVER the 10 ms target");
    kh_mesh_free(mesh);
    kh_sim_destroy(sim);
    kh_map_free(map);
    return ok ? 0 : 1;
}
