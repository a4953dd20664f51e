/* The worked numeric examples of numerics.md §8-§9 for the vector format and
 * ALU, each reaching the core through a kernel (FP32 or FP16 loads, one ALU
 * op, FP32 or FP16 stores). Expected values are the examples' own. */
#include "vec_kit.h"

static vk_io K;

/* One ALU op over element pairs given as E8M15 bit patterns. */
static void alu_examples(unsigned op, const uint32_t *a, const uint32_t *b, const uint32_t *c,
                         const uint32_t *want, unsigned n)
{
    memset(&K, 0, sizeof K);
    for (unsigned e = 0; e < 128; e++) {
        K.in[0][e] = a[e % n];
        K.in[1][e] = b[e % n];
        K.in[2][e] = c[e % n];
    }
    vk_alu w = {op, 4, 0, 1, 2, 0, 0, 0, 0, 0};
    vk_emit(&K.body, vk_word_alu(w));
    K.out_reg = 4;
    vk_run_io(&K);
    CHECK_EQ(K.done.code, 0);
    for (unsigned e = 0; e < n; e++)
        if (K.out[e] != want[e])
            kh_test_fail(__FILE__, __LINE__, "example %u: got 0x%06x want 0x%06x", e, K.out[e], want[e]);
}

/* numerics §9.3 item 1: a zero addend sets the sticky, so an exact halfway
 * product rounds away from zero. */
static void mul_halfway_rounds_away(void)
{
    const uint32_t a[] = {0x3FD600}, b[] = {0x3FBCC0}, c[] = {0}, want[] = {0x401DC9};
    alu_examples(KH_VINNER_OP_VMUL, a, b, c, want, 1);
}

/* numerics §9.3 item 2: ADD(+0, -0) = -0, ADD(-0, +0) = +0. */
static void add_signed_zero_takes_the_addend_sign(void)
{
    const uint32_t a[] = {0x000000, 0x800000}, b[] = {0, 0}, c[] = {0x800000, 0x000000};
    const uint32_t want[] = {0x800000, 0x000000};
    alu_examples(KH_VINNER_OP_VADD, a, b, c, want, 2);
}

/* numerics §9.3 worked examples. */
static void fma_worked_examples(void)
{
    const uint32_t a[] = {vk_e8(1.5)}, b[] = {vk_e8(2.0)}, c[] = {vk_e8(0.25)}, want[] = {0x405000};
    alu_examples(KH_VINNER_OP_VFMA, a, b, c, want, 1);
}
static void add_sub_worked_examples(void)
{
    /* ADD(1.0, 2^-20) = 0x3F8000; ADD(+Inf, -Inf) = 0x7FC000 */
    const uint32_t a[] = {0x3F8000, 0x7F8000}, b[] = {0, 0}, c[] = {vk_e8(0x1p-20), 0xFF8000};
    const uint32_t want[] = {0x3F8000, 0x7FC000};
    alu_examples(KH_VINNER_OP_VADD, a, b, c, want, 2);
    const uint32_t sa[] = {0x3F8000}, sb[] = {0}, sc[] = {0x3F8000}, swant[] = {0x000000};
    alu_examples(KH_VINNER_OP_VSUB, sa, sb, sc, swant, 1); /* SUB(1, 1) = +0 */
}
static void mul_worked_examples(void)
{
    /* MUL(2^100, 2^100) = +Inf; MUL(2^-100, 2^-100) = +0 (flush); MUL(0, Inf) = NaN */
    const uint32_t a[] = {vk_e8(0x1p100), vk_e8(0x1p-100), 0x000000};
    const uint32_t b[] = {vk_e8(0x1p100), vk_e8(0x1p-100), 0x7F8000};
    const uint32_t c[] = {0, 0, 0};
    const uint32_t want[] = {0x7F8000, 0x000000, 0x7FC000};
    alu_examples(KH_VINNER_OP_VMUL, a, b, c, want, 3);
}

