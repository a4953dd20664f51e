/* A unit's remote drain across the interlink (vector.md §8.3, flits.md §7):
 * the vector core of mesh 0 drains L1 words to the vector core of mesh 1
 * as a remote CU_DATA burst (txn = fin, rsvd = {1, mesh}, header dst = the
 * local memory port); mesh 1's core takes it and signals DATA_RECEIVED to
 * the ack its descriptor names; a second kernel on mesh 1 drains those
 * words to its DRAM, where they are compared with mesh 0's source. */
#include "ilink_kit.h"
#include "kohaku/gen/vector.h"
#include "kohaku/isa.h"

static void report(void *ctx, kh_isa_sev sev, const char *msg)
{
    (void)ctx;
    (void)sev;
    kh_test_fail(__FILE__, __LINE__, "asm: %s", msg);
}

/* Assemble one line of a unit's table (the CLI's `kohaku asm`). */
static void asm_line(const kh_isa *isa, const char *unit, const char *line, uint64_t *out)
{
    unsigned n = 0;
    memset(out, 0, 4 * sizeof *out);
    CHECK_EQ(kh_isa_asm_line(kh_isa_find_unit(isa, unit), line, 1, out, &n, report, NULL), 0);
    CHECK_EQ(n, 1);
}

typedef struct prog {
    kh_flit f[24];
    unsigned n;
} prog;

static void add_inst(prog *p, const uint64_t payload[4])
{
    kh_flit *f = &p->f[p->n++];
    kh_flit_clear(f);
    for (int i = 0; i < 4; i++) f->w[i] = payload[i];
    kh_hdr_set_type(f->w, KH_T_CU_INST);
    kh_hdr_set_txn(f->w, 0x40);
}

static void add_imem(prog *p, const kh_isa *isa, unsigned addr, const char *inner)
{
    uint64_t w[4], v[4];
    asm_line(isa, "vector-inner", inner, w);
    memset(v, 0, sizeof v);
    kh_vec_set_op(v, 1);
    kh_vec_set_addr(v, addr);
    kh_vec_set_word(v, w[0]);
    add_inst(p, v);
}

static void add_desc(prog *p, unsigned ad, unsigned fld, uint64_t value)
{
    uint64_t v[4] = {0, 0, 0, 0};
    kh_vec_set_op(v, 2);
    kh_vec_set_ad(v, ad);
    kh_vec_set_fld(v, fld);
    kh_vec_set_value(v, value);
    add_inst(p, v);
}

static void add_dim(prog *p, unsigned ad, int stride, unsigned bound)
{
    uint64_t v[4] = {0, 0, 0, 0};
    kh_vec_set_op(v, 2);
    kh_vec_set_ad(v, ad);
    kh_vec_set_fld(v, 1);
    kh_vec_set_stride(v, (uint64_t)(uint32_t)stride & 0x3FFFF);
    kh_vec_set_bound(v, bound);
    add_inst(p, v);
}

static void add_run(prog *p)
{
    uint64_t v[4] = {0, 0, 0, 0};
    kh_vec_set_op(v, 3);
    add_inst(p, v);
    kh_hdr_set_last(p->f[p->n - 1].w, 1);
}

/* Stage the program on mesh `mesh` and dispatch it to (1,1) (control.md §4). */
static void dispatch(kit *k, unsigned mesh, const prog *p)
{
    for (unsigned s = 0; s < p->n; s++)
        for (unsigned w = 0; w < 5; w++) kit_w(k, mesh, KH_ORCH_STAGE + 40 * s + 8 * w, p->f[s].w[w]);
    kit_w(k, mesh, KH_ORCH_PROG_BASE, 0);
    kit_w(k, mesh, KH_ORCH_PROG_LEN, p->n);
    kit_w(k, mesh, KH_ORCH_PROG_DST, kh_orch_node_index(1, 1));
    kit_w(k, mesh, KH_ORCH_PROG_CRED, 8);
    kit_w(k, mesh, KH_ORCH_PROG_KICK, 1);
}

