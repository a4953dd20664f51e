/* `kohaku replay vector2`: the V2 core in vec_cu, as upstream's core-alone
 * harness runs it (tests/vector/vec_replay_tb.v at 54cc4015 built with
 * VEC_CORE_V2, docs/vector2.md §9), clocked edge by edge with its two
 * neighbours:
 *   - noc_cu_base of profile L (ACK_FENCE = 1): instruction, receive and
 *     completion FIFOs as the Verilator stand-ins the recordings were made
 *     with (first word visible the cycle after its write, capacity depth +
 *     2), the write acks consumed and fencing each completion;
 *   - the testbench: payloads offered at negative edges, one every two
 *     cycles at most and never while busy or while a memory flit waits; a
 *     memory answering a STREAM read's words one every memwait + 1 cycles,
 *     writing bursts and acknowledging them when no read is owed.
 * Elapsed counts from the negative edge before the first offer to the one
 * that sees the last completion, as the bench's $display. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/sim.h"
#include "kohaku/vector2.h"

#include "cu/units/vector2/frame.h"

#define CX 3
#define CY 3
#define MX 1
#define MY 1
#define INST_DEPTH 512 /* the bench's vec_cu INST_DEPTH */
#define RECV_DEPTH 64
#define SIG_DEPTH 16
#define RQ 64
#define CYCLE_LIMIT 50000000u

/* A stand-in FIFO: capacity depth + 2, the head readable the cycle after its write. */
typedef struct sfifo {
    kh_flit *e;
    unsigned cap, rp, count;
} sfifo;

static int sfifo_init(sfifo *f, unsigned depth)
{
    f->cap = depth + 2;
    f->rp = f->count = 0;
    f->e = calloc(f->cap, sizeof *f->e);
    return f->e ? 0 : -1;
}
static const kh_flit *sfifo_head(const sfifo *f) { return &f->e[f->rp]; }
static inline __attribute__((always_inline)) void sfifo_edge(sfifo *f, const kh_flit *push, int pop)
{
    int full = f->count == f->cap;
    if (pop && f->count) {
        if (++f->rp == f->cap) f->rp = 0;
        f->count--;
    }
    if (push && !full) {
        unsigned i = f->rp + f->count;
        f->e[i >= f->cap ? i - f->cap : i] = *push;
        f->count++;
    }
}

typedef struct bench {
    v2_frame fr;
    /* noc_cu_base */
    sfifo inst_q, recv_q;
    struct { uint32_t arg; uint8_t code, id, x, y; } sig[SIG_DEPTH + 2];
    unsigned sig_rp, sig_n;            /* the completion FIFO */
    int in_flight, inst_pop, rep_last;
    unsigned rep_x, rep_y, rep_id;
    int out_valid;
    kh_flit out;
    unsigned wr_out;      /* local MEM_WR_REQs sent and not yet acknowledged */
    int wr_err;           /* an ack said its write was dropped: the next completion faults */
    kh_flit resp_hdr;     /* a read response's header */
    kh_flit ack_flit;     /* the write ack, built once */
    /* the testbench */
    uint64_t *dram;
    struct { uint64_t addr; unsigned tag, cnt; } rq[RQ];
    unsigned rq_head, rq_tail, rq_sub, rq_wait, ack_owed;
    uint64_t wr_addr_l;
    int wr_open;
    unsigned wr_left;
    int mem_valid;
    kh_flit mem_flit;
    unsigned sig_count, faults;
    uint32_t fault_arg;
    unsigned memwait;
} bench;

static unsigned type_of(const kh_flit *f) { return (unsigned)kh_hdr_type(f->w); }

/* One clock period: the testbench's negative-edge process has already set
 * agent (NULL: nothing offered); then every register of the posedge. */
