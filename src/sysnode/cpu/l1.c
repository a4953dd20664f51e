/* The processor's L1 (cpu.md §5.2, §9.3): 128 lines of 32 bytes, direct
 * mapped, write-back and write-allocate, blocking, one miss at a time, on
 * the CP requester of the converged path (§5.3). A line is one beat: a fill
 * is a single-beat read, a write-back a single-beat write of the whole line. */
#include <string.h>

#include "kohaku/bits.h"
#include "sysnode/cpu/rv32_int.h"

enum { TAG_FILL = 1, TAG_WB = 2 };

static unsigned line_of(uint32_t a) { return (a >> 5) & (RV_L1_LINES - 1); }
static uint32_t tag_of(uint32_t a) { return (a >> 12) & 0x7FFFF; } /* A[30:12] */

/* S: the segment registers are 0, so the physical address is A[30:0]
 * (§5.1, Open point 2): a DRAM offset of this mesh. */
static uint64_t phys(uint32_t tag, unsigned line) { return ((uint64_t)tag << 12) | ((uint64_t)line << 5); }

int kh_rv_l1_hit(kh_rv32 *r, uint32_t a)
{
    const rv_line *l = &r->l1[line_of(a)];
    return l->valid && l->tag == tag_of(a);
}

void kh_rv_l1_access(kh_rv32 *r, uint32_t a, int store, uint32_t data, unsigned be, uint32_t *word)
{
    rv_line *l = &r->l1[line_of(a)];
    unsigned off = a & 0x1C;
    if (store) {
        for (unsigned i = 0; i < 4; i++)
            if (be >> i & 1) l->b[off + i] = (uint8_t)(data >> (8 * i));
        l->dirty = 1;
    } else {
        *word = (uint32_t)l->b[off] | (uint32_t)l->b[off + 1] << 8 | (uint32_t)l->b[off + 2] << 16 |
                (uint32_t)l->b[off + 3] << 24;
    }
}

unsigned kh_rv_l1_dirty(const kh_rv32 *r)
{
    unsigned k = 0;
    for (unsigned i = 0; i < RV_L1_LINES; i++) k += r->l1[i].valid && r->l1[i].dirty;
    return k;
}

static void write_back(kh_rv32 *r, unsigned i, kh_cycle now)
{
    rv_line *l = &r->l1[i];
    uint64_t d[1][4];
    kh_words_from_bytes(d[0], 4, l->b);
    kh_conv_write(r->rq, phys(l->tag, i), 1, TAG_WB, (const uint64_t(*)[4])d, now); /* all 32 strobes */
    l->dirty = 0;
    r->wrout++;
}

void kh_rv_l1_acks(kh_rv32 *r, kh_cycle now)
{
    uint64_t tag;
    while (kh_conv_b_pop(r->rq, now, &tag))
        if (r->wrout) r->wrout--;
}

/* Miss detected in MEM in cycle m: a dirty victim is read out of the array
 * (8 cycles) and written back, then the line is requested (§5.2). */
void kh_rv_l1_miss_start(kh_rv32 *r, kh_cycle m)
{
    const rv_line *v = &r->l1[line_of(r->wait_addr)];
    if (v->valid && v->dirty) {
        r->fill_phase = 0;
        r->fill_at = m + 9;
    } else {
        r->fill_phase = 1;
        r->fill_at = m + 1; /* offered at m+1, accepted, presented on the path from m+2 */
    }
}

kh_cycle kh_rv_l1_miss_step(kh_rv32 *r, kh_cycle now)
{
    unsigned i = line_of(r->wait_addr);
    kh_rv_l1_acks(r, now);
    if (r->fill_phase == 0) {
        if (now < r->fill_at) return KH_NEVER;
        write_back(r, i, now);
        r->fill_phase = 1;
        r->fill_at = now + 2; /* the write is accepted (AW and W together) before the fill request */
        return KH_NEVER;
    }
    if (r->fill_phase == 1) {
        if (now < r->fill_at) return KH_NEVER;
        kh_conv_read(r->rq, phys(tag_of(r->wait_addr), i), 1, TAG_FILL, 1, now);
        r->fill_phase = 2;
        return KH_NEVER;
    }
    const kh_conv_beat *b = kh_conv_beat_head(r->rq, now);
    if (!b) return KH_NEVER;
    rv_line *l = &r->l1[i];
    kh_words_to_bytes(kh_conv_beat_data(b), 4, l->b);
    l->valid = 1;
    l->dirty = 0;
    l->tag = tag_of(r->wait_addr);
    kh_cycle seen = b->at; /* the L1 sees the beat one cycle after it arrives (skid) */
    kh_conv_beat_pop(r->rq);
    return seen + 9;       /* written over 8 cycles, the access completes after (§9.3) */
}

void kh_rv_l1_sweep_start(kh_rv32 *r, kh_cycle m)
{
    r->sweep_idx = 0;
    r->fill_at = m;
}

/* CTL_FLUSH: two cycles per clean line; a dirty line is read out (8 cycles)
 * and sent; then every write-back must be acknowledged. CTL_INVAL: one cycle
 * per line, dirty data discarded (§5.2). */
kh_cycle kh_rv_l1_flush_step(kh_rv32 *r, kh_cycle now)
{
    if (r->wait == RW_INVAL) {
        memset(r->l1, 0, sizeof r->l1);
        return r->fill_at + RV_L1_LINES;
    }
    kh_rv_l1_acks(r, now);
    while (r->sweep_idx < RV_L1_LINES) {
        const rv_line *l = &r->l1[r->sweep_idx];
        if (!(l->valid && l->dirty)) {
            r->fill_at += 2;
            r->sweep_idx++;
            continue;
        }
        if (now < r->fill_at + 8) return KH_NEVER;
        write_back(r, r->sweep_idx, now);
        r->fill_at = now + 2;
        r->sweep_idx++;
    }
    if (r->wrout) return KH_NEVER;
    return now > r->fill_at ? now : r->fill_at;
}
