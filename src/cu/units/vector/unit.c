/* vec_cu on the unit shell: the outer ISA (vector.md §1.1) -- IMEM writes
 * instruction memory, DESC sets one descriptor field with the split 40-bit
 * base, RUN starts the kernel and retires at VHALT with its cycle count or
 * with a fault -- and the wiring of the core to kh_cu's services. */
#include <stdio.h>
#include <stdlib.h>

#include "kohaku/gen/vector.h"

#include "cu/units/units.h"
#include "cu/units/vector/vec.h"
#include "cu/units/vector/vec_unit.h"
#include "kohaku/ckpt.h"

typedef struct vec_unit {
    kh_cu *shell;
    vec_core core;
    kh_cycle outer_done; /* IMEM/DESC/other: exec_done at this cycle, KH_NEVER if none */
    kh_cycle first_inst; /* cycle the first instruction was taken, KH_NEVER before */
} vec_unit;

static int port_send(void *ctx, const kh_flit *f, kh_cycle now)
{
    return kh_cu_send(((vec_unit *)ctx)->shell, f, now);
}

static void port_done(void *ctx, int fault, uint32_t result, kh_cycle now)
{
    kh_cu_done(((vec_unit *)ctx)->shell, fault, result, now);
}

static void port_log(void *ctx, kh_log_level lvl, const char *msg)
{
    kh_cu_log(((vec_unit *)ctx)->shell, lvl, "%s", msg);
}

static void reschedule(vec_unit *u, kh_cycle now)
{
    kh_cycle w = kh_vec_core_next_wake(&u->core, now);
    if (u->outer_done != KH_NEVER && u->outer_done < w) w = u->outer_done;
    if (w != KH_NEVER) kh_cu_wake(u->shell, w);
}

/* The behaviour options params->rtl_compat selects (vector.md §5.5, §11). */
static void vec_opts_from_params(vec_opts *o, const kh_params *p)
{
    int compat = p->rtl_compat != 0;
    o->vst32_defect = compat;
    o->vcvt_skew = compat;
    o->anyall_prev_pr = compat;
    o->valu = compat ? KH_VALU_OLD_RSQRT_NEG_ZERO : 0;
}

static void *create(kh_cu *shell, const kh_params *p, char *err, size_t errlen)
{
    _Static_assert(VEC_L1 == 512, "params_vector.def fixes vec_l1_depth at 512");
    vec_unit *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(err, errlen, "vec_cu: out of memory");
        return NULL;
    }
    u->shell = shell;
    vec_port port = {u, port_send, port_done, NULL, port_log};
    kh_vec_core_init(&u->core, &port);
    vec_opts_from_params(&u->core.opt, p);
    u->core.alat = (unsigned)p->vec_alat;
    u->core.tree_lat = (unsigned)p->vec_tree_lat;
    const kh_cu_place *pl = kh_cu_where(shell);
    u->core.x = pl->x;
    u->core.y = pl->y;
    u->core.mem_x = pl->mem_x;
    u->core.mem_y = pl->mem_y;
    u->core.mesh_id = pl->mesh_id;
    u->outer_done = KH_NEVER;
    u->first_inst = KH_NEVER;
    return u;
}

static void destroy(void *unit) { free(unit); }

static int inst(void *unit, const kh_flit *f, kh_cycle now)
{
    vec_unit *u = unit;
    if (kh_vec_core_busy(&u->core) || u->outer_done != KH_NEVER) return 0;
    const uint64_t *w = f->w;
    if (u->first_inst == KH_NEVER) u->first_inst = now;
    switch (kh_vec_op(w)) {
    case KH_VEC_OP_IMEM:
        u->core.st.imem[kh_vec_addr(w)] = (uint32_t)kh_vec_word(w);
        break;
    case KH_VEC_OP_DESC: {
        vec_desc *d = &u->core.st.desc[kh_vec_ad(w)];
        unsigned fld = (unsigned)kh_vec_fld(w);
        if (fld == 0) /* {[68:63], [245:212]}: the whole 40 bits */
            d->base = kh_vec_value(w);
        else if (fld <= 4)
            kh_vec_desc_set_dim(d, fld - 1, (int32_t)kh_vec_stride_s(w), (uint32_t)kh_vec_bound(w));
        break; /* 5..7 ignored */
    }
    case KH_VEC_OP_RUN:
        kh_vec_core_run(&u->core, (unsigned)kh_vec_addr(w), now + VEC_T_RUN_START);
        reschedule(u, now);
        return 1;
    default: /* any other opcode retires at once, result 0 (§1.1) */
        break;
    }
    u->outer_done = now + VEC_T_OUTER_DONE; /* never in the accept cycle (control.md §5.4) */
    reschedule(u, now);
    return 1;
}

