/* replay cluster: every case of a file in the cluster.jsonl
 * format (../shared/vectors/README.md) on the unit bench with the recording
 * parameters (parameters.md §2.3), compared as the replay contract says:
 * the memory image at every mem_out address, the node_out data per
 * destination in order, completions (code, arg, txn, last) in order, and
 * the read requests (addr, len, count, flags bit 6). Cycle figures are
 * reported as deviations and never fail a case. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/cu.h"
#include "kohaku/gen/flit.h"
#include "kohaku/hex.h"
#include "kohaku/json.h"
#include "kohaku/unitbench.h"
#include "replay/replay_int.h"

#define CASE_LIMIT 50000000ull /* cycles; a case that runs longer is reported stuck */

typedef kh_replay_case rc_case;

/* Collects the simulation's log so a replay prints only its own lines. */
typedef struct log_buf {
    char text[4096];
    size_t used;
} log_buf;

static void log_to_buf(void *ctx, kh_log_level lvl, const char *msg)
{
    log_buf *l = ctx;
    (void)lvl;
    if (l->used + 2 >= sizeof l->text) return;
    int w = snprintf(l->text + l->used, sizeof l->text - l->used, "    %s\n", msg);
    if (w > 0) l->used += (size_t)w;
    if (l->used >= sizeof l->text) l->used = sizeof l->text - 1;
}

#define fail kh_replay_fail

/* An optional unsigned member; absent -> dflt. -1 if present but wrong. */
static int opt_u64(rc_case *c, const kh_json_val *obj, const char *key, uint64_t dflt, uint64_t *out)
{
    const kh_json_val *v = kh_json_get(obj, key);
    if (!v) {
        *out = dflt;
        return 0;
    }
    if (kh_json_u64(v, out)) return fail(c, "field '%s' is a %s, not an unsigned integer", key,
                                         kh_json_type_name(kh_json_type_of(v)));
    return 0;
}

/* An optional [x, y] pair. */
static int opt_xy(rc_case *c, const kh_json_val *obj, const char *key, unsigned dx, unsigned dy, uint8_t *x,
                  uint8_t *y)
{
    const kh_json_val *v = kh_json_get(obj, key);
    uint64_t a, b;
    if (!v) {
        *x = (uint8_t)dx;
        *y = (uint8_t)dy;
        return 0;
    }
    if (kh_json_len(v) != 2 || kh_json_u64(kh_json_at(v, 0), &a) || kh_json_u64(kh_json_at(v, 1), &b) || a > 15 ||
        b > 15)
        return fail(c, "params.%s must be [x, y] with coordinates 0..15", key);
    *x = (uint8_t)a;
    *y = (uint8_t)b;
    return 0;
}

static int hex_field(rc_case *c, const kh_json_val *v, const char *what, size_t i, uint64_t *w, unsigned bits)
{
    char err[160];
    const char *s = kh_json_str(v, NULL);
    if (!s) return fail(c, "%s[%zu] is not a hex string", what, i);
    if (kh_hex_parse(s, w, bits, 1, err, sizeof err)) return fail(c, "%s[%zu]: %s", what, i, err);
    return 0;
}

static int bytes_field(rc_case *c, const kh_json_val *item, const char *what, size_t i, uint64_t *addr,
                       uint8_t bytes[32])
{
    char err[160];
    const char *s;
    if (kh_json_get_u64(item, "addr", addr, err, sizeof err)) return fail(c, "%s[%zu]: %s", what, i, err);
    if (kh_json_get_str(item, "bytes", &s, err, sizeof err)) return fail(c, "%s[%zu]: %s", what, i, err);
    if (kh_hex_bytes_parse(s, bytes, 32, err, sizeof err)) return fail(c, "%s[%zu].bytes: %s", what, i, err);
    return 0;
}

/* ---- setting a case up ---- */

