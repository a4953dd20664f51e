/* replay vector: vector.jsonl cases
 * (../shared/vectors/README.md) on vec_cu at unit level, in the recording's
 * environment (parameters.md §2.4): the unit at `cu_xy`, instructions from
 * `sender_xy`, a fixed-latency memory at `mem_xy` answering after `rd_lat`,
 * power-on zeros then reset, memory from `mem_in`.
 *
 * Exact (the replay contract): the memory image at every `mem_out` address,
 * the data of `node_out` per destination in order, the completions' code,
 * txn and last in order, and their arg except for a RUN retiring without a
 * fault (its busy-cycle count is a timing figure, like `cycles`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/gen/flit.h"
#include "kohaku/hex.h"
#include "kohaku/json.h"
#include "kohaku/params.h"
#include "kohaku/unitbench.h"

#include "cu/units/vector/vec_unit.h"
#include "replay/replay_int.h"


static int parse_flit(const kh_json_val *v, kh_flit *f, char *err, size_t len)
{
    const char *s = kh_json_str(v, NULL);
    if (!s) {
        snprintf(err, len, "flit is not a string");
        return -1;
    }
    kh_flit_clear(f);
    return kh_hex_parse(s, f->w, KH_FLIT_BITS, 1, err, len);
}

static int get_xy(const kh_json_val *params, const char *key, unsigned xy[2], char *err, size_t len)
{
    const kh_json_val *a;
    uint64_t x, y;
    if (kh_json_get_array(params, key, &a, err, len)) return -1;
    if (kh_json_u64(kh_json_at(a, 0), &x) || kh_json_u64(kh_json_at(a, 1), &y) || x > 15 || y > 15) {
        snprintf(err, len, "params.%s is not a pair of coordinates 0..15", key);
        return -1;
    }
    xy[0] = (unsigned)x;
    xy[1] = (unsigned)y;
    return 0;
}

static int is_inst_kind(const char *k)
{
    return !strcmp(k, "imem") || !strcmp(k, "desc") || !strcmp(k, "run") || !strcmp(k, "inst");
}

/* Every entry of flits_in names a kind of the format before anything runs. */
static int check_flits_in(kh_replay_case *r, const kh_json_val *flits_in)
{
    char err[200];
    for (size_t i = 0; i < kh_json_len(flits_in); i++) {
        const char *kind;
        if (kh_json_get_str(kh_json_at(flits_in, i), "kind", &kind, err, sizeof err))
            return kh_replay_fail(r, "refused: flits_in[%zu]: %s", i, err);
        if (!is_inst_kind(kind) && strcmp(kind, "cudata"))
            return kh_replay_fail(r, "refused: flits_in[%zu].kind: '%.40s' is not imem, desc, run, inst or cudata", i,
                                  kind);
    }
    return 0;
}

/* Completions the unit sent: every CU_SIGNAL, in order. */
typedef struct sig {
    unsigned code, txn, last, dx, dy;
    uint32_t arg;
    kh_cycle cycle;
} sig;

static size_t collect_signals(kh_ubench *b, sig *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < kh_ubench_nout(b) && n < max; i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) != KH_T_CU_SIGNAL) continue;
        sig s = {(unsigned)kh_cu_signal_code(r->f.w), (unsigned)kh_hdr_txn(r->f.w),
                 (unsigned)kh_hdr_last(r->f.w), (unsigned)kh_hdr_dst_x(r->f.w),
                 (unsigned)kh_hdr_dst_y(r->f.w), (uint32_t)kh_cu_signal_arg(r->f.w), r->cycle};
        out[n++] = s;
    }
    return n;
}

#define fail kh_replay_fail

/* Feed the input stream in its order: the bench sends one flit per cycle,
 * so flit i of `flits_in` goes out at cycle i unless the shell holds it
 * back. Instructions queue in order; any other flit (a CU_DATA burst) is
 * injected at its stream position. */
