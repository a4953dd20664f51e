/* Helpers for the vec_cu tests: a unit bench in the recording's environment
 * (parameters.md §2.4), an assembler of inner words through the generated
 * setters, outer IMEM/DESC/RUN instructions, and an independent E8M15
 * encoder for expected values (numerics §8.1: exact values only). */
#ifndef KOHAKU_TESTS_VEC_KIT_H
#define KOHAKU_TESTS_VEC_KIT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kohaku/params.h"
#include "kohaku/unitbench.h"

#include "cu/units/units.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/vector.h"
#include "kohaku/gen/vector_inner.h"
#include "cu/units/vector/vec_unit.h"
#include "support/test.h"

/* ---- inner words (vector.md §4) ---- */

typedef struct vk_alu {
    unsigned op, vd, va, vb, vc, sa, sb, sc, pm, pr;
} vk_alu;

static inline uint32_t vk_word_alu(vk_alu a)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, a.op);
    kh_vinner_set_vd(&w, a.vd);
    kh_vinner_set_va(&w, a.va);
    kh_vinner_set_vb(&w, a.vb);
    kh_vinner_set_vc(&w, a.vc);
    kh_vinner_set_sa(&w, a.sa);
    kh_vinner_set_sb(&w, a.sb);
    kh_vinner_set_sc(&w, a.sc);
    kh_vinner_set_pm(&w, a.pm);
    kh_vinner_set_pr(&w, a.pr);
    return (uint32_t)w;
}

/* VLD / VST / VCVT layout: dt, ad, vd, signed offset */
static inline uint32_t vk_word_ls(unsigned op, unsigned vd, unsigned ad, int off, unsigned dt)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, op);
    kh_vinner_set_vd(&w, vd);
    kh_vinner_set_ad(&w, ad);
    kh_vinner_set_off(&w, (uint64_t)(int64_t)off);
    kh_vinner_set_dt(&w, dt);
    return (uint32_t)w;
}
static inline uint32_t vk_vld(unsigned vd, unsigned ad, int off, unsigned dt)
{
    return vk_word_ls(KH_VINNER_OP_VLD, vd, ad, off, dt);
}
static inline uint32_t vk_vst(unsigned vs, unsigned ad, int off, unsigned dt)
{
    return vk_word_ls(KH_VINNER_OP_VST, vs, ad, off, dt);
}
static inline uint32_t vk_vcvt(unsigned vd, unsigned va, unsigned dt)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VCVT);
    kh_vinner_set_vd(&w, vd);
    kh_vinner_set_va(&w, va);
    kh_vinner_set_dt(&w, dt);
    return (uint32_t)w;
}
static inline uint32_t vk_vfill(unsigned ad, unsigned l1)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VFILL);
    kh_vinner_set_ad(&w, ad);
    kh_vinner_set_start(&w, l1);
    return (uint32_t)w;
}
static inline uint32_t vk_vdrain(unsigned ad, unsigned l1)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VDRAIN);
    kh_vinner_set_ad(&w, ad);
    kh_vinner_set_start(&w, l1);
    return (uint32_t)w;
}
static inline uint32_t vk_vdrain_peer(unsigned ad, unsigned l1, unsigned dx, unsigned dy,
                                      unsigned buf, unsigned sig)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VDRAIN);
    kh_vinner_set_ad(&w, ad);
    kh_vinner_set_start(&w, l1);
    kh_vinner_set_peer(&w, 1);
    kh_vinner_set_dst_x(&w, dx);
    kh_vinner_set_dst_y(&w, dy);
    kh_vinner_set_buf(&w, buf);
    kh_vinner_set_sig(&w, sig);
    return (uint32_t)w;
}
static inline uint32_t vk_op(unsigned op)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, op);
    return (uint32_t)w;
}
static inline uint32_t vk_vbar(void) { return vk_op(KH_VINNER_OP_VBAR); }
static inline uint32_t vk_vhalt(void) { return vk_op(KH_VINNER_OP_VHALT); }
static inline uint32_t vk_vseti(unsigned sd, unsigned to_k3)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VSETI);
    kh_vinner_set_vd(&w, sd);
    kh_vinner_set_sa(&w, to_k3 ? 3 : 0);
    return (uint32_t)w;
}
static inline uint32_t vk_imm(uint32_t v)
{
    uint64_t w = 0;
    kh_vseti_imm_set_imm(&w, v);
    return (uint32_t)w;
}
static inline uint32_t vk_vsetvl(unsigned sa)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VSETVL);
    kh_vinner_set_va(&w, sa);
    return (uint32_t)w;
}
static inline uint32_t vk_vsetmode(unsigned mode)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VSETMODE);
    kh_vinner_set_mode(&w, mode);
    return (uint32_t)w;
}
static inline uint32_t vk_vloop(unsigned sa, unsigned len)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VLOOP);
    kh_vinner_set_va(&w, sa);
    kh_vinner_set_vb(&w, len);
    return (uint32_t)w;
}
static inline uint32_t vk_vred(unsigned kind, unsigned sd, unsigned va, unsigned vb, unsigned pr)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VRED);
    kh_vinner_set_vd(&w, sd);
    kh_vinner_set_va(&w, va);
    kh_vinner_set_vb(&w, vb);
    kh_vinner_set_kind(&w, kind);
    kh_vinner_set_pr(&w, pr);
    return (uint32_t)w;
}
static inline uint32_t vk_vbcast_v(unsigned vd, unsigned sa) /* V[vd][e] = S[sa] */
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VBCAST);
    kh_vinner_set_sa(&w, 1);
    kh_vinner_set_vd(&w, vd);
    kh_vinner_set_va(&w, sa);
    return (uint32_t)w;
}
static inline uint32_t vk_vbcast_s(unsigned sd, unsigned va) /* S[sd] = V[va][0] */
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VBCAST);
    kh_vinner_set_vd(&w, sd);
    kh_vinner_set_va(&w, va);
    return (uint32_t)w;
}
static inline uint32_t vk_vshuf(unsigned vd, unsigned va, unsigned sb)
{
    uint64_t w = 0;
    kh_vinner_set_op(&w, KH_VINNER_OP_VSHUF);
    kh_vinner_set_vd(&w, vd);
    kh_vinner_set_va(&w, va);
    kh_vinner_set_vb(&w, sb);
    return (uint32_t)w;
}

