/* kohaku cpu run --isa rv64 [--node] ELF: the RV64 system core alone on the
 * flat harness, or (--node) on the default machine with CPU_RV64 = 1
 * (../shared/cli.md, docs/rv64.md). Ends with one stdout line
 * `exit 0x<hex> instret <n> cycles <m>`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/echo.h"
#include "kohaku/hex.h"
#include "kohaku/machine.h"
#include "kohaku/params.h"
#include "kohaku/rv64.h"
#include "kohaku/sim.h"

#define DEFAULT_LIMIT UINT64_C(2000000000) /* cycles */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kohaku cpu run --isa rv64 [--node [--param NAME=V]... [--save-at CYCLE FILE]\n"
            "                      | --syscore-bench [--latency N]] [--bare]\n"
            "                      [--max-cycles N] [--fetch-lat 1|2]\n"
            "                      [--trace-insn F] ELF\n"
            "       kohaku cpu run --isa rv64 --node --restore FILE [--max-cycles N]\n"
            "  Runs an RV64 program (an ELF64 RISC-V executable) on the RV64 system core (docs/rv64.md).\n"
            "  Without --node: the core alone on flat sparse memory, upstream's standalone harness: segments\n"
            "  loaded where they are linked, the run starting at the entry; a store to 0x1000_0000 prints a\n"
            "  byte, a store to 0x1000_0008 ends the run with the stored value; riscv-tests' HTIF: a `tohost`\n"
            "  store of an odd value ends the run with value >> 1 (0 passes), an even one is a syscall block\n"
            "  (`write` reaches standard output, then `fromhost` = 1). The harness carries the node's Sv39 MMU,\n"
            "  in the path only while satp.MODE is Sv39 (riscv-tests' v environment).\n"
            "  --node: the program, linked for the node map (instruction window at 0, scratchpad at 0x1_0000,\n"
            "  control region at 0x2_0000), loaded through the host window of the default machine with\n"
            "  CPU_RV64 = 1 and booted; console bytes (control +0x08) go to standard output.\n"
            "  The last line is\n"
            "      exit 0x<hex> instret <n> cycles <m>\n"
            "  (the exit value, or a0 when an ECALL with no handler halted the core; instructions retired and\n"
            "  cycles counted as upstream's harness counts them, through the ending cycle).\n"
            "  --max-cycles N   stop after N cycles (default 2000000000): a failure\n"
            "  --save-at CYCLE FILE  (--node) write a checkpoint of the machine at the first poll of the host at\n"
            "                   or after machine cycle CYCLE (docs/checkpoint.md); the run goes on to its end\n"
            "  --restore FILE   (--node) resume the run --save-at saved in FILE: what the run that never\n"
            "                   stopped prints after the save (--max-cycles counts from the restore)\n"
            "  --fetch-lat N    fetch stages before decode, 2 (the RTL followed) or 1 (older revisions)\n"
            "  --bare           no MMU: upstream's bare-core harness exactly (satp is stored and ignored)\n"
            "  --syscore-bench  the node complex (rv64_syscore) on a bench instead: window and scratchpad through\n"
            "                   the host window, node memory behind a port answering --latency N cycles (default 6)\n"
            "                   after a request, booted at 0 (a stub jumps to the entry)\n"
            "  --trace-insn F   write one line per instruction leaving E: cycle, pc, word (\"trap\" if it trapped)\n"
            "Exit status: 0 the program ended with 0 (exit store, tohost pass, or ECALL halt with a0 = 0);\n"
            "1 it ended otherwise, faulted, ran out of cycles, or the input was refused; 2 usage error.\n");
}

/* --trace-insn: one line per instruction leaving E (or trapping there) */
static void trace_line(void *ctx, uint64_t cycle, uint64_t pc, uint32_t word, int trapped)
{
    fprintf(ctx, "%llu %016llx %08x%s\n", (unsigned long long)cycle, (unsigned long long)pc, word,
            trapped ? " trap" : "");
}

