/* vec_cu with the V2 core as a unit kind on the shell (docs/vector2.md §9):
 * map token `vc2`, or every `vec` when the machine parameter vec_core_v2 is
 * 1 (upstream's VEC_CORE_V2 build define). The frame and the core are
 * clocked every cycle something is in flight (frame.c); the shell's
 * receive and instruction heads and its output stand in for noc_cu_base's
 * signals. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "kohaku/gen/vector.h"
#include "kohaku/params.h"

#include "cu/units/units.h"
#include "cu/units/vector2/frame.h"

static const kh_param_info rows[] = {
#define KH_PARAM KH_PARAM_INFO
#include "kohaku/params_vector2.def"
#undef KH_PARAM
};

void kh_v2_cfg_from_params(const kh_params *p, v2_cfg *cfg)
{
    cfg->dualq = (unsigned)p->v2_dualq;
    cfg->imem_depth = (unsigned)p->v2_imem_depth;
    cfg->qd = (unsigned)p->v2_qd;
    cfg->has_expd = (unsigned)p->v2_has_expd;
    cfg->tau = (unsigned)p->v2_tau;
    cfg->l1_ultra = (unsigned)p->v2_l1_prim;
    cfg->has_mx = 1;
}

static int check_params(const kh_params *p, char *err, size_t errlen)
{
    if (p->v2_imem_depth != 512 && p->v2_imem_depth != 1024) {
        snprintf(err, errlen, "parameter v2_imem_depth = %llu must be 512 or 1024 (vector-core-v2.md §10)",
                 (unsigned long long)p->v2_imem_depth);
        return -1;
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].offset == offsetof(kh_params, v2_qd))
            return kh_param_pow2(p, &rows[i], "v2_fifo's depth", err, errlen);
    return 0;
}

typedef struct v2_unit {
    kh_cu *shell;
    v2_frame fr;
    int have_recv, have_inst;          /* the shell offered (and we took) a head this cycle */
    kh_flit recv, inst;
    uint64_t runs, faults;
} v2_unit;

static void *create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    v2_unit *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "vec_cu_v2: out of memory");
        return NULL;
    }
    u->shell = shell;
    v2_cfg cfg;
    kh_v2_cfg_from_params(p, &cfg);
    const kh_cu_place *pl = kh_cu_where(shell);
    if (kh_v2_frame_init(&u->fr, &cfg, pl->x, pl->y, pl->mem_x, pl->mem_y)) {
        snprintf(err, errlen, "vec_cu_v2: bad V2 parameters");
        free(u);
        return NULL;
    }
    return u;
}

static void destroy(void *unit) { free(unit); }

/* Nothing held anywhere: the frame and the core need no clock. An open
 * CU_DATA burst (cd_st) waits for its next flit, whose arrival wakes us. */
static int quiet(const v2_unit *u)
{
    const v2_frame *f = &u->fr;
    return !f->send_valid && !f->rr_valid && !f->cd_valid && !f->sg_pend && !f->inst_ready &&
           !f->exec_done && !f->ld_en && !f->start && f->cst == 0 && f->wst == 0 &&
           kh_v2_core_idle(&f->core) && !f->core.srst;
}

/* The receive FIFO's head: taken when vec_cu's registered recv_ready is up. */
static int recv(void *unit, const kh_flit *f, kh_cycle now)
{
    v2_unit *u = unit;
    if (!u->fr.recv_ready) {
        kh_cu_wake(u->shell, now);
        return 0;
    }
    u->recv = *f;
    u->have_recv = 1;
    kh_cu_wake(u->shell, now);
    return 1;
}

/* The instruction: taken when vec_cu is idle and its registered inst_ready is low. */
static int inst(void *unit, const kh_flit *f, kh_cycle now)
{
    v2_unit *u = unit;
    if (u->fr.cst != 0 || u->fr.inst_ready) {
        kh_cu_wake(u->shell, now);
        return 0;
    }
    u->inst = *f;
    u->have_inst = 1;
    if (kh_vec_op(f->w) == KH_VEC_OP_RUN) u->runs++;
    kh_cu_wake(u->shell, now);
    return 1;
}

