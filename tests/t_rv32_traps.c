/* The processor's halting causes (cpu.md §3) with their completions
 * (§7.3), and each trap cpu.md lists, reproduced and named by a warning or
 * the machine's diagnosis: MVGO while busy is lost, a descriptor without GO
 * keeps the executor busy, a completion does not flush the L1, a last = 1
 * kick loses a0, the completion queue overflows, PC aliasing, cpu-exact's
 * CU_CTRL ping-pong, a map with no memory port at (0,1). */
#include "kohaku/card.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/mover.h"
#include "kohaku/gen/regs.h"
#include "rv32_kit.h"

static char diag[8192];

static void diagnose(rv_run *r)
{
    diag[0] = 0;
    kh_machine_diagnose(r->m, diag, sizeof diag);
}

static uint64_t status00(kh_machine *m)
{
    char err[256];
    uint64_t v = 0;
    kh_card_read64(kh_machine_card(m), kh_host_ctrl(0, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(0, 0)), &v, err,
                   sizeof err);
    return v;
}

/* ECALL: INST_COMPLETE with a0; EBREAK: FAULT with a0 (§7.3). */
static void ecall_and_ebreak(void)
{
    for (int brk = 0; brk < 2; brk++) {
        uint32_t c[] = {RV_ADDI(10, 0, 0x321), brk ? RV_EBREAK : RV_ECALL};
        rv_run r;
        rv_exec(&r, NULL, c, 2, NULL, 0, 0);
        CHECK_EQ(r.rc, 0);
        CHECK_EQ(r.st.cause, brk ? 2u : 1u);
        CHECK_EQ(r.res.code, brk ? 0x04u : 0x00u);
        CHECK_EQ(r.res.arg, 0x321);
        CHECK_EQ(r.st.halt_word, 0x321);
        uint64_t s = status00(r.m);
        CHECK_EQ(kh_orch_node_status_code(&s), brk ? 0x04u : 0x00u);
        rv_done(&r);
    }
}

/* Cause 3: the PC in the completion; a faulting load leaves rd alone, a
 * faulting store writes nothing (§3, §4). */
static void faults_name_the_pc(void)
{
    static const struct {
        const char *what;
        uint32_t addr;
        int store;
        unsigned f3;
    } f[] = {
        {"lw misaligned", 0x10000002, 0, 2},  {"lh misaligned", 0x10000001, 0, 1},
        {"lhu misaligned", 0x10000003, 0, 5}, {"sw misaligned", 0x10000006, 1, 2},
        {"sh misaligned", 0x10000005, 1, 1},  {"lw instruction memory", 0x00000100, 0, 2},
        {"sw instruction memory", 0x00000100, 1, 2}, {"lw vector region", 0x40000000, 0, 2},
        {"sw 0x5 region", 0x50000000, 1, 2},  {"lb 0x7 region", 0x70000000, 0, 0},
        {"lw peer push (store only)", 0x30000000, 0, 2}, {"lbu dispatch (store only)", 0x60000000, 0, 4},
    };
    for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++) {
        uint32_t c[16];
        unsigned n = rv_li(c, 1, f[i].addr);
        c[n++] = RV_ADDI(5, 0, 77);
        c[n++] = RV_ADDI(6, 0, -1);
        unsigned at = n;
        c[n++] = f[i].store ? rv_s(f[i].f3, 1, 6, 0) : rv_i(KH_RV32_OP_LOAD, f[i].f3, 5, 1, 0);
        c[n++] = RV_ECALL;
        rv_run r;
        rv_exec(&r, NULL, c, n, NULL, 0, 0);
        if (r.st.cause != 3 || r.st.halt_word != 4 * at || r.res.code != 0x04 || r.res.arg != 4 * at)
            kh_test_fail(__FILE__, __LINE__, "%s: cause %u word 0x%x code 0x%x", f[i].what, r.st.cause,
                         r.st.halt_word, r.res.code);
        CHECK_EQ(r.st.x[5], 77);
        kh_rv32 *cpu = kh_machine_cpu_at(r.m, 0);
        CHECK_EQ(kh_rv32_spad_word(cpu, 1), 0);
        CHECK_EQ(kh_rv32_spad_word(cpu, 2), 0);
        rv_done(&r);
    }
}

