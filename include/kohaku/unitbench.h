/* A unit-level bench: one shell + unit wired straight to a bench endpoint
 * that plays the instruction sender and a fixed-latency memory model, the
 * environment the cluster and vector recordings were made in (parameters.md
 * §2.3, §2.4; vectors/README.md). No mesh between them.
 *
 * The bench endpoint sends, one flit per cycle, in this priority: memory
 * responses, injected flits (at or after their cycle), instructions (in
 * order, as fast as the shell takes them). It takes every flit the unit
 * sends at once (the unit's output is never back-pressured), answers
 * MEM_RD_REQ (plain: len+1 beats; streaming: count entries of entry_words
 * words with the agent's tags, memory.md §3) starting rd_lat cycles after
 * the edge after the request arrived (the recorder's count, measured on
 * upstream's RTL in its bench: docs/timing.md "Cluster"), one flit per
 * cycle, stores MEM_WR_REQ/MEM_WR_DATA
 * bursts (optionally acknowledging them), and records everything else. */
#ifndef KOHAKU_UNITBENCH_H
#define KOHAKU_UNITBENCH_H

#include <stddef.h>
#include <stdint.h>

#include "kohaku/check.h"
#include "kohaku/cu.h"

typedef struct kh_ubench kh_ubench;

typedef struct kh_ubench_cfg {
    const kh_unit_kind *kind;
    uint8_t cu_x, cu_y;   /* the unit */
    uint8_t mem_x, mem_y; /* the memory model answers here */
    uint8_t src_x, src_y; /* instructions come from here */
    unsigned rd_lat;      /* the edge after the request to the first response flit */
    int send_acks;        /* acknowledge writes with MEM_WR_ACK (default 0) */
    kh_params params;     /* machine parameters for the shell and unit */
} kh_ubench_cfg;

/* One flit the unit sent, with the cycle it crossed the unit's output. */
typedef struct kh_ubench_rec {
    kh_flit f;
    kh_cycle cycle;
} kh_ubench_rec;

/* One 32-byte memory write, in the order the model applied it. */
typedef struct kh_ubench_write {
    uint64_t addr;
    uint8_t bytes[32];
    kh_cycle cycle;
} kh_ubench_write;

kh_ubench *kh_ubench_new(const kh_ubench_cfg *cfg, char *err, size_t errlen);
void kh_ubench_free(kh_ubench *b);
kh_sim *kh_ubench_sim(kh_ubench *b);
/* Live flit checking of what the bench endpoint and the unit send
 * (docs/check.md), as kh_machine_set_check: report NULL logs the findings
 * (errors for violations). The endpoint counts as a memory port at
 * (mem_x, mem_y) for its responses, as the dispatcher for instructions when
 * src is mem (else as the mailbox), as the mailbox for injected flits.
 * KOHAKU_CHECK in the environment turns it on for every bench. 0, or -1. */
int kh_ubench_set_check(kh_ubench *b, kh_check_report_fn report, void *ctx);
kh_check *kh_ubench_check(const kh_ubench *b);
kh_cu *kh_ubench_cu(kh_ubench *b);

/* Memory of the model (sparse; unwritten bytes read 0). Addresses are the
 * full 40-bit flit addresses. */
void kh_ubench_mem_write(kh_ubench *b, uint64_t addr, const uint8_t *bytes, size_t n);
void kh_ubench_mem_read(kh_ubench *b, uint64_t addr, uint8_t *bytes, size_t n);

/* Queue an instruction: payload words w[0..3] of f are sent with type
 * CU_INST, the given txn and last, src = (src_x, src_y), dst = the unit. */
void kh_ubench_inst(kh_ubench *b, const kh_flit *payload, uint8_t txn, int last);
/* Queue any flit (header as given) to be sent no earlier than `at`. */
void kh_ubench_inject(kh_ubench *b, const kh_flit *f, kh_cycle at);

/* Run until every queued instruction has completed (one completion each,
 * counted from the CU_SIGNALs with code 0, 1 or 4) and the machine is
 * quiet, or until `limit` cycles passed. 1: done; 0: limit; -1: stuck (no
 * component can make progress; the diagnosis is in err). */
int kh_ubench_run(kh_ubench *b, kh_cycle limit, char *err, size_t errlen);

/* What the unit sent other than memory requests (CU_SIGNAL, CU_DATA,
 * CU_CTRL replies, ...), and the memory traffic seen. */
size_t kh_ubench_nout(const kh_ubench *b);
const kh_ubench_rec *kh_ubench_out(const kh_ubench *b, size_t i);
size_t kh_ubench_nreq(const kh_ubench *b); /* MEM_RD_REQ and MEM_WR_REQ, in arrival order */
const kh_ubench_rec *kh_ubench_req(const kh_ubench *b, size_t i);
size_t kh_ubench_nwrites(const kh_ubench *b);
const kh_ubench_write *kh_ubench_writes(const kh_ubench *b, size_t i);

#endif
