/* The host maps of the library's host API (param host_map, docs/python.md):
 * a transport concern above the card, which decodes control.md §9.2 only. */
#ifndef KOHAKU_API_HOSTMAP_H
#define KOHAKU_API_HOSTMAP_H

#include <stddef.h>
#include <stdint.h>

/* Upstream's driver without a board file (Card()): the single-mesh cards'
 * windows (control.md §9.2 "for reference"), extended to four meshes as
 * its CONTROL_WINDOWS and MEMORY_WINDOWS are. */
#define KH_NOBOARD_CTRL_BASE UINT64_C(0x400800000) /* node control window of mesh 0 */
#define KH_NOBOARD_CTRL_STRIDE UINT64_C(0x10000)   /* ... of mesh N at BASE + N * STRIDE */
#define KH_NOBOARD_MEM_SHIFT 36                    /* mesh N's DRAM at N << 36 ... */
#define KH_NOBOARD_MEM_SIZE (UINT64_C(1) << 32)    /* ... 4 GiB of it */

/* kohaku's host address (control.md §9.2) of the access of n bytes (n >= 1)
 * at addr in map (KH_HOST_MAP_*) on a machine of meshes meshes: 0 and
 * *out, or -1 with the reason in err (an address the map does not decode,
 * or an access running off its window). */
int kh_hostmap_to_kohaku(unsigned map, unsigned meshes, uint64_t addr, size_t n, uint64_t *out, char *err,
                         size_t errlen);

/* Under kohaku's own map, an unmapped addr that upstream's board-less
 * Card() uses: a hint saying what to do appended to msg, else nothing. */
void kh_hostmap_hint(uint64_t addr, char *msg, size_t len);

#endif
