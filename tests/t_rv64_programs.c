/* The example programs of examples/rv64 (built by `make rv64` with Debian's
 * gcc-riscv64-unknown-elf; each test skips, saying so, when its ELF is not
 * there). Expected values are worked out here from the programs' own
 * descriptions and the RISC-V specification's cause codes. */
#include <unistd.h>

#include "kohaku/card.h"
#include "kohaku/cu.h"
#include "kohaku/gen/regs.h"
#include "kohaku/machine.h"
#include "kohaku/node.h"
#include "kohaku/orch.h"
#include "kohaku/params.h"
#include "rv64_kit.h"

static int run_flat(const char *name, unsigned flags, kh_rv64_result *res)
{
    kh_rv64_elf elf;
    if (r6_example_elf(name, &elf)) return -1;
    char err[512];
    kh_rv64_flat *f = kh_rv64_flat_new(&elf, 2, flags, NULL, err, sizeof err);
    kh_rv64_elf_free(&elf);
    if (!f) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return -1;
    }
    kh_rv64_flat_run(f, 10000000, res);
    kh_rv64_flat_free(f);
    return 0;
}

/* one byte per trap: {level[7:6], interrupt[5], code[4:0]} (flat_traps.c) */
static uint64_t ev(unsigned level, int irq, unsigned code) { return (uint64_t)(level << 6 | (unsigned)irq << 5 | code); }

/* flat_traps.c: the system call U -> S (ECALL from U, 8, delegated) -> M
 * (ECALL from S, 9); the illegal word in U -> M (2, not delegated); the
 * breakpoint U -> S (3, delegated); the timer in M (interrupt 7: taken from
 * U whatever MIE is); the exit U -> S (8) -> M (9); the answer 2 * 5 + 1 */
static void three_level_trap_handler(void)
{
    kh_rv64_result res;
    if (run_flat("flat_traps", KH_RV64_FLAT_BARE, &res)) return;
    const uint64_t seq[7] = {ev(1, 0, 8), ev(3, 0, 9), ev(3, 0, 2), ev(1, 0, 3),
                             ev(3, 1, 7), ev(1, 0, 8), ev(3, 0, 9)};
    uint64_t want = (uint64_t)(2 * 5 + 1) << 56;
    for (unsigned i = 0; i < 7; i++) want |= seq[i] << (8 * i);
    CHECK_EQ(res.end, KH_RV64_END_EXIT);
    CHECK_EQ(res.code, want);
}

/* flat_sv39.c: faults in order load page fault 13 (the unmapped page),
 * store page fault 15 (D clear), ECALL from U 8; each store wrote
 * 41 + 1 + 0 = 42, read back three times */
static void sv39_user_pages(void)
{
    kh_rv64_result res;
    if (run_flat("flat_sv39", 0, &res)) return;
    CHECK_EQ(res.end, KH_RV64_END_EXIT);
    CHECK_EQ(res.code, (uint64_t)(3 * 42) << 32 | 8u << 16 | 15u << 8 | 13u);
    /* without the MMU (the bare core) the user addresses reach nothing */
    if (run_flat("flat_sv39", KH_RV64_FLAT_BARE, &res)) return;
    CHECK(res.code != ((uint64_t)(3 * 42) << 32 | 8u << 16 | 15u << 8 | 13u));
}

/* the default machine with the RV64 complex (cpu_rv64 = 1); map_text NULL
 * is the default picture */