static int feed_and_run(kh_ubench *b, const kh_json_val *flits_in, char *err, size_t len)
{
    for (size_t i = 0; i < kh_json_len(flits_in); i++) {
        const kh_json_val *e = kh_json_at(flits_in, i);
        const char *kind;
        kh_flit f;
        if (kh_json_get_str(e, "kind", &kind, err, len)) return -1;
        if (parse_flit(kh_json_get(e, "flit"), &f, err, len)) return -1;
        if (is_inst_kind(kind))
            kh_ubench_inst(b, &f, (uint8_t)kh_hdr_txn(f.w), (int)kh_hdr_last(f.w));
        else
            kh_ubench_inject(b, &f, (kh_cycle)i);
    }
    int r = kh_ubench_run(b, 10000000, err, len);
    if (r == 0) snprintf(err, len, "did not finish within 10^7 cycles");
    return r == 1 ? 0 : -1;
}

/* The recordings count from the edge the shell took the first CU_INST off
 * its input link; the unit sees it one FIFO fall-through later. */
static kh_cycle replay_origin(kh_ubench *b, const kh_params *p)
{
    kh_cycle first = kh_vec_unit_first_inst(kh_cu_unit(kh_ubench_cu(b)));
    return first == KH_NEVER || first < p->fifo_latency ? first : first - p->fifo_latency;
}

/* Verbose: the memory requests ours vs recorded, as cycles. */
static void print_requests(FILE *out, kh_ubench *b, const kh_params *p, const kh_json_val *c, const char *name)
{
    const char *keys[2] = {"rd_reqs", "wr_reqs"};
    for (int k = 0; k < 2; k++) {
        const kh_json_val *a = kh_json_get(c, keys[k]);
        fprintf(out, "case %s: %s recorded:", name, keys[k]);
        for (size_t i = 0; i < kh_json_len(a); i++) {
            uint64_t cy = 0;
            kh_json_u64(kh_json_get(kh_json_at(a, i), "cycle"), &cy);
            fprintf(out, " %llu", (unsigned long long)cy);
        }
        fprintf(out, "\ncase %s: %s ours:    ", name, keys[k]);
        kh_cycle origin = replay_origin(b, p);
        for (size_t i = 0; i < kh_ubench_nreq(b); i++) {
            const kh_ubench_rec *r = kh_ubench_req(b, i);
            if ((kh_hdr_type(r->f.w) == KH_T_MEM_RD_REQ) == (k == 0))
                fprintf(out, " %llu", (unsigned long long)(r->cycle - origin));
        }
        fprintf(out, "\n");
    }
}

/* The case's simulation is over: the trace range, the counters, the checker's counts; the bench goes. */
static void end_case(kh_replay *rp, const kh_replay_case *r, kh_ubench *b)
{
    kh_replay_case_end(rp, r, kh_ubench_sim(b), 0);
    kh_replay_detach(rp);
    kh_replay_add_check(rp, kh_ubench_check(b));
    kh_ubench_free(b);
}

