/* CU_DATA reception into vec_cu's L1 (vector.md §1.4; flits.md §4.7):
 * buffer 0 only, offset + len < 512, data flit d at L1[off + d], rejected
 * bursts consumed whole, interleaving caught by source, DATA_RECEIVED with
 * txn 0 to the ack node or the sender, and only for accepted bursts. */
#include "vec_kit.h"

/* Inject a burst from (sx, sy) at cycle `at`: words base+0 .. base+len. */
static void burst(kh_ubench *b, kh_cycle at, unsigned buf, unsigned off, unsigned len, unsigned flags,
                  unsigned ack_x, unsigned ack_y, unsigned sx, unsigned sy, uint64_t base)
{
    kh_flit d = vk_cudata_desc(buf, off, len, sx, sy);
    kh_cu_data_set_flags(d.w, flags);
    kh_cu_data_set_ack_x(d.w, ack_x);
    kh_cu_data_set_ack_y(d.w, ack_y);
    kh_ubench_inject(b, &d, at);
    for (unsigned i = 0; i <= len; i++) {
        kh_flit w = vk_cudata_word(sx, sy, base + i, i == len);
        kh_ubench_inject(b, &w, at);
    }
}

/* Every CU_SIGNAL with code 3 the unit sent. */
static unsigned data_received(kh_ubench *b, kh_flit *first)
{
    unsigned n = 0;
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_flit *f = &kh_ubench_out(b, i)->f;
        if (kh_hdr_type(f->w) != KH_T_CU_SIGNAL || kh_cu_signal_code(f->w) != 3) continue;
        if (!n && first) *first = *f;
        n++;
    }
    return n;
}

static void accepted_burst_lands_at_offset(void)
{
    kh_ubench *b = vk_bench(0);
    burst(b, 0, 0, 100, 2, 0, 0, 0, 0, 2, 0xA0);
    char err[300];
    CHECK_EQ(kh_ubench_run(b, 1000, err, sizeof err), 1);
    vec_core *c = vk_core(b);
    for (unsigned i = 0; i < 3; i++) CHECK_EQ(c->st.l1[100 + i][0], 0xA0u + i);
    CHECK_EQ(c->st.l1[103][0], 0u);
    CHECK_EQ(c->cudata_fault, 0);
    CHECK_EQ(data_received(b, NULL), 0); /* flags 0: no signal */
    kh_ubench_free(b);
}

static void data_received_goes_to_the_ack_node_with_txn_0(void)
{
    kh_ubench *b = vk_bench(0);
    burst(b, 0, 0, 7, 0, 1, 1, 3, 0, 2, 0x11); /* ack (1,3) */
    char err[300];
    CHECK_EQ(kh_ubench_run(b, 1000, err, sizeof err), 1);
    kh_flit s;
    CHECK_EQ(data_received(b, &s), 1);
    CHECK_EQ(kh_hdr_dst_x(s.w), 1);
    CHECK_EQ(kh_hdr_dst_y(s.w), 3);
    CHECK_EQ(kh_hdr_src_x(s.w), VK_CU_X);
    CHECK_EQ(kh_hdr_src_y(s.w), VK_CU_Y);
    CHECK_EQ(kh_hdr_txn(s.w), 0);
    CHECK_EQ(kh_hdr_last(s.w), 1);
    CHECK_EQ(kh_cu_signal_arg(s.w), 0); /* {24'b0, buf} */
    kh_ubench_free(b);
}

static void data_received_without_ack_goes_to_the_sender(void)
{
    kh_ubench *b = vk_bench(0);
    burst(b, 0, 0, 7, 3, 1, 0, 0, 0, 2, 0x11);
    char err[300];
    CHECK_EQ(kh_ubench_run(b, 1000, err, sizeof err), 1);
    kh_flit s;
    CHECK_EQ(data_received(b, &s), 1);
    CHECK_EQ(kh_hdr_dst_x(s.w), 0);
    CHECK_EQ(kh_hdr_dst_y(s.w), 2);
    kh_ubench_free(b);
}

/* buf != 0 or offset + len >= 512: consumed whole, nothing written, no
 * signal (unlike the cluster), F_CUDATA latched; the next burst is framed
 * normally. 510 + 1 = 511 is still inside. */
static void rejected_bursts_are_counted_out(void)
{
    kh_ubench *b = vk_bench(0);
    burst(b, 0, 1, 0, 3, 1, 0, 0, 0, 2, 0x50);   /* buffer 1 */
    burst(b, 0, 0, 510, 2, 1, 0, 0, 0, 2, 0x60); /* 512: out */
    burst(b, 0, 0, 510, 1, 1, 0, 0, 0, 2, 0x70); /* 511: in */
    char err[300];
    CHECK_EQ(kh_ubench_run(b, 1000, err, sizeof err), 1);
    vec_core *c = vk_core(b);
    for (unsigned i = 0; i < 4; i++) CHECK_EQ(c->st.l1[i][0], 0u);
    CHECK_EQ(c->st.l1[510][0], 0x70u);
    CHECK_EQ(c->st.l1[511][0], 0x71u);
    CHECK_EQ(c->cudata_fault, 1);
    CHECK_EQ(data_received(b, NULL), 1); /* only the accepted one */
    kh_ubench_free(b);
}

/* A data flit from another source drops the rest of the open burst. */
static void interleaved_source_drops_the_burst(void)
{
    kh_ubench *b = vk_bench(0);
    kh_flit d = vk_cudata_desc(0, 20, 2, 0, 2);
    kh_cu_data_set_flags(d.w, 1);
    kh_flit w0 = vk_cudata_word(0, 2, 1, 0), x = vk_cudata_word(3, 2, 9, 0);
    kh_ubench_inject(b, &d, 0);
    kh_ubench_inject(b, &w0, 0);
    kh_ubench_inject(b, &x, 0);
    char err[300];
    CHECK_EQ(kh_ubench_run(b, 1000, err, sizeof err), 1);
    vec_core *c = vk_core(b);
    CHECK_EQ(c->st.l1[20][0], 1u);
    CHECK_EQ(c->st.l1[21][0], 0u);
    CHECK_EQ(c->cudata_fault, 1);
    CHECK_EQ(c->rx.open, 0);
    CHECK_EQ(data_received(b, NULL), 0);
    kh_ubench_free(b);
}

/* CU_DATA words are kernel-visible: a kernel loads and drains them. */
static void kernel_reads_what_cu_data_wrote(void)
{
    kh_ubench *b = vk_bench(0);
    burst(b, 0, 0, 40, 1, 0, 0, 0, 0, 2, 0x1234);
    vk_desc1(b, 1, 0x5000, 32, 2);
    vk_prog p = {.n = 0};
    vk_emit(&p, vk_vdrain(1, 40));
    vk_emit(&p, vk_vhalt());
    vk_load(b, 0, &p);
    vk_run(b, 0);
    vk_go(b);
    CHECK_EQ(vk_rd_f32(b, 0x5000), 0x1234u);
    CHECK_EQ(vk_rd_f32(b, 0x5020), 0x1235u);
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(accepted_burst_lands_at_offset);
    KH_RUN(data_received_goes_to_the_ack_node_with_txn_0);
    KH_RUN(data_received_without_ack_goes_to_the_sender);
    KH_RUN(rejected_bursts_are_counted_out);
    KH_RUN(interleaved_source_drops_the_burst);
    KH_RUN(kernel_reads_what_cu_data_wrote);
    return kh_test_end("t_vector_cudata");
}
