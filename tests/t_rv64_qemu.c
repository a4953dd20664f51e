/* Differential test of the RV64 core's user-level instruction set against
 * an independent implementation: QEMU user mode (qemu-riscv64, Debian's
 * qemu-user). Random instruction streams (RV64I with the W forms, loads and
 * stores of every width, forward branches, JAL, JALR, the whole M extension,
 * AMOs and LR/SC pairs, FENCE) run once on each; the 28 free registers and a
 * 256-byte data window are compared after each stream. PC-relative results
 * (AUIPC, links) and addresses are made position-independent by subtracting
 * a base, so code here at 0x8000_0000 and there wherever Linux loads it
 * computes the same values. Needs qemu-riscv64 and riscv64-unknown-elf-gcc;
 * skipped with a message without them. RV64_QEMU_STREAMS sets the stream
 * count (default 96, at most 400), RV64_QEMU_SEED the generator's seed. */
#include <stdint.h>
#include <unistd.h>

#include "rv64_kit.h"

#define BODY 160
#define WIN 256               /* bytes of data window */
#define BASE_REG 27           /* the AUIPC base */
#define DATA_REG 31           /* the data window */
#define OUT_BYTES (WIN + 32 * 8)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned free_reg(void)
{
    unsigned r;
    do r = 1 + (unsigned)(rnd() % 30);
    while (r == BASE_REG);
    return r;
}
static unsigned any_reg(void)
{
    unsigned r;
    do r = (unsigned)(rnd() % 32);
    while (r == BASE_REG || r == DATA_REG);
    return r;
}

typedef struct stream {
    uint32_t body[BODY + 16];
    unsigned n;
    int64_t init[32];
} stream;

static void emit(stream *s, uint32_t w) { s->body[s->n++] = w; }
static uint32_t sub_base(unsigned rd, unsigned base) { return r6_r(R6_OP, 0, 0x20, rd, rd, base); }

static void random_insn(stream *s, unsigned left)
{
    unsigned k = (unsigned)(rnd() % 100), rd = free_reg(), a = any_reg(), b = any_reg();
    if (k < 20) { /* register-register, 64-bit and W */
        static const unsigned f3f7[10][2] = {{0, 0}, {0, 0x20}, {1, 0}, {2, 0}, {3, 0},
                                            {4, 0}, {5, 0}, {5, 0x20}, {6, 0}, {7, 0}};
        static const unsigned w3f7[5][2] = {{0, 0}, {0, 0x20}, {1, 0}, {5, 0}, {5, 0x20}};
        if (rnd() % 3) {
            unsigned i = (unsigned)(rnd() % 10);
            emit(s, r6_r(R6_OP, f3f7[i][0], f3f7[i][1], rd, a, b));
        } else {
            unsigned i = (unsigned)(rnd() % 5);
            emit(s, r6_r(R6_OP32, w3f7[i][0], w3f7[i][1], rd, a, b));
        }
    } else if (k < 38) { /* immediates, shifts, W forms */
        unsigned f3 = (unsigned)(rnd() % 8);
        int32_t imm = (int32_t)(rnd() % 4096) - 2048;
        if (rnd() % 4 == 0) imm = (rnd() % 2) ? 2047 : -2048;
        if (rnd() % 3 == 0) {
            static const unsigned w3[3] = {0, 1, 5};
            f3 = w3[rnd() % 3];
            if (f3 == 1) imm = (int32_t)(rnd() % 32);
            if (f3 == 5) imm = (int32_t)(rnd() % 32) | (rnd() % 2 ? 0x400 : 0);
            emit(s, r6_i(R6_OPI32, f3, rd, a, imm));
        } else {
            if (f3 == 1) imm = (int32_t)(rnd() % 64);
            if (f3 == 5) imm = (int32_t)(rnd() % 64) | (rnd() % 2 ? 0x400 : 0);
            emit(s, r6_i(R6_OPI, f3, rd, a, imm));
        }
    } else if (k < 50) { /* multiply and divide, 64-bit and W */
        if (rnd() % 3) emit(s, r6_r(R6_OP, (unsigned)(rnd() % 8), 1, rd, a, b));
        else {
            static const unsigned w3[5] = {0, 4, 5, 6, 7};
            emit(s, r6_r(R6_OP32, w3[rnd() % 5], 1, rd, a, b));
        }
    } else if (k < 53) {
        emit(s, r6_u(KH_RV64_OP_LUI, rd, (uint32_t)(rnd() & 0xFFFFF)));
    } else if (k < 55) {
        emit(s, r6_u(KH_RV64_OP_AUIPC, rd, (uint32_t)(rnd() & 0xFFFFF)));
        emit(s, sub_base(rd, BASE_REG));
    } else if (k < 65) { /* loads from the window */
        unsigned f3 = (unsigned)(rnd() % 7), align = 1u << (f3 & 3);
        emit(s, r6_i(R6_LD, f3, rd, DATA_REG, (int32_t)((rnd() % WIN) & ~(uint64_t)(align - 1))));
    } else if (k < 74) { /* stores into the window */
        unsigned f3 = (unsigned)(rnd() % 4), align = 1u << f3;
        emit(s, r6_s(f3, DATA_REG, b, (int32_t)((rnd() % WIN) & ~(uint64_t)(align - 1))));
    } else if (k < 80 && left > 5) { /* an AMO on an aligned window word */
        static const unsigned f5[9] = {0x01, 0x00, 0x04, 0x0C, 0x08, 0x10, 0x14, 0x18, 0x1C};
        unsigned w = (unsigned)(rnd() % 2), t = free_reg();
        while (t == rd || t == b) t = free_reg(); /* t holds an absolute address until it is rebased */
        emit(s, R6_ADDI(t, DATA_REG, (int32_t)((rnd() % WIN) & (w ? ~3u : ~7u))));
        emit(s, r6_amo(f5[rnd() % 9], w ? 2 : 3, rd, t, b));
        emit(s, sub_base(t, DATA_REG));
    } else if (k < 83 && left > 6) { /* an LR/SC pair on one word */
        unsigned w = (unsigned)(rnd() % 2), t = free_reg(), r2 = free_reg();
        while (t == rd || t == b) t = free_reg();
        while (r2 == t || r2 == rd) r2 = free_reg();
        emit(s, R6_ADDI(t, DATA_REG, (int32_t)((rnd() % WIN) & (w ? ~3u : ~7u))));
        emit(s, r6_amo(0x02, w ? 2 : 3, rd, t, 0));
        emit(s, r6_amo(0x03, w ? 2 : 3, r2, t, b));
        emit(s, sub_base(t, DATA_REG));
    } else if (k < 92 && left > 6) { /* forward branch over 0..3 instructions */
        static const unsigned f3s[6] = {0, 1, 4, 5, 6, 7};
        unsigned skip = (unsigned)(rnd() % 4);
        emit(s, r6_b(f3s[rnd() % 6], a, b, (int32_t)(4 * (skip + 1))));
        for (unsigned i = 0; i < skip; i++) emit(s, R6_ADDI(free_reg(), any_reg(), (int32_t)(rnd() % 100)));
    } else if (k < 95 && left > 4) { /* jal over one instruction */
        emit(s, r6_j(rd, 8));
        emit(s, R6_ADDI(free_reg(), any_reg(), 1));
        emit(s, sub_base(rd, BASE_REG));
    } else if (k < 98 && left > 6) { /* auipc t; jalr rd, t, 13 -> t + 12 */
        unsigned t = free_reg();
        emit(s, r6_u(KH_RV64_OP_AUIPC, t, 0));
        emit(s, r6_i(KH_RV64_OP_JALR, 0, rd, t, 13));
        emit(s, R6_ADDI(free_reg(), any_reg(), 1));
        emit(s, sub_base(rd, BASE_REG));
        if (t != rd) emit(s, sub_base(t, BASE_REG));
    } else {
        emit(s, rnd() % 2 ? 0x0FF0000Fu : 0x0000100Fu); /* fence, fence.i */
    }
}

