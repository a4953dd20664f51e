/* kohaku replay quant: placeholder until its issue lands. */
#include <stdio.h>

#include "replay.h"

int kh_replay_quant(const char *file, const kh_replay_opts *o)
{
    (void)file;
    (void)o;
    fprintf(stderr, "kohaku replay quant: not built yet\n");
    return 2;
}
