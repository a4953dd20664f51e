/* The V2 vector core (docs/vector2.md), private: its registers, queues and
 * engines, modelled edge by edge as upstream's v2_core has them. Every
 * register below is one of the RTL's; a cycle is computed in two phases,
 * the wires from the registers (v2_wires), then every register's next value
 * from the wires and the old registers, so the order of the engines inside
 * a cycle never matters.
 *
 *   core.c     the cycle: wires, then the edge, for every engine in turn
 *   fe.c       the front end: fetch, decode, faults, dispatch, scalar state
 *   math.c     the math queue and engine, the scoreboard
 *   lanes.c    register file, operand network, ALUs, write ports, predicates
 *   walk.c     unpack and pack engines, the GT4 block
 *   mxq.c      VPACK MX7
 *   dma.c      fill and drain engines, the two AGU walkers
 *   frame.c    vec_cu around the core: the outer ISA and its flits
 *
 * The lanes, formats, FMA and transcendentals are v1's (src/num, kh_valu):
 * only control lives here. */
#ifndef KOHAKU_V2_H
#define KOHAKU_V2_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/vector2.h"
#include "kohaku/vnum.h"

#define V2_NREG 32
#define V2_CHUNKS 8
#define V2_LANES 16
#define V2_VLMAX 128
#define V2_L1 512         /* L1_DEPTH, two banks of 256 */
#define V2_LAW 9          /* L1 word address bits */
#define V2_IMEM_MAX 1024
#define V2_QMAX 16        /* largest QD */
#define V2_AQD 4          /* FQ and DQ depth */
#define V2_UFD 8          /* unpack and pack output FIFO depth */
#define V2_FTD 16         /* fill completion FIFO depth */
#define V2_MD 16          /* lanes metadata stages (ALU latency 15 + 1) */
#define V2_AW_MASK ((UINT64_C(1) << 40) - 1)

enum { V2_SRC_V = 0, V2_SRC_S = 1, V2_SRC_K = 3 };
enum { V2_MD_F16 = 0, V2_MD_GT4 = 1, V2_MD_F32 = 2, V2_MD_MX7 = 3 };
enum { V2_W_FE = 0, V2_W_U, V2_W_M, V2_W_P, V2_W_A, V2_W_MK, V2_W_D };
enum { V2_K_F = 0, V2_K_U, V2_K_M, V2_K_P, V2_K_D, V2_K_U1, V2_K_P1, V2_NK };
enum { V2_XM_NONE = 0, V2_XM_XOR, V2_XM_ROT, V2_XM_BC, V2_XM_MRG };
enum {
    V2_O_EXP2D = 0x12, V2_O_VCFG, V2_O_VUNPK, V2_O_VPACK, V2_O_VSYNC, V2_O_VSKIPZ, V2_O_VSETVL,
    V2_O_VSETI = 0x1A, V2_O_VLOOP, V2_O_VBAR, V2_O_VFILL, V2_O_VDRAIN, V2_O_VHALT
};
/* Fault codes (docs/vector2.md §8). */
enum {
    V2_F_OPCODE = 4, V2_F_LEN = 5, V2_F_LOOP = 6, V2_F_VL = 7, V2_F_CUDATA = 9, V2_F_GT4 = 10,
    V2_F_SRC = 11, V2_F_MODE = 12, V2_F_SYNC = 13
};
/* The fill/drain engines' states. */
enum { V2_E_IDLE, V2_E_AGW, V2_E_W1, V2_E_W2, V2_E_W3, V2_E_MEM0, V2_E_RUN };

/* Build parameters (params_vector2.def). */
typedef struct v2_cfg {
    unsigned dualq;      /* second unpack and pack queue */
    unsigned imem_depth; /* 512 or 1024 */
    unsigned qd;         /* MQ, UQ, PQ depth, a power of two */
    unsigned has_expd;   /* EXP2D */
    unsigned tau;        /* EXP2D's sticky threshold, 2^TAU */
    unsigned l1_ultra;   /* L1 in UltraRAM: one more read register */
    unsigned has_mx;     /* VPACK mode 3 */
} v2_cfg;

/* One instruction word, decoded once when it enters `ir` (fe.c): every
 * field view of isa/vector2.isa an opcode may read. */
typedef struct v2_dec {
    uint32_t w;
    uint8_t op, vd, va, vb, vc, sa, sb, sc, om;
    uint8_t sel;
    uint32_t pay;
    uint8_t mode, n, cb, rel, q;
    uint16_t off;
    uint8_t wt, on, slack, mk, mid, sq, sreg, tok, vsreg;
    uint16_t body;
    uint8_t skip;
    uint8_t frel, ad;
} v2_dec;
void kh_v2_decode(uint32_t w, v2_dec *d);