static void make_stream(stream *s)
{
    memset(s, 0, sizeof *s);
    for (unsigned r = 1; r < 32; r++) {
        uint64_t v = rnd();
        switch (rnd() % 5) {
        case 0: v = (uint64_t)((int64_t)(rnd() % 9) - 4); break;
        case 1: v = (uint64_t)(int64_t)(int32_t)v; break;
        case 2: v = (rnd() % 2) ? (uint64_t)INT64_MIN : (uint64_t)INT32_MIN; break;
        default: break;
        }
        s->init[r] = (int64_t)v;
    }
    while (s->n < BODY) random_insn(s, BODY - s->n);
}

/* registers, the AUIPC base, a zeroed window (x31 already holds its base) */
static unsigned prologue(uint32_t *c, const stream *s)
{
    unsigned n = 0;
    c[n++] = r6_u(KH_RV64_OP_AUIPC, BASE_REG, 0);
    for (unsigned r = 1; r < 31; r++)
        if (r != BASE_REG) n += r6_li(c + n, r, s->init[r]);
    for (unsigned i = 0; i < WIN / 8; i++) c[n++] = R6_SD(DATA_REG, 0, (int32_t)(8 * i));
    return n;
}

static int have(const char *tool)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    return system(cmd) == 0;
}

/* ---- our side: the flat harness ---- */

static void run_ours(const stream *s, uint8_t out[OUT_BYTES])
{
    static r6_prog p;
    p.n = 0;
    r6_li_to(&p, DATA_REG, (int64_t)R6_DATA);
    p.n += prologue(p.w + p.n, s);
    memcpy(p.w + p.n, s->body, s->n * 4);
    p.n += s->n;
    r6_exit_with(&p, 0);
    r6_run r;
    if (r6_exec(&r, &p, NULL, 0, 0, 200000)) return;
    CHECK_EQ(r.res.end, KH_RV64_END_EXIT);
    for (unsigned i = 0; i < WIN; i++)
        out[i] = (uint8_t)(kh_rv64_flat_read64(r.f, (R6_DATA + i) & ~7ull) >> (8 * (i & 7)));
    for (unsigned reg = 0; reg < 32; reg++) {
        uint64_t v = reg == BASE_REG || reg == DATA_REG ? 0 : kh_rv64_reg(r.c, reg);
        for (unsigned b = 0; b < 8; b++) out[WIN + 8 * reg + b] = (uint8_t)(v >> (8 * b));
    }
    r6_done(&r);
}

