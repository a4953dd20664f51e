/* Reads at a memory port (memory.md §3, §10): the plain read on the shared
 * FSM, and the streaming engine with its capture registers, emit buffer and
 * destination-major emitter. */
#include <stdio.h>
#include <string.h>

#include "kohaku/addr.h"
#include "kohaku/num.h"
#include "sysnode/fields.h"
#include "sysnode/port/port_int.h"

/* ---- plain read (§3.1) ---- */

int kh_port_plain_start(kh_port *p, const kh_flit *f, kh_cycle now)
{
    if (!f || kf_stream(f) || p->rs_run || p->s.emit_valid || p->rd_popped || now < p->rs_free) return 0;
    /* No aperture drop on the plain path: the full address goes to the
     * converged path (§3.1, §1.1). */
    p->pr_sx = kf_src_x(f);
    p->pr_sy = kf_src_y(f);
    p->pr_txn = kf_txn(f);
    uint64_t w[KH_FLIT_WORDS] = {0}; /* only the header word is set and kept */
    w[KH_FLIT_HDR_WORD] = p->rd_hdr;
    kh_hdr_set_dst_x(w, p->pr_sx);
    kh_hdr_set_dst_y(w, p->pr_sy);
    kh_hdr_set_txn(w, p->pr_txn); /* §3.1 */
    p->pr_hdr[0] = w[KH_FLIT_HDR_WORD];
    kh_hdr_set_last(w, 1); /* the last beat's: the same but for last */
    p->pr_hdr[1] = w[KH_FLIT_HDR_WORD];
    kh_conv_read(p->rq, kf_addr(f), kf_len(f) + 1, TAG_PLAIN, 1, now);
    p->rd_count++;
    p->reads++;
    kh_fifo_pop(&p->rdq, now);
    p->rd_popped = 1;
    p->st = ST_PLAIN;
    return 1;
}

/* The next plain-read beat as a flit, when one is due (one per cycle). */
int kh_port_plain_flit(kh_port *p, kh_flit *f, kh_cycle now)
{
    const kh_conv_beat *b = kh_conv_beat_head(p->rq, now);
    if (p->st != ST_PLAIN || !b || b->tag != TAG_PLAIN) return 0;
    int last = kh_conv_beat_last(b);
    /* the payload words from the beat, the header word from the read's */
    memcpy(f->w, kh_conv_beat_data(b), KH_PAYLOAD_BITS / 8);
    f->w[KH_FLIT_HDR_WORD] = p->pr_hdr[last];
    if (last) {
        p->st = ST_IDLE;
        p->st_free = now + 1;
    }
    kh_conv_beat_pop_head(p->rq, b);
    return 1;
}

/* ---- streaming read (§3.2) ---- */

/* Words read per entry: 8 FP16 words become one 4-word MXFP7 entry. */
static unsigned read_words(const kh_sreq *s) { return s->quant ? 8 : s->ew; }

static void stream_ar(kh_port *p, kh_cycle now)
{
    kh_sreq *s = &p->s;
    uint64_t a = kh_addr_wrap(s->addr + (uint64_t)s->next_ar * read_words(s) * 32);
    kh_conv_read(p->rq, a, read_words(s), TAG_STREAM, 1, now);
    s->next_ar++;
    p->rd_count++; /* one AR per entry (§10) */
}

int kh_port_stream_start(kh_port *p, const kh_flit *f, kh_cycle now)
{
    /* Starts only when it and the emitter are idle and the FSM is not
     * streaming a plain read (§10). */
    if (p->rd_popped || !f || !kf_stream(f) || p->rs_run || p->s.emit_valid || p->st == ST_PLAIN ||
        now < p->rs_free)
        return 0;
    kh_fifo_pop(&p->rdq, now);
    p->rd_popped = 1;
    uint64_t addr = kf_addr(f);
    if (kh_node_port_drops(p->n, addr)) {
        /* Consumed and dropped: no response ever, the requester hangs (§6). */
        char a[96];
        kh_node_addr_str(p->n, addr, a, sizeof a);
        p->n->counts.dropped_reads++;
        kh_dropped_rd *d = &p->dropped[p->ndropped++ % 4];
        d->sx = kf_src_x(f);
        d->sy = kf_src_y(f);
        d->txn = kf_txn(f);
        d->addr = addr;
        d->at = now;
        kh_comp_log(&p->c, KH_LOG_WARN,
                    "streaming read from (%u,%u) txn %u of %s dropped: no response will ever come "
                    "(memory.md §6)", d->sx, d->sy, d->txn, a);
        return 1;
    }
    kh_sreq *s = &p->s;
    memset(s, 0, sizeof *s);
    s->addr = addr;
    s->n = kf_count(f) ? kf_count(f) : 1;
    s->ew = kf_entry_words(f) >= 1 && kf_entry_words(f) <= 4 ? kf_entry_words(f) : 4;
    s->txn = kf_txn(f);
    /* The older agent's read path (read_quant): FP16 in, MXFP7 entries out. */
    uint64_t flags = kh_mem_rd_req_flags(f->w);
    if (kh_sim_params(p->c.sim)->read_quant && (flags & 0x10)) {
        s->quant = 1;
        s->qmode = (flags >> 5) & 1;
        s->ew = 4;
    }
    s->dx[0] = (uint8_t)kf_src_x(f);
    s->dy[0] = (uint8_t)kf_src_y(f);
    s->ndest = 1 + kf_n_peer(f);
    for (unsigned j = 1; j < s->ndest; j++) {
        s->dx[j] = (uint8_t)kf_peer_x(f, j - 1);
        s->dy[j] = (uint8_t)kf_peer_y(f, j - 1);
    }
    p->rs_run = 1;
    p->stream_reads++;
    stream_ar(p, now);
    return 1;
}

