/* kohaku quant [--mode M] HEX: transform occupant 1 on one entry
 * (../shared/cli.md; numerics.md §3, memory.md §13). */
#include <stdio.h>
#include <string.h>

#include "cmds.h"
#include "kohaku/echo.h"
#include "kohaku/hex.h"
#include "kohaku/num.h"

#define XFORM_MODE_MAX 15u /* XFORM_MODE is 4 bits (memory.md §11.1, [58:55]) */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: kohaku quant [--mode M] HEX\n"
            "  Quantise one FP16 entry to MXFP7 as transform occupant 1 does (numerics.md §3).\n"
            "  HEX: the 2048-bit entry as one integer, at most 512 hex digits, most\n"
            "       significant first ('_' separators allowed); FP16 element n = 32*lane + k\n"
            "       at bits [16n+15:16n], so the last 4 digits are element 0.\n"
            "  --mode M  XFORM_MODE (0..15, default 0); bit 0 picks the packing: 0 A, 1 B.\n"
            "  Prints the 1024-bit output as 256 hex digits, word w at bits [256w+255:256w].\n"
            "  Exit status: 0 ok, 1 HEX or M refused, 2 usage (docs/exit-status.md).\n");
}

int kh_cmd_quant(int argc, char **argv)
{
    const char *hex = NULL, *mode_arg = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--mode")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "kohaku quant: --mode needs a value\n");
                usage(stderr);
                return 2;
            }
            mode_arg = argv[++i];
        } else if (!strncmp(argv[i], "--mode=", 7)) {
            mode_arg = argv[i] + 7;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            kh_echo_buf b;
            fprintf(stderr, "kohaku quant: unknown option '%s'\n", kh_echo(argv[i], &b));
            usage(stderr);
            return 2;
        } else if (!hex) {
            hex = argv[i];
        } else {
            kh_echo_buf b;
            fprintf(stderr, "kohaku quant: one HEX entry expected, got a second argument '%s'\n", kh_echo(argv[i], &b));
            usage(stderr);
            return 2;
        }
    }
    if (!hex) {
        usage(stderr);
        return 2;
    }
    uint64_t mode = 0;
    if (mode_arg && (kh_parse_u64(mode_arg, &mode) || mode > XFORM_MODE_MAX)) {
        kh_echo_buf b;
        fprintf(stderr, "kohaku quant: --mode '%s' refused: XFORM_MODE is a 4-bit value 0..%u (memory.md §11.1)\n",
                kh_echo(mode_arg, &b), XFORM_MODE_MAX);
        return 1;
    }
    uint64_t in[32], out[16];
    char err[160], text[257];
    if (kh_hex_parse(hex, in, 2048, 0, err, sizeof err)) {
        fprintf(stderr, "kohaku quant: HEX refused: %s (the entry is 2048 bits, 512 hex digits)\n", err);
        return 1;
    }
    kh_quant_entry(in, (unsigned)mode, out);
    kh_hex_format(out, 1024, text);
    printf("%s\n", text);
    return 0;
}