static void step(void *unit, kh_cycle now)
{
    v2_unit *u = unit;
    v2_frame *f = &u->fr;
    if (f->exec_done) {
        if (f->exec_fault) u->faults++;
        kh_cu_done(u->shell, f->exec_fault, f->exec_result, now);
    }
    int sent = f->send_valid && kh_cu_send(u->shell, &f->send_flit, now);
    v2_frame_io io = {.recv_valid = u->have_recv, .recv = &u->recv, .inst_valid = u->have_inst,
                      .inst = &u->inst, .send_ready = sent || !f->send_valid};
    f->core.ref = !kh_comp_fast(kh_cu_comp(u->shell)); /* engine cycle, or a trace sink: the reference */
    kh_v2_frame_cycle(f, &io);
    u->have_recv = u->have_inst = 0;
    if (!quiet(u)) kh_cu_wake(u->shell, now + 1);
}

static int describe_stuck(void *unit, char *buf, size_t len)
{
    const v2_unit *u = unit;
    const v2_core *c = &u->fr.core;
    if (quiet(u)) return 0;
    return snprintf(buf, len,
                    "V2 core %s, pc %u, queues MQ %u UQ %u/%u PQ %u/%u FQ %u DQ %u, fill %d drain %d, "
                    "%u fill words owed",
                    c->run ? "running" : "stopped", c->d_pc, c->mq.count, c->uq[0].count, c->uq[1].count,
                    c->pq[0].count, c->pq[1].count, c->fq.count, c->dq.count, c->f_st, c->d_st, c->fill_out);
}

static void stats_json(void *unit, char *buf, size_t len)
{
    const v2_unit *u = unit;
    const kh_v2_counters *c = &u->fr.core.pc;
    snprintf(buf, len,
             "\"runs\": %llu, \"faults\": %llu, \"busy\": %llu, \"beats\": %llu, \"lanes\": %llu, "
             "\"insns\": %llu, \"fill_words\": %llu, \"drain_words\": %llu",
             (unsigned long long)u->runs, (unsigned long long)u->faults, (unsigned long long)c->busy,
             (unsigned long long)c->beats, (unsigned long long)c->lanes, (unsigned long long)c->insns,
             (unsigned long long)c->fill_words, (unsigned long long)c->drain_words);
}

static const char *inst_name(const kh_flit *f)
{
    switch (kh_vec_op(f->w)) {
    case KH_VEC_OP_IMEM: return "IMEM";
    case KH_VEC_OP_DESC: return "DESC";
    case KH_VEC_OP_RUN: return "RUN";
    default: return "no-op";
    }
}

/* Checkpoints (docs/checkpoint.md): the frame and the core (ckpt.c), then
 * the unit's own: the heads taken this cycle and the counters. */
static void unit_ckpt(void *unit, kh_ck *ck)
{
    v2_unit *u = unit;
    kh_v2_frame_ckpt(&u->fr, ck);
    KH_CK(ck, u->have_recv);
    KH_CK(ck, u->have_inst);
    kh_ck_flit(ck, &u->recv);
    kh_ck_flit(ck, &u->inst);
    KH_CK(ck, u->runs);
    KH_CK(ck, u->faults);
}

v2_core *kh_v2_unit_core(void *unit) { return &((v2_unit *)unit)->fr.core; }

const kh_unit_kind kh_unit_vector2 = {
    .ckpt = unit_ckpt,
    .token = "vc2",
    .name = "vec_cu_v2",
    .cu_type = 0x5643, /* "VC", as v1's */
    .cu_version = 6,   /* vec_cu at 54cc4015 */
    .n_buffers = 2,
    .create = create,
    .destroy = destroy,
    .inst = inst,
    .recv = recv,
    .step = step,
    .describe_stuck = describe_stuck,
    .stats_json = stats_json,
    .inst_name = inst_name,
    .params = rows,
    .nparams = sizeof rows / sizeof rows[0],
    .check_params = check_params,
};
