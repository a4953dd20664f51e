/* mx_matmul_cu, the legacy single-tile matmul unit (matmul_saxpy.md §1),
 * map token "mxm" (docs/units.md).
 *
 * BLOCK (opcode 1) reads one A entry and one B entry (4 words each, plain
 * 4-beat reads, A fully received before B is requested), forms the 16 exact
 * block products, scales them to FP22 and LOADs or ADDs them into resident
 * sub-tile `tile`. Any other opcode is EMIT: after the accumulator's reuse
 * distance, the FP16 sub-tile is written to addr_a.
 *
 * By default the unit does what it was meant to: the 34-bit address is a
 * byte address and the data flit is MEM_WR_DATA. With params->rtl_compat it
 * frames as the RTL does on the current protocol (§1.5): the 34-bit value
 * sits at the top of the 40-bit field (64x too high) and the data flit is
 * typed MEM_WR_REQ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/addr.h"
#include "kohaku/ckpt.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/matmul.h"
#include "kohaku/num.h"

#include "cu/units/units.h"

#define MXM_TILES 16       /* resident sub-tiles (§1.1) */
#define MXM_ACC_MW 14      /* FP22 (§1.1) */
#define MXM_RD_TXN 0x01    /* BLOCK read requests (§1.5) */
#define MXM_WR_TXN 0x02    /* EMIT write (§1.5) */
#define MXM_EMIT_WAIT 8    /* accumulator reuse distance before EMIT reads (§1.4) */

enum mxm_phase {
    MXM_IDLE,
    MXM_SEND_A,   /* request for A pending at t */
    MXM_WAIT_A,   /* 4 A words due */
    MXM_SEND_B,
    MXM_WAIT_B,
    MXM_EMIT_REQ, /* write descriptor at t */
    MXM_EMIT_DATA,
    MXM_DONE,     /* exec_done at t */
};

typedef struct mxm_unit {
    kh_cu *shell;
    int compat;                     /* params->rtl_compat: the recorded framing */
    uint32_t tile[MXM_TILES][16];   /* FP22 words, lane 4i+j (no reset: zero) */
    uint16_t blocks, emits;         /* exec_result counters (§1.3, §1.4) */
    int phase;
    kh_cycle t;
    /* the instruction in flight */
    int is_block, first;
    uint64_t addr_a, addr_b;
    unsigned tile_idx, anchor;
    uint64_t words[2][16];          /* A and B entries, word w at [4w..4w+3] */
    unsigned got;                   /* words of the current operand received */
    uint32_t result;
    uint64_t drained, saturated, nonfinite; /* FP16 values EMIT wrote out (kh_f16_word_extremes) */
} mxm_unit;

static uint64_t wire_addr(const mxm_unit *u, uint64_t addr34)
{
    /* RTL: {addr (34 bits), 6'b0} in the 40-bit field, 64x too high (§1.5) */
    return u->compat ? kh_addr_wrap(addr34 << 6) : addr34;
}

static void header(const mxm_unit *u, kh_flit *f, unsigned type, unsigned txn, unsigned last)
{
    const kh_cu_place *p = kh_cu_where(u->shell);
    kh_flit_clear(f);
    kh_flit_set_hdr(f, &(kh_flit_hdr){.dst_x = p->mem_x, .dst_y = p->mem_y, .src_x = p->x, .src_y = p->y,
                                      .type = type, .txn = txn, .last = last});
}

static int send_read(mxm_unit *u, uint64_t addr34, kh_cycle now)
{
    kh_flit f;
    header(u, &f, KH_T_MEM_RD_REQ, MXM_RD_TXN, 1);
    kh_mem_rd_req_set_addr(f.w, wire_addr(u, addr34));
    kh_mem_rd_req_set_len(f.w, 3); /* a plain 4-beat read */
    return kh_cu_send(u->shell, &f, now);
}

static void accumulate(mxm_unit *u)
{
    kh_mx_entry a, b;
    int32_t c[4][4];
    kh_mx_unpack(u->words[0], 0, &a); /* A packing */
    kh_mx_unpack(u->words[1], 1, &b); /* B packing */
    kh_mx_block(&a, &b, c);
    uint32_t *t = u->tile[u->tile_idx];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            uint32_t chain = kh_acc_from_product(c[i][j], a.scale[i], b.scale[j], u->anchor, MXM_ACC_MW);
            /* LOAD = add(., chain) with a forced zero; ADD = add(tile, chain) (numerics §6.2) */
            t[4 * i + j] = u->first ? kh_acc_add(0, 1, chain, 0, MXM_ACC_MW)
                                    : kh_acc_add(t[4 * i + j], 0, chain, 0, MXM_ACC_MW);
        }
    u->blocks++;
    u->result = u->blocks; /* {16'h0000, blocks} */
}

