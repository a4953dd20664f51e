/* saxpy_cu, the example unit "SX" (matmul_saxpy.md §2): y = a*x + y over
 * float32 with the RTL's integer stand-in datapath (f2i, 32-bit MAC, i2f),
 * plain reads of x and y, one burst write of y, the state costs of §2.5a. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu/units/units.h"
#include "kohaku/ckpt.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/saxpy.h"

#define SX_N_MAX 64                    /* elements per instruction (§2.1) */
#define SX_OP 0x01                     /* the only opcode (§2.2) */
#define SX_FAULT_BAD_OP 0xBAD00001u    /* exec_result of check 1 (§2.3) */
#define SX_FAULT_TOO_BIG 0xBAD00002u   /* exec_result of check 2 (§2.3) */
#define SX_TAG_X 0x10                  /* read of x (§2.5) */
#define SX_TAG_Y 0x20                  /* read of y (§2.5) */
#define SX_TAG_W 0x30                  /* write of y (§2.5) */
#define SX_LINES 8                     /* 256-bit lines of 8 float32 */

typedef enum sx_state {
    SX_IDLE,
    SX_RQX,   /* send the read of x */
    SX_RQY,   /* send the read of y */
    SX_WAIT,  /* until every response of both reads is in */
    SX_WREQ,  /* send the write descriptor */
    SX_WDATA, /* one data flit per cycle */
    SX_DONE,  /* exec_done is raised the cycle after (registered) */
    SX_RETIRE,
} sx_state;

typedef struct saxpy {
    kh_cu *shell;
    kh_cu_place at;
    sx_state st;
    kh_cycle next;         /* cycle of the next state action */
    kh_cycle accepted;     /* cycle the instruction was accepted (trace) */
    /* the instruction */
    uint32_t n, a, beats;
    uint64_t x_addr, y_addr;
    int fault;
    uint32_t fault_code;
    /* operand lines and what has arrived */
    kh_flit xl[SX_LINES], yl[SX_LINES];
    unsigned xw, yw, wb;
    kh_cycle last_resp;    /* cycle of the latest response consumed */
    /* the unit's own send register (send_valid / send_flit) */
    int send_valid;
    kh_flit send_flit;
    kh_flit wdata_hdr[2];  /* a write-data flit before its data, [1] the last one (built once) */
    kh_flit rd_hdr[2];     /* the read of x [0] and of y [1] before address and length (built once) */
    kh_flit wr_hdr;        /* the write descriptor before address and length (built once) */
    uint32_t elements;     /* CU_DBG[31:0], every element computed (§2.1) */
    uint64_t stat_faults, stat_dropped;
} saxpy;

/* ---- the integer datapath (§2.4), bit-exact with the RTL ---------------- */

/* Always inlined: compute() calls it twice per element, and a call costs
 * as much as its body. */
static inline __attribute__((always_inline)) int32_t sx_f2i(uint32_t w)
{
    unsigned e = (w >> 23) & 0xFF;
    uint32_t m = (w & 0x7FFFFFu) | 0x800000u, mag;
    if (e == 0)
        mag = 0;
    else if (e >= 150)
        mag = e - 150 >= 32 ? 0 : m << (e - 150);
    else
        mag = 150 - e >= 32 ? 0 : m >> (150 - e);
    return (int32_t)((w >> 31) ? (uint32_t)0 - mag : mag);
}

static inline __attribute__((always_inline)) uint32_t sx_i2f(int32_t v)
{
    uint32_t sign = (uint32_t)v >> 31;
    uint32_t mag = sign ? (uint32_t)0 - (uint32_t)v : (uint32_t)v;
    if (mag == 0) return 0;
    uint32_t low = mag & 0xFFFFFFu; /* highest set bit among bits 0..23 only, 0 if none */
    unsigned p = low ? 31u - (unsigned)__builtin_clz(low) : 0;
    return sign << 31 | (127u + p) << 23 | ((mag << (23 - p)) & 0x7FFFFFu);
}

/* One element: y' = a*x + y through the integer stand-in (32-bit wrap). */
static inline __attribute__((always_inline)) uint32_t sx_elem(int32_t ia, uint32_t x, uint32_t y)
{
    return sx_i2f((int32_t)((uint32_t)ia * (uint32_t)sx_f2i(x) + (uint32_t)sx_f2i(y)));
}

