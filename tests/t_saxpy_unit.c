/* saxpy_cu on the unit bench (matmul_saxpy.md §2): the checks and their
 * fault codes, the memory traffic framing of §2.5, exec_result, the
 * ignored upper address bits, and the integer datapath against the RTL
 * helpers written again here from §2.4. */
#include <stdlib.h>
#include <string.h>

#include "cu/units/units.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/saxpy.h"
#include "kohaku/unitbench.h"
#include "support/test.h"

static kh_ubench *bench(void)
{
    kh_ubench_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.kind = &kh_unit_saxpy;
    cfg.cu_x = 1;
    cfg.cu_y = 0;
    cfg.mem_x = 0;
    cfg.mem_y = 1;
    cfg.src_x = 0;
    cfg.src_y = 1;
    cfg.rd_lat = 10;
    kh_params_default(&cfg.params);
    char err[256];
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    if (!b) printf("bench: %s\n", err);
    return b;
}

static void inst(kh_ubench *b, unsigned op, unsigned n, uint32_t a, uint64_t x, uint64_t y, uint8_t txn, int last)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_saxpy_set_op(f.w, op);
    kh_saxpy_set_n(f.w, n);
    kh_saxpy_set_a(f.w, a);
    kh_saxpy_set_x_addr(f.w, x);
    kh_saxpy_set_y_addr(f.w, y);
    kh_ubench_inst(b, &f, txn, last);
}

static int run(kh_ubench *b)
{
    char err[2048];
    int rc = kh_ubench_run(b, 100000, err, sizeof err);
    if (rc != 1) printf("run: %d %s\n", rc, err);
    return rc;
}

/* The i-th completion the unit sent. */
static const kh_flit *completion(kh_ubench *b, unsigned i)
{
    unsigned k = 0;
    for (size_t j = 0; j < kh_ubench_nout(b); j++) {
        const kh_ubench_rec *r = kh_ubench_out(b, j);
        if (kh_hdr_type(r->f.w) == KH_T_CU_SIGNAL && k++ == i) return &r->f;
    }
    return NULL;
}

static void checks_fault_in_order_without_memory_traffic(void)
{
    kh_ubench *b = bench();
    if (!b) return;
    inst(b, 0x02, 100, 0, 0, 0, 1, 0); /* bad op and too big: op first */
    inst(b, 0x01, 65, 0, 0, 0, 2, 0);
    inst(b, 0x01, 64, 0, 0x40, 0x80, 3, 0);
    inst(b, 0x01, 0, 0, 0, 0, 4, 1);
    CHECK_EQ(run(b), 1);
    const kh_flit *c0 = completion(b, 0), *c1 = completion(b, 1), *c2 = completion(b, 2), *c3 = completion(b, 3);
    CHECK(c0 && c1 && c2 && c3);
    if (!(c0 && c1 && c2 && c3)) return;
    CHECK_EQ(kh_cu_signal_code(c0->w), 0x04);
    CHECK_EQ(kh_cu_signal_arg(c0->w), 0xBAD00001u);
    CHECK_EQ(kh_cu_signal_code(c1->w), 0x04);
    CHECK_EQ(kh_cu_signal_arg(c1->w), 0xBAD00002u);
    CHECK_EQ(kh_cu_signal_code(c2->w), 0x00);
    CHECK_EQ(kh_cu_signal_arg(c2->w), 64); /* exec_result = n */
    CHECK_EQ(kh_cu_signal_code(c3->w), 0x01);
    CHECK_EQ(kh_cu_signal_arg(c3->w), 4); /* {24'd0, txn} */
    CHECK_EQ(kh_ubench_nreq(b), 3);       /* only the n = 64 instruction touched memory */
    kh_ubench_free(b);
}

static void memory_traffic_is_framed_as_section_2_5(void)
{
    kh_ubench *b = bench();
    if (!b) return;
    /* the upper 24 bits of each 64-bit address field are ignored */
    uint64_t x = 0xABCDEF0000001000u, y = 0x1234560000002000u;
    kh_flit f;
    kh_flit_clear(&f);
    kh_saxpy_set_op(f.w, 1);
    kh_saxpy_set_n(f.w, 20);
    kh_saxpy_set_a(f.w, 0x3f800000);
    kh_saxpy_set_x_addr(f.w, x);
    kh_saxpy_set_y_addr(f.w, y);
    kh_saxpy_set_x_hi(f.w, 0xABCDEF);
    kh_saxpy_set_y_hi(f.w, 0x123456);
    kh_ubench_inst(b, &f, 9, 1);
    CHECK_EQ(run(b), 1);
    CHECK_EQ(kh_ubench_nreq(b), 3);
    const unsigned types[3] = {KH_T_MEM_RD_REQ, KH_T_MEM_RD_REQ, KH_T_MEM_WR_REQ};
    const unsigned txns[3] = {0x10, 0x20, 0x30}, lasts[3] = {1, 1, 0};
    const uint64_t addrs[3] = {0x1000, 0x2000, 0x2000};
    for (unsigned i = 0; i < 3 && i < kh_ubench_nreq(b); i++) {
        const kh_flit *q = &kh_ubench_req(b, i)->f;
        CHECK_EQ(kh_hdr_type(q->w), types[i]);
        CHECK_EQ(kh_hdr_txn(q->w), txns[i]);
        CHECK_EQ(kh_hdr_last(q->w), lasts[i]);
        CHECK_EQ(kh_hdr_rsvd(q->w), 0);
        CHECK_EQ(kh_hdr_dst_x(q->w), 0);
        CHECK_EQ(kh_hdr_dst_y(q->w), 1);
        CHECK_EQ(kh_hdr_src_x(q->w), 1);
        CHECK_EQ(kh_hdr_src_y(q->w), 0);
        CHECK_EQ(kh_mem_rd_req_addr(q->w), addrs[i]);
        CHECK_EQ(kh_mem_rd_req_len(q->w), 2); /* beats - 1 = ceil(20/8) - 1 */
        CHECK_EQ(kh_mem_rd_req_flags(q->w), 0);
        CHECK_EQ(q->w[0] | q->w[1] | q->w[2], 0);
    }
    CHECK_EQ(kh_ubench_nwrites(b), 3); /* three lines written back */
    for (unsigned i = 0; i < kh_ubench_nwrites(b); i++) CHECK_EQ(kh_ubench_writes(b, i)->addr, 0x2000 + 32 * i);
    kh_ubench_free(b);
}