static kh_ubench *build_bench(rc_case *c, const kh_replay_opts *o, log_buf *log)
{
    const kh_json_val *params = kh_json_get(c->root, "params");
    kh_ubench_cfg cfg;
    char err[300];
    uint64_t v;
    memset(&cfg, 0, sizeof cfg);
    cfg.kind = kh_unit_by_name("mx_cluster_cu");
    if (!cfg.kind) {
        fail(c, "unit mx_cluster_cu is not registered");
        return NULL;
    }
    kh_params_default(&cfg.params);
    kh_params_profile(&cfg.params, "rec-cluster", err, sizeof err); /* parameters.md §2.3 */
    if (o->rtl_compat) cfg.params.rtl_compat = 1;
    if (opt_u64(c, params, "TILES", cfg.params.cluster_tiles, &cfg.params.cluster_tiles) ||
        opt_u64(c, params, "GA", cfg.params.cluster_ga, &cfg.params.cluster_ga) ||
        opt_u64(c, params, "GB", cfg.params.cluster_gb, &cfg.params.cluster_gb) ||
        opt_u64(c, params, "ACC_MW", cfg.params.cluster_acc_mw, &cfg.params.cluster_acc_mw) ||
        opt_u64(c, params, "rd_lat", 10, &v) ||
        opt_xy(c, params, "cu_xy", 2, 1, &cfg.cu_x, &cfg.cu_y) ||
        opt_xy(c, params, "mem_xy", 1, 1, &cfg.mem_x, &cfg.mem_y) ||
        opt_xy(c, params, "sender_xy", 3, 3, &cfg.src_x, &cfg.src_y))
        return NULL;
    unsigned cu[2] = {cfg.cu_x, cfg.cu_y}, mem[2] = {cfg.mem_x, cfg.mem_y}, snd[2] = {cfg.src_x, cfg.src_y};
    if (kh_replay_rd_lat(c, v) || kh_replay_places(c, cu, mem, snd)) return NULL;
    cfg.rd_lat = (unsigned)v;
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    if (!b) {
        fail(c, "cannot build the bench: %s", err);
        return NULL;
    }
    kh_sim_set_log(kh_ubench_sim(b), log_to_buf, log, KH_LOG_WARN);
    return b;
}

static int load_memory(rc_case *c, kh_ubench *b)
{
    const kh_json_val *mem = kh_json_get(c->root, "mem_in");
    for (size_t i = 0; i < kh_json_len(mem); i++) {
        uint64_t addr;
        uint8_t bytes[32];
        if (bytes_field(c, kh_json_at(mem, i), "mem_in", i, &addr, bytes)) return -1;
        kh_ubench_mem_write(b, addr, bytes, 32);
    }
    return 0;
}

/* Instructions: `insts` with inst_txn / inst_last (one value, or one per
 * instruction), or the whole input stream `flits_in` (288-bit flits in
 * order, the vector files' form). Returns the number of instructions. */
