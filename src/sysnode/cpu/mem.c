/* The processor's data-side address map (cpu.md §4): scratchpad, local
 * control, peer push, dispatch, the DRAM window through the L1 and the node
 * range; faults are decided from the effective address before any access. */
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/gen/rv32.h"
#include "sysnode/cpu/rv32_int.h"

enum {
    CTL_STATUS = 0x00, CTL_FLUSH = 0x04, CTL_INVAL = 0x08, CTL_CAUSE = 0x0C, CTL_COREID = 0x10,
    CTL_ARG = 0x14, CTL_CYCLE = 0x18, CTL_INSTRET = 0x1C, CTL_WROUT = 0x20, CTL_SIGST = 0x24,
    CTL_SIGHD = 0x28, CTL_SIGARG = 0x2C, CTL_SIGPOP = 0x30,
};

static unsigned region(uint32_t a) { return a >> 28; }
static int dram(uint32_t a) { return region(a) >= 0x8 && region(a) <= 0xE; }

int kh_rv_mem_fault(rv_op op, uint32_t a)
{
    if ((op == RV_LH || op == RV_LHU || op == RV_SH) && (a & 1)) return 1;
    if ((op == RV_LW || op == RV_SW) && (a & 3)) return 1;
    switch (region(a)) {
    case 0x1: case 0x2: case 0xF: return 0;
    case 0x3: case 0x6: return kh_rv_is_load(op); /* store-only regions */
    default: return !dram(a); /* 0x0 (fetch only), 0x4, 0x5, 0x7 */
    }
}

/* Sub-word loads extract from the 32-bit word as usual. */
static uint32_t extract(rv_op op, uint32_t w, uint32_t a)
{
    unsigned sh = (a & 3) * 8;
    switch (op) {
    case RV_LB: return (uint32_t)(int32_t)(int8_t)(uint8_t)(w >> sh);
    case RV_LBU: return (w >> sh) & 0xFF;
    case RV_LH: return (uint32_t)(int32_t)(int16_t)(uint16_t)(w >> (sh & 16));
    case RV_LHU: return (w >> (sh & 16)) & 0xFFFF;
    default: return w;
    }
}

/* The store as placed on the bus: SB/SH replicate across the word; the
 * enables select the lanes. */
static void bus(rv_op op, uint32_t a, uint32_t data, uint32_t *word, unsigned *be)
{
    if (op == RV_SB) {
        *word = (data & 0xFF) * 0x01010101u;
        *be = 1u << (a & 3);
    } else if (op == RV_SH) {
        *word = (data & 0xFFFF) * 0x00010001u;
        *be = 3u << (a & 2);
    } else {
        *word = data;
        *be = 0xF;
    }
}

static void merge(uint32_t *dst, uint32_t word, unsigned be)
{
    uint32_t m = 0;
    for (unsigned i = 0; i < 4; i++)
        if (be >> i & 1) m |= 0xFFu << (8 * i);
    *dst = (*dst & ~m) | (word & m);
}

static uint32_t sig_word(const kh_rv32 *r, unsigned off)
{
    const rv_sig *h = r->sig_n ? &r->sigq[r->sig_head] : &r->sig_stale; /* empty: a stale slot */
    uint64_t v = 0;
    if (off == CTL_SIGST) {
        kh_rv32_sigst_set_count(&v, r->sig_n);
        kh_rv32_sigst_set_overflow(&v, (unsigned)r->sig_ovf);
    } else if (off == CTL_SIGHD) {
        kh_rv32_sighd_set_txn(&v, h->txn);
        kh_rv32_sighd_set_code(&v, h->code);
    } else {
        v = h->arg;
    }
    return (uint32_t)v;
}

static uint32_t ctl_read(kh_rv32 *r, uint32_t a, kh_cycle e)
{
    unsigned off = a & 0xFC; /* only addr[7:2] decoded: aliases every 256 bytes */
    uint64_t v = 0;
    switch (off) {
    case CTL_STATUS:
        kh_rv32_ctl_status_set_wrout(&v, r->wrout != 0); /* a sweep blocks the core: never seen busy */
        return (uint32_t)v;
    case CTL_CAUSE: return r->cause;
    case CTL_COREID: return 0x00; /* {y, x} of (0,0) */
    case CTL_ARG: return r->arg;
    case CTL_CYCLE: return (uint32_t)(e - r->start);
    case CTL_INSTRET: return r->instret;
    case CTL_WROUT: return r->wrout & 0xFFFF;
    case CTL_SIGST: case CTL_SIGHD: case CTL_SIGARG: return sig_word(r, off);
    default: return 0;
    }
}

