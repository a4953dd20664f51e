/* The node complex's control region, dispatch mailbox and host window
 * (upstream's rv64_syscore and rv64_noc_mbox; docs/rv64.md §8-§10). A
 * store to the control region acts at the cycle after its first (the
 * registered access); what it drives (the mover, the interlink, the
 * mailbox, the L1's flush) sees a registered pulse one cycle later still. */
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/gen/rv64.h"
#include "rv64/sys_int.h"

enum { M_DST, M_ARG0, M_ARG1, M_ARG2, M_ARG3, M_GO, M_STAT, M_HEAD };

static uint64_t mbox_read(const rv6_sys *s, unsigned i)
{
    uint64_t v = 0;
    switch (i) {
    case M_DST:
        kh_rv64_mbox_dst_set_x(&v, s->dst_x);
        kh_rv64_mbox_dst_set_y(&v, s->dst_y);
        return v;
    case M_ARG0: case M_ARG1: case M_ARG2: case M_ARG3: return s->arg[i - M_ARG0];
    case M_STAT:
        kh_rv64_mbox_stat_set_count(&v, s->cq_n);
        kh_rv64_mbox_stat_set_offered(&v, (uint64_t)s->tx_valid);
        return v; /* overflow stays 0: a full queue holds the hub instead */
    case M_HEAD: return s->cq_n ? s->cq[s->cq_head] : 0;
    default: return 0;
    }
}

/* the RX queue's view: header, payload words, fill */
static uint64_t rx_read(const rv6_sys *s, unsigned i)
{
    const kh_flit *h = s->rq_n ? &s->rq[s->rq_head] : NULL;
    switch (i) {
    case 0: {
        uint64_t v = 0;
        kh_rv64_rxhdr_set_valid(&v, (uint64_t)(s->rq_n != 0));
        kh_rv64_rxhdr_set_header(&v, h ? (h->w[4] & 0xFFFFFFFFu) : 0); /* flit bits [287:256] */
        return v;
    }
    case 1: case 2: case 3: case 4: return h ? h->w[i - 1] : 0;
    case 5: return s->rq_n;
    default: return 0;
    }
}

uint64_t kh_rv6_sys_ctrl_read(const rv6_sys *s, unsigned off)
{
    if ((off >> 8) == 1) {
        switch ((off >> 6) & 3) {
        case 2: return rx_read(s, (off >> 3) & 7);
        case 3: return (off & 0xFF) == 0xC8 ? (uint64_t)kh_rv6_l1_flush_busy(&s->l1) : 0;
        default: return 0;
        }
    }
    if (((off >> 6) & 3) == 1) return mbox_read(s, (off >> 3) & 7);
    switch (off) {
    case 0x10: return (uint64_t)s->dbell;
    case 0x30: {
        uint64_t v = 0;
        if (s->sin_n) {
            kh_rv64_byteq_set_valid(&v, 1);
            kh_rv64_byteq_set_byte(&v, s->sin[s->sin_head]);
        }
        return v;
    }
    case 0x18: return kh_rv64_csr_value(s->core, 0x180);
    case 0x20: {
        int busy = 0;
        unsigned fault = 0;
        uint32_t done = 0;
        if (s->env.mv_status) s->env.mv_status(s->env.ctx, &busy, &fault, &done);
        uint64_t v = 0;
        kh_rv64_mvstat_set_busy(&v, (uint64_t)busy);
        kh_rv64_mvstat_set_fault(&v, fault);
        kh_rv64_mvstat_set_done(&v, done);
        return v;
    }
    case 0x28: return s->env.db_status ? s->env.db_status(s->env.ctx) : 0;
    default: return 0;
    }
}

