/* The V2 vector core alone (issue 34): upstream's eleven recorded kernels
 * (data/vectors/vector2/) on the core-alone harness, memwait 0 and 1, again
 * and again for at least a second of CPU time; prints simulated cycles per
 * CPU second (target: 100x upstream's RTL under Verilator, 0.152 M cycles
 * per CPU second net of process start, measured beside it on the lead's
 * machine; docs/vector2.md §9). A second argument runs that
 * many rounds instead (a fixed amount of work, for instruction counts under
 * callgrind). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kohaku/file.h"
#include "kohaku/hex.h"
#include "kohaku/vector2.h"

static const char *const cases[] = {"ew_silu_8192",   "softmax_128x128", "layernorm_128x128", "attn_b8",
                                    "attn_b10",       "attn_om_rs0_b8",  "attn_om_rs0_b24",   "attn_om_rs0_b6_drift4",
                                    "attn_om_rs1_b8", "attn_om_rs1_b24", "attn_om_rs1_b6_drift4"};
#define NC (sizeof cases / sizeof cases[0])

static uint64_t *read_hex(const char *path, size_t *n)
{
    char err[256];
    char *text = kh_file_read_text(path, err, sizeof err);
    if (!text) return NULL;
    uint64_t *w = calloc(4096 * 4, sizeof *w);
    size_t k = 0;
    char *save = NULL;
    for (char *s = strtok_r(text, "\n", &save); s && w && k < 4096; s = strtok_r(NULL, "\n", &save))
        if (s[0] && !kh_hex_parse(s, &w[4 * k], 256, 1, err, sizeof err)) k++;
    free(text);
    *n = k;
    return w;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *data = argc > 1 ? argv[1] : "data";
    unsigned fixed = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 0;
    uint64_t *prog[NC], *mem[NC];
    size_t np[NC], nm;
    char path[512], err[256];
    for (size_t i = 0; i < NC; i++) {
        snprintf(path, sizeof path, "%s/vectors/vector2/%s/prog.hex", data, cases[i]);
        prog[i] = read_hex(path, &np[i]);
        snprintf(path, sizeof path, "%s/vectors/vector2/%s/mem.hex", data, cases[i]);
        mem[i] = read_hex(path, &nm);
        if (!prog[i] || !mem[i] || nm != KH_V2_MEM_WORDS) {
            fprintf(stderr, "b_vector2: cannot read %s\n", path);
            return 1;
        }
    }
    kh_params p;
    kh_params_default(&p);
    uint64_t *work = malloc(KH_V2_MEM_WORDS * 4 * sizeof *work);
    uint64_t cycles = 0;
    double t0 = cpu_seconds(), t = 0;
    unsigned rounds = 0;
    do {
        for (size_t i = 0; i < NC; i++)
            for (unsigned mw = 0; mw < 2; mw++) {
                kh_v2_replay_result r;
                memcpy(work, mem[i], KH_V2_MEM_WORDS * 4 * sizeof *work);
                if (kh_v2_replay(prog[i], np[i], work, mw, &p, &r, err, sizeof err) || r.timeout) {
                    fprintf(stderr, "b_vector2: %s: %s\n", cases[i], r.timeout ? "timed out" : err);
                    return 1;
                }
                cycles += r.cycles;
            }
        rounds++;
        t = cpu_seconds() - t0;
    } while (fixed ? rounds < fixed : t < 1.0);
    printf("vector2 core alone: %.2f M simulated cycles per CPU second (%u rounds of the 11 recorded kernels at "
           "memwait 0 and 1, %.2f s; 100x Verilator's 0.152 M measured beside it is 15.2 M)\n",
           (double)cycles / t / 1e6, rounds, t);
    for (size_t i = 0; i < NC; i++) {
        free(prog[i]);
        free(mem[i]);
    }
    free(work);
    return 0;
}
