/* The converged path component: arbitration, staging claim, DRAM timing. */
#include "sysnode/port/conv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/bufcat.h"
#include "kohaku/ckpt.h"
#include "sysnode/node_int.h"

#define CONV_MAX_CH 8     /* ports (4) + host + mover + interlink + processor */
#define CONV_RD_TRACK 16  /* completion times remembered per requester */

/* A request pushed in cycle p reaches the round-robins at p + 2: the
 * requester's ARVALID/AWVALID is a register (p + 1) and the older RTL's
 * mag_dram_port samples every requester's valid into rd_req_r / wr_req_r
 * before arbitrating (docs/timing.md "Memory port"). */
#define CONV_REQ_LAT 2

typedef struct conv_req {
    uint64_t addr;
    unsigned beats;
    int write;
    int functional;
    uint64_t tag;
    kh_cycle ready;       /* visible to the arbiter from this cycle */
    uint32_t strb;        /* masked single-beat write: byte strobes (bit i = byte i) */
    int masked;
    uint64_t data[KH_CONV_MAX_BEATS][4];
} conv_req;

typedef struct conv_lost {
    unsigned ch;
    int write;
    uint64_t addr;
    kh_cycle at;
} conv_lost;

struct kh_creq {
    kh_creq_answers a;    /* first member: the owner's inline reads (conv.h) */
    kh_conv *cv;
    unsigned ch;
    kh_comp *owner;
    char what[48];
    kh_ring rd, wr;       /* conv_req, pending grant */
    kh_cycle rd_done[CONV_RD_TRACK]; /* last-beat cycles of granted reads */
    unsigned rd_ndone;
    kh_cycle last_beat;   /* same-requester reads return in order */
    kh_cycle last_b;      /* and write responses too (one AXI id) */
    kh_cycle gnt_at;      /* last grant, read or write: mag_dram_port's rd_gnt /
                           * wr_gnt block a re-grant in the next cycle */
    unsigned r_skid;      /* R handshake to the engine seeing the beat */
    unsigned w_lead;      /* AW handshake to the first W beat offered */
    int lost_rd, lost_wr; /* a request reached the DRAM master unanswered: the
                           * ones behind it on that channel wait forever too */
    uint64_t reads, writes, rd_beats, wr_beats; /* granted, for the stats */
};

struct kh_conv {
    kh_comp c;
    kh_node *n;
    kh_creq *rq[CONV_MAX_CH];
    unsigned nch;         /* channel count for the round-robins */
    unsigned rd_ptr, wr_ptr;
    unsigned rd_mask, wr_mask; /* bit ch: channel ch has a read / a write waiting (its ring not empty) */
    kh_cycle r_free, w_free;           /* DRAM data channels (default timing) */
    kh_cycle ram_rd_free, ram_wr_free; /* behavioural AXI RAM (parameters.md §2.5) */
    kh_cycle stage_free;               /* one claimed staging burst at a time (§8) */
    kh_ring lost;                      /* conv_lost */
    uint64_t rd_grants, wr_grants, stage_grants;
    uint64_t stage_busy;               /* cycles the store was claimed (stats) */
    uint64_t dram_rd_beats, dram_wr_beats, stage_rd_beats, stage_wr_beats;
};

/* ---- requester side ---- */

kh_creq *kh_conv_requester(kh_conv *cv, unsigned ch, kh_comp *owner, const char *what)
{
    if (ch >= CONV_MAX_CH) return NULL;
    kh_creq *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->cv = cv;
    r->ch = ch;
    r->w_lead = 1;
    r->gnt_at = KH_NEVER;
    r->owner = owner;
    snprintf(r->what, sizeof r->what, "%s", what);
    kh_ring_init(&r->rd, sizeof(conv_req));
    kh_ring_init(&r->wr, sizeof(conv_req));
    kh_ring_init(&r->a.beats, sizeof(kh_conv_beat));
    kh_ring_init(&r->a.bs, sizeof(kh_conv_b));
    r->a.due = KH_NEVER;
    cv->rq[ch] = r;
    if (ch + 1 > cv->nch) cv->nch = ch + 1; /* the round-robins scan every channel */
    return r;
}