/* ---- a program under construction ---- */

typedef struct vk_prog {
    uint32_t w[512];
    unsigned n;
} vk_prog;

static inline void vk_emit(vk_prog *p, uint32_t w) { p->w[p->n++] = w; }
static inline void vk_seti(vk_prog *p, unsigned sd, uint32_t imm)
{
    vk_emit(p, vk_vseti(sd, 0));
    vk_emit(p, vk_imm(imm));
}

/* ---- the bench ---- */

#define VK_CU_X 2 /* the recording's coordinates (parameters.md §2.4) */
#define VK_CU_Y 1
#define VK_MEM_X 1
#define VK_MEM_Y 1
#define VK_SRC_X 3
#define VK_SRC_Y 3
#define VK_TXN 0x40

static inline kh_ubench *vk_bench_kind(const kh_unit_kind *kind, int compat)
{
    kh_ubench_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.kind = kind;
    cfg.cu_x = VK_CU_X;
    cfg.cu_y = VK_CU_Y;
    cfg.mem_x = VK_MEM_X;
    cfg.mem_y = VK_MEM_Y;
    cfg.src_x = VK_SRC_X;
    cfg.src_y = VK_SRC_Y;
    cfg.rd_lat = 10;
    kh_params_default(&cfg.params);
    char err[200];
    if (kh_params_profile(&cfg.params, "rec-vector", err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "%s", err);
    cfg.params.rtl_compat = (uint64_t)compat;
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    if (!b) kh_test_fail(__FILE__, __LINE__, "bench: %s", err);
    return b;
}
static inline kh_ubench *vk_bench(int compat) { return vk_bench_kind(&kh_unit_vector, compat); }

static inline vec_core *vk_core(kh_ubench *b) { return kh_vec_unit_core(kh_cu_unit(kh_ubench_cu(b))); }

static inline void vk_outer(kh_ubench *b, const kh_flit *f) { kh_ubench_inst(b, f, VK_TXN, 0); }

static inline void vk_imem(kh_ubench *b, unsigned addr, uint32_t word)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_vec_set_op(f.w, KH_VEC_OP_IMEM);
    kh_vec_set_addr(f.w, addr);
    kh_vec_set_word(f.w, word);
    vk_outer(b, &f);
}
static inline void vk_load(kh_ubench *b, unsigned base, const vk_prog *p)
{
    for (unsigned i = 0; i < p->n; i++) vk_imem(b, (base + i) % 512, p->w[i]);
}
static inline void vk_desc_field(kh_ubench *b, unsigned ad, unsigned fld, uint64_t value)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_vec_set_op(f.w, KH_VEC_OP_DESC);
    kh_vec_set_ad(f.w, ad);
    kh_vec_set_fld(f.w, fld);
    kh_vec_set_value(f.w, value);
    vk_outer(b, &f);
}
static inline void vk_desc_base(kh_ubench *b, unsigned ad, uint64_t base) { vk_desc_field(b, ad, 0, base); }
static inline void vk_desc_dim(kh_ubench *b, unsigned ad, unsigned dim, int stride, unsigned bound)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_vec_set_op(f.w, KH_VEC_OP_DESC);
    kh_vec_set_ad(f.w, ad);
    kh_vec_set_fld(f.w, 1 + dim);
    kh_vec_set_stride(f.w, (uint64_t)(int64_t)stride);
    kh_vec_set_bound(f.w, bound);
    vk_outer(b, &f);
}
/* A one-dimensional descriptor: base, stride, bound. */
static inline void vk_desc1(kh_ubench *b, unsigned ad, uint64_t base, int stride, unsigned bound)
{
    vk_desc_base(b, ad, base);
    vk_desc_dim(b, ad, 0, stride, bound);
}
static inline void vk_run(kh_ubench *b, unsigned pc)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_vec_set_op(f.w, KH_VEC_OP_RUN);
    kh_vec_set_addr(f.w, pc);
    vk_outer(b, &f);
}
static inline int vk_go(kh_ubench *b)
{
    char err[600];
    int r = kh_ubench_run(b, 200000, err, sizeof err);
    if (r != 1) kh_test_fail(__FILE__, __LINE__, "bench run: %d %s", r, r < 0 ? err : "limit");
    return r == 1;
}

