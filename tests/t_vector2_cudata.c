/* F_CUDATA on the V2 core (docs/vector2.md §8; vec_cu at 54cc4015): the one
 * fault upstream's core-alone harness cannot reach, as it sends CU_INST
 * payloads only. A CU_DATA burst the frame refuses (buffer not 0, or offset
 * + len past L1) or one interleaved by another source marks an error; the
 * next RUN retires at once as fault 9, or a running program faults at its
 * next instruction. An accepted burst lands in L1 for a V2 kernel to drain. */
#include "vec_kit.h"

#include "kohaku/gen/vector2.h"

static uint32_t v2_word(unsigned op)
{
    uint64_t w = 0;
    kh_v2_set_op(&w, op);
    return (uint32_t)w;
}
static uint32_t v2_drain(unsigned ad, unsigned l1)
{
    uint64_t w = v2_word(KH_V2_OP_VDRAIN);
    kh_v2_set_ad(&w, ad);
    kh_v2_set_start(&w, l1);
    return (uint32_t)w;
}
static uint32_t v2_seti(unsigned sreg)
{
    uint64_t w = v2_word(KH_V2_OP_VSETI);
    kh_v2_set_sreg(&w, sreg);
    return (uint32_t)w;
}
static uint32_t v2_imm(uint32_t v)
{
    uint64_t w = 0;
    kh_v2_imm_set_imm(&w, v);
    return (uint32_t)w;
}
static uint32_t v2_loop(unsigned sreg, unsigned body)
{
    uint64_t w = v2_word(KH_V2_OP_VLOOP);
    kh_v2_set_vsreg(&w, sreg);
    kh_v2_set_body(&w, body);
    return (uint32_t)w;
}
static uint32_t v2_mov(unsigned vd, unsigned va)
{
    uint64_t w = v2_word(KH_V2_OP_VMOV);
    kh_v2_set_vd(&w, vd);
    kh_v2_set_va(&w, va);
    return (uint32_t)w;
}

static kh_ubench *bench(void) { return vk_bench_kind(&kh_unit_vector2, 0); }

static void burst(kh_ubench *b, kh_cycle at, unsigned buf, unsigned off, unsigned len, unsigned sx, uint64_t base)
{
    kh_flit d = vk_cudata_desc(buf, off, len, sx, 2);
    kh_ubench_inject(b, &d, at);
    for (unsigned i = 0; i <= len; i++) {
        kh_flit w = vk_cudata_word(sx, 2, base + i, i == len);
        kh_ubench_inject(b, &w, at);
    }
}

/* The accepted burst is in L1: a V2 VDRAIN of its two words writes them out. */
static void accepted_burst_drains_from_l1(void)
{
    kh_ubench *b = bench();
    burst(b, 0, 0, 40, 1, 0, 0x1234);
    vk_desc1(b, 1, 0x5000, 32, 2);
    vk_prog p = {.n = 0};
    vk_emit(&p, v2_drain(1, 40));
    vk_emit(&p, v2_word(KH_V2_OP_VHALT));
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(vk_last(b).code, 0);
    CHECK_EQ(vk_rd_f32(b, 0x5000), 0x1234u);
    CHECK_EQ(vk_rd_f32(b, 0x5020), 0x1235u);
    kh_ubench_free(b);
}

/* Refused before the RUN (buffer 1; 510 + 2 = 512 past L1): the RUN retires
 * at once as fault 9 and nothing it would drain leaves. */
static void refused_burst_faults_the_next_run(void)
{
    for (int k = 0; k < 2; k++) {
        kh_ubench *b = bench();
        if (k == 0)
            burst(b, 0, 1, 0, 3, 0, 0x50);
        else
            burst(b, 0, 0, 510, 2, 0, 0x60);
        vk_desc1(b, 1, 0x5000, 32, 1);
        vk_prog p = {.n = 0};
        vk_emit(&p, v2_drain(1, 0));
        vk_emit(&p, v2_word(KH_V2_OP_VHALT));
        vk_load(b, 0, &p);
        vk_run(b, 0);
        vk_go(b);
        vk_comp c = vk_last(b);
        CHECK_EQ(c.code, 4); /* fault */
        CHECK_EQ(c.arg, 9u); /* F_CUDATA */
        CHECK_EQ(vk_rd_f32(b, 0x5000), 0u);
        kh_ubench_free(b);
    }
}

/* A data flit from another source in the middle of a burst, while a long
 * loop runs: the running program faults with 9 before its loop ends; the
 * RUN after it runs clean (the error was consumed). */
static void interleaved_burst_faults_the_running_program(void)
{
    kh_ubench *b = bench();
    vk_prog p = {.n = 0};
    vk_emit(&p, v2_seti(5));
    vk_emit(&p, v2_imm(4000));
    vk_emit(&p, v2_loop(5, 1));
    vk_emit(&p, v2_mov(1, 0));
    vk_emit(&p, v2_word(KH_V2_OP_VHALT));
    vk_load(b, 0, &p);
    vk_run(b, 0);
    kh_flit d = vk_cudata_desc(0, 20, 2, 0, 2);
    kh_flit w0 = vk_cudata_word(0, 2, 1, 0), x = vk_cudata_word(3, 2, 9, 0);
    kh_ubench_inject(b, &d, 400);
    kh_ubench_inject(b, &w0, 400);
    kh_ubench_inject(b, &x, 400);
    vk_go(b);
    vk_comp c = vk_last(b);
    CHECK_EQ(c.code, 4);
    CHECK_EQ(c.arg, 9u);
    vk_run(b, 4); /* VHALT alone */
    vk_go(b);
    CHECK_EQ(vk_last(b).code, 0);
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(accepted_burst_drains_from_l1);
    KH_RUN(refused_burst_faults_the_next_run);
    KH_RUN(interleaved_burst_faults_the_running_program);
    return kh_test_end("t_vector2_cudata");
}
