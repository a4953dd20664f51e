/* replay saxpy: every case of a saxpy vector file (format and
 * replay contract: ../shared/vectors/README.md) driven through the host
 * window of one machine built from saxpy_map.txt with the recording profile
 * (parameters.md §2.5). One simulation for all cases, no reset between
 * them. Exact: memory at every mem_out address, NODE_STATUS code/arg/valid,
 * SIG_DONE. Timing: cycles_kick_to_batch, reported as a deviation. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/card.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/hex.h"
#include "kohaku/json.h"
#include "kohaku/machine.h"
#include "replay/replay_int.h"

/* The picture of upstream's src/examples/saxpy/saxpy_map.txt (the file
 * ../shared/maps/saxpy_map.txt): one router at (1,1), the memory port at
 * (0,1), saxpy units at (1,0) and (1,2). */
static const char saxpy_map[] = "xxx sax xxx\n"
                                "mag nul nul\n"
                                "xxx sax xxx\n";

#define CASE_LIMIT UINT64_C(2000000) /* cycles a case may take before it is called stuck */

typedef struct replay {
    kh_machine *m;
    kh_card *card;
    kh_sim *sim;
    kh_replay_case *c; /* the case being run */
} replay;

#define case_fail(r, ...) kh_replay_fail((r)->c, __VA_ARGS__)

static int wr(replay *r, uint64_t addr, uint64_t v)
{
    char err[512];
    if (kh_card_write64(r->card, addr, v, err, sizeof err)) return case_fail(r, "%s", err);
    return 0;
}

static int rd(replay *r, uint64_t addr, uint64_t *v)
{
    char err[512];
    if (kh_card_read64(r->card, addr, v, err, sizeof err)) return case_fail(r, "%s", err);
    return 0;
}

/* A {addr, bytes} object of mem_in / mem_out. */
static int mem_entry(replay *r, const kh_json_val *e, const char *list, size_t i, uint64_t *addr, uint8_t *b,
                     size_t *n)
{
    char err[256];
    const char *hex;
    if (kh_json_get_u64(e, "addr", addr, err, sizeof err) || kh_json_get_str(e, "bytes", &hex, err, sizeof err))
        return case_fail(r, "%s[%zu]: %s", list, i, err);
    size_t len = strlen(hex);
    if (len == 0 || len % 16 || len / 2 > 4096)
        return case_fail(r, "%s[%zu]: 'bytes' has %zu digits; expected whole 64-bit words (16 digits each)", list, i,
                         len);
    *n = len / 2;
    if (kh_hex_bytes_parse(hex, b, *n, err, sizeof err)) return case_fail(r, "%s[%zu]: bytes: %s", list, i, err);
    if (*addr % 8) return case_fail(r, "%s[%zu]: addr 0x%llx is not 8-byte aligned", list, i, (unsigned long long)*addr);
    return 0;
}