static void replay_case(kh_replay *rp, kh_replay_case *r)
{
    const kh_replay_opts *o = rp->o;
    const kh_json_val *c = r->root;
    const char *name = r->name;
    char err[256];
    const kh_json_val *params, *flits_in, *mem_in, *mem_out, *node_out, *comps, *kinds;
    unsigned cu[2], mem[2], snd[2];
    uint64_t rd_lat, cycles;
    double rec_cycles = -1;
    if (kh_json_get_object(c, "params", &params, err, sizeof err) ||
        get_xy(params, "cu_xy", cu, err, sizeof err) || get_xy(params, "mem_xy", mem, err, sizeof err) ||
        get_xy(params, "sender_xy", snd, err, sizeof err) ||
        kh_json_get_u64(params, "rd_lat", &rd_lat, err, sizeof err) ||
        kh_json_get_array(c, "flits_in", &flits_in, err, sizeof err) ||
        kh_json_get_array(c, "mem_in", &mem_in, err, sizeof err) ||
        kh_json_get_array(c, "mem_out", &mem_out, err, sizeof err) ||
        kh_json_get_array(c, "node_out", &node_out, err, sizeof err) ||
        kh_json_get_array(c, "completions", &comps, err, sizeof err) ||
        kh_json_get_array(c, "inst_kinds", &kinds, err, sizeof err)) {
        fail(r, "refused: %s", err);
        return;
    }
    if (!kh_json_get_u64(c, "cycles", &cycles, err, sizeof err)) rec_cycles = (double)cycles;
    if (kh_replay_rd_lat(r, rd_lat) || kh_replay_places(r, cu, mem, snd) || check_flits_in(r, flits_in)) return;

    kh_ubench_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.kind = kh_unit_by_name("vec_cu");
    cfg.cu_x = (uint8_t)cu[0];
    cfg.cu_y = (uint8_t)cu[1];
    cfg.mem_x = (uint8_t)mem[0];
    cfg.mem_y = (uint8_t)mem[1];
    cfg.src_x = (uint8_t)snd[0];
    cfg.src_y = (uint8_t)snd[1];
    cfg.rd_lat = (unsigned)rd_lat;
    kh_params_default(&cfg.params);
    if (kh_params_profile(&cfg.params, "rec-vector", err, sizeof err)) {
        fail(r, "refused: %s", err);
        return;
    }
    cfg.params.rtl_compat = (uint64_t)o->rtl_compat;
    /* the build the file records (vectors/README.md), applied with kohaku's ranges */
    if (kh_replay_fixed_param(r, params, "FLIT_WIDTH", KH_FLIT_BITS) || kh_replay_fixed_param(r, params, "POS_WIDTH", 4) ||
        kh_replay_build_param(r, params, "INST_DEPTH", "inst_depth", &cfg.params) ||
        kh_replay_build_param(r, params, "RECV_DEPTH", "recv_depth", &cfg.params) ||
        kh_replay_build_param(r, params, "L1_DEPTH", "vec_l1_depth", &cfg.params))
        return;
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    if (!b) {
        fail(r, "bench: %s", err);
        return;
    }
    if (o->check_fn && kh_ubench_set_check(b, o->check_fn, o->check_ctx)) {
        kh_ubench_free(b);
        fail(r, "out of memory for the flit checker");
        return;
    }
    char label[80];
    snprintf(label, sizeof label, "case %s", name);
    if (kh_replay_attach(rp, r, kh_ubench_sim(b), label)) {
        kh_ubench_free(b);
        return;
    }

    for (size_t i = 0; i < kh_json_len(mem_in); i++) {
        const kh_json_val *m = kh_json_at(mem_in, i);
        uint64_t addr;
        const char *hex;
        uint8_t bytes[32];
        if (kh_json_get_u64(m, "addr", &addr, err, sizeof err) ||
            kh_json_get_str(m, "bytes", &hex, err, sizeof err) ||
            kh_hex_bytes_parse(hex, bytes, 32, err, sizeof err)) {
            fail(r, "refused: mem_in: %s", err);
            end_case(rp, r, b);
            return;
        }
        kh_ubench_mem_write(b, addr, bytes, 32);
    }
    if (feed_and_run(b, flits_in, err, sizeof err)) {
        fail(r, "simulation: %s", err);
        end_case(rp, r, b);
        return;
    }

    /* memory image */
    for (size_t i = 0; !r->failed && i < kh_json_len(mem_out); i++) {
        const kh_json_val *m = kh_json_at(mem_out, i);
        uint64_t addr;
        const char *hex;
        uint8_t want[32], got[32];
        if (kh_json_get_u64(m, "addr", &addr, err, sizeof err) ||
            kh_json_get_str(m, "bytes", &hex, err, sizeof err) ||
            kh_hex_bytes_parse(hex, want, 32, err, sizeof err)) {
            fail(r, "refused: mem_out: %s", err);
            break;
        }
        kh_ubench_mem_read(b, addr, got, 32);
        for (unsigned j = 0; j < 32; j++)
            if (got[j] != want[j]) {
                fail(r, "memory at 0x%llx: byte %u is 0x%02x, want 0x%02x", (unsigned long long)addr, j,
                     got[j], want[j]);
                break;
            }
    }

    /* node_out: CU_DATA flits per destination, in order */
    size_t nnode = 0;
    for (size_t i = 0; !r->failed && i < kh_ubench_nout(b); i++) {
        const kh_flit *f = &kh_ubench_out(b, i)->f;
        if (kh_hdr_type(f->w) != KH_T_CU_DATA) continue;
        kh_flit want;
        size_t k = nnode++;
        if (k >= kh_json_len(node_out)) {
            fail(r, "node_out: flit %zu was not recorded", k);
            break;
        }
        if (parse_flit(kh_json_at(node_out, k), &want, err, sizeof err)) {
            fail(r, "refused: node_out: %s", err);
            break;
        }
        if (kh_hdr_dst_x(f->w) != kh_hdr_dst_x(want.w) || kh_hdr_dst_y(f->w) != kh_hdr_dst_y(want.w) ||
            memcmp(f->w, want.w, 4 * sizeof f->w[0]))
            fail(r, "node_out flit %zu differs (destination or data)", k);
    }
    if (!r->failed && nnode < kh_json_len(node_out))
        fail(r, "node_out: %zu flit(s) recorded, %zu sent", kh_json_len(node_out), nnode);

    /* completions */
    sig got[1024];
    size_t ngot = collect_signals(b, got, 1024), inst_no = 0;
    kh_cycle last_cycle = 0;
    for (size_t i = 0; !r->failed && i < kh_json_len(comps); i++) {
        const kh_json_val *w = kh_json_at(comps, i);
        uint64_t code, arg, txn, last;
        if (kh_json_get_u64(w, "code", &code, err, sizeof err) ||
            kh_json_get_u64(w, "arg", &arg, err, sizeof err) ||
            kh_json_get_u64(w, "txn", &txn, err, sizeof err) ||
            kh_json_get_u64(w, "last", &last, err, sizeof err)) {
            fail(r, "refused: completions: %s", err);
            break;
        }
        if (i >= ngot) {
            fail(r, "completion %zu (code %llu) never came", i, (unsigned long long)code);
            break;
        }
        const sig *s = &got[i];
        last_cycle = s->cycle;
        int is_inst = code == 0 || code == 1 || code == 4;
        const char *kind = is_inst ? kh_json_str(kh_json_at(kinds, inst_no++), NULL) : NULL;
        int timing_arg = code == 0 && kind && !strcmp(kind, "run");
        if (s->code != code) {
            fail(r, "completion %zu: code %u, want %llu", i, s->code, (unsigned long long)code);
        } else if (s->txn != txn || s->last != last) {
            fail(r, "completion %zu: txn 0x%x last %u, want txn 0x%llx last %llu", i, s->txn, s->last,
                 (unsigned long long)txn, (unsigned long long)last);
        } else if (timing_arg && o->verbose) {
            fprintf(rp->out, "case %s: RUN %zu busy cycles %u, recorded %llu\n", name, i, s->arg,
                   (unsigned long long)arg);
        } else if (!timing_arg && s->arg != arg) {
            fail(r, "completion %zu: arg 0x%x, want 0x%llx", i, s->arg, (unsigned long long)arg);
        }
    }
    if (!r->failed && ngot > kh_json_len(comps))
        fail(r, "%zu completion(s) recorded, %zu sent", kh_json_len(comps), ngot);
    kh_cycle origin = replay_origin(b, &cfg.params);
    if (!r->failed && origin != KH_NEVER && rec_cycles > 0) {
        r->timed = 1;
        r->ours = (double)(last_cycle - origin);
        r->recorded = rec_cycles;
    }
    if (o->verbose) {
        fprintf(rp->out, "case %s: completion cycles ours:", name);
        for (size_t i = 0; i < ngot; i++) fprintf(rp->out, " %llu", (unsigned long long)(got[i].cycle - origin));
        fprintf(rp->out, "\ncase %s: completion cycles recorded:", name);
        for (size_t i = 0; i < kh_json_len(comps); i++) {
            uint64_t cy = 0;
            kh_json_u64(kh_json_get(kh_json_at(comps, i), "cycle"), &cy);
            fprintf(rp->out, " %llu", (unsigned long long)cy);
        }
        fprintf(rp->out, "\n");
    }
    if (o->verbose) print_requests(rp->out, b, &cfg.params, c, name);
    if (r->timed && o->verbose)
        fprintf(rp->out, "case %s: cycles %.0f, recorded %.0f (%+.1f %%)\n", name, r->ours, r->recorded,
                100.0 * (r->ours - r->recorded) / r->recorded);
    end_case(rp, r, b);
}

/* The case's "case" number, or its line. */
static void vector_name(kh_replay_case *c)
{
    if (kh_replay_name_recorded(c)) snprintf(c->name, sizeof c->name, "line %u", c->line);
}

const kh_replay_kind kh_replay_vector = {.name = "vector", .simulates = 1, .name_case = vector_name, .run = replay_case};
