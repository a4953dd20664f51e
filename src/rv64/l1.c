/* The node complex's L1 (upstream's rv64_l1; docs/rv64.md §12): 64 lines of
 * 32 bytes, direct mapped, write-back, write-allocate, one miss at a time.
 * Its tag array answers a cycle after the index, so an access is a hit only
 * once the registered read is fresh for its own index; a miss evicts a dirty
 * victim (four words out of the array, then one write beat) before its fill
 * (one read beat, four words in, two cycles for the tag write to land); a
 * flush walks every line, an invalidate clears every tag; reset runs the
 * flush walk and the invalidate, as the array has no reset. */
#include <string.h>

#include "rv64/sys_int.h"

enum {
    L_IDLE, L_EV_RD, L_EV_SEND, L_F_REQ, L_F_WAIT, L_F_WR, L_S_SCAN, L_S_RD,
    L_S_SEND, L_S_DRAIN, L_S_TEST, L_I_SCAN, L_REPROBE, L_REPROBE2,
};

static unsigned idx_of(uint64_t pa) { return (unsigned)(pa >> 5) & (R6_L1_LINES - 1); }
static uint32_t tag_of(uint64_t pa) { return (uint32_t)((pa >> 11) & ((UINT64_C(1) << 29) - 1)); }
static uint64_t line_pa(uint32_t tag, unsigned idx) { return (uint64_t)tag << 11 | (uint64_t)idx << 5; }

void kh_rv6_l1_reset(rv6_l1 *l)
{
    /* the tag and data arrays keep their contents: the sweeps deal with them */
    l->st = L_S_SCAN;
    l->scan = 0;
    l->fill_valid = l->wb_valid = 0;
    l->tag_we = 0;
    l->dw_v = 0;
    l->flush_pend = 0;
    l->inval_pend = 1;
    l->wvalid_d = 0;
}

int kh_rv6_l1_flush_busy(const rv6_l1 *l)
{
    return l->st == L_S_SCAN || l->st == L_S_TEST || l->st == L_S_RD || l->st == L_S_SEND || l->st == L_S_DRAIN ||
           l->st == L_I_SCAN;
}

static int hit(const rv6_l1 *l) { return l->hq_v && l->hit_q; }

int kh_rv6_l1_stall(const rv6_l1 *l, int req) { return l->st != L_IDLE || (req && !hit(l)); }

uint64_t kh_rv6_l1_word(const rv6_l1 *l, uint64_t pa) { return l->data[idx_of(pa)][(pa >> 3) & 3]; }

int kh_rv6_l1_poke(rv6_l1 *l, uint64_t pa, uint64_t v)
{
    unsigned i = idx_of(pa);
    if (!l->tv[i] || l->tt[i] != tag_of(pa)) return 0;
    l->data[i][(pa >> 3) & 3] = v;
    return 1;
}

static void tag_write(rv6_l1 *l, unsigned idx, int v, int dirty, uint32_t tag)
{
    l->tag_we = 1;
    l->tag_wa = idx;
    l->tag_wv = (uint8_t)v;
    l->tag_wd_dirty = (uint8_t)dirty;
    l->tag_wt = tag;
}

/* one step of a walk out of the array: the word read last cycle is taken
 * in at the top of the line buffer; 1 when the fourth has arrived */
static int collect(rv6_l1 *l, int a_valid, uint64_t a_q)
{
    unsigned got = l->got;
    if (a_valid) {
        memmove(l->linebuf, l->linebuf + 1, 3 * sizeof l->linebuf[0]);
        l->linebuf[3] = a_q;
        l->got++;
    }
    if (l->wcnt != 3) l->wcnt++;
    return a_valid && got == 3;
}