/* Open point 8: ECALL does not flush; the data stays in the L1, a warning
 * and the diagnosis say so; with CTL_FLUSH first it reaches DRAM. */
static void completion_does_not_flush(void)
{
    for (int flush = 0; flush < 2; flush++) {
        uint32_t c[16];
        unsigned n = rv_li(c, 1, 0x80000040);
        n += rv_li(c + n, 2, 0x1234ABCD);
        c[n++] = RV_SW(1, 2, 0);
        n += rv_li(c + n, 3, 0x20000000);
        if (flush) c[n++] = RV_SW(3, 0, 4); /* CTL_FLUSH */
        c[n++] = RV_ECALL;
        rv_run r;
        rv_exec(&r, NULL, c, n, NULL, 0, 0);
        CHECK_EQ(r.rc, 0);
        CHECK_EQ(r.st.cause, 1);
        uint32_t dram[2] = {0, 0};
        char err[256];
        kh_sim_run_until_idle(kh_machine_sim(r.m), 100000);
        kh_card_read_block(kh_machine_card(r.m), kh_host_dram(0, 0x40), dram, 8, err, sizeof err);
        CHECK_EQ(dram[0], flush ? 0x1234ABCDu : 0u);
        CHECK_EQ(r.st.dirty_lines, flush ? 0u : 1u);
        CHECK_EQ(r.warns > 0, !flush);
        diagnose(&r);
        CHECK_EQ(strstr(diag, "without CTL_FLUSH") != NULL, !flush);
        rv_done(&r);
    }
}

/* Open point 9: kicked with last = 1 the completion is BATCH_COMPLETE with
 * the txn; a0 is lost. */
static void last_kick_loses_a0(void)
{
    char err[512];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    static kh_rv32_image img;
    memset(&img, 0, sizeof img);
    img.imem[0] = RV_ADDI(10, 0, 42);
    img.imem[1] = RV_ECALL;
    img.imem_granules = 1;
    CHECK_EQ(kh_rv32_host_load(kh_machine_card(m), 0, &img, 0, 0x5A, 1, err, sizeof err), 0);
    kh_sim_run_until_idle(kh_machine_sim(m), 100000);
    uint64_t s = status00(m);
    CHECK_EQ(kh_orch_node_status_code(&s), 0x01);
    CHECK_EQ(kh_orch_node_status_arg(&s), 0x5A);
    kh_machine_free(m);
}

/* A COPY descriptor of `words` 32-byte words at scratchpad word p. */
static unsigned copy_desc(uint32_t *sp, unsigned p, unsigned words, int with_go)
{
    uint64_t v[8];
    unsigned reg[8], k = 0;
    for (unsigned sel = 0; sel < 2; sel++) {
        uint64_t h = 0, d = 0;
        kh_mover_hdr_set_sel(&h, sel);
        kh_mover_hdr_set_base(&h, sel ? 0x200000 : 0x100000);
        kh_mover_hdr_set_ndim(&h, 1);
        kh_mover_dim_set_sel(&d, sel);
        kh_mover_dim_set_count(&d, words);
        kh_mover_dim_set_stride(&d, 32);
        reg[k] = 0x10, v[k++] = h;
        reg[k] = 0x18, v[k++] = d;
        reg[k] = 0x20, v[k++] = 0;
    }
    reg[k] = 0x00, v[k++] = rv_mover_ctrl(0, 1, (unsigned)with_go);
    sp[p] = k;
    for (unsigned i = 0; i < k; i++) {
        sp[p + 1 + 3 * i] = reg[i];
        sp[p + 2 + 3 * i] = (uint32_t)v[i];
        sp[p + 3 + 3 * i] = (uint32_t)(v[i] >> 32);
    }
    return k;
}

