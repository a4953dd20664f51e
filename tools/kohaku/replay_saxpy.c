/* kohaku replay saxpy: placeholder until its issue lands. */
#include <stdio.h>

#include "replay.h"

int kh_replay_saxpy(const char *file, const kh_replay_opts *o)
{
    (void)file;
    (void)o;
    fprintf(stderr, "kohaku replay saxpy: not built yet\n");
    return 2;
}
