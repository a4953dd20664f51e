/* The node complex's private layout (sys.h): the L1, the node port, the
 * I-cache, the control region and the host side of one rv6_sys. */
#ifndef KH_RV64_SYS_INT_H
#define KH_RV64_SYS_INT_H

#include "rv64/mmu.h"
#include "rv64/rv64_int.h"
#include "rv64/sys.h"

/* ---- the L1 (l1.c): 64 lines of 32 bytes, direct mapped, write-back ---- */

typedef struct rv6_l1 {
    int st;
    /* the tag array (valid, dirty, tag = pa[39:11]) and its registered read */
    uint8_t tv[R6_L1_LINES], td[R6_L1_LINES];
    uint32_t tt[R6_L1_LINES];
    uint8_t tq_v, tq_d;
    uint32_t tq_tag;
    unsigned tq_idx;
    int hq_v, hit_q, wrote_q;
    int tag_we;
    unsigned tag_wa;
    uint8_t tag_wv, tag_wd_dirty;
    uint32_t tag_wt;
    int dw_v;
    unsigned dw_idx;
    uint64_t data[R6_L1_LINES][4];
    unsigned wcnt, got, vic, scan;
    uint32_t vic_tag;
    int wvalid_d;
    uint64_t a_q;                /* port A's registered read */
    uint64_t linebuf[4];
    int flush_pend, inval_pend;
    /* to the node port */
    int fill_valid, wb_valid;
    uint64_t fill_addr, wb_addr; /* byte addresses of the line */
    uint64_t fills, writebacks;  /* statistics */
} rv6_l1;

typedef struct rv6_l1_in {
    int req, we;
    uint8_t be;
    uint64_t addr, wdata, probe;
    int flush, inval, fill_ready, wb_ready, wr_idle;
} rv6_l1_in;

void kh_rv6_l1_reset(rv6_l1 *l);
int kh_rv6_l1_stall(const rv6_l1 *l, int req);
uint64_t kh_rv6_l1_word(const rv6_l1 *l, uint64_t pa);
int kh_rv6_l1_flush_busy(const rv6_l1 *l);
void kh_rv6_l1_edge(rv6_l1 *l, const rv6_l1_in *in, int resp_valid, const uint64_t resp[4]);
int kh_rv6_l1_poke(rv6_l1 *l, uint64_t pa, uint64_t v);

/* ---- the node port (nport.c): one AXI master, one access at a time ---- */

typedef struct rv6_np {
    int st, who;
    unsigned lane;
    rv6_axi_out o;           /* registered AXI outputs */
    int w_ack, u_ack, resp_valid, if_resp_valid;
    uint64_t w_data, u_rdata;
    uint64_t resp_data[4], if_resp_data[4];
} rv6_np;

typedef struct rv6_np_req {
    int w_req;
    uint64_t w_addr;
    int fill_valid;
    uint64_t fill_addr;
    int wb_valid;
    uint64_t wb_addr, wb_data[4];
    int u_req, u_we;
    uint64_t u_addr, u_wdata;
    uint8_t u_be;
    int if_req;
    uint64_t if_addr;
} rv6_np_req;

typedef struct rv6_np_resp {
    int resp_valid, if_resp_valid;
    uint64_t resp_data[4], if_resp_data[4];
} rv6_np_resp;

void kh_rv6_np_reset(rv6_np *n);
void kh_rv6_np_axi(rv6_np *n, const rv6_sys_env *env, rv6_axi_in *in);
int kh_rv6_np_fill_ready(const rv6_np *n, int w_req);
int kh_rv6_np_wb_ready(const rv6_np *n, int w_req, int fill_valid);
int kh_rv6_np_if_ready(const rv6_np *n, const rv6_np_req *r);
int kh_rv6_np_wr_idle(const rv6_np *n);
/* resp: what the L1 and the I-cache see from the next cycle (registered here) */
void kh_rv6_np_edge(rv6_np *n, const rv6_np_req *r, const rv6_axi_in *in, rv6_np_resp *resp);

/* ---- the I-cache (nport.c): 2 fully associative lines over DRAM code ---- */