static int parse_count(const char *opt, const char *v, uint64_t max, uint64_t *out)
{
    if (kh_parse_u64(v, out) || *out > max || *out == 0) {
        kh_echo_buf b;
        fprintf(stderr, "kohaku cpu run: %s '%s' is not a number in 1..%llu\n", opt, kh_echo(v, &b),
                (unsigned long long)max);
        return -1;
    }
    return 0;
}

/* What --save-at and --restore write into a checkpoint's session name and
 * look for in it: a file saved between this command's polls */
#define CKPT_MARK "kohaku cpu run --isa rv64 --node"

typedef struct save_at {
    uint64_t at;
    const char *path;
    int saved;
    char err[2048];
} save_at;

/* --save-at: the checkpoint at the first poll at or after the cycle */
static int save_hook(void *ctx, kh_machine *m)
{
    save_at *s = ctx;
    if (s->saved || kh_sim_now(kh_machine_sim(m)) < s->at) return 0;
    kh_ckpt_info info = {0};
    snprintf(info.session_name, sizeof info.session_name, "%s", CKPT_MARK);
    s->saved = 1;
    return kh_machine_save(m, s->path, &info, s->err, sizeof s->err) ? 1 : 0;
}

/* --node: the default machine with cpu_rv64 = 1, the program loaded and
 * booted through the host window, console bytes to stdout; or (restore)
 * the machine of a checkpoint --save-at wrote, polled on to the end */
static int run_node(kh_rv64_elf *elf, kh_params *params, uint64_t limit, save_at *sv, const char *restore)
{
    char err[2048];
    kh_machine *m = NULL;
    if (restore) {
        kh_ckpt_info info;
        m = kh_machine_restore(restore, NULL, &info, err, sizeof err);
        if (m && strcmp(info.session_name, CKPT_MARK)) {
            kh_echo_buf b;
            snprintf(err, sizeof err, "%s was not saved by --save-at of kohaku cpu run --isa rv64 --node",
                     kh_echo(restore, &b));
            kh_machine_free(m);
            m = NULL;
        }
    } else if (!kh_params_set(params, "cpu_rv64", "1", err, sizeof err)) {
        m = kh_machine_new(NULL, params, err, sizeof err);
    }
    if (!m || !kh_machine_cpu64_at(m, 0)) {
        fprintf(stderr, "kohaku cpu run: %s\n", m ? "the machine has no RV64 complex (cpu_mode agent or drop)" : err);
        kh_machine_free(m);
        kh_rv64_elf_free(elf);
        return 1;
    }
    kh_rv64_node_set_console(kh_machine_cpu64_at(m, 0), stdout);
    kh_rv64_result res;
    int rc = restore ? 0 : kh_rv64_node_start(m, 0, elf, err, sizeof err);
    kh_rv64_elf_free(elf);
    if (!rc) rc = kh_rv64_node_wait(m, 0, limit, sv->path ? save_hook : NULL, sv, &res, err, sizeof err);
    fflush(stdout);
    if (rc) {
        fprintf(stderr, "kohaku cpu run: %s\n", sv->err[0] ? sv->err : err);
        kh_machine_free(m);
        return 1;
    }
    printf("exit 0x%llx instret %llu cycles %llu\n", (unsigned long long)res.code, (unsigned long long)res.instret,
           (unsigned long long)res.cycles);
    rc = 0;
    if (sv->path && !sv->saved) {
        fprintf(stderr, "kohaku cpu run: the run ended at cycle %llu, before --save-at %llu: nothing saved\n",
                (unsigned long long)kh_sim_now(kh_machine_sim(m)), (unsigned long long)sv->at);
        rc = 1;
    } else if (res.end == KH_RV64_END_LIMIT) {
        fprintf(stderr, "kohaku cpu run: no end after %llu cycles\n", (unsigned long long)limit);
        rc = 1;
    } else if (res.end == KH_RV64_END_HALT && (res.halt_cause != 1 || res.code)) {
        static const char *const why[] = {"the host", "ECALL", "EBREAK", "a trap with no handler"};
        fprintf(stderr, "kohaku cpu run: the core halted by %s at pc 0x%llx (a0 = 0x%llx) without an exit store\n",
                why[res.halt_cause & 3], (unsigned long long)res.halt_pc, (unsigned long long)res.code);
        rc = 1;
    } else if (res.end == KH_RV64_END_EXIT && res.code) {
        fprintf(stderr, "kohaku cpu run: the program ended with exit value 0x%llx\n", (unsigned long long)res.code);
        rc = 1;
    }
    kh_machine_free(m);
    return rc;
}

