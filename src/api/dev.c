/* The stable host API (include/kohaku/api.h) over the machine and its card. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/hostmap.h"
#include "kohaku/api.h"
#include "kohaku/card.h"
#include "kohaku/ckpt.h"
#include "kohaku/machine.h"
#include "kohaku/node.h"
#include "kohaku/sim.h"
#include "kohaku/trace.h"

#define DEV_MSG_LEN 8192
#define DEV_STUCK_DEFAULT 8

struct kh_dev {
    kh_machine *m;
    unsigned host_map; /* the parameter host_map: the map the accesses use (hostmap.h) */
    kh_trace *trace;
    char msg[DEV_MSG_LEN];
    uint64_t accesses;
    /* the run of identical settled reads (kh_dev_set_stuck_reads) */
    unsigned stuck_limit, same;
    uint64_t last_addr, last_value;
    size_t last_n;
};

/* A new dev around machine m (taken over; freed on failure). */
static int dev_wrap(kh_dev **out, kh_machine *m, char *err, size_t errlen);

unsigned kh_api_version(void) { return (KH_API_MAJOR << 16) | KH_API_MINOR; }

const char *kh_status_name(int status)
{
    static const char *const names[] = {"KH_OK",      "KH_E_ARG",     "KH_E_MACHINE", "KH_E_ALIGN",
                                        "KH_E_PARTIAL", "KH_E_UNMAPPED", "KH_E_REFUSED", "KH_E_STUCK",
                                        "KH_E_BUSY",  "KH_E_IO",      "KH_E_NOMEM"};
    return status >= 0 && (size_t)status < sizeof names / sizeof names[0] ? names[status] : "unknown";
}

/* A NULL handle is refused, not followed (kh_dev_message(NULL) says so). */
#define DEV_NEED(d)                 \
    do {                            \
        if (!(d)) return KH_E_ARG;  \
    } while (0)

/* A buffer of n > 0 bytes that is NULL is refused, naming what it is for. */
static int need_buf(kh_dev *d, const void *p, size_t n, const char *what)
{
    if (p || !n) return KH_OK;
    snprintf(d->msg, sizeof d->msg, "%s: %zu bytes asked with no buffer (NULL)", what, n);
    return KH_E_ARG;
}

static int ok(kh_dev *d)
{
    d->msg[0] = 0;
    return KH_OK;
}

/* The card's refusals, classified by the rule the message names. */
static int card_status(const char *msg)
{
    if (strstr(msg, "not 8-byte aligned")) return KH_E_ALIGN;
    if (strstr(msg, "whole 64-bit words")) return KH_E_PARTIAL;
    if (strstr(msg, "unmapped")) return KH_E_UNMAPPED;
    return KH_E_REFUSED;
}

/* addr of an access of n bytes in the dev's host map, as kohaku's address
 * in *ka: 0, or the status with the message. */
static int map_addr(kh_dev *d, uint64_t addr, size_t n, uint64_t *ka)
{
    if (kh_hostmap_to_kohaku(d->host_map, kh_machine_nmeshes(d->m), addr, n, ka, d->msg, sizeof d->msg))
        return KH_E_UNMAPPED;
    return KH_OK;
}

/* The card refused an access at addr (kohaku's address ka): the status,
 * the message saying which map was asked when it is not kohaku's, and a
 * hint for an address upstream's board-less Card() uses. */
static int refused(kh_dev *d, uint64_t addr, uint64_t ka)
{
    int st = card_status(d->msg);
    if (ka != addr) {
        char m[DEV_MSG_LEN];
        int k = snprintf(m, sizeof m, "host address 0x%llx (host map noboard): ", (unsigned long long)addr);
        if (k > 0 && (size_t)k < sizeof m) {
            size_t room = sizeof m - (size_t)k;
            memcpy(m + k, d->msg, room - 1); /* the card's message, cut to fit */
            m[sizeof m - 1] = 0;
            memcpy(d->msg, m, sizeof d->msg);
        }
    } else if (st == KH_E_UNMAPPED) {
        kh_hostmap_hint(addr, d->msg, sizeof d->msg);
    }
    return st;
}