/* ---- queue entries ---- */
typedef struct v2_mq_ent {
    uint8_t aop, vd, va, vb, vc, sa, sb, sc, nb, tl, cmp, expd, wr;
    uint8_t s_a, s_b, s_c, s_uw, s_pr; /* dispatched counts read at dispatch */
    uint16_t chk, xb;
    uint32_t ka, kb, kc;
    uint8_t on;                        /* sync entry (aop 31): kind and target */
    uint16_t tgt;
} v2_mq_ent;

typedef struct v2_wq_ent {             /* unpack or pack */
    uint8_t sync, reg, mode, n, cb;
    uint16_t addr, s0, s1;
    uint8_t s_w, s_uw, s_mr, s_pr;
    uint8_t on;
    uint16_t tgt;
} v2_wq_ent;

typedef struct v2_aq_ent {             /* fill or drain */
    uint8_t sync, on;
    uint16_t tgt;
    uint64_t off;
    uint32_t ir;
} v2_aq_ent;

#define V2_FIFO(T, D) struct { T e[D]; unsigned rp, count; }
typedef V2_FIFO(v2_mq_ent, V2_QMAX) v2_mq;
typedef V2_FIFO(v2_wq_ent, V2_QMAX) v2_wq;
typedef V2_FIFO(v2_aq_ent, V2_AQD) v2_aq;

/* ---- the lanes (lanes.c) ---- */
typedef struct v2_beat {               /* the meta of one beat, through the pipe */
    uint8_t v, last, wr, cmp, expd, xc, op, xm, xk, sa, sb, sc, pr, pm, kc_on;
    uint8_t ra, rb, rc, wa;            /* {vreg, chunk} */
    uint16_t tm, swap;
    uint32_t ka, kb, kc;
} v2_beat;

typedef struct v2_meta {               /* v2_lanes' meta line, one per stage */
    uint8_t v, last, wr, cmp, expd, pr, pm, wa;
    uint16_t pk, tm;
    uint16_t pred, ovf;                /* the ALU's compare and overflow bits */
    kh_e8 out[V2_LANES];               /* the ALU's result for this beat */
} v2_meta;

typedef struct v2_lanes {
    kh_e8 rf[V2_NREG][V2_CHUNKS][V2_LANES];
    uint64_t preg[4][2];
    uint16_t sticky;
    v2_beat iss, q1, q2;               /* issue register, s1, s2 */
    kh_e8 q1_a[V2_LANES], q1_b[V2_LANES], q1_c[V2_LANES]; /* rf_q a, b, c */
    kh_e8 s2_p[V2_LANES], s2_z[V2_LANES], s2_c[V2_LANES];
    int alu_iv;
    v2_meta meta[V2_MD];               /* meta[k - 1] = stage k */
    unsigned mhead;                    /* ring index of stage 1 */
    unsigned nmeta;                    /* valid stages */
    /* write ports, one per bank (chunk parity) */
    uint16_t bw_we[2];
    uint8_t bw_wa[2], use_u[2];
    kh_e8 uw_q[V2_LANES];
    /* pack read port: rf_q d (pk_ra read), then pk_rd */
    uint8_t pk_ra;
    kh_e8 pk_q[V2_LANES], pk_rd[V2_LANES];
    kh_e8 pk_next[V2_LANES];           /* this edge's read, before the pack engine moves it in */
} v2_lanes;

/* ---- the GT4 block (walk.c) ---- */
typedef struct v2_gt4 {
    uint64_t r[8][4];                  /* input words, newest at hd: tap k = r[(hd - k + 1) & 7] */
    unsigned hd;
    uint8_t tv[4], tg[4], tp[4];       /* [1..3] */
    uint32_t tt[4];
    unsigned ph;
    int out_valid;
    uint64_t out_data[4];
    uint32_t out_tag;
} v2_gt4;

/* ---- the MX7 quantiser (mxq.c): the stages' timing, the entry as data ---- */
typedef struct v2_mxq {
    int a_v, b_v, pk_v, n_v, q1_v, q2_last, e_act, out_v;
    uint8_t a_ch, b_ch, q1_ch, e_w, c_bl, c_eq;
    uint16_t c_base, c_s0;
    uint64_t in[32];                   /* pass 1's eight FP16 words */
    uint64_t words[16];                /* the entry: word w at words[4w..4w+3] */
    uint64_t out_word[4];
    uint16_t out_addr;
    uint8_t out_eq, out_last;
} v2_mxq;

