/* kohaku: the command line of the KohakuAccel simulator (../shared/cli.md). */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cmds.h"
#include "kohaku/num.h"
#include "partition.h"

typedef struct cmd_row {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
} cmd_row;

#define KH_CMD_ROW(name, help) {#name, kh_cmd_##name, help},
static const cmd_row cmds[] = {KH_CMDS(KH_CMD_ROW)};
#undef KH_CMD_ROW

static void usage(FILE *out)
{
    fprintf(out, "usage: kohaku SUBCOMMAND [ARGS...]   (kohaku SUBCOMMAND --help for more)\n\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(out, "  %-8s %s\n", cmds[i].name, cmds[i].help);
    fprintf(out, "\nEnvironment: KOHAKU_SIMD=portable|avx2|avx-vnni|avx512 caps the x86 instruction set the\n"
                 "  arithmetic dispatches to (default: all the CPU has); every level gives the same results\n"
                 "  (docs/num.md).\n");
    fprintf(out, "\nExit status: 0 success, 1 a check failed or input was refused, 2 usage error.\n");
}

static int dispatch(int argc, char **argv)
{
#ifdef __GLIBC__
    /* Replays build and free a whole simulation per case: without this the
     * allocator hands the freed heap top back to the kernel after every case
     * and the next one pays a page fault per page to get it again. */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name)) return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "kohaku: unknown subcommand '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (kh_simd_bad_value()) {
        fprintf(stderr, "kohaku: KOHAKU_SIMD='%s' is not one of portable, avx2, avx-vnni, avx512\n", kh_simd_bad_value());
        return 2;
    }
    kh_cli_mpi_init(&argc, &argv);
    int rc = dispatch(argc, argv);
    kh_cli_mpi_finish();
    return rc;
}
