/* Parsing host sessions (docs/session.md): lines, symbolic addresses and
 * values, data operands. Running them is session_run.c. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/session_int.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kohaku/card.h"
#include "kohaku/echo.h"
#include "kohaku/file.h"
#include "kohaku/gen/flit.h"
#include "kohaku/gen/regs.h"
#include "kohaku/hex.h"
#include "kohaku/rv64.h"
#include "kohaku/orch.h"
#include "kohaku/rv32.h"

#define MAX_TOKENS 64

/* Values of named expressions evaluated before (a session repeats the same
 * few, e.g. `PROG_KICK`, thousands of times): direct-mapped, fixed size. */
#define EXPR_CACHE 256
#define EXPR_CACHE_TEXT 32
typedef struct expr_cached {
    char text[EXPR_CACHE_TEXT]; /* "" = empty slot */
    unsigned mesh;              /* names depend on the `mesh N` in force */
    uint64_t value;
} expr_cached;

/* Lines read before that gave one command of their own (a session repeats
 * the same few lines thousands of times): the same text with the same mesh
 * in force is the same command (its parse reads nothing else), run again
 * from a new line. Direct-mapped, fixed size; the text is the session's. */
#define LINE_CACHE_BITS 7
typedef struct line_seen {
    const char *text; /* NULL = empty slot */
    size_t len;
    unsigned mesh, cmd;
} line_seen;

/* Parsing state of one session text. */
typedef struct sess_parse {
    kh_session *s;
    const char *base_dir;
    unsigned line;
    unsigned mesh; /* `mesh N`: the mesh symbolic names refer to */
    char *err;
    size_t errlen;
    expr_cached cache[EXPR_CACHE];
    line_seen lines[1u << LINE_CACHE_BITS];
} sess_parse;

static int fail(sess_parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(sess_parse *p, const char *fmt, ...)
{
    int n = snprintf(p->err, p->errlen, "%s:%u: ", p->s->name, p->line);
    if (n < 0 || (size_t)n >= p->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- symbolic names --------------------------------------------------- */

/* Functions: NAME(args). Each computes a host address (or a value). */
typedef int (*sess_fn)(sess_parse *p, const uint64_t *a, uint64_t *out);

static int fn_range(sess_parse *p, const char *name, uint64_t v, uint64_t max)
{
    if (v > max) return fail(p, "%s: argument %llu is out of range 0..%llu", name, (unsigned long long)v,
                             (unsigned long long)max);
    return 0;
}

static int f_node_status(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "NODE_STATUS", a[0], 15) || fn_range(p, "NODE_STATUS", a[1], 15)) return -1;
    uint64_t off = 0;
    kh_orch_node_status_addr_set_window(&off, KH_ORCH_NODE_STATUS_ADDR_WINDOW_MIRROR);
    kh_orch_node_status_addr_set_idx(&off, kh_orch_node_index((unsigned)a[0], (unsigned)a[1]));
    *out = kh_host_ctrl(p->mesh, (uint32_t)off);
    return 0;
}
static int f_xy(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "XY", a[0], 15) || fn_range(p, "XY", a[1], 15)) return -1;
    *out = kh_orch_node_index((unsigned)a[0], (unsigned)a[1]);
    return 0;
}
static int f_stage(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "STAGE", a[0], 1637)) return -1;
    *out = kh_host_ctrl(p->mesh, (uint32_t)(KH_ORCH_STAGE + 40 * a[0]));
    return 0;
}
static int f_tx_flit(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "TX_FLIT", a[0], 4)) return -1;
    *out = kh_host_ctrl(p->mesh, (uint32_t)(KH_ORCH_TX_FLIT + 8 * a[0]));
    return 0;
}
static int f_rx_flit(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "RX_FLIT", a[0], 4)) return -1;
    *out = kh_host_ctrl(p->mesh, (uint32_t)(KH_ORCH_RX_FLIT + 8 * a[0]));
    return 0;
}
static int f_aux_statw(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "AUX_STATW", a[0], 15)) return -1;
    *out = kh_host_ctrl(p->mesh, (uint32_t)(KH_ORCH_AUX_STATW + 8 * a[0]));
    return 0;
}
static int f_aux_cfg(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "AUX_CFG", a[0], 0xF8)) return -1;
    *out = kh_host_ctrl(p->mesh, (uint32_t)(KH_ORCH_AUX_CFG + a[0]));
    return 0;
}
static int f_cmd(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "CMD", a[0], 127) || fn_range(p, "CMD", a[1], 3)) return -1;
    uint64_t off = 0;
    kh_eng_cmd_addr_set_window(&off, KH_ENG_CMD_ADDR_WINDOW_CMD);
    kh_eng_cmd_addr_set_cmd(&off, a[0]);
    kh_eng_cmd_addr_set_word(&off, a[1]);
    *out = KH_HOST_CMD_BASE + off;
    return 0;
}
static int f_ctrl_win(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "CTRL_WIN", a[0], KH_HOST_MESHES - 1)) return -1;
    *out = kh_host_ctrl((unsigned)a[0], 0);
    return 0;
}
static int f_dram(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "DRAM", a[0], (UINT64_C(1) << 36) - 1)) return -1;
    *out = kh_host_dram(p->mesh, a[0]);
    return 0;
}
static int f_staging(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "STAGING", a[0], (UINT64_C(1) << 32) - 1)) return -1;
    *out = kh_host_staging(p->mesh, a[0]);
    return 0;
}
static int f_mem_win(sess_parse *p, const uint64_t *a, uint64_t *out)
{
    if (fn_range(p, "MEM_WIN", a[0], KH_HOST_MESHES - 1)) return -1;
    *out = (a[0] + 1) << KH_HOST_MEM_SHIFT;
    return 0;
}

