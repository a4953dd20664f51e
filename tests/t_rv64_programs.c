/* The example programs of examples/rv64 (built by `make rv64` with Debian's
 * gcc-riscv64-unknown-elf; each test skips, saying so, when its ELF is not
 * there). Expected values are worked out here from the programs' own
 * descriptions and the RISC-V specification's cause codes. */
#include <unistd.h>

#include "rv64_kit.h"

static int load(const char *name, kh_rv64_elf *elf)
{
    char path[512], err[512];
    const char *b = getenv("BUILD");
    snprintf(path, sizeof path, "%s/rv64/%s.elf", b ? b : "build", name);
    if (access(path, R_OK)) {
        printf("skip: %s not built (make rv64 needs riscv64-unknown-elf-gcc)\n", path);
        return -1;
    }
    if (kh_rv64_elf_read(path, elf, err, sizeof err)) {
        kh_test_fail(__FILE__, __LINE__, "%s", err);
        return -1;
    }
    return 0;
}

static int run_flat(const char *name, unsigned flags, kh_rv64_result *res)
{
    kh_rv64_elf elf;
    if (load(name, &elf)) return -1;
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

int main(void)
{
    KH_RUN(three_level_trap_handler);
    KH_RUN(sv39_user_pages);
    return kh_test_end("t_rv64_programs");
}
