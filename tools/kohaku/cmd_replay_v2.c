/* kohaku replay vector2 PROG MEM [--memwait N] [--out FILE] [--param NAME=V ...]
[--engine cycle|fast]
 * (../shared/cli.md): the V2 core alone, on upstream's core-alone harness. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/file.h"
#include "kohaku/hex.h"
#include "kohaku/sim.h"
#include "kohaku/vector2.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kohaku replay vector2 PROG MEM [--memwait N] [--out FILE] [--param NAME=V ...]\n"
            "                             [--engine cycle|fast]\n\n"
            "Run the V2 vector core alone as upstream's core-alone harness does (vec_replay_tb\n"
            "built with VEC_CORE_V2; docs/vector2.md). PROG: one 256-bit CU_INST payload a line\n"
            "(64 hex digits), staged in order. MEM: 4096 lines, line i = memory bytes\n"
            "32i..32i+31 as one little-endian integer in hex. The memory answers one word every\n"
            "N + 1 cycles (--memwait, default 0). --param sets V2's parameters by upstream's\n"
            "names (DUALQ, IMEM_DEPTH, QD, HAS_EXPD, TAU, L1_PRIM=block|ultra) or kohaku's (v2_*).\n"
            "Prints each engine's busy and stall counters, then\n"
            "  payloads P completions C faults F fault_arg A elapsed E busy B beats T lanes L insns I\n"
            "--out FILE writes the final memory in MEM's format. --engine cycle steps every engine\n"
            "of the core at every edge that can move something (the reference); fast (default, or\n"
            "KOHAKU_ENGINE) skips an engine at rest. Both give the same results.\n\n"
            "Exit status: 0 ran to the halt without a fault, 1 a fault or refused input, 2 usage.\n");
}

/* Upstream's parameter names, and the row each sets. */
static const char *param_name(const char *n)
{
    static const char *const map[][2] = {{"DUALQ", "v2_dualq"}, {"IMEM_DEPTH", "v2_imem_depth"},
                                         {"QD", "v2_qd"},       {"HAS_EXPD", "v2_has_expd"},
                                         {"TAU", "v2_tau"},     {"L1_PRIM", "v2_l1_prim"}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i][0], n)) return map[i][1];
    return n;
}

/* Hex lines of 64 digits (blank lines skipped) into words of 4; *n lines. */
static uint64_t *read_lines(const char *path, size_t max, size_t *n, char *err, size_t errlen)
{
    char *text = kh_file_read_text(path, err, errlen);
    if (!text) return NULL;
    uint64_t *w = calloc(max ? max * 4 : 4, sizeof *w);
    size_t k = 0, line = 0;
    char *save = NULL;
    for (char *s = strtok_r(text, "\n", &save); s && w; s = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t len = strlen(s);
        while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t')) s[--len] = 0;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s) continue;
        char e[160];
        if (k >= max) {
            snprintf(err, errlen, "%s: more than %zu lines", path, max);
            free(w);
            w = NULL;
            break;
        }
        if (kh_hex_parse(s, &w[k * 4], 256, 1, e, sizeof e)) {
            snprintf(err, errlen, "%s line %zu: %s", path, line, e);
            free(w);
            w = NULL;
            break;
        }
        k++;
    }
    free(text);
    if (!w && !err[0]) snprintf(err, errlen, "out of memory");
    *n = k;
    return w;
}

int kh_cmd_replay_vector2(int argc, char **argv)
{
    const char *prog_path = NULL, *mem_path = NULL, *out_path = NULL;
    uint64_t memwait = 0;
    kh_sim_engine_kind engine = KH_ENGINE_FAST;
    const char *env = getenv("KOHAKU_ENGINE"); /* the test suites' switch, as kh_sim_new reads it */
    if (env && kh_sim_engine_parse(env, &engine)) engine = KH_ENGINE_FAST;
    kh_params p;
    kh_params_default(&p);
    char err[512] = "";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--memwait") || !strcmp(a, "--out") || !strcmp(a, "--param") ||
                   !strcmp(a, "--engine")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku replay vector2: %s needs a value\n", a);
                return 2;
            }
            const char *v = argv[++i];
            if (!strcmp(a, "--memwait")) {
                if (kh_parse_u64(v, &memwait) || memwait > 1000000) {
                    fprintf(stderr, "kohaku replay vector2: --memwait %s: not a count of 0..1000000 cycles\n", v);
                    return 2;
                }
            } else if (!strcmp(a, "--out")) {
                out_path = v;
            } else if (!strcmp(a, "--engine")) {
                if (kh_sim_engine_parse(v, &engine)) {
                    fprintf(stderr, "kohaku replay vector2: --engine %s: cycle or fast\n", v);
                    return 2;
                }
            } else {
                const char *eq = strchr(v, '=');
                if (!eq || eq == v) {
                    fprintf(stderr, "kohaku replay vector2: --param %s: expected NAME=VALUE\n", v);
                    return 2;
                }
                char name[64];
                snprintf(name, sizeof name, "%.*s", (int)(eq - v), v);
                if (kh_params_set(&p, param_name(name), eq + 1, err, sizeof err)) {
                    fprintf(stderr, "kohaku replay vector2: %s\n", err);
                    return 1;
                }
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "kohaku replay vector2: unknown option %s\n", a);
            usage(stderr);
            return 2;
        } else if (!prog_path) {
            prog_path = a;
        } else if (!mem_path) {
            mem_path = a;
        } else {
            fprintf(stderr, "kohaku replay vector2: unexpected operand %s\n", a);
            return 2;
        }
    }
    if (!prog_path || !mem_path) {
        usage(stderr);
        return 2;
    }
    size_t n, nm;
    uint64_t *prog = read_lines(prog_path, 4096, &n, err, sizeof err);
    if (!prog) {
        fprintf(stderr, "kohaku replay vector2: %s\n", err);
        return 1;
    }
    uint64_t *mem = read_lines(mem_path, KH_V2_MEM_WORDS, &nm, err, sizeof err);
    if (!mem) {
        fprintf(stderr, "kohaku replay vector2: %s\n", err);
        free(prog);
        return 1;
    }
    if (nm != KH_V2_MEM_WORDS) {
        fprintf(stderr, "kohaku replay vector2: %s: %zu lines, the harness's memory is %d\n", mem_path, nm,
                KH_V2_MEM_WORDS);
        free(prog);
        free(mem);
        return 1;
    }
    kh_v2_replay_result r;
    int rc = kh_v2_replay_ref(prog, n, mem, (unsigned)memwait, &p, engine == KH_ENGINE_CYCLE, &r, err, sizeof err);
    if (rc) {
        fprintf(stderr, "kohaku replay vector2: %s\n", err);
    } else {
        kh_v2_replay_print(stdout, &r);
        if (r.timeout) fprintf(stderr, "kohaku replay vector2: %u of %u completions arrived\n", r.completions, r.payloads);
        if (out_path) {
            FILE *f = fopen(out_path, "w");
            if (!f) {
                fprintf(stderr, "kohaku replay vector2: cannot write %s\n", out_path);
                rc = -1;
            } else {
                char hex[65];
                for (size_t i = 0; i < KH_V2_MEM_WORDS; i++) {
                    kh_hex_format(&mem[i * 4], 256, hex);
                    fprintf(f, "%s\n", hex);
                }
                if (fclose(f)) rc = -1;
            }
        }
    }
    free(prog);
    free(mem);
    if (rc) return 1;
    return r.timeout || r.faults ? 1 : 0;
}