static int after_access(kh_dev *d)
{
    const char *e = kh_machine_error(d->m);
    if (e) {
        snprintf(d->msg, sizeof d->msg, "the machine refused an operation: %s", e);
        return KH_E_REFUSED;
    }
    return ok(d);
}

int kh_dev_open(kh_dev **out, const char *machine, const char *profile, const char *const *params,
                size_t nparams, char *err, size_t errlen)
{
    if (!out) {
        if (errlen) snprintf(err, errlen, "kh_dev_open: no place for the handle (out is NULL)");
        return KH_E_ARG;
    }
    *out = NULL;
    for (size_t i = 0; i < nparams; i++)
        if (!params || !params[i]) {
            if (errlen) snprintf(err, errlen, "kh_dev_open: parameter %zu of %zu is NULL", i, nparams);
            return KH_E_ARG;
        }
    if (!machine) machine = "default";
    kh_params p;
    kh_params_default(&p);
    kh_machine_spec *s = kh_machine_spec_load(machine, err, errlen);
    if (!s) return KH_E_MACHINE;
    /* the file's param lines, then the caller's profile and parameters */
    int rc = kh_machine_spec_params(s, &p, err, errlen);
    if (!rc && profile) rc = kh_params_profile(&p, profile, err, errlen);
    for (size_t i = 0; !rc && i < nparams; i++) rc = kh_params_set_assign(&p, params[i], err, errlen);
    kh_machine *m = rc ? NULL : kh_machine_build(s, &p, err, errlen);
    kh_machine_spec_free(s);
    if (!m) return KH_E_MACHINE;
    return dev_wrap(out, m, err, errlen);
}

static int dev_wrap(kh_dev **out, kh_machine *m, char *err, size_t errlen)
{
    kh_dev *d = calloc(1, sizeof *d);
    if (!d) {
        kh_machine_free(m);
        snprintf(err, errlen, "out of memory opening the machine");
        return KH_E_NOMEM;
    }
    d->m = m;
    d->host_map = (unsigned)kh_machine_params(m)->host_map;
    d->stuck_limit = DEV_STUCK_DEFAULT;
    *out = d;
    return KH_OK;
}

int kh_dev_save(kh_dev *d, const char *path)
{
    DEV_NEED(d);
    if (!path) {
        snprintf(d->msg, sizeof d->msg, "kh_dev_save: no path (NULL)");
        return KH_E_ARG;
    }
    uint8_t *b;
    size_t n;
    if (kh_machine_save_bytes(d->m, NULL, &b, &n, d->msg, sizeof d->msg)) return KH_E_REFUSED;
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.part", path) >= (int)sizeof tmp) {
        free(b);
        snprintf(d->msg, sizeof d->msg, "kh_dev_save: the path is too long");
        return KH_E_ARG;
    }
    FILE *f = fopen(tmp, "wb");
    int good = f && fwrite(b, 1, n, f) == n;
    if (f && fclose(f)) good = 0;
    free(b);
    if (!good || rename(tmp, path)) {
        remove(tmp);
        snprintf(d->msg, sizeof d->msg, "checkpoint %s: cannot write it", path);
        return KH_E_IO;
    }
    return ok(d);
}

int kh_dev_restore(kh_dev **out, const char *path, char *err, size_t errlen)
{
    if (!out) {
        if (errlen) snprintf(err, errlen, "kh_dev_restore: no place for the handle (out is NULL)");
        return KH_E_ARG;
    }
    *out = NULL;
    if (!path) {
        if (errlen) snprintf(err, errlen, "kh_dev_restore: no path (NULL)");
        return KH_E_ARG;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "checkpoint %s: cannot open it", path);
        return KH_E_IO;
    }
    fclose(f);
    kh_machine *m = kh_machine_restore(path, NULL, NULL, err, errlen);
    if (!m) return KH_E_MACHINE;
    return dev_wrap(out, m, err, errlen);
}