static int recv(void *unit, const kh_flit *f, kh_cycle now)
{
    vec_unit *u = unit;
    int took = kh_vec_core_recv(&u->core, f, now);
    reschedule(u, now);
    return took;
}

static void step(void *unit, kh_cycle now)
{
    vec_unit *u = unit;
    if (u->outer_done != KH_NEVER && u->outer_done <= now) {
        u->outer_done = KH_NEVER;
        kh_cu_done(u->shell, 0, 0, now);
    }
    kh_vec_core_step(&u->core, now);
    reschedule(u, now);
}

static int describe_stuck(void *unit, char *buf, size_t len)
{
    return kh_vec_core_describe(&((vec_unit *)unit)->core, buf, len);
}

static void stats_json(void *unit, char *buf, size_t len)
{
    const vec_stats *s = &((vec_unit *)unit)->core.stats;
    snprintf(buf, len,
             "\"runs\": %llu, \"faults\": %llu, \"insns\": %llu, \"fill_words\": %llu, "
             "\"drain_words\": %llu, \"cudata_words\": %llu, \"hazard_warnings\": %llu, "
             "\"expsum_pm_warnings\": %llu, \"loop_warnings\": %llu",
             (unsigned long long)s->runs, (unsigned long long)s->faults,
             (unsigned long long)s->insns, (unsigned long long)s->fill_words,
             (unsigned long long)s->drain_words, (unsigned long long)s->cudata_words,
             (unsigned long long)s->hazard_warnings, (unsigned long long)s->expsum_pm_warnings,
             (unsigned long long)s->loop_warnings);
}

vec_core *kh_vec_unit_core(void *unit) { return &((vec_unit *)unit)->core; }
kh_cycle kh_vec_unit_first_inst(void *unit) { return ((vec_unit *)unit)->first_inst; }

static const char *inst_name(const kh_flit *f)
{
    switch (kh_vec_op(f->w)) {
    case KH_VEC_OP_IMEM: return "IMEM";
    case KH_VEC_OP_DESC: return "DESC";
    case KH_VEC_OP_RUN: return "RUN";
    default: return "no-op";
    }
}

static const kh_param_info rows[] = {
#define KH_PARAM KH_PARAM_INFO
#include "kohaku/params_vector.def"
#undef KH_PARAM
};

/* parameters.md §2.4: the vector recording's unit bench. */
static void apply_profile(kh_params *p)
{
    kh_params_stand_in_fifos(p);
    p->inst_depth = 32;
    p->recv_depth = 64;
    p->vec_l1_depth = 512;
}

/* Checkpoints (docs/checkpoint.md): the core (ckpt.c), then the unit's own. */
static void unit_ckpt(void *unit, kh_ck *ck)
{
    vec_unit *u = unit;
    kh_vec_core_ckpt(&u->core, ck);
    KH_CK(ck, u->outer_done);
    KH_CK(ck, u->first_inst);
}

const kh_unit_kind kh_unit_vector = {
    .ckpt = unit_ckpt,
    .token = "vec",
    .name = "vec_cu",
    .cu_type = 0x5643, /* "VC" (§1.1) */
    .cu_version = 4,   /* S */
    .n_buffers = 2,    /* published as 2; only buffer 0 is accepted (§1.4) */
    .create = create,
    .destroy = destroy,
    .inst = inst,
    .recv = recv,
    .step = step,
    .dbg = NULL,
    .describe_stuck = describe_stuck,
    .stats_json = stats_json,
    .inst_name = inst_name,
    .params = rows,
    .nparams = sizeof rows / sizeof rows[0],
    .profile = "rec-vector",
    .apply_profile = apply_profile,
};