/* Capture registers: at most one beat per cycle; the next entry's AR goes
 * out on the last beat; a whole entry moves to the emit buffer when the
 * emitter is free. */
void kh_port_stream_capture(kh_port *p, kh_cycle now)
{
    kh_sreq *s = &p->s;
    /* The hand-over needs the emitter idle since the start of the cycle, and
     * capture resumes the cycle after it (RS_WAIT, then RS_FILL). */
    if (s->cap_full && !s->emit_valid && now >= s->emit_free) {
        if (s->quant) { /* 2048 FP16 bits in address order, 1024 MXFP7 bits out */
            uint64_t in[32], out[16];
            memcpy(in, s->cap, sizeof in);
            kh_quant_entry(in, s->qmode, out);
            memcpy(s->emit, out, sizeof out);
        } else
            memcpy(s->emit, s->cap, sizeof s->emit);
        s->emit_entry = s->cap_entry;
        s->emit_valid = 1;
        s->emit_d = s->emit_w = 0;
        s->cap_full = 0;
        p->progressed = 1;
        return;
    }
    const kh_conv_beat *b = kh_conv_beat_head(p->rq, now);
    if (s->cap_full || !b || b->tag != TAG_STREAM) return;
    memcpy(s->cap[s->cap_beats], kh_conv_beat_data(b), sizeof s->cap[0]);
    kh_conv_beat_pop(p->rq);
    p->progressed = 1;
    if (++s->cap_beats < read_words(s)) return;
    s->cap_full = 1;
    s->cap_entry = s->next_ar - 1;
    s->cap_beats = 0;
    if (s->next_ar < s->n) stream_ar(p, now);
}

/* The emitter: entry i's words to destination 0, then 1, ... (§3.2). */
int kh_port_stream_flit(kh_port *p, kh_flit *f, kh_cycle now)
{
    kh_sreq *s = &p->s;
    if (!p->rs_run || !s->emit_valid) return 0;
    unsigned d = s->emit_d, w = s->emit_w;
    kh_flit_clear(f);
    kh_flit_set_hdr(f, &(kh_flit_hdr){.dst_x = s->dx[d], .dst_y = s->dy[d], .src_x = p->x, .src_y = p->y,
                                      .type = KH_T_MEM_RD_RESP, .txn = (s->txn + s->emit_entry) % 256,
                                      .last = w == s->ew - 1});
    kf_set_word_index(f, w); /* rsvd = {0, w[1:0]} (§3.2) */
    memcpy(f->w, s->emit[w], sizeof s->emit[w]);
    if (++s->emit_w == s->ew) {
        s->emit_w = 0;
        if (++s->emit_d == s->ndest) {
            s->emit_valid = 0;
            s->emit_free = now + 1;
            if (++s->emitted == s->n) {
                p->rs_run = 0;
                p->rs_free = now + 1;
            }
        }
    }
    return 1;
}

int kh_port_read_stuck(kh_port *p, char *buf, size_t len, size_t *used)
{
    int any = 0;
    if (p->st == ST_PLAIN) {
        kh_node_say(buf, len, used,
                    "plain read for (%u,%u) txn %u waits for its data beats (memory.md §3.1)", p->pr_sx,
                    p->pr_sy, p->pr_txn);
        any = 1;
    }
    if (p->rs_run) {
        kh_sreq *s = &p->s;
        kh_node_say(buf, len, used,
                    "streaming read for (%u,%u) txn %u of 0x%010llx has emitted %u of %u entries "
                    "(AR issued for %u) and waits for entry %u (memory.md §3.2)",
                    s->dx[0], s->dy[0], s->txn, (unsigned long long)s->addr, s->emitted, s->n,
                    s->next_ar, s->emitted);
        any = 1;
    }
    for (unsigned i = 0; i < p->ndropped && i < 4; i++) {
        kh_dropped_rd *d = &p->dropped[i];
        char a[96];
        kh_node_addr_str(p->n, d->addr, a, sizeof a);
        kh_node_say(buf, len, used,
                    "streaming read from (%u,%u) txn %u of %s was dropped at cycle %llu and will "
                    "never be answered (memory.md §6: unserved aperture)",
                    d->sx, d->sy, d->txn, a, (unsigned long long)d->at);
        any = 1;
    }
    return any;
}