static void emit_data(const mxm_unit *u, kh_flit *f)
{
    /* the compat framing types the data flit MEM_WR_REQ (§1.5) */
    header(u, f, u->compat ? KH_T_MEM_WR_REQ : KH_T_MEM_WR_DATA, MXM_WR_TXN, 1);
    const uint32_t *t = u->tile[u->tile_idx];
    for (unsigned e = 0; e < 16; e++) { /* EMIT reads add(tile, 0 forced) (numerics §6.2) */
        uint32_t v = kh_acc_add(t[e], 0, 0, 1, MXM_ACC_MW);
        kh_bits_set(f->w, 16 * e, 16, kh_acc_to_f16(v, MXM_ACC_MW)); /* lane 4i+j, FP16 */
    }
}

static void *create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    mxm_unit *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "mx_matmul_cu: out of memory");
        return NULL;
    }
    u->shell = shell;
    u->compat = p->rtl_compat != 0;
    if (u->compat)
        kh_cu_log(shell, KH_LOG_WARN,
                  "mx_matmul_cu with rtl_compat: requests carry the 34-bit address 64x too high "
                  "and EMIT data is typed MEM_WR_REQ, as the legacy RTL does (matmul_saxpy.md §1.5)");
    return u;
}

static void destroy(void *unit) { free(unit); }

static int inst(void *unit, const kh_flit *f, kh_cycle now)
{
    mxm_unit *u = unit;
    if (u->phase != MXM_IDLE) return 0;
    const uint64_t *w = f->w;
    u->is_block = kh_matmul_op(w) == KH_MATMUL_OP_BLOCK; /* any other opcode: EMIT (§1.2) */
    u->addr_a = kh_matmul_addr_a(w);
    u->addr_b = kh_matmul_addr_b(w);
    u->tile_idx = (unsigned)kh_matmul_tile(w);
    u->first = (int)kh_matmul_first(w);
    u->anchor = (unsigned)kh_matmul_anchor(w);
    u->got = 0;
    if (u->is_block) {
        u->phase = MXM_SEND_A;
        u->t = now + 1;
    } else {
        u->phase = MXM_EMIT_REQ; /* wait the reuse distance, read the tile, then write */
        u->t = now + 1 + MXM_EMIT_WAIT + 1;
    }
    kh_cu_wake(u->shell, u->t);
    return 1;
}

static int recv(void *unit, const kh_flit *f, kh_cycle now)
{
    mxm_unit *u = unit;
    if (kh_hdr_type(f->w) != KH_T_MEM_RD_RESP || (u->phase != MXM_WAIT_A && u->phase != MXM_WAIT_B))
        return 1; /* acks and anything unexpected are dropped */
    uint64_t *dst = &u->words[u->phase == MXM_WAIT_B][4 * u->got]; /* arrival order (§1.3) */
    for (int k = 0; k < 4; k++) dst[k] = f->w[k];
    if (++u->got < 4) return 1;
    u->got = 0;
    if (u->phase == MXM_WAIT_A) {
        u->phase = MXM_SEND_B;
        u->t = now + 1;
    } else {
        accumulate(u); /* the accumulate command issues, then the unit retires */
        u->phase = MXM_DONE;
        u->t = now + 2;
    }
    kh_cu_wake(u->shell, u->t);
    return 1;
}