/* the mailbox's registered configuration write (a cycle after the store) */
static void mbox_write(rv6_sys *s, unsigned i, uint64_t d)
{
    switch (i) {
    case M_DST:
        s->dst_x = (unsigned)kh_rv64_mbox_dst_x(&d);
        s->dst_y = (unsigned)kh_rv64_mbox_dst_y(&d);
        s->tx_type = (unsigned)kh_rv64_mbox_dst_type(&d);
        s->tx_typed = (int)kh_rv64_mbox_dst_typed(&d);
        break;
    case M_ARG0: case M_ARG1: case M_ARG2: case M_ARG3: s->arg[i - M_ARG0] = d; break;
    case M_GO: {
        if (s->tx_valid) break; /* ignored while a flit is still offered */
        kh_flit *f = &s->tx;
        memset(f, 0, sizeof *f);
        kh_hdr_set_dst_x(f->w, s->dst_x);
        kh_hdr_set_dst_y(f->w, s->dst_y);
        kh_hdr_set_src_x(f->w, s->my_x);
        kh_hdr_set_src_y(f->w, s->my_y);
        kh_hdr_set_type(f->w, s->tx_typed ? s->tx_type : KH_T_CU_INST);
        kh_hdr_set_txn(f->w, s->txn);
        kh_hdr_set_last(f->w, 1);
        kh_hdr_set_payload(f->w, s->arg);
        s->tx_valid = 1;
        s->txn = (s->txn + 1) & 0xFF;
        break;
    }
    case M_HEAD:
        if (s->cq_n) {
            s->cq_head = (s->cq_head + 1) % R6_CQ;
            s->cq_n--;
        }
        break;
    default: break;
    }
}

int kh_rv6_sys_rx(rv6_sys *s, const kh_flit *f)
{
    if (!s->core_rstn) return 1; /* the mailbox is held in reset with the core: taken and lost */
    if (s->cq_n == R6_CQ || s->rq_n == R6_RQ) return 0; /* either queue full holds the hub */
    if (kh_hdr_type(f->w) == KH_T_CU_SIGNAL) {
        uint64_t e = 0;
        kh_rv64_completion_set_arg(&e, kh_cu_signal_arg(f->w));
        kh_rv64_completion_set_code(&e, kh_cu_signal_code(f->w));
        kh_rv64_completion_set_src_x(&e, kh_hdr_src_x(f->w));
        kh_rv64_completion_set_src_y(&e, kh_hdr_src_y(f->w));
        s->cq[(s->cq_head + s->cq_n++) % R6_CQ] = e;
        return 1;
    }
    s->rq[(s->rq_head + s->rq_n++) % R6_RQ] = *f;
    return 1;
}

void kh_rv6_sys_ctrl_edge(rv6_sys *s, int wr, unsigned off, uint64_t d)
{
    /* last cycle's registered pulses act now */
    if (s->mv_en && s->env.mv_write) s->env.mv_write(s->env.ctx, s->mv_addr, s->mv_data);
    if (s->db_en && s->env.db_write) s->env.db_write(s->env.ctx, s->db_addr, s->db_data);
    if (s->xf_en && s->env.xf_write) s->env.xf_write(s->env.ctx, s->xf_id, s->xf_reg, s->xf_data);
    if (s->tx_valid && s->env.tx && s->env.tx(s->env.ctx, &s->tx)) s->tx_valid = 0;
    if (s->nm_en) mbox_write(s, s->nm_addr, s->nm_data);
    if (s->rx_pop && s->rq_n) {
        s->rq_head = (s->rq_head + 1) % R6_RQ;
        s->rq_n--;
    }
    s->mv_en = s->db_en = s->nm_en = s->rx_pop = s->xf_en = 0;
    s->l1_flush_p = s->l1_inval_p = 0;
    if (!wr) return;
    if ((off >> 8) == 1) {
        unsigned lo = off & 0xFF;
        if (!(lo & 0x80)) {
            s->mv_en = 1;
            s->mv_addr = lo & 0x7F; /* the mover's whole map */
            s->mv_data = d;
        }
        if (lo == 0x80) s->rx_pop = 1;
        if (lo == 0xC8) {
            s->l1_flush_p = (int)kh_rv64_dcache_flush(&d);
            s->l1_inval_p = (int)kh_rv64_dcache_inval(&d);
        }
        if (lo == 0xD0) {
            s->xf_id = (unsigned)kh_rv64_xfsel_id(&d);
            s->xf_reg = (unsigned)kh_rv64_xfsel_reg(&d);
        }
        if (lo == 0xD8) {
            s->xf_en = 1;
            s->xf_data = d;
        }
    } else if ((off >> 8) == 0) {
        switch ((off >> 6) & 3) {
        case 1:
            s->nm_en = 1;
            s->nm_addr = (off >> 3) & 7;
            s->nm_data = d;
            break;
        case 2:
            s->mv_en = 1;
            s->mv_addr = off & 0x3F; /* the mover's low half */
            s->mv_data = d;
            break;
        case 3:
            s->db_en = 1;
            s->db_addr = 0x80 | (off & 0x3F); /* the interlink claims 0x80 and up */
            s->db_data = d;
            break;
        default:
            if (off == 0x00) {
                s->exited = 1;
                s->exit_word = d;
            }
            if (off == 0x08 && s->env.console) s->env.console(s->env.ctx, (uint8_t)d);
            if (off == 0x30 && s->sin_n) {
                s->sin_head = (s->sin_head + 1) % R6_STDIN;
                s->sin_n--;
            }
            break;
        }
    }
}

