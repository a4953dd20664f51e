/* The core's arithmetic, as values (docs/rv64.md §1, §4, §5): the ALU with
 * its W forms, the multiply/divide results, branch conditions, the AMO
 * update and the load and store lane rules. No timing here. */
#include "rv64/rv64_int.h"

static uint64_t sext32(uint64_t v) { return (uint64_t)(int64_t)(int32_t)(uint32_t)v; }

/* arithmetic right shift without relying on the sign of >> */
static uint64_t sra64(uint64_t a, unsigned s)
{
    s &= 63;
    if (!s) return a;
    uint64_t r = a >> s;
    return (a >> 63) ? r | ~(UINT64_MAX >> s) : r;
}

uint64_t kh_rv6_alu(unsigned op, int word32, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (word32) {
        uint32_t a32 = (uint32_t)a;
        unsigned s = (unsigned)b & 31;
        switch (op) {
        case R6_SLL: r = (uint32_t)(a32 << s); break;
        case R6_SRL: r = a32 >> s; break;
        case R6_SRA: r = (uint32_t)sra64(sext32(a32), s); break;
        default: r = kh_rv6_alu(op, 0, a, b); break; /* the same adder, then extended */
        }
        return sext32(r);
    }
    switch (op) {
    case R6_ADD: return a + b;
    case R6_SUB: return a - b;
    case R6_SLL: return a << (b & 63);
    case R6_SRL: return a >> (b & 63);
    case R6_SRA: return sra64(a, (unsigned)b);
    case R6_SLT: return (int64_t)a < (int64_t)b;
    case R6_SLTU: return a < b;
    case R6_XOR: return a ^ b;
    case R6_OR: return a | b;
    case R6_AND: return a & b;
    case R6_PASSB: return b;
    default: return a + b;
    }
}

/* The high 64 bits of a 64x64 product, unsigned. */
static uint64_t mulhu64(uint64_t a, uint64_t b)
{
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

uint64_t kh_rv6_muldiv(unsigned f3, int word32, uint64_t a, uint64_t b)
{
    uint64_t r;
    if (word32) {
        /* DIVW/REMW/MULW sign-extend their operands, DIVUW/REMUW zero-extend */
        int sgn = f3 == 0 || f3 == 4 || f3 == 6;
        a = sgn ? sext32(a) : (uint32_t)a;
        b = sgn ? sext32(b) : (uint32_t)b;
    }
    switch (f3) {
    case 0: r = a * b; break;
    case 1: { /* MULH: the unsigned high half, corrected for each negative operand */
        uint64_t h = mulhu64(a, b);
        if (a >> 63) h -= b;
        if (b >> 63) h -= a;
        r = h;
        break;
    }
    case 2: { /* MULHSU */
        uint64_t h = mulhu64(a, b);
        if (a >> 63) h -= b;
        r = h;
        break;
    }
    case 3: r = mulhu64(a, b); break;
    case 4: /* DIV */
        if (b == 0) r = UINT64_MAX;
        else if (a == UINT64_C(0x8000000000000000) && b == UINT64_MAX) r = a;
        else r = (uint64_t)((int64_t)a / (int64_t)b);
        break;
    case 5: r = b ? a / b : UINT64_MAX; break;
    case 6: /* REM */
        if (b == 0) r = a;
        else if (a == UINT64_C(0x8000000000000000) && b == UINT64_MAX) r = 0;
        else r = (uint64_t)((int64_t)a % (int64_t)b);
        break;
    default: r = b ? a % b : a; break;
    }
    return word32 ? sext32(r) : r;
}

int kh_rv6_branch_taken(unsigned f3, uint64_t a, uint64_t b)
{
    switch (f3) {
    case 0: return a == b;
    case 1: return a != b;
    case 4: return (int64_t)a < (int64_t)b;
    case 5: return (int64_t)a >= (int64_t)b;
    case 6: return a < b;
    default: return a >= b; /* 7, and the illegal 2 and 3 as the RTL's default arm */
    }
}

uint64_t kh_rv6_amo_new(unsigned amo_op, int w, uint64_t loaded, uint64_t src)
{
    if (w) {
        loaded = sext32(loaded);
        src = sext32(src);
    }
    int lt = w ? (int32_t)loaded < (int32_t)src : (int64_t)loaded < (int64_t)src;
    int ltu = w ? (uint32_t)loaded < (uint32_t)src : loaded < src;
    switch (amo_op) {
    case 0x00: return loaded + src;
    case 0x04: return loaded ^ src;
    case 0x0C: return loaded & src;
    case 0x08: return loaded | src;
    case 0x10: return lt ? loaded : src;
    case 0x14: return lt ? src : loaded;
    case 0x18: return ltu ? loaded : src;
    case 0x1C: return ltu ? src : loaded;
    default: return src; /* SWAP, and SC's datum */
    }
}

uint64_t kh_rv6_load_ext(unsigned f3, uint64_t dword, unsigned off)
{
    uint64_t s = dword >> (8 * (off & 7));
    switch (f3) {
    case 0: return (uint64_t)(int64_t)(int8_t)(uint8_t)s;
    case 1: return (uint64_t)(int64_t)(int16_t)(uint16_t)s;
    case 2: return sext32(s);
    case 4: return (uint8_t)s;
    case 5: return (uint16_t)s;
    case 6: return (uint32_t)s;
    default: return s;
    }
}

unsigned kh_rv6_size(unsigned f3) { return 1u << (f3 & 3); }

int kh_rv6_misaligned(unsigned f3, uint64_t addr) { return (addr & (kh_rv6_size(f3) - 1)) != 0; }

uint8_t kh_rv6_strobes(unsigned f3, uint64_t addr)
{
    switch (f3 & 3) {
    case 0: return (uint8_t)(0x01u << (addr & 7));
    case 1: return (uint8_t)(0x03u << (addr & 6));
    case 2: return (uint8_t)(0x0Fu << (addr & 4));
    default: return 0xFF;
    }
}

uint64_t kh_rv6_replicate(unsigned f3, uint64_t v)
{
    switch (f3 & 3) {
    case 0: return (v & 0xFF) * UINT64_C(0x0101010101010101);
    case 1: return (v & 0xFFFF) * UINT64_C(0x0001000100010001);
    case 2: return (v & 0xFFFFFFFF) * UINT64_C(0x0000000100000001);
    default: return v;
    }
}
