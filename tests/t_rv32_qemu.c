/* Differential test of the node processor's RV32I against an independent
 * implementation: QEMU's qemu-system-riscv32 (Debian's qemu-system-misc),
 * bare metal on its virt board. Random instruction streams (every RV32I
 * computational instruction, loads and stores of every width, forward
 * branches, JAL, JALR, FENCE) run once on each; the 29 free registers and a
 * 256-byte data window are compared after each stream. PC-relative results
 * (AUIPC, links) are made position-independent by subtracting a base taken
 * with AUIPC at the start, so code at 0 here and at 0x8000_0000 there
 * compute the same values. Needs qemu-system-riscv32 and
 * riscv64-unknown-elf-gcc; counted as skipped, naming the package, without them.
 * RV32_QEMU_STREAMS sets the stream count (default 128, at most 500 per
 * run), RV32_QEMU_SEED the generator's seed. */
#include <stdint.h>
#include <unistd.h>

#include "rv32_kit.h"

#define BODY 160
#define MAXW 1024
#define WIN_WORDS 64
#define BASE_REG 27 /* holds the AUIPC base */
#define DATA_REG 31 /* the data window */

enum { OPI = KH_RV32_OP_OP_IMM, OPR = KH_RV32_OP_OP_REG };

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static unsigned free_reg(void)
{
    unsigned r;
    do r = 1 + rnd() % 30;
    while (r == BASE_REG);
    return r;
}
/* any source but the two that differ between the platforms */
static unsigned any_reg(void)
{
    unsigned r;
    do r = rnd() % 32;
    while (r == BASE_REG || r == DATA_REG);
    return r;
}

typedef struct stream {
    uint32_t body[MAXW];
    unsigned n;
    uint32_t init[32];
    uint64_t executed; /* instructions the stream's body retires on our core */
} stream;

static void emit(stream *s, uint32_t w) { s->body[s->n++] = w; }
static uint32_t sub_base(unsigned rd) { return rv_r(OPR, 0, 0x20, rd, rd, BASE_REG); }

/* One random instruction (or a short idiom) into s. */
static void random_insn(stream *s, unsigned left)
{
    unsigned k = rnd() % 100, rd = free_reg(), a = any_reg(), b = any_reg();
    if (k < 30) { /* register-register */
        static const unsigned f3f7[10][2] = {{0, 0}, {0, 0x20}, {1, 0}, {2, 0}, {3, 0},
                                            {4, 0}, {5, 0}, {5, 0x20}, {6, 0}, {7, 0}};
        unsigned i = rnd() % 10;
        emit(s, rv_r(OPR, f3f7[i][0], f3f7[i][1], rd, a, b));
    } else if (k < 55) { /* immediates, shifts */
        unsigned f3 = rnd() % 8;
        int32_t imm = (int32_t)(rnd() % 4096) - 2048;
        if (rnd() % 4 == 0) imm = (rnd() % 2) ? 2047 : -2048;
        if (f3 == 1) imm = (int32_t)(rnd() % 32);
        if (f3 == 5) imm = (int32_t)(rnd() % 32) | (rnd() % 2 ? 0x400 : 0);
        emit(s, rv_i(OPI, f3, rd, a, imm));
    } else if (k < 60) {
        emit(s, RV_LUI(rd, rnd() & 0xFFFFF));
    } else if (k < 63) {
        emit(s, rv_u(KH_RV32_OP_AUIPC, rd, rnd() & 0xFFFFF));
        emit(s, sub_base(rd));
    } else if (k < 73) { /* loads from the window */
        static const unsigned f3s[5] = {0, 1, 2, 4, 5};
        unsigned f3 = f3s[rnd() % 5], align = f3 == 2 ? 4 : (f3 == 1 || f3 == 5) ? 2 : 1;
        emit(s, rv_i(KH_RV32_OP_LOAD, f3, rd, DATA_REG, (int32_t)((rnd() % 256) & ~(align - 1))));
    } else if (k < 83) { /* stores into the window */
        unsigned f3 = rnd() % 3, align = 1u << f3;
        emit(s, rv_s(f3, DATA_REG, b, (int32_t)((rnd() % 256) & ~(align - 1))));
    } else if (k < 92 && left > 6) { /* forward branch over 0..3 instructions */
        static const unsigned f3s[6] = {0, 1, 4, 5, 6, 7};
        unsigned skip = rnd() % 4;
        emit(s, rv_b(f3s[rnd() % 6], a, b, (int32_t)(4 * (skip + 1))));
        for (unsigned i = 0; i < skip; i++) emit(s, rv_i(OPI, 0, free_reg(), any_reg(), (int32_t)(rnd() % 100)));
    } else if (k < 95 && left > 4) { /* jal over one instruction, then make the link position-free */
        emit(s, rv_j(rd, 8));
        emit(s, rv_i(OPI, 0, free_reg(), any_reg(), 1));
        emit(s, sub_base(rd));
    } else if (k < 98 && left > 6) { /* auipc t; jalr rd, t, 13 -> t + 12 (bit 0 cleared) */
        unsigned t = free_reg();
        emit(s, rv_u(KH_RV32_OP_AUIPC, t, 0));
        emit(s, rv_i(KH_RV32_OP_JALR, 0, rd, t, 13));
        emit(s, rv_i(OPI, 0, free_reg(), any_reg(), 1)); /* skipped */
        emit(s, sub_base(rd));
        if (t != rd) emit(s, sub_base(t));
    } else {
        emit(s, rnd() % 2 ? 0x0FF0000F : 0x0000100F); /* fence, fence.i */
    }
}

