/* VRED (vector.md §5.4) in TREE mode: every kind against the reduction
 * order of §6.3 computed here, leaf by leaf and beat by beat, from the ALU
 * primitives of numerics §9; ANY/ALL; EXPSUM's element write-back under the
 * last ALU instruction's pm (§11.2); the F_REDVL / F_OPCODE rules. */
#include "vec_kit.h"

enum { SUM, MAX, MIN, SUMSQ, DOT, EXPSUM, ANY, ALL };

/* ---- the documented order, independently ---- */

static uint32_t comb(unsigned kind, uint32_t x, uint32_t y)
{
    if (kind == MAX) return kh_valu(KH_VALU_MAX, x, y, 0, NULL, 0);
    if (kind == MIN) return kh_valu(KH_VALU_MIN, x, y, 0, NULL, 0);
    return kh_valu(KH_VALU_ADD, x, 0, y, NULL, 0); /* ADD(a = x, c = y) */
}
static uint32_t tree8(unsigned kind, const uint32_t *l)
{
    return comb(kind, comb(kind, comb(kind, l[0], l[1]), comb(kind, l[2], l[3])),
                comb(kind, comb(kind, l[4], l[5]), comb(kind, l[6], l[7])));
}
static uint32_t reduce_ref(unsigned kind, const uint32_t *va, const uint32_t *vb, unsigned vl)
{
    uint32_t acc[16];
    uint32_t id = kind == MAX ? 0xFF8000u : kind == MIN ? 0x7F8000u : 0;
    for (int i = 0; i < 16; i++) acc[i] = id;
    unsigned beat = 0;
    for (unsigned c = 0; c < vl / 16; c++) {
        unsigned phases = kind == SUMSQ || kind == DOT || kind == EXPSUM ? 2 : 1;
        for (unsigned p = 0; p < phases; p++, beat++) {
            uint32_t l[8];
            for (unsigned j = 0; j < 8; j++) {
                if (phases == 1)
                    l[j] = comb(kind, va[16 * c + 2 * j], va[16 * c + 2 * j + 1]);
                else if (kind == EXPSUM)
                    l[j] = kh_valu(KH_VALU_EXP2, va[16 * c + 8 * p + j], 0, 0, NULL, 0);
                else
                    l[j] = kh_valu(KH_VALU_MUL, va[16 * c + 8 * p + j], vb[16 * c + 8 * p + j], 0, NULL, 0);
            }
            acc[beat % 16] = comb(kind, tree8(kind, l), acc[beat % 16]);
        }
    }
    uint32_t f[8];
    for (int j = 0; j < 8; j++) f[j] = comb(kind, acc[2 * j], acc[2 * j + 1]);
    return tree8(kind, f);
}

/* Inputs spread over many binades so that the order of additions shows. */
static uint32_t input(unsigned r, unsigned e)
{
    uint32_t h = (e + 1) * 2654435761u ^ (r + 7) * 40503u;
    h ^= h >> 13;
    uint32_t sign = (h >> 3) & 1, exp = 127 - 12 + (h >> 4) % 25, frac = (h >> 9) & 0x7FFF;
    if (r == 2) exp = 127 - 4 + (h >> 4) % 6; /* EXPSUM arguments: |x| < 8 */
    return sign << 23 | exp << 15 | frac;
}

/* Load v0, v1, v2 from FP32 images of input(0..2), VSETVL vl, VSETMODE 3,
 * then `body`, VHALT. */
static kh_ubench *run_red(unsigned vl, const vk_prog *body, int compat, uint32_t in[3][128])
{
    kh_ubench *b = vk_bench(compat);
    for (unsigned r = 0; r < 3; r++) {
        uint32_t f32[128];
        for (unsigned e = 0; e < 128; e++) {
            in[r][e] = input(r, e);
            f32[e] = vk_f32_of_e8(in[r][e]);
        }
        vk_mem_f32(b, VK_A_ADDR + 0x1000u * r, f32, 128);
        vk_desc1(b, r, VK_A_ADDR + 0x1000u * r, 32, 16);
    }
    vk_desc1(b, 5, 0, 1, 512);
    vk_prog p = {.n = 0};
    for (unsigned r = 0; r < 3; r++) vk_emit(&p, vk_vfill(r, 16 * r));
    vk_emit(&p, vk_vbar());
    for (unsigned r = 0; r < 3; r++) vk_emit(&p, vk_vld(r, 5, (int)(16 * r), 2));
    vk_seti(&p, 13, vl);
    vk_emit(&p, vk_vsetvl(13));
    for (unsigned i = 0; i < body->n; i++) vk_emit(&p, body->w[i]);
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    return b;
}