/* Element j is payload bytes [4j+3:4j], little-endian: bits [32j+31:32j],
 * so payload word k holds elements 2k (low half) and 2k+1 (high half).
 * Elements n .. 8*beats-1 keep the values read (the write-back is a
 * read-modify-write of the last line). */
static void compute(saxpy *u, kh_cycle now)
{
    kh_cu_dbg_moves(u->shell, now); /* elements, CU_DBG */
    int32_t ia = sx_f2i(u->a);
    /* k counts payload words (element pairs); whole lines first, with AVX2 */
    unsigned k = kh_sx_lines_x86(ia, u->xl, u->yl, u->n / 8) ? u->n / 8 * 4 : 0;
    unsigned pairs = u->n / 2;
    for (; k < pairs; k++) {
        uint64_t x = u->xl[k / 4].w[k % 4], *y = &u->yl[k / 4].w[k % 4];
        uint64_t lo = sx_elem(ia, (uint32_t)x, (uint32_t)*y), hi = sx_elem(ia, (uint32_t)(x >> 32), (uint32_t)(*y >> 32));
        *y = hi << 32 | lo;
    }
    if (u->n % 2) { /* the odd last element, the low half of its word */
        uint64_t x = u->xl[pairs / 4].w[pairs % 4], *y = &u->yl[pairs / 4].w[pairs % 4];
        *y = (*y & ~UINT64_C(0xFFFFFFFF)) | sx_elem(ia, (uint32_t)x, (uint32_t)*y);
    }
    u->elements += u->n;
}

/* ---- flits (§2.5) -------------------------------------------------------- */

static void header(const saxpy *u, kh_flit *f, unsigned type, unsigned txn, unsigned last)
{
    kh_flit_clear(f);
    kh_flit_set_hdr(f, &(kh_flit_hdr){.dst_x = u->at.mem_x, .dst_y = u->at.mem_y, .src_x = u->at.x,
                                      .src_y = u->at.y, .type = type, .txn = txn, .last = last});
}

static void read_req(const saxpy *u, kh_flit *f, int of_y, uint64_t addr)
{
    *f = u->rd_hdr[of_y];
    kh_mem_rd_req_set_addr(f->w, addr); /* the low 40 bits (Open point 2) */
    kh_mem_rd_req_set_len(f->w, u->beats - 1);
}

/* ---- the state machine ------------------------------------------------- */

/* The state and the cycle of its action; inside sx_step, whose end asks
 * for the wake (next, or for WAIT, entered with the read of y in the send
 * register, now + 1). */
static void set_state(saxpy *u, sx_state st, kh_cycle at)
{
    u->st = st;
    u->next = at;
}

static void goto_state(saxpy *u, sx_state st, kh_cycle at)
{
    set_state(u, st, at);
    kh_cu_wake(u->shell, at);
}

static int sx_inst(void *unit, const kh_flit *inst, kh_cycle now)
{
    saxpy *u = unit;
    if (u->st != SX_IDLE) return 0;
    uint64_t op = kh_saxpy_op(inst->w), n = kh_saxpy_n(inst->w);
    u->n = (uint32_t)n;
    u->a = (uint32_t)kh_saxpy_a(inst->w);
    u->x_addr = kh_saxpy_x_addr(inst->w);
    u->y_addr = kh_saxpy_y_addr(inst->w);
    u->beats = (u->n + 7) / 8;
    u->xw = u->yw = u->wb = 0;
    u->fault = 0;
    u->accepted = now;
    /* The checks of §2.3, in order, in the accept cycle (IDLE). */
    if (op != SX_OP) {
        u->fault = 1;
        u->fault_code = SX_FAULT_BAD_OP;
    } else if (n > SX_N_MAX) {
        u->fault = 1;
        u->fault_code = SX_FAULT_TOO_BIG;
    }
    if (u->fault) u->stat_faults++;
    goto_state(u, u->fault || n == 0 ? SX_DONE : SX_RQX, now + 1);
    return 1;
}

/* Responses are consumed whatever the state (recv_ready is always 1): x and
 * y lines by tag in arrival order; acks and anything else are dropped. */