static const struct {
    const char *name;
    unsigned nargs;
    sess_fn fn;
} functions[] = {
    {"NODE_STATUS", 2, f_node_status}, {"XY", 2, f_xy},           {"STAGE", 1, f_stage},
    {"TX_FLIT", 1, f_tx_flit},         {"RX_FLIT", 1, f_rx_flit}, {"AUX_STATW", 1, f_aux_statw},
    {"AUX_CFG", 1, f_aux_cfg},         {"CMD", 2, f_cmd},         {"CTRL_WIN", 1, f_ctrl_win},
    {"DRAM", 1, f_dram},               {"STAGING", 1, f_staging}, {"MEM_WIN", 1, f_mem_win},
};

/* ---- expressions: TERM {(+|-|*) TERM}, no blanks inside --------------- */

typedef struct expr {
    sess_parse *p;
    const char *s, *at, *whole;
} expr;

static int expr_sum(expr *e, uint64_t *out);

static int expr_fail(expr *e, const char *what)
{
    kh_echo_buf b1, b2;
    return fail(e->p, "bad expression '%s': %s at '%s'", kh_echo(e->whole, &b1), what,
                *e->at ? kh_echo(e->at, &b2) : "(end)");
}

static int expr_number(expr *e, uint64_t *out)
{
    const char *s = e->at;
    int base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    uint64_t v = 0;
    int digits = 0;
    for (;; s++) {
        int d;
        if (*s == '_') continue;
        if (*s >= '0' && *s <= '9')
            d = *s - '0';
        else if (base == 16 && isxdigit((unsigned char)*s))
            d = tolower((unsigned char)*s) - 'a' + 10;
        else
            break;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return expr_fail(e, "number does not fit 64 bits");
        v = v * (uint64_t)base + (uint64_t)d;
        digits++;
    }
    if (!digits) return expr_fail(e, "expected a number");
    if (isalnum((unsigned char)*s)) return expr_fail(e, "bad digit");
    e->at = s;
    *out = v;
    return 0;
}

