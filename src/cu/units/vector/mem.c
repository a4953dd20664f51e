/* Memory instructions (vector.md §5.7, §8) with the single-word framing of
 * §1.3, fill responses landing in L1, and the small outbound queue between
 * the core and the shell's send port. */
#include <string.h>

#include "cu/units/vector/vec.h"

/* ---- outbound queue ---- */

void kh_vec_outq_push(vec_core *c, const kh_flit *f, kh_cycle ready, int of_job)
{
    vec_outq *q = &c->q;
    unsigned slot = (q->head + q->n) % VEC_OUTQ; /* callers wait for room (job.pending) */
    q->f[slot] = *f;
    q->ready[slot] = ready;
    q->of_job[slot] = (uint8_t)of_job;
    q->n++;
    if (of_job) c->job.pending++;
}

void kh_vec_outq_pump(vec_core *c, kh_cycle now)
{
    vec_outq *q = &c->q;
    if (!q->n || q->ready[q->head] > now) return;
    if (!c->port.send(c->port.ctx, &q->f[q->head], now)) {
        c->q_blocked = 1; /* send_ready low: the shell wakes us */
        return;
    }
    c->q_blocked = 0;
    if (q->of_job[q->head] && c->job.pending) {
        c->job.pending--;
        c->job.acc = now;
    }
    q->head = (q->head + 1) % VEC_OUTQ;
    q->n--;
}

/* ---- VFILL ---- */

/* A new walk; flits of the previous job still queued stay counted in
 * pending, so the first request or word waits for them like any other. */
static vec_job *job_start(vec_core *c, const vec_insn *in, uint32_t total)
{
    vec_job *j = &c->job;
    unsigned pending = j->pending;
    kh_cycle acc = j->acc;
    memset(j, 0, sizeof *j);
    j->pending = pending;
    j->acc = acc;
    kh_vec_walk_init(&j->walk, &c->st.desc[in->ad], 0); /* off = 0; offset = L1 start (§3) */
    j->total = total;
    j->l1 = in->l1;
    return j;
}

/* The walk's states after EXEC: AGW, MEMW1-3, then MEM0 (vector.md §10.1). */
#define VEC_WALK_MEM0 5

/* F_LEN is found where the older RTL checks the walk's length: in S_MEM0,
 * once the AGU has latched the descriptor (vec_core S_AGW, S_MEMW1-3), so
 * the fault state follows MEM0, not EXEC (docs/timing.md "Vector"). */
static int walk_len_fault(vec_core *c, const vec_insn *in, vec_exec *x, uint32_t *total)
{
    *total = kh_vec_desc_total(&c->st.desc[in->ad]);
    if (*total <= VEC_MAX_WALK) return 0;
    x->fault = VEC_F_LEN;
    x->next = x->e + VEC_WALK_MEM0 + 1;
    return 1;
}

int kh_vec_exec_vfill(vec_core *c, const vec_insn *in, vec_exec *x)
{
    uint32_t total;
    if (walk_len_fault(c, in, x, &total)) return VX_FAULT;
    job_start(c, in, total);
    /* S: EXEC waits until the previous fill has fully landed (§5.7) */
    c->phase = VP_WAIT_FILL;
    c->wait_kind = VW_VFILL;
    c->t = x->e;
    return VX_PHASE;
}

/* One read request per word, raised only after the previous was accepted. */
void kh_vec_fill_step(vec_core *c, kh_cycle now)
{
    vec_job *j = &c->job;
    if (j->pending) return;
    if (j->i == j->total) {
        c->phase = VP_FETCH;
        c->t = j->acc + VEC_T_FILL_END;
        return;
    }
    if (j->acc && c->t < j->acc + VEC_T_FILL_GAP) {
        c->t = j->acc + VEC_T_FILL_GAP;
        if (c->t > now) return;
    }
    unsigned idx = (j->l1 + j->i) % VEC_L1;
    unsigned tag = idx & 0xFF; /* txn = L1 index[7:0]; the 9th bit stays here (§1.3) */
    c->tag_hi[tag] = (uint8_t)(idx >> 8);
    kh_flit f;
    kh_vec_flit_rd_req(c, kh_vec_walk_addr(&j->walk), tag, &f);
    kh_vec_walk_step(&j->walk);
    kh_vec_outq_push(c, &f, now + 1, 1);
    j->i++;
    c->fill_out++;
    c->stats.fill_words++;
}

void kh_vec_fill_response(vec_core *c, const kh_flit *f, kh_cycle now)
{
    unsigned tag = kh_vec_flit_txn(f);
    unsigned idx = (unsigned)c->tag_hi[tag] << 8 | tag;
    for (int k = 0; k < 4; k++) c->st.l1[idx][k] = f->w[k];
    if (c->fill_out) {
        c->fill_out--;
        c->fill_landed = now + VEC_T_FILL_LAND;
    } else {
        kh_vec_core_log(c, KH_LOG_WARN, "MEM_RD_RESP txn 0x%02x with no fill outstanding: written to "
                                     "L1 word %u anyway", tag, idx);
    }
}

/* ---- VDRAIN ---- */

int kh_vec_exec_vdrain(vec_core *c, const vec_insn *in, vec_exec *x)
{
    uint32_t total;
    if (walk_len_fault(c, in, x, &total)) return VX_FAULT;
    vec_job *j = job_start(c, in, total);
    j->peer = (int)in->peer;
    kh_cycle mem0 = x->e + VEC_WALK_MEM0;
    if (j->peer) { /* one CU_DATA burst; the base is a record (§8.3) */
        vec_peer_rec r;
        kh_vec_peer_rec_decode(c->st.desc[in->ad].base, &r);
        kh_vec_flit_peer_desc(c, in, &r, total, &j->hdr);
        kh_vec_outq_push(c, &j->hdr, mem0 + 1, 1);
    }
    c->phase = VP_DRAIN;
    c->t = mem0 + 3; /* DRA, DRW, then DRD of word 0 */
    return VX_PHASE;
}

/* c->t is the DRD state of word i: it waits while the previous word is
 * still unaccepted, then hands the word to the port. */
void kh_vec_drain_step(vec_core *c, kh_cycle now)
{
    vec_job *j = &c->job;
    if (j->pending) return;
    if (c->t <= j->acc) {
        c->t = j->acc + 1;
        if (c->t > now) return;
    }
    const uint64_t *word = c->st.l1[(j->l1 + j->i) % VEC_L1];
    kh_flit f;
    if (j->peer) {
        kh_vec_flit_peer_data(&j->hdr, word, j->i + 1 == j->total, &f);
        kh_vec_outq_push(c, &f, c->t + 1, 1);
    } else {
        kh_vec_flit_wr_req(c, kh_vec_walk_addr(&j->walk), &f);
        kh_vec_outq_push(c, &f, c->t + 1, 1);
        kh_vec_flit_wr_data(c, word, &f);
        kh_vec_outq_push(c, &f, c->t + 1, 1);
        kh_vec_walk_step(&j->walk);
    }
    c->stats.drain_words++;
    if (++j->i == j->total) { /* final DRA, then the next fetch */
        c->phase = VP_FETCH;
        c->t += 2;
    } else {
        c->t += 3; /* DRA, DRW, DRD */
    }
}
