/* The host control-program engine, main_orch (control.md §3): a command RAM
 * of WR / POLL / DONE entries executed against the host map by a 32-bit AXI
 * master, with the reference timing of §3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "kohaku/gen/regs.h"
#include "kohaku/orch.h"

typedef enum eng_state {
    ENG_IDLE,
    ENG_START,       /* the cycle after GO */
    ENG_FETCH,       /* one cycle per command */
    ENG_WR,          /* AW+W raised */
    ENG_POLL_AR,     /* AR raised */
    ENG_POLL_SAMPLE, /* the target samples the register */
    ENG_POLL_R,      /* R seen by the engine */
} eng_state;

typedef struct eng_cmd {
    uint64_t f[4]; /* opcode, address, data / wanted / code, mask (§3) */
} eng_cmd;

struct kh_engine {
    kh_comp comp;
    kh_engine_bus bus;
    eng_cmd *cmd;
    unsigned ncmd;
    unsigned lat;       /* interconnect latency each way (engine_xbar_lat) */
    unsigned poll_ivl;

    eng_state state;
    kh_cycle at;        /* cycle of the next state action */
    kh_cycle go_beat;   /* a GO beat accepted in this cycle, KH_NEVER if none */
    int busy, done, err;
    unsigned pc;
    uint64_t code;
    uint32_t polls;
    uint64_t rdata;
    uint64_t stat_cmds, stat_runs;
    char error[200];
};

kh_comp *kh_engine_comp(kh_engine *e) { return &e->comp; }
const char *kh_engine_error(const kh_engine *e) { return e->error[0] ? e->error : NULL; }

static void wake_at(kh_engine *e, eng_state s, kh_cycle at)
{
    e->state = s;
    e->at = at;
    kh_comp_wake(&e->comp, at);
}

static void stop(kh_engine *e, int err)
{
    e->busy = 0;
    e->done = 1;
    e->err = err;
    e->state = ENG_IDLE;
    e->at = KH_NEVER;
}

/* An access the bus refused (control.md Open point 14): stop with err. */
static void refuse(kh_engine *e, const char *what, uint32_t addr)
{
    snprintf(e->error, sizeof e->error,
             "control program stopped at command %u: %s of 0x%08x reaches no window of the host map "
             "(control.md §9.2; Open point 14: the engine stops with err = 1)",
             e->pc, what, (unsigned)addr);
    kh_comp_log(&e->comp, KH_LOG_WARN, "%s", e->error);
    stop(e, 1);
}

static void fetch(kh_engine *e, kh_cycle now)
{
    const eng_cmd *c = &e->cmd[e->pc];
    unsigned op = (unsigned)kh_eng_cmd_op_op(&c->f[0]); /* field 0 decodes [3:0] (§3) */
    e->stat_cmds++;
    switch (op) {
    case KH_ENG_OP_WR: wake_at(e, ENG_WR, now + 1); break;
    case KH_ENG_OP_POLL: wake_at(e, ENG_POLL_AR, now + 1); break;
    case KH_ENG_OP_DONE:
        e->code = c->f[2];
        stop(e, 0);
        break;
    default: stop(e, 1); break; /* unknown opcodes, 0 included, stop with err (§3) */
    }
}

static void next_command(kh_engine *e, kh_cycle at)
{
    e->pc = (e->pc + 1) % e->ncmd; /* PC wraps at NCMD (§3) */
    wake_at(e, ENG_FETCH, at);
}