void kh_conv_set_lat(kh_creq *r, unsigned r_skid, unsigned w_lead)
{
    r->r_skid = r_skid;
    r->w_lead = w_lead ? w_lead : 1;
}

/* Queue a request on q, filled in its ring slot: the header fields here,
 * the data rows (only those it carries; the rest are never read) by the
 * caller. The path wakes in the first cycle it can grant it. NULL when out
 * of memory. */
static conv_req *queue_req(kh_creq *r, kh_ring *q, uint64_t addr, unsigned beats, int write, int functional,
                           uint64_t tag, kh_cycle now)
{
    conv_req *rq = kh_ring_push_slot(q);
    if (!rq) return NULL;
    if (write) r->cv->wr_mask |= 1u << r->ch;
    else r->cv->rd_mask |= 1u << r->ch;
    rq->addr = addr;
    rq->beats = beats;
    rq->write = write;
    rq->functional = functional;
    rq->tag = tag;
    rq->ready = now + CONV_REQ_LAT;
    rq->strb = 0;
    rq->masked = 0;
    kh_comp_wake(&r->cv->c, now + CONV_REQ_LAT);
    return rq;
}

int kh_conv_read(kh_creq *r, uint64_t addr, unsigned beats, uint64_t tag, int functional,
                 kh_cycle now)
{
    return queue_req(r, &r->rd, addr, beats, 0, functional, tag, now) ? 0 : -1;
}

int kh_conv_write(kh_creq *r, uint64_t addr, unsigned beats, uint64_t tag,
                  const uint64_t (*data)[4], kh_cycle now)
{
    conv_req *rq = queue_req(r, &r->wr, addr, beats, 1, data != NULL, tag, now);
    if (!rq) return -1;
    if (data) memcpy(rq->data, data, (beats < KH_CONV_MAX_BEATS ? beats : KH_CONV_MAX_BEATS) * sizeof rq->data[0]);
    return 0;
}

int kh_conv_write_strb(kh_creq *r, uint64_t addr, const uint64_t data[4], uint32_t strb, uint64_t tag,
                       kh_cycle now)
{
    conv_req *rq = queue_req(r, &r->wr, addr, 1, 1, 1, tag, now);
    if (!rq) return -1;
    rq->strb = strb;
    rq->masked = strb != 0xFFFFFFFFu;
    memcpy(rq->data[0], data, sizeof rq->data[0]);
    return 0;
}

/* ---- timing ---- */

static unsigned rd_in_flight(const kh_creq *r, kh_cycle now)
{
    unsigned k = 0;
    for (unsigned i = 0; i < r->rd_ndone; i++)
        if (r->rd_done[i] >= now) k++;
    return k;
}

static void rd_track(kh_creq *r, kh_cycle done, kh_cycle now)
{
    unsigned j = 0;
    for (unsigned i = 0; i < r->rd_ndone; i++) /* forget reads that are over */
        if (r->rd_done[i] >= now) r->rd_done[j++] = r->rd_done[i];
    r->rd_ndone = j;
    if (j < CONV_RD_TRACK) r->rd_done[r->rd_ndone++] = done;
}

/* 64-byte memory beats a burst of `beats` 32-byte words from addr covers
 * in the recording's 512-bit AXI RAM (parameters.md §2.5). */
static unsigned ram_beats(uint64_t addr, unsigned beats)
{
    uint64_t w0 = addr >> 5, w1 = w0 + beats - 1;
    return (unsigned)((w1 >> 1) - (w0 >> 1) + 1);
}

/* Timing figures are stated from the requester's AR / AW handshake
 * (memory.md §7, parameters.md §2.5). A request pushed in cycle p is
 * handshaken at p + CONV_REQ_LAT at the earliest: the grant cycle t is the
 * handshake. */