/* ---- an AGU walker (dma.c) ---- */
typedef struct v2_walker {
    uint16_t cb0, cb1m, cb2m, cb3, lft, r1, r2, r3;
    int32_t cs0, cs1, cs2, cs3;
    uint64_t a, b1, d2, d3, q12;
    int64_t p1, p2;
    uint32_t t01, t23, total;
    uint16_t s01, s23;
    int busy, c32;
    unsigned settle;                   /* edges the pipeline still moves after a start */
} v2_walker;

/* ---- counters the RTL prints at the end (v2_core's measurement block) ---- */
typedef kh_v2_counters v2_counters;

/* ---- the core's ports (v2_core's, as vec_cu drives them) ---- */
typedef struct v2_in {
    int ld_en, ld_kind;
    unsigned ld_addr;                  /* 9 bits */
    uint64_t ld_data;                  /* 40 bits; IMEM: bit 32 is the address's bit 9 */
    int start;
    unsigned start_pc;
    int rd_req_ready;
    int rr_valid;
    unsigned rr_tag;
    const uint64_t *rr_data;
    int cd_valid;
    unsigned cd_addr;
    const uint64_t *cd_data;
    int cd_fault;
    int wr_req_ready;
} v2_in;

typedef struct v2_core {
    v2_cfg cfg;
    unsigned pcw_mask;                 /* IMEM_DEPTH - 1 */
    /* The per-cycle reference (engine cycle): every engine is stepped at
     * every edge (but for the edges both engines cut short because they
     * move nothing: the AGU, queue and scoreboard returns). Otherwise an engine at rest is skipped and takes only the
     * register moves its edge makes (docs/vector2.md §9), so the state is
     * the same. A run choice, not state: not in a checkpoint. */
    int ref;

    /* outputs (registers) */
    int busy, halted, fault;
    unsigned fault_code;
    uint32_t cycles;
    int rd_req_valid;
    uint64_t rd_req_addr;
    unsigned rd_req_tag, rd_req_cnt;
    int wr_req_valid, wr_req_first;
    uint64_t wr_req_addr;
    uint64_t wr_req_data[4];
    unsigned wr_req_cnt;
    int nd_valid, nd_sig;
    unsigned nd_x, nd_y, nd_buf, nd_off, nd_len, nd_ack, nd_mesh, nd_fin;

    /* memories */
    uint32_t imem[V2_IMEM_MAX];
    uint32_t im_q;                     /* IMEM read register */
    uint64_t l1[V2_L1][4];
    unsigned l1_ra[2];
    uint64_t l1_q1[2][4], l1_q[2][4];  /* RAM output (and UltraRAM's extra register) */
    int l1_we[2];
    unsigned l1_wa[2];
    uint64_t l1_wd[2][4];

    /* front end */
    int srst, run, f_v, d_v, d_old, sl_ok_q, sl_vl_q, sl_skip_q, stk_clr, cd_err;
    unsigned still;                    /* idle edges with no input in a row (kh_v2_core_cycle) */
    int still_idle;                    /* not state: the last edge was a still one (core.c); a restore clears it */
    unsigned f_pc, d_pc;
    v2_dec ir;
    uint32_t sreg[16], kreg[4];
    unsigned vl;
    unsigned lp_top, lp_end, lp_act;
    uint32_t lp_cnt;
    uint16_t c_chk, c_xb;
    unsigned c_uptr, c_uinc, c_pptr, c_pinc;
    unsigned c_us0, c_us1, c_ps0, c_ps1;
    uint64_t a_off[8];
    int32_t a_inc[8];
    uint16_t n_disp[V2_NK + 1], n_done[V2_NK + 1]; /* kind 7 counts nothing and reads 0 (it faults F_SYNC) */
    uint8_t mk_on[8], n_out[8], mk_cnt[8];
    uint16_t mk_tgt[8];

    /* scoreboard */
    uint8_t Wd[V2_NREG], Wc[V2_NREG], UWd[V2_NREG], UWc[V2_NREG];
    uint8_t MRd[V2_NREG], MRc[V2_NREG], PRd[V2_NREG], PRc[V2_NREG];
    uint8_t pP[4];

    /* queues */
    v2_mq mq;
    v2_wq uq[2], pq[2];
    v2_aq fq, dq;

    /* math */
    int m_act;
    v2_mq_ent m_e;
    unsigned m_i;
    /* ln.iss is the idle engine's beat of m_e, m_i (math.c); not state.
     * Whatever else writes ln.iss, m_e or m_i (a restore does) clears it. */
    int m_rest;
    /* m_tpl holds the fields of m_e's beats that do not move from beat to
     * beat; built when m_e is taken (math.c), not state: m_tpl_ok is
     * cleared by whatever else writes m_e (a restore), and the beat is then
     * built from m_e as the reference does. */
    v2_beat m_tpl;
    int m_tpl_ok;
    v2_lanes ln;

    /* Not state: resting edges of the unpack and pack engines in a row
     * (walk.c). A resting edge only shifts tag registers whose inputs hold
     * while the engine rests, so past a few in a row it changes nothing
     * and is skipped; and a resting edge leaves the engine idle, so while
     * one is nonzero the idle test need not be made again. Every other
     * edge and a restore clear them. */
    unsigned u_still, p_still;

    /* unpack */
    int u_act, u_eq;
    v2_wq_ent u_e;
    unsigned u_w, u_ra, u_gb, u_occ;
    uint32_t u_tag1, u_tag2;
    int u_v1, u_v2, u_bk1, u_bk2;
    v2_gt4 ugt;
    kh_e8 u_hold[8];
    int uf_push;
    uint8_t uf_din_wa, uf_din_qb, uf_din_last;
    kh_e8 uf_din[V2_LANES];
    struct { uint8_t wa, qb, last; kh_e8 d[V2_LANES]; } uf[V2_UFD];
    unsigned uf_rp, uf_count;

    /* pack */
    int p_act, p_eq;
    v2_wq_ent p_e;
    unsigned p_w, p_wa, p_gb, p_occ, p_base;
    uint32_t p_tag1, p_tag2, p_tag3, p_tag4;
    uint8_t m_tag1, m_tag2, m_tag3, m_tag4;
    int p_v1, p_v2, p_v3, p_v4;
    uint64_t p_cv[4];
    v2_gt4 pgt;
    v2_mxq mx;
    struct { uint16_t addr; uint8_t qb, last; uint64_t d[4]; } pf[V2_UFD];
    unsigned pf_rp, pf_count;

    /* DMA */
    v2_walker wk[2];
    uint64_t ag_base[8];
    int32_t ag_strd[8][4];
    uint16_t ag_bnd[8][4];
    unsigned ag_start;
    int f_st, d_st;
    unsigned f_sel, d_sel;
    uint64_t f_off, dd_off;
    unsigned f_l1, dd_l1, f_left, d_left;
    int c_v;
    uint64_t c_addr;
    unsigned c_n, c_l1;
    uint16_t fill_out;
    unsigned dr_ptr, dr_left, dr_v, wb_left, dr_bk1, dr_bk2;
    int run_v;
    uint64_t run_addr, run_next;
    unsigned run_tag, run_cnt;
    unsigned fl_cap_q;
    int fl_fresh;
    int a_fault;
    unsigned a_fcode;
    uint16_t ft[V2_FTD];
    unsigned ft_rp, ft_count;
    uint16_t ft_landed;

    v2_counters pc;
} v2_core;

