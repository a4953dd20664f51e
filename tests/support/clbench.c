/* Helpers for the cluster tests (clbench.h). */
#include <stdio.h>
#include <string.h>

#include "clbench.h"
#include "kohaku/gen/cluster.h"
#include "kohaku/gen/flit.h"
#include "test.h"

void clb_cap_log(void *ctx, kh_log_level lvl, const char *msg)
{
    logcap *l = ctx;
    (void)lvl;
    int w = snprintf(l->text + l->used, sizeof l->text - l->used, "%s\n", msg);
    if (w > 0 && l->used + (size_t)w < sizeof l->text) l->used += (size_t)w;
}

static void drop_log(void *ctx, kh_log_level lvl, const char *msg)
{
    (void)ctx;
    (void)lvl;
    (void)msg;
}

kh_ubench *clb_bench_at(unsigned x, unsigned y, logcap *log)
{
    kh_ubench_cfg cfg;
    char err[200];
    memset(&cfg, 0, sizeof cfg);
    cfg.kind = kh_unit_by_name("mx_cluster_cu");
    cfg.cu_x = (uint8_t)x;
    cfg.cu_y = (uint8_t)y;
    cfg.mem_x = 1;
    cfg.mem_y = 1;
    cfg.src_x = 3;
    cfg.src_y = 3;
    cfg.rd_lat = 10;
    kh_params_default(&cfg.params);
    kh_params_profile(&cfg.params, "rec-cluster", err, sizeof err);
    kh_ubench *b = kh_ubench_new(&cfg, err, sizeof err);
    if (!b) {
        kh_test_fail(__FILE__, __LINE__, "bench: %s", err);
        return NULL;
    }
    if (log) {
        log->used = 0;
        log->text[0] = 0;
        kh_sim_set_log(kh_ubench_sim(b), clb_cap_log, log, KH_LOG_WARN);
    } else {
        kh_sim_set_log(kh_ubench_sim(b), drop_log, NULL, KH_LOG_ERROR);
    }
    return b;
}

int clb_run(kh_ubench *b, const char *file, int line)
{
    char err[2400];
    int r = kh_ubench_run(b, 2000000, err, sizeof err);
    if (r != 1) kh_test_fail(file, line, "run: %s", err);
    return r;
}

kh_flit clb_enc(const ins *i)
{
    kh_flit f;
    kh_flit_clear(&f);
    kh_cluster_set_op(f.w, i->op);
    kh_cluster_set_addr(f.w, i->addr);
    kh_cluster_set_n(f.w, i->n);
    kh_cluster_set_sel(f.w, i->sel);
    kh_cluster_set_acc(f.w, i->acc);
    kh_cluster_set_gm(f.w, i->gm);
    kh_cluster_set_gn(f.w, i->gn);
    kh_cluster_set_nk(f.w, i->nk);
    kh_cluster_set_anchor(f.w, i->anchor);
    kh_cluster_set_peers(f.w, i->peers);
    kh_cluster_set_npeer(f.w, i->npeer);
    kh_cluster_set_eoff(f.w, i->eoff);
    kh_cluster_set_aoff(f.w, i->aoff);
    kh_cluster_set_boff(f.w, i->boff);
    kh_cluster_set_emit(f.w, i->emit);
    kh_cluster_set_fuse(f.w, i->fuse);
    kh_cluster_set_abank(f.w, i->abank);
    kh_cluster_set_bbank(f.w, i->bbank);
    kh_cluster_set_fbank(f.w, i->fbank);
    kh_cluster_set_dnode(f.w, i->dnode);
    kh_cluster_set_dst_x(f.w, i->dst_x);
    kh_cluster_set_dst_y(f.w, i->dst_y);
    kh_cluster_set_dbuf(f.w, i->dbuf);
    kh_cluster_set_dflags(f.w, i->dflags);
    kh_cluster_set_dack_y(f.w, i->dack_y);
    kh_cluster_set_dack_x(f.w, i->dack_x);
    kh_cluster_set_dmesh(f.w, i->dmesh);
    kh_cluster_set_dfin(f.w, i->dfin);
    return f;
}

void clb_send(kh_ubench *b, ins i, int last)
{
    kh_flit f = clb_enc(&i);
    kh_ubench_inst(b, &f, 0x40, last);
}

ins clb_fill(unsigned sel, uint64_t addr, unsigned n, unsigned eoff, unsigned fbank)
{
    return (ins){.op = 1, .sel = sel, .addr = addr, .n = n, .eoff = eoff, .fbank = fbank, .nk = 1, .anchor = 40};
}

ins clb_gemm(unsigned gm, unsigned gn, unsigned nk, unsigned acc, unsigned bank)
{
    return (ins){.op = 2, .gm = gm, .gn = gn, .nk = nk, .acc = acc, .abank = bank, .bbank = bank, .anchor = 40};
}

ins clb_drain(uint64_t addr, unsigned n)
{
    return (ins){.op = 3, .addr = addr, .n = n, .nk = 1, .anchor = 40};
}

void clb_put_words(kh_ubench *b, uint64_t addr, const uint64_t *w, unsigned nwords)
{
    for (unsigned k = 0; k < nwords; k++) {
        uint8_t by[32];
        for (unsigned j = 0; j < 32; j++) by[j] = (uint8_t)(w[4 * k + j / 8] >> (8 * (j % 8)));
        kh_ubench_mem_write(b, addr + 32ull * k, by, 32);
    }
}

uint16_t clb_get_f16(kh_ubench *b, uint64_t word_addr, unsigned e)
{
    uint8_t by[2];
    kh_ubench_mem_read(b, word_addr + 2ull * e, by, 2);
    return (uint16_t)(by[0] | by[1] << 8);
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
uint64_t clb_rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

void clb_random_entry(uint64_t w[16])
{
    uint64_t sc = 0;
    for (unsigned l = 0; l < 4; l++) sc = sc << 8 | (((12 + clb_rnd() % 8) << 3) | (clb_rnd() % 8));
    for (unsigned i = 0; i < 16; i++) w[i] = clb_rnd();
    for (unsigned k = 0; k < 4; k++) w[4 * k] = (w[4 * k] & ~0xFFFFFFFFull) | sc;
}

int clb_completion(kh_ubench *b, unsigned k, unsigned *code, unsigned *arg)
{
    unsigned seen = 0;
    for (size_t i = 0; i < kh_ubench_nout(b); i++) {
        const kh_ubench_rec *r = kh_ubench_out(b, i);
        if (kh_hdr_type(r->f.w) != KH_T_CU_SIGNAL) continue;
        unsigned c = (unsigned)kh_cu_signal_code(r->f.w);
        if (c == KH_SIG_DATA_RECEIVED) continue;
        if (seen++ == k) {
            *code = c;
            *arg = (unsigned)kh_cu_signal_arg(r->f.w);
            return 1;
        }
    }
    return 0;
}