/* The n-th completion (CU_SIGNAL with code 0, 1 or 4) the unit sent. */
typedef struct vk_comp {
    unsigned code, txn, last;
    uint32_t arg;
} vk_comp;
static inline int vk_completion(kh_ubench *b, unsigned n, vk_comp *c)
{
    c->code = 99; /* none */
    c->arg = c->txn = c->last = 0;
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_flit *f = &kh_ubench_out(b, i)->f;
        if (kh_hdr_type(f->w) != KH_T_CU_SIGNAL) continue;
        unsigned code = (unsigned)kh_cu_signal_code(f->w);
        if (code != 0 && code != 1 && code != 4) continue;
        if (n--) continue;
        c->code = code;
        c->arg = (uint32_t)kh_cu_signal_arg(f->w);
        c->txn = (unsigned)kh_hdr_txn(f->w);
        c->last = (unsigned)kh_hdr_last(f->w);
        return 1;
    }
    return 0;
}
static inline unsigned vk_ncompletions(kh_ubench *b)
{
    vk_comp c;
    unsigned n = 0;
    while (vk_completion(b, n, &c)) n++;
    return n;
}
/* The last completion (the RUN, in most tests). */
static inline vk_comp vk_last(kh_ubench *b)
{
    vk_comp c = {99, 0, 0, 0};
    unsigned n = vk_ncompletions(b);
    if (n) vk_completion(b, n - 1, &c);
    return c;
}

/* ---- CU_DATA bursts into the unit (flits.md §4.7) ---- */

static inline kh_flit vk_cudata_desc(unsigned buf, unsigned off, unsigned len, unsigned sx, unsigned sy)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, VK_CU_X);
    kh_hdr_set_dst_y(f.w, VK_CU_Y);
    kh_hdr_set_src_x(f.w, sx);
    kh_hdr_set_src_y(f.w, sy);
    kh_hdr_set_type(f.w, KH_T_CU_DATA);
    kh_cu_data_set_buf_id(f.w, buf);
    kh_cu_data_set_offset(f.w, off);
    kh_cu_data_set_len(f.w, len);
    return f;
}
static inline kh_flit vk_cudata_word(unsigned sx, unsigned sy, uint64_t v, int last)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, VK_CU_X);
    kh_hdr_set_dst_y(f.w, VK_CU_Y);
    kh_hdr_set_src_x(f.w, sx);
    kh_hdr_set_src_y(f.w, sy);
    kh_hdr_set_type(f.w, KH_T_CU_DATA);
    kh_hdr_set_last(f.w, last ? 1 : 0);
    f.w[0] = v;
    return f;
}

/* ---- memory images ---- */