static int expr_term(expr *e, uint64_t *out)
{
    if (*e->at == '(') {
        e->at++;
        if (expr_sum(e, out)) return -1;
        if (*e->at != ')') return expr_fail(e, "expected ')'");
        e->at++;
        return 0;
    }
    if (isdigit((unsigned char)*e->at)) return expr_number(e, out);
    if (!isalpha((unsigned char)*e->at)) return expr_fail(e, "expected a number, a name or '('");
    char name[32];
    size_t n = 0;
    while (isalnum((unsigned char)e->at[n]) || e->at[n] == '_') n++;
    if (n >= sizeof name) return expr_fail(e, "name too long");
    memcpy(name, e->at, n);
    name[n] = 0;
    e->at += n;
    if (*e->at != '(') {
        size_t nr;
        const kh_card_reg *r = kh_card_orch_regs(&nr);
        for (size_t i = 0; i < nr; i++) /* the first letter before the whole name: most differ there */
            if (r[i].name[0] == name[0] && !strcmp(name, r[i].name)) {
                *out = kh_host_ctrl(e->p->mesh, r[i].off);
                return 0;
            }
        r = kh_card_engine_regs(&nr);
        for (size_t i = 0; i < nr; i++)
            if (r[i].name[0] == name[0] && !strcmp(name, r[i].name)) {
                *out = KH_HOST_CMD_BASE + r[i].off;
                return 0;
            }
        kh_echo_buf b;
        return fail(e->p, "bad expression '%s': unknown name '%s' (docs/session.md lists the names)",
                    kh_echo(e->whole, &b), name);
    }
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        if (strcmp(name, functions[i].name)) continue;
        uint64_t a[4] = {0};
        e->at++; /* '(' */
        for (unsigned k = 0; k < functions[i].nargs; k++) {
            if (k && *e->at != ',') {
                char what[96];
                snprintf(what, sizeof what, "%.32s takes %u argument(s); expected ','", name, functions[i].nargs);
                return expr_fail(e, what);
            }
            if (k) e->at++;
            if (expr_sum(e, &a[k])) return -1;
        }
        if (*e->at != ')') {
            char what[96];
            snprintf(what, sizeof what, "%.32s takes %u argument(s); expected ')'", name, functions[i].nargs);
            return expr_fail(e, what);
        }
        e->at++;
        return functions[i].fn(e->p, a, out);
    }
    kh_echo_buf b;
    return fail(e->p, "bad expression '%s': unknown function '%s' (docs/session.md lists the names)",
                kh_echo(e->whole, &b), name);
}

static int expr_product(expr *e, uint64_t *out)
{
    if (expr_term(e, out)) return -1;
    while (*e->at == '*') {
        uint64_t r;
        e->at++;
        if (expr_term(e, &r)) return -1;
        if (r && *out > UINT64_MAX / r) return expr_fail(e, "the product does not fit 64 bits");
        *out *= r;
    }
    return 0;
}

static int expr_sum(expr *e, uint64_t *out)
{
    if (expr_product(e, out)) return -1;
    while (*e->at == '+' || *e->at == '-') {
        char op = *e->at++;
        uint64_t r;
        if (expr_product(e, &r)) return -1;
        if (op == '+' && r > UINT64_MAX - *out) return expr_fail(e, "the sum does not fit 64 bits");
        if (op == '-' && r > *out) return expr_fail(e, "the difference is below 0 (values are unsigned)");
        *out = op == '+' ? *out + r : *out - r;
    }
    return 0;
}

static int eval(sess_parse *p, const char *tok, uint64_t *out)
{
    /* Only expressions with a name are worth a look-up; a failed one is
     * never stored, so its message comes again. */
    expr_cached *slot = NULL;
    if (isalpha((unsigned char)tok[0])) {
        uint32_t h = 2166136261u;
        size_t n = 0;
        for (; tok[n] && n < EXPR_CACHE_TEXT; n++) h = (h ^ (unsigned char)tok[n]) * 16777619u;
        if (n < EXPR_CACHE_TEXT) {
            slot = &p->cache[(h ^ p->mesh) % EXPR_CACHE];
            if (slot->mesh == p->mesh && !memcmp(slot->text, tok, n + 1)) {
                *out = slot->value;
                return 0;
            }
        }
    }
    expr e = {.p = p, .s = tok, .at = tok, .whole = tok};
    if (expr_sum(&e, out)) return -1;
    if (*e.at) return expr_fail(&e, "unexpected character");
    if (slot) {
        strcpy(slot->text, tok); /* shorter than EXPR_CACHE_TEXT: checked above */
        slot->mesh = p->mesh;
        slot->value = *out;
    }
    return 0;
}

/* ---- data operands: `hex HEX...` or `file PATH` ----------------------- */

static int read_file(sess_parse *p, const char *path, uint8_t **out, size_t *n)
{
    char full[1024];
    if (path[0] != '/' && p->base_dir && p->base_dir[0])
        snprintf(full, sizeof full, "%s/%s", p->base_dir, path);
    else
        snprintf(full, sizeof full, "%s", path);
    /* A device or a pipe could feed bytes without end: only a regular file,
     * at most the size a dump may read back. */
    struct stat st;
    kh_echo_buf eb;
    if (stat(full, &st) == 0 && !S_ISREG(st.st_mode))
        return fail(p, "file '%s' is not a regular file (a data operand is read whole)", kh_echo(full, &eb));
    if (stat(full, &st) == 0 && (uint64_t)st.st_size > SESS_DATA_MAX)
        return fail(p, "file '%s' has %llu bytes; a data operand holds at most %llu (16 MiB)", kh_echo(full, &eb),
                    (unsigned long long)st.st_size, (unsigned long long)SESS_DATA_MAX);
    char e2[512];
    size_t len;
    uint8_t *b = (uint8_t *)kh_file_read(full, &len, e2, sizeof e2);
    if (!b) return fail(p, "%s", e2);
    if (len > SESS_DATA_MAX) { /* grew after the stat */
        free(b);
        return fail(p, "file '%s' has more than %llu bytes (16 MiB)", kh_echo(full, &eb),
                    (unsigned long long)SESS_DATA_MAX);
    }
    *out = b;
    *n = len;
    return 0;
}

