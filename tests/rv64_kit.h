/* Test kit for the RV64 system core: instruction encoders written from the
 * RISC-V base formats through the isa/rv64.isa setters, a 64-bit `li`, and
 * a runner that puts a word list at 0x8000_0000 of the flat harness and runs
 * it to its end. Header-only. */
#ifndef KH_TEST_RV64_KIT_H
#define KH_TEST_RV64_KIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kohaku/gen/rv64.h"
#include "kohaku/rv64.h"
#include "support/test.h"

#define R6_BASE UINT64_C(0x80000000)
#define R6_DATA UINT64_C(0x80100000) /* a data page the tests use */

enum {
    R6_OP = KH_RV64_OP_OP_REG, R6_OP32 = KH_RV64_OP_OP_REG32, R6_OPI = KH_RV64_OP_OP_IMM,
    R6_OPI32 = KH_RV64_OP_OP_IMM32, R6_LD = KH_RV64_OP_LOAD, R6_SYS = KH_RV64_OP_SYSTEM,
};

static inline uint32_t r6_r(unsigned op, unsigned f3, unsigned f7, unsigned rd, unsigned rs1, unsigned rs2)
{
    uint64_t w = 0;
    kh_rv64_set_op(&w, op);
    kh_rv64_set_funct3(&w, f3);
    kh_rv64_set_funct7(&w, f7);
    kh_rv64_set_rd(&w, rd);
    kh_rv64_set_rs1(&w, rs1);
    kh_rv64_set_rs2(&w, rs2);
    return (uint32_t)w;
}
static inline uint32_t r6_i(unsigned op, unsigned f3, unsigned rd, unsigned rs1, int32_t imm)
{
    uint64_t w = 0;
    kh_rv64_set_op(&w, op);
    kh_rv64_set_funct3(&w, f3);
    kh_rv64_set_rd(&w, rd);
    kh_rv64_set_rs1(&w, rs1);
    kh_rv64_set_imm_i(&w, (uint64_t)(int64_t)imm);
    return (uint32_t)w;
}
static inline uint32_t r6_s(unsigned f3, unsigned rs1, unsigned rs2, int32_t imm)
{
    uint64_t w = 0;
    kh_rv64_set_op(&w, KH_RV64_OP_STORE);
    kh_rv64_set_funct3(&w, f3);
    kh_rv64_set_rs1(&w, rs1);
    kh_rv64_set_rs2(&w, rs2);
    kh_rv64_set_imm_s(&w, (uint64_t)(int64_t)imm);
    return (uint32_t)w;
}
static inline uint32_t r6_b(unsigned f3, unsigned rs1, unsigned rs2, int32_t off)
{
    uint64_t w = 0;
    kh_rv64_set_op(&w, KH_RV64_OP_BRANCH);
    kh_rv64_set_funct3(&w, f3);
    kh_rv64_set_rs1(&w, rs1);
    kh_rv64_set_rs2(&w, rs2);
    kh_rv64_set_imm_b(&w, (uint64_t)(int64_t)(off / 2));
    return (uint32_t)w;
}
static inline uint32_t r6_u(unsigned op, unsigned rd, uint32_t imm20)
{
    uint64_t w = 0;
    kh_rv64_set_op(&w, op);
    kh_rv64_set_rd(&w, rd);
    kh_rv64_set_imm_u(&w, imm20);
    return (uint32_t)w;
}
static inline uint32_t r6_j(unsigned rd, int32_t off)
{
    uint64_t w = 0;
    kh_rv64_set_op(&w, KH_RV64_OP_JAL);
    kh_rv64_set_rd(&w, rd);
    kh_rv64_set_imm_j(&w, (uint64_t)(int64_t)(off / 2));
    return (uint32_t)w;
}
/* AMO: funct5 with aq = rl = 0 */
static inline uint32_t r6_amo(unsigned f5, unsigned f3, unsigned rd, unsigned rs1, unsigned rs2)
{
    return r6_r(KH_RV64_OP_AMO, f3, f5 << 2, rd, rs1, rs2);
}
/* CSR instruction: f3 1 RW 2 RS 3 RC, +4 the immediate forms (rs1 = zimm) */
static inline uint32_t r6_csr(unsigned f3, unsigned rd, unsigned rs1, unsigned csr)
{
    return r6_i(R6_SYS, f3, rd, rs1, (int32_t)(csr << 20) >> 20);
}

#define R6_ADDI(rd, rs1, imm) r6_i(R6_OPI, 0, rd, rs1, imm)
#define R6_ADD(rd, a, b) r6_r(R6_OP, 0, 0, rd, a, b)
#define R6_LD_(rd, rs1, imm) r6_i(R6_LD, 3, rd, rs1, imm)
#define R6_SD(rs1, rs2, imm) r6_s(3, rs1, rs2, imm)
#define R6_NOP R6_ADDI(0, 0, 0)
#define R6_ECALL 0x00000073u
#define R6_EBREAK 0x00100073u
#define R6_MRET 0x30200073u
#define R6_SRET 0x10200073u
#define R6_WFI 0x10500073u
#define R6_CSRR(rd, csr) r6_csr(2, rd, 0, csr)
#define R6_CSRW(csr, rs1) r6_csr(1, 0, rs1, csr)