static int sx_recv(void *unit, const kh_flit *f, kh_cycle now)
{
    saxpy *u = unit;
    unsigned type = (unsigned)kh_hdr_type(f->w), txn = (unsigned)kh_hdr_txn(f->w);
    if (type == KH_T_MEM_RD_RESP && txn == SX_TAG_X && u->xw < SX_LINES) {
        u->xl[u->xw++] = *f;
    } else if (type == KH_T_MEM_RD_RESP && txn == SX_TAG_Y && u->yw < SX_LINES) {
        u->yl[u->yw++] = *f;
    } else {
        if (type != KH_T_MEM_WR_ACK) u->stat_dropped++;
        return 1;
    }
    u->last_resp = now;
    /* WAIT moves on only once every line is in: a step before that would
     * change nothing (the send register, when full, keeps its own wakes) */
    if (u->st == SX_WAIT && u->xw >= u->beats && u->yw >= u->beats) kh_cu_wake(u->shell, now + 1);
    return 1;
}

static void sx_step(void *unit, kh_cycle now)
{
    saxpy *u = unit;
    /* The send register is offered to the shell every cycle it is valid; a
     * send state may load it when it is empty or being taken (§2.5a). */
    int taken = u->send_valid && kh_cu_send(u->shell, &u->send_flit, now);
    if (taken) u->send_valid = 0;
    int can_load = !u->send_valid;
    if (u->next <= now) {
        switch (u->st) {
        case SX_RQX:
        case SX_RQY:
            if (!can_load) break;
            read_req(u, &u->send_flit, u->st == SX_RQY, u->st == SX_RQX ? u->x_addr : u->y_addr);
            u->send_valid = 1;
            set_state(u, u->st == SX_RQX ? SX_RQY : SX_WAIT, now + 1);
            break;
        case SX_WAIT:
            /* The line counters are registers: a response consumed this
             * cycle counts from the next. */
            if (u->xw >= u->beats && u->yw >= u->beats && u->last_resp < now) {
                compute(u, now);
                set_state(u, SX_WREQ, now + 1 + u->n); /* n COMP cycles, then WREQ */
            }
            break;
        case SX_WREQ:
            if (!can_load) break;
            u->send_flit = u->wr_hdr;
            kh_mem_wr_req_set_addr(u->send_flit.w, u->y_addr);
            kh_mem_wr_req_set_len(u->send_flit.w, u->beats - 1);
            u->send_valid = 1;
            set_state(u, SX_WDATA, now + 1);
            break;
        case SX_WDATA: {
            if (!can_load) break;
            unsigned last = u->wb == u->beats - 1;
            u->send_flit = u->wdata_hdr[last];
            memcpy(u->send_flit.w, u->yl[u->wb].w, 4 * sizeof(uint64_t));
            u->send_valid = 1;
            u->wb++;
            set_state(u, last ? SX_DONE : SX_WDATA, now + 1);
            break;
        }
        case SX_DONE: set_state(u, SX_RETIRE, now + 1); break;
        case SX_RETIRE:
            /* exec_done, registered: the cycle after DONE (§2.6). */
            u->st = SX_IDLE;
            u->next = KH_NEVER;
            kh_cu_done(u->shell, u->fault, u->fault ? u->fault_code : u->n, now);
            if (kh_sim_trace(kh_cu_sim(u->shell))) {
                char args[64];
                snprintf(args, sizeof args, "\"n\": %u, \"fault\": %d", u->n, u->fault);
                kh_trace_span(kh_cu_comp(u->shell), "saxpy", u->accepted, now + 1, args);
            }
            break;
        default: break;
        }
    }
    /* Keep stepping while the send register waits (the shell also wakes us
     * when its output frees) or a state action is due: each cycle asked for
     * once (most steps want now + 1 for both). */
    if (u->send_valid) kh_cu_wake(u->shell, now + 1);
    if (u->next != KH_NEVER && u->st != SX_IDLE && u->st != SX_WAIT) {
        kh_cycle due = u->next > now ? u->next : now + 1;
        if (!(u->send_valid && due == now + 1)) kh_cu_wake(u->shell, due);
    }
}

static uint64_t sx_dbg(void *unit) { return ((saxpy *)unit)->elements; }