/* Run one case; 0 pass, -1 fail (r->msg). *ours gets the measured cycles. */
static int run_case(replay *r, const kh_json_val *c, uint64_t *ours)
{
    char err[256];
    const kh_json_val *prog, *mem_in, *mem_out;
    uint64_t node, base = 0, cred = 4, want_sig;
    const char *status_hex;
    if (kh_json_get_u64(c, "node_yx", &node, err, sizeof err) || kh_json_get_array(c, "prog", &prog, err, sizeof err) ||
        kh_json_get_array(c, "mem_in", &mem_in, err, sizeof err) ||
        kh_json_get_array(c, "mem_out", &mem_out, err, sizeof err) ||
        kh_json_get_str(c, "node_status", &status_hex, err, sizeof err) ||
        kh_json_get_u64(c, "sig_done", &want_sig, err, sizeof err))
        return case_fail(r, "%s", err);
    if (kh_json_get(c, "prog_base") && kh_json_get_u64(c, "prog_base", &base, err, sizeof err))
        return case_fail(r, "%s", err);
    if (kh_json_get(c, "prog_credit") && kh_json_get_u64(c, "prog_credit", &cred, err, sizeof err))
        return case_fail(r, "%s", err);
    size_t n = kh_json_len(prog);
    if (node > 0xFF) return case_fail(r, "node_yx %llu does not fit {y, x} (8 bits)", (unsigned long long)node);
    if (n == 0 || base + n > kh_sim_params(r->sim)->stage_flits)
        return case_fail(r, "prog of %zu flits at base %llu does not fit the %llu staging slots", n,
                         (unsigned long long)base, (unsigned long long)kh_sim_params(r->sim)->stage_flits);
    uint64_t want_status[1];
    if (kh_hex_parse(status_hex, want_status, 64, 1, err, sizeof err)) return case_fail(r, "node_status: %s", err);

    /* 1. operands, with 256-bit memory-window writes */
    uint8_t buf[4096];
    for (size_t i = 0; i < kh_json_len(mem_in); i++) {
        uint64_t addr;
        size_t len;
        if (mem_entry(r, kh_json_at(mem_in, i), "mem_in", i, &addr, buf, &len)) return -1;
        if (kh_card_write_block(r->card, kh_host_dram(0, addr), buf, len, err, sizeof err))
            return case_fail(r, "mem_in[%zu]: %s", i, err);
    }
    /* 2. SIG_DONE := 0, then the program into slots base.. */
    if (wr(r, kh_host_ctrl(0, KH_ORCH_SIG_DONE), 0)) return -1;
    for (size_t i = 0; i < n; i++) {
        const kh_json_val *e = kh_json_at(prog, i);
        uint64_t txn, last;
        const char *payload;
        if (kh_json_get_u64(e, "txn", &txn, err, sizeof err) || kh_json_get_u64(e, "last", &last, err, sizeof err) ||
            kh_json_get_str(e, "payload", &payload, err, sizeof err))
            return case_fail(r, "prog[%zu]: %s", i, err);
        if (txn > 0xFF || last > 1) return case_fail(r, "prog[%zu]: txn %llu / last %llu out of range", i,
                                                    (unsigned long long)txn, (unsigned long long)last);
        kh_flit f;
        kh_flit_clear(&f);
        if (kh_hex_parse(payload, f.w, 256, 1, err, sizeof err)) return case_fail(r, "prog[%zu].payload: %s", i, err);
        kh_hdr_set_type(f.w, KH_T_CU_INST);
        kh_hdr_set_txn(f.w, txn);
        kh_hdr_set_last(f.w, last);
        for (unsigned k = 0; k < KH_FLIT_WORDS; k++)
            if (wr(r, kh_host_ctrl(0, (uint32_t)(KH_ORCH_STAGE + 40 * (base + i) + 8 * k)), f.w[k])) return -1;
    }
    /* 3. the control.md §4 order: BASE, LEN, DST, CRED, KICK */
    uint64_t st_addr = kh_host_ctrl(0, KH_ORCH_NODE_STATUS + 8 * (uint32_t)node), st0;
    if (rd(r, st_addr, &st0)) return -1;
    if (wr(r, kh_host_ctrl(0, KH_ORCH_PROG_BASE), base) || wr(r, kh_host_ctrl(0, KH_ORCH_PROG_LEN), n) ||
        wr(r, kh_host_ctrl(0, KH_ORCH_PROG_DST), node) || wr(r, kh_host_ctrl(0, KH_ORCH_PROG_CRED), cred))
        return -1;
    kh_cycle kick = kh_sim_now(r->sim); /* the beat of the PROG_KICK write */
    if (wr(r, kh_host_ctrl(0, KH_ORCH_PROG_KICK), 1)) return -1;

    /* 4. until NODE_STATUS holds the batch-completing signal: the node's
     * count advanced by n (n completions for n instructions, control.md §4). */
    uint64_t want_count = (kh_orch_node_status_count(&st0) + n) & 0xFFFF, st = st0;
    for (;;) {
        if (rd(r, st_addr, &st)) return -1;
        if (kh_orch_node_status_count(&st) == want_count && kh_orch_node_status_valid(&st)) break;
        kh_cycle now = kh_sim_now(r->sim);
        if (kh_sim_idle(r->sim) || now - kick > CASE_LIMIT) {
            char diag[4096];
            kh_machine_diagnose(r->m, diag, sizeof diag);
            return case_fail(r, "no batch completion from node 0x%02llx after %llu cycles: %s", (unsigned long long)node,
                             (unsigned long long)(now - kick), diag[0] ? diag : "nothing outstanding");
        }
        /* the next read of st_addr runs the machine through its next event */
    }
    *ours = kh_sim_now(r->sim) - 1 - kick; /* the status changed in the cycle before this boundary */

    /* 5. let the write behind the completion land (matmul_saxpy.md §2.5) */
    if (!kh_sim_run_until_idle(r->sim, CASE_LIMIT)) return case_fail(r, "the machine never went idle after the case");
    const char *merr = kh_machine_error(r->m);
    if (merr) return case_fail(r, "%s", merr);

    /* 6. compare */
    if (kh_orch_node_status_code(&st) != kh_orch_node_status_code(want_status))
        return case_fail(r, "NODE_STATUS code: expected 0x%02llx, got 0x%02llx",
                         (unsigned long long)kh_orch_node_status_code(want_status),
                         (unsigned long long)kh_orch_node_status_code(&st));
    if (kh_orch_node_status_arg(&st) != kh_orch_node_status_arg(want_status))
        return case_fail(r, "NODE_STATUS arg: expected 0x%08llx, got 0x%08llx",
                         (unsigned long long)kh_orch_node_status_arg(want_status),
                         (unsigned long long)kh_orch_node_status_arg(&st));
    if (kh_orch_node_status_valid(&st) != kh_orch_node_status_valid(want_status))
        return case_fail(r, "NODE_STATUS valid: expected %llu, got %llu",
                         (unsigned long long)kh_orch_node_status_valid(want_status),
                         (unsigned long long)kh_orch_node_status_valid(&st));
    uint64_t sig;
    if (rd(r, kh_host_ctrl(0, KH_ORCH_SIG_DONE), &sig)) return -1;
    if (sig != want_sig)
        return case_fail(r, "SIG_DONE: expected %llu, got %llu", (unsigned long long)want_sig, (unsigned long long)sig);
    for (size_t i = 0; i < kh_json_len(mem_out); i++) {
        uint64_t addr;
        size_t len;
        uint8_t got[4096];
        if (mem_entry(r, kh_json_at(mem_out, i), "mem_out", i, &addr, buf, &len)) return -1;
        if (kh_card_read_block(r->card, kh_host_dram(0, addr), got, len, err, sizeof err))
            return case_fail(r, "mem_out[%zu]: %s", i, err);
        for (size_t k = 0; k < len; k++)
            if (got[k] != buf[k]) {
                char we[65], ge[65];
                size_t line = k & ~(size_t)31, ln = len - line < 32 ? len - line : 32;
                kh_hex_bytes_format(buf + line, ln, we);
                kh_hex_bytes_format(got + line, ln, ge);
                return case_fail(r, "memory 0x%llx byte %zu: expected %02x, got %02x (line 0x%llx: expected %s, got %s)",
                                 (unsigned long long)(addr + k), k, buf[k], got[k],
                                 (unsigned long long)(addr + line), we, ge);
            }
    }
    return 0;
}

