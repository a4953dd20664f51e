/* Loads, stores and moves (vector.md §5.5, §3): VLD/VST in both dtypes with
 * descriptor walks, whole chunks beyond VL, VCVT, VSHUF, VBCAST. Expected
 * values come from conversions written here from numerics §8.2. */
#include "vec_kit.h"

/* ---- reference conversions (numerics §8.2), via exact doubles ---- */

static double e8_value(uint32_t v)
{
    unsigned s = v >> 23 & 1, e = v >> 15 & 0xFF, f = v & 0x7FFF;
    double m = e == 0 ? 0.0 : ldexp(1.0 + f / 32768.0, (int)e - 127);
    return s ? -m : m;
}
static uint32_t ref_f16_to_e8(uint16_t h)
{
    uint32_t s = h >> 15, f = h >> 10 & 31, m = h & 0x3FF;
    if (f == 31) return s << 23 | 0xFFu << 15 | m << 5;
    double x = f ? ldexp(1.0 + m / 1024.0, (int)f - 15) : ldexp(m, -24);
    if (x == 0) return s << 23;
    return vk_e8(s ? -x : x); /* every FP16 value is exact in E8M15 */
}
static uint16_t ref_e8_to_f16(uint32_t v)
{
    unsigned s = v >> 23 & 1, e = v >> 15 & 0xFF, f = v & 0x7FFF;
    if (e == 255) return (uint16_t)(s << 15 | 0x7C00u | (f ? 0x200u | (f >> 5 & 0x1FF) : 0));
    double x = fabs(e8_value(v));
    /* round to the FP16 grid at x's binade, ties to even */
    int ex = x == 0 ? -14 : (int)floor(log2(x));
    if (ex < -14) ex = -14;
    double q = ldexp(1.0, ex - 10), k = x / q, r = floor(k);
    if (k - r > 0.5 || (k - r == 0.5 && fmod(r, 2) != 0)) r += 1;
    double y = r * q;
    if (y > 65504) return (uint16_t)(s << 15 | 0x7BFF); /* saturates, never Inf */
    uint16_t bits;
    if (y < ldexp(1, -14)) {
        bits = (uint16_t)(y / ldexp(1, -24));
    } else {
        int ey = (int)floor(log2(y));
        bits = (uint16_t)((ey + 15) << 10 | (unsigned)((y / ldexp(1, ey) - 1) * 1024));
    }
    return (uint16_t)(s << 15 | bits);
}
static uint32_t ref_f32_to_e8(uint32_t f)
{
    uint32_t s = f >> 31, e = f >> 23 & 0xFF, m = f & 0x7FFFFF;
    if (e == 0) return s << 23;
    if (e == 255) return s << 23 | 0xFFu << 15 | (m ? 0x4000u | (m >> 8 & 0x3FFF) : 0);
    uint32_t sig = (0x800000 | m) >> 8, rem = m & 0xFF;
    if (rem > 0x80 || (rem == 0x80 && (sig & 1))) sig++;
    if (sig == 0x10000) {
        sig >>= 1;
        e++;
    }
    if (e >= 255) return s << 23 | 0xFFu << 15;
    return s << 23 | e << 15 | (sig & 0x7FFF);
}

/* ---- a kernel over raw L1 words filled from memory ---- */

/* Fill L1 words 0..63 from memory at VK_A_ADDR (mem filled by the test),
 * run `body` and VHALT. Descriptor 5 walks L1 word by word. */
static kh_ubench *run_l1(const uint8_t *image, unsigned nwords, const vk_prog *body, int compat)
{
    kh_ubench *b = vk_bench(compat);
    kh_ubench_mem_write(b, VK_A_ADDR, image, 32 * (size_t)nwords);
    vk_desc1(b, 0, VK_A_ADDR, 32, nwords);
    vk_desc1(b, 5, 0, 1, 512);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vfill(0, 0));
    vk_emit(&p, vk_vbar());
    for (unsigned i = 0; i < body->n; i++) vk_emit(&p, body->w[i]);
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(vk_last(b).code, 0);
    return b;
}

static uint8_t IMG[64 * 32];