static int sx_describe_stuck(void *unit, char *buf, size_t len)
{
    saxpy *u = unit;
    if (u->st == SX_IDLE && !u->send_valid) return 0;
    if (u->st == SX_WAIT)
        snprintf(buf, len,
                 "saxpy(%u,%u): waits for read responses: x %u of %u lines, y %u of %u (txn 0x10 / 0x20 from "
                 "(%u,%u), matmul_saxpy.md §2.5)",
                 u->at.x, u->at.y, u->xw, u->beats, u->yw, u->beats, u->at.mem_x, u->at.mem_y);
    else
        snprintf(buf, len, "saxpy(%u,%u): instruction in progress (state %d)%s", u->at.x, u->at.y, (int)u->st,
                 u->send_valid ? ", a flit waits for the shell's output" : "");
    return 1;
}

static void sx_stats(void *unit, char *buf, size_t len)
{
    saxpy *u = unit;
    /* the shell already counts instructions */
    snprintf(buf, len, "\"faults\": %llu, \"elements\": %u, \"dropped\": %llu", (unsigned long long)u->stat_faults,
             u->elements, (unsigned long long)u->stat_dropped);
}

static void *sx_create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    (void)p;
    saxpy *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "out of memory creating saxpy_cu");
        return NULL;
    }
    u->shell = shell;
    u->at = *kh_cu_where(shell);
    u->st = SX_IDLE;
    u->next = KH_NEVER;
    for (unsigned last = 0; last < 2; last++) header(u, &u->wdata_hdr[last], KH_T_MEM_WR_DATA, SX_TAG_W, last);
    header(u, &u->rd_hdr[0], KH_T_MEM_RD_REQ, SX_TAG_X, 1);
    header(u, &u->rd_hdr[1], KH_T_MEM_RD_REQ, SX_TAG_Y, 1);
    header(u, &u->wr_hdr, KH_T_MEM_WR_REQ, SX_TAG_W, 0);
    return u;
}

static void sx_destroy(void *unit) { free(unit); }

static const char *sx_inst_name(const kh_flit *f)
{
    return kh_saxpy_op(f->w) == KH_SAXPY_OP_SAXPY ? "SAXPY" : "no-op";
}

/* parameters.md §2.5: the saxpy recording's whole mesh. */
static void sx_apply_profile(kh_params *p)
{
    kh_params_stand_in_fifos(p);
    p->inst_depth = 512;
    p->recv_depth = 16;
    p->stage_built = 0;
    p->axi_ram_model = 1;
    p->dram_words_log2 = 12; /* 2048 x 512-bit words = 128 KiB, wraps */
}

/* Checkpoints (docs/checkpoint.md): the state machine, the operand
 * lines, the send register and the counters; the header templates are
 * built from the place. */
static void sx_ckpt(void *unit, kh_ck *ck)
{
    saxpy *u = unit;
    KH_CK(ck, u->st);
    KH_CK(ck, u->next);
    KH_CK(ck, u->accepted);
    KH_CK(ck, u->n);
    KH_CK(ck, u->a);
    KH_CK(ck, u->beats);
    KH_CK(ck, u->x_addr);
    KH_CK(ck, u->y_addr);
    KH_CK(ck, u->fault);
    KH_CK(ck, u->fault_code);
    for (unsigned i = 0; i < SX_LINES; i++) {
        kh_ck_flit(ck, &u->xl[i]);
        kh_ck_flit(ck, &u->yl[i]);
    }
    KH_CK(ck, u->xw);
    KH_CK(ck, u->yw);
    KH_CK(ck, u->wb);
    KH_CK(ck, u->last_resp);
    KH_CK(ck, u->send_valid);
    kh_ck_flit(ck, &u->send_flit);
    KH_CK(ck, u->elements);
    KH_CK(ck, u->stat_faults);
    KH_CK(ck, u->stat_dropped);
}

const kh_unit_kind kh_unit_saxpy = {
    .ckpt = sx_ckpt,
    .token = "sax",
    .name = "saxpy_cu",
    .cu_type = 0x5358, /* "SX" (§2.1) */
    .cu_version = 1,
    .n_buffers = 1,
    .create = sx_create,
    .destroy = sx_destroy,
    .inst = sx_inst,
    .recv = sx_recv,
    .step = sx_step,
    .dbg = sx_dbg,
    .dbg_announced = 1,
    .recv_takes_all = 1,
    .describe_stuck = sx_describe_stuck,
    .stats_json = sx_stats,
    .inst_name = sx_inst_name,
    .profile = "rec-saxpy",
    .apply_profile = sx_apply_profile,
};
