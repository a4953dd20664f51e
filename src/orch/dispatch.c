/* The dispatcher (control.md §2.4): staged flits out of the staging RAM,
 * one RAM word per cycle, under credit (§2.5), into the TX FIFO. */
#include <stdio.h>

#include "kohaku/bufcat.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "orch/orch_int.h"

/* A kick acts one cycle after its beat: it starts the dispatcher iff it is
 * idle and PROG_LEN != 0; otherwise it is silently ignored (§2.4). */
void kh_orch_kick(kh_orch *o, kh_cycle now)
{
    if (o->run || o->prog_len == 0) return;
    /* Open point 6: slots past the RAM are undefined on hardware; refuse. */
    if ((unsigned)o->prog_base + o->prog_len > o->stage_words / 5) {
        kh_orch_set_error(o,
                          "PROG_KICK refused: PROG_BASE %u + PROG_LEN %u runs past the %u staging slots "
                          "(control.md §2.4: PROG_BASE + PROG_LEN must not exceed STAGE_FLITS; Open point 6)",
                          o->prog_base, o->prog_len, o->stage_words / 5);
        return;
    }
    o->run = 1;
    o->left = o->prog_len;
    o->rd = (unsigned)((o->prog_base % o->ptr_mod) * 5u) % o->ptr_mod;
    o->word = 0;
    o->kick_at = now; /* word 0 is read from the next cycle on */
    o->run_len = o->prog_len;
}

/* Push the assembled flit: dst from PROG_DST sampled now, src = own
 * coordinate, type/txn/last/rsvd/payload unchanged (§2.4 step 3). */
static void push_flit(kh_orch *o, kh_cycle now)
{
    kh_flit f = o->push_flit;
    uint64_t dst = o->prog_dst;
    kh_hdr_set_dst_x(f.w, kh_orch_prog_dst_x(&dst));
    kh_hdr_set_dst_y(f.w, kh_orch_prog_dst_y(&dst));
    kh_hdr_set_src_x(f.w, o->cfg.x);
    kh_hdr_set_src_y(f.w, o->cfg.y);
    kh_flit_trim(&f); /* flits.md §8: only the low 32 bits of word 4 */
    kh_orch_tx_push(o, &f, 0, now);
    o->push_at = KH_NEVER;
    /* The older RTL takes the credit at the push, and never below 0. */
    if (o->older_rtl && o->credit != 0) kh_orch_cycle(o, now)->flit_go++;
    o->stat_dispatched++;
    if (!o->run && kh_sim_trace(o->comp.sim)) {
        char args[96];
        snprintf(args, sizeof args, "\"dst\": \"%u,%u\", \"flits\": %u", (unsigned)kh_hdr_dst_x(f.w),
                 (unsigned)kh_hdr_dst_y(f.w), o->run_len);
        kh_trace_span(&o->comp, "dispatch", o->kick_at, now + 1, args);
    }
}

kh_cycle kh_orch_final_push_at(const kh_orch *o) { return o->run ? KH_NEVER : o->push_at; }

static uint64_t ram_word(const kh_orch *o, unsigned rd)
{
    /* rd < stage_words is guaranteed by the kick check. */
    return rd < o->stage_words ? o->stage[rd] : 0;
}

/* May the next RAM word be read in cycle t? The digest (§2.4): words 1-4
 * follow word 0 unconditionally; word 0 needs credit and room for two
 * more flits. The older RTL (disp_can): every word needs credit != 0 and a
 * TX FIFO that is not full. */
static int word_may_go(const kh_orch *o, kh_cycle t)
{
    if (o->older_rtl) return o->credit != 0 && !kh_fifo_full(&o->tx, t);
    return o->word != 0 || (o->credit != 0 && kh_fifo_used(&o->tx, t) + 2 <= o->tx_depth);
}

void kh_orch_dispatch_step(kh_orch *o, kh_cycle now)
{
    if (o->push_at == now) push_flit(o, now);
    if (o->run && o->kick_at != now) {
        if (word_may_go(o, now)) {
            if (o->stall_since != KH_NEVER) {
                o->stat_credit_stall += now - o->stall_since;
                o->stall_since = KH_NEVER;
            }
            /* The digest reserves the credit at word 0 (§2.5). */
            if (o->word == 0 && !o->older_rtl) kh_orch_cycle(o, now)->flit_go++;
            o->asm_flit.w[o->word] = ram_word(o, o->rd);
            o->rd = (o->rd + 1) % o->ptr_mod;
            if (++o->word == 5) {
                o->word = 0;
                o->push_flit = o->asm_flit;
                /* Pushed two cycles after word 4 (§2.4); the older RTL's
                 * disp_push is one register: the next cycle. */
                o->push_at = now + (o->older_rtl ? 1 : 2);
                if (o->left == 1)
                    o->run = 0;
                else
                    o->left--;
            }
        } else if (o->credit == 0 && o->stall_since == KH_NEVER) {
            o->stall_since = now;
        }
    }
    /* Next step: the next word, the pending push, or (stalled on credit or
     * TX room) nothing until a signal, a take or a host write wakes us. */
    kh_cycle next = KH_NEVER;
    if (o->run) {
        int stalled = !word_may_go(o, now + 1);
        /* The credit seen next cycle may change at the end of this one. */
        if (!stalled || o->cyc.at == now) next = now + 1;
    }
    if (o->push_at != KH_NEVER && o->push_at < next) next = o->push_at;
    for (unsigned i = 0; i < o->nbeats; i++)
        if (o->beats[i].at + 1 < next) next = o->beats[i].at + 1;
    if (next != KH_NEVER) kh_comp_wake(&o->comp, next > now ? next : now + 1);
}

void kh_orch_dispatch_stuck(kh_orch *o, char *buf, size_t len, size_t *used)
{
    uint64_t d = o->prog_dst;
    unsigned x = (unsigned)kh_orch_prog_dst_x(&d), y = (unsigned)kh_orch_prog_dst_y(&d);
    int waiting = o->word == 0 || o->older_rtl; /* the older RTL can wait at any word */
    if (o->run && waiting && o->credit == 0)
        kh_bufcat(buf, len, used,
                  "dispatch to (%u,%u) stalled with %u flit(s) left: PROG_CRED is 0 "
                  "(PROG_STAT credit). Only INST_COMPLETE refills credit; the final instruction "
                  "(last = 1) and faults return none, so a program of n instructions gives back n-1: "
                  "re-seed PROG_CRED (<= the unit's inst_depth) before each program "
                  "(control.md §2.5, §4 step 5)",
                  x, y, o->left);
    else if (o->run && waiting && !word_may_go(o, kh_sim_now(o->comp.sim)))
        kh_bufcat(buf, len, used,
                  "dispatch to (%u,%u) waits for room in the TX FIFO (%u flit(s) left; word 0 "
                  "needs occupancy <= TX_DEPTH-2, control.md §2.4)",
                  x, y, o->left);
    else
        kh_bufcat(buf, len, used, "dispatch to (%u,%u) in progress, %u flit(s) left (control.md §2.4)", x, y,
                  o->left);
}
