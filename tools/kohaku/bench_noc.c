/* kohaku bench noc: placeholder until its issue lands. */
#include <stdio.h>

#include "bench.h"

int kh_bench_noc(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kohaku bench noc: not built yet\n");
    return 2;
}