/* ---- QEMU's side: one Linux program with every stream, writing the window
 * and the registers of each to standard output ---- */

static int run_qemu(const stream *st, unsigned ns, const char *dir, uint8_t *out)
{
    char path[600], cmd[2000];
    snprintf(path, sizeof path, "%s/diff.S", dir);
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "    .section .text\n    .globl _start\n_start:\n");
    static uint32_t c[4096];
    for (unsigned i = 0; i < ns; i++) {
        fprintf(f, "    la x31, window\n");
        unsigned n = prologue(c, &st[i]);
        memcpy(c + n, st[i].body, st[i].n * 4);
        n += st[i].n;
        for (unsigned k = 0; k < n; k++) fprintf(f, "    .word 0x%08x\n", c[k]);
        fprintf(f,
                "    .irp r,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,28,29,30\n"
                "    sd x\\r, %d+8*\\r(x31)\n"
                "    .endr\n"
                "    sd x0, %d+8*27(x31)\n    sd x0, %d+8*31(x31)\n    sd x0, %d(x31)\n"
                "    li a0, 1\n    mv a1, x31\n    li a2, %d\n    li a7, 64\n    ecall\n",
                WIN, WIN, WIN, WIN, OUT_BYTES);
    }
    fprintf(f, "    li a0, 0\n    li a7, 93\n    ecall\n"
               "    .section .bss\n    .balign 64\nwindow:\n    .space %d\n", OUT_BYTES);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "riscv64-unknown-elf-gcc -march=rv64ima -mabi=lp64 -static -nostdlib -nostartfiles "
             "-o %s/diff.elf %s/diff.S && timeout 120 qemu-riscv64 %s/diff.elf > %s/diff.out",
             dir, dir, dir, dir);
    if (system(cmd) != 0) return -1;
    snprintf(path, sizeof path, "%s/diff.out", dir);
    f = fopen(path, "rb");
    if (!f) return -1;
    size_t want = (size_t)ns * OUT_BYTES, got = fread(out, 1, want, f);
    fclose(f);
    return got == want ? 0 : -1;
}

static void random_streams_match_qemu(void)
{
    static const struct {
        const char *tool, *package; /* the command, the Debian package that has it */
    } need[] = {{"qemu-riscv64", "qemu-user"},
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
    const char *env = getenv("RV64_QEMU_STREAMS");
    unsigned ns = env ? (unsigned)atoi(env) : 96;
    if (ns < 1 || ns > 400) ns = 96;
    const char *seed = getenv("RV64_QEMU_SEED");
    if (seed) rng ^= strtoull(seed, NULL, 0) * 0x2545F4914F6CDD1Dull;
    stream *st = calloc(ns, sizeof *st);
    uint8_t *theirs = calloc((size_t)ns, OUT_BYTES);
    char dir[] = "/tmp/kh_rv64_qemu_XXXXXX";
    if (!st || !theirs || !mkdtemp(dir)) {
        kh_test_fail(__FILE__, __LINE__, "no memory or no temporary directory");
        free(st);
        free(theirs);
        return;
    }
    for (unsigned i = 0; i < ns; i++) make_stream(&st[i]);
    if (run_qemu(st, ns, dir, theirs)) {
        kh_test_fail(__FILE__, __LINE__, "building or running the QEMU program failed (see %s)", dir);
    } else {
        uint64_t mismatches = 0;
        for (unsigned i = 0; i < ns; i++) {
            uint8_t ours[OUT_BYTES];
            memset(ours, 0, sizeof ours);
            run_ours(&st[i], ours);
            const uint8_t *t = theirs + (size_t)i * OUT_BYTES;
            for (unsigned k = 0; k < OUT_BYTES; k += 8) {
                uint64_t a = 0, b = 0;
                for (unsigned j = 8; j-- > 0;) {
                    a = a << 8 | ours[k + j];
                    b = b << 8 | t[k + j];
                }
                if (a != b && mismatches++ < 5)
                    kh_test_fail(__FILE__, __LINE__, "stream %u: %s %u is 0x%016llx here, 0x%016llx in QEMU", i,
                                 k < WIN ? "window doubleword" : "register x", k < WIN ? k / 8 : (k - WIN) / 8,
                                 (unsigned long long)a, (unsigned long long)b);
            }
        }
        CHECK_EQ(mismatches, 0);
        printf("differential: %u streams of %u instructions, %llu mismatches against qemu-riscv64\n", ns, BODY,
               (unsigned long long)mismatches);
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
    return kh_test_end("t_rv64_qemu");
}