static kh_cycle after(kh_cycle want, kh_cycle t) { return want > t ? want : t + 1; }

/* Cycle of the first read beat at the requester for a DRAM read granted at t. */
static kh_cycle dram_read_first(kh_conv *cv, const conv_req *rq, kh_cycle t)
{
    const kh_params *p = cv->n->p;
    kh_cycle h = t, first;
    if (p->axi_ram_model) {
        /* The RAM's AR 4 cycles after the requester's handshake; one read
         * burst at a time, the next AR the cycle after the last RAM beat;
         * beats reach the requester 4 cycles after the RAM's AR (t + 8
         * from the handshake), one per cycle (parameters.md §2.5). */
        kh_cycle ar = h + 4 > cv->ram_rd_free ? h + 4 : cv->ram_rd_free;
        cv->ram_rd_free = ar + ram_beats(rq->addr, rq->beats) + 1;
        first = after(ar + 4, t);
        /* The RAM's 64-byte beats queue in the DRAM port's R FIFO, which
         * hands out one 32-byte beat per cycle to whichever requester owns
         * it (mag_dram_port u_rq, r_take): a burst waits for the previous
         * one's beats, whoever asked (docs/timing.md "Memory port"). */
        if (first < cv->r_free) first = cv->r_free;
        cv->r_free = first + rq->beats;
    } else {
        first = after(h + p->dram_lat, t); /* accepted AR to first beat */
        if (first < cv->r_free) first = cv->r_free;
        cv->r_free = first + rq->beats; /* one beat per cycle on the read channel */
    }
    return first;
}

/* Cycle the write response reaches the requester for a DRAM write granted at t. */
static kh_cycle dram_write_b(kh_conv *cv, const kh_creq *r, const conv_req *rq, kh_cycle t)
{
    const kh_params *p = cv->n->p;
    kh_cycle h = t;
    if (p->axi_ram_model) {
        /* W beats taken from the handshake + 3, one per cycle; B about 8
         * cycles after the last; one write burst at a time at the RAM
         * (parameters.md §2.5). */
        kh_cycle w0 = h + (r->w_lead > 3 ? r->w_lead : 3);
        kh_cycle first = w0 > cv->ram_wr_free ? w0 : cv->ram_wr_free;
        kh_cycle last = first + rq->beats - 1;
        cv->ram_wr_free = last + 5;
        return after(last + 8, t);
    }
    kh_cycle w0 = h + r->w_lead; /* the requester's first W beat */
    kh_cycle first = w0 > cv->w_free ? w0 : cv->w_free;
    kh_cycle last = first + rq->beats - 1;
    cv->w_free = last + 1;
    return after(last + p->dram_wr_lat, t);
}

static void note_lost(kh_conv *cv, kh_creq *r, const conv_req *rq, kh_cycle t)
{
    conv_lost l = {r->ch, rq->write, rq->addr, t};
    char a[96];
    if (rq->write) r->lost_wr = 1;
    else r->lost_rd = 1;
    cv->n->counts.lost_at_dram++;
    kh_ring_push(&cv->lost, &l);
    kh_node_addr_str(cv->n, rq->addr, a, sizeof a);
    kh_comp_log(&cv->c, KH_LOG_WARN,
                "%s %s of %s reached the DRAM master: never answered (memory.md §1.1, §7)",
                r->what, rq->write ? "write" : "read", a);
}