static int data_operand(sess_parse *p, char **tok, int ntok, uint8_t **out, size_t *n)
{
    if (ntok < 2) return fail(p, "expected 'hex HEX...' or 'file PATH' after the address");
    if (!strcmp(tok[0], "file")) {
        if (ntok != 2) return fail(p, "'file' takes exactly one path");
        if (read_file(p, tok[1], out, n)) return -1;
    } else if (!strcmp(tok[0], "hex")) {
        size_t digits = 0;
        for (int i = 1; i < ntok; i++) digits += strlen(tok[i]);
        if (digits > 2 * SESS_DATA_MAX)
            return fail(p, "hex data of %zu digits: a data operand holds at most %llu bytes (16 MiB)", digits,
                        (unsigned long long)SESS_DATA_MAX);
        char *all = malloc(digits + 1), *q = all;
        if (!all) return fail(p, "out of memory");
        for (int i = 1; i < ntok; i++)
            for (const char *c = tok[i]; *c; c++)
                if (*c != '_') *q++ = *c;
        *q = 0;
        size_t len = (size_t)(q - all);
        if (len % 2) {
            free(all);
            return fail(p, "hex data has %zu digits: two digits per byte, bytes in address order", len);
        }
        *n = len / 2;
        *out = malloc(*n ? *n : 1);
        char e2[160] = "out of memory";
        if (!*out || kh_hex_bytes_parse(all, *out, *n, e2, sizeof e2)) {
            free(all);
            free(*out);
            *out = NULL;
            return fail(p, "bad hex data: %s", e2);
        }
        free(all);
    } else {
        kh_echo_buf b;
        return fail(p, "expected 'hex' or 'file', got '%s'", kh_echo(tok[0], &b));
    }
    if (*n == 0 || *n % 8) {
        free(*out);
        *out = NULL;
        return fail(p, "block of %zu bytes: a block is a run of whole 64-bit words (control.md §9.3)", *n);
    }
    return 0;
}

/* ---- commands ---------------------------------------------------------- */

/* The session runs stored command `cmd` next, for the current line. */
static int add_ref(sess_parse *p, unsigned cmd)
{
    kh_session *s = p->s;
    if (s->nref == s->capref) {
        unsigned cap = s->capref ? 2 * s->capref : 32;
        sess_ref *nr = realloc(s->ref, cap * sizeof *nr);
        if (!nr) return fail(p, "out of memory");
        s->ref = nr;
        s->capref = cap;
    }
    s->ref[s->nref++] = (sess_ref){cmd, p->line};
    return 0;
}

static sess_cmd *add_cmd(sess_parse *p, sess_op op)
{
    kh_session *s = p->s;
    if (add_ref(p, s->ncmd)) return NULL;
    if (s->ncmd == s->cap) {
        unsigned cap = s->cap ? 2 * s->cap : 32;
        sess_cmd *nc = realloc(s->cmd, cap * sizeof *nc);
        if (!nc) {
            fail(p, "out of memory");
            return NULL;
        }
        s->cmd = nc;
        s->cap = cap;
    }
    sess_cmd *c = &s->cmd[s->ncmd++];
    memset(c, 0, sizeof *c);
    c->op = op;
    c->line = p->line;
    c->mask = ~UINT64_C(0);
    c->stage_slot = -1;
    return c;
}

static int add_write(sess_parse *p, uint64_t addr, uint64_t value)
{
    sess_cmd *c = add_cmd(p, SESS_WRITE);
    if (!c) return -1;
    c->addr = addr;
    c->value = value;
    return 0;
}

/* A word against a keyword, compared here: keywords are a few letters, and
 * strcmp cost a call for each one tried (every line tries a few). */
static inline int is_word(const char *w, const char *keyword)
{
    while (*keyword && *w == *keyword) w++, keyword++;
    return *w == *keyword;
}

