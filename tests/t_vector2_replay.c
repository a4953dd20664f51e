/* The V2 core on upstream's own kernels (data/vectors/vector2/, recorded
 * from upstream's RTL under Verilator, vectors/README.md): every engine
 * counter, the busy and elapsed cycles and every output word equal the
 * recording, at memwait 0 and 1. */
#include <stdlib.h>
#include <string.h>

#include "kohaku/file.h"
#include "kohaku/hex.h"
#include "kohaku/json.h"
#include "kohaku/vector2.h"
#include "support/test.h"

static const char *const cases[] = {
    "ew_silu_8192",     "softmax_128x128",      "layernorm_128x128",     "attn_b8",
    "attn_b10",         "attn_om_rs0_b8",       "attn_om_rs0_b24",       "attn_om_rs0_b6_drift4",
    "attn_om_rs1_b8",   "attn_om_rs1_b24",      "attn_om_rs1_b6_drift4",
};

/* Hex lines of 64 digits into words of 4 (a first line "@hex" gives the
 * start index into *start). NULL if the file is missing or malformed. */
static uint64_t *read_hex(const char *path, size_t *n, size_t *start)
{
    char err[256];
    char *text = kh_file_read_text(path, err, sizeof err);
    if (!text) return NULL;
    size_t cap = 4096, k = 0;
    uint64_t *w = calloc(cap * 4, sizeof *w);
    char *save = NULL;
    if (start) *start = 0;
    for (char *s = strtok_r(text, "\n", &save); s && w; s = strtok_r(NULL, "\n", &save)) {
        if (s[0] == '@' && start) {
            *start = strtoul(s + 1, NULL, 16);
            continue;
        }
        if (!s[0]) continue;
        if (k == cap || kh_hex_parse(s, &w[k * 4], 256, 1, err, sizeof err)) {
            free(w);
            w = NULL;
            break;
        }
        k++;
    }
    free(text);
    *n = k;
    return w;
}

static uint64_t field(const kh_json_val *o, const char *key)
{
    uint64_t v = 0;
    char err[128];
    if (kh_json_get_u64(o, key, &v, err, sizeof err)) kh_test_fail(__FILE__, __LINE__, "rtl.json: %s", err);
    return v;
}