typedef struct rv6_ic {
    uint8_t v[R6_IC_LINES];
    uint64_t line[R6_IC_LINES];   /* pa >> 5 */
    uint64_t data[R6_IC_LINES][4];
    unsigned rr;
    int st;
    uint64_t miss_line;
    int if_req;
    uint64_t if_addr;             /* byte address */
} rv6_ic;

void kh_rv6_ic_reset(rv6_ic *c);
int kh_rv6_ic_stall(const rv6_ic *c, uint64_t pa, int en);
uint32_t kh_rv6_ic_word(const rv6_ic *c, uint64_t pa);
void kh_rv6_ic_edge(rv6_ic *c, uint64_t pa, int en, int adv, int inval, int if_ready, int resp_valid,
                    const uint64_t resp[4]);

/* ---- the whole complex ---- */

typedef struct rv6_comb {
    kh_rv64_early e;
    rv6_axi_in axi;
    uint64_t fetch_pa;
    uint32_t fetch_word; /* the word the fetch registers load at this edge */
    int fetch_bad, fetch_cached, ic_en;
    rv6_mmu_in mi;
    rv6_mmu_out mo;
    int xlate;
    int mem_first, l1_req, l1_stall, l1_done, unc_act, unc_done, mem_done;
    int commit;
    uint64_t commit_pa, commit_wd;
    uint8_t commit_be;
} rv6_comb;

struct rv6_sys {
    rv6_sys_env env;
    unsigned fetch_lat, my_x, my_y;
    kh_rv64 *core;
    rv6_comb c;
    uint32_t imem[R6_IMEM_WORDS];
    uint64_t spad[R6_SPAD_WORDS];
    rv6_mmu mmu;
    rv6_ifetch ifp;
    rv6_l1 l1;
    rv6_np np;
    rv6_ic ic;
    /* the access handshake */
    int mem_started, sel_spad, sel_ctrl, sel_cache, sel_unc, m_st_q;
    uint64_t m_pa_q, m_wd_q;
    uint8_t m_be_q;
    /* control-region pulses, registered (they act a cycle after the store) */
    int nm_en, mv_en, db_en, rx_pop, xf_en, l1_flush_p, l1_inval_p;
    unsigned nm_addr, mv_addr, db_addr, xf_id, xf_reg;
    uint64_t nm_data, mv_data, db_data, xf_data;
    /* the mailbox */
    unsigned dst_x, dst_y, tx_type;
    int tx_typed, tx_valid;
    uint64_t arg[4];
    unsigned txn;
    kh_flit tx;
    uint64_t cq[R6_CQ];
    unsigned cq_head, cq_n;
    kh_flit rq[R6_RQ];
    unsigned rq_head, rq_n;
    /* stdin */
    uint8_t sin[R6_STDIN];
    unsigned sin_head, sin_n;
    /* the host side */
    int h_wr;
    uint32_t h_addr;
    uint64_t h_data;
    uint8_t h_strb;
    int boot_req, boot_ack, run_en, core_rstn, dbell, exited, halt_l;
    unsigned cause_l;
    uint64_t boot_pc, exit_word, haltpc_l;
    uint64_t cyc_ctr, ret_ctr;
    int retire_now;
};

void kh_rv6_sys_comb(void *ctx, const kh_rv64_early *e, kh_rv64_in *in);
uint32_t kh_rv6_sys_fetch(void *ctx, uint64_t pc, int *fault);
uint64_t kh_rv6_sys_read(void *ctx, uint64_t addr);
void kh_rv6_sys_edge(void *ctx, const kh_rv64_early *e, const kh_rv64_late *l);
void kh_rv6_sys_reset_core_side(rv6_sys *s);

/* sysctrl.c: the control region and the host side */
uint64_t kh_rv6_sys_ctrl_read(const rv6_sys *s, unsigned off);
void kh_rv6_sys_ctrl_edge(rv6_sys *s, int wr, unsigned off, uint64_t data);
void kh_rv6_sys_host_edge(rv6_sys *s, int running, const kh_rv64_status *st);

/* sys_ckpt.c: the whole complex in a checkpoint (docs/checkpoint.md) */
void kh_rv6_sys_ckpt(rv6_sys *s, struct kh_ck *ck);

#endif
