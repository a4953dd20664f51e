/* Run one program on a machine's control processor as a host does: load
 * and kick through the orchestrator (rv32_load.c), then watch the status
 * mirror of (0,0) until its completion arrives (cpu.md §12). */
#include <stdio.h>
#include <string.h>

#include "kohaku/gen/regs.h"
#include "kohaku/machine.h"
#include "kohaku/rv32.h"

static int status(kh_machine *m, unsigned mesh, uint64_t *v, char *err, size_t errlen)
{
    return kh_card_read64(kh_machine_card(m), kh_host_ctrl(mesh, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(0, 0)),
                          v, err, errlen);
}

int kh_rv32_run(kh_machine *m, unsigned mesh, const kh_rv32_image *img, uint32_t arg, kh_cycle limit,
                kh_rv32_result *res, char *err, size_t errlen)
{
    kh_rv32 *cpu = kh_machine_cpu_at(m, mesh);
    kh_sim *sim = kh_machine_sim(m);
    memset(res, 0, sizeof *res);
    if (!cpu) {
        snprintf(err, errlen, "mesh %u has no control processor (cpu_mode agent or drop; control.md Open point 16)",
                 mesh);
        return -1;
    }
    uint64_t before, now;
    if (status(m, mesh, &before, err, errlen)) return -1;
    res->load_cycle = kh_sim_now(sim);
    if (kh_rv32_host_load(kh_machine_card(m), mesh, img, arg, 1, 0, err, errlen)) return -1;
    res->kick_cycle = kh_sim_now(sim);
    kh_cycle end = kh_sim_now(sim) + limit;
    for (;;) {
        /* idle before the read: a read that costs host-link time may let the completion in */
        int idle = kh_sim_idle(sim);
        if (status(m, mesh, &now, err, errlen)) return -1;
        if (kh_orch_node_status_count(&now) != kh_orch_node_status_count(&before)) break;
        if (idle || kh_sim_now(sim) >= end) {
            size_t used = (size_t)snprintf(err, errlen, "no completion from (0,0) %s after cycle %llu:\n",
                                           idle ? "and nothing left to run" : "within the cycle limit",
                                           (unsigned long long)kh_sim_now(sim));
            if (used < errlen) kh_machine_diagnose(m, err + used, errlen - used);
            kh_rv32_state st;
            kh_rv32_get_state(cpu, &st);
            res->cause = st.cause;
            res->cycles = st.cycles;
            return -1;
        }
        kh_sim_run_until_idle(sim, 1024);
    }
    kh_rv32_state st;
    kh_rv32_get_state(cpu, &st);
    res->a0 = st.x[10];
    res->cause = st.cause;
    res->cycles = st.cycles;
    res->instret = st.instret;
    res->code = (unsigned)kh_orch_node_status_code(&now);
    res->arg = (uint32_t)kh_orch_node_status_arg(&now);
    res->done_cycle = kh_sim_now(sim);
    return 0;
}
