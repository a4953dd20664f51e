/* Loads, stores and register moves: VLD, VST, VCVT, VSHUF, VBCAST
 * (vector.md §5.5, §10.1). None of them is predicated (§7); all work on
 * whole chunks. Each waits in EXEC until the lanes are empty (w_pipe). */
#include "kohaku/bits.h"

#include "cu/units/vector/vec.h"

enum { DT_F16 = 1, DT_F32 = 2 }; /* dt field (§4.1) */

/* Element s of a 256-bit L1 word: FP16 at [16s+15:16s], FP32 at [32s+31:32s]
 * (numerics §1, little-endian). */
static uint16_t get16(const uint64_t w[4], unsigned s) { return (uint16_t)kh_bits_get(w, 16 * s, 16); }
static uint32_t get32(const uint64_t w[4], unsigned s) { return (uint32_t)kh_bits_get(w, 32 * s, 32); }
static void put16(uint64_t w[4], unsigned s, uint16_t v) { kh_bits_set(w, 16 * s, 16, v); }
static void put32(uint64_t w[4], unsigned s, uint32_t v) { kh_bits_set(w, 32 * s, 32, v); }

static kh_cycle lanes_empty(const vec_core *c, kh_cycle e) { return c->lanes.idle > e ? c->lanes.idle : e; }

static int dtype_fault(const vec_insn *in, vec_exec *x)
{
    if (in->dt == DT_F16 || in->dt == DT_F32) return 0;
    x->fault = VEC_F_DTYPE;
    x->next = x->e + 1;
    return 1;
}

static unsigned l1_index(const vec_walk *w) { return (unsigned)(kh_vec_walk_addr(w) % VEC_L1); }

int kh_vec_exec_vld(vec_core *c, const vec_insn *in, vec_exec *x)
{
    vec_state *st = &c->st;
    if (dtype_fault(in, x)) return VX_FAULT;
    unsigned nc = vec_nchunk(st->vl);
    vec_walk w;
    kh_vec_walk_init(&w, &st->desc[in->ad], in->off);
    for (unsigned ch = 0; ch < nc; ch++) {
        kh_e8 *dst = &st->v[in->vd][VEC_SLICES * ch];
        if (in->dt == DT_F16) {
            const uint64_t *word = st->l1[l1_index(&w)];
            kh_vec_walk_step(&w);
            for (unsigned s = 0; s < VEC_SLICES; s++) dst[s] = kh_e8_from_f16(get16(word, s));
        } else {
            const uint64_t *w0 = st->l1[l1_index(&w)];
            kh_vec_walk_step(&w);
            const uint64_t *w1 = st->l1[l1_index(&w)];
            kh_vec_walk_step(&w);
            for (unsigned s = 0; s < 8; s++) {
                dst[s] = kh_e8_from_f32(get32(w0, s));
                dst[8 + s] = kh_e8_from_f32(get32(w1, s));
            }
        }
    }
    /* EXEC stall, AGW, then LDA LDW LDQ LDD per word (4 per chunk, 8 for FP32) */
    x->next = lanes_empty(c, x->e) + 2 + (kh_cycle)(in->dt == DT_F16 ? 4 : 8) * nc;
    return VX_NEXT;
}

int kh_vec_exec_vst(vec_core *c, const vec_insn *in, vec_exec *x)
{
    vec_state *st = &c->st;
    if (dtype_fault(in, x)) return VX_FAULT;
    unsigned nc = vec_nchunk(st->vl);
    vec_walk w;
    kh_vec_walk_init(&w, &st->desc[in->ad], in->off);
    for (unsigned ch = 0; ch < nc; ch++) {
        const kh_e8 *src = &st->v[in->vd][VEC_SLICES * ch];
        if (in->dt == DT_F16) {
            uint64_t word[4] = {0};
            for (unsigned s = 0; s < VEC_SLICES; s++) put16(word, s, kh_e8_to_f16(src[s]));
            uint64_t *dst = st->l1[l1_index(&w)];
            for (int k = 0; k < 4; k++) dst[k] = word[k];
            kh_vec_walk_step(&w);
            continue;
        }
        uint64_t lo[4] = {0}, hi[4] = {0};
        for (unsigned s = 0; s < 8; s++) {
            put32(lo, s, kh_e8_to_f32(src[s]));
            put32(hi, s, kh_e8_to_f32(src[8 + s]));
        }
        uint64_t *dst = st->l1[l1_index(&w)];
        if (c->opt.vst32_defect) { /* S-era RTL: both halves to one word, high wins (§5.5) */
            for (int k = 0; k < 4; k++) dst[k] = hi[k];
            kh_vec_walk_step(&w);
            kh_vec_walk_step(&w);
            continue;
        }
        for (int k = 0; k < 4; k++) dst[k] = lo[k];
        kh_vec_walk_step(&w);
        dst = st->l1[l1_index(&w)];
        for (int k = 0; k < 4; k++) dst[k] = hi[k];
        kh_vec_walk_step(&w);
    }
    /* EXEC stall, AGW, STR STW STD per chunk (STD twice for FP32) */
    x->next = lanes_empty(c, x->e) + 2 + (kh_cycle)(in->dt == DT_F16 ? 3 : 4) * nc;
    return VX_NEXT;
}