unsigned kh_rv_node_status(kh_rv32 *r, kh_cycle now)
{
    uint64_t aux = kh_node_aux_stat(r->n, now), v = 0;
    kh_rv32_node_status_set_busy(&v, (unsigned)kh_rv_exec_busy(r, now));
    kh_rv32_node_status_set_mover_fault(&v, kh_orch_aux_stat_mover_fault(&aux));
    kh_rv32_node_status_set_occ_fault(&v, kh_node_xform_bank_read(r->n, 0, 0) & 0xF);
    return (unsigned)v;
}

static uint32_t node_read(kh_rv32 *r, uint32_t a, kh_cycle now)
{
    uint64_t w = a;
    if (kh_rv32_node_addr_side(&w) == KH_RV32_NODE_ADDR_SIDE_MOVER) return kh_rv_node_status(r, now);
    return kh_node_xform_bank_read(r->n, (unsigned)kh_rv32_node_addr_occ_id(&w),
                                   (unsigned)kh_rv32_node_addr_occ_reg(&w));
}

int kh_rv_load(kh_rv32 *r, rv_op op, uint32_t a, uint32_t *val, kh_cycle e)
{
    uint32_t w;
    switch (region(a)) {
    case 0x1: w = r->spad[(a >> 2) & (RV_SPAD_WORDS - 1)]; break;
    case 0x2: w = ctl_read(r, a, e); break;
    case 0xF: w = node_read(r, a, e); break; /* answered in the L1-hit slot, no stall */
    default:
        if (!dram(a)) return -1;
        if (!kh_rv_l1_hit(r, a)) {
            r->wait = RW_FILL;
            r->wait_addr = a;
            kh_rv_l1_miss_start(r, e + 1);
            return 0;
        }
        kh_rv_l1_access(r, a, 0, 0, 0, &w);
        break;
    }
    *val = extract(op, w, a);
    return 1;
}

/* The two flits of a push (cpu.md §4.4): a one-granule word-mode
 * descriptor, then the word with its select and enables. */
static void push_flits(uint32_t a, uint32_t word, unsigned be, kh_flit f[2])
{
    uint64_t w = a;
    unsigned dx = (unsigned)kh_rv32_push_addr_dst_x(&w), dy = (unsigned)kh_rv32_push_addr_dst_y(&w);
    for (int i = 0; i < 2; i++) {
        kh_flit_clear(&f[i]);
        kh_flit_set_hdr(&f[i], &(kh_flit_hdr){.dst_x = dx, .dst_y = dy, .src_x = 0, .src_y = 0,
                                             .type = KH_T_CU_DATA, .txn = 0, .last = (unsigned)i});
    }
    kh_cu_data_set_buf_id(f[0].w, kh_rv32_push_addr_window(&w) ? 5 : 4);
    kh_cu_data_set_offset(f[0].w, kh_rv32_push_addr_granule(&w));
    kh_rv32_word_data_set_ws(f[1].w, kh_rv32_push_addr_word(&w));
    kh_rv32_word_data_set_be(f[1].w, be);
    kh_rv32_word_data_set_data(f[1].w, word);
}

static unsigned queued(const kh_rv32 *r, unsigned kind)
{
    unsigned k = 0;
    for (unsigned i = 0; i < r->outn; i++) k += r->outq_kind[i] == kind;
    return k;
}

static void enqueue(kh_rv32 *r, const kh_flit *f, unsigned kind, kh_cycle at)
{
    r->outq_at[r->outn] = at;
    r->outq[r->outn] = *f;
    r->outq_kind[r->outn++] = (uint8_t)kind;
}

static int dispatch_store(kh_rv32 *r, uint32_t a, uint32_t data, kh_cycle e)
{
    uint64_t w = a;
    switch (kh_rv32_disp_addr_field(&w)) {
    case KH_RV32_DISP_ADDR_FIELD_ARG: r->disp_arg = data; return 1;
    case KH_RV32_DISP_ADDR_FIELD_PC: r->disp_pc = data; return 1;
    case KH_RV32_DISP_ADDR_FIELD_OP: break;
    default: return 1; /* fields 3-7: no effect (Open point 15) */
    }
    kh_flit f;
    kh_flit_clear(&f);
    kh_flit_set_hdr(&f, &(kh_flit_hdr){.dst_x = (unsigned)kh_rv32_disp_addr_dst_x(&w),
                                       .dst_y = (unsigned)kh_rv32_disp_addr_dst_y(&w), .src_x = 0, .src_y = 0,
                                       .type = KH_T_CU_INST, .txn = (unsigned)kh_rv32_disp_addr_txn(&w),
                                       .last = (unsigned)kh_rv32_disp_addr_last(&w),
                                       .rsvd = (unsigned)kh_rv32_disp_addr_rsvd(&w)});
    kh_rv32_kick_set_op(f.w, data & 0xFF);
    kh_rv32_kick_set_pc(f.w, r->disp_pc);
    kh_rv32_kick_set_arg(f.w, r->disp_arg);
    if (queued(r, 2)) { /* the holding register is full: MEM stalls */
        r->wait = RW_DISP;
        r->wait_flit[0] = f;
        return 0;
    }
    (void)e;
    enqueue(r, &f, 2, e + 1);
    kh_rv_wake(r, e + 1);
    return 1;
}