/* numerics §8.2: E8M15 -> FP16 on VST dt 1: saturation, Inf passes,
 * subnormals produced, ties to even. Values enter through FP32 loads. */
static void fp16_store_examples(void)
{
    static const uint32_t in[] = {0x477FE0, 0x477FF0, 0x497424, 0x338000, 0x330000, 0x7F8000, 0xFF8000};
    static const uint16_t want[] = {0x7BFF, 0x7BFF, 0x7BFF, 0x0001, 0x0000, 0x7C00, 0xFC00};
    unsigned n = sizeof want / sizeof want[0];
    kh_ubench *b = vk_bench(0);
    uint32_t f32[128];
    for (unsigned e = 0; e < 128; e++) f32[e] = vk_f32_of_e8(in[e % n]);
    vk_mem_f32(b, VK_A_ADDR, f32, 128);
    vk_desc1(b, 0, VK_A_ADDR, 32, 16);
    vk_desc1(b, 5, 0, 1, 512);
    vk_desc1(b, 6, VK_O_ADDR, 32, 8);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vfill(0, 0));
    vk_emit(&p, vk_vbar());
    vk_emit(&p, vk_vld(0, 5, 0, 2));
    vk_emit(&p, vk_vst(0, 5, 32, 1));
    vk_emit(&p, vk_vdrain(6, 32));
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    for (unsigned e = 0; e < 128; e++)
        if (vk_rd_f16(b, VK_O_ADDR + 2 * e) != want[e % n]) {
            kh_test_fail(__FILE__, __LINE__, "element %u (0x%06x): got 0x%04x want 0x%04x", e,
                         in[e % n], vk_rd_f16(b, VK_O_ADDR + 2 * e), want[e % n]);
            break;
        }
    kh_ubench_free(b);
}

/* numerics §8.2: FP16 0x0001 -> 0x338000 (VLD dt 1); FP32 0x3F80FFFF ->
 * 0x3F8100 and 0x7F7FFFFF -> +Inf (VLD dt 2); results stored as FP32. */
static void load_conversion_examples(void)
{
    kh_ubench *b = vk_bench(0);
    uint16_t h[128];
    uint32_t f[128];
    for (unsigned e = 0; e < 128; e++) {
        h[e] = 0x0001;
        f[e] = e % 2 ? 0x7F7FFFFFu : 0x3F80FFFFu;
    }
    vk_mem_f16(b, VK_A_ADDR, h, 128);
    vk_mem_f32(b, VK_B_ADDR, f, 128);
    vk_desc1(b, 0, VK_A_ADDR, 32, 8);
    vk_desc1(b, 1, VK_B_ADDR, 32, 16);
    vk_desc1(b, 5, 0, 1, 512);
    vk_desc1(b, 6, VK_O_ADDR, 32, 32);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vfill(0, 0));
    vk_emit(&p, vk_vfill(1, 16));
    vk_emit(&p, vk_vbar());
    vk_emit(&p, vk_vld(0, 5, 0, 1));
    vk_emit(&p, vk_vld(1, 5, 16, 2));
    vk_emit(&p, vk_vst(0, 5, 64, 2));
    vk_emit(&p, vk_vst(1, 5, 80, 2));
    vk_emit(&p, vk_vdrain(6, 64));
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    for (unsigned e = 0; e < 128; e++) {
        CHECK_EQ(vk_rd_f32(b, VK_O_ADDR + 4 * e), 0x33800000u);
        CHECK_EQ(vk_rd_f32(b, VK_O_ADDR + 512 + 4 * e), e % 2 ? 0x7F800000u : 0x3F810000u);
    }
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(mul_halfway_rounds_away);
    KH_RUN(add_signed_zero_takes_the_addend_sign);
    KH_RUN(fma_worked_examples);
    KH_RUN(add_sub_worked_examples);
    KH_RUN(mul_worked_examples);
    KH_RUN(fp16_store_examples);
    KH_RUN(load_conversion_examples);
    return kh_test_end("t_vector_numerics");
}