static void posedge(bench *b, const kh_flit *agent)
{
    v2_frame *fr = &b->fr;
    v2_frame_io frame_io;
    if (!agent && !b->mem_valid && !b->out_valid && b->rq_head == b->rq_tail && !b->ack_owed && !b->sig_n &&
        !b->inst_q.count && !b->recv_q.count && !b->inst_pop && !fr->send_valid && !fr->exec_done) {
        /* nothing on the link, owed, queued or sent: the edge below moves no
         * register of the bench or the shell, and the frame sees empty FIFOs */
        v2_frame_io io = {.recv_valid = 0, .recv = sfifo_head(&b->recv_q), .inst_valid = 0,
                          .inst = sfifo_head(&b->inst_q), .send_ready = 1};
        frame_io = io;
        goto frame;
    }
    /* ---- wires ---- */
    int in_busy = b->inst_q.count == b->inst_q.cap || b->recv_q.count == b->recv_q.cap;
    kh_flit in_f;
    const kh_flit *in = NULL;
    if (b->mem_valid || agent) { /* the flit on the link this cycle (the edge below rewrites mem_flit) */
        in_f = b->mem_valid ? b->mem_flit : *agent;
        in = &in_f;
    }
    unsigned in_type = in ? type_of(in) : 0;
    int in_take = in && !in_busy;
    int sig_pend = b->sig_n != 0, sig_full = b->sig_n == SIG_DEPTH + 2;
    int sig_sent = sig_pend && b->wr_out == 0; /* the output register is never held: the bench never stalls */
    int send_ready = !sig_pend;
    int out_take = sig_sent || (fr->send_valid && send_ready);
    int inst_valid = b->inst_q.count && !b->in_flight && !sig_full;
    int recv_valid = b->recv_q.count != 0;
    int recv_pop = recv_valid && fr->recv_ready;
    int inst_take = inst_valid && fr->inst_ready;
    int done = fr->exec_done && b->in_flight;
    /* the heads as they are before this edge: the edge's pop only moves rp,
     * and its push never lands on the old head (it is refused when full) */
    const kh_flit *inst_head = sfifo_head(&b->inst_q), *recv_head = sfifo_head(&b->recv_q);

    /* ---- the testbench's memory, at the edge, from the output register ---- */
    int wd_now = 0;
    unsigned rq_tail = b->rq_tail; /* the response side reads the queue before this edge's request */
    if (!(b->mem_valid && in_busy)) b->mem_valid = 0;
    if (b->out_valid) {
        const kh_flit *o = &b->out;
        switch (type_of(o)) {
        case KH_T_MEM_RD_REQ: {
            unsigned flags = (unsigned)kh_mem_rd_req_flags(o->w), cnt = (unsigned)kh_mem_rd_req_count(o->w);
            b->rq[b->rq_tail % RQ].addr = kh_mem_rd_req_addr(o->w);
            b->rq[b->rq_tail % RQ].tag = (unsigned)kh_hdr_txn(o->w);
            b->rq[b->rq_tail % RQ].cnt = ((flags >> 6) & 1) && cnt ? cnt : 1;
            b->rq_tail++;
            break;
        }
        case KH_T_MEM_WR_REQ:
            b->wr_addr_l = kh_mem_wr_req_addr(o->w);
            b->wr_open = 1;
            b->wr_left = (unsigned)kh_mem_wr_req_len(o->w) + 1;
            break;
        case KH_T_MEM_WR_DATA:
            if (b->wr_open) {
                kh_mem_wr_data_data_get(o->w, &b->dram[((b->wr_addr_l >> 5) & (KH_V2_MEM_WORDS - 1)) * 4]);
                b->wr_addr_l += 32;
                wd_now = b->wr_left == 1;
                b->wr_left--;
                if (b->wr_left == 0) b->wr_open = 0;
            }
            break;
        case KH_T_CU_SIGNAL:
            b->sig_count++;
            if (kh_cu_signal_code(o->w) == 4) {
                b->faults++;
                b->fault_arg = (uint32_t)kh_cu_signal_arg(o->w);
            }
            break;
        default: break;
        }
    }
    int ack_go = b->ack_owed > 0 && b->rq_head == rq_tail && !in_busy;
    if (b->mem_valid && in_busy) {
        /* the held response goes first */
    } else if (b->rq_head != rq_tail) {
        if (b->rq_wait < b->memwait) {
            b->rq_wait++;
        } else {
            unsigned h = b->rq_head % RQ;
            b->rq_wait = 0;
            kh_flit *m = &b->mem_flit;
            *m = b->resp_hdr;
            kh_hdr_set_txn(m->w, (b->rq[h].tag + b->rq_sub) & 255);
            unsigned idx = (unsigned)((b->rq[h].addr >> 5) + b->rq_sub) & (KH_V2_MEM_WORDS - 1);
            kh_mem_rd_resp_set_data(m->w, &b->dram[idx * 4]);
            b->mem_valid = 1;
            if (b->rq_sub + 1 == b->rq[h].cnt) {
                b->rq_head++;
                b->rq_sub = 0;
            } else {
                b->rq_sub = (b->rq_sub + 1) & 255;
            }
        }
    } else if (ack_go) {
        b->mem_flit = b->ack_flit;
        b->mem_valid = 1;
    }
    b->ack_owed = b->ack_owed + (unsigned)wd_now - (unsigned)ack_go;

    /* ---- noc_cu_base ---- */
    kh_flit sig_flit;
    if (sig_sent) {
        unsigned i = b->sig_rp;
        kh_flit_clear(&sig_flit);
        kh_flit_set_hdr(&sig_flit, &(kh_flit_hdr){.dst_x = b->sig[i].x, .dst_y = b->sig[i].y, .src_x = CX, .src_y = CY,
                                                  .type = KH_T_CU_SIGNAL, .txn = b->sig[i].id, .last = 1});
        kh_cu_signal_set_code(sig_flit.w, b->wr_err ? 4 : b->sig[i].code);
        kh_cu_signal_set_arg(sig_flit.w, b->sig[i].arg);
    }
    if (out_take && !sig_sent && type_of(&fr->send_flit) == KH_T_MEM_WR_REQ && !kh_hdr_rsvd_remote(fr->send_flit.w))
        b->wr_out++;
    if (in_take && in_type == KH_T_MEM_WR_ACK) /* ACK_FENCE: the shell consumes the acks */
        b->wr_out--;
    if (in_take && in_type == KH_T_MEM_WR_ACK && kh_mem_wr_ack_drop(in->w)) b->wr_err = 1;
    else if (sig_sent) b->wr_err = 0;
    b->out_valid = out_take;
    if (out_take) b->out = sig_sent ? sig_flit : fr->send_flit;
    if (sig_sent) {
        b->sig_rp = (b->sig_rp + 1) % (SIG_DEPTH + 2);
        b->sig_n--;
    }
    if (done && b->sig_n < SIG_DEPTH + 2) {
        unsigned i = (b->sig_rp + b->sig_n) % (SIG_DEPTH + 2);
        int fault = fr->exec_fault;
        b->sig[i].x = (uint8_t)b->rep_x;
        b->sig[i].y = (uint8_t)b->rep_y;
        b->sig[i].id = (uint8_t)b->rep_id;
        b->sig[i].code = (uint8_t)(fault ? 4 : b->rep_last ? 1 : 0);
        b->sig[i].arg = (!fault && b->rep_last) ? b->rep_id : fr->exec_result;
        b->sig_n++;
    }
    int pop = b->inst_pop;
    b->inst_pop = 0;
    if (inst_take) {
        b->rep_x = (unsigned)kh_hdr_src_x(inst_head->w);
        b->rep_y = (unsigned)kh_hdr_src_y(inst_head->w);
        b->rep_id = (unsigned)kh_hdr_txn(inst_head->w);
        b->rep_last = (int)kh_hdr_last(inst_head->w);
        b->in_flight = 1;
        b->inst_pop = 1;
    }
    if (done) b->in_flight = 0;
    sfifo_edge(&b->inst_q, in_take && in_type == KH_T_CU_INST ? in : NULL, pop);
    sfifo_edge(&b->recv_q,
               in_take && in_type != KH_T_CU_INST && in_type != KH_T_CU_CTRL && in_type != KH_T_MEM_WR_ACK ? in : NULL,
               recv_pop);

    /* ---- vec_cu and the core ---- */
    v2_frame_io io = {.recv_valid = recv_valid, .recv = recv_head, .inst_valid = inst_valid, .inst = inst_head,
                      .send_ready = send_ready};
    frame_io = io;
frame: /* one call of the frame's edge: in b_vector2, its only caller, LTO inlines it */
    kh_v2_frame_cycle(fr, &frame_io);
}