/* ---- the wires of one cycle (core.c fills them in order) ---- */
/* A wire is valid only under the signals that gate its use: on the fast
 * engine a skipped engine leaves some at 0 (fe.c's redir_pc, lp_back,
 * lp_exit; dma.c's fl_n, run_sum) where the reference computes a value no
 * one reads. A new reader (a counter, a dump) must read them gated too. */
typedef struct v2_wires {
    const v2_in *in;
    /* lanes */
    uint8_t mw_bank_next;              /* bit b: math writes bank b next cycle */
    int wb_last, wb_wr, wb_cmp;
    unsigned wb_vreg, wb_pr;
    int pipe_empty;
    /* math */
    int mq_pop, m_take, m_end, h_haz, h_sync;
    /* unpack */
    int u_rd, u_endw, u_take, u_sel, uh_sync, u0_go, u1_go, uf_pop, u_room, u_chunk_iss;
    int uq0_pop, uq1_pop;
    int u_rest;                        /* the unpack engine at rest (walk.c): its edge only shifts tags */
    /* pack */
    int p_rd, p_endw, p_take, p_sel, ph_sync, p_haz, p0_go, p1_go, pf_pop, p_room, mx_busy;
    int pq0_pop, pq1_pop;
    int p_rest;                        /* the pack engine at rest (walk.c) */
    /* DMA */
    int dr_land, dr_room, dr_take, dr_blk, dr_want, dr_gnt, dr_bend;
    unsigned dr_blen;
    int c_take, c_load, run_ext, fill_emit, f_take, d_take, fq_pop, dq_pop;
    int a_done_dr, a_done_fl, ft_pop, ft_push;
    unsigned fl_cap, fl_n;
    unsigned run_sum;
    int dma_quiet;                     /* neither DMA engine has anything (dma.c) */
    /* done, this cycle, per kind */
    unsigned k_done;                   /* bit K_* */
    int u_retire, p_retire;
    int all_idle;
    /* front end */
    unsigned fe_fault;
    int fe_ok, redirect, adv, lp_back, lp_exit, d_q;
    unsigned im_addr, redir_pc;
    int sticky_any, stk_clr;           /* the lanes' sticky bits and their clear, before the edge */
    int ok_next, vl_bad, skip_z;       /* the front end's slow conditions, into sl_*_q */
    int a_fault;                       /* the DMA fault register, before the edge */
    unsigned a_fcode;
} v2_wires;