void kh_dev_close(kh_dev *d)
{
    if (!d) return;
    if (d->trace) kh_trace_json_close(d->trace, d->msg, sizeof d->msg);
    kh_machine_free(d->m);
    free(d);
}

const char *kh_dev_message(const kh_dev *d) { return d ? d->msg : "no machine (NULL)"; }

int kh_dev_set_stuck_reads(kh_dev *d, unsigned n)
{
    DEV_NEED(d);
    d->stuck_limit = n;
    d->same = 0;
    return ok(d);
}

int kh_dev_set_engine(kh_dev *d, const char *engine)
{
    DEV_NEED(d);
    kh_sim_engine_kind e;
    if (!engine || kh_sim_engine_parse(engine, &e)) {
        snprintf(d->msg, sizeof d->msg, "kh_dev_set_engine: '%.64s': want cycle or fast", engine ? engine : "(null)");
        return KH_E_ARG;
    }
    kh_sim_set_engine(kh_machine_sim(d->m), e);
    return ok(d);
}

/* Any access other than a repeat of the same read breaks the run. */
static void forget_reads(kh_dev *d) { d->same = 0; }

/* A read of (addr, n bytes) returned value: fail once it is the n-th
 * identical settled read in a row. */
static int judge_read(kh_dev *d, uint64_t addr, size_t n, uint64_t value)
{
    kh_card *card = kh_machine_card(d->m);
    if (!kh_card_read_settled(card)) {
        d->same = 0;
        return KH_OK;
    }
    if (d->same && d->last_addr == addr && d->last_n == n && d->last_value == value)
        d->same++;
    else
        d->same = 1;
    d->last_addr = addr;
    d->last_n = n;
    d->last_value = value;
    if (!d->stuck_limit || d->same < d->stuck_limit) return KH_OK;
    char what[96];
    kh_card_addr_name(card, addr, what, sizeof what);
    int used = snprintf(d->msg, sizeof d->msg,
                        "read of 0x%llx (%s) returned 0x%016llx %u times in a row with nothing pending in the "
                        "machine (cycle %llu): the value can never change without another host access\n",
                        (unsigned long long)addr, what, (unsigned long long)value, d->same,
                        (unsigned long long)kh_sim_now(kh_machine_sim(d->m)));
    if (used > 0 && (size_t)used < sizeof d->msg && kh_machine_diagnose(d->m, d->msg + used, sizeof d->msg - (size_t)used) == 0)
        snprintf(d->msg + used, sizeof d->msg - (size_t)used, "nothing in the machine has work outstanding");
    size_t len = strlen(d->msg);
    if (len && d->msg[len - 1] == '\n') d->msg[len - 1] = 0;
    d->same = 0;
    return KH_E_STUCK;
}

int kh_dev_write64(kh_dev *d, uint64_t addr, uint64_t value)
{
    uint64_t ka;
    DEV_NEED(d);
    forget_reads(d);
    d->accesses++;
    if (map_addr(d, addr, 8, &ka)) return KH_E_UNMAPPED;
    if (kh_card_write64(kh_machine_card(d->m), ka, value, d->msg, sizeof d->msg)) return refused(d, addr, ka);
    return after_access(d);
}

int kh_dev_read64(kh_dev *d, uint64_t addr, uint64_t *value)
{
    DEV_NEED(d);
    if (need_buf(d, value, sizeof *value, "kh_dev_read64")) return KH_E_ARG;
    d->accesses++;
    uint64_t ka;
    if (map_addr(d, addr, 8, &ka)) {
        forget_reads(d);
        return KH_E_UNMAPPED;
    }
    if (kh_card_read64(kh_machine_card(d->m), ka, value, d->msg, sizeof d->msg)) {
        forget_reads(d);
        return refused(d, addr, ka);
    }
    int rc = after_access(d);
    return rc ? rc : judge_read(d, addr, 8, *value);
}