static void eng_step(kh_comp *comp, kh_cycle now)
{
    kh_engine *e = (kh_engine *)comp;
    /* GO is sampled only while idle (§3). */
    if (e->state == ENG_IDLE && e->go_beat != KH_NEVER && e->go_beat < now) {
        e->go_beat = KH_NEVER;
        e->pc = 0;
        e->busy = 1;
        e->done = 0;
        e->err = 0;
        e->polls = 0;
        e->stat_runs++;
        wake_at(e, ENG_FETCH, now + 1); /* one cycle to start */
        return;
    }
    if (e->go_beat != KH_NEVER && e->go_beat < now) e->go_beat = KH_NEVER; /* GO while running */
    if (e->at != now) {
        if (e->at != KH_NEVER) kh_comp_wake(comp, e->at);
        return;
    }
    const eng_cmd *c = &e->cmd[e->pc];
    uint32_t addr = (uint32_t)c->f[1]; /* ADDR_W = 32 (§3) */
    switch (e->state) {
    case ENG_FETCH: fetch(e, now); break;
    case ENG_WR: {
        /* AW at now+lat, the W beat one cycle later, B the cycle after the
         * beat; the next FETCH follows the cycle B is seen (§2.1, §3). */
        kh_cycle beat = now + 1 + e->lat;
        if (e->bus.write(e->bus.ctx, addr, c->f[2], beat)) {
            refuse(e, "WR", addr);
            break;
        }
        next_command(e, beat + 1 + e->lat + 1);
        break;
    }
    case ENG_POLL_AR:
        wake_at(e, ENG_POLL_SAMPLE, now + 1 + e->lat); /* sampled the cycle after AR (§2.1) */
        break;
    case ENG_POLL_SAMPLE:
        if (e->bus.read(e->bus.ctx, addr, &e->rdata, now)) {
            refuse(e, "POLL", addr);
            break;
        }
        wake_at(e, ENG_POLL_R, now + 1 + e->lat);
        break;
    case ENG_POLL_R:
        e->polls++;
        /* The compare is against data unmasked (§3). */
        if ((e->rdata & c->f[3]) == c->f[2])
            next_command(e, now + 1);
        else
            wake_at(e, ENG_POLL_AR, now + e->poll_ivl + 1);
        break;
    default: break;
    }
}

void kh_engine_write(kh_engine *e, uint32_t off, uint64_t data, kh_cycle beat)
{
    off &= 0xFFFF;
    uint64_t a = off;
    if (kh_eng_cmd_addr_window(&a) == KH_ENG_CMD_ADDR_WINDOW_CMD) {
        /* Command RAM: index addr[11:5], field addr[4:3]; strobes ignored. */
        unsigned n = (unsigned)kh_eng_cmd_addr_cmd(&a), f = (unsigned)kh_eng_cmd_addr_word(&a);
        if (n < e->ncmd) e->cmd[n].f[f] = data;
        return;
    }
    if (off == KH_ENG_CTRL && kh_eng_ctrl_go(&data)) {
        /* GO only with data bit 0 = 1; acts in the cycle after the beat. */
        e->go_beat = beat;
        kh_comp_wake(&e->comp, beat + 1);
    }
}

int kh_engine_next_action(const kh_engine *e, kh_cycle *at, uint32_t *addr)
{
    if (e->state == ENG_IDLE) {
        if (e->go_beat == KH_NEVER) return 0;
        *at = e->go_beat + 1;
        return 1;
    }
    *at = e->at;
    if (e->state != ENG_POLL_SAMPLE) return 1;
    *addr = (uint32_t)e->cmd[e->pc].f[1];
    return 2;
}

int kh_engine_writes_ahead(const kh_engine *e)
{
    unsigned pc;
    if (e->state != ENG_IDLE) pc = e->pc;
    else if (e->go_beat != KH_NEVER) pc = 0; /* a GO beat starts at command 0 */
    else return 0;
    if (e->state == ENG_WR) return 1;
    /* POLLs only read; DONE and the opcodes that stop end the program (the
     * PC wraps, so at most every command once) */
    for (unsigned n = 0; n < e->ncmd; n++, pc = (pc + 1) % e->ncmd) {
        unsigned op = (unsigned)kh_eng_cmd_op_op(&e->cmd[pc].f[0]);
        if (op == KH_ENG_OP_WR) return 1;
        if (op != KH_ENG_OP_POLL) return 0;
    }
    return 0;
}