/* What the front end dispatches this cycle (fe.c, read before the edge). */
typedef struct v2_dispatch {
    int mq_push, uq_push, pq_push, fq_push, dq_push;
    v2_mq_ent mq;
    v2_wq_ent wq;
    v2_aq_ent aq;
    unsigned k_disp;                   /* bit K_*: dispatched this cycle */
    int disp_m, disp_m_wr, disp_u, disp_p, uses_a, uses_b, uses_c;
    int mark;                          /* VSYNC W_MK records mark ir.mid */
    uint8_t mark_on, mark_cnt;
    uint16_t mark_tgt;
} v2_dispatch;

/* ---- core.c ---- */
int kh_v2_core_init(v2_core *c, const v2_cfg *cfg);  /* power-on zeros, then reset */
void kh_v2_core_reset(v2_core *c);                    /* rst for one edge */
void kh_v2_core_cycle(v2_core *c, const v2_in *in);   /* one clock: wires, then the edge */
int kh_v2_core_idle(const v2_core *c);                /* all_idle and not running */

/* ---- unit.c ---- */
struct kh_params;
void kh_v2_cfg_from_params(const struct kh_params *p, v2_cfg *cfg);
v2_core *kh_v2_unit_core(void *unit); /* the unit's core, for tests */

/* ---- fe.c ---- */
void kh_v2_fe_wires(v2_core *c, v2_wires *w);
void kh_v2_fe_edge(v2_core *c, const v2_wires *w, int rst);
void kh_v2_fe_reset(v2_core *c);
void kh_v2_fe_entries(const v2_core *c, const v2_wires *w, v2_dispatch *e);
int kh_v2_sync_ok(const v2_core *c, unsigned on, uint16_t tgt);
static inline unsigned v2_q_full(unsigned count, unsigned depth) { return count == depth; }

/* ---- math.c ---- */
void kh_v2_math_wires(v2_core *c, v2_wires *w);
void kh_v2_math_edge(v2_core *c, const v2_wires *w);
void kh_v2_sb_edge(v2_core *c, const v2_wires *w, const v2_dispatch *e); /* scoreboard, marks, kind counts */
static inline int v2_reached(uint8_t cnt, uint8_t snap) { return !(((unsigned)cnt - snap) & 0x20u); }

/* ---- lanes.c ---- */
void kh_v2_lanes_wires(const v2_core *c, v2_wires *w);
/* uw: the unpack write offered this cycle (NULL: none) */
void kh_v2_lanes_edge(v2_core *c, const v2_wires *w, int uw_we, uint8_t uw_wa, const kh_e8 *uw_wd);
kh_e8 kh_v2_alu(unsigned op, kh_e8 a, kh_e8 b, kh_e8 c, unsigned tau, int has_expd, int *pred, int *ovf);

/* ---- walk.c ---- */
void kh_v2_unpack_wires(v2_core *c, v2_wires *w);
void kh_v2_unpack_edge(v2_core *c, const v2_wires *w, int erst);
void kh_v2_pack_wires(v2_core *c, v2_wires *w);
void kh_v2_pack_edge(v2_core *c, const v2_wires *w, int erst);
void kh_v2_gt4_reset(v2_gt4 *g);
void kh_v2_gt4_edge(v2_gt4 *g, int in_valid, int in_gt4, const uint64_t *in_data, uint32_t in_tag);
static inline int kh_v2_gt4_busy(const v2_gt4 *g) { return g->tv[1] | g->tv[2] | g->tv[3]; }

/* ---- mxq.c ---- */
int kh_v2_mxq_busy(const v2_core *c);
void kh_v2_mxq_edge(v2_core *c, int in_v, int erst);

/* ---- dma.c ---- */
void kh_v2_dma_wires(v2_core *c, v2_wires *w);
void kh_v2_dma_edge(v2_core *c, const v2_wires *w, int erst, int rst);
void kh_v2_agu_load(v2_core *c, const v2_in *in); /* a DESC write (ld_kind 1) into the table */
void kh_v2_agu_reset(v2_core *c);

#endif