/* One machine for every case of the file. */
static int saxpy_open(kh_replay *rp, char *err, size_t errlen)
{
    kh_params p;
    kh_params_default(&p);
    if (kh_params_profile(&p, "rec-saxpy", err, errlen)) return -1;
    replay *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char why[1024];
    r->m = kh_machine_new(saxpy_map, &p, why, sizeof why);
    if (!r->m) {
        snprintf(err, errlen, "the saxpy machine: %s", why);
        free(r);
        return -1;
    }
    r->card = kh_machine_card(r->m);
    r->sim = kh_machine_sim(r->m);
    rp->state = r;
    rp->machine = r->m;
    if (rp->o->check_fn && kh_machine_set_check(r->m, rp->o->check_fn, rp->o->check_ctx)) {
        snprintf(err, errlen, "out of memory for the flit checker");
        return -1;
    }
    kh_replay_case none = {0};
    if (kh_replay_attach(rp, &none, r->sim, NULL)) {
        snprintf(err, errlen, "%s", none.why);
        return -1;
    }
    return 0;
}

static void saxpy_close(kh_replay *rp)
{
    replay *r = rp->state;
    if (!r) return;
    kh_replay_detach(rp);
    rp->machine = NULL;
    kh_replay_add_check(rp, kh_machine_check(r->m));
    kh_machine_free(r->m);
    free(r);
    rp->state = NULL;
}

/* The case's "case" number, or its place in the file. */
static void saxpy_name(kh_replay_case *c)
{
    if (kh_replay_name_recorded(c)) snprintf(c->name, sizeof c->name, "%u", c->index);
}

static void saxpy_run(kh_replay *rp, kh_replay_case *k)
{
    replay *r = rp->state;
    const kh_json_val *c = k->root;
    uint64_t rec = 0, ours = 0;
    kh_cycle begin = kh_sim_now(r->sim);
    int has_rec = kh_json_u64(kh_json_get(c, "cycles_kick_to_batch"), &rec) == 0 && rec > 0;
    r->c = k;
    if (kh_json_type_of(c) != KH_JSON_OBJECT)
        kh_replay_fail(k, "not a JSON object");
    else
        run_case(r, c, &ours);
    kh_replay_case_end(rp, k, r->sim, begin);
    if (has_rec && ours) {
        k->timed = 1;
        k->ours = (double)ours;
        k->recorded = (double)rec;
        if (rp->o->verbose)
            fprintf(rp->out, "case %s: %llu cycles kick to batch, recorded %llu (%+.1f %%)\n", k->name,
                    (unsigned long long)ours, (unsigned long long)rec, 100.0 * ((double)ours - (double)rec) / (double)rec);
    }
}

const kh_replay_kind kh_replay_saxpy = {.name = "saxpy",
                                        .simulates = 1,
                                        .open = saxpy_open,
                                        .close = saxpy_close,
                                        .name_case = saxpy_name,
                                        .run = saxpy_run};