static void grant_read(kh_conv *cv, kh_creq *r, kh_target tg, kh_cycle t)
{
    /* the popped record stays intact: nothing pushes a read before we return */
    const conv_req *rq = kh_ring_head(&r->rd);
    kh_ring_pop(&r->rd);
    if (!kh_ring_count(&r->rd)) cv->rd_mask &= ~(1u << r->ch);
    cv->rd_grants++;
    r->reads++;
    r->rd_beats += rq->beats;
    if (tg == KH_TGT_LOST) {
        note_lost(cv, r, rq, t);
        rd_track(r, KH_NEVER - 1, t);
        return;
    }
    const kh_params *p = cv->n->p;
    kh_cycle first, step;
    if (tg == KH_TGT_STAGE) {
        /* one word outstanding: a word every stage_rd_lat + 1 cycles (§8) */
        first = t + 1 + p->stage_rd_lat;
        step = p->stage_rd_lat + 1;
        cv->stage_free = first + step * (rq->beats - 1) + 1;
        cv->stage_grants++;
        cv->stage_busy += cv->stage_free - t;
        cv->stage_rd_beats += rq->beats;
    } else {
        first = dram_read_first(cv, rq, t);
        step = 1;
        cv->dram_rd_beats += rq->beats;
    }
    if (first <= r->last_beat) first = r->last_beat + 1;
    uint64_t base = rq->addr & ~(uint64_t)31;
    const uint8_t *run = NULL; /* the burst's bytes in one page (one lookup), or word by word */
    int in_run = rq->functional && kh_node_words_find(cv->n, tg, base, rq->beats, &run);
    kh_cycle at = first + r->r_skid;
    for (unsigned k0 = 0; k0 < rq->beats; k0 += KH_CONV_MAX_BEATS) {
        unsigned n = rq->beats - k0 < KH_CONV_MAX_BEATS ? rq->beats - k0 : KH_CONV_MAX_BEATS;
        int was_empty = !kh_ring_count(&r->a.beats);
        kh_conv_beat *b = kh_ring_push_slot(&r->a.beats);
        if (b) { /* out of memory: these beats are lost, as a failed push lost them */
            b->at = at; /* field by field: a literal would clear the data rows first */
            b->step = step;
            b->tag = rq->tag;
            b->k = 0;
            b->n = n;
            b->ends = k0 + n == rq->beats;
            if (was_empty) kh_conv_answers_due(&r->a); /* a new head */
            /* the data in one go: from the page, word by word, or zeros
             * (timing-only, or a page never written) */
            if (in_run && run)
                kh_words_from_bytes(b->d[0], 4 * (size_t)n, run + 32 * (size_t)k0);
            else if (!in_run && rq->functional)
                for (unsigned k = 0; k < n; k++)
                    kh_node_word_read(cv->n, tg, base + 32 * (uint64_t)(k0 + k), b->d[k]);
            else
                memset(b->d, 0, n * sizeof b->d[0]);
        }
        at += step * n;
    }
    r->last_beat = first + step * (rq->beats - 1);
    rd_track(r, r->last_beat, t);
    kh_comp_wake(r->owner, first + r->r_skid);
}

/* Bytes whose strobe is clear keep what memory holds (AXI WSTRB). */
static void merge_strobes(kh_node *n, kh_target tg, uint64_t addr, uint32_t strb, uint64_t d[4])
{
    uint64_t old[4];
    kh_node_word_read(n, tg, addr, old);
    for (unsigned i = 0; i < 32; i++) {
        if (strb >> i & 1) continue;
        uint64_t m = (uint64_t)0xFF << (8 * (i & 7));
        d[i >> 3] = (d[i >> 3] & ~m) | (old[i >> 3] & m);
    }
}

static void pop_write(kh_conv *cv, kh_creq *r)
{
    kh_ring_pop(&r->wr);
    if (!kh_ring_count(&r->wr)) cv->wr_mask &= ~(1u << r->ch);
}

