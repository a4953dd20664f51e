/* The checksums of the checkpoint file: CRC-32 per section, FNV-1a for the
 * header's hashes of the parameter set and the machine description. */
#include "kohaku/ckpt.h"

uint32_t kh_crc32(uint32_t crc, const void *p, size_t n)
{
    /* bitwise, four bits a step: no table to build or keep (a checkpoint is
     * checksummed once per save or restore; 1 GB/s is plenty) */
    static const uint32_t nib[16] = {0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
                                     0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
                                     0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c};
    const uint8_t *b = p;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= b[i];
        crc = (crc >> 4) ^ nib[crc & 15];
        crc = (crc >> 4) ^ nib[crc & 15];
    }
    return ~crc;
}

uint64_t kh_fnv64(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}
