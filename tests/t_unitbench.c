/* The unit bench (include/kohaku/unitbench.h): its memory model and its
 * write acknowledgements, with the matmul cluster as the unit that writes. */
#include <string.h>

#include "kohaku/cu.h"
#include "kohaku/unitbench.h"
#include "support/clbench.h"
#include "support/test.h"

static kh_ubench *bench(unsigned rd_lat, int send_acks)
{
    kh_ubench_cfg cfg;
    char err[200];
    memset(&cfg, 0, sizeof cfg);
    cfg.kind = kh_unit_by_name("mx_cluster_cu");
    cfg.cu_x = 2;
    cfg.cu_y = 1;
    cfg.mem_x = 1;
    cfg.mem_y = 1;
    cfg.src_x = 3;
    cfg.src_y = 3;
    cfg.rd_lat = rd_lat;
    cfg.send_acks = send_acks;
    kh_params_default(&cfg.params);
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    if (!b) printf("bench: %s\n", err);
    return b;
}

/* Unwritten bytes read 0; what was written reads back, across a 4 KiB page
 * boundary and at the top of the 40-bit map. */
static void memory_reads_back_what_was_written(void)
{
    kh_ubench *b = bench(10, 0);
    if (!b) return;
    uint8_t in[100], out[100];
    for (unsigned i = 0; i < sizeof in; i++) in[i] = (uint8_t)(3 * i + 1);
    kh_ubench_mem_read(b, 0xFFF0, out, sizeof out);
    for (unsigned i = 0; i < sizeof out; i++) CHECK_EQ(out[i], 0);
    kh_ubench_mem_write(b, 0xFFF0, in, sizeof in);
    kh_ubench_mem_read(b, 0xFFF0, out, sizeof out);
    CHECK(!memcmp(in, out, sizeof in));
    kh_ubench_mem_write(b, 0xFFFFFFFFE0ull, in, 32);
    kh_ubench_mem_read(b, 0xFFFFFFFFE0ull, out, 32);
    CHECK(!memcmp(in, out, 32));
    kh_ubench_free(b);
}

/* rd_lat 0: an acknowledgement is due in the cycle its write completes; the
 * bench sends it next cycle without asking the kernel for a past cycle
 * (sim.h: a wake inside a step must lie in the future). */
static void ack_with_zero_latency_is_scheduled_for_the_next_cycle(void)
{
    kh_ubench *b = bench(0, 1);
    if (!b) return;
    kh_sim_set_log(kh_ubench_sim(b), NULL, NULL, KH_LOG_ERROR); /* the DRAIN of nothing warns */
    clb_send(b, clb_drain(0x100, 1), 1);
    if (clb_run_ok(b) == 1) CHECK(kh_ubench_nwrites(b) > 0);
    CHECK_EQ(kh_sim_log_count(kh_ubench_sim(b), KH_LOG_ERROR), 0);
    kh_ubench_free(b);
}

int main(void)
{
    KH_RUN(memory_reads_back_what_was_written);
    KH_RUN(ack_with_zero_latency_is_scheduled_for_the_next_cycle);
    return kh_test_end("t_unitbench");
}