static void grant_write(kh_conv *cv, kh_creq *r, kh_target tg, kh_cycle t)
{
    conv_req *rq = kh_ring_head(&r->wr);
    cv->wr_grants++;
    r->a.wr_open++;
    r->writes++;
    r->wr_beats += rq->beats;
    if (tg == KH_TGT_LOST) {
        note_lost(cv, r, rq, t);
        pop_write(cv, r);
        return;
    }
    kh_cycle b;
    if (tg == KH_TGT_STAGE) {
        b = t + 1 + rq->beats; /* a word per cycle, then the response (§8) */
        cv->stage_free = b;
        cv->stage_grants++;
        cv->stage_busy += b - t;
        cv->stage_wr_beats += rq->beats;
    } else {
        b = dram_write_b(cv, r, rq, t);
        cv->dram_wr_beats += rq->beats;
    }
    if (rq->functional) {
        uint64_t base = rq->addr & ~(uint64_t)31;
        if (rq->masked) merge_strobes(cv->n, tg, base, rq->strb, rq->data[0]);
        unsigned nw = rq->beats < KH_CONV_MAX_BEATS ? rq->beats : KH_CONV_MAX_BEATS;
        uint8_t *run;
        if (kh_node_words_get(cv->n, tg, base, nw, &run))
            kh_words_to_bytes(rq->data[0], 4 * (size_t)nw, run); /* the data rows are contiguous */
        else
            for (unsigned k = 0; k < nw; k++) kh_node_word_write(cv->n, tg, base + 32 * (uint64_t)k, rq->data[k]);
    }
    if (b <= r->last_b) b = r->last_b + 1;
    r->last_b = b;
    kh_conv_b e = {b, rq->tag};
    int was_empty = !kh_ring_count(&r->a.bs);
    if (!kh_ring_push(&r->a.bs, &e) && was_empty) kh_conv_answers_due(&r->a); /* a new head */
    pop_write(cv, r);
    kh_comp_wake(r->owner, b);
}

static int regrant_blocked(kh_cycle granted_at, kh_cycle t)
{
    return granted_at != KH_NEVER && granted_at + 1 == t;
}

/* A requester's reads and writes reach the DRAM port through one request
 * channel (older RTL mag.v g_req): the write wins when both are offered
 * in the same cycle, and the one offered first holds the channel until it
 * is granted. Does the other kind hold it against this one in cycle t? */
static int channel_held(const kh_creq *r, int write, kh_cycle t)
{
    const conv_req *mine = kh_ring_head(write ? &r->wr : &r->rd);
    const conv_req *other = kh_ring_head(write ? &r->rd : &r->wr);
    if (!other || other->ready > t || (write ? r->lost_rd : r->lost_wr)) return 0;
    return write ? other->ready < mine->ready : other->ready <= mine->ready;
}

/* Can requester r's head request (read or write) be granted in cycle t?
 * Returns its target, or -1 while it must wait. */
static int grantable(kh_conv *cv, kh_creq *r, int write, kh_cycle t, int stage_taken)
{
    kh_ring *q = write ? &r->wr : &r->rd;
    conv_req *rq = kh_ring_head(q);
    if (!rq || rq->ready > t || (write ? r->lost_wr : r->lost_rd)) return -1;
    if (r->gnt_at == t || regrant_blocked(r->gnt_at, t) || channel_held(r, write, t)) return -1;
    if (!write && rd_in_flight(r, t) >= (cv->n->p->dram_rd_out ? cv->n->p->dram_rd_out : 1)) return -1;
    kh_target tg = kh_node_target(cv->n, rq->addr);
    if (tg == KH_TGT_STAGE && (stage_taken || cv->stage_free > t)) return -1;
    return (int)tg;
}

/* The first channel asking (a bit of mask) from ch on, round the channels. */
static unsigned rr_next(unsigned mask, unsigned ch)
{
    unsigned up = mask >> ch; /* channels ch, ch + 1, ... */
    return up ? ch + (unsigned)__builtin_ctz(up) : (unsigned)__builtin_ctz(mask);
}