/* li rd, v in at most 12 words (LUI/ADDIW, then shifts and adds) */
static inline unsigned r6_li(uint32_t *p, unsigned rd, int64_t v)
{
    if (v >= -2048 && v < 2048) {
        p[0] = R6_ADDI(rd, 0, (int32_t)v);
        return 1;
    }
    if (v >= INT32_MIN && v <= INT32_MAX) {
        int32_t lo = (int32_t)((uint32_t)v << 20) >> 20;
        uint32_t hi = (uint32_t)((v - lo) >> 12) & 0xFFFFF;
        p[0] = r6_u(KH_RV64_OP_LUI, rd, hi);
        unsigned n = 1;
        if (lo) p[n++] = r6_i(R6_OPI32, 0, rd, rd, lo);
        return n;
    }
    int32_t lo = (int32_t)((uint32_t)(uint64_t)v << 20) >> 20;
    int64_t hi = (int64_t)((uint64_t)v - (uint64_t)(int64_t)lo);
    hi = hi >= 0 ? hi >> 12 : ~((~hi) >> 12);
    unsigned n = r6_li(p, rd, hi);
    p[n++] = r6_i(R6_OPI, 1, rd, rd, 12); /* slli rd, rd, 12 */
    if (lo) p[n++] = R6_ADDI(rd, rd, lo);
    return n;
}

/* A program being written: words at R6_BASE. */
typedef struct r6_prog {
    uint32_t w[4096];
    unsigned n;
} r6_prog;

static inline void r6_emit(r6_prog *p, uint32_t w) { p->w[p->n++] = w; }
static inline void r6_li_to(r6_prog *p, unsigned rd, int64_t v) { p->n += r6_li(p->w + p->n, rd, v); }
static inline uint64_t r6_here(const r6_prog *p) { return R6_BASE + 4u * p->n; }
/* end the run: store x`rs` to the exit register (x31 is clobbered) */
static inline void r6_exit_with(r6_prog *p, unsigned rs)
{
    r6_li_to(p, 31, KH_RV64_FLAT_EXIT);
    r6_emit(p, R6_SD(31, rs, 0));
}

typedef struct r6_run {
    kh_rv64_flat *f;
    kh_rv64 *c;
    kh_rv64_result res;
    kh_rv64_stats st;
} r6_run;

/* Run p (and an optional data image at R6_DATA) on the flat harness; keep
 * the machine for inspection: r6_done() frees it. */
static inline int r6_exec(r6_run *r, const r6_prog *p, const uint64_t *data, unsigned ndata, unsigned flags,
                          uint64_t max_cycles)
{
    memset(r, 0, sizeof *r);
    static uint8_t bytes[4096 * 4];
    for (unsigned i = 0; i < p->n; i++)
        for (unsigned b = 0; b < 4; b++) bytes[4 * i + b] = (uint8_t)(p->w[i] >> (8 * b));
    kh_rv64_seg seg = {.vaddr = R6_BASE, .filesz = 4u * p->n, .memsz = 4u * p->n, .bytes = bytes};
    kh_rv64_elf elf = {.entry = R6_BASE, .seg = &seg, .nseg = 1};
    char err[256];
    r->f = kh_rv64_flat_new(&elf, 2, flags, NULL, err, sizeof err);
    if (!r->f) {
        kh_test_fail(__FILE__, __LINE__, "flat harness: %s", err);
        return -1;
    }
    r->c = kh_rv64_flat_core(r->f);
    for (unsigned i = 0; i < ndata; i++) kh_rv64_flat_write64(r->f, R6_DATA + 8u * i, data[i]);
    kh_rv64_flat_run(r->f, max_cycles, &r->res);
    kh_rv64_stats_get(r->c, &r->st);
    return 0;
}

static inline void r6_done(r6_run *r)
{
    kh_rv64_flat_free(r->f);
    r->f = NULL;
}

/* An example program of examples/rv64 built by `make rv64` (BUILD's rv64/
 * folder); a missing one skips, naming the package that builds it. */
static inline int r6_example_elf(const char *name, kh_rv64_elf *elf)
{
    char path[512], err[512];
    const char *b = getenv("BUILD");
    snprintf(path, sizeof path, "%s/rv64/%s.elf", b ? b : "build", name);
    if (access(path, R_OK)) {
        char why[600];
        snprintf(why, sizeof why, "%s not built (make rv64 builds it with riscv64-unknown-elf-gcc)", path);
        kh_test_skip("gcc-riscv64-unknown-elf", why);
        return -1;
    }
    if (kh_rv64_elf_read(path, elf, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return -1;
    }
    return 0;
}

#endif
