/* The node complex's node port and I-cache (upstream's rv64_nport and
 * rv64_icache; docs/rv64.md §12). The port is one AXI master with one
 * access in flight: the page walk, then the L1's fill, its write-back, an
 * uncached access and the I-cache's fill, in that priority; a read or write
 * of one 32-byte beat, a 64-bit access placed in its lane by addr[4:3] with
 * bit 38 (the uncached alias) cleared. The I-cache is two fully associative
 * lines filled round-robin, its word read with the fetch pipe. */
#include <string.h>

#include "rv64/sys_int.h"

enum { S_IDLE, S_RD, S_WR };
enum { C_WALK, C_FILL, C_WB, C_UNC, C_IFILL };

#define UNALIAS(a) ((a) & ~(UINT64_C(1) << 38) & ~UINT64_C(31))

void kh_rv6_np_reset(rv6_np *n) { memset(n, 0, sizeof *n); }

void kh_rv6_np_axi(rv6_np *n, const rv6_sys_env *env, rv6_axi_in *in)
{
    memset(in, 0, sizeof *in);
    if (env->axi) env->axi(env->ctx, &n->o, in);
}

int kh_rv6_np_fill_ready(const rv6_np *n, int w_req) { return n->st == S_IDLE && !w_req; }
int kh_rv6_np_wb_ready(const rv6_np *n, int w_req, int fill_valid) { return n->st == S_IDLE && !w_req && !fill_valid; }
int kh_rv6_np_if_ready(const rv6_np *n, const rv6_np_req *r)
{
    return n->st == S_IDLE && !r->w_req && !r->fill_valid && !r->wb_valid && !(r->u_req && !n->u_ack);
}
int kh_rv6_np_wr_idle(const rv6_np *n) { return n->st != S_WR && !n->o.awvalid && !n->o.wvalid; }

static void read_req(rv6_np *n, int who, uint64_t addr)
{
    n->who = who;
    n->o.araddr = addr;
    n->o.arvalid = 1;
    n->st = S_RD;
}

void kh_rv6_np_edge(rv6_np *n, const rv6_np_req *r, const rv6_axi_in *in, rv6_np_resp *resp)
{
    /* what the L1 and the I-cache see this cycle: the registers before the edge */
    resp->resp_valid = n->resp_valid;
    resp->if_resp_valid = n->if_resp_valid;
    memcpy(resp->resp_data, n->resp_data, sizeof resp->resp_data);
    memcpy(resp->if_resp_data, n->if_resp_data, sizeof resp->if_resp_data);
    const int w_ack = n->w_ack, u_ack = n->u_ack;
    n->w_ack = n->u_ack = n->resp_valid = n->if_resp_valid = 0;
    switch (n->st) {
    case S_IDLE:
        if (r->w_req && !w_ack) {
            n->lane = (unsigned)(r->w_addr >> 3) & 3;
            read_req(n, C_WALK, UNALIAS(r->w_addr));
        } else if (r->fill_valid) {
            read_req(n, C_FILL, r->fill_addr & ~UINT64_C(31));
        } else if (r->wb_valid) {
            n->who = C_WB;
            n->o.awaddr = r->wb_addr & ~UINT64_C(31);
            memcpy(n->o.wdata, r->wb_data, sizeof n->o.wdata);
            n->o.wstrb = 0xFFFFFFFFu;
            n->o.awvalid = n->o.wvalid = 1;
            n->st = S_WR;
        } else if (r->u_req && !u_ack) {
            n->lane = (unsigned)(r->u_addr >> 3) & 3;
            if (r->u_we) {
                n->who = C_UNC;
                n->o.awaddr = UNALIAS(r->u_addr);
                for (unsigned i = 0; i < 4; i++) n->o.wdata[i] = r->u_wdata;
                n->o.wstrb = (uint32_t)r->u_be << (8 * n->lane);
                n->o.awvalid = n->o.wvalid = 1;
                n->st = S_WR;
            } else {
                read_req(n, C_UNC, UNALIAS(r->u_addr));
            }
        } else if (r->if_req) {
            read_req(n, C_IFILL, r->if_addr & ~UINT64_C(31));
        }
        break;
    case S_RD:
        if (n->o.arvalid && in->arready) n->o.arvalid = 0;
        if (in->rvalid) {
            switch (n->who) {
            case C_FILL:
                memcpy(n->resp_data, in->rdata, sizeof n->resp_data);
                n->resp_valid = 1;
                break;
            case C_WALK:
                n->w_data = in->rdata[n->lane];
                n->w_ack = 1;
                break;
            case C_IFILL:
                memcpy(n->if_resp_data, in->rdata, sizeof n->if_resp_data);
                n->if_resp_valid = 1;
                break;
            default:
                n->u_rdata = in->rdata[n->lane];
                n->u_ack = 1;
                break;
            }
            n->st = S_IDLE;
        }
        break;
    default: /* S_WR */
        if (n->o.awvalid && in->awready) n->o.awvalid = 0;
        if (n->o.wvalid && in->wready) n->o.wvalid = 0;
        if (in->bvalid) {
            if (n->who == C_UNC) n->u_ack = 1;
            n->st = S_IDLE;
        }
        break;
    }
}

/* ---- the I-cache ---- */

enum { I_IDLE, I_REQ, I_WAIT, I_SETTLE };

void kh_rv6_ic_reset(rv6_ic *c)
{
    c->st = I_IDLE;
    c->if_req = 0;
    c->rr = 0;
    memset(c->v, 0, sizeof c->v);
}

static int ic_find(const rv6_ic *c, uint64_t pa)
{
    for (unsigned i = 0; i < R6_IC_LINES; i++)
        if (c->v[i] && c->line[i] == pa >> 5) return (int)i;
    return -1;
}

int kh_rv6_ic_stall(const rv6_ic *c, uint64_t pa, int en) { return en && (c->st != I_IDLE || ic_find(c, pa) < 0); }

uint32_t kh_rv6_ic_word(const rv6_ic *c, uint64_t pa)
{
    int i = ic_find(c, pa);
    if (i < 0) return 0;
    return (uint32_t)(c->data[i][(pa >> 3) & 3] >> (32 * ((pa >> 2) & 1)));
}

void kh_rv6_ic_edge(rv6_ic *c, uint64_t pa, int en, int adv, int inval, int if_ready, int resp_valid,
                    const uint64_t resp[4])
{
    int hit = ic_find(c, pa) >= 0;
    (void)adv;
    if (inval) memset(c->v, 0, sizeof c->v);
    switch (c->st) {
    case I_IDLE:
        if (en && !hit) {
            c->miss_line = pa >> 5;
            c->if_addr = pa & ~UINT64_C(31);
            c->if_req = 1;
            c->st = I_REQ;
        }
        break;
    case I_REQ:
        if (c->if_req && if_ready) {
            c->if_req = 0;
            c->st = I_WAIT;
        }
        break;
    case I_WAIT:
        if (resp_valid) {
            memcpy(c->data[c->rr], resp, sizeof c->data[0]);
            c->line[c->rr] = c->miss_line;
            c->v[c->rr] = !inval; /* a fence during the fill drops it */
            c->rr = (c->rr + 1) % R6_IC_LINES;
            c->st = I_SETTLE;
        }
        break;
    default: c->st = I_IDLE; break;
    }
}