static void conv_step(kh_comp *c, kh_cycle t)
{
    kh_conv *cv = (kh_conv *)c;
    int stage_taken = 0;
    /* Two independent round-robins; after a grant to g the scan restarts
     * at g + 1 (memory.md §7). One grant each per cycle. */
    /* Only the channels asking are visited, from the pointer round. */
    for (unsigned left = cv->rd_mask, ch = cv->rd_ptr; left; left &= ~(1u << ch)) {
        ch = rr_next(left, ch);
        kh_creq *r = cv->rq[ch];
        int tg = grantable(cv, r, 0, t, 0);
        if (tg < 0) continue;
        if (tg == KH_TGT_STAGE) stage_taken = 1;
        grant_read(cv, r, (kh_target)tg, t);
        r->gnt_at = t;
        cv->rd_ptr = ch + 1 == cv->nch ? 0 : ch + 1;
        break;
    }
    for (unsigned left = cv->wr_mask, ch = cv->wr_ptr; left; left &= ~(1u << ch)) {
        ch = rr_next(left, ch);
        kh_creq *r = cv->rq[ch];
        int tg = grantable(cv, r, 1, t, stage_taken);
        if (tg < 0) continue;
        grant_write(cv, r, (kh_target)tg, t);
        r->gnt_at = t;
        cv->wr_ptr = ch + 1 == cv->nch ? 0 : ch + 1;
        break;
    }
    /* Wake again while anything could be granted later. */
    kh_cycle next = KH_NEVER;
    for (unsigned asking = cv->rd_mask | cv->wr_mask; asking; asking &= asking - 1) {
        kh_creq *r = cv->rq[__builtin_ctz(asking)];
        for (int w = 0; w < 2; w++) {
            conv_req *rq = kh_ring_head(w ? &r->wr : &r->rd);
            if (!rq || (w ? r->lost_wr : r->lost_rd)) continue;
            kh_cycle at = rq->ready > t + 1 ? rq->ready : t + 1;
            /* Held by the other kind: nothing to do before that one is
             * granted, and the step that grants it looks again. */
            if (channel_held(r, w, at)) continue;
            if (regrant_blocked(r->gnt_at, at)) at++;
            if (!w && rd_in_flight(r, t + 1) >= (cv->n->p->dram_rd_out ? cv->n->p->dram_rd_out : 1)) {
                kh_cycle soonest = KH_NEVER;
                for (unsigned k = 0; k < r->rd_ndone; k++)
                    if (r->rd_done[k] >= t + 1 && r->rd_done[k] + 1 < soonest) soonest = r->rd_done[k] + 1;
                if (soonest > at) at = soonest;
            }
            if (kh_node_target(cv->n, rq->addr) == KH_TGT_STAGE && cv->stage_free > at) at = cv->stage_free;
            if (at < next) next = at;
        }
    }
    if (next != KH_NEVER && next < KH_NEVER - 1) kh_comp_wake(c, next);
}

static int conv_stuck(kh_comp *c, char *buf, size_t len)
{
    kh_conv *cv = (kh_conv *)c;
    size_t n = kh_ring_count(&cv->lost), used = 0;
    if (!n) return 0;
    if (len) buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        conv_lost *l = kh_ring_at(&cv->lost, i);
        char a[96];
        kh_node_addr_str(cv->n, l->addr, a, sizeof a);
        if (!kh_bufcat(buf, len, &used,
                       "%s%s %s of %s (cycle %llu) sits at the DRAM master and will never be "
                       "answered: an aperture address the staging store does not claim "
                       "(memory.md §1.1, §7)",
                       i ? "; " : "", cv->rq[l->ch]->what, l->write ? "write" : "read", a,
                       (unsigned long long)l->at))
            break;
    }
    return 1;
}