int kh_v2_replay(const uint64_t *prog, size_t n, uint64_t *mem, unsigned memwait, const kh_params *p,
                 kh_v2_replay_result *r, char *err, size_t errlen)
{
    return kh_v2_replay_ref(prog, n, mem, memwait, p, kh_sim_engine_default() == KH_ENGINE_CYCLE, r, err, errlen);
}

int kh_v2_replay_ref(const uint64_t *prog, size_t n, uint64_t *mem, unsigned memwait, const kh_params *p, int ref,
                     kh_v2_replay_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    bench *b = calloc(1, sizeof *b);
    if (!b || sfifo_init(&b->inst_q, INST_DEPTH) || sfifo_init(&b->recv_q, RECV_DEPTH)) {
        if (b) {
            free(b->inst_q.e);
            free(b->recv_q.e);
        }
        free(b);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    v2_cfg cfg;
    kh_v2_cfg_from_params(p, &cfg);
    if (kh_v2_frame_init(&b->fr, &cfg, CX, CY, MX, MY)) {
        snprintf(err, errlen, "bad V2 parameters");
        free(b->inst_q.e);
        free(b->recv_q.e);
        free(b);
        return -1;
    }
    b->fr.core.ref = ref;
    b->dram = mem;
    b->memwait = memwait;
    kh_flit_set_hdr(&b->resp_hdr, &(kh_flit_hdr){.dst_x = CX, .dst_y = CY, .src_x = MX, .src_y = MY,
                                                 .type = KH_T_MEM_RD_RESP, .last = 1});
    kh_flit_set_hdr(&b->ack_flit, &(kh_flit_hdr){.dst_x = CX, .dst_y = CY, .src_x = MX, .src_y = MY,
                                                 .type = KH_T_MEM_WR_ACK, .txn = 0, .last = 1});

    /* the bench's process: offer payload i at a negative edge when neither
     * busy nor a memory flit waits, take it away at the next, and look
     * again one negative edge later */
    size_t next = 0;
    int phase = 0, sent = n == 0; /* phase 0: arming, 1: looking, 2: offered */
    kh_flit agent; /* the header once; each offer rewrites the payload words only */
    kh_flit_clear(&agent);
    kh_flit_set_hdr(&agent, &(kh_flit_hdr){.dst_x = CX, .dst_y = CY, .src_x = 0, .src_y = 0, .type = KH_T_CU_INST,
                                           .txn = 0x20, .last = 1});
    uint64_t t;
    for (t = 0; t < CYCLE_LIMIT; t++) {
        /* negative edge t, t cycles after the one elapsed counts from */
        const kh_flit *offer = NULL;
        if (phase == 2) { /* the offer is taken away; the next call looks at the next edge */
            phase = 1;
            if (next >= n) sent = 1;
        } else if (phase == 0) {
            phase = 1;
        } else if (next < n) {
            int in_busy = b->inst_q.count == b->inst_q.cap || b->recv_q.count == b->recv_q.cap;
            if (!in_busy && !b->mem_valid) {
                memcpy(agent.w, &prog[next * 4], 4 * sizeof(uint64_t));
                next++;
                phase = 2;
                offer = &agent;
            }
        }
        if (sent && b->sig_count >= n) break;
        posedge(b, offer);
    }
    r->timeout = t >= CYCLE_LIMIT;
    /* the bench idles 200 cycles before it writes the memory out */
    for (unsigned i = 0; i < 200; i++) posedge(b, NULL);
    r->payloads = (unsigned)n;
    r->completions = b->sig_count;
    r->faults = b->faults;
    r->fault_arg = b->fault_arg;
    r->elapsed = t;
    r->cycles = t + 200;
    r->c = b->fr.core.pc;
    free(b->inst_q.e);
    free(b->recv_q.e);
    free(b);
    return 0;
}

void kh_v2_replay_print(FILE *out, const kh_v2_replay_result *r)
{
    const kh_v2_counters *c = &r->c;
    fprintf(out, "V2MATH act %llu hazard %llu empty %llu sync %llu\n", (unsigned long long)c->m_act,
            (unsigned long long)c->m_haz, (unsigned long long)c->m_empty, (unsigned long long)c->m_sync);
    fprintf(out, "V2UNPACK act %llu no_room %llu sync %llu wb_blocked %llu\n", (unsigned long long)c->u_act,
            (unsigned long long)c->u_room, (unsigned long long)c->u_sync, (unsigned long long)c->u_wbblk);
    fprintf(out, "V2PACK act %llu no_room %llu raw %llu sync %llu l1_blocked %llu\n", (unsigned long long)c->p_act,
            (unsigned long long)c->p_room, (unsigned long long)c->p_haz, (unsigned long long)c->p_sync,
            (unsigned long long)c->p_l1blk);
    fprintf(out, "V2DMA fill_act %llu drain_act %llu fill_sync %llu drain_sync %llu drain_blocked %llu drain_lost_arb %llu\n",
            (unsigned long long)c->a_act, (unsigned long long)c->a_dact, (unsigned long long)c->a_fsync,
            (unsigned long long)c->a_dsync, (unsigned long long)c->a_drblk, (unsigned long long)c->a_drarb);
    fprintf(out,
            "V2DISPATCH mq_full %llu sb_math %llu uq_full %llu sb_unpack %llu pq_full %llu aq_full %llu seti %llu "
            "fe_wait %llu empty %llu redirects %llu\n",
            (unsigned long long)c->d_mq, (unsigned long long)c->d_sbm, (unsigned long long)c->d_uq,
            (unsigned long long)c->d_sbu, (unsigned long long)c->d_pq, (unsigned long long)c->d_aq,
            (unsigned long long)c->d_seti, (unsigned long long)c->d_fe, (unsigned long long)c->d_idle,
            (unsigned long long)c->redir);
    fprintf(out, "payloads %u completions %u faults %u fault_arg %x elapsed %llu busy %llu beats %llu lanes %llu insns %llu\n",
            r->payloads, r->completions, r->faults, (unsigned)r->fault_arg, (unsigned long long)r->elapsed,
            (unsigned long long)c->busy, (unsigned long long)c->beats, (unsigned long long)c->lanes,
            (unsigned long long)c->insns);
}