/* Open point 5: a second MVGO while the first move runs is dropped. */
static void mvgo_while_busy_is_lost(void)
{
    static uint32_t sp[256];
    memset(sp, 0, sizeof sp);
    copy_desc(sp, 64, 200, 1);
    uint32_t c[24];
    unsigned n = rv_li(c, 1, 0xF0000000);
    c[n++] = RV_ADDI(2, 0, 64);
    c[n++] = RV_SW(1, 2, 0); /* MVGO 64 */
    c[n++] = RV_SW(1, 2, 0); /* again at once: busy, lost */
    c[n++] = RV_LW(4, 1, 0); /* poll: status bit 0 */
    c[n++] = rv_i(KH_RV32_OP_OP_IMM, 7, 4, 4, 1);
    c[n++] = rv_b(1, 4, 0, -8);
    c[n++] = RV_ECALL;
    rv_run r;
    rv_exec(&r, NULL, c, n, sp, 256, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    CHECK_EQ(r.st.mvgo_lost, 1);
    CHECK(r.warns >= 1);
    diagnose(&r);
    CHECK(strstr(diag, "MVGO lost") != NULL);
    rv_done(&r);
}

/* Open point 6: a descriptor that never writes GO leaves the executor (and
 * the status word) busy until reset; a program polling it never ends, and
 * the diagnosis says why. */
static void descriptor_without_go(void)
{
    static uint32_t sp[256];
    memset(sp, 0, sizeof sp);
    copy_desc(sp, 64, 4, 0);
    uint32_t c[24];
    unsigned n = rv_li(c, 1, 0xF0000000);
    c[n++] = RV_ADDI(2, 0, 64);
    c[n++] = RV_SW(1, 2, 0);
    c[n++] = RV_LW(4, 1, 0);
    c[n++] = rv_i(KH_RV32_OP_OP_IMM, 7, 4, 4, 1);
    c[n++] = rv_b(1, 4, 0, -8);
    c[n++] = RV_ECALL;
    char err[8192];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    static kh_rv32_image img;
    memset(&img, 0, sizeof img);
    memcpy(img.imem, c, n * 4);
    img.imem_granules = 1;
    memcpy(img.spad, sp, sizeof sp);
    img.spad_hi = 32;
    kh_rv32_result res;
    CHECK_EQ(kh_rv32_run(m, 0, &img, 0, 20000, &res, err, sizeof err), -1);
    CHECK(strstr(err, "wrote no GO") != NULL);
    CHECK(strstr(err, "core running") != NULL);
    kh_machine_free(m);
}

/* §4.3: the completion queue holds 8; a ninth sets the sticky overflow. */
static void completion_queue_overflow(void)
{
    uint32_t c[64];
    unsigned n = rv_li(c, 1, 0x60000000 | 1 << 24 | 1 << 20 | 0x33 << 12 | 2 << 2); /* (1,1), txn 0x33, OP */
    for (unsigned i = 0; i < 9; i++) c[n++] = RV_SW(1, 0, 0); /* cluster op 0: retires at once */
    c[n++] = RV_ADDI(5, 0, 400);
    c[n++] = RV_ADDI(5, 5, -1);
    c[n++] = rv_b(1, 5, 0, -4);
    n += rv_li(c + n, 2, 0x20000000);
    c[n++] = RV_LW(10, 2, 0x24);  /* CTL_SIGST */
    c[n++] = RV_LW(11, 2, 0x28);  /* CTL_SIGHD */
    c[n++] = RV_ECALL;
    rv_run r;
    rv_exec(&r, NULL, c, n, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.x[10], 0x108); /* 8 held, overflow */
    CHECK_EQ(r.st.x[11], 0x0033); /* INST_COMPLETE, txn 0x33 */
    CHECK(r.st.sig_overflow);
    diagnose(&r);
    CHECK(strstr(diag, "completion queue overflowed") != NULL);
    rv_done(&r);
}

/* §2.2, Open point 14: a PC beyond 8 KiB aliases, with a warning. */
static void pc_aliasing_warns(void)
{
    uint32_t c[] = {
        RV_ADDI(5, 5, 1),        /* 0x00 */
        RV_ADDI(7, 0, 2),        /* 0x04 */
        rv_b(0, 5, 7, 12),       /* 0x08: second pass -> 0x14 */
        RV_LUI(8, 2),            /* 0x0C: x8 = 0x2000 */
        rv_i(KH_RV32_OP_JALR, 0, 0, 8, 0), /* 0x10: -> 0x2000, which fetches word 0 */
        RV_ECALL,                /* 0x14 */
    };
    rv_run r;
    rv_exec(&r, NULL, c, 6, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    CHECK_EQ(r.st.x[5], 2);
    CHECK_EQ(r.st.pc, 0x2014); /* the halting ECALL ran at 0x2014: the PC keeps its high bits */
    CHECK(r.warns >= 1);
    rv_done(&r);
}

/* cpu-exact: a mailbox CU_CTRL forged with src (0,0) makes the unit's reply
 * reach the processor's shell, which answers it; the two never stop, and
 * the diagnosis names it. The default routes the reply to the agent. */
static void cpu_exact_ping_pong(void)
{
    for (int exact = 0; exact < 2; exact++) {
        kh_params p;
        kh_params_default(&p);
        p.cpu_mode = exact ? KH_CPU_MODE_EXACT : KH_CPU_MODE_CPU;
        char err[512];
        kh_machine *m = kh_machine_new(NULL, &p, err, sizeof err);
        kh_sim_set_log(kh_machine_sim(m), NULL, NULL, KH_LOG_ERROR);
        kh_flit f;
        kh_flit_clear(&f);
        kh_flit_set_hdr(&f, &(kh_flit_hdr){.dst_x = 1, .dst_y = 1, .src_x = 0, .src_y = 0, .type = KH_T_CU_CTRL,
                                           .last = 1});
        kh_card *card = kh_machine_card(m);
        for (unsigned k = 0; k < 5; k++) kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_FLIT + 8 * k), f.w[k], err, sizeof err);
        kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_KICK), 1, err, sizeof err);
        int idle = kh_sim_run_until_idle(kh_machine_sim(m), 5000);
        CHECK_EQ(idle, !exact);
        diag[0] = 0;
        kh_machine_diagnose(m, diag, sizeof diag);
        CHECK_EQ(strstr(diag, "answer each other forever") != NULL, exact);
        kh_machine_free(m);
    }
}

