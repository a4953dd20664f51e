/* The RV64 core as a mesh compute unit, rv64_sys_pe (docs/rv64.md §11):
 * placed by its map token, loaded and kicked through the orchestrator as a
 * host does, its completion read from the status mirror. Expected values
 * come from the unit's contract (the exit word, the fault flag for EBREAK,
 * a kick that is no boot completes at once), the RISC-V count of the
 * instructions a straight-line program retires, and host C. */
#include <unistd.h>

#include "kohaku/card.h"
#include "kohaku/cu.h"
#include "kohaku/gen/flit.h"
#include "kohaku/machine.h"
#include "kohaku/orch.h"
#include "rv64_kit.h"

/* the default 2x2 picture with the RV64 unit in place of the cluster at (1,0) */
static const char map[] = "xxx r64 vec xxx\n"
                          "mag mat mat xxx\n"
                          "mag mat mat xxx\n"
                          "xxx mat vec xxx\n";

static kh_machine *machine(void)
{
    char err[512];
    kh_machine *m = kh_machine_new(map, NULL, err, sizeof err);
    if (!m) kh_test_fail(__FILE__, __LINE__, "%s", err);
    return m;
}

/* words at 0 as a one-segment ELF image */
static int run_words(kh_machine *m, const r6_prog *p, kh_rv64_pe_result *res)
{
    static uint8_t bytes[4 * 4096];
    for (unsigned i = 0; i < p->n; i++)
        for (unsigned b = 0; b < 4; b++) bytes[4 * i + b] = (uint8_t)(p->w[i] >> (8 * b));
    kh_rv64_seg seg = {.vaddr = 0, .filesz = 4u * p->n, .memsz = 4u * p->n, .bytes = bytes};
    kh_rv64_elf elf = {.entry = 0, .seg = &seg, .nseg = 1};
    char err[512];
    int rc = kh_rv64_pe_run(m, 0, 1, 0, &elf, 1000000, res, err, sizeof err);
    if (rc) kh_test_fail(__FILE__, __LINE__, "%s", err);
    return rc;
}

#define A0 10
#define T0 5

/* li a0, 0x12345678; li t0, 0x20000; sd a0, 0(t0); j . : the completion
 * carries the word; every instruction up to the store retires, and one more */
static void exit_store_is_the_completion_word(void)
{
    kh_machine *m = machine();
    if (!m) return;
    static r6_prog p;
    p.n = 0;
    r6_li_to(&p, A0, 0x12345678);
    r6_li_to(&p, T0, 0x20000);
    r6_emit(&p, R6_SD(T0, A0, 0));
    unsigned up_to_store = p.n;
    r6_emit(&p, r6_j(0, 0));
    kh_rv64_pe_result res;
    if (run_words(m, &p, &res) == 0) {
        CHECK_EQ(res.code, KH_CU_SIGNAL_CODE_INST_COMPLETE);
        CHECK_EQ(res.word, 0x12345678u);
        /* plus the jump in E when the exit reaches the core: the RTL's retire
         * pulse does not look at ext_halt (rv64_core's retire_q) */
        CHECK_EQ(res.instret, up_to_store + 1);
        CHECK(res.cycles > up_to_store);
    }
    kh_machine_free(m);
}

/* EBREAK with no handler halts the core: the completion is a FAULT */
static void ebreak_is_a_fault(void)
{
    kh_machine *m = machine();
    if (!m) return;
    static r6_prog p;
    p.n = 0;
    r6_emit(&p, R6_EBREAK);
    kh_rv64_pe_result res;
    if (run_words(m, &p, &res) == 0) CHECK_EQ(res.code, KH_CU_SIGNAL_CODE_FAULT);
    kh_machine_free(m);
}

/* an ECALL halt is no fault; the word is the last exit store's (none: 0) */
static void ecall_halt_completes(void)
{
    kh_machine *m = machine();
    if (!m) return;
    static r6_prog p;
    p.n = 0;
    r6_emit(&p, R6_ECALL);
    kh_rv64_pe_result res;
    if (run_words(m, &p, &res) == 0) {
        CHECK_EQ(res.code, KH_CU_SIGNAL_CODE_INST_COMPLETE);
        CHECK_EQ(res.word, 0);
    }
    kh_machine_free(m);
}

/* the unit's capability word: CU_TYPE 0x5236 (docs/rv64.md §11) */
static void the_kind_is_registered(void)
{
    const kh_unit_kind *k = kh_unit_by_token("r64");
    CHECK(k != NULL);
    if (!k) return;
    CHECK_EQ(k->cu_type, 0x5236);
    CHECK_EQ(k->n_buffers, 4);
    CHECK_EQ(k->inst_depth, 16);
    CHECK_EQ(k->recv_depth, 32);
    CHECK(kh_unit_by_name("rv64_sys_pe") == k);
}

/* examples/rv64/pe_sum.c: sum (i + 1) * p_i over the first 16 primes */
static void a_toolchain_program(void)
{
    char path[512], err[512];
    const char *b = getenv("BUILD");
    snprintf(path, sizeof path, "%s/rv64/pe_sum.elf", b ? b : "build");
    if (access(path, R_OK)) {
        char why[600];
        snprintf(why, sizeof why, "%s not built (make rv64 builds it with riscv64-unknown-elf-gcc)", path);
        kh_test_skip("gcc-riscv64-unknown-elf", why);
        return;
    }
    kh_rv64_elf elf;
    if (kh_rv64_elf_read(path, &elf, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return;
    }
    static const unsigned primes[16] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53};
    uint32_t want = 0;
    for (unsigned i = 0; i < 16; i++) want += (i + 1) * primes[i];
    kh_machine *m = machine();
    if (m) {
        kh_rv64_pe_result res;
        if (kh_rv64_pe_run(m, 0, 1, 0, &elf, 1000000, &res, err, sizeof err))
            kh_test_fail(__FILE__, __LINE__, "%s", err);
        else {
            CHECK_EQ(res.code, KH_CU_SIGNAL_CODE_INST_COMPLETE);
            CHECK_EQ(res.word, want);
        }
        kh_machine_free(m);
    }
    kh_rv64_elf_free(&elf);
}

/* a unit that is not there, and an image the unit cannot hold, are refused */
static void refusals(void)
{
    kh_machine *m = machine();
    if (!m) return;
    static uint8_t bytes[4] = {0x73, 0, 0, 0}; /* ECALL */
    kh_rv64_seg seg = {.vaddr = 0x9000, .filesz = 4, .memsz = 4, .bytes = bytes};
    kh_rv64_elf elf = {.entry = 0, .seg = &seg, .nseg = 1};
    kh_rv64_pe_result res;
    char err[512];
    CHECK_EQ(kh_rv64_pe_run(m, 0, 2, 0, &elf, 1000, &res, err, sizeof err), -1); /* (2,0) is a vector core */
    CHECK(strstr(err, "no rv64_sys_pe") != NULL);
    CHECK_EQ(kh_rv64_pe_run(m, 0, 1, 0, &elf, 1000, &res, err, sizeof err), -1);
    CHECK(strstr(err, "0x9000") != NULL);
    kh_machine_free(m);
}

int main(void)
{
    KH_RUN(the_kind_is_registered);
    KH_RUN(exit_store_is_the_completion_word);
    KH_RUN(ebreak_is_a_fault);
    KH_RUN(ecall_halt_completes);
    KH_RUN(a_toolchain_program);
    KH_RUN(refusals);
    return kh_test_end("t_rv64_pe");
}