static kh_machine *node_machine_map(const char *map_text)
{
    kh_params p;
    char err[512];
    kh_params_default(&p);
    if (kh_params_set(&p, "cpu_rv64", "1", err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return NULL;
    }
    kh_machine *m = kh_machine_new(map_text, &p, err, sizeof err);
    if (!m) kh_test_fail(__FILE__, __LINE__, "%s", err);
    return m;
}

static kh_machine *node_machine(void) { return node_machine_map(NULL); }

static int run_node(kh_machine *m, const char *name, kh_rv64_result *res)
{
    kh_rv64_elf elf;
    if (r6_example_elf(name, &elf)) return -1;
    char err[2048];
    int rc = kh_rv64_node_run(m, 0, &elf, 5000000, res, err, sizeof err);
    kh_rv64_elf_free(&elf);
    if (rc) kh_test_fail(__FILE__, __LINE__, "%s", err);
    return rc;
}

static uint64_t mover_pattern(uint64_t i) { return UINT64_C(0x9e3779b97f4a7c15) * (i + 1) ^ (i << 40); }

/* node_mover.c: 48 words copied by the mover from DRAM 0x1010_0000 to
 * 0x1020_0000; the program checks them itself (exit 0) and the host reads
 * the destination through the card's memory window */
static void node_program_drives_the_mover(void)
{
    kh_machine *m = node_machine();
    if (!m) return;
    kh_rv64_result res;
    if (run_node(m, "node_mover", &res) == 0) {
        CHECK_EQ(res.end, KH_RV64_END_EXIT);
        CHECK_EQ(res.code, 0);
        CHECK(res.instret > 48 * 4);
        uint64_t got[4 * 48];
        char err[256];
        CHECK_EQ(kh_card_read_block(kh_machine_card(m), kh_host_dram(0, 0x10200000), got, sizeof got, err,
                                    sizeof err), 0);
        unsigned bad = 0;
        for (unsigned i = 0; i < 4 * 48; i++) bad += got[i] != mover_pattern(i);
        CHECK_EQ(bad, 0);
        uint64_t aux = kh_node_aux_stat(kh_machine_node(m), kh_sim_now(kh_machine_sim(m)));
        CHECK_EQ(kh_orch_aux_stat_moves(&aux), 1);
    }
    kh_machine_free(m);
}

/* node_dispatch.c: three no-op instructions to the cluster at (1,0); the
 * completions come back to the processor, not to the orchestrator */
static void node_program_dispatches_through_the_mailbox(void)
{
    kh_machine *m = node_machine();
    if (!m) return;
    kh_rv64_result res;
    if (run_node(m, "node_dispatch", &res) == 0) {
        CHECK_EQ(res.end, KH_RV64_END_EXIT);
        CHECK_EQ(res.code, 0);
        uint64_t done;
        char err[256];
        CHECK_EQ(kh_card_read64(kh_machine_card(m), kh_host_ctrl(0, KH_ORCH_SIG_DONE), &done, err, sizeof err), 0);
        CHECK_EQ(done, 0);
    }
    kh_machine_free(m);
}

/* node_kick_pe.c: the node processor loads four instruction words into
 * the RV64 unit at (1,0) with typed mailbox flits and boots it; the unit
 * runs them (three up to its exit store, and the jump in E when the exit
 * reaches the core) and its completion returns to the processor */
static void node_program_loads_and_kicks_a_unit(void)
{
    static const char map[] = "xxx r64 vec xxx\n"
                              "mag mat mat xxx\n"
                              "mag mat mat xxx\n"
                              "xxx mat vec xxx\n";
    kh_machine *m = node_machine_map(map);
    if (!m) return;
    kh_rv64_result res;
    if (run_node(m, "node_kick_pe", &res) == 0) {
        CHECK_EQ(res.end, KH_RV64_END_EXIT);
        CHECK_EQ(res.code, 0);
        kh_cu *pe = kh_machine_unit_at(m, 0, 1, 0);
        CHECK(pe != NULL);
        if (pe) CHECK_EQ(kh_cu_kind(pe)->dbg(kh_cu_unit(pe)) >> 32, 4);
    }
    kh_machine_free(m);
}

/* node_sv39.c: flat_sv39.c's user program on the node's processor, the
 * table in node DRAM and every trap taken in M: the same faults in the same
 * order (13, 15, then the ECALL from U, 8) and the same three stores of 42 */
static void node_sv39_user_pages(void)
{
    kh_machine *m = node_machine();
    if (!m) return;
    kh_rv64_result res;
    if (run_node(m, "node_sv39", &res) == 0) {
        CHECK_EQ(res.end, KH_RV64_END_EXIT);
        CHECK_EQ(res.code, (uint64_t)(3 * 42) << 32 | 8u << 16 | 15u << 8 | 13u);
    }
    kh_machine_free(m);
}

int main(void)
{
    KH_RUN(three_level_trap_handler);
    KH_RUN(sv39_user_pages);
    KH_RUN(node_sv39_user_pages);
    KH_RUN(node_program_drives_the_mover);
    KH_RUN(node_program_dispatches_through_the_mailbox);
    KH_RUN(node_program_loads_and_kicks_a_unit);
    return kh_test_end("t_rv64_programs");
}