static void check_kind(unsigned kind, unsigned vl)
{
    uint32_t in[3][128];
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vsetmode(3));
    vk_emit(&body, vk_vred(kind, 7, kind == EXPSUM ? 2 : 0, kind == EXPSUM ? 9 : 1, 0));
    kh_ubench *b = run_red(vl, &body, 0, in);
    CHECK_EQ(vk_last(b).code, 0);
    const uint32_t *va = kind == EXPSUM ? in[2] : in[0];
    uint32_t want = reduce_ref(kind, va, in[1], vl);
    CHECK_EQ(vk_core(b)->st.s[7], want);
    if (kind == EXPSUM)
        for (unsigned e = 0; e < vl; e++)
            CHECK_EQ(vk_core(b)->st.v[9][e], kh_valu(KH_VALU_EXP2, va[e], 0, 0, NULL, 0));
    kh_ubench_free(b);
}

static void sum_follows_the_tree_order(void)
{
    uint32_t va[128];
    for (unsigned e = 0; e < 128; e++) va[e] = input(0, e);
    /* the inputs make the order visible: a left-to-right sum differs */
    uint32_t seq = 0;
    for (unsigned e = 0; e < 128; e++) seq = kh_valu(KH_VALU_ADD, seq, 0, va[e], NULL, 0);
    CHECK(seq != reduce_ref(SUM, va, va, 128));
    check_kind(SUM, 128);
    check_kind(SUM, 64);
    check_kind(SUM, 16);
}
static void max_follows_the_tree_order(void) { check_kind(MAX, 128); check_kind(MAX, 48); }
static void min_follows_the_tree_order(void) { check_kind(MIN, 128); check_kind(MIN, 32); }
static void dot_multiplies_va_by_vb(void) { check_kind(DOT, 128); check_kind(DOT, 80); }
/* SUMSQ is DOT in hardware (Open point 3): va times vb, not va squared */
static void sumsq_is_dot(void) { check_kind(SUMSQ, 128); check_kind(SUMSQ, 64); }
static void expsum_sums_exp2_and_writes_the_leaves(void) { check_kind(EXPSUM, 128); check_kind(EXPSUM, 96); }

/* §11.2: the EXPSUM write-back uses the pm of the last ALU instruction and
 * the VRED's own pr. */
static void expsum_write_back_uses_the_last_alu_pm(void)
{
    uint32_t in[3][128];
    vk_prog body = {.n = 0};
    vk_alu cmp = {KH_VINNER_OP_VCMPLT, 0, 0, 1, 0, 0, 0, 0, 0, 1}; /* P1 = v0 < v1 */
    vk_emit(&body, vk_word_alu(cmp));
    vk_alu mov = {KH_VINNER_OP_VMOV, 9, 1, 0, 0, 0, 0, 0, 2, 3}; /* v9 = v1 where !P3; sets last pm 2 */
    vk_emit(&body, vk_word_alu(mov));
    vk_emit(&body, vk_vsetmode(3));
    vk_emit(&body, vk_vred(EXPSUM, 7, 2, 9, 1)); /* writes v9 where P1 is clear */
    kh_ubench *b = run_red(128, &body, 0, in);
    vec_core *c = vk_core(b);
    CHECK_EQ(c->st.s[7], reduce_ref(EXPSUM, in[2], in[1], 128));
    CHECK_EQ(c->stats.expsum_pm_warnings, 1);
    for (unsigned e = 0; e < 128; e++) {
        int p1 = kh_valu(KH_VALU_CMPLT, in[0][e], in[1][e], 0, NULL, 0) == KH_E8_ONE;
        uint32_t want = p1 ? in[1][e] : kh_valu(KH_VALU_EXP2, in[2][e], 0, 0, NULL, 0);
        if (c->st.v[9][e] != want) {
            kh_test_fail(__FILE__, __LINE__, "v9[%u]: got 0x%06x want 0x%06x", e, c->st.v[9][e], want);
            break;
        }
    }
    kh_ubench_free(b);
}

