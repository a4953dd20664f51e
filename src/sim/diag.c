/* Diagnostics of a simulation (sim.h): kept per name, the first message
 * with it, for the drivers of the simulation to show. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kohaku/ckpt.h"
#include "sim/sim_int.h"

struct kh_diag_rec {
    const char *name; /* the raiser's string, or own after a restore */
    char own[64];
    uint64_t count;
    char msg[KH_DIAG_MSG];
};

void kh_sim_diag(kh_sim *sim, const char *name, const char *fmt, ...)
{
    if (!sim->diag) {
        sim->diag = calloc(KH_DIAG_NAMES, sizeof *sim->diag);
        if (!sim->diag) return; /* no memory: the run goes on without it */
    }
    unsigned i = 0;
    while (i < sim->ndiag && strcmp(sim->diag[i].name, name)) i++;
    if (i == sim->ndiag) {
        if (i == KH_DIAG_NAMES) {
            i = KH_DIAG_NAMES - 1; /* full: counted with the last, renamed */
            sim->diag[i].name = "other";
        } else {
            sim->diag[i].name = name;
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(sim->diag[i].msg, sizeof sim->diag[i].msg, fmt, ap);
            va_end(ap);
            sim->ndiag++;
        }
    }
    sim->diag[i].count++;
}

unsigned kh_sim_ndiag(const kh_sim *sim) { return sim->ndiag; }

const char *kh_sim_diag_at(const kh_sim *sim, unsigned i, uint64_t *count, const char **message)
{
    if (i >= sim->ndiag) return NULL;
    if (count) *count = sim->diag[i].count;
    if (message) *message = sim->diag[i].msg;
    return sim->diag[i].name;
}

uint64_t kh_sim_diag_total(const kh_sim *sim)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < sim->ndiag; i++) n += sim->diag[i].count;
    return n;
}

void kh_sim_diag_free(kh_sim *sim)
{
    free(sim->diag);
    sim->diag = NULL;
    sim->ndiag = 0;
}

void kh_sim_diag_ckpt(kh_sim *sim, kh_ck *ck)
{
    unsigned n = (unsigned)kh_ck_count(ck, sim->ndiag, KH_DIAG_NAMES, "diagnostics");
    if (kh_ck_loading(ck) && n && !sim->diag) {
        sim->diag = calloc(KH_DIAG_NAMES, sizeof *sim->diag);
        if (!sim->diag) {
            kh_ck_fail(ck, "out of memory restoring the diagnostics");
            return;
        }
    }
    for (unsigned i = 0; i < n; i++) {
        struct kh_diag_rec *d = &sim->diag[i];
        if (!kh_ck_loading(ck)) snprintf(d->own, sizeof d->own, "%s", d->name);
        kh_ck_str(ck, d->own, sizeof d->own);
        d->name = d->own;
        KH_CK(ck, d->count);
        kh_ck_str(ck, d->msg, sizeof d->msg);
    }
    if (kh_ck_loading(ck)) sim->ndiag = n;
}

void kh_sim_diag_mark(kh_sim *sim)
{
    memset(sim->part_diag0, 0, sizeof sim->part_diag0);
    for (unsigned i = 0; i < sim->ndiag; i++) sim->part_diag0[i] = sim->diag[i].count;
}

/* Names are only ever appended (the last one renamed "other" when full),
 * so the records at the partition are the first ones and their counts
 * then are part_diag0. A record whose count grew by nothing is left out. */
void kh_sim_diag_part(kh_sim *sim, kh_ck *ck, int whole)
{
    if (!kh_ck_loading(ck)) {
        uint64_t n = 0;
        for (unsigned i = 0; i < sim->ndiag; i++) n += whole || sim->diag[i].count != sim->part_diag0[i];
        kh_ck_count(ck, n, KH_DIAG_NAMES, "diagnostics");
        for (unsigned i = 0; i < sim->ndiag; i++) {
            struct kh_diag_rec *d = &sim->diag[i];
            uint64_t add = whole ? d->count : d->count - sim->part_diag0[i];
            if (!add && !whole) continue;
            snprintf(d->own, sizeof d->own, "%s", d->name);
            kh_ck_str(ck, d->own, sizeof d->own);
            d->name = d->own;
            kh_ck_str(ck, d->msg, sizeof d->msg);
            KH_CK(ck, add);
        }
        return;
    }
    unsigned n = (unsigned)kh_ck_count(ck, 0, KH_DIAG_NAMES, "diagnostics");
    if (n && !sim->diag && !(sim->diag = calloc(KH_DIAG_NAMES, sizeof *sim->diag))) {
        kh_ck_fail(ck, "out of memory merging the diagnostics");
        return;
    }
    for (unsigned k = 0; k < n && !kh_ck_failed(ck); k++) {
        struct kh_diag_rec r;
        memset(&r, 0, sizeof r);
        uint64_t add = 0;
        kh_ck_str(ck, r.own, sizeof r.own);
        kh_ck_str(ck, r.msg, sizeof r.msg);
        KH_CK(ck, add);
        unsigned i = 0;
        while (i < sim->ndiag && strcmp(sim->diag[i].name, r.own)) i++;
        if (i == sim->ndiag) {
            if (i == KH_DIAG_NAMES) {
                i = KH_DIAG_NAMES - 1; /* full: counted with the last, renamed, as kh_sim_diag does */
                snprintf(sim->diag[i].own, sizeof sim->diag[i].own, "other");
                sim->diag[i].name = sim->diag[i].own;
            } else {
                sim->diag[i] = r;
                sim->diag[i].name = sim->diag[i].own;
                sim->ndiag++;
            }
        }
        sim->diag[i].count += add;
    }
}
