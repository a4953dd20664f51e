/* kohaku replay cluster: placeholder until its issue lands. */
#include <stdio.h>

#include "replay.h"

int kh_replay_cluster(const char *file, const kh_replay_opts *o)
{
    (void)file;
    (void)o;
    fprintf(stderr, "kohaku replay cluster: not built yet\n");
    return 2;
}