static inline void vk_mem_f32(kh_ubench *b, uint64_t addr, const uint32_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t by[4] = {(uint8_t)v[i], (uint8_t)(v[i] >> 8), (uint8_t)(v[i] >> 16), (uint8_t)(v[i] >> 24)};
        kh_ubench_mem_write(b, addr + 4 * i, by, 4);
    }
}
static inline void vk_mem_f16(kh_ubench *b, uint64_t addr, const uint16_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        uint8_t by[2] = {(uint8_t)v[i], (uint8_t)(v[i] >> 8)};
        kh_ubench_mem_write(b, addr + 2 * i, by, 2);
    }
}
static inline uint32_t vk_rd_f32(kh_ubench *b, uint64_t addr)
{
    uint8_t by[4];
    kh_ubench_mem_read(b, addr, by, 4);
    return (uint32_t)by[0] | (uint32_t)by[1] << 8 | (uint32_t)by[2] << 16 | (uint32_t)by[3] << 24;
}
static inline uint16_t vk_rd_f16(kh_ubench *b, uint64_t addr)
{
    uint8_t by[2];
    kh_ubench_mem_read(b, addr, by, 2);
    return (uint16_t)(by[0] | by[1] << 8);
}

/* ---- independent numbers: E8M15 from an exactly representable double ---- */

/* numerics §8.1: sign, 8-bit exponent (bias 127), 15-bit fraction. Fails
 * the test if x is not exactly representable (so expectations stay exact). */
static inline uint32_t vk_e8(double x)
{
    if (x == 0) return signbit(x) ? 0x800000u : 0;
    if (isinf(x)) return x < 0 ? 0xFF8000u : 0x7F8000u;
    uint32_t s = x < 0 ? 1u : 0u;
    double m = fabs(x);
    int e;
    double fr = frexp(m, &e); /* m = fr * 2^e, fr in [0.5, 1) */
    double sig = fr * 2 * 32768; /* 1.f x 2^15 */
    uint32_t isig = (uint32_t)sig;
    if ((double)isig != sig || e - 1 + 127 < 1 || e - 1 + 127 > 254) {
        kh_test_fail(__FILE__, __LINE__, "vk_e8(%g) is not an exact normal E8M15 value", x);
        return 0;
    }
    return s << 23 | (uint32_t)(e - 1 + 127) << 15 | (isig & 0x7FFFu);
}
/* FP32 bits of an E8M15 value (numerics §8.2: {s, E, f, 8'b0}, zero keeps sign) */
static inline uint32_t vk_f32_of_e8(uint32_t v) { return (v & 0x7F8000u) ? v << 8 : (v & 0x800000u) << 8; }

#define VK_A_ADDR 0x10000u
#define VK_B_ADDR 0x20000u
#define VK_C_ADDR 0x30000u
#define VK_D_ADDR 0x38000u
#define VK_O_ADDR 0x40000u

/* ---- a kernel with four FP32 vector inputs and one FP32 vector output ---- */

/* Inputs (E8M15) for v0..v3, the body, and the register to store. */
typedef struct vk_io {
    uint32_t in[4][128];
    vk_prog body;
    unsigned out_reg;
    int compat;
    uint32_t out[128]; /* E8M15 read back (FP32 >> 8) */
    vk_comp done;
    int keep;          /* leave the bench in b for the caller to inspect and free */
    kh_ubench *b;
} vk_io;

/* VFILL the four inputs (FP32, 16 words each), VBAR, VLD dt 2 into v0..v3,
 * body, VST dt 2 of out_reg, VDRAIN, VHALT. */
static inline void vk_run_io(vk_io *k)
{
    kh_ubench *b = vk_bench(k->compat);
    static const uint64_t base[4] = {VK_A_ADDR, VK_B_ADDR, VK_C_ADDR, VK_D_ADDR};
    for (int r = 0; r < 4; r++) {
        uint32_t f32[128];
        for (int e = 0; e < 128; e++) f32[e] = vk_f32_of_e8(k->in[r][e]);
        vk_mem_f32(b, base[r], f32, 128);
        vk_desc1(b, (unsigned)r, base[r], 32, 16);
    }
    vk_desc1(b, 5, 0, 1, 512);       /* L1 word index walk */
    vk_desc1(b, 6, VK_O_ADDR, 32, 16);  /* output */
    vk_prog p = {.n = 0};
    for (unsigned r = 0; r < 4; r++) vk_emit(&p, vk_vfill(r, 16 * r));
    vk_emit(&p, vk_vbar());
    for (unsigned r = 0; r < 4; r++) vk_emit(&p, vk_vld(r, 5, (int)(16 * r), 2));
    for (unsigned i = 0; i < k->body.n; i++) vk_emit(&p, k->body.w[i]);
    vk_emit(&p, vk_vst(k->out_reg, 5, 64, 2));
    vk_emit(&p, vk_vdrain(6, 64));
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    k->done = vk_last(b);
    for (int e = 0; e < 128; e++) k->out[e] = vk_rd_f32(b, VK_O_ADDR + 4 * (uint64_t)e) >> 8;
    k->b = k->keep ? b : NULL;
    if (!k->keep) kh_ubench_free(b);
}

#endif