static kh_e8 f16_round_trip(kh_e8 v) { return kh_e8_from_f16(kh_e8_to_f16(v)); }

int kh_vec_exec_vcvt(vec_core *c, const vec_insn *in, vec_exec *x)
{
    vec_state *st = &c->st;
    if (dtype_fault(in, x)) return VX_FAULT;
    unsigned nc = vec_nchunk(st->vl), n = VEC_SLICES * nc;
    kh_e8 src[VEC_MAXVL], out[VEC_MAXVL];
    for (unsigned e = 0; e < n; e++) src[e] = st->v[in->va][e];
    for (unsigned e = 0; e < n; e++) {
        if (in->dt == DT_F32) {
            out[e] = src[e]; /* dt 2: copy */
        } else if (c->opt.vcvt_skew) { /* older core: one chunk late (§11) */
            kh_e8 v = e < VEC_SLICES ? st->porta[e] : src[e - VEC_SLICES];
            out[e] = f16_round_trip(v);
        } else {
            out[e] = f16_round_trip(src[e]);
        }
    }
    for (unsigned e = 0; e < n; e++) st->v[in->vd][e] = out[e];
    for (unsigned s = 0; s < VEC_SLICES; s++) st->porta[s] = src[VEC_SLICES * (nc - 1) + s];
    x->next = lanes_empty(c, x->e) + 2 + 3 * (kh_cycle)nc;
    return VX_NEXT;
}

int kh_vec_exec_vshuf(vec_core *c, const vec_insn *in, vec_exec *x)
{
    vec_state *st = &c->st;
    unsigned nc = vec_nchunk(st->vl), k = st->s[in->vb] & 0xF; /* raw bits (§5.5) */
    kh_e8 src[VEC_MAXVL];
    for (unsigned e = 0; e < VEC_SLICES * nc; e++) src[e] = st->v[in->va][e];
    for (unsigned ch = 0; ch < nc; ch++)
        for (unsigned s = 0; s < VEC_SLICES; s++)
            st->v[in->vd][VEC_SLICES * ch + s] = src[VEC_SLICES * ch + ((s + k) % VEC_SLICES)];
    for (unsigned s = 0; s < VEC_SLICES; s++) st->porta[s] = src[VEC_SLICES * (nc - 1) + s];
    x->next = lanes_empty(c, x->e) + 2 + 3 * (kh_cycle)nc;
    return VX_NEXT;
}

int kh_vec_exec_vbcast(vec_core *c, const vec_insn *in, vec_exec *x)
{
    vec_state *st = &c->st;
    if (in->sa == VEC_SEL_S) { /* sa = 1: V[vd][e] = S[va], every slot of nc chunks */
        unsigned nc = vec_nchunk(st->vl);
        for (unsigned e = 0; e < VEC_SLICES * nc; e++) st->v[in->vd][e] = st->s[in->va] & 0xFFFFFFu;
        x->next = lanes_empty(c, x->e) + 2 + 3 * (kh_cycle)nc;
        return VX_NEXT;
    }
    for (unsigned s = 0; s < VEC_SLICES; s++) st->porta[s] = st->v[in->va][s];
    st->s[in->vd] = st->v[in->va][0]; /* otherwise S[vd] = V[va][0] */
    x->next = lanes_empty(c, x->e) + 2 + 3;
    return VX_NEXT;
}
