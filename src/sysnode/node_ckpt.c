/* The system node's own state in a checkpoint (docs/checkpoint.md): DRAM
 * and the staging store as their written pages, the hub registers of rules
 * 2 and 4 with their round-robins, the counters and the transform slot's
 * faults. Its components (ports, converged path, mover, interlink) save
 * themselves; the converged path, which owns the node, calls this. */
#include "kohaku/ckpt.h"
#include "sysnode/node_int.h"

void kh_node_ckpt(kh_node *n, kh_ck *ck)
{
    kh_ck_pages(ck, &n->dram, n->dram_bytes_mask / KH_PAGE_BYTES + 1);
    kh_ck_pages(ck, &n->stage, n->stage_bytes_mask / KH_PAGE_BYTES + 1);
    for (unsigned i = 0; i < KH_NODE_MAX_PORTS; i++) {
        kh_ck_flit(ck, &n->agent_hold[i]);
        kh_ck_flit(ck, &n->cpu_hold[i]);
    }
    KH_CK(ck, n->agent_held);
    KH_CK(ck, n->agent_ptr);
    KH_CK(ck, n->agent_out_cycle);
    KH_CK(ck, n->agent_at);
    KH_CK(ck, n->cpu_at);
    KH_CK(ck, n->cpu_held);
    KH_CK(ck, n->cpu_ptr);
    KH_CK(ck, n->cpu_out_cycle);
    KH_CK(ck, n->counts.agent_drops);
    KH_CK(ck, n->counts.cpu_drops);
    KH_CK(ck, n->counts.cpu_flits);
    KH_CK(ck, n->counts.cpu_replies);
    KH_CK(ck, n->counts.ilink_drops);
    KH_CK(ck, n->counts.unmatched_data);
    KH_CK(ck, n->counts.dropped_reads);
    KH_CK(ck, n->counts.dropped_writes);
    KH_CK(ck, n->counts.lost_at_dram);
    KH_CK(ck, n->counts.bad_remote_req);
    /* the occupants are the machine's build, except one registered at run
     * time (kh_node_xform_register): code, which no file can hold */
    for (unsigned id = 0; id < KH_XFORM_IDS; id++) {
        uint8_t builtin = n->occ[id] == kh_xform_builtin(id);
        if (!kh_ck_loading(ck) && !builtin) {
            kh_ck_fail(ck, "the transform slot's occupant %u ('%s') was registered at run time: a checkpoint "
                           "cannot hold its code", id, n->occ[id] ? n->occ[id]->name : "none");
            return;
        }
        KH_CK(ck, builtin);
        if (kh_ck_loading(ck) && !builtin && !kh_ck_failed(ck))
            kh_ck_fail(ck, "%s: occupant %u is not a built-in one", kh_ck_where(ck), id);
    }
    KH_CK(ck, n->bank_fault);
    KH_CK(ck, n->warned_wide);
    KH_CK(ck, n->warned_bit38);
}