static void conv_stats(kh_comp *c, char *buf, size_t len)
{
    kh_conv *cv = (kh_conv *)c;
    const kh_node_counts *k = &cv->n->counts;
    size_t used = 0;
    kh_bufcat(buf, len, &used,
             "\"read_grants\": %llu, \"write_grants\": %llu, \"staging_grants\": %llu, "
             "\"lost_at_dram\": %llu, \"agent_drops\": %llu, \"cpu_drops\": %llu, "
             "\"ilink_drops\": %llu, \"unmatched_data\": %llu, \"dropped_reads\": %llu, "
             "\"dropped_writes\": %llu, \"bad_remote_req\": %d",
             (unsigned long long)cv->rd_grants, (unsigned long long)cv->wr_grants,
             (unsigned long long)cv->stage_grants, (unsigned long long)k->lost_at_dram,
             (unsigned long long)k->agent_drops, (unsigned long long)k->cpu_drops,
             (unsigned long long)k->ilink_drops, (unsigned long long)k->unmatched_data,
             (unsigned long long)k->dropped_reads, (unsigned long long)k->dropped_writes, k->bad_remote_req);
    /* bytes and occupancy: a beat is 32 bytes (memory.md §7) */
    kh_bufcat(buf, len, &used,
              ", \"staging_busy_cycles\": %llu, \"dram_read_bytes\": %llu, \"dram_write_bytes\": %llu, "
              "\"staging_read_bytes\": %llu, \"staging_write_bytes\": %llu, \"channels\": [",
              (unsigned long long)cv->stage_busy, 32ull * cv->dram_rd_beats, 32ull * cv->dram_wr_beats,
              32ull * cv->stage_rd_beats, 32ull * cv->stage_wr_beats);
    int first = 1;
    for (unsigned i = 0; i < cv->nch; i++) {
        const kh_creq *r = cv->rq[i];
        if (!r) continue;
        kh_bufcat(buf, len, &used,
                  "%s{\"channel\": %u, \"what\": \"%s\", \"reads\": %llu, \"writes\": %llu, "
                  "\"read_bytes\": %llu, \"write_bytes\": %llu}",
                  first ? "" : ", ", i, r->what, (unsigned long long)r->reads, (unsigned long long)r->writes,
                  32ull * r->rd_beats, 32ull * r->wr_beats);
        first = 0;
    }
    kh_bufcat(buf, len, &used, "]");
}

static void conv_destroy(kh_comp *c)
{
    kh_conv *cv = (kh_conv *)c;
    for (unsigned i = 0; i < CONV_MAX_CH; i++) {
        kh_creq *r = cv->rq[i];
        if (!r) continue;
        kh_ring_free(&r->rd);
        kh_ring_free(&r->wr);
        kh_ring_free(&r->a.beats);
        kh_ring_free(&r->a.bs);
        free(r);
    }
    kh_ring_free(&cv->lost);
    kh_node_free(cv->n);
    free(cv);
}

/* ---- checkpoints (docs/checkpoint.md) ---- */

static void ck_req(kh_ck *ck, void *e)
{
    conv_req *rq = e;
    KH_CK(ck, rq->addr);
    KH_CK(ck, rq->beats);
    KH_CK(ck, rq->write);
    KH_CK(ck, rq->functional);
    KH_CK(ck, rq->tag);
    KH_CK(ck, rq->ready);
    KH_CK(ck, rq->strb);
    KH_CK(ck, rq->masked);
    /* the rows it carries (the rest are never read, nor written) */
    unsigned rows = rq->write && rq->functional ? (rq->beats < KH_CONV_MAX_BEATS ? rq->beats : KH_CONV_MAX_BEATS) : 0;
    KH_CK_ARR(ck, &rq->data[0][0], (size_t)rows * 4);
}

static void ck_beat(kh_ck *ck, void *e)
{
    kh_conv_beat *b = e;
    KH_CK(ck, b->at);
    KH_CK(ck, b->step);
    KH_CK(ck, b->tag);
    KH_CK(ck, b->k);
    KH_CK(ck, b->n);
    KH_CK(ck, b->ends);
    if (b->n > KH_CONV_MAX_BEATS) {
        kh_ck_fail(ck, "%s: a read record of %u beats", kh_ck_where(ck), b->n);
        return;
    }
    KH_CK_ARR(ck, &b->d[0][0], (size_t)b->n * 4);
}

static void ck_b(kh_ck *ck, void *e)
{
    kh_conv_b *b = e;
    KH_CK(ck, b->at);
    KH_CK(ck, b->tag);
}

static void ck_lost(kh_ck *ck, void *e)
{
    conv_lost *l = e;
    KH_CK(ck, l->ch);
    KH_CK(ck, l->write);
    KH_CK(ck, l->addr);
    KH_CK(ck, l->at);
}