/* Options after the fixed operands: `mask M`, `limit N`. */
static int options(sess_parse *p, sess_cmd *c, char **tok, int ntok, int allow_mask, int allow_limit)
{
    int seen_mask = 0, seen_limit = 0;
    for (int i = 0; i < ntok; i += 2) {
        int is_mask = is_word(tok[i], "mask"), is_limit = is_word(tok[i], "limit");
        kh_echo_buf b;
        if (!(is_mask && allow_mask) && !(is_limit && allow_limit))
            return fail(p, "unexpected '%s'%s", kh_echo(tok[i], &b),
                        allow_mask || allow_limit ? " (options here: mask M, limit CYCLES)" : "");
        if (i + 1 >= ntok) return fail(p, "'%s' needs a value", tok[i]);
        /* the same option twice is a mistake, not "the last one wins" */
        if (is_mask ? seen_mask++ : seen_limit++) return fail(p, "'%s' is given twice", tok[i]);
        if (eval(p, tok[i + 1], is_mask ? &c->mask : &c->limit)) return -1;
        if (is_limit && c->limit == 0) return fail(p, "limit 0: a poll needs at least one cycle");
        if (is_limit && c->limit > SESS_CLOCK_MAX)
            return fail(p, "limit %llu is past the session clock's end, cycle 2^62 (docs/session.md)",
                        (unsigned long long)c->limit);
    }
    return 0;
}

/* `stage SLOT [txn=V] [last=V] payload=HEX`: a CU_INST into a staging slot,
 * five words in the order of flits.md §8 (dst/src are stamped at dispatch). */
static int cmd_stage(sess_parse *p, char **tok, int ntok)
{
    uint64_t slot;
    if (ntok < 2) return fail(p, "usage: stage SLOT [txn=V] [last=0|1] payload=HEX64");
    if (eval(p, tok[1], &slot)) return -1;
    uint64_t base;
    uint64_t a[1] = {slot};
    if (f_stage(p, a, &base)) return -1;
    kh_flit f;
    kh_flit_clear(&f);
    kh_hdr_set_type(f.w, KH_T_CU_INST);
    int have_payload = 0, have_txn = 0, have_last = 0;
    for (int i = 2; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        kh_echo_buf b;
        if (!eq) return fail(p, "stage: expected field=value, got '%s'", kh_echo(tok[i], &b));
        *eq = 0;
        const char *v = eq + 1;
        uint64_t x;
        int *seen = !strcmp(tok[i], "payload") ? &have_payload
                    : !strcmp(tok[i], "txn")   ? &have_txn
                    : !strcmp(tok[i], "last")  ? &have_last
                                               : NULL;
        if (seen && *seen) return fail(p, "stage: %s is given twice", tok[i]);
        if (!strcmp(tok[i], "payload")) {
            uint64_t w[4];
            char e2[160];
            if (kh_hex_parse(v, w, 256, 1, e2, sizeof e2)) return fail(p, "stage payload: %s (64 hex digits)", e2);
            memcpy(f.w, w, sizeof w);
            have_payload = 1;
        } else if (!strcmp(tok[i], "txn")) {
            if (eval(p, v, &x)) return -1;
            if (x > 0xFF) return fail(p, "stage: txn=%llu does not fit 8 bits (flits.md §2)", (unsigned long long)x);
            kh_hdr_set_txn(f.w, x);
            have_txn = 1;
        } else if (!strcmp(tok[i], "last")) {
            if (eval(p, v, &x)) return -1;
            if (x > 1) return fail(p, "stage: last=%llu is not 0 or 1 (flits.md §2)", (unsigned long long)x);
            kh_hdr_set_last(f.w, x);
            have_last = 1;
        } else {
            return fail(p, "stage: unknown field '%s' (txn, last, payload)", kh_echo(tok[i], &b));
        }
    }
    if (!have_payload) return fail(p, "stage: payload=HEX64 is required");
    for (unsigned k = 0; k < KH_FLIT_WORDS; k++)
        if (add_write(p, base + 8 * k, f.w[k])) return -1;
    /* the machine's staging RAM size is known only when it runs */
    p->s->cmd[p->s->ncmd - KH_FLIT_WORDS].stage_slot = (int)slot;
    return 0;
}

/* `flit ADDR HEX72`: a whole flit (header first in the hex) as five words. */
static int cmd_flit(sess_parse *p, char **tok, int ntok)
{
    uint64_t addr;
    if (ntok != 3) return fail(p, "usage: flit ADDR HEX72");
    if (eval(p, tok[1], &addr)) return -1;
    kh_flit f;
    char e2[160];
    if (kh_hex_parse(tok[2], f.w, KH_FLIT_BITS, 1, e2, sizeof e2)) return fail(p, "flit: %s (72 hex digits)", e2);
    for (unsigned k = 0; k < KH_FLIT_WORDS; k++)
        if (add_write(p, addr + 8 * k, f.w[k])) return -1;
    return 0;
}

