/* kohaku cpu run MACHINE PROGRAM [--arg N]: load an RV32 program onto the
 * node's control processor the way a host does, kick it, wait for its
 * completion (../shared/cli.md, docs/cpu.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/echo.h"
#include "kohaku/hex.h"
#include "kohaku/machine.h"
#include "kohaku/rv32.h"
#include "simopts.h"
#include "simout.h"

#define RUN_LIMIT 100000000 /* cycles to wait for the completion */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kohaku cpu run MACHINE PROGRAM [--arg N] [--profile P] [--param name=value]... [--trace F.json]\n"
            "                      [--stats F.json] [--check] [--engine E]\n"
            "       kohaku cpu run --isa rv64 [--node] ELF   (the RV64 system core: kohaku cpu run --isa rv64 --help)\n"
            "  Loads PROGRAM (an ELF32 RISC-V executable, or a flat binary of code for instruction memory at 0)\n"
            "  onto the control processor at (0,0) the way a host does: CU_DATA bursts staged and dispatched by\n"
            "  the orchestrator (code to instruction memory, segments at 0x1000_0000 to the scratchpad), then a\n"
            "  kick CU_INST {op 1, pc = entry, arg = N}. Waits for the completion and prints\n"
            "      a0 = 0xXXXXXXXX cause N cycles N\n"
            "  (cause 1 ECALL, 2 EBREAK, 3 fault; cycles as the core counts them, from the start to the halt).\n"
            "  MACHINE: a map or machine file, or 'default'. docs/cpu.md: start file, linker script, address map.\n"
            "  --arg N          the kick's argument (CTL_ARG; the start file passes it to main), default 0\n"
            KH_ENGINE_HELP
            "Exit status: 0 halted by ECALL; 1 any other halt, no completion (with the diagnosis), or input\n"
            "refused; 2 usage error.\n");
}

int kh_cmd_cpu(int argc, char **argv)
{
    const char *operand[2] = {NULL, NULL}; /* MACHINE PROGRAM */
    uint64_t arg = 0;
    kh_simopts so = {.who = "kohaku cpu run", .takes = KH_SIMOPT_PARAMS_IN_ORDER};
    kh_params p;
    char err[16384];
    /* --isa rv64 selects the RV64 system core (cmd_cpu64.c); rv32 is this command */
    for (int i = 2; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--isa")) continue;
        if (!strcmp(argv[i + 1], "rv64") && !strcmp(argv[1], "run")) return kh_cmd_cpu_rv64(argc, argv);
        if (strcmp(argv[i + 1], "rv32")) {
            kh_echo_buf b;
            fprintf(stderr, "kohaku cpu run: --isa '%s' is not rv32 or rv64\n", kh_echo(argv[i + 1], &b));
            return 2;
        }
        memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 2) * sizeof *argv);
        argc -= 2;
        i--;
    }
    if (argc < 2 || strcmp(argv[1], "run")) {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            usage(stdout);
            return 0;
        }
        usage(stderr);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        int t = kh_simopts_take(&so, argc, argv, &i);
        if (t < 0) return 2;
        if (t) continue;
        if (!strcmp(argv[i], "--arg")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku cpu run: --arg needs a value (a 32-bit number)\n");
                return 2;
            }
            /* a refused value, not a usage error (docs/exit-status.md) */
            if (kh_parse_u64(argv[++i], &arg) || arg > 0xFFFFFFFFu) {
                kh_echo_buf b;
                fprintf(stderr, "kohaku cpu run: --arg '%s' is not a 32-bit decimal or 0x number\n",
                        kh_echo(argv[i], &b));
                return 1;
            }
            continue;
        }
        int rc;
        if (!kh_simopts_word(&so, argv[i], operand, 2, usage, &rc)) return rc;
    }
    if (kh_simopts_done(&so)) return 2;
    const char *machine = operand[0], *program = operand[1];
    if (!machine || !program) {
        usage(stderr);
        return 2;
    }
    if (kh_simopts_params(&so, &p, err, sizeof err)) return 1;
    kh_rv32_image *img = malloc(sizeof *img);
    if (!img || kh_rv32_image_load(program, img, err, sizeof err)) {
        fprintf(stderr, "kohaku cpu run: %s\n", img ? err : "out of memory");
        free(img);
        return 1;
    }
    kh_machine *m = kh_simopts_machine(&so, machine, err, sizeof err);
    if (!m) {
        fprintf(stderr, "kohaku cpu run: %s\n", err);
        free(img);
        return 1;
    }
    kh_checkout ck = {.who = "kohaku cpu run"};
    if (so.check && kh_machine_set_check(m, kh_checkout_report, &ck)) {
        fprintf(stderr, "kohaku cpu run: out of memory for the flit checker\n");
        kh_machine_free(m);
        free(img);
        return 1;
    }
    kh_simout *out = kh_simout_open(kh_machine_sim(m), so.trace, err, sizeof err);
    if (!out) {
        fprintf(stderr, "kohaku cpu run: %s\n", err);
        kh_machine_free(m);
        free(img);
        return 1;
    }
    kh_rv32_result res;
    int rc = kh_rv32_run(m, 0, img, (uint32_t)arg, RUN_LIMIT, &res, err, sizeof err);
    if (rc) {
        fprintf(stderr, "kohaku cpu run: %s\n", err);
    } else {
        printf("a0 = 0x%08x cause %u cycles %u\n", res.a0, res.cause, res.cycles);
        if (res.cause != 1) {
            fprintf(stderr, "kohaku cpu run: the program halted by %s at %s 0x%08x (completion code 0x%02x)\n",
                    res.cause == 2 ? "EBREAK" : "a fault (illegal instruction, misaligned or unmapped access)",
                    res.cause == 2 ? "a0 =" : "pc", res.arg, res.code);
            char diag[4096];
            if (kh_machine_diagnose(m, diag, sizeof diag)) fprintf(stderr, "%s", diag);
            rc = 1;
        }
    }
    char e2[512];
    if (kh_simout_close(out, so.stats, e2, sizeof e2)) {
        fprintf(stderr, "kohaku cpu run: %s\n", e2);
        rc = 1;
    }
    if (so.check) {
        kh_checkout_add(&ck, kh_machine_check(m));
        if (kh_checkout_end(&ck)) rc = 1;
    }
    kh_machine_free(m);
    free(img);
    return rc ? 1 : 0;
}
