/* The host memory window of one mesh (memory.md §9, control.md §9.3):
 * exactly the bytes given, in zero simulated time, between cycles. */
#include <stdio.h>

#include "kohaku/addr.h"
#include "sysnode/fields.h"
#include "sysnode/node_int.h"

#define INSIDE_LIMIT (UINT64_C(1) << KH_ADDR_WIDTH) /* the window passes 40 bits (memory.md §1.2) */

/* Every 32-byte word the access touches must be DRAM or this mesh's
 * staging store; otherwise refuse before anything changes (Open points 4, 16). */
static int check(kh_node *n, uint64_t a, size_t len, const char *what, char *err, size_t errlen)
{
    if (a >= INSIDE_LIMIT || len > INSIDE_LIMIT - a) {
        snprintf(err, errlen, "mesh %u memory window: %s of %zu bytes at inside address 0x%llx runs past "
                 "the 40-bit window (memory.md §1.2)", n->cfg.mesh_id, what, len, (unsigned long long)a);
        return -1;
    }
    for (uint64_t w = a & ~(uint64_t)31; len && w < a + len; w += 32) {
        if (ka_bit38(w) && !ka_aperture(w)) { /* DRAM would alias it (memory.md §7): refuse instead */
            snprintf(err, errlen, "mesh %u memory window: %s at inside address 0x%010llx: its reserved bit 38 is "
                     "set (MUST be 0, memory.md §1); DRAM would alias it to offset 0x%llx", n->cfg.mesh_id, what,
                     (unsigned long long)w, (unsigned long long)(ka_local(w) & n->dram_bytes_mask));
            return -1;
        }
        if (kh_node_target(n, w) != KH_TGT_LOST) continue;
        const char *why = ka_bit38(w) ? "its reserved bit 38 is set"
                          : !n->p->stage_built ? "this node has no staging store"
                          : ka_apidx(w) ? "no aperture but index 0 (staging) exists"
                                        : "another mesh's staging is reached only through that mesh's window";
        snprintf(err, errlen,
                 "mesh %u memory window: %s at inside address 0x%010llx names aperture %u of mesh %u "
                 "(mesh field %u); %s, and on hardware the access would hang (memory.md §1.1, Open point 16)",
                 n->cfg.mesh_id, what, (unsigned long long)w, ka_apidx(w), ka_mesh(w), ka_mesh(w), why);
        return -1;
    }
    return 0;
}

typedef int (*chunk_fn)(kh_node *n, kh_target t, uint64_t idx, uint8_t *buf, size_t k);

static int rd_chunk(kh_node *n, kh_target t, uint64_t idx, uint8_t *buf, size_t k)
{
    kh_pages_read(t == KH_TGT_STAGE ? &n->stage : &n->dram, idx, buf, k);
    return 0;
}

static int wr_chunk(kh_node *n, kh_target t, uint64_t idx, uint8_t *buf, size_t k)
{
    return kh_pages_write(t == KH_TGT_STAGE ? &n->stage : &n->dram, idx, buf, k);
}

/* Walk the access word by word: the index rule maps each word on its own. */
static int each_chunk(kh_node *n, uint64_t a, uint8_t *buf, size_t len, chunk_fn fn)
{
    while (len) {
        size_t k = 32 - (size_t)(a & 31);
        if (k > len) k = len;
        kh_target t = kh_node_target(n, a);
        uint64_t idx = t == KH_TGT_STAGE ? a & n->stage_bytes_mask : kh_node_dram_index(n, a);
        if (fn(n, t, idx, buf, k)) return -1;
        a += k;
        buf += k;
        len -= k;
    }
    return 0;
}

int kh_node_host_read(kh_node *n, uint64_t a, uint8_t *out, size_t len, char *err, size_t errlen)
{
    if (check(n, a, len, "read", err, errlen)) return -1;
    return each_chunk(n, a, out, len, rd_chunk);
}

int kh_node_host_write(kh_node *n, uint64_t a, const uint8_t *in, size_t len, char *err, size_t errlen)
{
    if (check(n, a, len, "write", err, errlen)) return -1;
    /* Pages are allocated before any byte lands, chunk by chunk; a failure
     * part-way is out of memory, reported as such. */
    if (each_chunk(n, a, (uint8_t *)in, len, wr_chunk)) {
        snprintf(err, errlen, "mesh %u memory window: out of memory writing %zu bytes at 0x%llx",
                 n->cfg.mesh_id, len, (unsigned long long)a);
        return -1;
    }
    return 0;
}