static uint16_t img16(unsigned word, unsigned s) { return (uint16_t)(IMG[32 * word + 2 * s] | IMG[32 * word + 2 * s + 1] << 8); }
static uint32_t img32(unsigned word, unsigned s)
{
    const uint8_t *p = &IMG[32 * word + 4 * s];
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint16_t l1_16(vec_core *c, unsigned word, unsigned s) { return (uint16_t)(c->st.l1[word][s / 4] >> (16 * (s % 4))); }
static uint32_t l1_32(vec_core *c, unsigned word, unsigned s) { return (uint32_t)(c->st.l1[word][s / 2] >> (32 * (s % 2))); }

static void fill_image(uint32_t seed)
{
    for (unsigned i = 0; i < sizeof IMG; i++) {
        seed = seed * 1103515245u + 12345u;
        IMG[i] = (uint8_t)(seed >> 16);
    }
}

static void vld_fp16_converts_every_halfword(void)
{
    fill_image(1);
    /* a few edge patterns in word 0: +-0, subnormals, Inf, NaN, max */
    static const uint16_t edge[16] = {0x0000, 0x8000, 0x0001, 0x03FF, 0x0400, 0x7BFF, 0x7C00, 0xFC00,
                                      0x7E00, 0x7C01, 0xFFFF, 0x3C00, 0x8001, 0x3555, 0x0200, 0xBC00};
    for (unsigned s = 0; s < 16; s++) {
        IMG[2 * s] = (uint8_t)edge[s];
        IMG[2 * s + 1] = (uint8_t)(edge[s] >> 8);
    }
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vld(3, 5, 0, 1));
    kh_ubench *b = run_l1(IMG, 8, &body, 0);
    vec_core *c = vk_core(b);
    for (unsigned e = 0; e < 128; e++) CHECK_EQ(c->st.v[3][e], ref_f16_to_e8(img16(e / 16, e % 16)));
    kh_ubench_free(b);
}

static void vld_fp32_reads_two_words_per_chunk(void)
{
    fill_image(2);
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vld(4, 5, 0, 2));
    kh_ubench *b = run_l1(IMG, 16, &body, 0);
    vec_core *c = vk_core(b);
    for (unsigned e = 0; e < 128; e++) /* chunk c: words 2c (slots 0-7) and 2c+1 (8-15) */
        CHECK_EQ(c->st.v[4][e], ref_f32_to_e8(img32(2 * (e / 16) + (e % 16) / 8, e % 8)));
    kh_ubench_free(b);
}

/* §3: L1 index = base + off + i0*stride0 (mod 512); here base 10, stride 2,
 * offset -8: chunk c comes from word 2 + 2c (recording case 35). */
static void vld_walks_with_offset_and_stride(void)
{
    fill_image(3);
    kh_ubench *b = vk_bench(0);
    kh_ubench_mem_write(b, VK_A_ADDR, IMG, 32 * 32);
    vk_desc1(b, 0, VK_A_ADDR, 32, 32);
    vk_desc1(b, 6, 10, 2, 8);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vfill(0, 0));
    vk_emit(&p, vk_vbar());
    vk_emit(&p, vk_vld(1, 6, -8, 1));
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    vec_core *c = vk_core(b);
    for (unsigned e = 0; e < 128; e++) CHECK_EQ(c->st.v[1][e], ref_f16_to_e8(img16(2 + 2 * (e / 16), e % 16)));
    kh_ubench_free(b);
}

/* VST writes whole chunks, slots beyond VL included (§5.5). */
static void vst_fp16_writes_whole_chunks(void)
{
    fill_image(4);
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vld(2, 5, 0, 1));  /* v2 from words 0..7 */
    vk_seti(&body, 13, 20);
    vk_emit(&body, vk_vsetvl(13));       /* VL 20: two chunks */
    vk_emit(&body, vk_vst(2, 5, 40, 1)); /* words 40, 41 */
    kh_ubench *b = run_l1(IMG, 48, &body, 0);
    vec_core *c = vk_core(b);
    for (unsigned s = 0; s < 16; s++) {
        CHECK_EQ(l1_16(c, 40, s), ref_e8_to_f16(ref_f16_to_e8(img16(0, s))));
        CHECK_EQ(l1_16(c, 41, s), ref_e8_to_f16(ref_f16_to_e8(img16(1, s))));
        CHECK_EQ(l1_16(c, 42, s), img16(42, s)); /* the third word is untouched */
    }
    kh_ubench_free(b);
}

/* Fixed FP32 VST (the default): low half at the first address, high half
 * at the next (§5.5). */
