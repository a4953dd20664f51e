/* kohaku mesh: placeholder until its issue lands (see docs/design.md). */
#include <stdio.h>

#include "cmds.h"

int kh_cmd_mesh(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kohaku mesh: not built yet\n");
    return 2;
}