static uint64_t status_11(kit *k, unsigned mesh)
{
    return kit_r(k, mesh, KH_ORCH_NODE_STATUS + 8 * kh_orch_node_index(1, 1));
}

static int batch_done(kit *k, unsigned mesh, unsigned unused)
{
    (void)unused;
    uint64_t s = status_11(k, mesh);
    return kh_orch_node_status_code(&s) == 0x01; /* BATCH_COMPLETE */
}

static void vector_peer_drain_crosses_meshes(void)
{
    char err[256];
    kh_isa *isa = kh_isa_open_builtin(err, sizeof err);
    CHECK(isa != NULL);
    if (!isa) return;
    kit k;
    if (kit_init(&k, 2, NULL)) {
        kh_isa_free(isa);
        return;
    }
    for (unsigned i = 0; i < 2; i++) {
        uint64_t w[4];
        kit_pattern(40 + i, w);
        kit_put(&k, 0, 0x1000 + 32 * i, w);
    }
    /* mesh 0: fill L1 0..1 from DRAM, drain them to mesh 1's core (1,1),
     * buffer 0 at granule 4, ack to mesh 1's orchestrator (0,1), signal. */
    prog p = {.n = 0};
    add_imem(&p, isa, 0, "VFILL ad=0 start=0");
    add_imem(&p, isa, 1, "VBAR");
    add_imem(&p, isa, 2, "VDRAIN ad=1 start=0 peer=1 sig=1 dst_x=0 dst_y=1 buf=0");
    add_imem(&p, isa, 3, "VHALT");
    add_desc(&p, 0, 0, 0x1000);
    add_dim(&p, 0, 32, 2);
    uint64_t rec = 0;
    kh_vec_peer_set_offset(&rec, 4);
    kh_vec_peer_set_ack_x(&rec, 0);
    kh_vec_peer_set_ack_y(&rec, 1);
    kh_vec_peer_set_mesh(&rec, 1);
    kh_vec_peer_set_fin_x(&rec, 1);
    kh_vec_peer_set_fin_y(&rec, 1);
    add_desc(&p, 1, 0, rec);
    add_dim(&p, 1, 0, 2);
    add_run(&p);
    dispatch(&k, 0, &p);
    CHECK(kit_until(&k, batch_done, 0, 0, 200000) != KH_NEVER);
    kh_sim_run_until_idle(k.sim, 200000);
    uint64_t s = status_11(&k, 1);
    CHECK_EQ(kh_orch_node_status_code(&s), 0x03); /* DATA_RECEIVED from mesh 1's (1,1) */
    CHECK_EQ(kh_orch_node_status_arg(&s), 0);
    CHECK_EQ(kit_r(&k, 1, KH_ORCH_SIG_DONE), 1);
    CHECK_EQ(kit_fault(&k, 0), 0);
    /* mesh 1: drain L1 4..5 to its DRAM 0x2000 */
    prog q = {.n = 0};
    add_imem(&q, isa, 0, "VDRAIN ad=1 start=4");
    add_imem(&q, isa, 1, "VHALT");
    add_desc(&q, 1, 0, (1ull << 36) | 0x2000);
    add_dim(&q, 1, 32, 2);
    add_run(&q);
    dispatch(&k, 1, &q);
    CHECK(kit_until(&k, batch_done, 1, 0, 200000) != KH_NEVER);
    kh_sim_run_until_idle(k.sim, 200000);
    for (unsigned i = 0; i < 2; i++) {
        uint64_t w[4], want[4];
        kit_pattern(40 + i, want);
        kit_get(&k, 1, (1ull << 36) | (0x2000 + 32 * i), w);
        CHECK(!memcmp(w, want, 32));
    }
    kit_free(&k);
    kh_isa_free(isa);
}

int main(void)
{
    KH_RUN(vector_peer_drain_crosses_meshes);
    return kh_test_end("t_ilink_units");
}
