/* fuzz-seeds: maps */
/* libFuzzer target: the map-picture parser (mesh.md §2) must refuse or accept
 * any bytes without crashing, and an accepted map must satisfy the rules. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_text.h"
#include "kohaku/machine.h"
#include "kohaku/mesh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    char err[512];
    kh_map_units units;
    kh_machine_map_units(&units);
    kh_map *m = kh_map_parse(text, &units, err, sizeof err);
    if (m) {
        unsigned nx = kh_map_nx(m), ny = kh_map_ny(m), np = kh_map_nports(m);
        if (nx < 1 || ny < 1 || nx > KH_MAP_MAX_N || ny > KH_MAP_MAX_N) abort();
        if (np < 1 || np > KH_MAP_MAX_PORTS) abort();
        if (kh_map_nendpoints(m) != nx * ny + 2 * (nx + ny)) abort();
        for (unsigned i = 0; i < kh_map_nendpoints(m); i++) {
            const kh_map_ep *e = kh_map_endpoint(m, i);
            if (kh_map_at(m, e->x, e->y) != e) abort();
            if (e->kind == KH_EP_MEM && (!e->edge || e->port < 0 || e->port >= (int)np)) abort();
            if (e->kind == KH_EP_UNIT && (!kh_unit_by_token(e->token) || e->bound_port < 0 || e->bound_port >= (int)np))
                abort();
        }
        kh_map_free(m);
    } else if (!err[0]) {
        abort(); /* a refusal always says why */
    }
    free(text);
    return 0;
}