uint64_t kh_engine_read(kh_engine *e, uint32_t off, kh_cycle now)
{
    (void)now;
    uint64_t w = 0;
    switch (off & 0xFFFF) {
    case KH_ENG_CTRL:
        kh_eng_ctrl_set_busy(&w, (uint64_t)e->busy);
        kh_eng_ctrl_set_done(&w, (uint64_t)e->done);
        kh_eng_ctrl_set_err(&w, (uint64_t)e->err);
        return w;
    case KH_ENG_PC: return e->pc;
    case KH_ENG_CODE: return e->code;
    case KH_ENG_POLLS: kh_eng_polls_set_polls(&w, e->polls); return w;
    default: return 0; /* the command RAM is not readable (§3) */
    }
}

static int eng_describe_stuck(kh_comp *comp, char *buf, size_t len)
{
    kh_engine *e = (kh_engine *)comp;
    if (!e->busy) return 0;
    const eng_cmd *c = &e->cmd[e->pc];
    if (e->state == ENG_POLL_AR || e->state == ENG_POLL_SAMPLE || e->state == ENG_POLL_R)
        snprintf(buf, len,
                 "command %u POLLs 0x%08x for (value & 0x%llx) == 0x%llx, %u reads so far; "
                 "the engine has no timeout (control.md §3)",
                 e->pc, (unsigned)c->f[1], (unsigned long long)c->f[3],
                 (unsigned long long)c->f[2], e->polls);
    else
        snprintf(buf, len, "running command %u (control.md §3)", e->pc);
    return 1;
}

static void eng_stats(kh_comp *comp, char *buf, size_t len)
{
    kh_engine *e = (kh_engine *)comp;
    snprintf(buf, len, "\"runs\": %llu, \"commands\": %llu, \"polls\": %u",
             (unsigned long long)e->stat_runs, (unsigned long long)e->stat_cmds, e->polls);
}

static void eng_destroy(kh_comp *comp)
{
    kh_engine *e = (kh_engine *)comp;
    free(e->cmd);
    free(e);
}

/* Checkpoints (docs/checkpoint.md): the command RAM and the sequencer. */
static void eng_ckpt(kh_comp *c, kh_ck *ck)
{
    kh_engine *e = (kh_engine *)c;
    kh_ck_same(ck, e->ncmd, "the engine's command RAM");
    for (unsigned i = 0; i < e->ncmd; i++) KH_CK_ARR(ck, e->cmd[i].f, 4);
    KH_CK(ck, e->state);
    KH_CK(ck, e->at);
    KH_CK(ck, e->go_beat);
    KH_CK(ck, e->busy);
    KH_CK(ck, e->done);
    KH_CK(ck, e->err);
    KH_CK(ck, e->pc);
    KH_CK(ck, e->code);
    KH_CK(ck, e->polls);
    KH_CK(ck, e->rdata);
    KH_CK(ck, e->stat_cmds);
    KH_CK(ck, e->stat_runs);
    kh_ck_str(ck, e->error, sizeof e->error);
}

static const kh_comp_ops eng_ops = {
    .ckpt = eng_ckpt,
    .kind = "engine",
    .step = eng_step,
    .describe_stuck = eng_describe_stuck,
    .stats_json = eng_stats,
    .destroy = eng_destroy,
};

kh_engine *kh_engine_new(kh_sim *sim, const kh_engine_bus *bus, char *err, size_t errlen)
{
    const kh_params *p = kh_sim_params(sim);
    if (p->ncmd == 0 || p->ncmd > 128) {
        snprintf(err, errlen, "ncmd=%llu: the command RAM holds 1..128 commands (index = addr[11:5], "
                 "control.md §3)", (unsigned long long)p->ncmd);
        return NULL;
    }
    kh_engine *e = calloc(1, sizeof *e);
    if (!e || !(e->cmd = calloc(p->ncmd, sizeof *e->cmd))) {
        free(e);
        snprintf(err, errlen, "out of memory creating the control-program engine");
        return NULL;
    }
    e->bus = *bus;
    e->ncmd = (unsigned)p->ncmd;
    e->lat = (unsigned)p->engine_xbar_lat;
    e->poll_ivl = (unsigned)p->poll_ivl;
    e->state = ENG_IDLE;
    e->at = KH_NEVER;
    e->go_beat = KH_NEVER;
    kh_sim_add(sim, &e->comp, &eng_ops, "engine");
    return e;
}