/* The RTL's helpers, from §2.4. */
static int32_t ref_f2i(uint32_t w)
{
    int e = (int)((w >> 23) & 0xFF);
    uint64_t m = (uint64_t)((w & 0x7FFFFF) | 0x800000);
    uint32_t mag = 0;
    if (e != 0)
        mag = (uint32_t)(e >= 150 ? (e - 150 >= 32 ? 0 : m << (e - 150)) : (150 - e >= 32 ? 0 : m >> (150 - e)));
    return (int32_t)((w & 0x80000000u) ? 0u - mag : mag);
}

static uint32_t ref_i2f(int32_t v)
{
    uint32_t mag = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    if (!mag) return 0;
    int p = 0;
    for (int i = 23; i >= 0; i--)
        if (mag & (1u << i)) {
            p = i;
            break;
        }
    return ((uint32_t)v & 0x80000000u) | (uint32_t)(127 + p) << 23 | ((mag << (23 - p)) & 0x7FFFFF);
}

static void datapath_is_the_rtl_integer_stand_in(void)
{
    /* 64 random bit patterns in a fixed sequence, all three operands. */
    kh_ubench *b = bench();
    if (!b) return;
    uint32_t x[64], y[64], s = 12345;
    for (unsigned i = 0; i < 64; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = s ^ (s >> 7);
        s = s * 1103515245u + 12345u;
        y[i] = i % 3 ? s : (uint32_t)((s & 0x80000000u) | ((120u + s % 40u) << 23) | (s & 0x7FFFFF));
    }
    uint32_t a = 0x40400000; /* 3.0 */
    kh_ubench_mem_write(b, 0x4000, (const uint8_t *)x, sizeof x);
    kh_ubench_mem_write(b, 0x8000, (const uint8_t *)y, sizeof y);
    inst(b, 1, 61, a, 0x4000, 0x8000, 1, 1);
    CHECK_EQ(run(b), 1);
    uint32_t got[64];
    kh_ubench_mem_read(b, 0x8000, (uint8_t *)got, sizeof got);
    for (unsigned i = 0; i < 64; i++) {
        uint32_t want =
            i < 61 ? ref_i2f((int32_t)((uint32_t)ref_f2i(a) * (uint32_t)ref_f2i(x[i]) + (uint32_t)ref_f2i(y[i])))
                   : y[i];
        if (got[i] != want) kh_test_fail(__FILE__, __LINE__, "element %u: got 0x%08x, want 0x%08x", i, got[i], want);
    }
    kh_ubench_free(b);
}

static void i2f_of_a_magnitude_without_low_24_bits_is_one(void)
{
    /* |v| = 2^24: no set bit among bits 0..23, so p = 0 and the result is
     * {sign, 127, 0} = +-1.0 (matmul_saxpy.md §2.4, "unrelated value"). */
    kh_ubench *b = bench();
    if (!b) return;
    uint32_t x[8] = {0x4b800000, 0xcb800000}, y[8] = {0, 0}; /* 2^24, -2^24 */
    kh_ubench_mem_write(b, 0x100, (const uint8_t *)x, sizeof x);
    kh_ubench_mem_write(b, 0x200, (const uint8_t *)y, sizeof y);
    inst(b, 1, 2, 0x3f800000, 0x100, 0x200, 1, 1);
    CHECK_EQ(run(b), 1);
    uint32_t got[2];
    kh_ubench_mem_read(b, 0x200, (uint8_t *)got, sizeof got);
    CHECK_EQ(got[0], 0x3f800000);
    CHECK_EQ(got[1], 0xbf800000);
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(checks_fault_in_order_without_memory_traffic);
    KH_RUN(memory_traffic_is_framed_as_section_2_5);
    KH_RUN(datapath_is_the_rtl_integer_stand_in);
    KH_RUN(i2f_of_a_magnitude_without_low_24_bits_is_one);
    return kh_test_end("t_saxpy_unit");
}