static long queue_input(rc_case *c, kh_ubench *b)
{
    const kh_json_val *fin = kh_json_get(c->root, "flits_in");
    long n = 0;
    if (fin) {
        for (size_t i = 0; i < kh_json_len(fin); i++) {
            const kh_json_val *it = kh_json_at(fin, i);
            const kh_json_val *fv = kh_json_type_of(it) == KH_JSON_OBJECT ? kh_json_get(it, "flit") : it;
            kh_flit f;
            kh_flit_clear(&f);
            if (hex_field(c, fv, "flits_in", i, f.w, KH_FLIT_BITS)) return -1;
            if (kh_hdr_type(f.w) == KH_T_CU_INST) n++;
            kh_ubench_inject(b, &f, 0); /* one stream, in file order */
        }
        return n;
    }
    const kh_json_val *insts = kh_json_get(c->root, "insts");
    const kh_json_val *txn = kh_json_get(c->root, "inst_txn"), *last = kh_json_get(c->root, "inst_last");
    if (kh_json_type_of(insts) != KH_JSON_ARRAY) return fail(c, "field 'insts' must be a list of payloads");
    for (size_t i = 0; i < kh_json_len(insts); i++) {
        kh_flit f;
        uint64_t t = 0, l = 0;
        kh_flit_clear(&f);
        if (hex_field(c, kh_json_at(insts, i), "insts", i, f.w, KH_PAYLOAD_BITS)) return -1;
        const kh_json_val *tv = kh_json_type_of(txn) == KH_JSON_ARRAY ? kh_json_at(txn, i) : txn;
        const kh_json_val *lv = kh_json_type_of(last) == KH_JSON_ARRAY ? kh_json_at(last, i) : last;
        int lb = 0;
        if (tv && (kh_json_u64(tv, &t) || t > 255)) return fail(c, "inst_txn for insts[%zu] is not 0..255", i);
        if (lv && kh_json_u64(lv, &l) && kh_json_bool(lv, &lb))
            return fail(c, "inst_last for insts[%zu] is not 0/1", i);
        kh_ubench_inst(b, &f, (uint8_t)t, (l || lb) ? 1 : 0);
        n++;
    }
    return n;
}

/* ---- comparing ---- */

static int check_memory(rc_case *c, kh_ubench *b)
{
    const kh_json_val *mem = kh_json_get(c->root, "mem_out");
    size_t n = kh_json_len(mem);
    if (!n) return 0;
    /* each entry parsed once: the image after the case is the last entry
     * written to each address */
    uint64_t *addrs = malloc(n * sizeof *addrs);
    uint8_t(*want)[32] = malloc(n * sizeof *want);
    int rc = 0;
    if (!addrs || !want) rc = fail(c, "out of memory comparing mem_out");
    for (size_t i = 0; i < n && !rc; i++) rc = bytes_field(c, kh_json_at(mem, i), "mem_out", i, &addrs[i], want[i]);
    for (size_t i = 0; i < n && !rc; i++) {
        int later = 0;
        for (size_t j = i + 1; j < n && !later; j++) later = addrs[j] == addrs[i];
        if (later) continue;
        uint8_t got[32];
        kh_ubench_mem_read(b, addrs[i], got, 32);
        if (memcmp(got, want[i], 32)) {
            char gh[65], wh[65];
            unsigned k = 0;
            while (got[k] == want[i][k]) k++;
            kh_hex_bytes_format(got, 32, gh);
            kh_hex_bytes_format(want[i], 32, wh);
            rc = fail(c, "memory at 0x%010llx byte %u: 0x%02x, expected 0x%02x (got %s, expected %s)",
                      (unsigned long long)addrs[i], k, got[k], want[i][k], gh, wh);
        }
    }
    free(addrs);
    free(want);
    return rc;
}

/* One data flit of a node drain, placed by its descriptor. */
typedef struct node_item {
    unsigned dx, dy, buf, off;
    uint64_t data[4];
} node_item;

/* Frame CU_DATA flits by descriptor and count, per destination (the
 * unit's output keeps their order): the data with buffer and granule
 * offset, independent of where the bursts were cut. */
static size_t frame_node_data(const kh_flit *fl, size_t n, node_item *out)
{
    size_t m = 0;
    struct { unsigned open, left, buf, off, dx, dy; } st[256];
    memset(st, 0, sizeof st);
    for (size_t i = 0; i < n; i++) {
        const uint64_t *w = fl[i].w;
        if (kh_hdr_type(w) != KH_T_CU_DATA) continue;
        unsigned dx = (unsigned)kh_hdr_dst_x(w), dy = (unsigned)kh_hdr_dst_y(w), k = dy * 16 + dx;
        if (!st[k].open) {
            st[k].open = 1;
            st[k].left = (unsigned)kh_cu_data_len(w) + 1;
            st[k].buf = (unsigned)kh_cu_data_buf_id(w);
            st[k].off = (unsigned)kh_cu_data_offset(w);
            continue;
        }
        node_item *it = &out[m++];
        it->dx = dx;
        it->dy = dy;
        it->buf = st[k].buf;
        it->off = st[k].off++ & 0xFFFF;
        kh_cu_data_data_data_get(w, it->data);
        if (--st[k].left == 0) st[k].open = 0;
    }
    return m;
}