int kh_cmd_cpu_rv64(int argc, char **argv)
{
    const char *elf_path = NULL, *trace_path = NULL, *restore = NULL;
    int node = 0, bare = 0, bench = 0, params_given = 0;
    save_at sv = {0};
    kh_params params;
    kh_params_default(&params);
    uint64_t latency = 6;
    uint64_t limit = DEFAULT_LIMIT, fetch_lat = 2;
    for (int i = 2; i < argc; i++) {
        const char *w = argv[i];
        if (!strcmp(w, "--isa")) {
            i++; /* checked by kh_cmd_cpu */
        } else if (!strcmp(w, "--trace-insn")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku cpu run: --trace-insn needs a file\n");
                return 2;
            }
            trace_path = argv[++i];
        } else if (!strcmp(w, "--node")) {
            node = 1;
        } else if (!strcmp(w, "--save-at")) {
            if (i + 2 >= argc) {
                fprintf(stderr, "kohaku cpu run: --save-at needs a cycle and a file\n");
                return 2;
            }
            if (parse_count(w, argv[++i], UINT64_MAX, &sv.at)) return 1;
            sv.path = argv[++i];
        } else if (!strcmp(w, "--restore")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku cpu run: --restore needs a file\n");
                return 2;
            }
            restore = argv[++i];
        } else if (!strcmp(w, "--param")) {
            char perr[256];
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku cpu run: --param needs NAME=VALUE\n");
                return 2;
            }
            params_given = 1;
            if (kh_params_set_assign(&params, argv[++i], perr, sizeof perr)) {
                fprintf(stderr, "kohaku cpu run: %s\n", perr);
                return 1;
            }
        } else if (!strcmp(w, "--bare")) {
            bare = 1;
        } else if (!strcmp(w, "--syscore-bench")) {
            bench = 1;
        } else if (!strcmp(w, "--latency")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku cpu run: --latency needs a value\n");
                return 2;
            }
            if (kh_parse_u64(argv[++i], &latency) || latency > 1000) {
                kh_echo_buf b;
                fprintf(stderr, "kohaku cpu run: --latency '%s' is not a number in 0..1000\n", kh_echo(argv[i], &b));
                return 1;
            }
        } else if (!strcmp(w, "--max-cycles") || !strcmp(w, "--fetch-lat")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku cpu run: %s needs a value\n", w);
                return 2;
            }
            int lat = !strcmp(w, "--fetch-lat");
            if (parse_count(w, argv[++i], lat ? 2 : UINT64_MAX, lat ? &fetch_lat : &limit)) return 1;
        } else if (!strcmp(w, "--help") || !strcmp(w, "-h")) {
            usage(stdout);
            return 0;
        } else if (w[0] == '-') {
            kh_echo_buf b;
            fprintf(stderr, "kohaku cpu run: unknown option '%s'\n", kh_echo(w, &b));
            usage(stderr);
            return 2;
        } else if (!elf_path) {
            elf_path = w;
        } else {
            kh_echo_buf b;
            fprintf(stderr, "kohaku cpu run: one program only ('%s' is extra)\n", kh_echo(w, &b));
            usage(stderr);
            return 2;
        }
    }
    if ((sv.path || restore) && !node) {
        fprintf(stderr, "kohaku cpu run: --save-at and --restore are for --node runs\n");
        return 2;
    }
    if (restore && (elf_path || params_given)) {
        fprintf(stderr, "kohaku cpu run: --restore takes the machine and the program from the checkpoint: no %s\n",
                elf_path ? "ELF" : "--param");
        return 2;
    }
    kh_rv64_elf elf;
    memset(&elf, 0, sizeof elf);
    if (restore) return run_node(&elf, &params, limit, &sv, restore);
    if (!elf_path) {
        usage(stderr);
        return 2;
    }
    char err[512];
    if (kh_rv64_elf_read(elf_path, &elf, err, sizeof err)) {
        fprintf(stderr, "kohaku cpu run: %s\n", err);
        return 1;
    }
    if (node) return run_node(&elf, &params, limit, &sv, NULL);
    if (bench) {
        kh_rv64_result res;
        FILE *btf = trace_path ? fopen(trace_path, "w") : NULL;
        int brc = kh_rv64_sysbench_run(&elf, (unsigned)latency, limit, stdout, btf, &res, err, sizeof err);
        if (btf) fclose(btf);
        kh_rv64_elf_free(&elf);
        if (brc) {
            fprintf(stderr, "kohaku cpu run: %s\n", err);
            return 1;
        }
        fflush(stdout);
        printf("exit 0x%llx instret %llu cycles %llu\n", (unsigned long long)res.code, (unsigned long long)res.instret,
               (unsigned long long)res.cycles);
        return res.end == KH_RV64_END_LIMIT || res.code || (res.end == KH_RV64_END_HALT && res.halt_cause != 1);
    }
    kh_rv64_flat *f = kh_rv64_flat_new(&elf, (unsigned)fetch_lat, bare ? KH_RV64_FLAT_BARE : 0, stdout, err, sizeof err);
    kh_rv64_elf_free(&elf);
    if (!f) {
        fprintf(stderr, "kohaku cpu run: %s\n", err);
        return 1;
    }
    FILE *tf = NULL;
    if (trace_path) {
        tf = fopen(trace_path, "w");
        if (!tf) {
            kh_echo_buf b;
            fprintf(stderr, "kohaku cpu run: cannot write '%s'\n", kh_echo(trace_path, &b));
            kh_rv64_flat_free(f);
            return 1;
        }
        kh_rv64_set_trace(kh_rv64_flat_core(f), trace_line, tf);
    }
    kh_rv64_result res;
    kh_rv64_flat_run(f, limit, &res);
    if (tf) fclose(tf);
    fflush(stdout);
    printf("exit 0x%llx instret %llu cycles %llu\n", (unsigned long long)res.code, (unsigned long long)res.instret,
           (unsigned long long)res.cycles);
    int rc = 0;
    switch (res.end) {
    case KH_RV64_END_EXIT:
    case KH_RV64_END_TOHOST:
        if (res.code) {
            fprintf(stderr, "kohaku cpu run: the program ended with %s 0x%llx\n",
                    res.end == KH_RV64_END_TOHOST ? "tohost code" : "exit value", (unsigned long long)res.code);
            rc = 1;
        }
        break;
    case KH_RV64_END_HALT:
        if (res.halt_cause != 1 || res.code) {
            static const char *const why[] = {"the exit input", "ECALL with no handler", "EBREAK with no handler",
                                              "an illegal instruction or misaligned access with no handler"};
            fprintf(stderr, "kohaku cpu run: the core halted by %s at pc 0x%llx (a0 = 0x%llx)\n",
                    why[res.halt_cause & 3], (unsigned long long)res.halt_pc, (unsigned long long)res.code);
            rc = 1;
        }
        break;
    case KH_RV64_END_LIMIT:
        fprintf(stderr, "kohaku cpu run: no end after %llu cycles\n", (unsigned long long)res.cycles);
        rc = 1;
        break;
    }
    kh_rv64_flat_free(f);
    return rc;
}
