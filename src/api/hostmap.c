/* The host maps of the library's host API (hostmap.h). */
#include <stdio.h>
#include <string.h>

#include "api/hostmap.h"
#include "kohaku/card.h"
#include "kohaku/params.h"

static int noboard(unsigned meshes, uint64_t addr, size_t n, uint64_t *out, char *err, size_t errlen)
{
    uint64_t last = addr + (n - 1);
    for (unsigned m = 0; m < meshes && m < KH_HOST_MESHES; m++) {
        uint64_t c = KH_NOBOARD_CTRL_BASE + m * KH_NOBOARD_CTRL_STRIDE;
        if (addr >= c && addr < c + KH_HOST_WINDOW_SIZE) {
            if (last >= c + KH_HOST_WINDOW_SIZE) break;
            *out = kh_host_ctrl(m, (uint32_t)(addr - c));
            return 0;
        }
        uint64_t d = (uint64_t)m << KH_NOBOARD_MEM_SHIFT;
        if (addr >= d && addr - d < KH_NOBOARD_MEM_SIZE) {
            if (last - d >= KH_NOBOARD_MEM_SIZE) break;
            *out = kh_host_dram(m, addr - d);
            return 0;
        }
    }
    snprintf(err, errlen,
             "host address 0x%llx (%zu bytes) is unmapped in the host map noboard (host_map = 1: what upstream's "
             "Card() assumes without a board file): node control windows 0x%llx + N*0x%llx and mesh N's DRAM at "
             "N << %d, 4 GiB each, for meshes 0..%u (docs/python.md)",
             (unsigned long long)addr, n, (unsigned long long)KH_NOBOARD_CTRL_BASE,
             (unsigned long long)KH_NOBOARD_CTRL_STRIDE, KH_NOBOARD_MEM_SHIFT, meshes ? meshes - 1 : 0);
    return -1;
}

int kh_hostmap_to_kohaku(unsigned map, unsigned meshes, uint64_t addr, size_t n, uint64_t *out, char *err,
                         size_t errlen)
{
    *out = addr;
    if (map != KH_HOST_MAP_NOBOARD) return 0;
    return noboard(meshes, addr, n ? n : 1, out, err, errlen);
}

void kh_hostmap_hint(uint64_t addr, char *msg, size_t len)
{
    /* the board-less Card()'s control windows, and mesh 0's DRAM where no
     * control window of kohaku's map is (its scratch, its arena) */
    int ctrl = addr >= KH_NOBOARD_CTRL_BASE && addr < KH_NOBOARD_CTRL_BASE + KH_HOST_MESHES * KH_NOBOARD_CTRL_STRIDE;
    int dram = addr < KH_NOBOARD_MEM_SIZE; /* below 4 GiB kohaku has windows only, and this is none */
    size_t used = strlen(msg);
    if ((!ctrl && !dram) || used >= len) return;
    snprintf(msg + used, len - used,
             "; upstream's Card() without a board file looks for its %s here (the single-mesh cards' map): open "
             "the machine with --param host_map=noboard or --profile upstream-7703ee8 (Python: "
             "kohaku.Machine(profile=\"upstream-7703ee8\")), or give the card kohaku's own map: "
             "Card.from_board(\"multimesh_v67\", transport) (docs/python.md)",
             ctrl ? "node control window" : "DRAM");
}