/* cpu.md §1: a map with no memory port at (0,1) builds, with a warning. */
static void unreachable_without_port_01(void)
{
    static const char map[] = "xxx mat vec xxx\nxxx mat mat xxx\nmag mat mat xxx\nxxx mat vec xxx\n";
    char err[512];
    kh_machine *m = kh_machine_new(map, NULL, err, sizeof err);
    CHECK(m != NULL);
    if (!m) return;
    kh_rv32_state st;
    kh_rv32_get_state(kh_machine_cpu_at(m, 0), &st);
    CHECK(st.unreachable);
    kh_machine_free(m);
    m = kh_machine_new(NULL, NULL, err, sizeof err);
    kh_rv32_get_state(kh_machine_cpu_at(m, 0), &st);
    CHECK(!st.unreachable);
    kh_machine_free(m);
}

/* §7.1: CU_CAPS of (0,0) through a mailbox read (the reply reaches RX under cpu). */
static void cu_caps_of_the_processor(void)
{
    char err[512];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    kh_card *card = kh_machine_card(m);
    kh_flit f;
    kh_flit_clear(&f);
    kh_flit_set_hdr(&f, &(kh_flit_hdr){.dst_x = 0, .dst_y = 0, .src_x = 0, .src_y = 0, .type = KH_T_CU_CTRL,
                                       .txn = 9, .last = 1});
    for (unsigned k = 0; k < 5; k++) kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_FLIT + 8 * k), f.w[k], err, sizeof err);
    kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_KICK), 1, err, sizeof err);
    kh_sim_run_until_idle(kh_machine_sim(m), 10000);
    uint64_t w[5] = {0}, st = 0;
    kh_card_read64(card, kh_host_ctrl(0, KH_ORCH_RX_STATUS), &st, err, sizeof err);
    CHECK(!(st >> 16 & 1));
    for (unsigned k = 0; k < 5; k++) kh_card_read64(card, kh_host_ctrl(0, KH_ORCH_RX_FLIT + 8 * k), &w[k], err, sizeof err);
    CHECK_EQ(kh_hdr_src_x(w), 0);
    CHECK_EQ(kh_hdr_src_y(w), 0);
    CHECK_EQ(kh_cu_ctrl_reply_value(w), 0x5243014001000000ull); /* cpu.md §7.1 */
    kh_machine_free(m);
}

