/* The recorded RTL behaviours behind params->rtl_compat (vector.md §5.5,
 * §11 findings) against the intended behaviour by default, and the hazard
 * warnings (§11.1, §11.2). */
#include "vec_kit.h"

static kh_ubench *run_prog(const vk_prog *p, int compat)
{
    kh_ubench *b = vk_bench(compat);
    vk_desc1(b, 5, 0, 1, 512);
    vk_load(b, 0, p);
    vk_run(b, 0);
    vk_go(b);
    return b;
}

static void seed_v1(vec_core *c)
{
    for (unsigned e = 0; e < 128; e++) c->st.v[1][e] = vk_e8(1.0 + e / 64.0);
}

/* FP32 VST: the S-era RTL writes both halves to one word (the high half
 * wins) and steps twice per chunk; the default writes low then high. */
static void fp32_vst_defect_exactly(void)
{
    for (int compat = 0; compat < 2; compat++) {
        vk_prog p = {.n = 0};
        vk_seti(&p, 1, 32);
        vk_emit(&p, vk_vsetvl(1));
        vk_emit(&p, vk_vst(1, 5, 100, 2));
        vk_emit(&p, vk_vhalt());
        kh_ubench *b = vk_bench(compat);
        vk_desc1(b, 5, 0, 1, 512);
        vk_load(b, 0, &p);
        vec_core *c = vk_core(b);
        seed_v1(c);
        for (unsigned w = 100; w < 106; w++) c->st.l1[w][0] = 0xDEAD;
        vk_run(b, 0);
        vk_go(b);
        for (unsigned ch = 0; ch < 2; ch++)
            for (unsigned s = 0; s < 8; s++) {
                uint32_t lo = (uint32_t)(c->st.l1[100 + 2 * ch][s / 2] >> (32 * (s % 2)));
                uint32_t hi = (uint32_t)(c->st.l1[101 + 2 * ch][s / 2] >> (32 * (s % 2)));
                if (compat) { /* word 100+2ch holds the high half; 101+2ch untouched */
                    CHECK_EQ(lo, vk_e8(1.0 + (16 * ch + 8 + s) / 64.0) << 8);
                    CHECK_EQ(c->st.l1[101 + 2 * ch][0], 0xDEADu);
                } else {
                    CHECK_EQ(lo, vk_e8(1.0 + (16 * ch + s) / 64.0) << 8);
                    CHECK_EQ(hi, vk_e8(1.0 + (16 * ch + 8 + s) / 64.0) << 8);
                }
            }
        CHECK_EQ(c->st.l1[104][0], 0xDEADu); /* two chunks, four steps either way */
        kh_ubench_free(b);
    }
}

/* rsqrt(-0): -Inf (S/L); +Inf on the older core (numerics §9.4). */
static void rsqrt_of_minus_zero(void)
{
    for (int compat = 0; compat < 2; compat++) {
        vk_prog p = {.n = 0};
        vk_seti(&p, 2, 0x800000);
        vk_alu r = {KH_VINNER_OP_VRSQRT, 3, 2, 0, 0, 1, 0, 0, 0, 0}; /* a = S2 */
        vk_emit(&p, vk_word_alu(r));
        vk_emit(&p, vk_vhalt());
        kh_ubench *b = run_prog(&p, compat);
        CHECK_EQ(vk_core(b)->st.v[3][5], compat ? 0x7F8000u : 0xFF8000u);
        kh_ubench_free(b);
    }
}

/* VCVT dt 1 on the older core: chunk c >= 1 gets the conversion of source
 * chunk c-1, chunk 0 that of the last chunk the lanes read on port a. */