int kh_dev_write_block(kh_dev *d, uint64_t addr, const void *bytes, size_t n)
{
    DEV_NEED(d);
    if (need_buf(d, bytes, n, "kh_dev_write_block")) return KH_E_ARG;
    forget_reads(d);
    d->accesses++;
    uint64_t ka;
    if (n && map_addr(d, addr, n, &ka)) return KH_E_UNMAPPED;
    if (!n) ka = addr;
    if (kh_card_write_block(kh_machine_card(d->m), ka, bytes, n, d->msg, sizeof d->msg)) return refused(d, addr, ka);
    return after_access(d);
}

int kh_dev_read_block(kh_dev *d, uint64_t addr, void *bytes, size_t n)
{
    DEV_NEED(d);
    if (need_buf(d, bytes, n, "kh_dev_read_block")) return KH_E_ARG;
    d->accesses++;
    uint64_t ka = addr;
    if (n && map_addr(d, addr, n, &ka)) {
        forget_reads(d);
        return KH_E_UNMAPPED;
    }
    if (kh_card_read_block(kh_machine_card(d->m), ka, bytes, n, d->msg, sizeof d->msg)) {
        forget_reads(d);
        return refused(d, addr, ka);
    }
    int rc = after_access(d);
    return rc ? rc : judge_read(d, addr, n, kh_fnv64(KH_FNV_INIT, bytes, n));
}

int kh_dev_run(kh_dev *d, uint64_t cycles)
{
    DEV_NEED(d);
    kh_sim *sim = kh_machine_sim(d->m);
    uint64_t now = kh_sim_now(sim);
    if (cycles > KH_CLOCK_END - now) {
        snprintf(d->msg, sizeof d->msg,
                 "run %llu cycles: at cycle %llu the clock would pass its end, cycle 2^62 (kohaku/sim.h)",
                 (unsigned long long)cycles, (unsigned long long)now);
        return KH_E_ARG;
    }
    forget_reads(d);
    kh_sim_run(sim, cycles);
    return after_access(d);
}

int kh_dev_idle(kh_dev *d, uint64_t limit)
{
    DEV_NEED(d);
    forget_reads(d);
    kh_sim *sim = kh_machine_sim(d->m);
    if (!kh_sim_run_until_idle(sim, limit)) {
        int used = snprintf(d->msg, sizeof d->msg, "idle: the machine was still busy after %llu cycles (cycle %llu):\n",
                            (unsigned long long)limit, (unsigned long long)kh_sim_now(sim));
        if (used > 0 && (size_t)used < sizeof d->msg) kh_machine_diagnose(d->m, d->msg + used, sizeof d->msg - (size_t)used);
        return KH_E_BUSY;
    }
    return after_access(d);
}

uint64_t kh_dev_cycles(const kh_dev *d) { return d ? kh_sim_now(kh_machine_sim(d->m)) : 0; }
uint64_t kh_dev_accesses(const kh_dev *d) { return d ? d->accesses : 0; }

int kh_dev_trace(kh_dev *d, const char *path)
{
    DEV_NEED(d);
    kh_sim *sim = kh_machine_sim(d->m);
    if (d->trace) {
        int rc = kh_trace_json_close(d->trace, d->msg, sizeof d->msg);
        d->trace = NULL;
        if (rc) return KH_E_IO;
    }
    if (!path) return ok(d);
    d->trace = kh_trace_json_open(sim, path, d->msg, sizeof d->msg);
    if (!d->trace) return KH_E_IO;
    kh_sim_set_trace(sim, d->trace);
    return ok(d);
}

int kh_dev_stats(kh_dev *d, char *buf, size_t len, size_t *need)
{
    DEV_NEED(d);
    if (need_buf(d, buf, len, "kh_dev_stats")) return KH_E_ARG;
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) {
        snprintf(d->msg, sizeof d->msg, "out of memory writing the statistics");
        return KH_E_NOMEM;
    }
    kh_stats_fprint_json(kh_machine_sim(d->m), f);
    fclose(f);
    while (n && (text[n - 1] == '\n')) text[--n] = 0;
    if (need) *need = n;
    if (len) snprintf(buf, len, "%s", text);
    free(text);
    return ok(d);
}

