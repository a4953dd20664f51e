/* Test kit for the node control processor: instruction encoders written
 * from the RISC-V base formats (through the isa/rv32.isa setters), and a
 * runner that loads a word list the way a host does and returns the core's
 * state. Header-only. */
#ifndef KH_TEST_RV32_KIT_H
#define KH_TEST_RV32_KIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/mover.h"
#include "kohaku/gen/rv32.h"
#include "kohaku/machine.h"
#include "kohaku/rv32.h"
#include "support/test.h"

static inline uint32_t rv_r(unsigned op, unsigned f3, unsigned f7, unsigned rd, unsigned rs1, unsigned rs2)
{
    uint64_t w = 0;
    kh_rv32_set_op(&w, op);
    kh_rv32_set_funct3(&w, f3);
    kh_rv32_set_funct7(&w, f7);
    kh_rv32_set_rd(&w, rd);
    kh_rv32_set_rs1(&w, rs1);
    kh_rv32_set_rs2(&w, rs2);
    return (uint32_t)w;
}
static inline uint32_t rv_i(unsigned op, unsigned f3, unsigned rd, unsigned rs1, int32_t imm)
{
    uint64_t w = 0;
    kh_rv32_set_op(&w, op);
    kh_rv32_set_funct3(&w, f3);
    kh_rv32_set_rd(&w, rd);
    kh_rv32_set_rs1(&w, rs1);
    kh_rv32_set_imm_i(&w, (uint64_t)(int64_t)imm);
    return (uint32_t)w;
}
static inline uint32_t rv_s(unsigned f3, unsigned rs1, unsigned rs2, int32_t imm)
{
    uint64_t w = 0;
    kh_rv32_set_op(&w, KH_RV32_OP_STORE);
    kh_rv32_set_funct3(&w, f3);
    kh_rv32_set_rs1(&w, rs1);
    kh_rv32_set_rs2(&w, rs2);
    kh_rv32_set_imm_s(&w, (uint64_t)(int64_t)imm);
    return (uint32_t)w;
}
static inline uint32_t rv_b(unsigned f3, unsigned rs1, unsigned rs2, int32_t off)
{
    uint64_t w = 0;
    kh_rv32_set_op(&w, KH_RV32_OP_BRANCH);
    kh_rv32_set_funct3(&w, f3);
    kh_rv32_set_rs1(&w, rs1);
    kh_rv32_set_rs2(&w, rs2);
    kh_rv32_set_imm_b(&w, (uint64_t)(int64_t)(off / 2));
    return (uint32_t)w;
}
static inline uint32_t rv_u(unsigned op, unsigned rd, uint32_t imm20)
{
    uint64_t w = 0;
    kh_rv32_set_op(&w, op);
    kh_rv32_set_rd(&w, rd);
    kh_rv32_set_imm_u(&w, imm20);
    return (uint32_t)w;
}
static inline uint32_t rv_j(unsigned rd, int32_t off)
{
    uint64_t w = 0;
    kh_rv32_set_op(&w, KH_RV32_OP_JAL);
    kh_rv32_set_rd(&w, rd);
    kh_rv32_set_imm_j(&w, (uint64_t)(int64_t)(off / 2));
    return (uint32_t)w;
}

/* The common ones */
#define RV_ADDI(rd, rs1, imm) rv_i(KH_RV32_OP_OP_IMM, 0, rd, rs1, imm)
#define RV_LUI(rd, imm20) rv_u(KH_RV32_OP_LUI, rd, imm20)
#define RV_ADD(rd, a, b) rv_r(KH_RV32_OP_OP_REG, 0, 0, rd, a, b)
#define RV_LW(rd, rs1, imm) rv_i(KH_RV32_OP_LOAD, 2, rd, rs1, imm)
#define RV_SW(rs1, rs2, imm) rv_s(2, rs1, rs2, imm)
#define RV_ECALL 0x00000073u
#define RV_EBREAK 0x00100073u
#define RV_NOP RV_ADDI(0, 0, 0)

/* li rd, v as LUI + ADDI */
static inline unsigned rv_li(uint32_t *p, unsigned rd, uint32_t v)
{
    uint32_t lo = v & 0xFFF, hi = (v + 0x800) >> 12;
    p[0] = RV_LUI(rd, hi & 0xFFFFF);
    p[1] = RV_ADDI(rd, rd, (int32_t)(lo << 20) >> 20);
    return 2;
}

/* The mover's CTRL word (register 0x00) a descriptor ends with; go = 0
 * leaves the move unstarted. */
static inline uint64_t rv_mover_ctrl(unsigned mode, unsigned ewidth, unsigned go)
{
    uint64_t v = 0;
    kh_mover_ctrl_set_mode(&v, mode);
    kh_mover_ctrl_set_ewidth(&v, ewidth);
    kh_mover_ctrl_set_go(&v, go);
    return v;
}

typedef struct rv_run {
    kh_machine *m;
    kh_rv32_state st;
    kh_rv32_result res;
    int rc;
    char err[4096];
    unsigned warns;
} rv_run;

static inline void rv_count_log(void *ctx, kh_log_level lvl, const char *msg)
{
    rv_run *r = ctx;
    if (lvl >= KH_LOG_WARN) r->warns++;
    if (getenv("RV_TEST_LOG")) fprintf(stderr, "log: %s\n", msg);
}

/* Build a default machine (p NULL: defaults), load words as code at 0 and
 * spad_words (may be NULL) at the scratchpad, run with arg. Keeps the
 * machine for inspection: rv_done() frees it. */
static inline void rv_exec(rv_run *r, const kh_params *p, const uint32_t *code, unsigned n, const uint32_t *spad,
                           unsigned nspad, uint32_t arg)
{
    memset(r, 0, sizeof *r);
    r->m = kh_machine_new(NULL, p, r->err, sizeof r->err);
    if (!r->m) {
        r->rc = -2;
        kh_test_fail(__FILE__, __LINE__, "machine: %s", r->err);
        return;
    }
    kh_sim_set_log(kh_machine_sim(r->m), rv_count_log, r, KH_LOG_INFO);
    static kh_rv32_image img;
    memset(&img, 0, sizeof img);
    memcpy(img.imem, code, n * sizeof *code);
    img.imem_granules = (n + 7) / 8;
    if (spad && nspad) {
        memcpy(img.spad, spad, nspad * sizeof *spad);
        img.spad_lo = 0;
        img.spad_hi = (nspad + 7) / 8;
    }
    r->rc = kh_rv32_run(r->m, 0, &img, arg, 2000000, &r->res, r->err, sizeof r->err);
    kh_rv32_get_state(kh_machine_cpu_at(r->m, 0), &r->st);
}

static inline void rv_done(rv_run *r)
{
    kh_machine_free(r->m);
    r->m = NULL;
}

#endif