static int check_node_out(rc_case *c, kh_ubench *b)
{
    const kh_json_val *nv = kh_json_get(c->root, "node_out");
    size_t nw = kh_json_len(nv), ng = 0;
    kh_flit *wf = calloc(nw + 1, sizeof *wf);
    kh_flit *gf = calloc(kh_ubench_nout(b) + 1, sizeof *gf);
    node_item *wi = calloc(nw + 1, sizeof *wi), *gi = calloc(kh_ubench_nout(b) + 1, sizeof *gi);
    int rc = 0;
    if (!wf || !gf || !wi || !gi) {
        rc = fail(c, "out of memory comparing node_out");
        goto out;
    }
    for (size_t i = 0; i < nw; i++) {
        const kh_json_val *it = kh_json_at(nv, i);
        const kh_json_val *fv = kh_json_type_of(it) == KH_JSON_OBJECT ? kh_json_get(it, "flit") : it;
        if (hex_field(c, fv, "node_out", i, wf[i].w, KH_FLIT_BITS)) {
            rc = -1;
            goto out;
        }
    }
    for (size_t i = 0; i < kh_ubench_nout(b); i++) gf[ng++] = kh_ubench_out(b, i)->f;
    size_t mw = frame_node_data(wf, nw, wi), mg = frame_node_data(gf, ng, gi);
    /* per destination, in order */
    for (unsigned d = 0; d < 256 && !rc; d++) {
        size_t iw = 0, ig = 0;
        for (;;) {
            while (iw < mw && wi[iw].dy * 16 + wi[iw].dx != d) iw++;
            while (ig < mg && gi[ig].dy * 16 + gi[ig].dx != d) ig++;
            if (iw >= mw && ig >= mg) break;
            if (iw >= mw || ig >= mg) {
                rc = fail(c, "node_out to (%u,%u): %s CU_DATA data flits than recorded", d % 16, d / 16,
                          ig < mg ? "more" : "fewer");
                break;
            }
            if (wi[iw].buf != gi[ig].buf || wi[iw].off != gi[ig].off || memcmp(wi[iw].data, gi[ig].data, 32)) {
                char gh[65], wh[65];
                kh_hex_format(gi[ig].data, 256, gh);
                kh_hex_format(wi[iw].data, 256, wh);
                rc = fail(c, "node_out to (%u,%u): buf %u granule %u data %s, expected buf %u granule %u data %s",
                          d % 16, d / 16, gi[ig].buf, gi[ig].off, gh, wi[iw].buf, wi[iw].off, wh);
                break;
            }
            iw++;
            ig++;
        }
    }
out:
    free(wf);
    free(gf);
    free(wi);
    free(gi);
    return rc;
}

