/* The RV64 core's cycle counts (docs/rv64.md §12) against RTL recordings:
 * each micro program below was run on upstream's rv64_core (revision
 * e9de8c0, FETCH_LAT 2) under Verilator 5.006 in the flat bench that counts
 * as upstream's rv64_core_main.cpp does, and its `instret` and `cycles`
 * are written next to it. The programs are words, not compiler output, so
 * the recordings stay valid. RV64_DUMP_ELF=DIR writes each program as an
 * ELF (entry 0x8000_0000) to record them again. Also one rule per cost,
 * measured as a difference of two runs. */
#include <errno.h>

#include "rv64_kit.h"

typedef struct micro {
    const char *name;
    void (*build)(r6_prog *p);
    uint64_t instret, cycles; /* the RTL's */
} micro;

static void loop_n(r6_prog *p, unsigned reg, int64_t n) { r6_li_to(p, reg, n); }

/* straight-line arithmetic: one instruction a cycle */
static void straight(r6_prog *p)
{
    for (unsigned i = 0; i < 64; i++) r6_emit(p, R6_ADDI(1 + i % 8, 1 + (i + 3) % 8, (int32_t)i));
}

/* a counted loop long enough for the predictor's power-on sweep to end */
static void counted_loop(r6_prog *p)
{
    loop_n(p, 5, 700);
    r6_emit(p, R6_ADDI(6, 6, 3));
    r6_emit(p, R6_ADDI(5, 5, -1));
    r6_emit(p, r6_b(1, 5, 0, -8)); /* bne x5, x0, -8 */
}

/* load followed by its use, in a loop */
static void load_use(r6_prog *p)
{
    r6_li_to(p, 10, (int64_t)R6_DATA);
    loop_n(p, 5, 300);
    r6_emit(p, R6_LD_(6, 10, 0));
    r6_emit(p, R6_ADD(7, 6, 7));   /* uses the load at once */
    r6_emit(p, R6_ADDI(5, 5, -1));
    r6_emit(p, r6_b(1, 5, 0, -12));
}

/* the same load with one independent instruction before its use */
static void load_gap(r6_prog *p)
{
    r6_li_to(p, 10, (int64_t)R6_DATA);
    loop_n(p, 5, 300);
    r6_emit(p, R6_LD_(6, 10, 0));
    r6_emit(p, R6_ADDI(5, 5, -1));
    r6_emit(p, R6_ADD(7, 6, 7));
    r6_emit(p, r6_b(1, 5, 0, -12));
}

/* calls and returns: JAL to a leaf, JALR x0, ra back (the stack predicts) */
static void calls(r6_prog *p)
{
    loop_n(p, 5, 400);
    unsigned top = p->n;
    r6_emit(p, r6_j(1, 16));              /* call leaf */
    r6_emit(p, R6_ADDI(5, 5, -1));
    r6_emit(p, r6_b(1, 5, 0, -8));
    r6_emit(p, r6_j(0, 12));              /* out */
    r6_emit(p, R6_ADDI(6, 6, 1));         /* leaf */
    r6_emit(p, r6_i(KH_RV64_OP_JALR, 0, 0, 1, 0));
    (void)top;
}

/* a branch that alternates: the history table learns it */
static void alternating(r6_prog *p)
{
    loop_n(p, 5, 500);
    r6_emit(p, r6_i(R6_OPI, 7, 6, 5, 1));  /* andi x6, x5, 1 */
    r6_emit(p, r6_b(0, 6, 0, 8));          /* beq x6, x0, +8 */
    r6_emit(p, R6_ADDI(7, 7, 1));
    r6_emit(p, R6_ADDI(5, 5, -1));
    r6_emit(p, r6_b(1, 5, 0, -16));
}

/* multiply and divide in a loop */
static void muldiv(r6_prog *p)
{
    loop_n(p, 5, 20);
    r6_li_to(p, 8, 12345);
    r6_emit(p, r6_r(R6_OP, 0, 1, 6, 5, 8));   /* mul */
    r6_emit(p, r6_r(R6_OP, 4, 1, 7, 6, 5));   /* div */
    r6_emit(p, r6_r(R6_OP32, 0, 1, 9, 6, 8)); /* mulw */
    r6_emit(p, R6_ADDI(5, 5, -1));
    r6_emit(p, r6_b(1, 5, 0, -16));
}