static void make_stream(stream *s)
{
    memset(s, 0, sizeof *s);
    for (unsigned r = 1; r < 32; r++) s->init[r] = rnd() % 4 ? rnd() << 16 ^ rnd() : (rnd() % 5) - 2;
    while (s->n < BODY) random_insn(s, BODY - s->n);
}

/* prologue: data base, AUIPC base, registers, zeroed window */
static unsigned prologue(uint32_t *c, const stream *s, uint32_t data_base)
{
    unsigned n = rv_li(c, DATA_REG, data_base);
    c[n++] = rv_u(KH_RV32_OP_AUIPC, BASE_REG, 0);
    for (unsigned r = 1; r < 31; r++)
        if (r != BASE_REG) n += rv_li(c + n, r, s->init[r]);
    for (unsigned i = 0; i < WIN_WORDS; i++) c[n++] = RV_SW(DATA_REG, 0, (int32_t)(4 * i));
    return n;
}

static int have(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

/* ---- our side ---- */

static void run_ours(const stream *s, uint32_t out[29 + WIN_WORDS], uint64_t *executed)
{
    static uint32_t c[2048];
    unsigned n = prologue(c, s, 0x10000100);
    unsigned pro = n;
    memcpy(c + n, s->body, s->n * 4);
    n += s->n;
    c[n++] = RV_ECALL;
    rv_run r;
    rv_exec(&r, NULL, c, n, NULL, 0, 0);
    CHECK_EQ(r.rc, 0);
    CHECK_EQ(r.st.cause, 1);
    unsigned k = 0;
    for (unsigned reg = 1; reg < 31; reg++)
        if (reg != BASE_REG) out[k++] = r.st.x[reg];
    kh_rv32 *cpu = kh_machine_cpu_at(r.m, 0);
    for (unsigned i = 0; i < WIN_WORDS; i++) out[k++] = kh_rv32_spad_word(cpu, 0x100 / 4 + i);
    *executed = r.st.instret - pro - 1;
    rv_done(&r);
}

/* ---- QEMU's side: one image with every stream, printing as it goes ---- */

static const char epilogue_fmt[] =
    "    .irp r,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,28,29,30\n"
    "    sw x\\r, 256+4*\\r(x31)\n"
    "    .endr\n"
    "    addi a0, x31, 256+4\n    li a1, 26\n    call print\n"
    "    addi a0, x31, 256+4*28\n    li a1, 3\n    call print\n"
    "    mv a0, x31\n    li a1, %d\n    call print\n";

static const char tail[] =
    "    li t0, 0x100000\n    li t1, 0x5555\n    sw t1, 0(t0)\n1:  j 1b\n"
    "print:\n    li t0, 0x10000000\n"
    "1:  beqz a1, 9f\n    lw t1, 0(a0)\n    li t2, 8\n"
    "2:  srli t3, t1, 28\n    slli t1, t1, 4\n    li t4, 10\n    blt t3, t4, 3f\n    addi t3, t3, 39\n"
    "3:  addi t3, t3, 48\n    sb t3, 0(t0)\n    addi t2, t2, -1\n    bnez t2, 2b\n"
    "    li t3, 10\n    sb t3, 0(t0)\n    addi a0, a0, 4\n    addi a1, a1, -1\n    j 1b\n"
    "9:  ret\n";

static int run_qemu(const stream *st, unsigned ns, const char *dir, uint32_t *out)
{
    char path[600], cmd[2000];
    snprintf(path, sizeof path, "%s/diff.S", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "    .section .text\n    .globl _start\n_start:\n");
    static uint32_t c[2048];
    for (unsigned i = 0; i < ns; i++) {
        unsigned n = prologue(c, &st[i], 0x80100000);
        memcpy(c + n, st[i].body, st[i].n * 4);
        n += st[i].n;
        for (unsigned k = 0; k < n; k++) fprintf(f, "    .word 0x%08x\n", c[k]);
        fprintf(f, epilogue_fmt, WIN_WORDS);
    }
    fputs(tail, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "riscv64-unknown-elf-gcc -march=rv32i -mabi=ilp32 -nostdlib -nostartfiles -Wl,-Ttext=0x80000000 "
             "-o %s/diff.elf %s/diff.S && timeout 60 qemu-system-riscv32 -machine virt -bios none -display none "
             "-monitor none -serial stdio -kernel %s/diff.elf > %s/diff.out",
             dir, dir, dir, dir);
    if (system(cmd) != 0) return -1;
    snprintf(path, sizeof path, "%s/diff.out", dir);
    f = fopen(path, "r");
    if (!f) return -1;
    unsigned want = ns * (29 + WIN_WORDS), got = 0;
    char line[64];
    while (got < want && fgets(line, sizeof line, f)) {
        unsigned v;
        if (sscanf(line, "%8x", &v) == 1) out[got++] = v;
    }
    fclose(f);
    return got == want ? 0 : -1;
}

static void random_streams_match_qemu(void)
{
    static const struct {
        const char *tool, *package; /* the command, the Debian package that has it */
    } need[] = {{"qemu-system-riscv32", "qemu-system-misc"},
                {"riscv64-unknown-elf-gcc", "gcc-riscv64-unknown-elf"},
                {"timeout", "coreutils"}};
    int lacking = 0;
    for (unsigned i = 0; i < sizeof need / sizeof need[0]; i++) {
        if (have(need[i].tool)) continue;
        char why[128];
        snprintf(why, sizeof why, "%s not found: no differential run", need[i].tool);
        kh_test_skip(need[i].package, why);
        lacking = 1;
    }
    if (lacking) return;
    const char *env = getenv("RV32_QEMU_STREAMS");
    unsigned ns = env ? (unsigned)atoi(env) : 128;
    if (ns < 1 || ns > 500) ns = 128;
    const char *seed = getenv("RV32_QEMU_SEED");
    if (seed) rng ^= strtoull(seed, NULL, 0) * 0x2545F4914F6CDD1Dull;
    stream *st = calloc(ns, sizeof *st);
    uint32_t *theirs = calloc((size_t)ns * (29 + WIN_WORDS), 4);
    char dir[] = "/tmp/kh_rv32_qemu_XXXXXX";
    if (!st || !theirs || !mkdtemp(dir)) {
        kh_test_fail(__FILE__, __LINE__, "no memory or no temporary directory");
        free(st);
        free(theirs);
        return;
    }
    for (unsigned i = 0; i < ns; i++) make_stream(&st[i]);
    if (run_qemu(st, ns, dir, theirs)) {
        kh_test_fail(__FILE__, __LINE__, "building or running the QEMU image failed (see %s)", dir);
    } else {
        uint64_t insns = 0, mismatches = 0;
        for (unsigned i = 0; i < ns; i++) {
            uint32_t ours[29 + WIN_WORDS];
            uint64_t ex = 0;
            run_ours(&st[i], ours, &ex);
            insns += ex;
            const uint32_t *t = theirs + (size_t)i * (29 + WIN_WORDS);
            for (unsigned k = 0; k < 29 + WIN_WORDS; k++)
                if (ours[k] != t[k] && mismatches++ < 5)
                    kh_test_fail(__FILE__, __LINE__, "stream %u: %s %u is 0x%08x here, 0x%08x in QEMU", i,
                                 k < 29 ? "register slot" : "window word", k < 29 ? k : k - 29, ours[k], t[k]);
        }
        CHECK_EQ(mismatches, 0);
        printf("differential: %u streams, %llu body instructions executed, %llu mismatches against QEMU\n", ns,
               (unsigned long long)insns, (unsigned long long)mismatches);
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd)) {}
    }
    free(st);
    free(theirs);
}

int main(void)
{
    KH_RUN(random_streams_match_qemu);
    return kh_test_end("t_rv32_qemu");
}