static int check_completions(rc_case *c, kh_ubench *b, kh_cycle origin)
{
    const kh_json_val *cv = kh_json_get(c->root, "completions");
    size_t k = 0;
    char err[160];
    if (!cv) return 0;
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) != KH_T_CU_SIGNAL) continue;
        unsigned code = (unsigned)kh_cu_signal_code(r->f.w), arg = (unsigned)kh_cu_signal_arg(r->f.w);
        unsigned txn = (unsigned)kh_hdr_txn(r->f.w), last = (unsigned)kh_hdr_last(r->f.w);
        if (k >= kh_json_len(cv))
            return fail(c, "completions: an extra CU_SIGNAL code %u arg %u at cycle %llu", code, arg,
                        (unsigned long long)(r->cycle - origin));
        const kh_json_val *w = kh_json_at(cv, k);
        uint64_t wc, wa, wt, wl = 1;
        if (kh_json_get_u64(w, "code", &wc, err, sizeof err) || kh_json_get_u64(w, "arg", &wa, err, sizeof err) ||
            kh_json_get_u64(w, "txn", &wt, err, sizeof err) || opt_u64(c, w, "last", 1, &wl))
            return fail(c, "completions[%zu]: %s", k, err);
        if (code != wc || arg != wa || txn != wt || last != wl)
            return fail(c, "completions[%zu]: code %u arg %u txn %u last %u, expected code %llu arg %llu txn %llu "
                           "last %llu",
                        k, code, arg, txn, last, (unsigned long long)wc, (unsigned long long)wa,
                        (unsigned long long)wt, (unsigned long long)wl);
        k++;
    }
    if (k < kh_json_len(cv)) return fail(c, "completions: %zu recorded, the unit sent %zu", kh_json_len(cv), k);
    return 0;
}

static int check_rd_reqs(rc_case *c, kh_ubench *b)
{
    const kh_json_val *rv = kh_json_get(c->root, "rd_reqs");
    size_t k = 0;
    char err[160];
    if (!rv) return 0;
    for (size_t i = 0; i < kh_ubench_nreq(b); i++) {
        const uint64_t *f = kh_ubench_req(b, i)->f.w;
        if (kh_hdr_type(f) != KH_T_MEM_RD_REQ) continue;
        if (k >= kh_json_len(rv)) return fail(c, "rd_reqs: an extra read request at 0x%010llx",
                                              (unsigned long long)kh_mem_rd_req_addr(f));
        const kh_json_val *w = kh_json_at(rv, k);
        const char *as;
        uint64_t addr[1], len, flags, count;
        if (kh_json_get_str(w, "addr", &as, err, sizeof err) || kh_hex_parse(as, addr, 40, 0, err, sizeof err) ||
            kh_json_get_u64(w, "len", &len, err, sizeof err) || kh_json_get_u64(w, "flags", &flags, err, sizeof err) ||
            kh_json_get_u64(w, "count", &count, err, sizeof err))
            return fail(c, "rd_reqs[%zu]: %s", k, err);
        uint64_t fl = flags;
        unsigned want_stream = (unsigned)kh_bits_get(&fl, 6, 1); /* flags bit 6, STREAM */
        if (kh_mem_rd_req_addr(f) != addr[0] || kh_mem_rd_req_len(f) != len || kh_mem_rd_req_count(f) != count ||
            kh_mem_rd_req_flag_stream(f) != want_stream)
            return fail(c, "rd_reqs[%zu]: addr 0x%010llx len %u count %u stream %u, expected addr 0x%010llx len "
                           "%llu count %llu stream %u",
                        k, (unsigned long long)kh_mem_rd_req_addr(f), (unsigned)kh_mem_rd_req_len(f),
                        (unsigned)kh_mem_rd_req_count(f), (unsigned)kh_mem_rd_req_flag_stream(f),
                        (unsigned long long)addr[0], (unsigned long long)len, (unsigned long long)count,
                        want_stream);
        k++;
    }
    if (k < kh_json_len(rv)) return fail(c, "rd_reqs: %zu recorded, the unit sent %zu", kh_json_len(rv), k);
    return 0;
}

/* The recordings count from the edge the first CU_INST was taken: our
 * cycle of the shell's first accept is that edge's cycle + 1 later, so
 * per-event figures are (cycle - first_accept + 1). */
static kh_cycle last_completion(kh_ubench *b)
{
    kh_cycle t = 0;
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) != KH_T_CU_SIGNAL) continue;
        unsigned code = (unsigned)kh_cu_signal_code(r->f.w);
        if (code == KH_SIG_INST_COMPLETE || code == KH_SIG_BATCH_COMPLETE || code == KH_SIG_FAULT) t = r->cycle;
    }
    return t;
}