static void conv_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_conv *cv = (kh_conv *)c;
    kh_node_ckpt(cv->n, ck);
    kh_ck_same(ck, cv->nch, "converged-path channels");
    for (unsigned i = 0; i < CONV_MAX_CH; i++) {
        kh_creq *r = cv->rq[i];
        kh_ck_same(ck, r != NULL, "a converged-path channel");
        if (!r || kh_ck_failed(ck)) continue;
        kh_ck_ring(ck, &r->a.beats, ck_beat, "read records");
        kh_ck_ring(ck, &r->a.bs, ck_b, "write responses");
        KH_CK(ck, r->a.wr_open);
        KH_CK(ck, r->a.due);
        kh_ck_ring(ck, &r->rd, ck_req, "read requests");
        kh_ck_ring(ck, &r->wr, ck_req, "write requests");
        KH_CK_ARR(ck, r->rd_done, CONV_RD_TRACK);
        KH_CK(ck, r->rd_ndone);
        KH_CK(ck, r->last_beat);
        KH_CK(ck, r->last_b);
        KH_CK(ck, r->gnt_at);
        kh_ck_same(ck, r->r_skid, "a channel's R skid");
        kh_ck_same(ck, r->w_lead, "a channel's W lead");
        KH_CK(ck, r->lost_rd);
        KH_CK(ck, r->lost_wr);
        KH_CK(ck, r->reads);
        KH_CK(ck, r->writes);
        KH_CK(ck, r->rd_beats);
        KH_CK(ck, r->wr_beats);
    }
    KH_CK(ck, cv->rd_ptr);
    KH_CK(ck, cv->wr_ptr);
    KH_CK(ck, cv->rd_mask);
    KH_CK(ck, cv->wr_mask);
    KH_CK(ck, cv->r_free);
    KH_CK(ck, cv->w_free);
    KH_CK(ck, cv->ram_rd_free);
    KH_CK(ck, cv->ram_wr_free);
    KH_CK(ck, cv->stage_free);
    kh_ck_ring(ck, &cv->lost, ck_lost, "lost requests");
    KH_CK(ck, cv->rd_grants);
    KH_CK(ck, cv->wr_grants);
    KH_CK(ck, cv->stage_grants);
    KH_CK(ck, cv->stage_busy);
    KH_CK(ck, cv->dram_rd_beats);
    KH_CK(ck, cv->dram_wr_beats);
    KH_CK(ck, cv->stage_rd_beats);
    KH_CK(ck, cv->stage_wr_beats);
}

static const kh_comp_ops conv_ops = {
    .kind = "mem_path",
    .ckpt = conv_ckpt,
    .step = conv_step,
    .describe_stuck = conv_stuck,
    .stats_json = conv_stats,
    .destroy = conv_destroy,
};

kh_conv *kh_conv_new(kh_node *n, unsigned nch)
{
    kh_conv *cv = calloc(1, sizeof *cv);
    if (!cv) return NULL;
    cv->n = n;
    cv->nch = nch < CONV_MAX_CH ? nch : CONV_MAX_CH;
    kh_ring_init(&cv->lost, sizeof(conv_lost));
    char name[48];
    snprintf(name, sizeof name, "mem_path(mesh %u)", n->cfg.mesh_id);
    kh_sim_add(n->sim, &cv->c, &conv_ops, name);
    return cv;
}


int kh_conv_serves_only(const kh_conv *cv, const kh_comp *owner)
{
    for (unsigned ch = 0; ch < CONV_MAX_CH; ch++) {
        const kh_creq *r = cv->rq[ch];
        if (!r || r->owner == owner) continue;
        if (kh_ring_count(&r->rd) || kh_ring_count(&r->wr) || kh_ring_count(&r->a.beats) ||
            kh_ring_count(&r->a.bs) || r->a.wr_open)
            return 0;
    }
    return 1;
}