/* CSR reads and writes */
static void csrs(r6_prog *p)
{
    for (unsigned i = 0; i < 16; i++) {
        r6_emit(p, r6_csr(1, 6, 7, 0x340));   /* csrrw mscratch */
        r6_emit(p, r6_csr(2, 8, 0, 0xB02));   /* csrr minstret */
        r6_emit(p, R6_ADDI(7, 7, 1));
    }
}

/* AMOs, LR/SC */
static void atomics(r6_prog *p)
{
    r6_li_to(p, 10, (int64_t)R6_DATA);
    loop_n(p, 5, 30);
    r6_emit(p, r6_amo(0x00, 3, 6, 10, 5));    /* amoadd.d */
    r6_emit(p, r6_amo(0x02, 3, 7, 10, 0));    /* lr.d */
    r6_emit(p, r6_amo(0x03, 3, 8, 10, 7));    /* sc.d: succeeds */
    r6_emit(p, r6_amo(0x03, 3, 9, 10, 7));    /* sc.d: fails */
    r6_emit(p, R6_ADDI(5, 5, -1));
    r6_emit(p, r6_b(1, 5, 0, -20));
}

/* a trap and MRET each iteration */
static void traps(r6_prog *p)
{
    r6_emit(p, r6_j(0, 20));                  /* over the handler */
    r6_emit(p, r6_csr(2, 6, 0, 0x341));       /* handler: csrr mepc */
    r6_emit(p, R6_ADDI(6, 6, 4));
    r6_emit(p, r6_csr(1, 0, 6, 0x341));       /* csrw mepc */
    r6_emit(p, R6_MRET);
    r6_li_to(p, 6, (int64_t)(R6_BASE + 4));
    r6_emit(p, r6_csr(1, 0, 6, 0x305));       /* csrw mtvec */
    loop_n(p, 5, 40);
    r6_emit(p, R6_ECALL);
    r6_emit(p, R6_ADDI(5, 5, -1));
    r6_emit(p, r6_b(1, 5, 0, -8));
}

static const micro micros[] = {
    {"straight", straight, 66, 70},
    {"counted_loop", counted_loop, 2103, 3803},
    {"load_use", load_use, 1206, 2340},
    {"load_gap", load_gap, 1206, 2068},
    {"calls", calls, 2004, 5160},
    {"alternating", alternating, 2253, 4453},
    {"muldiv", muldiv, 105, 1815},
    {"csrs", csrs, 50, 86},
    {"atomics", atomics, 186, 606},
    {"traps", traps, 248, 853},
};

static void build(const micro *m, r6_prog *p)
{
    p->n = 0;
    m->build(p);
    r6_exit_with(p, 0);
}

/* RV64_DUMP_ELF=DIR: each program as a minimal ELF64 (one PT_LOAD at its base) */
static void dump_elf(const char *dir, const char *name, const r6_prog *p)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.elf", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        printf("cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    uint8_t h[120] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    uint64_t code = 4u * p->n;
#define PUT(off, v, n) for (unsigned b_ = 0; b_ < (n); b_++) h[(off) + b_] = (uint8_t)((uint64_t)(v) >> (8 * b_))
    PUT(16, 2, 2); PUT(18, 243, 2); PUT(20, 1, 4); PUT(24, R6_BASE, 8); PUT(32, 64, 8);
    PUT(52, 64, 2); PUT(54, 56, 2); PUT(56, 1, 2);
    PUT(64, 1, 4); PUT(68, 5, 4); PUT(72, 120, 8); PUT(80, R6_BASE, 8); PUT(88, R6_BASE, 8);
    PUT(96, code, 8); PUT(104, code, 8); PUT(112, 4, 8);