/* §8.1: the CU_DATA loader through the mailbox (src chosen per flit): a
 * burst past granule 255 or to another buf_id is consumed and dropped with
 * a warning; a CU_DATA from another source while a burst is open is
 * discarded; word mode honours byte enables for the scratchpad (buf_id 4)
 * and ignores them for the instruction memory (buf_id 5). */
static void mbox_send(kh_machine *m, const kh_flit *f)
{
    char err[256];
    kh_card *card = kh_machine_card(m);
    for (unsigned k = 0; k < 5; k++) kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_FLIT + 8 * k), f->w[k], err, sizeof err);
    kh_card_write64(card, kh_host_ctrl(0, KH_ORCH_TX_KICK), 1, err, sizeof err);
    uint64_t v;
    kh_card_read64(card, kh_host_ctrl(0, KH_ORCH_TX_STATUS), &v, err, sizeof err); /* the kick acts first */
}

static void mbox(kh_machine *m, const kh_flit *f)
{
    mbox_send(m, f);
    kh_sim_run_until_idle(kh_machine_sim(m), 10000);
}

static kh_flit cu_data(unsigned sx, unsigned sy, int desc, unsigned buf, unsigned off, unsigned len)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_flit_set_hdr(&f, &(kh_flit_hdr){.dst_x = 0, .dst_y = 0, .src_x = sx, .src_y = sy, .type = KH_T_CU_DATA,
                                       .last = !desc});
    if (desc) {
        kh_cu_data_set_buf_id(f.w, buf);
        kh_cu_data_set_offset(f.w, off);
        kh_cu_data_set_len(f.w, len);
    } else {
        uint64_t d[4] = {0x1111111122222222ull, 0x3333333344444444ull, 0x5555555566666666ull, 0x7777777788888888ull};
        kh_cu_data_data_set_data(f.w, d);
    }
    return f;
}

static void cu_data_loader(void)
{
    char err[512];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    unsigned warns0 = kh_sim_log_count(kh_machine_sim(m), KH_LOG_WARN);
    kh_rv32 *cpu = kh_machine_cpu_at(m, 0);
    kh_flit f = cu_data(0, 1, 1, 1, 250, 6); /* 250 + 6 >= 256: rejected */
    mbox(m, &f);
    for (unsigned j = 0; j < 7; j++) {
        f = cu_data(0, 1, 0, 0, 0, 0);
        mbox(m, &f);
    }
    CHECK_EQ(kh_rv32_imem_word(cpu, 250 * 8), 0);
    f = cu_data(0, 1, 1, 2, 0, 0); /* buf_id 2: rejected */
    mbox(m, &f);
    f = cu_data(0, 1, 0, 0, 0, 0);
    mbox(m, &f);
    CHECK_EQ(kh_rv32_spad_word(cpu, 0), 0);
    CHECK(kh_sim_log_count(kh_machine_sim(m), KH_LOG_WARN) >= warns0 + 2);
    /* granules 5 and 6 of the instruction memory; a flit from (2,2) in between is discarded */
    f = cu_data(0, 1, 1, 1, 5, 1);
    mbox(m, &f);
    f = cu_data(2, 2, 0, 0, 0, 0);
    mbox(m, &f);
    CHECK_EQ(kh_rv32_imem_word(cpu, 40), 0);
    f = cu_data(0, 1, 0, 0, 0, 0);
    mbox(m, &f);
    mbox(m, &f);
    CHECK_EQ(kh_rv32_imem_word(cpu, 40), 0x22222222); /* payload word 0 at bits [31:0] */
    CHECK_EQ(kh_rv32_imem_word(cpu, 47), 0x77777777);
    CHECK_EQ(kh_rv32_imem_word(cpu, 48), 0x22222222);
    CHECK_EQ(kh_rv32_imem_word(cpu, 56), 0);
    /* word mode: scratchpad with enables 0101, instruction memory without */
    for (unsigned b = 4; b <= 5; b++) {
        f = cu_data(0, 1, 1, b, 2, 0);
        mbox(m, &f);
        kh_flit d;
        kh_flit_clear(&d);
        kh_flit_set_hdr(&d, &(kh_flit_hdr){.dst_x = 0, .dst_y = 0, .src_x = 0, .src_y = 1, .type = KH_T_CU_DATA,
                                           .last = 1});
        kh_rv32_word_data_set_ws(d.w, 3);
        kh_rv32_word_data_set_be(d.w, 0x5);
        kh_rv32_word_data_set_data(d.w, 0xAABBCCDD);
        mbox(m, &d);
    }
    CHECK_EQ(kh_rv32_spad_word(cpu, 19), 0x00BB00DD);
    CHECK_EQ(kh_rv32_imem_word(cpu, 19), 0xAABBCCDD);
    kh_machine_free(m);
}