static void print_events(FILE *out, kh_ubench *b, kh_cycle origin)
{
    for (size_t i = 0; i < kh_ubench_nreq(b); i++) {
        const kh_ubench_rec *r = kh_ubench_req(b, i);
        fprintf(out, "    %s 0x%010llx at %llu\n", kh_hdr_type(r->f.w) == KH_T_MEM_RD_REQ ? "rd_req" : "wr_req",
               (unsigned long long)kh_mem_rd_req_addr(r->f.w), (unsigned long long)(r->cycle - origin));
    }
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) == KH_T_CU_SIGNAL)
            fprintf(out, "    signal code %u arg %u at %llu\n", (unsigned)kh_cu_signal_code(r->f.w),
                   (unsigned)kh_cu_signal_arg(r->f.w), (unsigned long long)(r->cycle - origin));
    }
}

/* Each case runs in a fresh bench, as the recordings reset the unit
 * between cases. */
static void run_case(kh_replay *rp, rc_case *c)
{
    const kh_replay_opts *o = rp->o;
    log_buf log = {{0}, 0};
    if (kh_json_type_of(c->root) != KH_JSON_OBJECT) {
        fail(c, "line %u is not an object", c->line);
        return;
    }
    kh_ubench *b = build_bench(c, o, &log);
    if (!b) return;
    if (o->check_fn && kh_ubench_set_check(b, o->check_fn, o->check_ctx)) {
        fail(c, "out of memory for the flit checker");
        kh_ubench_free(b);
        return;
    }
    char label[80];
    snprintf(label, sizeof label, "case %s", c->name);
    if (kh_replay_attach(rp, c, kh_ubench_sim(b), label)) {
        kh_ubench_free(b);
        return;
    }
    long ninst;
    if (load_memory(c, b) || (ninst = queue_input(c, b)) < 0) goto out;
    char err[2400];
    int r = kh_ubench_run(b, CASE_LIMIT, err, sizeof err);
    if (r <= 0) {
        fail(c, "%s", err);
        goto out;
    }
    kh_cycle first = kh_cu_first_accept(kh_ubench_cu(b));
    kh_cycle origin = first == KH_NEVER ? 0 : first - 1;
    if (check_memory(c, b) || check_node_out(c, b) || check_completions(c, b, origin) || check_rd_reqs(c, b)) {
        /* the first difference is in c->why */
    }
    uint64_t want = 0, got = 0;
    if (kh_json_u64(kh_json_get(c->root, "cycles"), &want) == 0 && first != KH_NEVER) {
        got = last_completion(b) - origin;
        c->timed = 1;
        c->ours = (double)got;
        c->recorded = (double)want;
    }
    if (o->verbose) {
        fprintf(rp->out, "case %s: cycles %llu (recorded %llu)\n", c->name, (unsigned long long)got,
                (unsigned long long)want);
        print_events(rp->out, b, origin);
        if (log.used) fputs(log.text, rp->out);
    }
out:
    kh_replay_case_end(rp, c, kh_ubench_sim(b), 0);
    kh_replay_detach(rp);
    kh_replay_add_check(rp, kh_ubench_check(b));
    kh_ubench_free(b);
}

/* The case's "case" number, or its place in the file; failure lines add the line. */
static void cluster_name(kh_replay_case *c)
{
    int64_t id;
    char err[160];
    if (kh_json_get_i64(c->root, "case", &id, err, sizeof err) == 0)
        snprintf(c->name, sizeof c->name, "%lld", (long long)id);
    else
        snprintf(c->name, sizeof c->name, "%u", c->index);
    snprintf(c->label, sizeof c->label, "%s (line %u)", c->name, c->line);
}

const kh_replay_kind kh_replay_cluster = {.name = "cluster", .simulates = 1, .name_case = cluster_name, .run = run_case};
