/* fuzz-line-seeds: vectors */
/* fuzz-max-len: 65536 */
/* libFuzzer target: the replay readers' field checks (include/kohaku/
 * replay.h). The first line names the kind (quant, cluster, saxpy,
 * vector), the rest is the vector file: every case is run or refused with
 * "case N: why"; nothing crashes. run.sh seeds it with every recorded line,
 * its kind's name first. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kohaku/replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64]; /* one scratch file per process, rewritten per input */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    if (!nl || nl == data || nl - data > 16) return 0;
    char kind[17];
    memcpy(kind, data, (size_t)(nl - data));
    kind[nl - data] = 0;
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/kh_fuzz_replay_XXXXXX");
        int fd = mkstemp(path);
        if (fd < 0) abort();
        close(fd);
    }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    size_t rest = size - (size_t)(nl + 1 - data);
    if (rest && fwrite(nl + 1, 1, rest, f) != rest) abort();
    fclose(f);
    FILE *out = fopen("/dev/null", "w");
    kh_replay_opts o = {.out = out};
    kh_replay_result res;
    char err[1024];
    err[0] = 0;
    int rc = kh_replay_file(kind, path, &o, &res, err, sizeof err);
    if (rc && !err[0]) abort(); /* a refusal says why */
    if (out) fclose(out);
    return 0;
}
