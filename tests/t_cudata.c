/* CU_DATA through the control path (control.md §5.8, flits.md §4.7): a
 * burst the receiving unit must reject for its range is still counted out
 * to its last data flit, acknowledged, and reported once as a fault at the
 * next retirement. Sent from the orchestrator's mailbox to the matmul
 * cluster at (1,1) of the default machine (L1 A: 512 entries = 2048
 * granules, cluster.md §1). */
#include <string.h>

#include "kohaku/card.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/machine.h"
#include "support/test.h"

static uint64_t rd(kh_machine *m, uint64_t addr)
{
    char err[512];
    uint64_t v = 0;
    if (kh_card_read64(kh_machine_card(m), addr, &v, err, sizeof err)) printf("read: %s\n", err);
    return v;
}

static void wr(kh_machine *m, uint64_t addr, uint64_t v)
{
    char err[512];
    if (kh_card_write64(kh_machine_card(m), addr, v, err, sizeof err)) printf("write: %s\n", err);
}

/* One flit through the raw mailbox: five words, TX_KICK, then a read so the
 * push has happened before the next flit's words are written (§2.7). */
static void mailbox(kh_machine *m, const kh_flit *f)
{
    for (unsigned k = 0; k < 5; k++) wr(m, kh_host_ctrl(0, KH_ORCH_TX_FLIT + 8 * k), f->w[k]);
    wr(m, kh_host_ctrl(0, KH_ORCH_TX_KICK), 1);
    rd(m, kh_host_ctrl(0, KH_ORCH_TX_STATUS));
}

static kh_flit header(unsigned type, unsigned last)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_dst_x(f.w, 1);
    kh_hdr_set_dst_y(f.w, 1);
    kh_hdr_set_src_x(f.w, 0); /* the orchestrator's coordinate */
    kh_hdr_set_src_y(f.w, 1);
    kh_hdr_set_type(f.w, type);
    kh_hdr_set_last(f.w, last);
    return f;
}

/* Descriptor + len+1 data flits, signal_on_complete, ack to (0,1). */
static void burst(kh_machine *m, unsigned buf, unsigned offset, unsigned len)
{
    kh_flit d = header(KH_T_CU_DATA, 0);
    kh_cu_data_set_buf_id(d.w, buf);
    kh_cu_data_set_offset(d.w, offset);
    kh_cu_data_set_len(d.w, len);
    kh_cu_data_set_flags(d.w, 1);
    kh_cu_data_set_ack_x(d.w, 0);
    kh_cu_data_set_ack_y(d.w, 1);
    mailbox(m, &d);
    for (unsigned j = 0; j <= len; j++) {
        kh_flit x = header(KH_T_CU_DATA, j == len);
        x.w[0] = 0x1111 * (j + 1);
        mailbox(m, &x);
    }
}

static uint64_t node_status(kh_machine *m)
{
    return rd(m, kh_host_ctrl(0, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 1)));
}

static void out_of_range_burst_is_counted_out_acked_and_faulted_once(void)
{
    char err[512];
    kh_machine *m = kh_machine_new(NULL, NULL, err, sizeof err);
    CHECK(m != NULL);
    if (!m) {
        printf("%s\n", err);
        return;
    }
    /* offset 2046 + len 2 = 2048 is not < 2048 granules: rejected */
    burst(m, 0, 2046, 2);
    kh_sim_run_until_idle(kh_machine_sim(m), 100000);
    uint64_t w = node_status(m);
    CHECK_EQ(kh_orch_node_status_code(&w), 0x03); /* DATA_RECEIVED, still sent for a rejected burst */
    CHECK_EQ(kh_orch_node_status_arg(&w), 0);     /* {24'd0, buf_id} */
    /* Had a data flit of the rejected burst been left over, this next
     * descriptor would be framed as data: it is acknowledged on its own. */
    burst(m, 0, 0, 1);
    kh_sim_run_until_idle(kh_machine_sim(m), 100000);
    w = node_status(m);
    CHECK_EQ(kh_orch_node_status_code(&w), 0x03);
    CHECK_EQ(kh_orch_node_status_count(&w), 2);
    CHECK_EQ(rd(m, kh_host_ctrl(0, KH_ORCH_SIG_DONE)), 2);
    /* The rejection is reported once, at the next retirement: a no-op
     * instruction (op 0) faults, the one after it does not. */
    for (unsigned i = 0; i < 2; i++) {
        kh_flit inst = header(KH_T_CU_INST, 1);
        kh_hdr_set_txn(inst.w, 0x70 + i);
        for (unsigned k = 0; k < 5; k++) wr(m, kh_host_ctrl(0, KH_ORCH_STAGE + 8 * k), inst.w[k]);
        wr(m, kh_host_ctrl(0, KH_ORCH_PROG_BASE), 0);
        wr(m, kh_host_ctrl(0, KH_ORCH_PROG_LEN), 1);
        wr(m, kh_host_ctrl(0, KH_ORCH_PROG_DST), kh_orch_node_index(1, 1));
        wr(m, kh_host_ctrl(0, KH_ORCH_PROG_CRED), 4);
        wr(m, kh_host_ctrl(0, KH_ORCH_PROG_KICK), 1);
        kh_sim_run_until_idle(kh_machine_sim(m), 100000);
        w = node_status(m);
        CHECK_EQ(kh_orch_node_status_code(&w), i == 0 ? 0x04 : 0x01);
        if (i == 1) CHECK_EQ(kh_orch_node_status_arg(&w), 0x71);
    }
    kh_machine_free(m);
}

int main(void)
{
    KH_RUN(out_of_range_burst_is_counted_out_acked_and_faulted_once);
    return kh_test_end("t_cudata");
}
