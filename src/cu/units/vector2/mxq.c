/* VPACK MX7 (v2_mxq, docs/vector2.md §6): one register to one MXFP7 L1
 * entry of four words. The pack engine reads the eight chunks twice: pass 0
 * finds each lane's peak and scale, pass 1 quantises. The arithmetic is
 * mx_quant's, byte for byte, so the entry is computed with the transform
 * slot's quantiser (kh_quant_entry) on the eight FP16 words of pass 1; the
 * stages below carry the RTL's timing: the busy bit that keeps other modes
 * out, and four words on four cycles after pass 1's last chunk. */
#include <string.h>

#include "kohaku/num.h"

#include "cu/units/vector2/v2.h"

int kh_v2_mxq_busy(const v2_core *c)
{
    const v2_mxq *m = &c->mx;
    int in_v = c->p_v4 && ((c->m_tag4 >> 4) & 1);
    return in_v || m->a_v || m->b_v || m->pk_v || m->n_v || m->q1_v || m->q2_last || m->e_act || m->out_v;
}

void kh_v2_mxq_edge(v2_core *c, int in_v, int erst)
{
    v2_mxq *m = &c->mx;
    unsigned pass = (c->m_tag4 >> 3) & 1, chunk = c->m_tag4 & 7;
    if (!in_v && !erst && !(m->e_act | m->q2_last | m->q1_v | m->a_v | m->b_v | m->pk_v)) {
        /* no entry anywhere: what the edge below does then, in short */
        m->out_v = 0;
        m->n_v = 0;
        m->q1_ch = (uint8_t)chunk;
        m->b_ch = m->a_ch;
        m->a_ch = (uint8_t)chunk;
        return;
    }
    /* emit: a word a cycle, word w at base + w * s0 */
    m->out_v = !erst && m->e_act;
    if (m->e_act) {
        memcpy(m->out_word, &m->words[m->e_w * 4], sizeof m->out_word);
        m->out_addr = (uint16_t)((m->c_base + m->c_s0 * m->e_w) & (V2_L1 - 1));
        m->out_eq = m->c_eq;
        m->out_last = m->e_w == 3;
    }
    if (erst) {
        m->e_act = 0;
        m->e_w = 0;
    } else if (m->q2_last) {
        m->e_act = 1;
        m->e_w = 0;
        kh_quant_entry(m->in, m->c_bl, m->words);
    } else if (m->e_act) {
        if (m->e_w == 3) m->e_act = 0;
        m->e_w = (uint8_t)((m->e_w + 1) & 3);
    }
    /* pass 1: Q1 then Q2; the entry's context with the first chunk */
    m->q2_last = !erst && m->q1_v && m->q1_ch == 7;
    m->q1_v = !erst && in_v && pass;
    m->q1_ch = (uint8_t)chunk;
    if (in_v && pass) {
        memcpy(&m->in[chunk * 4], c->p_cv, 4 * sizeof(uint64_t));
        if (chunk == 0) {
            m->c_bl = c->p_e.cb & 1;
            m->c_eq = (uint8_t)c->p_eq;
            m->c_base = (uint16_t)c->p_base;
            m->c_s0 = c->p_e.s0;
        }
    }
    /* pass 0: the peak stages, for their busy bits */
    m->n_v = !erst && m->pk_v;
    m->pk_v = !erst && m->b_v && (m->b_ch & 1);
    m->b_v = !erst && m->a_v;
    m->b_ch = m->a_ch;
    m->a_v = !erst && in_v && !pass;
    m->a_ch = (uint8_t)chunk;
}
