/* fuzz-max-len: 4096 */
/* libFuzzer target: host sessions (docs/session.md). Any text must parse or
 * be refused with "NAME:LINE: why"; a parsed session runs on a small
 * machine and must end (ok, a failed check or a refusal, each with a
 * message) without crashing. Sessions that ask for long waits are parsed
 * only, so every input stays quick. Seeds: fuzz/seeds/fuzz_session/ and
 * examples/. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/session_int.h"
#include "fuzz_text.h"
#include "kohaku/machine.h"
#include "kohaku/session.h"

#define WAIT_MAX 20000 /* cycles a fuzzed run, poll or idle may ask for */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char map_1x1[] = "xxx vec xxx\nmag mat nul\nxxx nul xxx\n"; /* data/maps/mesh_1x1_min.txt */

static int quick(const kh_session *s)
{
    uint64_t total = 0;
    for (unsigned i = 0; i < s->ncmd; i++) {
        const sess_cmd *c = &s->cmd[i];
        uint64_t w = c->op == SESS_RUN ? c->value : c->op == SESS_POLL || c->op == SESS_IDLE ? c->limit : 0;
        if (w > WAIT_MAX || (total += w) > 4 * WAIT_MAX) return 0;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    char err[8192];
    err[0] = 0;
    /* no base directory: a `file` operand names a path as given */
    kh_session *s = kh_session_parse(text, "fuzz.session", NULL, err, sizeof err);
    free(text);
    if (!s) {
        if (strncmp(err, "fuzz.session:", 13)) abort(); /* a refusal names the session and line */
        return 0;
    }
    if (quick(s)) {
        kh_machine *m = kh_machine_new(map_1x1, NULL, err, sizeof err);
        if (!m) abort();
        FILE *out = fopen("/dev/null", "w");
        err[0] = 0;
        int rc = kh_session_run(s, m, out, err, sizeof err);
        if (rc && !err[0]) abort(); /* a failure says why */
        if (out) fclose(out);
        kh_machine_free(m);
    }
    kh_session_free(s);
    return 0;
}