static void vcvt_skew(void)
{
    for (int compat = 0; compat < 2; compat++) {
        vk_prog p = {.n = 0};
        vk_alu mv = {KH_VINNER_OP_VMOV, 4, 6, 0, 0, 0, 0, 0, 0, 0}; /* reads v6 on port a */
        vk_emit(&p, vk_word_alu(mv));
        vk_emit(&p, vk_vcvt(2, 1, 1));
        vk_emit(&p, vk_vcvt(3, 1, 2)); /* dt 2 is correct on both */
        vk_emit(&p, vk_vhalt());
        kh_ubench *b = vk_bench(compat);
        vk_load(b, 0, &p);
        vec_core *c = vk_core(b);
        seed_v1(c);
        for (unsigned e = 0; e < 128; e++) c->st.v[6][e] = vk_e8(-2.0 - e / 16.0);
        vk_run(b, 0);
        vk_go(b);
        for (unsigned e = 0; e < 128; e++) {
            uint32_t src = compat ? (e < 16 ? c->st.v[6][112 + e] : vk_e8(1.0 + (e - 16) / 64.0))
                                  : vk_e8(1.0 + e / 64.0);
            CHECK_EQ(c->st.v[2][e], src); /* all exact in FP16 */
            CHECK_EQ(c->st.v[3][e], vk_e8(1.0 + e / 64.0));
        }
        kh_ubench_free(b);
    }
}

/* ANY/ALL on the older core read the previous ALU/VRED instruction's pr. */
static void any_all_previous_pr(void)
{
    for (int compat = 0; compat < 2; compat++) {
        vk_prog p = {.n = 0};
        vk_alu eq = {KH_VINNER_OP_VCMPEQ, 0, 0, 0, 0, 0, 0, 0, 0, 1}; /* P1 all set, last pr 1 */
        vk_emit(&p, vk_word_alu(eq));
        vk_emit(&p, vk_vsetmode(0));
        vk_emit(&p, vk_vred(7, 4, 0, 0, 2)); /* ALL P2 (clear) */
        vk_emit(&p, vk_vred(7, 5, 0, 0, 1)); /* ALL P1: compat reads P2 */
        vk_emit(&p, vk_vhalt());
        kh_ubench *b = run_prog(&p, compat);
        vec_core *c = vk_core(b);
        CHECK_EQ(c->st.s[4], compat ? 0x3F8000u : 0u);
        CHECK_EQ(c->st.s[5], compat ? 0u : 0x3F8000u);
        kh_ubench_free(b);
    }
}

/* §11.1: a predicated op right after the compare that writes its predicate
 * would read stale bits in the RTL: warn (sequential result); a VSETMODE in
 * between drains the lanes and clears the hazard. */
static void predicate_hazard_is_flagged(void)
{
    for (int drained = 0; drained < 2; drained++) {
        vk_prog p = {.n = 0};
        vk_alu lt = {KH_VINNER_OP_VCMPLT, 0, 0, 1, 0, 0, 0, 0, 0, 0};
        vk_emit(&p, vk_word_alu(lt));
        if (drained) vk_emit(&p, vk_vsetmode(0));
        vk_alu m1 = {KH_VINNER_OP_VMOV, 3, 0, 0, 0, 0, 0, 0, 1, 0};
        vk_alu m2 = {KH_VINNER_OP_VMOV, 3, 1, 0, 0, 0, 0, 0, 2, 0};
        vk_emit(&p, vk_word_alu(m1));
        vk_emit(&p, vk_word_alu(m2));
        vk_emit(&p, vk_vhalt());
        kh_ubench *b = vk_bench(0);
        vk_load(b, 0, &p);
        vec_core *c = vk_core(b);
        for (unsigned e = 0; e < 128; e++) {
            c->st.v[0][e] = vk_e8(e % 3);
            c->st.v[1][e] = vk_e8(1);
        }
        vk_run(b, 0);
        vk_go(b);
        /* the first move only, as the RTL simulation of §11.1 observed */
        CHECK_EQ(c->stats.hazard_warnings, drained ? 0u : 1u);
        for (unsigned e = 0; e < 128; e++) /* sequential: min-like select */
            CHECK_EQ(c->st.v[3][e], e % 3 < 1 ? vk_e8(e % 3) : vk_e8(1));
        kh_ubench_free(b);
    }
}

int main(void)
{
    KH_RUN(fp32_vst_defect_exactly);
    KH_RUN(rsqrt_of_minus_zero);
    KH_RUN(vcvt_skew);
    KH_RUN(any_all_previous_pr);
    KH_RUN(predicate_hazard_is_flagged);
    return kh_test_end("t_vector_compat");
}