int kh_rv_store(kh_rv32 *r, rv_op op, uint32_t a, uint32_t data, kh_cycle e)
{
    uint32_t word;
    unsigned be;
    bus(op, a, data, &word, &be);
    switch (region(a)) {
    case 0x1: merge(&r->spad[(a >> 2) & (RV_SPAD_WORDS - 1)], word, be); return 1;
    case 0x2:
        switch (a & 0xFC) {
        case CTL_FLUSH:
            r->wait = RW_FLUSH;
            kh_rv_l1_sweep_start(r, e + 1);
            return 0;
        case CTL_INVAL:
            r->wait = RW_INVAL;
            kh_rv_l1_sweep_start(r, e + 1);
            return 0;
        case CTL_SIGPOP:
            if (r->sig_n) {
                r->sig_stale = r->sigq[r->sig_head];
                r->sig_head = (r->sig_head + 1) % RV_SIGQ;
                r->sig_n--;
            }
            return 1;
        default: return 1; /* read-only or unlisted: nothing */
        }
    case 0x3: {
        kh_flit f[2];
        push_flits(a, word, be, f);
        if (queued(r, 1)) { /* the one-entry push register is still full */
            r->wait = RW_PUSH;
            r->wait_flit[0] = f[0];
            r->wait_flit[1] = f[1];
            return 0;
        }
        enqueue(r, &f[0], 1, e + 1);
        enqueue(r, &f[1], 1, e + 1);
        kh_rv_wake(r, e + 1);
        return 1;
    }
    case 0x6: return dispatch_store(r, a, word, e);
    case 0xF: {
        uint64_t w = a;
        if (kh_rv32_node_addr_side(&w) == KH_RV32_NODE_ADDR_SIDE_MOVER) {
            if (kh_rv32_node_addr_off(&w) == 0) kh_rv_mvgo(r, word, e + 1); /* MVGO */
            return 1;
        }
        if (kh_rv32_node_addr_occ_reg(&w) == 0x00) kh_node_xform_bank_clear(r->n); /* any write clears */
        return 1;
    }
    default:
        if (!dram(a)) return -1;
        if (!kh_rv_l1_hit(r, a)) {
            r->wait = RW_FILL;
            r->wait_addr = a;
            r->wait_data = word;
            r->wait_be = be;
            kh_rv_l1_miss_start(r, e + 1);
            return 0;
        }
        kh_rv_l1_access(r, a, 1, word, be, NULL);
        return 1;
    }
}

kh_cycle kh_rv_wait_step(kh_rv32 *r, kh_cycle now)
{
    switch (r->wait) {
    case RW_PUSH:
        if (queued(r, 1)) return KH_NEVER;
        enqueue(r, &r->wait_flit[0], 1, now);
        enqueue(r, &r->wait_flit[1], 1, now);
        return now;
    case RW_DISP:
        if (queued(r, 2)) return KH_NEVER;
        enqueue(r, &r->wait_flit[0], 2, now);
        return now;
    case RW_FILL: {
        kh_cycle c = kh_rv_l1_miss_step(r, now);
        if (c == KH_NEVER) return c;
        uint32_t w = 0;
        if (kh_rv_is_load(r->wait_op)) {
            kh_rv_l1_access(r, r->wait_addr, 0, 0, 0, &w);
            if (r->wait_rd) {
                r->x[r->wait_rd] = extract(r->wait_op, w, r->wait_addr);
                r->ready[r->wait_rd] = c + 2;
            }
        } else {
            kh_rv_l1_access(r, r->wait_addr, 1, r->wait_data, r->wait_be, NULL);
        }
        return c;
    }
    case RW_FLUSH:
    case RW_INVAL: return kh_rv_l1_flush_step(r, now);
    default: return now;
    }
}
