/* The event engine against the per-cycle reference (docs/design.md §2,
 * "The event engine"): a run may stop at any cycle, in the middle of a
 * burst or a flit's flight across the mesh, and what anyone can read
 * between runs (every counter of the statistics, the hang diagnosis, the
 * clock and whether anything is pending) is the same on both engines.
 * Two copies of a machine, one per engine, are driven through the same
 * session and then stepped a few cycles at a time, compared after every
 * step. (tests/cli/engines.sh compares whole runs' outputs.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/machine.h"
#include "kohaku/session.h"
#include "kohaku/trace.h"
#include "support/test.h"

static char *stats_of(kh_machine *m)
{
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) return NULL;
    kh_stats_fprint_json(kh_machine_sim(m), f);
    fclose(f);
    return text;
}

/* Machines m[0] (cycle) and m[1] (fast) agree on what can be read now. */
static int agree(kh_machine *m[2], const char *where, kh_cycle step)
{
    kh_sim *s0 = kh_machine_sim(m[0]), *s1 = kh_machine_sim(m[1]);
    char *a = stats_of(m[0]), *b = stats_of(m[1]);
    static char d0[16384], d1[16384];
    kh_machine_diagnose(m[0], d0, sizeof d0);
    kh_machine_diagnose(m[1], d1, sizeof d1);
    int same = a && b && !strcmp(a, b) && !strcmp(d0, d1) && kh_sim_now(s0) == kh_sim_now(s1) &&
               kh_sim_idle(s0) == kh_sim_idle(s1) && kh_sim_next_wake(s0) == kh_sim_next_wake(s1);
    if (!same) {
        kh_test_fail(__FILE__, __LINE__, "%s, step %llu (cycle %llu): the engines differ", where,
                     (unsigned long long)step, (unsigned long long)kh_sim_now(s0));
        if (a && b)
            for (size_t i = 0; a[i] || b[i]; i++)
                if (a[i] != b[i]) {
                    fprintf(stderr, "  stats at byte %zu: cycle ...%.80s\n  fast ...%.80s\n", i, a + (i > 40 ? i - 40 : 0),
                            b + (i > 40 ? i - 40 : 0));
                    break;
                }
        if (strcmp(d0, d1)) fprintf(stderr, "  diagnosis: cycle %s\n  fast %s\n", d0, d1);
    }
    free(a);
    free(b);
    return same;
}

/* Map MAP, the session text, then steps of `by` cycles until both idle. */
static void stop_anywhere(const char *map, const char *text, kh_cycle by, kh_cycle limit)
{
    char path[512], err[1024];
    snprintf(path, sizeof path, "%s/maps/%s", kh_test_data_dir(), map);
    kh_machine *m[2];
    for (int e = 0; e < 2; e++) {
        kh_params p;
        kh_params_default(&p);
        m[e] = kh_machine_load(path, &p, err, sizeof err);
        CHECK(m[e] != NULL);
        if (!m[e]) return;
        kh_sim_set_engine(kh_machine_sim(m[e]), e ? KH_ENGINE_FAST : KH_ENGINE_CYCLE);
        kh_session *s = kh_session_parse(text, "engines", ".", err, sizeof err);
        CHECK(s != NULL);
        FILE *out = fopen("/dev/null", "w");
        CHECK(s && kh_session_run(s, m[e], out, err, sizeof err) == 0);
        if (out) fclose(out);
        kh_session_free(s);
    }
    agree(m, map, 0);
    for (kh_cycle k = 1; k * by <= limit; k++) {
        kh_sim_run(kh_machine_sim(m[0]), by);
        kh_sim_run(kh_machine_sim(m[1]), by);
        if (!agree(m, map, k)) break;
        if (kh_sim_idle(kh_machine_sim(m[0]))) break;
    }
    for (int e = 0; e < 2; e++) kh_machine_free(m[e]);
}

/* The saxpy mesh: x and y uploaded, four SAXPY instructions kicked on each
 * unit; then 3 cycles at a time through every read burst, compute and
 * write burst to the end. */
static void the_saxpy_mesh_stops_anywhere(void)
{
    char err[256];
    size_t n;
    char *head = kh_file_read("bench/base/saxpy_head.session", &n, err, sizeof err);
    if (!head) {
        CHECK(!"bench/base/saxpy_head.session is readable");
        return;
    }
    const char *kick = "write PROG_BASE 0\nwrite PROG_LEN 4\nwrite PROG_DST XY(1,0)\nwrite PROG_CRED 4\n"
                       "write PROG_KICK 1\nrun 30\nwrite PROG_BASE 8\nwrite PROG_LEN 4\nwrite PROG_DST XY(1,2)\n"
                       "write PROG_CRED 4\nwrite PROG_KICK 1\n";
    char *text = malloc(n + strlen(kick) + 1);
    if (text) {
        memcpy(text, head, n);
        strcpy(text + n, kick);
        stop_anywhere("saxpy_map.txt", text, 3, 20000);
    }
    free(text);
    free(head);
}

int main(void)
{
    KH_RUN(the_saxpy_mesh_stops_anywhere);
    return kh_test_end("t_engines");
}