static void vst_fp32_writes_low_then_high(void)
{
    fill_image(5);
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vld(2, 5, 0, 1));
    vk_emit(&body, vk_vst(2, 5, 32, 2)); /* 16 words from 32 */
    kh_ubench *b = run_l1(IMG, 8, &body, 0);
    vec_core *c = vk_core(b);
    for (unsigned e = 0; e < 128; e++) {
        uint32_t v = ref_f16_to_e8(img16(e / 16, e % 16));
        uint32_t want = (v >> 15 & 0xFF) ? v << 8 : (v & 0x800000u) << 8; /* exact (§8.2) */
        CHECK_EQ(l1_32(c, 32 + 2 * (e / 16) + (e % 16) / 8, e % 8), want);
    }
    kh_ubench_free(b);
}

/* VCVT dt 1: FP16 round trip (saturating, subnormals); dt 2: copy. */
static void vcvt_round_trips_through_fp16(void)
{
    memset(IMG, 0, sizeof IMG);
    static const double vals[8] = {1.0 + 0x1p-12, 70000.0, 0x1p-20, -3.0 - 0x1p-13, 65520.0, 0x1p-25, 1.5, -0.0};
    for (unsigned e = 0; e < 128; e++) {
        uint32_t f = vk_f32_of_e8(vk_e8(vals[e % 8]));
        memcpy(&IMG[4 * e], (uint8_t[4]){(uint8_t)f, (uint8_t)(f >> 8), (uint8_t)(f >> 16), (uint8_t)(f >> 24)}, 4);
    }
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vld(1, 5, 0, 2));
    vk_emit(&body, vk_vcvt(2, 1, 1));
    vk_emit(&body, vk_vcvt(3, 1, 2));
    kh_ubench *b = run_l1(IMG, 16, &body, 0);
    vec_core *c = vk_core(b);
    for (unsigned e = 0; e < 128; e++) {
        uint32_t v = vk_e8(vals[e % 8]);
        CHECK_EQ(c->st.v[2][e], ref_f16_to_e8(ref_e8_to_f16(v)));
        CHECK_EQ(c->st.v[3][e], v);
    }
    CHECK_EQ(c->st.v[2][1], 0x477FE0u);          /* 70000 saturates to 65504 */
    CHECK_EQ(c->st.v[2][2], vk_e8(0x1p-20));     /* an FP16 subnormal, exact */
    kh_ubench_free(b);
}

/* VSHUF: V[vd][16c+s] = V[va][16c + (s+k) mod 16], k = S[vb] & 0xF. */
static void vshuf_rotates_inside_each_chunk(void)
{
    fill_image(6);
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vld(1, 5, 0, 1));
    vk_seti(&body, 4, 0x13); /* raw bits: k = 3 */
    vk_emit(&body, vk_vshuf(1, 1, 4)); /* in place */
    kh_ubench *b = run_l1(IMG, 8, &body, 0);
    vec_core *c = vk_core(b);
    for (unsigned e = 0; e < 128; e++)
        CHECK_EQ(c->st.v[1][e], ref_f16_to_e8(img16(e / 16, (e % 16 + 3) % 16)));
    kh_ubench_free(b);
}

/* VBCAST sa = 1: every slot of nchunk chunks = S[va]; otherwise S[vd] = V[va][0]. */
static void vbcast_both_directions(void)
{
    fill_image(7);
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vld(1, 5, 0, 1));
    vk_emit(&body, vk_vbcast_s(6, 1));   /* S6 = v1[0] */
    vk_seti(&body, 13, 24);
    vk_emit(&body, vk_vsetvl(13));       /* two chunks */
    vk_emit(&body, vk_vbcast_v(1, 6));   /* v1[0..31] = S6, v1[32..] kept */
    kh_ubench *b = run_l1(IMG, 8, &body, 0);
    vec_core *c = vk_core(b);
    uint32_t s6 = ref_f16_to_e8(img16(0, 0));
    CHECK_EQ(c->st.s[6], s6);
    for (unsigned e = 0; e < 128; e++) CHECK_EQ(c->st.v[1][e], e < 32 ? s6 : ref_f16_to_e8(img16(e / 16, e % 16)));
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(vld_fp16_converts_every_halfword);
    KH_RUN(vld_fp32_reads_two_words_per_chunk);
    KH_RUN(vld_walks_with_offset_and_stride);
    KH_RUN(vst_fp16_writes_whole_chunks);
    KH_RUN(vst_fp32_writes_low_then_high);
    KH_RUN(vcvt_round_trips_through_fp16);
    KH_RUN(vshuf_rotates_inside_each_chunk);
    KH_RUN(vbcast_both_directions);
    return kh_test_end("t_vector_move");
}
