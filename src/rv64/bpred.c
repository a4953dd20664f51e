/* The branch predictor (docs/rv64.md §12): a 256-entry BTB and a 1024-entry
 * gshare table, both read-first arrays read with the fetch address and
 * answering with the word in D (one or two read stages, advancing with
 * fetch), written one cycle after a resolve; and a 16-entry return-address
 * stack moved in D whose answer is offered the cycle after a return. */
#include "rv64/rv64_int.h"

#define TAG_BITS 11
#define HIST_BITS 8

static unsigned bidx(uint64_t a) { return (unsigned)(a >> 2) & (R6_BTB - 1); }
static unsigned btag(uint64_t a) { return (unsigned)(a >> 10) & ((1u << TAG_BITS) - 1); }
static unsigned pidx(uint64_t a, unsigned h) { return ((unsigned)(a >> 2) & (R6_PHT - 1)) ^ h; }
/* the entry keeps target bits [38:1]: Sv39's address space */
static uint64_t tgt39(uint64_t a) { return a & UINT64_C(0x7FFFFFFFFE); }

void kh_rv6_bp_reset(rv6_bpred *b, unsigned qlat)
{
    /* the arrays and the lookup registers have no reset: the sweep clears them */
    b->qlat = qlat;
    b->r_valid = 0;
    b->init_a = 0;
    b->init_q = b->init_q2 = 1;
    b->ghist = 0;
    b->ras_sp = 0;
    b->ras_v = 0;
    b->ras_tos = 0;
}

void kh_rv6_bp_answer(const rv6_bpred *b, uint64_t d_pc, int *taken, uint64_t *target)
{
    if (b->pq_ret) {
        /* the stack's answer, sampled the cycle a return was in D */
        *taken = b->pq_rv;
        *target = b->pq_tos;
        return;
    }
    int gate = b->qlat == 2 ? (b->init_q || b->init_q2) : b->init_q;
    int hit = !gate && b->bq.v && b->bq.tag == btag(d_pc);
    *taken = hit && ((b->pq >> 1) & 1);
    *target = b->bq.tgt;
}

void kh_rv6_bp_edge(rv6_bpred *b, const rv6_bp_in *in)
{
    int init_busy = b->init_a < R6_SWEEP;
    unsigned h = b->ghist;
    /* reads first: every array is read-first against this edge's write */
    if (in->q_en) {
        rv6_btb rb = b->btb[bidx(in->q_addr)];
        uint8_t rp = b->pht[pidx(in->q_addr, h)];
        if (b->qlat == 2) {
            b->bq = b->b1;
            b->pq = b->p1;
            b->b1 = rb;
            b->p1 = rp;
        } else {
            b->bq = rb;
            b->pq = rp;
        }
    }
    uint8_t old = b->pold;
    b->pold = b->mir[pidx(in->u_pc, h)];

    /* the writes of the resolve registered last cycle (or the sweep) */
    if (init_busy) {
        b->btb[b->init_a & (R6_BTB - 1)] = (rv6_btb){0, 0, 0};
        b->pht[b->init_a & (R6_PHT - 1)] = 1;
        b->mir[b->init_a & (R6_PHT - 1)] = 1;
    } else if (b->r_valid) {
        if (b->r_taken) b->btb[bidx(b->r_pc)] = (rv6_btb){1, (uint16_t)btag(b->r_pc), tgt39(b->r_target)};
        uint8_t n = b->r_jump ? 3 : b->r_taken ? (old == 3 ? 3 : old + 1) : (old == 0 ? 0 : old - 1);
        b->pht[b->r_pi] = b->mir[b->r_pi] = n;
    }

    b->r_valid = in->u_valid;
    b->r_taken = in->u_taken;
    b->r_jump = in->u_jump;
    b->r_cond = in->u_cond;
    b->r_pc = in->u_pc;
    b->r_target = in->u_target;
    b->r_pi = pidx(in->u_pc, h);
    if (in->u_valid && in->u_cond) b->ghist = ((h << 1) | (unsigned)(in->u_taken != 0)) & ((1u << HIST_BITS) - 1);

    int old_q = b->init_q;
    if (init_busy) b->init_a++;
    b->init_q = init_busy;
    b->init_q2 = old_q;

    /* the stack: its sample for next cycle's answer is taken before it moves */
    b->pq_ret = in->p_ret;
    b->pq_tos = b->ras_tos;
    b->pq_rv = b->ras_v;
    if (in->p_call) {
        b->ras[b->ras_sp] = b->ras_tos;
        b->ras_tos = in->p_link;
        b->ras_sp = (b->ras_sp + 1) & (R6_RAS - 1);
        b->ras_v = 1;
    } else if (in->p_ret && b->ras_v) {
        unsigned under = (b->ras_sp - 1) & (R6_RAS - 1);
        b->ras_tos = b->ras[under];
        b->ras_v = b->ras_sp != 1;
        b->ras_sp = under;
    }
}