void kh_rv6_l1_edge(rv6_l1 *l, const rv6_l1_in *in, int resp_valid, const uint64_t resp[4])
{
    /* every decision below reads the registers as they were this cycle */
    const unsigned idx = idx_of(in->addr);
    const uint32_t tag = tag_of(in->addr);
    const int st = l->st, stall = kh_rv6_l1_stall(l, in->req), h = hit(l);
    const int tag_ok = l->tq_v && l->tq_tag == tag && l->tq_idx == idx;
    const int miss = in->req && l->hq_v && !l->hit_q;
    const int st_dirty = in->req && in->we && h && !stall;
    const int d_eff = l->tq_d || (l->dw_v && l->dw_idx == idx);
    const unsigned scan_idx = l->scan & (R6_L1_LINES - 1);
    const unsigned p_idx = kh_rv6_l1_flush_busy(l) ? scan_idx : (stall && in->req) ? idx : idx_of(in->probe);
    const int a_read = st == L_EV_RD || st == L_S_RD;
    const unsigned a_line = st == L_S_RD ? scan_idx : l->vic;
    const int a_valid = l->wvalid_d, flush_pend = l->flush_pend, inval_pend = l->inval_pend;
    const uint64_t a_q = l->a_q;
    const uint8_t tq_v = l->tq_v, tq_d = l->tq_d;
    const uint32_t tq_tag = l->tq_tag;
    const unsigned tq_idx = l->tq_idx;
    const int wrote_q = l->wrote_q;

    /* the tag array: read-first against the write registered last cycle */
    uint8_t rv = l->tv[p_idx], rd = l->td[p_idx];
    uint32_t rt = l->tt[p_idx];
    if (l->tag_we) {
        l->tv[l->tag_wa] = l->tag_wv;
        l->td[l->tag_wa] = l->tag_wd_dirty;
        l->tt[l->tag_wa] = l->tag_wt;
    }
    l->tq_v = rv;
    l->tq_d = rd;
    l->tq_tag = rt;
    l->tq_idx = p_idx;
    l->hit_q = tag_ok;
    l->hq_v = in->req && st == L_IDLE && tq_idx == idx && !wrote_q;
    l->wrote_q = st_dirty;
    /* port A: a read of the addressed word, held while not walking out */
    if (a_read) l->a_q = l->data[a_line][l->wcnt & 3];
    l->wvalid_d = a_read;
    l->tag_we = 0;
    l->dw_v = st_dirty;
    l->dw_idx = idx;
    if (in->flush) l->flush_pend = 1;
    if (in->inval) l->inval_pend = 1;
    if (st_dirty) { /* port B: the store hit, and its line's dirty bit */
        uint64_t *w = &l->data[idx][(in->addr >> 3) & 3];
        for (unsigned i = 0; i < 8; i++)
            if (in->be >> i & 1) *w = (*w & ~(UINT64_C(0xFF) << (8 * i))) | (in->wdata & (UINT64_C(0xFF) << (8 * i)));
        tag_write(l, idx, 1, 1, tag);
    }

    switch (st) {
    case L_IDLE:
        if (flush_pend || inval_pend) {
            l->scan = 0;
            l->st = inval_pend && !flush_pend ? L_I_SCAN : L_S_SCAN;
        } else if (miss) {
            l->vic = idx;
            l->vic_tag = tq_tag;
            l->wcnt = 0;
            l->got = 0;
            l->st = tq_v && d_eff ? L_EV_RD : L_F_REQ;
        }
        break;
    case L_EV_RD:
        if (collect(l, a_valid, a_q)) {
            l->wb_addr = line_pa(l->vic_tag, l->vic);
            l->wb_valid = 1;
            l->writebacks++;
            l->st = L_EV_SEND;
        }
        break;
    case L_EV_SEND:
        if (in->wb_ready) {
            l->wb_valid = 0;
            l->st = L_F_REQ;
        }
        break;
    case L_F_REQ: {
        int was = l->fill_valid;
        l->fill_addr = in->addr & ~UINT64_C(31);
        l->fill_valid = 1;
        if (was && in->fill_ready) {
            l->fill_valid = 0;
            l->fills++;
            l->st = L_F_WAIT;
        }
        break;
    }
    case L_F_WAIT:
        if (resp_valid) {
            memcpy(l->linebuf, resp, sizeof l->linebuf);
            l->wcnt = 0;
            l->st = L_F_WR;
        }
        break;
    case L_F_WR:
        l->data[l->vic][l->wcnt & 3] = l->linebuf[0];
        {
            uint64_t w0 = l->linebuf[0];
            memmove(l->linebuf, l->linebuf + 1, 3 * sizeof l->linebuf[0]);
            l->linebuf[3] = w0;
        }
        if ((l->wcnt & 3) == 3) {
            tag_write(l, l->vic, 1, 0, tag);
            l->st = L_REPROBE;
        }
        l->wcnt = (l->wcnt + 1) & 3;
        break;
    case L_REPROBE: l->st = L_REPROBE2; break; /* the tag write lands, then reads fresh */
    case L_REPROBE2: l->st = L_IDLE; break;
    case L_S_SCAN: l->st = L_S_TEST; break;
    case L_S_TEST:
        if (l->scan >= R6_L1_LINES) {
            l->st = L_S_DRAIN;
        } else if (tq_v && tq_d) {
            l->vic = scan_idx;
            l->vic_tag = tq_tag;
            l->wcnt = 0;
            l->got = 0;
            l->st = L_S_RD;
        } else {
            l->scan++;
            l->st = L_S_SCAN;
        }
        break;
    case L_S_RD:
        if (collect(l, a_valid, a_q)) {
            l->wb_addr = line_pa(l->vic_tag, l->vic);
            l->wb_valid = 1;
            l->writebacks++;
            l->st = L_S_SEND;
        }
        break;
    case L_S_SEND:
        if (in->wb_ready) {
            l->wb_valid = 0;
            tag_write(l, l->vic, 1, 0, l->vic_tag); /* clean, still valid */
            l->scan++;
            l->st = L_S_SCAN;
        }
        break;
    case L_S_DRAIN:
        if (in->wr_idle) {
            l->flush_pend = 0;
            if (inval_pend) {
                l->scan = 0;
                l->st = L_I_SCAN;
            } else {
                l->st = L_IDLE;
            }
        }
        break;
    case L_I_SCAN:
        tag_write(l, scan_idx, 0, 0, 0);
        l->scan++;
        if (scan_idx == R6_L1_LINES - 1) {
            l->inval_pend = 0;
            l->st = L_IDLE;
        }
        break;
    default: l->st = L_IDLE; break;
    }
}
