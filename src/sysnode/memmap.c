/* The 40-bit address map as the node decodes it (memory.md §1.1, §7, §8). */
#include <stdio.h>

#include "sysnode/fields.h"
#include "sysnode/node_int.h"

kh_target kh_node_target(const kh_node *n, uint64_t addr)
{
    if (!ka_aperture(addr)) return KH_TGT_DRAM;
    /* The staging claim: a[39] = 1, a[38] = 0, own mesh, aperture index 0 (§8). */
    if (n->p->stage_built && !ka_bit38(addr) && ka_mesh(addr) == n->cfg.mesh_id && ka_apidx(addr) == 0)
        return KH_TGT_STAGE;
    return KH_TGT_LOST;
}

int kh_node_port_drops(const kh_node *n, uint64_t addr)
{
    /* AP_DECODE = STAGE: only a node built with staging tests the aperture (§6). */
    return n->p->stage_built && ka_aperture(addr) && !ka_bit38(addr) &&
           (ka_mesh(addr) != n->cfg.mesh_id || ka_apidx(addr) != 0);
}

/* DRAM byte index: word = (a[35:0] >> 5) mod DRAM_WORDS (§7, Open point 3). */
/* Inline in the word accesses below (one per beat), exported as
 * kh_node_dram_index. */
static inline __attribute__((always_inline)) uint64_t dram_index(kh_node *n, uint64_t addr)
{
    /* Bit 38 MUST be 0 on the fabric; the DRAM index ignores it, as the
     * RTL does, so the access aliases: say so (once per node). */
    if (!n->warned_bit38 && ka_bit38(addr)) {
        n->warned_bit38 = 1;
        kh_sim_log(n->sim, KH_LOG_WARN,
                   "mesh %u DRAM: address 0x%010llx has its reserved bit 38 set (MUST be 0, memory.md §1, "
                   "flits.md V9); it aliases to offset 0x%llx (warned once)",
                   n->cfg.mesh_id, (unsigned long long)addr,
                   (unsigned long long)(ka_local(addr) & n->dram_bytes_mask));
    }
    if (!n->warned_wide && (ka_mesh(addr) != n->cfg.mesh_id || ka_local(addr) > n->dram_bytes_mask)) {
        n->warned_wide = 1;
        kh_sim_log(n->sim, KH_LOG_WARN,
                   "mesh %u DRAM: address 0x%010llx names mesh %u or lies beyond the populated "
                   "%llu bytes; it aliases to offset 0x%llx (memory.md §7, Open point 3; warned once)",
                   n->cfg.mesh_id, (unsigned long long)addr, ka_mesh(addr),
                   (unsigned long long)n->dram_bytes_mask + 1,
                   (unsigned long long)(ka_local(addr) & n->dram_bytes_mask));
    }
    return ka_local(addr) & n->dram_bytes_mask;
}

uint64_t kh_node_dram_index(kh_node *n, uint64_t addr) { return dram_index(n, addr); }

/* A 32-byte word never crosses a page: one lookup, read in place. */
void kh_node_word_read(kh_node *n, kh_target t, uint64_t addr, uint64_t out[4])
{
    addr &= ~(uint64_t)31; /* the memory model ignores the low 5 bits (§7) */
    uint64_t a = t == KH_TGT_STAGE ? addr & n->stage_bytes_mask : dram_index(n, addr);
    const uint8_t *pg = kh_pages_find(t == KH_TGT_STAGE ? &n->stage : &n->dram, a);
    if (pg) kh_words_from_bytes(out, 4, pg + a % KH_PAGE_BYTES);
    else out[0] = out[1] = out[2] = out[3] = 0;
}

void kh_node_word_write(kh_node *n, kh_target t, uint64_t addr, const uint64_t in[4])
{
    addr &= ~(uint64_t)31;
    uint64_t a = t == KH_TGT_STAGE ? addr & n->stage_bytes_mask : dram_index(n, addr);
    uint8_t *pg = kh_pages_get(t == KH_TGT_STAGE ? &n->stage : &n->dram, a);
    if (pg) kh_words_to_bytes(in, 4, pg + a % KH_PAGE_BYTES);
    else kh_sim_log(n->sim, KH_LOG_ERROR, "mesh %u: out of memory storing the word at 0x%010llx",
                    n->cfg.mesh_id, (unsigned long long)addr);
}

/* The nwords words from addr as one run of bytes in one DRAM page, when
 * they are: every word's index is then the first one's plus 32 per word and
 * none of them warns (dram_index), so a burst needs one page lookup. */
static int dram_run(const kh_node *n, uint64_t addr, unsigned nwords)
{
    uint64_t last = addr + 32 * (uint64_t)(nwords - 1);
    return nwords && addr >> 12 == last >> 12 && !ka_bit38(addr) && ka_mesh(addr) == n->cfg.mesh_id &&
           ka_local(last) <= n->dram_bytes_mask;
}

int kh_node_words_find(kh_node *n, kh_target t, uint64_t addr, unsigned nwords, const uint8_t **bytes)
{
    addr &= ~(uint64_t)31;
    if (t != KH_TGT_DRAM || !dram_run(n, addr, nwords)) return 0;
    const uint8_t *pg = kh_pages_find(&n->dram, ka_local(addr));
    *bytes = pg ? pg + ka_local(addr) % KH_PAGE_BYTES : NULL;
    return 1;
}

int kh_node_words_get(kh_node *n, kh_target t, uint64_t addr, unsigned nwords, uint8_t **bytes)
{
    addr &= ~(uint64_t)31;
    if (t != KH_TGT_DRAM || !dram_run(n, addr, nwords)) return 0;
    uint8_t *pg = kh_pages_get(&n->dram, ka_local(addr));
    if (!pg) return 0; /* out of memory: the word path says so, word by word */
    *bytes = pg + ka_local(addr) % KH_PAGE_BYTES;
    return 1;
}

void kh_node_addr_str(const kh_node *n, uint64_t addr, char *buf, size_t len)
{
    if (!ka_aperture(addr))
        snprintf(buf, len, "0x%010llx (DRAM, mesh field %u, offset 0x%llx)", (unsigned long long)addr,
                 ka_mesh(addr), (unsigned long long)ka_local(addr));
    else if (ka_bit38(addr))
        snprintf(buf, len, "0x%010llx (aperture with reserved bit 38 set)", (unsigned long long)addr);
    else
        snprintf(buf, len, "0x%010llx (aperture %u of mesh %u%s)", (unsigned long long)addr,
                 ka_apidx(addr), ka_mesh(addr),
                 kh_node_target(n, addr) == KH_TGT_STAGE ? ": this staging store"
                 : ka_apidx(addr) ? ": no such aperture"
                 : ka_mesh(addr) != n->cfg.mesh_id ? ": another mesh's staging"
                                                   : ": no staging store built");
}
