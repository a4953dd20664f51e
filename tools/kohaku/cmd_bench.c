/* kohaku bench WHAT: one file per benchmark (bench_WHAT.c). */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "cmds.h"

static const struct {
    const char *what;
    int (*fn)(int argc, char **argv);
    const char *help;
} benches[] = {
    {"noc", kh_bench_noc, "synthetic mesh traffic: cycles/s and flit-hops/s"},
    {"gemm", kh_bench_gemm, "MX GEMM arithmetic (MAC/s) and whole-machine speed"},
};

int kh_cmd_bench(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        FILE *out = argc < 2 ? stderr : stdout;
        fprintf(out, "usage: kohaku bench WHAT [OPTIONS]   (kohaku bench WHAT --help)\n");
        for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
            fprintf(out, "  %-6s %s\n", benches[i].what, benches[i].help);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof benches / sizeof benches[0]; i++)
        if (!strcmp(argv[1], benches[i].what)) return benches[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "kohaku bench: unknown benchmark '%s'\n", argv[1]);
    return 2;
}
