/* pairtime: times two commands against each other, A B A B ..., as whole
 * processes (the kernel's CPU accounting of each finished child, user +
 * system, and its wall time), so a comparison holds while a shared machine's
 * speed drifts: the ratio is taken pair by pair and its median reported.
 *
 *   pairtime RUNS OUT_A OUT_B -- COMMAND_A ... -- COMMAND_B ...
 *
 * One warm-up run of each comes first; its standard output goes to OUT_A /
 * OUT_B (for the caller to compare), standard error to OUT_x.err. Timed runs
 * write to /dev/null. Prints one line:
 *   cpu_A cpu_B cpu_A/cpu_B wall_A wall_B wall_A/wall_B exit_A exit_B q1 q3
 * (seconds, medians; exit_x the warm-up's exit status; q1 and q3 the lower
 * and upper quartiles of the pairwise CPU ratios, the spread a noisy
 * machine puts around the median). Used by bench/base.sh
 * (`make bench BASE=COMMIT`). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_RUNS 100

typedef struct timing {
    double cpu, wall;
    int status; /* exit code, or 128 + signal */
} timing;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int redirect(int fd, const char *path)
{
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (f < 0) return -1;
    int r = dup2(f, fd);
    close(f);
    return r < 0 ? -1 : 0;
}

/* CPU seconds (user + system) of every child reaped so far. */
static double children_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

/* Runs argv once with stdout to out and stderr to err; -1 if it could not be
 * started. */
static int run_once(char **argv, const char *out, const char *err, timing *t)
{
    double t0 = now_seconds(), c0 = children_cpu();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (redirect(1, out) || redirect(2, err)) _exit(126);
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0) return -1;
    t->wall = now_seconds() - t0;
    t->cpu = children_cpu() - c0; /* the only child reaped in between */
    t->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return t->status == 127 || t->status == 126 ? -1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p-quantile of v[0..n) (sorts v), linear between neighbours: the
 * median at p = 0.5, the quartiles at 0.25 and 0.75. */
static double quantile(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double pos = p * (n - 1);
    int lo = (int)pos;
    return lo + 1 < n ? v[lo] + (pos - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

static double median(double *v, int n) { return quantile(v, n, 0.5); }

int main(int argc, char **argv)
{
    if (argc < 7 || strcmp(argv[4], "--")) {
        fprintf(stderr, "usage: pairtime RUNS OUT_A OUT_B -- COMMAND_A ... -- COMMAND_B ...\n");
        return 2;
    }
    int runs = atoi(argv[1]);
    if (runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "pairtime: RUNS=%s is not 1..%d\n", argv[1], MAX_RUNS);
        return 2;
    }
    char **cmd[2] = {argv + 5, NULL};
    for (int i = 5; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            argv[i] = NULL;
            cmd[1] = argv + i + 1;
            break;
        }
    if (!cmd[1] || !cmd[0][0] || !cmd[1][0]) {
        fprintf(stderr, "pairtime: two commands separated by -- are needed\n");
        return 2;
    }
    const char *out[2] = {argv[2], argv[3]};
    char err[2][4096];
    timing warm[2], t[2][MAX_RUNS];
    for (int k = 0; k < 2; k++) {
        snprintf(err[k], sizeof err[k], "%s.err", out[k]);
        if (run_once(cmd[k], out[k], err[k], &warm[k])) {
            fprintf(stderr, "pairtime: cannot run %s\n", cmd[k][0]);
            return 1;
        }
    }
    for (int r = 0; r < runs; r++)
        for (int k = 0; k < 2; k++)
            if (run_once(cmd[k], "/dev/null", "/dev/null", &t[k][r])) {
                fprintf(stderr, "pairtime: cannot run %s\n", cmd[k][0]);
                return 1;
            }
    double cpu[2][MAX_RUNS], wall[2][MAX_RUNS], rc[MAX_RUNS], rw[MAX_RUNS];
    for (int r = 0; r < runs; r++) {
        for (int k = 0; k < 2; k++) {
            cpu[k][r] = t[k][r].cpu;
            wall[k][r] = t[k][r].wall;
        }
        rc[r] = t[1][r].cpu > 0 ? t[0][r].cpu / t[1][r].cpu : 0;
        rw[r] = t[1][r].wall > 0 ? t[0][r].wall / t[1][r].wall : 0;
    }
    double ca = median(cpu[0], runs), cb = median(cpu[1], runs), wa = median(wall[0], runs),
           wb = median(wall[1], runs);
    double rmid = median(rc, runs), q1 = quantile(rc, runs, 0.25), q3 = quantile(rc, runs, 0.75);
    printf("%.3f %.3f %.2f %.3f %.3f %.2f %d %d %.2f %.2f\n", ca, cb, rmid, wa, wb, median(rw, runs),
           warm[0].status, warm[1].status, q1, q3);
    return 0;
}