/* cpu PROGRAM [arg=N] [txn=T] [last=0|1]: the image is read now, loaded
 * and kicked when the line runs (rv32.h, kh_rv32_host_load). */
static int cmd_cpu(sess_parse *p, char **tok, int ntok)
{
    if (ntok < 2) return fail(p, "usage: cpu PROGRAM [arg=N] [txn=T] [last=0|1]");
    sess_cmd *c = add_cmd(p, SESS_CPU);
    if (!c) return -1;
    c->mesh = p->mesh;
    c->addr = 1; /* txn */
    for (int i = 2; i < ntok; i++) {
        char *eq = strchr(tok[i], '=');
        uint64_t v;
        if (!eq) return fail(p, "cpu: expected arg=, txn= or last=, got '%s'", tok[i]);
        *eq = 0;
        if (eval(p, eq + 1, &v)) return -1;
        if (!strcmp(tok[i], "arg")) {
            if (v > 0xFFFFFFFFu) return fail(p, "cpu: arg=%llu does not fit 32 bits (cpu.md §7.3)", (unsigned long long)v);
            c->value = v;
        } else if (!strcmp(tok[i], "txn")) {
            if (v > 0xFF) return fail(p, "cpu: txn=%llu does not fit 8 bits (flits.md §2)", (unsigned long long)v);
            c->addr = v;
        } else if (!strcmp(tok[i], "last")) {
            if (v > 1) return fail(p, "cpu: last=%llu is not 0 or 1 (flits.md §2)", (unsigned long long)v);
            c->has_value = (int)v;
        } else {
            return fail(p, "cpu: unknown field '%s' (arg, txn, last)", tok[i]);
        }
    }
    char full[1024], e2[600];
    if (tok[1][0] != '/' && p->base_dir && p->base_dir[0]) snprintf(full, sizeof full, "%s/%s", p->base_dir, tok[1]);
    else snprintf(full, sizeof full, "%s", tok[1]);
    kh_rv32_image *img = malloc(sizeof *img);
    if (!img) return fail(p, "out of memory");
    c->bytes = (uint8_t *)img;
    c->n = sizeof *img;
    if (kh_rv32_image_load(full, img, e2, sizeof e2)) return fail(p, "%s", e2);
    return 0;
}

/* cpu64 PROGRAM: an ELF64 for the node map, read now to refuse a bad one
 * with its line, and again when the line runs (kh_rv64_node_start) */
static int cmd_cpu64(sess_parse *p, char **tok, int ntok)
{
    if (ntok != 2) return fail(p, "usage: cpu64 PROGRAM");
    sess_cmd *c = add_cmd(p, SESS_CPU64);
    if (!c) return -1;
    c->mesh = p->mesh;
    char full[1024], e2[600];
    if (tok[1][0] != '/' && p->base_dir && p->base_dir[0]) snprintf(full, sizeof full, "%s/%s", p->base_dir, tok[1]);
    else snprintf(full, sizeof full, "%s", tok[1]);
    kh_rv64_elf elf;
    if (kh_rv64_elf_read(full, &elf, e2, sizeof e2)) return fail(p, "%s", e2);
    kh_rv64_elf_free(&elf);
    size_t n = strlen(full);
    if (!(c->bytes = malloc(n + 1))) return fail(p, "out of memory");
    memcpy(c->bytes, full, n + 1);
    c->n = (uint32_t)n;
    return 0;
}