static void check_case(const char *name, unsigned memwait)
{
    char path[512], err[256];
    const char *d = kh_test_data_dir();
    size_t np, nm, nout, start;
    snprintf(path, sizeof path, "%s/vectors/vector2/%s/prog.hex", d, name);
    uint64_t *prog = read_hex(path, &np, NULL);
    snprintf(path, sizeof path, "%s/vectors/vector2/%s/mem.hex", d, name);
    uint64_t *mem = read_hex(path, &nm, NULL);
    snprintf(path, sizeof path, "%s/vectors/vector2/%s/rtl_out_m%u.hex", d, name, memwait);
    uint64_t *out = read_hex(path, &nout, &start);
    snprintf(path, sizeof path, "%s/vectors/vector2/%s/rtl.json", d, name);
    char *js = kh_file_read_text(path, err, sizeof err);
    kh_json_error je;
    kh_json *doc = js ? kh_json_parse(js, strlen(js), &je) : NULL;
    CHECK(prog && mem && out && doc && nm == KH_V2_MEM_WORDS && start + nout <= KH_V2_MEM_WORDS);
    if (!prog || !mem || !out || !doc || nm != KH_V2_MEM_WORDS || start + nout > KH_V2_MEM_WORDS) goto done;
    char key[16];
    snprintf(key, sizeof key, "memwait%u", memwait);
    const kh_json_val *rec = kh_json_get(kh_json_root(doc), key), *eng = kh_json_get(rec, "engines");
    kh_params p;
    kh_params_default(&p);
    kh_v2_replay_result r;
    CHECK_EQ(kh_v2_replay(prog, np, mem, memwait, &p, &r, err, sizeof err), 0);
    const kh_v2_counters *c = &r.c;
    CHECK(!r.timeout);
    CHECK_EQ(r.payloads, field(rec, "payloads"));
    CHECK_EQ(r.completions, field(rec, "completions"));
    CHECK_EQ(r.faults, field(rec, "faults"));
    CHECK_EQ(r.elapsed, field(rec, "elapsed"));
    CHECK_EQ(c->busy, field(rec, "busy"));
    CHECK_EQ(c->beats, field(rec, "beats"));
    CHECK_EQ(c->lanes, field(rec, "lanes"));
    CHECK_EQ(c->insns, field(rec, "insns"));
    const kh_json_val *m = kh_json_get(eng, "V2MATH"), *u = kh_json_get(eng, "V2UNPACK");
    const kh_json_val *pk = kh_json_get(eng, "V2PACK"), *a = kh_json_get(eng, "V2DMA");
    const kh_json_val *dp = kh_json_get(eng, "V2DISPATCH");
    CHECK_EQ(c->m_act, field(m, "act"));
    CHECK_EQ(c->m_haz, field(m, "hazard"));
    CHECK_EQ(c->m_empty, field(m, "empty"));
    CHECK_EQ(c->m_sync, field(m, "sync"));
    CHECK_EQ(c->u_act, field(u, "act"));
    CHECK_EQ(c->u_room, field(u, "no_room"));
    CHECK_EQ(c->u_sync, field(u, "sync"));
    CHECK_EQ(c->u_wbblk, field(u, "wb_blocked"));
    CHECK_EQ(c->p_act, field(pk, "act"));
    CHECK_EQ(c->p_room, field(pk, "no_room"));
    CHECK_EQ(c->p_haz, field(pk, "raw"));
    CHECK_EQ(c->p_sync, field(pk, "sync"));
    CHECK_EQ(c->p_l1blk, field(pk, "l1_blocked"));
    CHECK_EQ(c->a_act, field(a, "fill_act"));
    CHECK_EQ(c->a_dact, field(a, "drain_act"));
    CHECK_EQ(c->a_fsync, field(a, "fill_sync"));
    CHECK_EQ(c->a_dsync, field(a, "drain_sync"));
    CHECK_EQ(c->a_drblk, field(a, "drain_blocked"));
    CHECK_EQ(c->a_drarb, field(a, "drain_lost_arb"));
    CHECK_EQ(c->d_mq, field(dp, "mq_full"));
    CHECK_EQ(c->d_sbm, field(dp, "sb_math"));
    CHECK_EQ(c->d_uq, field(dp, "uq_full"));
    CHECK_EQ(c->d_sbu, field(dp, "sb_unpack"));
    CHECK_EQ(c->d_pq, field(dp, "pq_full"));
    CHECK_EQ(c->d_aq, field(dp, "aq_full"));
    CHECK_EQ(c->d_seti, field(dp, "seti"));
    CHECK_EQ(c->d_fe, field(dp, "fe_wait"));
    CHECK_EQ(c->d_idle, field(dp, "empty"));
    CHECK_EQ(c->redir, field(dp, "redirects"));
    size_t bad = 0;
    for (size_t i = 0; i < nout; i++)
        if (memcmp(&mem[(start + i) * 4], &out[i * 4], 32)) bad++;
    if (bad) kh_test_fail(__FILE__, __LINE__, "%s memwait %u: %zu of %zu output words differ", name, memwait, bad, nout);
done:
    if (kh_test_state_g.failed_checks) fprintf(stderr, "  (case %s, memwait %u)\n", name, memwait);
    kh_json_free(doc);
    free(js);
    free(prog);
    free(mem);
    free(out);
}

static void upstream_kernels_equal_the_rtl(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_case(cases[i], 0);
        check_case(cases[i], 1);
    }
}

int main(void)
{
    KH_RUN(upstream_kernels_equal_the_rtl);
    return kh_test_end("t_vector2_replay");
}