int kh_dev_diagnose(kh_dev *d, char *buf, size_t len)
{
    DEV_NEED(d);
    if (need_buf(d, buf, len, "kh_dev_diagnose")) return KH_E_ARG;
    if (len) buf[0] = 0;
    kh_machine_diagnose(d->m, buf, len);
    return ok(d);
}

/* The backdoor reaches the populated DRAM only: past it the NoC's
 * address would alias (memory.md §7) or name another mesh. */
static int dram_check(kh_dev *d, unsigned mesh, uint64_t offset, const void *bytes, size_t n, kh_node **node)
{
    if (need_buf(d, bytes, n, "DRAM backdoor")) return KH_E_ARG;
    unsigned log2 = kh_machine_params(d->m)->dram_words_log2;
    uint64_t size = UINT64_C(32) << log2;
    if (offset > size || n > size - offset) {
        snprintf(d->msg, sizeof d->msg,
                 "mesh %u DRAM: %zu bytes at offset 0x%llx run past its populated 0x%llx bytes (dram_words_log2 %u)",
                 mesh, n, (unsigned long long)offset, (unsigned long long)size, log2);
        return KH_E_UNMAPPED;
    }
    *node = kh_machine_node_at(d->m, mesh);
    if (!*node) {
        snprintf(d->msg, sizeof d->msg, "mesh %u is not a mesh of this machine (0..%u)", mesh,
                 kh_machine_nmeshes(d->m) - 1);
        return KH_E_ARG;
    }
    return KH_OK;
}

/* The node's inside address of mesh's DRAM at offset (memory.md §1.2). */
static uint64_t dram_inside(unsigned mesh, uint64_t offset)
{
    return kh_host_dram(mesh, offset) & ((UINT64_C(1) << KH_HOST_MEM_SHIFT) - 1);
}

int kh_dev_dram_read(kh_dev *d, unsigned mesh, uint64_t offset, void *bytes, size_t n)
{
    kh_node *node;
    DEV_NEED(d);
    int rc = dram_check(d, mesh, offset, bytes, n, &node);
    if (rc) return rc;
    if (kh_node_host_read(node, dram_inside(mesh, offset), bytes, n, d->msg, sizeof d->msg)) return KH_E_UNMAPPED;
    return ok(d);
}

int kh_dev_dram_write(kh_dev *d, unsigned mesh, uint64_t offset, const void *bytes, size_t n)
{
    kh_node *node;
    DEV_NEED(d);
    int rc = dram_check(d, mesh, offset, bytes, n, &node);
    if (rc) return rc;
    forget_reads(d);
    if (kh_node_host_write(node, dram_inside(mesh, offset), bytes, n, d->msg, sizeof d->msg)) return KH_E_UNMAPPED;
    return ok(d);
}

unsigned kh_dev_meshes(const kh_dev *d) { return d ? kh_machine_nmeshes(d->m) : 0; }

unsigned kh_dev_diag_count(const kh_dev *d) { return d ? kh_sim_ndiag(kh_machine_sim(d->m)) : 0; }

int kh_dev_diag(kh_dev *d, unsigned i, const char **name, uint64_t *count, const char **message)
{
    DEV_NEED(d);
    uint64_t n = 0;
    const char *msg = NULL, *nm = kh_sim_diag_at(kh_machine_sim(d->m), i, &n, &msg);
    if (!nm) {
        snprintf(d->msg, sizeof d->msg, "diagnostic %u: this machine has %u", i, kh_dev_diag_count(d));
        return KH_E_ARG;
    }
    if (name) *name = nm;
    if (count) *count = n;
    if (message) *message = msg;
    return ok(d);
}

int kh_dev_param(const kh_dev *d, const char *name, uint64_t *value)
{
    if (!d || !name || !value) return KH_E_ARG;
    const kh_params *p = kh_machine_params(d->m);
    for (size_t i = 0;; i++) {
        const kh_param_info *row = kh_params_row(i);
        if (!row) return KH_E_ARG;
        if (!strcmp(row->name, name)) {
            *value = kh_param_get(p, row);
            return KH_OK;
        }
    }
}