static int parse_line(sess_parse *p, char **tok, int ntok)
{
    const char *op = tok[0];
    sess_cmd *c;
    if (is_word(op, "mesh")) {
        uint64_t n;
        if (ntok != 2) return fail(p, "usage: mesh N");
        if (eval(p, tok[1], &n)) return -1;
        if (n >= KH_HOST_MESHES) return fail(p, "mesh %llu: meshes are 0..%u (control.md §7.1)",
                                            (unsigned long long)n, KH_HOST_MESHES - 1);
        p->mesh = (unsigned)n;
        if (n >= p->s->top_mesh) {
            p->s->top_mesh = (unsigned)n + 1;
            p->s->top_mesh_line = p->line;
        }
        return 0;
    }
    if (is_word(op, "write")) {
        uint64_t a, v;
        if (ntok != 3) return fail(p, "usage: write ADDR VALUE");
        if (eval(p, tok[1], &a) || eval(p, tok[2], &v)) return -1;
        return add_write(p, a, v);
    }
    if (is_word(op, "read")) {
        if (ntok < 2) return fail(p, "usage: read ADDR [VALUE [mask M]]");
        if (!(c = add_cmd(p, SESS_READ))) return -1;
        if (eval(p, tok[1], &c->addr)) return -1;
        if (ntok >= 3) {
            c->has_value = 1;
            if (eval(p, tok[2], &c->value)) return -1;
        }
        return options(p, c, tok + 3, ntok - 3 > 0 ? ntok - 3 : 0, 1, 0);
    }
    if (is_word(op, "poll")) {
        if (ntok < 3) return fail(p, "usage: poll ADDR VALUE [mask M] [limit CYCLES]");
        if (!(c = add_cmd(p, SESS_POLL))) return -1;
        c->limit = SESS_POLL_LIMIT;
        if (eval(p, tok[1], &c->addr) || eval(p, tok[2], &c->value)) return -1;
        return options(p, c, tok + 3, ntok - 3, 1, 1);
    }
    if (is_word(op, "upload") || is_word(op, "compare")) {
        if (ntok < 2) return fail(p, "usage: %s ADDR hex HEX... | %s ADDR file PATH", op, op);
        if (!(c = add_cmd(p, op[0] == 'u' ? SESS_UPLOAD : SESS_COMPARE))) return -1;
        if (eval(p, tok[1], &c->addr)) return -1;
        size_t n = 0;
        if (data_operand(p, tok + 2, ntok - 2, &c->bytes, &n)) return -1;
        c->n = (uint32_t)n; /* at most SESS_DATA_MAX */
        return 0;
    }
    if (is_word(op, "dump")) {
        uint64_t n;
        if (ntok != 3) return fail(p, "usage: dump ADDR BYTES");
        if (!(c = add_cmd(p, SESS_DUMP))) return -1;
        if (eval(p, tok[1], &c->addr) || eval(p, tok[2], &n)) return -1;
        if (n == 0 || n % 8 || n > SESS_DATA_MAX)
            return fail(p, "dump of %llu bytes: a whole number of 64-bit words, at most 16 MiB",
                        (unsigned long long)n);
        c->n = (uint32_t)n;
        return 0;
    }
    if (is_word(op, "run")) {
        if (ntok != 2) return fail(p, "usage: run CYCLES");
        if (!(c = add_cmd(p, SESS_RUN))) return -1;
        if (eval(p, tok[1], &c->value)) return -1;
        if (c->value > SESS_CLOCK_MAX)
            return fail(p, "run %llu: past the session clock's end, cycle 2^62 (docs/session.md)",
                        (unsigned long long)c->value);
        return 0;
    }
    if (is_word(op, "idle")) {
        if (!(c = add_cmd(p, SESS_IDLE))) return -1;
        c->limit = SESS_IDLE_LIMIT;
        return options(p, c, tok + 1, ntok - 1, 0, 1);
    }
    if (is_word(op, "save")) {
        if (ntok != 2) return fail(p, "usage: save FILE");
        size_t n = strlen(tok[1]);
        if (!(c = add_cmd(p, SESS_SAVE))) return -1;
        if (!(c->bytes = malloc(n + 1))) return fail(p, "out of memory");
        memcpy(c->bytes, tok[1], n + 1);
        c->n = (uint32_t)n;
        return 0;
    }
    if (is_word(op, "cpu")) return cmd_cpu(p, tok, ntok);
    if (is_word(op, "cpu64")) return cmd_cpu64(p, tok, ntok);
    if (is_word(op, "stage")) return cmd_stage(p, tok, ntok);
    if (is_word(op, "flit")) return cmd_flit(p, tok, ntok);
    kh_echo_buf b;
    return fail(p, "unknown command '%s' (write, read, poll, upload, compare, dump, run, idle, save, stage, flit, cpu, cpu64, "
                "mesh)",
                kh_echo(op, &b));
}

