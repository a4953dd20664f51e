/* Running a parsed host session against a machine (docs/session.md). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/session_int.h"
#include "kohaku/bits.h"
#include "kohaku/card.h"
#include "kohaku/hex.h"
#include "kohaku/rv32.h"
#include "kohaku/rv64.h"

#define DIAG_LEN 8192

/* A failed check (returns 1) and a refused access (returns -1), both
 * prefixed with the session name and the line. */
static int say(char *err, size_t errlen, const kh_session *s, const sess_cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int say(char *err, size_t errlen, const kh_session *s, const sess_cmd *c, const char *fmt, ...)
{
    int n = snprintf(err, errlen, "%s:%u: ", s->name, c->line);
    if (n < 0 || (size_t)n >= errlen) return 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return 1;
}

static int refused(char *err, size_t errlen, const kh_session *s, const sess_cmd *c, const char *msg)
{
    say(err, errlen, s, c, "%s", msg);
    return -1;
}

/* Append the machine's own account of why it is not progressing. */
static void append_diagnosis(kh_machine *m, char *err, size_t errlen)
{
    size_t used = strlen(err);
    char *diag = malloc(DIAG_LEN);
    if (!diag) return;
    if (kh_machine_diagnose(m, diag, DIAG_LEN) == 0)
        snprintf(diag, DIAG_LEN, "nothing in the machine has work outstanding: the value will not change without "
                                 "another host access\n");
    snprintf(err + used, errlen - used, "\n%s", diag);
    used = strlen(err);
    if (used && err[used - 1] == '\n') err[used - 1] = 0;
    free(diag);
}

static int masked_eq(uint64_t v, uint64_t want, uint64_t mask) { return (v & mask) == (want & mask); }

static void fmt_mask(char *buf, size_t len, uint64_t mask)
{
    if (mask == ~UINT64_C(0))
        buf[0] = 0;
    else
        snprintf(buf, len, " under mask 0x%016llx", (unsigned long long)mask);
}

static int do_poll(const kh_session *s, const sess_cmd *c, kh_machine *m, char *err, size_t errlen)
{
    kh_card *card = kh_machine_card(m);
    kh_sim *sim = kh_machine_sim(m);
    kh_cycle start = kh_sim_now(sim);
    char m1[64]; /* the mask as the messages say it, formatted only for one */
    for (;;) {
        uint64_t v;
        char e2[512];
        if (kh_card_read64(card, c->addr, &v, e2, sizeof e2)) return refused(err, errlen, s, c, e2);
        if (masked_eq(v, c->value, c->mask)) return 0;
        kh_cycle now = kh_sim_now(sim);
        /* Exact: the value was sampled with nothing pending, so it can never
         * change. (Idle now is not enough: the read's own link time may
         * have run the machine to idle after the value was taken.) */
        if (kh_card_read_settled(card)) {
            fmt_mask(m1, sizeof m1, c->mask);
            say(err, errlen, s, c,
                "poll 0x%llx: expected 0x%016llx%s, got 0x%016llx; the machine stopped making progress at "
                "cycle %llu (waited %llu cycles):",
                (unsigned long long)c->addr, (unsigned long long)c->value, m1, (unsigned long long)v,
                (unsigned long long)now, (unsigned long long)(now - start));
            append_diagnosis(m, err, errlen);
            return 1;
        }
        if (now - start >= c->limit) {
            fmt_mask(m1, sizeof m1, c->mask);
            say(err, errlen, s, c,
                "poll 0x%llx: expected 0x%016llx%s, got 0x%016llx after the limit of %llu cycles (cycle %llu); "
                "work still outstanding:",
                (unsigned long long)c->addr, (unsigned long long)c->value, m1, (unsigned long long)v,
                (unsigned long long)c->limit, (unsigned long long)now);
            append_diagnosis(m, err, errlen);
            return 1;
        }
        /* The next read of the same address lets the machine run through
         * its next event when host accesses cost nothing (card.h). */
    }
}

/* The c->n bytes at c->addr in a new buffer, or NULL with err set. */
static uint8_t *read_operand(const kh_session *s, const sess_cmd *c, kh_machine *m, char *err, size_t errlen)
{
    uint8_t *b = malloc(c->n);
    char e2[512];
    if (!b) {
        refused(err, errlen, s, c, "out of memory");
        return NULL;
    }
    if (kh_card_read_block(kh_machine_card(m), c->addr, b, c->n, e2, sizeof e2)) {
        free(b);
        refused(err, errlen, s, c, e2);
        return NULL;
    }
    return b;
}

static int do_compare(const kh_session *s, const sess_cmd *c, kh_machine *m, char *err, size_t errlen)
{
    uint8_t *got = read_operand(s, c, m, err, errlen);
    if (!got) return -1;
    for (size_t k = 0; k < c->n; k += 8) {
        if (memcmp(got + k, c->bytes + k, 8)) {
            uint64_t want, have;
            kh_words_from_bytes(&want, 1, c->bytes + k);
            kh_words_from_bytes(&have, 1, got + k);
            free(got);
            return say(err, errlen, s, c,
                       "compare 0x%llx: word %zu at 0x%llx: expected 0x%016llx, got 0x%016llx",
                       (unsigned long long)c->addr, k / 8, (unsigned long long)(c->addr + k),
                       (unsigned long long)want, (unsigned long long)have);
        }
    }
    free(got);
    return 0;
}

static int do_dump(const kh_session *s, const sess_cmd *c, kh_machine *m, FILE *out, char *err, size_t errlen)
{
    uint8_t *b = read_operand(s, c, m, err, errlen);
    if (!b) return -1;
    /* 32 bytes a line, in address order, as the vector files' "bytes". */
    for (size_t k = 0; k < c->n; k += 32) {
        size_t len = c->n - k < 32 ? c->n - k : 32;
        char hex[65];
        kh_hex_bytes_format(b + k, len, hex);
        fprintf(out, "0x%llx: %s\n", (unsigned long long)(c->addr + k), hex);
    }
    free(b);
    return 0;
}

static int run_one(const kh_session *s, const sess_cmd *c, kh_machine *m, FILE *out, char *err, size_t errlen,
                   unsigned next)
{
    kh_card *card = kh_machine_card(m);
    kh_sim *sim = kh_machine_sim(m);
    char e2[512];
    uint64_t v;
    switch (c->op) {
    case SESS_WRITE:
        if (kh_card_write64(card, c->addr, c->value, e2, sizeof e2)) return refused(err, errlen, s, c, e2);
        return 0;
    case SESS_READ:
        if (kh_card_read64(card, c->addr, &v, e2, sizeof e2)) return refused(err, errlen, s, c, e2);
        if (!c->has_value) {
            fprintf(out, "0x%llx = 0x%016llx\n", (unsigned long long)c->addr, (unsigned long long)v);
            return 0;
        }
        if (!masked_eq(v, c->value, c->mask)) {
            char m1[64];
            fmt_mask(m1, sizeof m1, c->mask);
            return say(err, errlen, s, c, "read 0x%llx: expected 0x%016llx%s, got 0x%016llx (cycle %llu)",
                       (unsigned long long)c->addr, (unsigned long long)c->value, m1, (unsigned long long)v,
                       (unsigned long long)kh_sim_now(sim));
        }
        return 0;
    case SESS_POLL: return do_poll(s, c, m, err, errlen);
    case SESS_UPLOAD:
        if (kh_card_write_block(card, c->addr, c->bytes, c->n, e2, sizeof e2))
            return refused(err, errlen, s, c, e2);
        return 0;
    case SESS_COMPARE: return do_compare(s, c, m, err, errlen);
    case SESS_DUMP: return do_dump(s, c, m, out, err, errlen);
    case SESS_RUN:
        if (c->value > SESS_CLOCK_MAX - kh_sim_now(sim))
            return refused(err, errlen, s, c, "run: the clock would pass the session clock's end, cycle 2^62 "
                                              "(docs/session.md)");
        kh_sim_run(sim, c->value);
        return 0;
    case SESS_CPU:
        if (kh_rv32_host_load(card, c->mesh, (const kh_rv32_image *)(const void *)c->bytes, (uint32_t)c->value,
                              (unsigned)c->addr, (unsigned)c->has_value, e2, sizeof e2))
            return refused(err, errlen, s, c, e2);
        return 0;
    case SESS_CPU64: {
        kh_rv64_elf elf;
        if (kh_rv64_elf_read((const char *)c->bytes, &elf, e2, sizeof e2)) return refused(err, errlen, s, c, e2);
        int rc = kh_rv64_node_start(m, c->mesh, &elf, e2, sizeof e2);
        kh_rv64_elf_free(&elf);
        return rc ? refused(err, errlen, s, c, e2) : 0;
    }
    case SESS_SAVE: {
        kh_ckpt_info info;
        memset(&info, 0, sizeof info);
        info.session_cmd = next;
        info.session_line = c->line;
        snprintf(info.session_name, sizeof info.session_name, "%s", s->name);
        char e3[1400];
        if (kh_machine_save(m, (const char *)c->bytes, &info, e3, sizeof e3)) return refused(err, errlen, s, c, e3);
        return 0;
    }
    case SESS_IDLE:
        if (!kh_sim_run_until_idle(sim, c->limit)) {
            say(err, errlen, s, c, "idle: the machine was still busy after %llu cycles (cycle %llu):",
                (unsigned long long)c->limit, (unsigned long long)kh_sim_now(sim));
            append_diagnosis(m, err, errlen);
            return 1;
        }
        /* Nothing is scheduled, yet a request that is never answered (an
         * aperture address nothing claims, memory.md §7) leaves its
         * requester waiting: not the idle the session asked for. */
        if (kh_machine_diagnose(m, e2, sizeof e2) > 0) {
            say(err, errlen, s, c, "idle: nothing runs at cycle %llu, but work will never finish:",
                (unsigned long long)kh_sim_now(sim));
            append_diagnosis(m, err, errlen);
            return 1;
        }
        return 0;
    }
    return 0;
}

/* What only the machine can tell, checked before the first cycle runs. */
static int preflight(const kh_session *s, kh_machine *m, char *err, size_t errlen)
{
    unsigned meshes = kh_machine_nmeshes(m);
    if (s->top_mesh > meshes) {
        snprintf(err, errlen, "%s:%u: mesh %u: this machine has %u mesh%s (0..%u)", s->name, s->top_mesh_line,
                 s->top_mesh - 1, meshes, meshes == 1 ? "" : "es", meshes - 1);
        return -1;
    }
    uint64_t slots = kh_sim_params(kh_machine_sim(m))->stage_flits;
    /* the stored commands: one with a staging slot is never shared, so its
     * line is its own and the first in order is the first in the session */
    for (unsigned i = 0; i < s->ncmd; i++) {
        const sess_cmd *c = &s->cmd[i];
        if (c->stage_slot >= 0 && (uint64_t)c->stage_slot >= slots) {
            char msg[200];
            snprintf(msg, sizeof msg, "stage %d: the staging RAM has slots 0..%llu (stage_flits = %llu, "
                     "control.md §2.3); a write past it lands nowhere", c->stage_slot,
                     (unsigned long long)slots - 1, (unsigned long long)slots);
            return refused(err, errlen, s, c, msg);
        }
    }
    return 0;
}

int kh_session_run(kh_session *s, kh_machine *m, FILE *out, char *err, size_t errlen)
{
    return kh_session_run_from(s, m, NULL, out, err, errlen);
}

int kh_session_run_from(kh_session *s, kh_machine *m, const kh_ckpt_info *from, FILE *out, char *err,
                        size_t errlen)
{
    if (preflight(s, m, err, errlen)) return -1;
    unsigned first = 0;
    if (from && from->session_line) {
        /* resume after the save line the checkpoint was taken at */
        unsigned k = from->session_cmd;
        if (k == 0 || k > s->nref || sess_at(s, k - 1)->op != SESS_SAVE || s->ref[k - 1].line != from->session_line) {
            snprintf(err, errlen, "%s: the checkpoint was taken at the save line %s:%u (command %u), which this "
                     "session does not have there: resume it with the session that saved it", s->name,
                     from->session_name, from->session_line, k);
            return -1;
        }
        first = k;
    }
    for (unsigned i = first; i < s->nref; i++) {
        sess_cmd c = *sess_at(s, i);
        c.line = s->ref[i].line; /* a stored command may run from several lines */
        int rc = run_one(s, &c, m, out, err, errlen, i + 1);
        if (rc) return rc;
        const char *merr = kh_machine_error(m);
        if (merr) {
            say(err, errlen, s, &c, "the machine refused an operation: %s", merr);
            return 1;
        }
    }
    return 0;
}