void kh_rv6_sys_host_write(rv6_sys *s, uint32_t addr, uint64_t data, uint8_t strb)
{
    s->h_wr = 1;
    s->h_addr = addr;
    s->h_data = data;
    s->h_strb = strb;
}

uint64_t kh_rv6_sys_host_read(const rv6_sys *s, uint32_t addr)
{
    uint64_t v = 0;
    switch (addr & 0xFF) { /* the read ignores addr[31:28] */
    case 0x18:
        kh_rv64_host_status_set_cause(&v, s->cause_l);
        kh_rv64_host_status_set_halted(&v, (uint64_t)s->halt_l);
        kh_rv64_host_status_set_exited(&v, (uint64_t)s->exited);
        return v;
    case 0x20: return s->exit_word;
    case 0x28: return s->haltpc_l;
    case 0x30: return s->cyc_ctr;
    case 0x38: return s->ret_ctr;
    default: return 0;
    }
}

void kh_rv6_sys_host_edge(rv6_sys *s, int running, const kh_rv64_status *st)
{
    const int halted = running && st->halted;
    const int boot_req = s->boot_req, boot_ack = s->boot_ack, run_en = s->run_en, rstn = s->core_rstn;
    s->boot_req = 0; /* a pulse */
    if (s->h_wr) {
        unsigned region = s->h_addr >> 28;
        if (region == 0) {
            s->imem[(s->h_addr >> 2) & (R6_IMEM_WORDS - 1)] = (uint32_t)s->h_data;
        } else if (region == 1) {
            uint64_t *w = &s->spad[(s->h_addr >> 3) & (R6_SPAD_WORDS - 1)];
            for (unsigned i = 0; i < 8; i++)
                if (s->h_strb >> i & 1)
                    *w = (*w & ~(UINT64_C(0xFF) << (8 * i))) | (s->h_data & (UINT64_C(0xFF) << (8 * i)));
        } else if (region == 2) {
            switch (s->h_addr & 0xFF) {
            case 0x00:
                s->boot_req = (int)kh_rv64_boot_run(&s->h_data);
                s->run_en = s->boot_req;
                break;
            case 0x08: s->boot_pc = s->h_data; break; /* stored, unused: the reset PC is 0 */
            case 0x10: s->dbell = (int)kh_rv64_boot_run(&s->h_data); break;
            case 0x40:
                if (s->sin_n < R6_STDIN) s->sin[(s->sin_head + s->sin_n++) % R6_STDIN] = (uint8_t)s->h_data;
                break;
            default: break;
            }
        }
        s->h_wr = 0;
    }
    if (halted) s->run_en = 0;
    if (boot_req) {
        s->halt_l = 0;
        s->exited = 0;
    } else if (halted && !s->halt_l) {
        s->halt_l = 1;
        s->cause_l = st->halt_cause;
        s->haltpc_l = st->halt_pc;
    }
    s->boot_ack = boot_req;
    if (boot_ack) {
        s->cyc_ctr = 0;
        s->ret_ctr = 0;
    } else if (rstn) {
        s->cyc_ctr++;
        if (s->retire_now) s->ret_ctr++;
    }
    if (boot_ack) {
        if (!rstn) kh_rv6_sys_reset_core_side(s);
        s->core_rstn = 1;
    } else if (!run_en) {
        s->core_rstn = 0;
    }
}