/* ANY / ALL read P[pr] bits 0..VL-1, in any mode and any VL (§5.4); a
 * compare writes only bits below VL (§7). */
static void any_all_read_the_predicate_within_vl(void)
{
    uint32_t in[3][128];
    vk_prog body = {.n = 0};
    vk_alu eq2 = {KH_VINNER_OP_VCMPEQ, 0, 0, 0, 0, 0, 0, 0, 0, 2}; /* P2 = all 128 set */
    vk_alu eq3 = eq2;
    eq3.pr = 3;                                                    /* P3 = all 128 set */
    vk_alu gt3 = {KH_VINNER_OP_VCMPGT, 0, 0, 0, 0, 0, 0, 0, 0, 3}; /* at VL 37: clears 0..36 */
    vk_emit(&body, vk_word_alu(eq2));
    vk_emit(&body, vk_word_alu(eq3));
    vk_seti(&body, 13, 37);
    vk_emit(&body, vk_vsetvl(13));
    vk_emit(&body, vk_word_alu(gt3));
    vk_emit(&body, vk_vsetmode(0));
    vk_emit(&body, vk_vred(ANY, 1, 0, 0, 2));
    vk_emit(&body, vk_vred(ALL, 2, 0, 0, 2));
    vk_emit(&body, vk_vred(ANY, 3, 0, 0, 3)); /* set bits only at and above VL: ignored */
    vk_emit(&body, vk_vred(ALL, 4, 0, 0, 3));
    kh_ubench *b = run_red(128, &body, 0, in);
    vec_core *c = vk_core(b);
    CHECK_EQ(vk_last(b).code, 0);
    CHECK_EQ(c->st.s[1], 0x3F8000u);
    CHECK_EQ(c->st.s[2], 0x3F8000u);
    CHECK_EQ(c->st.s[3], 0u);
    CHECK_EQ(c->st.s[4], 0u);
    CHECK_EQ(c->st.p[3][0], ~UINT64_C(0) << 37);
    CHECK_EQ(c->st.p[3][1], ~UINT64_C(0));
    kh_ubench_free(b);
}

/* F_REDVL is tested before the mode; kinds 0-5 outside TREE fault F_OPCODE. */
static void redvl_before_opcode(void)
{
    uint32_t in[3][128];
    vk_prog body = {.n = 0};
    vk_emit(&body, vk_vred(SUM, 1, 0, 0, 0)); /* FLAT and VL 20 */
    kh_ubench *b = run_red(20, &body, 0, in);
    CHECK_EQ(vk_last(b).code, 4);
    CHECK_EQ(vk_last(b).arg, 8); /* F_REDVL */
    kh_ubench_free(b);
    body.n = 0;
    vk_emit(&body, vk_vred(MAX, 1, 0, 0, 0)); /* FLAT, VL 32 */
    b = run_red(32, &body, 0, in);
    CHECK_EQ(vk_last(b).code, 4);
    CHECK_EQ(vk_last(b).arg, 4); /* F_OPCODE */
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(sum_follows_the_tree_order);
    KH_RUN(max_follows_the_tree_order);
    KH_RUN(min_follows_the_tree_order);
    KH_RUN(dot_multiplies_va_by_vb);
    KH_RUN(sumsq_is_dot);
    KH_RUN(expsum_sums_exp2_and_writes_the_leaves);
    KH_RUN(expsum_write_back_uses_the_last_alu_pm);
    KH_RUN(any_all_read_the_predicate_within_vl);
    KH_RUN(redvl_before_opcode);
    return kh_test_end("t_vector_reduce");
}