static void free_cmds(kh_session *s)
{
    for (unsigned i = 0; i < s->ncmd; i++)
        if (s->cmd[i].bytes) free(s->cmd[i].bytes); /* most commands have none: no call for them */
    free(s->cmd);
    free(s->ref);
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

/* What ends a word: the end of the line, a comment, a blank (one look-up a
 * byte instead of seven compares). */
static const unsigned char word_end[256] = {[0] = 1, ['#'] = 1, [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\f'] = 1, ['\v'] = 1};

/* The len bytes at text (no NUL among them), line by line. */
static kh_session *parse_text(const char *text, size_t len, const char *name, const char *base_dir, char *err,
                              size_t errlen)
{
    kh_session *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(s->name, sizeof s->name, "%s", name ? name : "session");
    sess_parse p = {.s = s, .base_dir = base_dir, .err = err, .errlen = errlen};
    const char *at = text, *stop = text + len;
    for (const char *next; at < stop; at = next) {
        const char *end = memchr(at, '\n', (size_t)(stop - at));
        size_t n = end ? (size_t)(end - at) : (size_t)(stop - at);
        next = end ? end + 1 : stop;
        p.line++;
        if (n == 0 || at[0] == '#') continue; /* no words: nothing to read */
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)at[i]) * 16777619u;
        line_seen *seen = &p.lines[((h ^ p.mesh) * 2654435761u) >> (32 - LINE_CACHE_BITS)]; /* top bits: mixed */
        if (seen->text && seen->len == n && seen->mesh == p.mesh && !memcmp(seen->text, at, n)) {
            if (add_ref(&p, seen->cmd)) goto bad;
            continue;
        }
        unsigned ncmd = s->ncmd;
        /* most lines fit the stack buffer: no allocation per line */
        char small[256], *buf = n < sizeof small ? small : malloc(n + 1);
        if (!buf) {
            fail(&p, "out of memory");
            goto bad;
        }
        memcpy(buf, at, n);
        buf[n] = 0;
        char *tok[MAX_TOKENS];
        int ntok = 0;
        /* words: runs of anything but blanks, up to a '#' (a comment) */
        for (char *c = buf; *c && *c != '#';) {
            if (is_blank(*c)) {
                c++;
                continue;
            }
            if (ntok == MAX_TOKENS) {
                fail(&p, "more than %d words on one line", MAX_TOKENS);
                if (buf != small) free(buf);
                goto bad;
            }
            tok[ntok++] = c;
            while (!word_end[(unsigned char)*c]) c++;
            if (*c == '#') {
                *c = 0;
                break;
            }
            if (*c) *c++ = 0;
        }
        int rc = ntok ? parse_line(&p, tok, ntok) : 0;
        if (buf != small) free(buf);
        if (rc) goto bad;
        /* one command that reads no file and has no staging slot: all its
         * parse read is the text and the mesh */
        if (s->ncmd == ncmd + 1 && s->cmd[ncmd].op != SESS_UPLOAD && s->cmd[ncmd].op != SESS_COMPARE &&
            s->cmd[ncmd].op != SESS_CPU && s->cmd[ncmd].op != SESS_CPU64 && s->cmd[ncmd].stage_slot < 0)
            *seen = (line_seen){at, n, p.mesh, ncmd};
    }
    return s;
bad:
    free_cmds(s);
    free(s);
    return NULL;
}

kh_session *kh_session_parse(const char *text, const char *name, const char *base_dir, char *err, size_t errlen)
{
    return parse_text(text, strlen(text), name, base_dir, err, errlen);
}

/* A regular text file, mapped instead of copied into a buffer (bench (2)'s
 * 3 MB session: ~730 fewer page faults and no 3 MB read copy). NULL, and
 * *tried 0, when it is not one to map: the caller reads it whole, which
 * also gives the messages (cannot open, too large, a NUL byte). */
static kh_session *load_mapped(const char *path, const char *dir, int *tried, char *err, size_t errlen)
{
    *tried = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    void *m = MAP_FAILED;
    size_t len = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < KH_FILE_MAX) {
        len = (size_t)st.st_size;
        m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    close(fd);
    if (m == MAP_FAILED) return NULL;
    kh_session *s = NULL;
    if (!memchr(m, '\0', len)) {
        *tried = 1;
        s = parse_text(m, len, path, dir, err, errlen);
    }
    munmap(m, len);
    return s;
}

kh_session *kh_session_load(const char *path, char *err, size_t errlen)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    else
        dir[0] = 0;
    int tried;
    kh_session *s = load_mapped(path, dir[0] ? dir : NULL, &tried, err, errlen);
    if (tried) return s;
    char *text = kh_file_read_text(path, err, errlen);
    if (!text) return NULL;
    s = kh_session_parse(text, path, dir[0] ? dir : NULL, err, errlen);
    free(text);
    return s;
}

void kh_session_free(kh_session *s)
{
    if (!s) return;
    free_cmds(s);
    free(s);
}

unsigned kh_session_ncommands(const kh_session *s) { return s->nref; }