static void step(void *unit, kh_cycle now)
{
    mxm_unit *u = unit;
    if (u->phase == MXM_IDLE || now < u->t) {
        if (u->phase != MXM_IDLE && u->phase != MXM_WAIT_A && u->phase != MXM_WAIT_B)
            kh_cu_wake(u->shell, u->t);
        return;
    }
    kh_flit f;
    switch (u->phase) {
    case MXM_SEND_A:
    case MXM_SEND_B:
        if (!send_read(u, u->phase == MXM_SEND_A ? u->addr_a : u->addr_b, now)) return; /* shell wakes us */
        u->phase = u->phase == MXM_SEND_A ? MXM_WAIT_A : MXM_WAIT_B;
        return;
    case MXM_EMIT_REQ:
        header(u, &f, KH_T_MEM_WR_REQ, MXM_WR_TXN, 0);
        kh_mem_wr_req_set_addr(f.w, wire_addr(u, u->addr_a));
        kh_mem_wr_req_set_len(f.w, 0);
        if (!kh_cu_send(u->shell, &f, now)) return;
        u->phase = MXM_EMIT_DATA;
        u->t = now + 1;
        break;
    case MXM_EMIT_DATA:
        emit_data(u, &f);
        if (!kh_cu_send(u->shell, &f, now)) return;
        u->drained += 16;
        kh_f16_word_extremes(f.w, &u->saturated, &u->nonfinite);
        u->emits++;
        u->result = UINT32_C(0x10000) | u->emits; /* {16'h0001, emits} */
        u->phase = MXM_DONE;
        u->t = now + 1;
        break;
    case MXM_DONE:
        u->phase = MXM_IDLE;
        kh_cu_done(u->shell, 0, u->result, now); /* no faults (§1.1) */
        return;
    default:
        return;
    }
    kh_cu_wake(u->shell, u->t);
}

static int describe_stuck(void *unit, char *buf, size_t len)
{
    const mxm_unit *u = unit;
    if (u->phase != MXM_WAIT_A && u->phase != MXM_WAIT_B) return 0;
    snprintf(buf, len, "mx_matmul_cu: BLOCK waits for word %u of operand %c (4 MEM_RD_RESP per "
                       "operand, matmul_saxpy.md §1.3)\n",
             u->got, u->phase == MXM_WAIT_A ? 'A' : 'B');
    return 1;
}

static void stats(void *unit, char *buf, size_t len)
{
    const mxm_unit *u = unit;
    snprintf(buf, len, "\"drained_values\":%llu,\"saturated\":%llu,\"nonfinite\":%llu",
             (unsigned long long)u->drained, (unsigned long long)u->saturated, (unsigned long long)u->nonfinite);
}

/* Checkpoints (docs/checkpoint.md): everything but the shell pointer and
 * the framing, which the build fixes. The ranged fields come first. */
static void ckpt(void *unit, kh_ck *ck)
{
    mxm_unit *u = unit;
    kh_ck_same(ck, (uint64_t)u->compat, "mx_matmul_cu's rtl_compat");
    KH_CK(ck, u->phase);
    kh_ck_below(ck, (unsigned)u->phase, MXM_DONE + 1, "phase");
    KH_CK(ck, u->tile_idx);
    kh_ck_below(ck, u->tile_idx, MXM_TILES, "sub-tile index");
    KH_CK(ck, u->got);
    kh_ck_below(ck, u->got, 4, "count of operand words received");
    KH_CK(ck, u->t);
    KH_CK(ck, u->is_block);
    KH_CK(ck, u->first);
    KH_CK(ck, u->addr_a);
    KH_CK(ck, u->addr_b);
    KH_CK(ck, u->anchor);
    kh_ck_array(ck, &u->tile[0][0], sizeof u->tile[0][0], MXM_TILES * 16);
    kh_ck_array(ck, &u->words[0][0], sizeof u->words[0][0], 2 * 16);
    KH_CK(ck, u->blocks);
    KH_CK(ck, u->emits);
    KH_CK(ck, u->result);
    KH_CK(ck, u->drained);
    KH_CK(ck, u->saturated);
    KH_CK(ck, u->nonfinite);
}

static const char *inst_name(const kh_flit *f)
{
    return kh_matmul_op(f->w) == KH_MATMUL_OP_BLOCK ? "BLOCK" : "EMIT"; /* as inst() decodes it */
}

const kh_unit_kind kh_unit_matmul = {
    .token = "mxm",
    .name = "mx_matmul_cu",
    .cu_type = 0x4D58, /* "MX" (§1.1) */
    .cu_version = 4,
    .n_buffers = 2,
    .create = create,
    .destroy = destroy,
    .inst = inst,
    .recv = recv,
    .step = step,
    .dbg = NULL,
    .describe_stuck = describe_stuck,
    .stats_json = stats,
    .inst_name = inst_name,
    .ckpt = ckpt,
};
