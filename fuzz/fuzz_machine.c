/* fuzz-seeds: maps */
/* fuzz-max-len: 4096 */
/* libFuzzer target: machine files (docs/machine.md) and map pictures as
 * `kohaku run` reads them: any text is a machine spec or a refusal that
 * says why; a spec's parameters apply or are refused; a spec whose
 * meshes name only the built-in map is built and freed. Seeds: the maps,
 * fuzz/seeds/fuzz_machine/. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "kohaku/machine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    char err[2048];
    err[0] = 0;
    /* a directory that does not exist: a relative mesh path reads nothing */
    kh_machine_spec *s = kh_machine_spec_parse(text, "fuzz.machine", "/nonexistent-kohaku-fuzz", err, sizeof err);
    free(text);
    if (!s) {
        if (!err[0]) abort();
        return 0;
    }
    unsigned n = kh_machine_spec_nmeshes(s);
    if (n < 1 || n > KH_MACHINE_MAX_MESHES) abort();
    kh_params p;
    kh_params_default(&p);
    err[0] = 0;
    if (kh_machine_spec_params(s, &p, err, sizeof err)) {
        if (!err[0]) abort();
    } else {
        err[0] = 0;
        kh_machine *m = kh_machine_build(s, &p, err, sizeof err);
        if (m) {
            if (kh_machine_nmeshes(m) != n) abort();
            kh_machine_free(m);
        } else if (!err[0]) {
            abort();
        }
    }
    kh_machine_spec_free(s);
    return 0;
}