#undef PUT
    fwrite(h, 1, sizeof h, f);
    for (unsigned i = 0; i < p->n; i++) {
        uint8_t w[4] = {(uint8_t)p->w[i], (uint8_t)(p->w[i] >> 8), (uint8_t)(p->w[i] >> 16), (uint8_t)(p->w[i] >> 24)};
        fwrite(w, 1, 4, f);
    }
    fclose(f);
}

static void micro_programs_match_the_rtl(void)
{
    const char *dump = getenv("RV64_DUMP_ELF");
    static r6_prog p;
    for (unsigned i = 0; i < sizeof micros / sizeof micros[0]; i++) {
        build(&micros[i], &p);
        if (dump) dump_elf(dump, micros[i].name, &p);
        r6_run r;
        r6_exec(&r, &p, NULL, 0, KH_RV64_FLAT_BARE, 1000000);
        CHECK_EQ(r.res.end, KH_RV64_END_EXIT);
        if (r.res.instret != micros[i].instret || r.res.cycles != micros[i].cycles)
            kh_test_fail(__FILE__, __LINE__, "%s: instret %llu cycles %llu, the RTL %llu and %llu", micros[i].name,
                         (unsigned long long)r.res.instret, (unsigned long long)r.res.cycles,
                         (unsigned long long)micros[i].instret, (unsigned long long)micros[i].cycles);
        r6_done(&r);
    }
}

/* A run's cycles for a program built by fn. */
static uint64_t cycles_of(void (*fn)(r6_prog *p))
{
    static r6_prog p;
    p.n = 0;
    fn(&p);
    r6_exit_with(&p, 0);
    r6_run r;
    uint64_t data = 7;
    r6_exec(&r, &p, &data, 1, KH_RV64_FLAT_BARE, 1000000);
    uint64_t c = r.res.cycles;
    r6_done(&r);
    return c;
}

static unsigned k_filler;
static void k_loads(r6_prog *p)
{
    r6_li_to(p, 10, (int64_t)R6_DATA);
    for (unsigned i = 0; i < 32; i++) {
        r6_emit(p, R6_LD_(6, 10, 0));
        if (k_filler) r6_emit(p, R6_ADDI(9, 9, 1));
        r6_emit(p, R6_ADD(7, 6, 7));
        if (!k_filler) r6_emit(p, R6_ADDI(9, 9, 1));
    }
}

/* rv64.md §12: a load whose result the next instruction uses costs one cycle */
static void load_use_costs_one_cycle(void)
{
    k_filler = 0;
    uint64_t use = cycles_of(k_loads);
    k_filler = 1;
    uint64_t gap = cycles_of(k_loads);
    CHECK_EQ(use - gap, 32);
}

static unsigned k_kind;
static void k_op(r6_prog *p)
{
    for (unsigned i = 0; i < 8; i++) {
        switch (k_kind) {
        case 0: r6_emit(p, R6_ADDI(6, 6, 1)); break;
        case 1: r6_emit(p, r6_r(R6_OP, 0, 1, 6, 6, 6)); break;  /* mul */
        case 2: r6_emit(p, r6_r(R6_OP, 5, 1, 6, 6, 7)); break;  /* divu */
        case 3: r6_emit(p, r6_csr(2, 6, 0, 0x340)); break;      /* csrr mscratch */
        default: break;
        }
        r6_emit(p, R6_ADDI(8, 8, 1));
    }
}

/* rv64.md §5, §12: a multiply holds E 8 more cycles, a divide 66, a CSR
 * instruction 1 */
static void multicycle_costs(void)
{
    k_kind = 0;
    uint64_t base = cycles_of(k_op);
    k_kind = 1;
    CHECK_EQ(cycles_of(k_op) - base, 8 * 8);
    k_kind = 2;
    CHECK_EQ(cycles_of(k_op) - base, 8 * 66);
    k_kind = 3;
    CHECK_EQ(cycles_of(k_op) - base, 8 * 1);
}

int main(void)
{
    KH_RUN(micro_programs_match_the_rtl);
    KH_RUN(load_use_costs_one_cycle);
    KH_RUN(multicycle_costs);
    return kh_test_end("t_rv64_timing");
}