/* Open point 13: a CU_DATA write to the scratchpad while the executor
 * reads its descriptor through the same port is reported as an error. */
static void loader_executor_collision(void)
{
    char err[512];
    kh_params p;
    kh_params_default(&p);
    CHECK_EQ(kh_params_profile(&p, "host-zero", err, sizeof err), 0);
    kh_machine *m = kh_machine_new(NULL, &p, err, sizeof err);
    static kh_rv32_image img;
    memset(&img, 0, sizeof img);
    unsigned k = rv_li(img.imem, 1, 0xF0000000);
    img.imem[k++] = RV_ADDI(2, 0, 64);
    img.imem[k++] = RV_SW(1, 2, 0);
    img.imem[k++] = RV_LW(4, 1, 0);
    img.imem[k++] = rv_i(KH_RV32_OP_OP_IMM, 7, 4, 4, 1);
    img.imem[k++] = rv_b(1, 4, 0, -8);
    img.imem[k++] = RV_ECALL;
    img.imem_granules = 2;
    uint32_t *d = &img.spad[64];
    d[0] = 40; /* 39 fill-value writes and a GO: the executor reads for about 240 cycles */
    for (unsigned i = 0; i < 39; i++) d[1 + 3 * i] = 0x40;
    d[1 + 3 * 39] = 0x00;
    d[2 + 3 * 39] = (uint32_t)rv_mover_ctrl(4, 2, 1);
    img.spad_lo = 8;
    img.spad_hi = 24;
    CHECK_EQ(kh_rv32_host_load(kh_machine_card(m), 0, &img, 0, 1, 0, err, sizeof err), 0);
    unsigned errors0 = kh_sim_log_count(kh_machine_sim(m), KH_LOG_ERROR);
    /* once the executor runs, send a CU_DATA burst to the scratchpad */
    kh_rv32_state st;
    unsigned c = 0;
    do {
        kh_sim_run(kh_machine_sim(m), 1);
        kh_rv32_get_state(kh_machine_cpu_at(m, 0), &st);
    } while (!kh_rv32_pe_status_exec_busy(&st.pe_status) && ++c < 5000);
    CHECK(c < 5000);
    kh_flit f = cu_data(0, 1, 1, 0, 100, 0);
    mbox_send(m, &f);
    f = cu_data(0, 1, 0, 0, 0, 0);
    mbox_send(m, &f);
    kh_sim_run_until_idle(kh_machine_sim(m), 100000);
    CHECK(kh_sim_log_count(kh_machine_sim(m), KH_LOG_ERROR) > errors0);
    kh_machine_free(m);
}

int main(void)
{
    KH_RUN(ecall_and_ebreak);
    KH_RUN(faults_name_the_pc);
    KH_RUN(completion_does_not_flush);
    KH_RUN(last_kick_loses_a0);
    KH_RUN(mvgo_while_busy_is_lost);
    KH_RUN(descriptor_without_go);
    KH_RUN(completion_queue_overflow);
    KH_RUN(pc_aliasing_warns);
    KH_RUN(cpu_exact_ping_pong);
    KH_RUN(unreachable_without_port_01);
    KH_RUN(cu_caps_of_the_processor);
    KH_RUN(cu_data_loader);
    KH_RUN(loader_executor_collision);
    return kh_test_end("t_rv32_traps");
}
